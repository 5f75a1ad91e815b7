import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { HookHostV1, HookOutcome, HookPayload, StoredItem } from '../../hooks/index.js'
import { getHookHost } from '../../hooks/hosts/index.js'
import type { MustKeepItem } from '../../spec/summarizer.js'
import type { Message } from '../../spec/transcript.js'
import { parseCommandArgs, parseIntegerFlag, UsageError, type CliCommand, type CliIo } from '../_command.js'
import {
  appendLine,
  type AuditJob,
  type LedgerJob,
  type LedgerState,
  readJsonFile,
  readRange,
  removeFile,
  resolveStateRoot,
  sessionDir,
  type StoredLedger,
  writeFileAtomic,
} from './_hook-state.js'

const usage = `usage: floorguard hook <host> <event> [--state-dir DIR] [--block manual|never] [--cap N] [--slot N]
                      [--max-bytes N] [--wait-ms N] [--tokenizer NAME] [--estimator NAME] [--sync] [--instructions]

Runs as an agent's compaction hook: reads the host's JSON on standard input and answers as the host expects.
  claude-code  PreCompact, SessionStart (source compact), PostCompact
  codex        PreCompact, SessionStart (source compact), PostCompact
  gemini       PreCompress, BeforeAgent

Before a compaction (PreCompact, PreCompress) it records the verbatim state of the messages since the last compaction
(constraints, decisions and pins, errors, commands, paths, identifiers) in the state directory; the work runs in a
detached process so the hook answers at once (--sync waits for it). After it (SessionStart compact, BeforeAgent) it
puts that ledger back into the model's context within --cap characters; the rest is in a file the text names. On
PostCompact it counts what the host's summary kept verbatim, tells the user in one line and appends a record to
audit.jsonl.

  --state-dir DIR   state directory (default $FLOORGUARD_STATE_DIR, else \${XDG_STATE_HOME:-~/.local/state}/floorguard);
                    per session: sessions/<host>/<session-id>/ledger.json and ledger.md; audit.jsonl, faults.log
  --block POLICY    never (default): never stop a compaction; manual: stop a manual Claude Code compaction whose
                    state floor exceeds --slot (an automatic one is never blocked: that would fail the request)
  --cap N           most characters put back into context (default: 9500, under Claude Code's 10,000)
  --slot N          summary tokens --block compares the floor with (default 20000)
  --max-bytes N     most bytes read from the end of a session log (default 16777216)
  --wait-ms N       how long an after-hook waits for a ledger still being built (default 3000)
  --tokenizer NAME  o200k_base (default), cl100k_base, approx
  --estimator NAME  full (default), seed, conservative
  --sync            build the ledger before answering (slower; the default builds it in a detached process)
  --instructions    Claude Code PreCompact: print must-keep instructions on stdout (undocumented: users report that
                    Claude Code passes plain PreCompact output to its summarizer)

A hook never harms its host: on its own fault it prints one line on stderr, appends it to faults.log and exits 0.`

const FLAGS = {
  'state-dir': { type: 'string' },
  block: { type: 'string' },
  cap: { type: 'string' },
  slot: { type: 'string' },
  'max-bytes': { type: 'string' },
  'wait-ms': { type: 'string' },
  tokenizer: { type: 'string' },
  estimator: { type: 'string' },
  sync: { type: 'boolean' },
  instructions: { type: 'boolean' },
  job: { type: 'string' },
} as const

/** Largest hook payload read from standard input (a PostCompact summary is tens of kilobytes). */
const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024
/** How long standard input may stay open without ending. */
const STDIN_TIMEOUT_MS = 10_000

/** The binary a detached job runs (`bin/floorguard.js`, next to `dist/` and `src/`). */
const BIN = fileURLToPath(new URL('../../../bin/floorguard.js', import.meta.url))
/** The launcher that loads the hook command alone, preferred when this installation ships it. */
const LAUNCHER = fileURLToPath(new URL('../../../hooks/floorguard-hook.mjs', import.meta.url))

interface HookSettings {
  readonly root: string
  readonly block: 'manual' | 'never'
  readonly cap: number
  readonly slot: number
  readonly maxBytes: number
  readonly waitMs: number
  readonly tokenizer: string
  readonly estimator: string
  readonly sync: boolean
  readonly instructions: boolean
}

function resolveSettings(values: Record<string, string | boolean | undefined>, host: HookHostV1, io: CliIo): HookSettings {
  const block = values.block ?? 'never'
  if (block !== 'manual' && block !== 'never') throw new UsageError(`--block: expected manual or never, got ${JSON.stringify(block)}`)
  return {
    root: resolveStateRoot(values['state-dir'] as string | undefined, io.env, io.cwd),
    block,
    cap: parseIntegerFlag('cap', values.cap, host.contextCap, { min: 200 }),
    slot: parseIntegerFlag('slot', values.slot, 20_000, { min: 1 }),
    maxBytes: parseIntegerFlag('max-bytes', values['max-bytes'], 16 * 1024 * 1024, { min: 1024 }),
    waitMs: parseIntegerFlag('wait-ms', values['wait-ms'], 3000, { max: 600_000 }),
    tokenizer: (values.tokenizer as string | undefined) ?? 'o200k_base',
    estimator: (values.estimator as string | undefined) ?? 'full',
    sync: values.sync === true,
    instructions: values.instructions === true,
  }
}

/** `--state-dir DIR` or `--state-dir=DIR` from raw arguments (read before the rest, which may be malformed). */
function stateDirFlag(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === '--state-dir') return args[index + 1]
    if (arg.startsWith('--state-dir=')) return arg.slice('--state-dir='.length)
  }
  return undefined
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? ''
}

/** Reads standard input whole, within a size bound and a time bound (a terminal is refused at once). */
async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  if ((stream as { isTTY?: boolean }).isTTY) throw new Error("standard input: expected the host's JSON, got a terminal")
  const chunks: Buffer[] = []
  let size = 0
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`standard input: no end after ${STDIN_TIMEOUT_MS} ms`)), STDIN_TIMEOUT_MS)
  })
  const read = (async () => {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      size += buffer.length
      if (size > MAX_PAYLOAD_BYTES) throw new Error(`standard input: expected at most ${MAX_PAYLOAD_BYTES} bytes of JSON`)
      chunks.push(buffer)
    }
    return Buffer.concat(chunks).toString('utf8')
  })()
  try {
    return await Promise.race([read, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function parsePayloadJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    const preview = JSON.stringify(text.trim().slice(0, 24))
    throw new Error(`standard input: expected the host's hook JSON, got ${text.trim() === '' ? 'nothing' : preview}`)
  }
}

/** Appends one fault line to `ROOT/faults.log`; a failure to log is itself ignored (the hook must still answer). */
async function recordFault(root: string | undefined, where: string, message: string, now: Date): Promise<void> {
  if (!root) return
  await appendLine(join(root, 'faults.log'), `${now.toISOString()} ${where}: ${message}`).catch(() => {})
}

// ---------------------------------------------------------------------------------------------------------------
// Building the ledger (the `before` hooks, in a detached process or in-process with --sync).

interface BuiltLedger {
  readonly stored: StoredLedger
  readonly state: LedgerState
  readonly messages: readonly Message[]
  /** The items with their positions (the stored ones keep only their message). */
  readonly items: readonly MustKeepItem[]
}

async function readMessages(host: HookHostV1, job: LedgerJob): Promise<{ messages: Message[]; from: number; skipped: number }> {
  const from = Math.max(0, job.bytes - job.options.maxBytes)
  const [{ fromLineBoundary }, { readGeminiSession }] = await Promise.all([import('../../hooks/region.js'), import('../../hooks/gemini-session.js')])
  const text = fromLineBoundary(await readRange(job.transcript, from, job.bytes), from > 0)
  if (from > 0 && text.trim() === '') {
    // The tail holds no whole record: the last one is longer than what may be read (a huge tool result).
    const { InvalidInputError } = await import('../../errors.js')
    throw new InvalidInputError(`expected a whole record in the last ${job.options.maxBytes} bytes, got part of one longer record (raise --max-bytes)`, { file: job.transcript })
  }
  if (host.transcriptFormat === 'gemini-session') {
    const session = readGeminiSession(text)
    // A file with text but no message is no session (binary, cut, another format): a fault, not an empty ledger.
    if (session.messages.length === 0 && text.trim() !== '') {
      const { InvalidInputError } = await import('../../errors.js')
      throw new InvalidInputError(`expected a Gemini CLI session, got no message record${session.skipped > 0 ? ` (${session.skipped} lines skipped)` : ''}`, { file: job.transcript })
    }
    return { messages: [...session.messages], from, skipped: session.skipped }
  }
  const { readTranscript, sourceFromString } = await import('../../transcript/index.js')
  const transcript = await readTranscript(sourceFromString(job.transcript, text), { format: host.transcriptFormat, lenient: true, keepSource: false })
  return { messages: [...transcript.messages], from, skipped: transcript.warnings?.length ?? 0 }
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32)
}

async function buildAndStore(host: HookHostV1, job: LedgerJob, root: string): Promise<BuiltLedger> {
  const [{ buildLedger, lastBoundary, pendingRegion, renderInjection }, { createTokenizer }, { createEstimator }] = await Promise.all([
    import('../../hooks/index.js'),
    import('../../tokenize/index.js'),
    import('../../estimate/index.js'),
  ])
  const { messages, from, skipped } = await readMessages(host, job)
  const region = pendingRegion(messages)
  const tokenizer = await createTokenizer(job.options.tokenizer)
  const estimator = createEstimator({ name: job.options.estimator, tokenizer })
  const ledger = buildLedger({ messages, region, estimator, tokenizer })
  const dir = sessionDir(root, host.name, job.session)
  const file = join(dir, 'ledger.md')
  const injection = renderInjection({ items: ledger.items, messages, cap: job.options.cap, file, host: host.displayName, ...(job.trigger ? { trigger: job.trigger } : {}) })
  const boundary = lastBoundary(messages)
  const boundaryText = boundary === -1 ? undefined : messages[boundary]!.parts.map((part) => (part.type === 'summary' ? part.text : '')).join('\n')
  const items: StoredItem[] = ledger.items.map((item) => ({ kind: item.kind, text: item.text, status: item.status, ...(item.key === undefined ? {} : { key: item.key }), message: item.message }))
  const stored: StoredLedger = {
    v: 1,
    host: host.name,
    session: job.session,
    event: job.event,
    trigger: job.trigger,
    createdAt: job.createdAt,
    transcript: { path: job.transcript, bytes: job.bytes, from, truncated: from > 0, skipped },
    range: ledger.range,
    messages: messages.length,
    floor: { ...ledger.floor, estimator: estimator.name, tokenizer: tokenizer.name },
    tokens: ledger.tokens,
    items,
    file,
  }
  const state: LedgerState = {
    v: 1,
    createdAt: job.createdAt,
    items: items.length,
    injection: { text: injection.text, shown: injection.shown, total: injection.total, detail: injection.detail, cap: job.options.cap },
    file,
    boundarySummary: boundaryText === undefined ? null : hashText(boundaryText),
    injectedAt: null,
    verifiedAt: null,
  }
  await writeFileAtomic(file, injection.full)
  await writeFileAtomic(join(dir, 'ledger.json'), `${JSON.stringify(stored)}\n`)
  // state.json last: an after-hook that sees it finds the ledger complete.
  await writeFileAtomic(join(dir, 'state.json'), `${JSON.stringify(state)}\n`)
  return { stored, state, messages, items: ledger.items }
}

/** Counts the summary's tokens and appends the audit record. */
async function writeAudit(job: AuditJob, root: string): Promise<void> {
  const { createTokenizer } = await import('../../tokenize/index.js')
  const summaryTokens = (await createTokenizer(job.tokenizer)).count(job.summary)
  await appendLine(join(root, 'audit.jsonl'), JSON.stringify({ ...job.record, summaryTokens }))
}

/** `floorguard hook HOST EVENT --job FILE`: the detached build or audit a hook started. */
async function runJob(host: HookHostV1, jobPath: string, root: string): Promise<void> {
  const job = await readJsonFile<LedgerJob | AuditJob>(jobPath)
  if (!job) return
  try {
    if (job.kind === 'audit') await writeAudit(job, root)
    else await buildAndStore(host, job, root)
  } finally {
    await removeFile(jobPath)
  }
}

/** Starts `floorguard hook HOST EVENT --job FILE --state-dir ROOT` detached: it outlives the hook, which answers now. */
function spawnDetached(args: readonly string[], env: NodeJS.ProcessEnv): { on(event: 'error', listener: (error: Error) => void): unknown } {
  const entry = existsSync(LAUNCHER) ? LAUNCHER : BIN
  const child = spawn(process.execPath, [entry, ...args], { detached: true, stdio: 'ignore', windowsHide: true, env: { ...process.env, ...env } })
  child.unref()
  return child
}

// ---------------------------------------------------------------------------------------------------------------
// The three roles.

interface Context {
  readonly spawnJob: JobSpawner
  readonly host: HookHostV1
  readonly payload: HookPayload
  readonly settings: HookSettings
  readonly io: CliIo
  readonly now: () => Date
}

function startJob(ctx: Context, jobPath: string): void {
  const where = `${ctx.host.name} ${ctx.payload.event} session=${ctx.payload.sessionId}`
  try {
    const child = ctx.spawnJob(['hook', ctx.host.name, ctx.payload.event, '--job', jobPath, '--state-dir', ctx.settings.root], ctx.io.env)
    child.on('error', (error) => void recordFault(ctx.settings.root, where, `cannot start a detached job: ${firstLine(error)}`, ctx.now()))
  } catch (error) {
    void recordFault(ctx.settings.root, where, `cannot start a detached job: ${firstLine(error)}`, ctx.now())
  }
}

async function before(ctx: Context): Promise<HookOutcome> {
  const { host, payload, settings, now } = ctx
  if (!payload.transcriptPath) throw new Error('transcript_path: the host sent none, so no ledger was recorded')
  let bytes: number
  try {
    const info = await stat(payload.transcriptPath)
    if (!info.isFile()) throw new Error('not a file')
    bytes = info.size
  } catch (error) {
    throw new Error(`transcript_path ${payload.transcriptPath}: cannot read it (${(error as NodeJS.ErrnoException).code ?? firstLine(error)})`)
  }
  const job: LedgerJob = {
    v: 1,
    host: host.name,
    event: payload.event,
    session: payload.sessionId,
    trigger: payload.trigger ?? null,
    transcript: payload.transcriptPath,
    bytes,
    createdAt: now().toISOString(),
    options: { cap: settings.cap, tokenizer: settings.tokenizer, estimator: settings.estimator, maxBytes: settings.maxBytes },
  }
  const mayBlock = host.canBlock && settings.block === 'manual' && payload.trigger === 'manual'
  const instruct = settings.instructions && host.name === 'claude-code'
  const dir = sessionDir(settings.root, host.name, payload.sessionId)
  if (!settings.sync && !mayBlock && !instruct) {
    const jobPath = join(dir, 'job.json')
    await writeFileAtomic(jobPath, `${JSON.stringify(job)}\n`)
    startJob(ctx, jobPath)
    return { kind: 'none' }
  }
  await removeFile(join(dir, 'job.json'))
  const built = await buildAndStore(host, job, settings.root)
  const { floor, items, file } = built.stored
  if (mayBlock && floor.total > settings.slot) {
    return {
      kind: 'block',
      reason:
        `floorguard: the ${items.length} state items of the messages since the last compaction need ${floor.total} tokens verbatim, ` +
        `more than the ${settings.slot}-token summary holds; this manual compaction was blocked by --block manual. The ledger is in ${file}.`,
    }
  }
  if (instruct) {
    const { renderKeepInstructions } = await import('../../hooks/inject.js')
    const text = renderKeepInstructions({ items: built.items, messages: built.messages, cap: settings.cap })
    return text === '' ? { kind: 'none' } : { kind: 'instructions', text }
  }
  return { kind: 'none' }
}

function dirOf(ctx: Context): string {
  return sessionDir(ctx.settings.root, ctx.host.name, ctx.payload.sessionId)
}

/** The session's ledger state, waiting up to `--wait-ms` while a detached build of it is still running. */
async function currentState(ctx: Context): Promise<LedgerState | undefined> {
  const dir = dirOf(ctx)
  const jobPath = join(dir, 'job.json')
  const deadline = Date.now() + ctx.settings.waitMs
  for (;;) {
    const job = await readJsonFile<LedgerJob>(jobPath).catch(() => undefined)
    const state = await readJsonFile<LedgerState>(join(dir, 'state.json'))
    if (!job || (state && state.createdAt >= job.createdAt)) return state
    if (Date.now() >= deadline) throw new Error(`the ledger of session ${ctx.payload.sessionId} is still being built after ${ctx.settings.waitMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

async function readLedger(ctx: Context, state: LedgerState): Promise<StoredLedger> {
  const ledger = await readJsonFile<StoredLedger>(join(dirOf(ctx), 'ledger.json'))
  if (!ledger || ledger.createdAt !== state.createdAt) throw new Error(`ledger.json of session ${ctx.payload.sessionId} is missing or does not match state.json`)
  return ledger
}

async function saveState(ctx: Context, state: LedgerState): Promise<void> {
  await writeFileAtomic(join(dirOf(ctx), 'state.json'), `${JSON.stringify(state)}\n`)
}

async function after(ctx: Context): Promise<HookOutcome> {
  const state = await currentState(ctx)
  if (!state) {
    // Gemini's BeforeAgent fires on every prompt: no ledger is the common case, not a fault.
    if (ctx.host.name !== 'gemini') ctx.io.stderr(`floorguard hook: no ledger recorded for session ${ctx.payload.sessionId} (the before-compaction hook did not run, or failed: see faults.log)\n`)
    return { kind: 'none' }
  }
  if (state.injectedAt !== null) return { kind: 'none' }
  const injectedAt = ctx.now().toISOString()
  let updated: LedgerState = { ...state, injectedAt }
  let notice: string | undefined
  if (ctx.host.name === 'gemini' && state.verifiedAt === null) {
    // No hook follows Gemini's compression: the summary, when the session file records it, is checked here.
    const ledger = await readLedger(ctx, state)
    updated = { ...updated, verifiedAt: injectedAt }
    notice = await verifyAndAudit(ctx, ledger, updated, await summaryFromLog(ctx, ledger, state))
  }
  await saveState(ctx, updated)
  return { kind: 'context', text: state.injection.text, ...(notice === undefined ? {} : { notice }) }
}

interface SummaryFound {
  readonly text: string | undefined
  readonly note?: string
}

/** The latest summary in the session log, when it is not the one that opened the ledger's region. */
async function summaryFromLog(ctx: Context, ledger: StoredLedger, state: LedgerState): Promise<SummaryFound> {
  const path = ctx.payload.transcriptPath ?? ledger.transcript.path
  let bytes: number
  try {
    bytes = (await stat(path)).size
  } catch (error) {
    return { text: undefined, note: `the session log cannot be read (${(error as NodeJS.ErrnoException).code ?? firstLine(error)}), so the summary was not checked` }
  }
  const job: LedgerJob = { ...jobOf(ledger), transcript: path, bytes, options: { ...jobOf(ledger).options, maxBytes: ctx.settings.maxBytes } }
  const { messages } = await readMessages(ctx.host, job)
  const { latestSummary } = await import('../../hooks/region.js')
  const found = latestSummary(messages)
  if (!found || hashText(found.text) === state.boundarySummary) return { text: undefined, note: 'the session log holds no summary of this compaction' }
  const { ENCRYPTED_COMPACTION } = await import('../../transcript/index.js')
  if (found.text.trim() === '' || found.text === ENCRYPTED_COMPACTION) return { text: undefined, note: 'the summary is encrypted (a server-side compaction)' }
  return { text: found.text }
}

function jobOf(ledger: StoredLedger): LedgerJob {
  return {
    v: 1,
    host: ledger.host,
    event: ledger.event,
    session: ledger.session,
    trigger: ledger.trigger,
    transcript: ledger.transcript.path,
    bytes: ledger.transcript.bytes,
    createdAt: ledger.createdAt,
    options: { cap: 0, tokenizer: ledger.floor.tokenizer, estimator: ledger.floor.estimator, maxBytes: ledger.transcript.bytes },
  }
}

/** Counts what the summary kept, appends the audit record and returns the user's line. */
async function verifyAndAudit(ctx: Context, ledger: StoredLedger, state: LedgerState, summary: SummaryFound): Promise<string> {
  // The audit module alone: an after-hook must not load the planner.
  const { buildAuditRecord, countKept, describeVerification } = await import('../../hooks/audit.js')
  const count = summary.text === undefined ? undefined : countKept(ledger.items, summary.text)
  const record = buildAuditRecord({
    payload: ctx.payload,
    time: ctx.now().toISOString(),
    ledger: {
      ...(ledger.trigger ? { trigger: ledger.trigger } : {}),
      transcript: ledger.transcript.path,
      range: ledger.range,
      floor: ledger.floor,
      tokens: ledger.tokens,
      items: ledger.items,
      shown: state.injection.shown,
      file: ledger.file,
      ...(state.injectedAt ? { injectedAt: state.injectedAt } : {}),
    },
    count,
    summaryTokens: undefined,
    ...(summary.note === undefined ? {} : { note: summary.note }),
  })
  if (summary.text === undefined) {
    await appendLine(join(ctx.settings.root, 'audit.jsonl'), JSON.stringify(record))
  } else {
    const job: AuditJob = { v: 1, kind: 'audit', tokenizer: ledger.floor.tokenizer, summary: summary.text, record }
    if (ctx.settings.sync) await writeAudit(job, ctx.settings.root)
    else {
      const jobPath = join(dirOf(ctx), `audit-${randomBytes(6).toString('hex')}.json`)
      await writeFileAtomic(jobPath, `${JSON.stringify(job)}\n`)
      startJob(ctx, jobPath)
    }
  }
  return describeVerification({
    total: ledger.items.length,
    kept: count?.kept,
    putBack: state.injectedAt !== null,
    inFile: ledger.items.length - state.injection.shown,
    ...(summary.note === undefined ? {} : { note: summary.note }),
  })
}

async function verify(ctx: Context): Promise<HookOutcome> {
  const state = await currentState(ctx)
  if (!state) return { kind: 'notice', text: 'floorguard: no state ledger was recorded before this compaction (the PreCompact hook did not run, or failed: see faults.log)' }
  if (state.verifiedAt !== null) return { kind: 'none' }
  const ledger = await readLedger(ctx, state)
  const summary: SummaryFound =
    ctx.payload.compactSummary !== undefined ? { text: ctx.payload.compactSummary } : await summaryFromLog(ctx, ledger, state)
  const updated: LedgerState = { ...state, verifiedAt: ctx.now().toISOString() }
  const line = await verifyAndAudit(ctx, ledger, updated, summary)
  await saveState(ctx, updated)
  return { kind: 'notice', text: line }
}

// ---------------------------------------------------------------------------------------------------------------

/** Starts a detached `floorguard ARGS` process; errors reach the returned emitter. */
export type JobSpawner = (args: readonly string[], env: NodeJS.ProcessEnv) => { on(event: 'error', listener: (error: Error) => void): unknown }

/** Options of {@link createHookCommand} (tests pass a clock and run jobs themselves). */
export interface HookCommandOptions {
  /**
   * Starts the detached build and audit jobs.
   * @default a detached `node bin/floorguard.js ARGS` with no standard streams
   */
  readonly spawnJob?: JobSpawner
  /**
   * The clock for ledger, audit and fault times.
   * @default () => new Date()
   */
  readonly now?: () => Date
}

/** Creates `floorguard hook`. */
export function createHookCommand(options: HookCommandOptions = {}): CliCommand {
  const now = options.now ?? (() => new Date())
  const spawnJob = options.spawnJob ?? spawnDetached
  return {
    name: 'hook',
    summary: "run as Claude Code's, Codex's or Gemini CLI's compaction hook (JSON on stdin)",
    usage,
    async run(args, io) {
      let host: HookHostV1 | undefined
      let root: string | undefined
      let where = `hook ${args.slice(0, 2).join(' ')}`
      try {
        // The state root first, so that every later fault (bad flags, unknown host) is logged.
        root = resolveStateRoot(stateDirFlag(args), io.env, io.cwd)
        const { values, positionals } = parseCommandArgs(args, FLAGS)
        if (positionals.length !== 2) throw new UsageError(`expected <host> <event>, got ${positionals.length === 0 ? 'nothing' : positionals.join(' ')}`)
        host = getHookHost(positionals[0]!)
        const event = positionals[1]!
        const settings = resolveSettings(values, host, io)
        if (typeof values.job === 'string') {
          await runJob(host, values.job, settings.root)
          return 0
        }
        const parsed = host.parse(event, parsePayloadJson(await readStdin(io.stdin)))
        if (parsed.kind === 'invalid') throw new Error(`standard input: ${parsed.reason}`)
        const payload = parsed.payload
        where = `${host.name} ${event} session=${payload.sessionId}`
        const ctx: Context = { spawnJob, host, payload, settings, io, now }
        const outcome: HookOutcome =
          payload.role === 'before' ? await before(ctx) : payload.role === 'after' ? await after(ctx) : payload.role === 'verify' ? await verify(ctx) : { kind: 'none' }
        await writeAnswer(io, host.answer(payload, outcome).stdout)
        return 0
      } catch (error) {
        const message = firstLine(error)
        io.stderr(`floorguard hook: ${message}\n`)
        await recordFault(root, where, message, now())
        if (host) await writeAnswer(io, host.neutral.stdout)
        return 0
      }
    },
  }
}

async function writeAnswer(io: CliIo, text: string): Promise<void> {
  if (text === '') return
  try {
    await io.stdout(text)
  } catch {
    // The host went away: nothing left to tell it.
  }
}

/** `floorguard hook <host> <event>`. */
export const hookCommand: CliCommand = createHookCommand()

import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { resolveRange } from '../../check/index.js'
import type { CompactResult } from '../../compact/compact.js'
import { compactLogged, eventsJsonl } from '../../runtime/_events.js'
import type { CompactorEvent } from '../../runtime/index.js'
import { compactJson, renderCompactReport } from '../../report/compact.js'
import { InvalidInputError } from '../../errors.js'
import type { TokenizerV1 } from '../../spec/tokenizer.js'
import type { Transcript } from '../../spec/transcript.js'
import { createSummarizer } from '../../summarize/index.js'
import { getFormat, readTranscript, sourceFromString, writeCompacted } from '../../transcript/index.js'
import { MAX_TIMEOUT_MS, parseCommandArgs, parseIntegerFlag, UsageError, type CliCommand, type CliIo } from '../_command.js'
import { abortableSummarizer } from '../_interrupt.js'
import { refuseInputAsOutput, resolveOutput, sameFile, writeOutput, writeOutputSync, type OutputTarget } from '../_output.js'
import { ESTIMATION_FLAGS, resolveEstimation } from '../_estimation.js'
import { reportWarnings } from '../_load.js'
import { regularFileSize } from '../source.js'

const usage = `usage: floorguard compact FILE|- [--range A:B] [--slot N] [--margin R] [--budget N]
                         [--summarizer ledger|ai:PROVIDER:MODEL|cmd:COMMAND] [-o OUT] [--json]
                         [--format auto|openai|…] [--tokenizer o200k_base|cl100k_base|approx]
                         [--estimator full|seed|conservative] [--timeout MS] [--attempts N] [--lenient]
                         [--log FILE]

Compacts a range of a transcript: estimate → plan (compact, split or refuse) → summarize → verify that every
must-keep item survived verbatim (repair, retry) → write the transcript with each compacted range replaced by one
summary message. Never modifies FILE; writes OUT only when it compacted. A regular OUT (or a new one) is written
atomically: a temp file beside it, then rename (a symbolic link's target is replaced, the link kept); an existing
character device or FIFO (/dev/null, a pipe) is written through; a directory, socket or block device is refused.

  --range A:B      half-open range of message indices to compact (default: all messages)
  --slot N         summary slot in tokens (default 2000)
  --margin R       coherence margin ratio (default 0.2)
  --budget N       most tokens the summaries of a split may cost in all (default: the range's tokens - 1)
  --summarizer S   ledger (default: offline, deterministic state block + extractive gist)
                   ai:openai:MODEL, ai:anthropic:MODEL, ai:google:MODEL (keys from OPENAI_API_KEY,
                     ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY; needs \`npm i ai @ai-sdk/<provider>\`)
                   ai:ollama:MODEL (OLLAMA_BASE_URL or OLLAMA_HOST, default http://localhost:11434/v1)
                   ai:openai-compatible:MODEL (OPENAI_COMPATIBLE_BASE_URL, OPENAI_COMPATIBLE_API_KEY)
                   cmd:COMMAND (run with /bin/sh -c; JSON request on stdin, summary on stdout)
  -o, --output OUT where to write the compacted transcript (default, and -o -: standard output, unless --json)
  --json           print one JSON object: {version, kind, floor, summaries, refusal, verification, …}
  --timeout MS     milliseconds one summarizer call may take (default 120000, at most 2147483647)
  --attempts N     summarizer calls per summary, including the first (default 3)
  --log FILE       write the run's events as JSON Lines, one per line, whatever the outcome (compaction-start,
                   plan-end, verify-error, summary-end, refusal, compaction-end, as the runtime emits them;
                   budget and threshold 0: a one-shot compaction has no context budget); written like OUT
  --format, --tokenizer, --estimator, --lenient: as for floorguard check

Output format: the input's. Message-array documents (openai, openai-responses, anthropic, ai-sdk) are re-serialized;
JSONL logs (claude-code, codex, gemini-cli) keep every record outside the range byte for byte and get one native
summary record in its place.

Exit codes: 0 compacted (one or more verified summaries), 3 refused (nothing written), 2 bad usage or input
(OUT refused before any summarizer runs), 1 internal error or failed write, 130/143 interrupted.`

const options = {
  ...ESTIMATION_FLAGS,
  budget: { type: 'string' },
  summarizer: { type: 'string' },
  output: { type: 'string', short: 'o' },
  timeout: { type: 'string' },
  attempts: { type: 'string' },
  log: { type: 'string' },
} as const

/** Reads FILE or stdin whole: a log is re-emitted byte for byte around the compacted range, so the bytes are kept. */
async function readInput(file: string | undefined, io: CliIo): Promise<{ bytes: Buffer; name: string; path: string | undefined }> {
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    return { bytes: Buffer.concat(chunks), name: '<stdin>', path: undefined }
  }
  const path = resolve(io.cwd, file)
  await regularFileSize(path, file)
  try {
    return { bytes: await readFile(path), name: file, path }
  } catch (error) {
    throw new InvalidInputError(`expected a readable file, got ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { file }, { cause: error })
  }
}

/**
 * Serializes the compacted transcript in the input's format (`writeCompacted`): documents through their writer; logs
 * spliced, every line outside the ranges byte for byte, each range's summary as the format's own records; `onWarning`
 * is told what the copy will not do.
 */
export function serializeCompacted(input: Buffer, original: Transcript, result: CompactResult, tokenizer?: TokenizerV1, onWarning?: (message: string) => void): Buffer {
  return writeCompacted({ input, transcript: original, compacted: result.transcript!, summaries: result.summaries, ...(tokenizer ? { tokenizer } : {}), ...(onWarning ? { onWarning } : {}) })
}

/** `--log FILE`, resolved like `-o` before any summarizer runs; standard output is taken by the transcript or the report. */
async function resolveLog(value: string, cwd: string): Promise<Exclude<OutputTarget, { kind: 'stdout' }>> {
  const target = await resolveOutput(value, cwd).catch((error: unknown) => {
    throw error instanceof UsageError ? new UsageError(error.message.replace(/^-o /, '--log ')) : error
  })
  if (target.kind === 'stdout') throw new UsageError(`--log ${value}: standard output carries the transcript or the report; give the log a file`)
  return target
}

/**
 * The line of a compaction the log records after the messages before `end` (a Claude Code `compact_boundary` read into
 * `envelope.compactions`), or undefined: a summary written before it is not what a resume reloads.
 */
function compactionAfter(transcript: Transcript, end: number): number | undefined {
  const envelope = transcript.envelope as { compactions?: ReadonlyArray<{ line: number }> } | undefined
  const last = transcript.messages[end - 1]?.provenance
  if (!envelope?.compactions || last?.line === undefined) return undefined
  const after = last.endLine ?? last.line
  return envelope.compactions.find((compaction) => compaction.line > after)?.line
}

/** `floorguard compact`: estimate → plan → summarize → verify, then write the compacted transcript. */
export const compactCommand: CliCommand = {
  name: 'compact',
  summary: 'compact a range into verified summaries (or refuse), and write the new transcript',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, options)
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}: ${positionals.join(' ')}`)
    const { slot, range, format: formatName, lenient, tokenizer, estimator } = await resolveEstimation(values)
    const budget = values.budget === undefined ? undefined : parseIntegerFlag('budget', values.budget, 0)
    const timeoutMs = parseIntegerFlag('timeout', values.timeout, 120_000, { min: 1, max: MAX_TIMEOUT_MS, unit: '(milliseconds, about 24.8 days)' })
    const attempts = parseIntegerFlag('attempts', values.attempts, 3, { min: 1 })
    if (values.output === '-' && values.json) throw new UsageError('-o - and --json both write to standard output; give -o a file, or drop one of them')
    // Before any summarizer runs: an OUT that cannot be written is refused while nothing has been spent on it.
    const output = typeof values.output === 'string' ? await resolveOutput(values.output, io.cwd) : undefined

    const log = typeof values.log === 'string' ? await resolveLog(values.log, io.cwd) : undefined

    // Before the input is read: an OUT or a log that is the input (a link to it, the file stdin is redirected from) is refused.
    const file = positionals[0] === undefined || positionals[0] === '-' ? undefined : resolve(io.cwd, positionals[0])
    const inputs = { paths: file === undefined ? [] : [file], stdin: file === undefined && io.stdin === process.stdin }
    if (output) await refuseInputAsOutput(output, inputs, { flag: '-o', value: values.output as string, advice: 'write the compacted copy elsewhere' })
    if (log) await refuseInputAsOutput(log, inputs, { flag: '--log', value: values.log as string, advice: 'give the log its own file' })
    if (log && output && output.kind !== 'stdout' && (await sameFile(log.path, output.path))) throw new UsageError(`--log ${values.log as string}: is also -o; give the log its own file`)
    const input = await readInput(positionals[0], io)
    const summarizerSpec = (values.summarizer as string | undefined) ?? 'ledger'
    const summarizer = await createSummarizer(summarizerSpec, { env: io.env, timeoutMs })
    const text = input.bytes.toString('utf8')
    const transcript = await readTranscript(sourceFromString(input.name, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text), {
      format: formatName,
      lenient,
      keepSource: true,
    })
    reportWarnings(transcript, 'compact', io)
    const format = getFormat(transcript.format)
    if (!format.write && !format.append) {
      throw new UsageError(`${input.name}: format ${transcript.format} has no writer, so floorguard cannot write a compacted copy of it (check, plan and audit read it)`)
    }
    const [start, end] = resolveRange(range, transcript.messages.length)
    const later = compactionAfter(transcript, end)
    if (later !== undefined) {
      await io.stderr(`floorguard compact: warning: messages ${start}:${end} lie before the log's own compaction at line ${later}; Claude Code resumes from its last compaction, so it will not reload this summary\n`)
    }
    // Aborted on an interrupt and whenever this command ends: a command summarizer's process group never outlives it.
    const stop = new AbortController()
    const onInterrupt = (): void => stop.abort()
    if (io.signal?.aborted) stop.abort()
    io.signal?.addEventListener('abort', onInterrupt, { once: true })
    // --log is written whatever the outcome: on an interrupt (or an exception's exit) what was logged so far, at once,
    // before the process ends; otherwise once the run is over.
    const events: CompactorEvent[] = []
    const logSoFar = (): void => void (log && writeOutputSync(log, Buffer.from(eventsJsonl(events))))
    if (log) io.signal?.addEventListener('abort', logSoFar, { once: true })
    let result: CompactResult
    try {
      ;({ result } = await compactLogged(transcript, {
        estimator,
        tokenizer,
        slot,
        summarizer: abortableSummarizer(summarizer, stop.signal),
        timeoutMs,
        attempts,
        range: { start, end },
        ...(budget === undefined ? {} : { budget }),
      }, undefined, events))
    } finally {
      stop.abort()
      io.signal?.removeEventListener('abort', onInterrupt)
    }
    let written: string | null = null
    if (result.kind !== 'refused') {
      const target: OutputTarget | undefined = output ?? (values.json ? undefined : { kind: 'stdout', display: '<stdout>' })
      if (target) {
        // The report names the output only once the write has succeeded.
        const warnings: string[] = []
        await writeOutput(target, serializeCompacted(input.bytes, transcript, result, tokenizer, (warning) => warnings.push(warning)), io)
        written = target.display
        for (const warning of warnings) await io.stderr(`floorguard compact: warning: ${warning}\n`)
      }
    }
    if (log) {
      io.signal?.removeEventListener('abort', logSoFar)
      await writeOutput(log, Buffer.from(eventsJsonl(events)), io)
    }
    const context = { file: input.name, format: transcript.format, summarizer: summarizer.name, output: written }
    // Without -o (or with -o -), stdout carries the transcript: the report then goes to stderr, never into it.
    if (values.json) await io.stdout(`${JSON.stringify(compactJson(result, context))}\n`)
    else if (output && output.kind !== 'stdout') await io.stdout(renderCompactReport(result, context))
    else io.stderr(renderCompactReport(result, context))
    return result.kind === 'refused' ? 3 : 0
  },
}

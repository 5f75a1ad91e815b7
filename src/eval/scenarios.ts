/**
 * The eval's scenario generator: synthetic coding-agent sessions with planted state of every kind.
 *
 * A session is a run of episodes (narrative exchanges, file reads with long listings, test runs, `git log`, `pip`
 * output) among which state is planted: user constraints (one an exact regex), tool errors with an errno, a path and
 * a detail line, version pins later changed, `--flag value` settings, heredoc commands, hashes, UUIDs, URLs, paths,
 * arXiv ids, hex colours and numbers with units. Some planted items are used again later, in user text, assistant
 * text or a tool-call input, so future-reference recall can be measured on sessions whose answer is known. A few
 * sessions are narrative only (no planted state), for spurious refusals. Pure and seeded: the same options give the
 * same sessions.
 */
import type { Message, Part, Transcript } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'
import { createRandom, type Random } from '../_random.js'

/** What a planted item is. */
export type PlantedKind =
  | 'constraint'
  | 'regex'
  | 'error'
  | 'error-detail'
  | 'version'
  | 'version-change'
  | 'setting'
  | 'heredoc'
  | 'hash'
  | 'uuid'
  | 'url'
  | 'path'
  | 'arxiv'
  | 'hex-colour'
  | 'number-unit'

/** Every planted kind, in the order the tables print them. */
export const PLANTED_KINDS: readonly PlantedKind[] = [
  'constraint', 'regex', 'error', 'error-detail', 'version', 'version-change', 'setting', 'heredoc', 'hash', 'uuid', 'url', 'path',
  'arxiv', 'hex-colour', 'number-unit',
]

/** Where in a message an item was planted or used again. */
export type PlantedSource = 'user' | 'assistant' | 'tool-call' | 'tool-result'

/** One planted item: its exact text, the message that holds it and the messages that use it again. */
export interface PlantedItem {
  readonly kind: PlantedKind
  readonly text: string
  readonly message: number
  readonly source: PlantedSource
  /** Later messages whose user text, assistant text or tool-call input holds `text` verbatim. */
  readonly reused: readonly number[]
}

/** One generated session. */
export interface Scenario {
  readonly name: string
  /** No planted state: a prose-only session (for spurious refusals). */
  readonly narrativeOnly: boolean
  readonly transcript: Transcript
  readonly planted: readonly PlantedItem[]
}

/** Options of {@link generateScenarios}. */
export interface ScenarioOptions {
  /** Seed of the whole set; session i uses a seed derived from it. */
  readonly seed: number
  /**
   * Sessions with planted state.
   * @default 40
   */
  readonly sessions?: number
  /**
   * Fewest messages of a session.
   * @default 150
   */
  readonly minMessages?: number
  /**
   * Most messages of a session (a session may overshoot by one episode).
   * @default 700
   */
  readonly maxMessages?: number
  /**
   * Prose-only sessions added after the others.
   * @default 4
   */
  readonly narrativeOnly?: number
}

/** generateScenarios(options) = `sessions` sessions with planted state, then `narrativeOnly` prose-only ones. */
export function generateScenarios(options: ScenarioOptions): Scenario[] {
  const sessions = options.sessions ?? 40
  const narrative = options.narrativeOnly ?? 4
  const min = options.minMessages ?? 150
  const max = options.maxMessages ?? 700
  const lengths = createRandom(options.seed)
  const scenarios: Scenario[] = []
  for (let index = 0; index < sessions + narrative; index++) {
    const length = lengths.int(min, max)
    const narrativeOnly = index >= sessions
    const name = `${narrativeOnly ? 'narrative' : 'session'}-${String(index + 1).padStart(2, '0')}`
    scenarios.push(generateScenario({ seed: (options.seed * 1000003 + index * 7919) >>> 0, name, length, narrativeOnly }))
  }
  return scenarios
}

/** generateScenario = one session of about `length` messages. */
export function generateScenario(options: { seed: number; name: string; length: number; narrativeOnly: boolean }): Scenario {
  const session = new SessionBuilder(createRandom(options.seed))
  session.system()
  let deck: PlantedKind[] = []
  while (session.messages.length < options.length) {
    if (options.narrativeOnly) {
      session.narrative()
      continue
    }
    if (session.reuseDue()) continue
    if (session.random.chance(0.3)) {
      if (deck.length === 0) deck = shuffle(session.random, PLANTED_EPISODES.slice())
      session.plant(deck.pop()!)
    } else session.noise()
  }
  const messages = session.messages
  return {
    name: options.name,
    narrativeOnly: options.narrativeOnly,
    transcript: { format: 'openai', messages, ...pairToolCalls(messages) },
    planted: session.planted.map((item) => ({ ...item, reused: item.reused.slice() })),
  }
}

/** Episodes that plant, each named by the kind it plants first (an error also plants its detail line). */
const PLANTED_EPISODES: readonly PlantedKind[] = PLANTED_KINDS.filter((kind) => kind !== 'error-detail' && kind !== 'version-change')

interface MutablePlanted {
  kind: PlantedKind
  text: string
  message: number
  source: PlantedSource
  reused: number[]
}

interface Pending {
  readonly due: number
  readonly run: () => void
}

class SessionBuilder {
  readonly messages: Message[] = []
  readonly planted: MutablePlanted[] = []
  private readonly pending: Pending[] = []
  private calls = 0
  readonly project: string

  constructor(readonly random: Random) {
    this.project = random.pick(PROJECTS)
  }

  // --- messages -------------------------------------------------------------------------------------------------

  private push(message: Message): number {
    this.messages.push(message)
    return this.messages.length - 1
  }

  user(text: string): number {
    return this.push({ role: 'user', parts: [{ type: 'text', text }] })
  }

  assistant(text: string): number {
    return this.push({ role: 'assistant', parts: [{ type: 'text', text }] })
  }

  /** An assistant turn with one tool call, then the tool's result; returns [call message, result message]. */
  call(text: string, name: string, args: Record<string, unknown>, output: string, isError = false): [number, number] {
    const id = `call_${++this.calls}`
    const parts: Part[] = [{ type: 'text', text }, { type: 'tool-call', id, name, arguments: args }]
    const at = this.push({ role: 'assistant', parts })
    const result = this.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, name, content: output, isError }] })
    return [at, result]
  }

  system(): void {
    this.push({
      role: 'system',
      parts: [{ type: 'text', text: `You are a coding agent working in the ${this.project} repository. Explain what you do before you do it and keep answers short.` }],
    })
  }

  private record(kind: PlantedKind, text: string, message: number, source: PlantedSource): MutablePlanted {
    const item = { kind, text, message, source, reused: [] }
    this.planted.push(item)
    return item
  }

  /** Schedules a later use of `item` (60% of items), 20 to 260 messages on. */
  private maybeReuse(item: MutablePlanted): void {
    if (!this.random.chance(0.6)) return
    const due = this.messages.length + this.random.int(20, 260)
    this.pending.push({ due, run: () => this.reuse(item) })
  }

  /** Runs the first pending episode that is due; false when none is. */
  reuseDue(): boolean {
    const index = this.pending.findIndex((entry) => entry.due <= this.messages.length)
    if (index < 0) return false
    const [entry] = this.pending.splice(index, 1)
    entry!.run()
    return true
  }

  private reuse(item: MutablePlanted): void {
    const r = this.random
    const where = r.pick(['user', 'assistant', 'tool-call'] as const)
    let at: number
    if (where === 'user') at = this.user(`${r.pick(USER_REUSE)} \`${item.text}\` ${r.pick(USER_REUSE_END)}`)
    else if (where === 'assistant') at = this.assistant(`${r.pick(ASSISTANT_REUSE)} \`${item.text}\`. ${sentence(r)}`)
    else {
      ;[at] = this.call(`Let me check where this is used.`, 'bash', { command: `grep -rn --fixed-strings -- '${item.text}' .` }, grepOutput(r, this.project))
    }
    item.reused.push(at)
  }

  // --- episodes -------------------------------------------------------------------------------------------------

  narrative(): void {
    const r = this.random
    this.user(paragraph(r, r.int(1, 3)))
    this.assistant(paragraph(r, r.int(2, 6)))
  }

  noise(): void {
    const r = this.random
    switch (r.int(0, 5)) {
      case 0:
        this.narrative()
        return
      case 1: {
        const path = randomPath(r, this.project)
        this.call(`Let me read ${path} first.`, 'read_file', { path }, codeListing(r, r.int(80, 320)))
        this.assistant(paragraph(r, r.int(1, 3)))
        return
      }
      case 2:
        this.call('Running the test suite.', 'bash', { command: 'python -m pytest -q tests/' }, pytestOutput(r, this.project))
        return
      case 3:
        this.call('Looking at the recent history.', 'bash', { command: 'git log --oneline -n 40' }, gitLog(r))
        return
      case 4:
        this.call('Installing the dependencies.', 'bash', { command: 'pip install -r requirements.txt' }, pipOutput(r))
        return
      default:
        this.call('Listing the directory.', 'bash', { command: `ls -la src/${this.project}` }, lsOutput(r, this.project))
        this.assistant(paragraph(r, 1))
    }
  }

  plant(kind: PlantedKind): void {
    const r = this.random
    const p = this.project
    switch (kind) {
      case 'constraint': {
        const text = r.pick(CONSTRAINTS).replace('#', String(r.int(100, 999)))
        const at = this.user(`${sentence(r)} ${text} ${sentence(r)}`)
        this.maybeReuse(this.record('constraint', text, at, 'user'))
        this.assistant(`Understood. ${paragraph(r, 1)}`)
        return
      }
      case 'regex': {
        const regex = r.pick(REGEXES).replace('#', String(r.int(8, 64)))
        const at = this.user(`Validate every upload name against the regex \`${regex}\` exactly; do not loosen it. ${sentence(r)}`)
        this.maybeReuse(this.record('regex', regex, at, 'user'))
        this.assistant(`I will use that pattern as given. ${paragraph(r, 1)}`)
        return
      }
      case 'error': {
        const template = r.pick(ERRORS)
        const path = randomPath(r, p)
        const error = template.error.replace('PATH', path)
        const detail = template.detail.replace('N', String(r.int(2, 64))).replace('M', String(r.int(65, 900)))
        const command = `python -m ${p}.worker --once --shard ${r.int(1, 99)}`
        const output = `Traceback (most recent call last):\n  File "/srv/${p}/${p}/worker.py", line ${r.int(20, 400)}, in run\n    handle(batch)\n${error}\n  ${detail}\n`
        const [, result] = this.call('Running one cycle of the worker to reproduce it.', 'bash', { command }, output, true)
        this.maybeReuse(this.record('error', error, result, 'tool-result'))
        this.record('error-detail', detail, result, 'tool-result')
        this.assistant(`The worker fails there. ${paragraph(r, 2)}`)
        return
      }
      case 'version': {
        const pkg = r.pick(PACKAGES)
        const pin = `${pkg}==${r.int(1, 9)}.${r.int(0, 30)}.${r.int(0, 12)}`
        const at = this.assistant(`I pinned \`${pin}\` in requirements.txt because the newer release changed its API. ${sentence(r)}`)
        this.record('version', pin, at, 'assistant')
        const due = this.messages.length + r.int(30, 200)
        this.pending.push({
          due,
          run: () => {
            const change = `${pkg}>=${r.int(1, 5)}.${r.int(0, 9)},<${r.int(6, 12)}.0`
            const text = `Reverting that pin: \`${change}\` works with the rest of the stack. ${sentence(r)}`
            this.maybeReuse(this.record('version-change', change, this.assistant(text), 'assistant'))
          },
        })
        return
      }
      case 'setting': {
        const flag = r.pick(FLAGS)
        const setting = `--${flag.name} ${flag.value(r)}`
        const command = `python train.py --config configs/${p}.yaml ${setting} --seed ${r.int(0, 99)}`
        if (r.chance(0.5)) {
          const [at] = this.call('Starting the training run.', 'bash', { command }, trainingOutput(r))
          this.maybeReuse(this.record('setting', setting, at, 'tool-call'))
        } else {
          const at = this.assistant(`Run this on the cluster when it is free:\n\n    ${command}\n\n${sentence(r)}`)
          this.maybeReuse(this.record('setting', setting, at, 'assistant'))
        }
        return
      }
      case 'heredoc': {
        const line = `torchrun --nproc_per_node ${r.int(2, 8)} train.py --batch_size ${r.pick([16, 32, 64, 128])} --block_size ${r.pick([128, 256, 512])}`
        const command = `ssh gpu-node-${r.int(1, 9)} << 'EOF'\ncd /workspace/${p}\nexport CUDA_VISIBLE_DEVICES=0,1\n${line}\nEOF`
        const [at] = this.call('Launching the run on the GPU node.', 'bash', { command }, trainingOutput(r))
        this.maybeReuse(this.record('heredoc', line, at, 'tool-call'))
        return
      }
      case 'hash': {
        const hash = hex(r, r.pick([12, 40]))
        const at = this.assistant(`Committed the fix as ${hash}; ${sentence(r).toLowerCase()}`)
        this.maybeReuse(this.record('hash', hash, at, 'assistant'))
        return
      }
      case 'uuid': {
        const id = uuid(r)
        const [, result] = this.call('Submitting the evaluation job.', 'bash', { command: `${p} jobs submit --queue eval` }, `Submitted job ${id}\nstatus: queued\n`)
        this.maybeReuse(this.record('uuid', id, result, 'tool-result'))
        this.assistant(`The job is queued. ${sentence(r)}`)
        return
      }
      case 'url': {
        const url = `https://docs.${p}.dev/v${r.int(1, 4)}/${r.pick(['ingest', 'limits', 'auth', 'retries'])}#section-${r.int(1, 20)}`
        const at = this.user(`The spec for this is at ${url} and it is the source of truth. ${sentence(r)}`)
        this.maybeReuse(this.record('url', url, at, 'user'))
        this.assistant(`I will follow it. ${sentence(r)}`)
        return
      }
      case 'path': {
        const path = randomPath(r, p).replace(/\.py$/, `.${r.pick(['yaml', 'toml', 'json'])}`)
        const at = this.assistant(`The setting that matters lives in ${path}, not in the defaults. ${sentence(r)}`)
        this.maybeReuse(this.record('path', path, at, 'assistant'))
        return
      }
      case 'arxiv': {
        const id = `${r.int(18, 25)}${String(r.int(1, 12)).padStart(2, '0')}.${String(r.int(1, 19999)).padStart(5, '0')}`
        const at = this.user(`Implement the noise schedule from arXiv:${id} and nothing fancier. ${sentence(r)}`)
        this.maybeReuse(this.record('arxiv', id, at, 'user'))
        this.assistant(`I read the paper. ${paragraph(r, 1)}`)
        return
      }
      case 'hex-colour': {
        const colour = `#${hex(r, 6).toUpperCase()}`
        const [at] = this.call('Updating the accent colour.', 'edit_file', { path: `web/src/theme.css`, old_string: 'color: #333333;', new_string: `color: ${colour};` }, 'The file web/src/theme.css has been updated.')
        this.maybeReuse(this.record('hex-colour', colour, at, 'tool-call'))
        return
      }
      case 'number-unit': {
        const value = `${r.int(2, 900)} ${r.pick(['Hz', 'ms', 'MB', 'GiB', 'kHz'])}`
        if (r.chance(0.5)) {
          const [at] = this.call('Setting the cutoff.', 'edit_file', { path: `src/${p}/filters.py`, old_string: 'CUTOFF = None', new_string: `CUTOFF = ${value.split(' ')[0]}  # ${value} low-pass` }, `The file src/${p}/filters.py has been updated.`)
          this.maybeReuse(this.record('number-unit', value, at, 'tool-call'))
        } else {
          const at = this.user(`Keep the budget at ${value} per request at most. ${sentence(r)}`)
          this.maybeReuse(this.record('number-unit', value, at, 'user'))
          this.assistant(`Noted. ${sentence(r)}`)
        }
        return
      }
      case 'error-detail':
      case 'version-change':
        return
    }
  }
}

// --- vocabulary ------------------------------------------------------------------------------------------------

const PROJECTS = ['ingest', 'ledgerly', 'diffuse', 'tiles', 'relay', 'quarry'] as const
const PACKAGES = ['fsspec', 'datasets', 'transformers', 'pydantic', 'numpy', 'torch', 'accelerate', 'httpx'] as const

const CONSTRAINTS = [
  'Never push to main directly; always open a branch named fix/ING-#.',
  'Do not touch the migrations folder under any circumstances.',
  'Retry at most # times and never retry a 4xx response.',
  'Always run the linter before you commit, and keep every line under 100 characters.',
  'Only use the public API of the storage client, never its private helpers.',
] as const

const REGEXES = [
  '^/var/tmp/uploads/[a-z0-9_-]{1,#}\\.bin$',
  '^[A-Z]{3}-\\d{3,5}$',
  '^v\\d+\\.\\d+\\.\\d+(-rc\\.\\d+)?$',
  '^[a-z][a-z0-9-]{2,#}\\.example\\.com$',
] as const

const ERRORS = [
  { error: "OSError: [Errno 28] No space left on device: 'PATH'", detail: 'while writing shard N of M to the scratch volume' },
  { error: "PermissionError: [Errno 13] Permission denied: 'PATH'", detail: 'the file is owned by uid N and the worker runs as uid M' },
  { error: "FileNotFoundError: [Errno 2] No such file or directory: 'PATH'", detail: 'raised from loader.open_split(split=N, retries=M)' },
  { error: "IsADirectoryError: [Errno 21] Is a directory: 'PATH'", detail: 'hint: the manifest lists N entries but M of them are folders' },
] as const

const FLAGS = [
  { name: 'max_steps', value: (r: Random) => String(r.int(1, 30) * 1000) },
  { name: 'learning_rate', value: (r: Random) => `${r.int(1, 9)}e-${r.int(3, 5)}` },
  { name: 'warmup_steps', value: (r: Random) => String(r.int(1, 20) * 50) },
  { name: 'grad_accum', value: (r: Random) => String(r.int(2, 16)) },
] as const

const USER_REUSE = ['Remember this one:', 'Double-check that you still respect', 'Use exactly', 'Before you continue, look at'] as const
const USER_REUSE_END = ['when you do the next step.', 'again here.', 'and nothing else.', 'since it matters for the release.'] as const
const ASSISTANT_REUSE = ['Going back to the earlier finding, this depends on', 'As decided before, I am keeping', 'This is the same situation as', 'The relevant piece is still'] as const

const OPENERS = [
  'I think', 'It looks like', 'My plan is that', 'The main idea here is that', 'As far as I can tell', 'To be honest', 'In short',
  'Going forward', 'The way I see it', 'Looking at this more closely', 'If we step back for a moment', 'From what the logs suggest',
] as const
const MIDDLES = [
  'the cleanest approach is to keep the {x} simple', 'we should move the retry logic into the {x}',
  'the {x} spends most of its time waiting on the network', 'the old design made every {x} responsible for its own caching',
  'the tests cover the {x} well but say little about failures', 'the configuration of the {x} has grown in several directions at once',
  'the team would rather have a slower {x} than a surprising one', 'the data pipeline needs a clearer boundary around the {x}',
  'the error handling in the {x} is spread across too many small helpers', 'the interface between the {x} and the server is mostly sound',
  'a smaller change to the {x} now will save us a larger rewrite later', 'the documentation describes an older version of the {x}',
] as const
const NOUNS = [
  'loader', 'scheduler', 'worker pool', 'cache layer', 'upload handler', 'retry policy', 'config parser', 'job queue', 'session store',
  'auth flow', 'report builder', 'metrics exporter', 'index builder', 'storage client', 'test harness', 'deploy script', 'release process',
  'migration plan', 'batch writer', 'event bus', 'rate limiter', 'search service', 'billing module', 'theme engine', 'plugin system',
  'log shipper', 'health check', 'feature flag', 'router', 'serializer',
] as const
const TAILS = ['', ' this week', ' for now', ' in the long run', ' before the release', ' at least in my view', ' once the tests pass', ' as a first step', ' after the review', ' in the next pass'] as const
const ENDINGS = [
  'because that is where the timing decisions already live', 'so that the behaviour stays easy to reason about',
  'which should make the next refactor much less painful', 'and that is probably the root of the slowdown we saw',
  'even though it means touching a few more files than I hoped', 'although we should confirm it with a quick experiment first',
  'and I would like to keep that property as we go', 'which is consistent with what you described earlier',
] as const

function middle(r: Random): string {
  return r.pick(MIDDLES).replace('{x}', r.pick(NOUNS))
}

function sentence(r: Random): string {
  return `${r.pick(OPENERS)} ${middle(r)}, ${r.pick(ENDINGS)}${r.pick(TAILS)}.`
}

function paragraph(r: Random, sentences: number): string {
  const out: string[] = []
  for (let index = 0; index < sentences; index++) out.push(sentence(r))
  return out.join(' ')
}

// --- identifiers and tool output ------------------------------------------------------------------------------

function hex(r: Random, length: number): string {
  let out = ''
  for (let index = 0; index < length; index++) out += '0123456789abcdef'[r.int(0, 15)]
  // A hash that is all digits or all letters reads as a number or a word; keep one of each.
  return /[a-f]/.test(out) && /\d/.test(out) ? out : `${out.slice(0, -2)}a7`
}

function uuid(r: Random): string {
  return `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`
}

const DIRS = ['core', 'io', 'jobs', 'api', 'storage', 'utils', 'models'] as const
const FILES = ['loader', 'worker', 'client', 'settings', 'schema', 'retry', 'cache', 'manifest'] as const

function randomPath(r: Random, project: string): string {
  return `/srv/${project}/${r.pick(DIRS)}/${r.pick(FILES)}_${r.int(1, 999)}.py`
}

function codeListing(r: Random, lines: number): string {
  const out: string[] = []
  for (let index = 1; index <= lines; index++) {
    const name = `${r.pick(FILES)}_${r.int(1, 50)}`
    const line = r.pick([
      `def ${name}(self, batch, timeout=${r.int(1, 60)}):`,
      `    result = self.${name}.process(batch)`,
      `    if not result.ok:`,
      `        raise RuntimeError("could not process " + str(batch.id))`,
      `    return result`,
      `# ${sentence(r)}`,
      ``,
      `class ${r.pick(['Loader', 'Worker', 'Client', 'Cache'])}${r.int(1, 9)}:`,
    ])
    out.push(`${String(index).padStart(5)}\t${line}`)
  }
  return out.join('\n')
}

function pytestOutput(r: Random, project: string): string {
  const out = [`============================= test session starts ==============================`, `platform linux -- Python 3.11.9, pytest-8.2.0, pluggy-1.5.0`, `rootdir: /srv/${project}`, `collected ${r.int(40, 400)} items`, '']
  for (let index = 0, count = r.int(20, 80); index < count; index++) out.push(`tests/test_${r.pick(FILES)}_${r.int(1, 40)}.py ${'.'.repeat(r.int(3, 40))} [${String(r.int(1, 99)).padStart(3)}%]`)
  out.push('', `============================== ${r.int(40, 400)} passed in ${r.int(1, 90)}.${r.int(10, 99)}s ==============================`)
  return out.join('\n')
}

function gitLog(r: Random): string {
  const out: string[] = []
  for (let index = 0; index < 40; index++) out.push(`${hex(r, 7)} ${r.pick(['fix', 'add', 'refactor', 'docs', 'test'])}: ${middle(r)}`)
  return out.join('\n')
}

function pipOutput(r: Random): string {
  const out: string[] = []
  for (let index = 0, count = r.int(30, 90); index < count; index++) {
    out.push(`Requirement already satisfied: ${r.pick(PACKAGES)}${r.int(0, 9)} in /usr/lib/python3/site-packages (${r.int(0, 9)}.${r.int(0, 30)}.${r.int(0, 9)})`)
  }
  return out.join('\n')
}

function lsOutput(r: Random, project: string): string {
  const out = [`total ${r.int(20, 400)}`]
  for (let index = 0, count = r.int(20, 60); index < count; index++) out.push(`-rw-r--r-- 1 dev dev ${String(r.int(100, 90000)).padStart(6)} Mar ${r.int(1, 28)} 10:${String(r.int(0, 59)).padStart(2, '0')} ${r.pick(FILES)}_${r.int(1, 99)}.py`)
  return `${out.join('\n')}\n(src/${project})`
}

function trainingOutput(r: Random): string {
  const out: string[] = []
  for (let index = 0, count = r.int(20, 80); index < count; index++) out.push(`step ${index * 50} | loss ${(4 - index * 0.05 + r.next() * 0.1).toFixed(4)} | lr ${r.int(1, 9)}e-4`)
  return out.join('\n')
}

function grepOutput(r: Random, project: string): string {
  return `src/${project}/${r.pick(DIRS)}/${r.pick(FILES)}.py:${r.int(1, 400)}: ${middle(r)}`
}

function shuffle<T>(r: Random, values: T[]): T[] {
  for (let index = values.length - 1; index > 0; index--) {
    const other = r.int(0, index)
    ;[values[index], values[other]] = [values[other]!, values[index]!]
  }
  return values
}

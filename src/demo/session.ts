/**
 * The demo's session: a deterministic simulation of the record's observed system, a ~600-turn coding-agent session
 * (one turn = one message after the system prompt) on a fictional upload worker.
 *
 * Its first ticket (turns 1 to ~150, the region the first compaction replaces) plants the record's three items: (a) a
 * user constraint stated as an exact regex, (b) a tool error whose message has an errno and a file path, (c) a version
 * pin that the user later reverts (so the pin is stale and a later value is current). Around them: file reads, test
 * runs, failures and their fixes, discussion. Later tickets give the context its length; at turn ~425 the user comes
 * back to the path rule, so the region stays in the agent's causal future (the record's condition 3).
 *
 * Pure and seeded: no clock, no I/O; the same options give the same messages, byte for byte.
 */
import type { Message, Part } from '../spec/transcript.js'
import { fileNamed, listing, PROJECT_FILES, ROOT } from './_project.js'
import { createRandom, type Random } from '../_random.js'

/** Which of the record's three items a planted item is. */
export type PlantedKind = 'constraint' | 'error' | 'version-pin'

/** One of the record's items, planted at a known message. */
export interface PlantedItem {
  /** `constraint`: (a), the regex; `error`: (b), the errno line; `version-pin`: (c), the pin later reverted. */
  readonly kind: PlantedKind
  /** The exact text that must survive (for `version-pin`, the stale pin). */
  readonly text: string
  /** Index of the message that first holds it. */
  readonly message: number
  /** Index of the message whose prose tells of it (the only trace a narrative summary can keep). */
  readonly narration: number
  /** `version-pin` only: the value that replaced the pin (the current one) and the message that set it. */
  readonly current?: { readonly text: string; readonly message: number }
}

/** A generated session: messages (index 0 the system prompt) and the planted items. */
export interface DemoSession {
  readonly messages: readonly Message[]
  readonly planted: readonly PlantedItem[]
  /** The seed it was generated from. */
  readonly seed: number
  /** `turnStarts[t - 1]` = index of the message that starts turn t ({@link startsTurn}); one entry per turn. */
  readonly turnStarts: readonly number[]
}

/** Options of {@link generateSession}. */
export interface DemoSessionOptions {
  /**
   * Seed of the filler between the scripted steps (which files are read, which discussions happen).
   * @default 10 (DEFAULT_SEED: its first compaction falls at turn 412, as in the record)
   */
  readonly seed?: number
  /**
   * Turns after the system prompt ({@link startsTurn}); the session is cut before turn `turns + 1`.
   * @default 600
   */
  readonly turns?: number
}

/** The demo's default seed. */
export const DEFAULT_SEED = 10
/** The demo's default session length, in turns. */
export const DEFAULT_TURNS = 600

/** (a) The user's constraint: the exact regex every upload path must match. */
export const PLANTED_REGEX = '^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$'
/** (b) The tool error: errno 18 (EXDEV) and both paths. */
export const PLANTED_ERROR =
  "OSError: [Errno 18] Invalid cross-device link: '/srv/ingest/staging/batch_0007.0000.part' -> '/var/tmp/uploads/batch_0007.bin'"
/** (c) The pin the agent made, later reverted by the user. */
export const PLANTED_PIN = 'pydantic==1.10.13'
/** (c) The value that replaced the pin: the current one after the revert. */
export const PLANTED_PIN_CURRENT = 'pydantic==2.8.2'

const SYSTEM_PROMPT = `You are a coding agent working in ${ROOT}, the repository of the upload worker. Use the tools to read files, run commands and edit code. Work on a branch named after the ticket and open a pull request when a ticket is done; never push to main.`

/** generateSession(options) = the demo's session: scripted tickets with seeded filler, cut at `turns` turns. */
export function generateSession(options: DemoSessionOptions = {}): DemoSession {
  const seed = options.seed ?? DEFAULT_SEED
  const turns = options.turns ?? DEFAULT_TURNS
  if (!Number.isInteger(turns) || turns < 1) throw new RangeError(`turns: expected a positive integer, got ${turns}`)
  const session = new SessionBuilder(createRandom(seed))
  for (const step of SCRIPT) {
    if (session.turns > turns) break
    step(session)
  }
  while (session.turns <= turns) session.filler(LATE_TOPIC)
  // Cut before the message that starts turn `turns + 1`.
  const end = session.turnStarts[turns] ?? session.messages.length
  const messages = session.messages.slice(0, end)
  const planted = session.planted.filter((item) => item.message < end && (item.current === undefined || item.current.message < end))
  return { messages, planted, seed, turnStarts: session.turnStarts.slice(0, turns) }
}

/**
 * startsTurn(messages, index) = whether message `index` starts a turn: a user message that is not only tool results,
 * or an assistant message right after a tool message (the next model call of an agent loop). The runtime counts turns
 * the same way when it selects the oldest share of them.
 */
export function startsTurn(messages: readonly Message[], index: number): boolean {
  const message = messages[index]
  if (message?.role === 'user') return message.parts.some((part) => part.type !== 'tool-result')
  return message?.role === 'assistant' && messages[index - 1]?.role === 'tool'
}

/** turnOf(session, index) = the 1-based turn message `index` belongs to (0 for the system prompt). */
export function turnOf(session: DemoSession, index: number): number {
  let low = 0
  let high = session.turnStarts.length
  // The number of turn starts at or before `index`.
  while (low < high) {
    const middle = (low + high) >> 1
    if (session.turnStarts[middle]! <= index) low = middle + 1
    else high = middle
  }
  return low
}

/** What the filler of a ticket reads and talks about. */
interface Topic {
  readonly files: readonly string[]
  readonly tests: readonly string[]
  readonly discussions: readonly (readonly [string, string])[]
}

class SessionBuilder {
  readonly messages: Message[] = [{ role: 'system', parts: [{ type: 'text', text: SYSTEM_PROMPT }] }]
  readonly planted: PlantedItem[] = []
  /** Index of the message starting each turn. */
  readonly turnStarts: number[] = []
  private calls = 0

  get turns(): number {
    return this.turnStarts.length
  }

  private push(message: Message): number {
    this.messages.push(message)
    const index = this.messages.length - 1
    if (this.turnStarts.length === 0 || startsTurn(this.messages, index)) this.turnStarts.push(index)
    return index
  }
  private lastDiscussion = -1
  private lastRead: readonly string[] = []

  constructor(readonly random: Random) {}

  user(text: string): number {
    return this.push({ role: 'user', parts: [{ type: 'text', text }] })
  }

  assistant(text: string): number {
    return this.push({ role: 'assistant', parts: [{ type: 'text', text }] })
  }

  /** An assistant message with optional prose and one tool call, then the tool's result; returns the result's index. */
  tool(prose: string | undefined, name: string, input: Record<string, unknown>, output: string, isError = false): number {
    this.calls++
    const id = `toolu_${String(this.calls).padStart(4, '0')}`
    const parts: Part[] = []
    if (prose) parts.push({ type: 'text', text: prose })
    parts.push({ type: 'tool-call', id, name, arguments: input })
    this.push({ role: 'assistant', parts })
    return this.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, name, content: output, isError }] })
  }

  /** An assistant message with optional prose and several tool calls, then one result message per call. */
  tools(prose: string | undefined, calls: readonly { name: string; input: Record<string, unknown>; output: string }[]): number {
    const parts: Part[] = []
    if (prose) parts.push({ type: 'text', text: prose })
    const ids = calls.map((call) => {
      this.calls++
      const id = `toolu_${String(this.calls).padStart(4, '0')}`
      parts.push({ type: 'tool-call', id, name: call.name, arguments: call.input })
      return id
    })
    this.push({ role: 'assistant', parts })
    calls.forEach((call, index) => {
      this.push({ role: 'tool', parts: [{ type: 'tool-result', callId: ids[index]!, name: call.name, content: call.output, isError: false }] })
    })
    return this.messages.length - 1
  }

  read(prose: string | undefined, path: string, from?: number, count?: number): number {
    const file = fileNamed(path)
    const input: Record<string, unknown> = { file_path: `${ROOT}/${path}` }
    if (from !== undefined) input.offset = from
    if (count !== undefined) input.limit = count
    return this.tool(prose, 'Read', input, listing(file, from ?? 1, count))
  }

  bash(prose: string | undefined, command: string, description: string, output: string, isError = false): number {
    return this.tool(prose, 'Bash', { command, description }, output, isError)
  }

  edit(prose: string | undefined, path: string, oldString: string, newString: string): number {
    return this.tool(prose, 'Edit', { file_path: `${ROOT}/${path}`, old_string: oldString, new_string: newString }, `The file ${ROOT}/${path} has been updated.`)
  }

  plant(item: PlantedItem): void {
    const text = renderedText(this.messages[item.message]!)
    if (!text.includes(item.text)) throw new Error(`planted text not in message ${item.message}: ${item.text}`)
    this.planted.push(item)
  }

  /** One filler episode of `topic`: file reads, a test run, a discussion, a lint fix, the journal, the log, a search. */
  filler(topic: Topic): void {
    const roll = this.random.next()
    if (roll < 0.38) this.fillerRead(topic)
    else if (roll < 0.58) {
      const [prose, command, description, output] = this.random.pick(LIGHT_COMMANDS)
      this.bash(prose, command, description, output)
    } else if (roll < 0.68) this.fillerTests(topic)
    else if (roll < 0.82) this.fillerDiscussion(topic)
    else if (roll < 0.88) this.fillerLint(topic)
    else if (roll < 0.92) this.fillerJournal()
    else if (roll < 0.95) this.bash(this.random.pick(DIFF_PROSE), 'git diff --stat', 'Show what changed so far', DIFF_STAT)
    else if (roll < 0.97) this.fillerLog()
    else {
      const [pattern, files] = this.random.pick(SEARCHES)
      this.bash(this.random.pick(SEARCH_PROSE), `rg -l "${pattern}" ingest tests`, 'Find the files that mention it', files.join('\n'))
    }
  }

  fillers(topic: Topic, count: number): void {
    for (let index = 0; index < count; index++) this.filler(topic)
  }

  /** Filler episodes of `topic` until the session has at least `turn` turns. */
  fillUntil(topic: Topic, turn: number): void {
    while (this.turns < turn) this.filler(topic)
  }

  /** Reads one to three files of the topic, the way agents do: several Read calls in one message. */
  private fillerRead(topic: Topic): void {
    const count = this.random.pick([1, 1, 1, 1, 2])
    const paths: string[] = []
    while (paths.length < count && paths.length < topic.files.length - 1) {
      const path = this.random.pick(topic.files)
      // Not the file the previous read episode opened: agents re-read, but rarely twice in a row.
      if (!paths.includes(path) && !this.lastRead.includes(path)) paths.push(path)
    }
    this.lastRead = paths
    const prose = count === 1 ? this.random.pick(READ_PROSE).replace('{file}', paths[0]!) : this.random.pick(READ_MANY_PROSE)
    const calls = paths.map((path) => {
      const file = fileNamed(path)
      const lines = file.text.split('\n').length - 1
      if (lines > 36 && this.random.chance(0.75)) {
        const window = this.random.int(18, 36)
        const from = this.random.int(1, lines - window)
        return { path, input: { file_path: `${ROOT}/${path}`, offset: from, limit: window }, output: listing(file, from, window) }
      }
      return { path, input: { file_path: `${ROOT}/${path}` }, output: listing(file) }
    })
    this.tools(prose, calls.map((call) => ({ name: 'Read', input: call.input, output: call.output })))
    if (this.random.chance(0.4)) this.assistant(this.random.pick(READ_REMARKS))
  }

  /** A lint run that finds something, the fix, and a clean run. */
  private fillerLint(topic: Topic): void {
    const [path, finding, oldString, newString] = this.random.pick(LINT_FINDINGS)
    this.bash(this.random.pick(LINT_PROSE), `ruff check ${path}`, 'Lint the module', `${finding}\nFound 1 error.\n[*] 1 fixable with the \`--fix\` option.`, true)
    this.edit(this.random.pick(LINT_FIX_PROSE), path, oldString, newString)
    this.bash(undefined, `ruff check ${path}`, 'Lint again', 'All checks passed!')
  }

  /** The worker's journal on one host: committed batches with their chunk counts and durations. */
  private fillerJournal(): void {
    const host = this.random.pick(['worker-a', 'worker-b', 'worker-c'])
    const pid = this.random.int(1200, 4800)
    let minute = this.random.int(0, 40)
    let second = this.random.int(0, 59)
    let batch = this.random.int(100, 900)
    const lines: string[] = []
    for (let index = 0; index < 12; index++) {
      second += this.random.int(3, 40)
      minute += Math.floor(second / 60)
      second %= 60
      batch += this.random.int(1, 3)
      const time = `Nov 12 14:${String(minute % 60).padStart(2, '0')}:${String(second).padStart(2, '0')}`
      lines.push(`${time} ${host} ingest-worker[${pid}]: INFO ingest.worker batch batch_${String(batch).padStart(4, '0')} committed (${this.random.int(1, 9)} chunks, ${(this.random.int(8, 140) / 100).toFixed(2)}s)`)
    }
    this.bash(this.random.pick(JOURNAL_PROSE), `ssh ${host} journalctl -u ingest-worker --since "-15min" --no-pager | tail -n 12`, 'Recent journal of the worker', lines.join('\n'))
  }

  /** The last commits on main. */
  private fillerLog(): void {
    const lines = GIT_LOG.slice(0, this.random.int(6, GIT_LOG.length))
    this.bash(this.random.pick(LOG_PROSE), `git log --oneline -n ${lines.length}`, 'Recent commits', lines.join('\n'))
  }

  private fillerTests(topic: Topic): void {
    if (this.random.chance(0.5)) {
      this.bash(this.random.pick(TEST_PROSE), 'python -m pytest tests -v', 'Run the whole suite verbosely', verboseSuite(this.random))
      if (this.random.chance(0.5)) this.assistant(this.random.pick(TEST_REMARKS))
      return
    }
    const test = this.random.pick(topic.tests)
    const passed = this.random.int(4, 14)
    const seconds = (this.random.int(18, 96) / 100).toFixed(2)
    const dots = '.'.repeat(passed)
    this.bash(this.random.pick(TEST_PROSE), `python -m pytest ${test} -q`, 'Run the tests', `${dots.padEnd(70)} [100%]\n${passed} passed in ${seconds}s`)
    if (this.random.chance(0.5)) this.assistant(this.random.pick(TEST_REMARKS))
  }

  private fillerDiscussion(topic: Topic): void {
    let index = this.random.int(0, topic.discussions.length - 1)
    // The same question twice in a row reads like a loop, not a conversation.
    if (index === this.lastDiscussion) index = (index + 1) % topic.discussions.length
    this.lastDiscussion = index
    const [question, answer] = topic.discussions[index]!
    this.user(question)
    this.assistant(answer)
  }
}

/** verboseSuite(random) = `pytest -v` output of the project's whole suite, all passing, with seeded durations. */
function verboseSuite(random: Random): string {
  const names: string[] = []
  for (const file of PROJECT_FILES) {
    if (!file.path.startsWith('tests/')) continue
    for (const match of file.text.matchAll(/^def (test_\w+)\(/gm)) names.push(`${file.path}::${match[1]}`)
  }
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0 -- /srv/ingest/.venv/bin/python',
    'cachedir: .pytest_cache',
    'rootdir: /srv/ingest',
    'configfile: pyproject.toml',
    `collected ${names.length} items`,
    '',
  ]
  names.forEach((name, index) => {
    const percent = Math.floor(((index + 1) * 100) / names.length)
    lines.push(`${`${name} PASSED`.padEnd(72)} [${String(percent).padStart(3)}%]`)
  })
  lines.push('', `============================== ${names.length} passed in ${(random.int(90, 240) / 100).toFixed(2)}s ==============================`)
  return lines.join('\n')
}

function renderedText(message: Message): string {
  return message.parts.map((part) => (part.type === 'tool-call' ? JSON.stringify(part.arguments) : part.type === 'tool-result' ? part.content : part.text)).join('\n')
}

// ---------------------------------------------------------------------------------------------------------------
// Prose of the filler.

const READ_PROSE = [
  'Let me look at {file} before changing anything.',
  'I want to see how {file} handles this.',
  'Reading {file} again to check the surrounding code.',
  'Checking {file} for anything that depends on the old behaviour.',
  "Let me re-read {file}; I don't want to guess at its structure.",
  'Opening {file} to see what calls into this.',
]

const TEST_PROSE = [
  'Running the tests for this module.',
  "Let me run the tests to make sure nothing else broke.",
  'Running the suite to see where things stand.',
  'Quick test run before moving on.',
]

const TEST_REMARKS = [
  'Green. Moving on to the next part.',
  'All passing, including the new case.',
  'The suite is clean; nothing else depended on the old behaviour.',
  'That passes. I will keep the change small and leave the refactor for later.',
]

const READ_REMARKS = [
  'Nothing there depends on the order of the calls, good.',
  'That part is straightforward; the interesting bit is further down.',
  'So the settings object is read once at import time; tests patch it directly.',
  'This confirms the call path I expected.',
  'No surprises in this file.',
  'The error handling here is broader than it needs to be, but it is not part of this ticket.',
  'OK, the helper is only used from the worker loop.',
]

/** Small shell commands with small outputs: prose, command, description, output. */
const LIGHT_COMMANDS: readonly (readonly [string | undefined, string, string, string])[] = [
  ['Checking the working tree.', 'git status --short', 'Show modified files', ' M ingest/storage.py\n M tests/test_storage.py'],
  [undefined, 'git branch --show-current', 'Current branch', 'main'],
  ['Which modules does the package have?', 'ls ingest', 'List the package', '__init__.py\napi.py\nauth.py\nbench.py\nconfig.py\nindexer.py\nmetrics.py\nqueue.py\nretry.py\nstorage.py\nvalidate.py\nworker.py'],
  [undefined, 'ls tests', 'List the tests', '__init__.py\nconftest.py\ntest_api.py\ntest_storage.py\ntest_validate.py\ntest_worker.py'],
  ['How big are the modules?', 'wc -l ingest/*.py | tail -n 1', 'Count lines of the package', '  812 total'],
  [undefined, 'git stash list', 'Any stashed work?', ''],
  ['Making sure the virtualenv is the one in use.', 'which python', 'Which python runs', '/srv/ingest/.venv/bin/python'],
  [undefined, 'git log -1 --format=%s', 'Last commit subject', 'storage: fsync staged chunks before commit'],
]

const READ_MANY_PROSE = [
  'Reading the modules involved side by side.',
  'Let me look at these together before deciding.',
  'I need the caller and the callee open at the same time.',
  'Pulling up the related files.',
]

const LINT_PROSE = ['Running the linter over the module I touched.', 'Lint before committing.', 'Checking the module with ruff.']

const LINT_FIX_PROSE = ['Fixing the lint finding.', 'Small clean-up for the linter.', 'Addressing that.']

/** Lint findings and their fixes: path, ruff's line, old text, new text. */
const LINT_FINDINGS: readonly (readonly [string, string, string, string])[] = [
  ['ingest/storage.py', 'ingest/storage.py:8:8: F401 [*] `shutil` imported but unused', 'import shutil\n', ''],
  ['ingest/retry.py', 'ingest/retry.py:6:8: F401 [*] `time` imported but unused', '    raise AssertionError("unreachable")', '    raise AssertionError("unreachable")  # pragma: no cover'],
  ['ingest/worker.py', 'ingest/worker.py:48:9: SIM105 Use `contextlib.suppress(Exception)` instead of `try`-`except`-`pass`', '        except Exception:\n            self.state.failed += 1', '        except Exception:  # noqa: BLE001\n            self.state.failed += 1'],
  ['ingest/indexer.py', 'ingest/indexer.py:71:13: B904 Within an `except` clause, raise exceptions with `raise ... from err`', 'raise IndexerRejected(error.read().decode(errors="replace"))', 'raise IndexerRejected(error.read().decode(errors="replace")) from error'],
  ['ingest/queue.py', 'ingest/queue.py:66:13: G004 Logging statement uses f-string', 'log.warning("batch %s has no record; dropping it", name)', 'log.warning("batch %s has no record; dropping it", name.decode())'],
  ['ingest/api.py', 'ingest/api.py:44:5: E501 Line too long (121 > 120)', 'async def put_chunk(name: str, index: int, request: Request, partner=Depends(partner_from_token), queue=Depends(get_queue)):', 'async def put_chunk(\n    name: str, index: int, request: Request, partner=Depends(partner_from_token), queue=Depends(get_queue)\n):'],
]

const JOURNAL_PROSE = ["Let me look at the worker's journal.", 'Checking what the workers logged recently.', 'The journal should show how long commits take right now.']

const LOG_PROSE = ['Checking what landed recently.', 'Let me see the recent history.', 'What changed on main lately?']

const GIT_LOG = [
  '9f3c2e1 worker: requeue a batch whose chunk expired instead of dropping it',
  '41d8a07 api: reject chunks for a closed batch with 409',
  'c07be55 deploy: worker-b moves uploads to the storage cluster mount',
  '2a91f4d metrics: per-source failure counter',
  'e5b0c3a queue: keep attempts in the batch hash',
  '7c1d9e2 docs: runbook for failing batches',
  'b83f6a0 validate: size limit from settings',
  '16e2d4f indexer: notify after commit, retry on 5xx',
  'd4a7c19 tests: fake queue for worker tests',
  '58be0f3 storage: fsync staged chunks before commit',
]

const DIFF_PROSE = ['Let me check what has changed so far.', 'Checking the diff before I go further.', 'A look at the working tree.']

const DIFF_STAT = ` ingest/storage.py       | 24 ++++++++++++++++++------
 ingest/validate.py      | 18 +++++++++---------
 tests/test_storage.py   | 12 ++++++++++++
 3 files changed, 39 insertions(+), 15 deletions(-)`

const SEARCH_PROSE = ['Let me find everything that uses it.', 'Searching for the other call sites.', 'Where else is this used?']

const SEARCHES: readonly (readonly [string, readonly string[]])[] = [
  ['commit_chunk', ['ingest/storage.py', 'ingest/worker.py', 'tests/test_storage.py']],
  ['with_backoff', ['ingest/retry.py', 'ingest/worker.py']],
  ['UploadRequest', ['ingest/validate.py', 'ingest/worker.py', 'ingest/storage.py', 'tests/test_validate.py', 'tests/test_storage.py']],
  ['settings\\.', ['ingest/config.py', 'ingest/storage.py', 'ingest/retry.py', 'ingest/worker.py', 'ingest/validate.py']],
]

const STORAGE_TOPIC: Topic = {
  files: ['ingest/storage.py', 'ingest/worker.py', 'ingest/config.py', 'tests/test_storage.py', 'docs/operations.md', 'ingest/validate.py', 'ingest/queue.py', 'tests/test_worker.py', 'docs/runbook.md'],
  tests: ['tests/test_storage.py', 'tests/test_validate.py'],
  discussions: [
    [
      'Why does the worker stage chunks at all instead of writing straight into the uploads directory?',
      "Because the indexer watches the uploads directory and picks up any file that appears there. If the worker wrote in place, the indexer could read a chunk that is still being written. Staging first and moving the finished file in means the indexer only ever sees complete chunks. That is also why the move has to stay atomic from the indexer's point of view.",
    ],
    [
      'Is there any risk that a half-copied chunk becomes visible to the indexer with your change?',
      'Not with the way the copy is done now. The data is copied to a hidden temporary name inside the destination directory, flushed, and only then renamed to its final name. The rename happens within one filesystem, so it is atomic, and the indexer ignores names that start with a dot. The staged file is removed only after the rename succeeds.',
    ],
    [
      'Could we just mount staging on the same volume as uploads and keep the rename?',
      'We could, and it would be the cheapest fix at runtime, but it puts every small staging write on the storage cluster, which the operations notes warn against. It also only fixes the hosts we remember to reconfigure. Handling the cross-device case in code works on every host layout, so I would keep the code change and leave the mounts alone.',
    ],
    [
      'While you test on worker-b: never delete anything under /srv/ingest/staging by hand, even if it looks stale. The worker may be about to commit it.',
      'Understood. I will only touch the batch I run in one-shot mode, and let the worker clean up its own staged chunks. If a stale chunk gets in the way I will ask you first rather than remove it.',
    ],
    [
      'How would this have shown up in the dashboard?',
      'As failed batches from one host only, with the failure counter rising by one per batch and the batches being requeued. Other workers would pick them up and sometimes succeed, which is why it looked intermittent. The latency panel would look normal, since the failure happens at the very end of a batch.',
    ],
    [
      'Do we need to fsync the directory too, or is fsyncing the file enough?',
      'For the data itself the file fsync is enough, but the rename is a change to the directory, and after a power cut the directory entry could be lost without a directory fsync. The indexer would then never see the chunk while the worker believes it committed it. It costs one extra system call per chunk, so I added it.',
    ],
    [
      'Please keep the change minimal; this is going out as a hotfix tonight, and it must not change the staging layout.',
      'Understood. The change touches the commit function and its test only: the staging code, the worker loop and the configuration stay as they are. I will leave the clean-up I noticed in the worker for a separate pull request.',
    ],
  ],
}

const RETRY_TOPIC: Topic = {
  files: ['ingest/retry.py', 'ingest/worker.py', 'ingest/metrics.py', 'ingest/config.py', 'docs/operations.md', 'ingest/storage.py', 'ingest/queue.py', 'tests/test_worker.py', 'ingest/api.py', 'ingest/indexer.py', 'docs/runbook.md'],
  tests: ['tests/test_storage.py', 'tests/test_validate.py'],
  discussions: [
    [
      'What happens today when the queue is down for a minute?',
      'Every worker fails its pop, logs the error and tries again after the idle sleep, so the queue sees a steady trickle of reconnects rather than a storm. The retry helper is not involved there at all; it only wraps the commit of a chunk. The risk is in the other direction: a slow storage cluster makes every worker retry its commits at the same moments.',
    ],
    [
      'Why full jitter rather than a fixed backoff?',
      'With a fixed backoff, workers that failed together retry together, and the storage cluster sees the same spike again a moment later. Full jitter spreads each retry uniformly over the whole backoff window, which breaks that synchronisation. The cost is that an individual retry can come sooner than with a fixed delay, which is fine for a commit.',
    ],
    [
      'Can you tell from the metrics how much time goes into retries?',
      'Not yet. The latency histogram only has a batch stage, so retries are hidden inside the batch time. I would add a commit stage and a counter of retries labelled by the error type; then the dashboard can show whether slow batches are slow because of retries or because of large chunks.',
    ],
    [
      'Is the histogram fine-grained enough for the latency target?',
      'Only just. The buckets jump from a hundred milliseconds to a quarter of a second, so anything in between is reported at the upper bound. For a target in that range we want more buckets around it, otherwise the estimate of the percentile is mostly interpolation.',
    ],
    [
      'Should a validation failure be retried?',
      'No. A path that does not match the partner scheme will not match on the next attempt either, and retrying only delays the error the partner needs to see. Validation errors should fail the batch at once and not be requeued; only timeouts and connection errors are worth retrying.',
    ],
    [
      'Does the worker drain cleanly on a deploy with the new retries?',
      'It does, as long as the retry budget is shorter than the drain timeout of the service. With the current settings the worst case of all attempts plus their waits is a little over a second per chunk, far below the drain timeout, so a deploy still never leaves a half-committed chunk.',
    ],
  ],
}

const LATE_TOPIC: Topic = {
  files: ['ingest/validate.py', 'ingest/config.py', 'tests/test_validate.py', 'ingest/worker.py', 'docs/partners.md', 'ingest/api.py', 'ingest/queue.py', 'tests/test_api.py', 'ingest/indexer.py'],
  tests: ['tests/test_validate.py', 'tests/test_storage.py'],
  discussions: [
    [
      'How do partners find out that a batch was rejected?',
      'The API answers the upload with a validation error naming the field, and the worker marks the batch failed with the same message, which ends up in the partner report the next morning. Neither path retries a rejected batch, so the partner has to resend it under a valid name.',
    ],
    [
      'Could we add a per-partner naming scheme later without touching the worker again?',
      'Yes, if the pattern is looked up by the batch source instead of read from one setting. The validator already receives the source, so the change would be a lookup table in the configuration and one line in the validator. I would not do it until a second partner actually needs a different scheme.',
    ],
    [
      'What does the indexer do with a file it cannot parse?',
      'It moves the file to a quarantine directory and emits an event; nothing is deleted. That is why a malformed chunk is annoying but not dangerous: someone has to look at the quarantine, but no data is lost and the batch can be replayed.',
    ],
    [
      'Is the onboarding document up to date with the worker behaviour?',
      'Mostly. It still says that the worker accepts any name the API accepted, which is no longer true since the worker checks the scheme itself. I will fix that paragraph along with this ticket so that partners are not surprised by a second rejection.',
    ],
    [
      'Anything else we should test before the partner goes live?',
      'A full batch end to end on the staging host that has uploads on the storage cluster, since that is the layout where the commit path differs. And one batch with a name that is just outside the scheme, to see that the rejection reaches the partner report with a useful message.',
    ],
  ],
}

// ---------------------------------------------------------------------------------------------------------------
// The script: the first ticket plants (a), (b) and (c); later tickets are mostly filler with a few fixed turns.

type Step = (session: SessionBuilder) => void

const FIXED_COMMIT = `def commit_chunk(staged: Path, destination: str) -> Path:
    """Move a staged chunk into place.

    The move must be atomic for readers of the uploads directory. Staging and
    uploads can be on different filesystems, where os.rename fails with EXDEV;
    then the chunk is copied next to its destination and renamed there.
    """
    final = Path(destination)
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(staged, final)
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
        temporary = final.with_name(f".{final.name}.tmp")
        shutil.copyfile(staged, temporary)
        with open(temporary, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(temporary, final)
        fsync_directory(final.parent)
        staged.unlink()
    return final`

const OLD_COMMIT = `def commit_chunk(staged: Path, destination: str) -> Path:
    """Move a staged chunk into place.

    The move must be atomic for readers of the uploads directory.
    """
    final = Path(destination)
    final.parent.mkdir(parents=True, exist_ok=True)
    os.rename(staged, final)
    return final`

const PIP_FREEZE = `annotated-types==0.7.0
anyio==4.4.0
certifi==2024.6.2
click==8.1.7
fastapi==0.111.0
h11==0.14.0
httpcore==1.0.5
httpx==0.27.0
idna==3.7
iniconfig==2.0.0
packaging==24.1
pluggy==1.5.0
prometheus-client==0.20.0
pydantic==2.7.4
pydantic_core==2.18.4
pytest==8.2.1
redis==5.0.4
ruff==0.4.8
sniffio==1.3.1
starlette==0.37.2
typing_extensions==4.12.2
uvicorn==0.30.1`

/** journalErrors() = the EXDEV failures of worker-b since the deploy, one batch after another. */
function journalErrors(): string {
  const lines: string[] = []
  const times = ['18:42:07', '18:49:31', '19:03:55', '19:20:12', '19:41:48', '20:02:16', '20:26:39', '21:10:04']
  times.forEach((time, index) => {
    const batch = `batch_${String(index).padStart(4, '0')}`
    lines.push(`Nov 11 ${time} worker-b ingest-worker[2231]: ERROR ingest.worker batch ${batch} aborted`)
    lines.push(`Nov 11 ${time} worker-b ingest-worker[2231]: OSError: [Errno 18] Invalid cross-device link: '/srv/ingest/staging/${batch}.0000.part' -> '/var/tmp/uploads/${batch}.bin'`)
  })
  return lines.join('\n')
}

const SCRIPT: readonly Step[] = [
  (s) => {
    s.user(
      'Ticket ING-412: batches from the partner feed have been failing on worker-b since yesterday evening, and only there. Can you reproduce it with the worker\'s one-shot mode and find out why? The failing batch in the report is batch_0007.',
    )
    s.read("I'll start with the worker's entry point to see what the one-shot mode does.", 'ingest/worker.py')
  },
  (s) => {
    const index = s.user(
      `Before you change anything: the worker must enforce the partner naming scheme itself, not only the API. Validate every upload path against \`${PLANTED_REGEX}\` exactly; do not loosen it, and reject anything else with a clear error. The partner agreed to that scheme in writing.`,
    )
    s.plant({ kind: 'constraint', text: PLANTED_REGEX, message: index, narration: index })
  },
  (s) => {
    const index = s.bash(
      "Understood, I'll wire that pattern in once the failure is understood. Reproducing first.",
      'python -m ingest.worker --once --path /var/tmp/uploads/batch_0007.bin',
      'Reproduce the failing batch in one-shot mode',
      `ERROR ingest.worker batch batch_0007 aborted
Traceback (most recent call last):
  File "/srv/ingest/ingest/worker.py", line 53, in run_once
    self.process(batch)
  File "/srv/ingest/ingest/worker.py", line 71, in process
    with_backoff(lambda: commit_chunk(staged, request.path))
  File "/srv/ingest/ingest/retry.py", line 29, in with_backoff
    return operation()
  File "/srv/ingest/ingest/storage.py", line 40, in commit_chunk
    os.rename(staged, final)
${PLANTED_ERROR}`,
      true,
    )
    s.plant({ kind: 'error', text: PLANTED_ERROR, message: index, narration: index + 1 })
  },
  (s) => {
    s.bash(
      'The commit step fails when it moves the finished chunk into the uploads directory. Errno 18 is EXDEV: os.rename cannot move a file between two filesystems, so staging and uploads are probably different mounts on this host. Checking the mounts.',
      'findmnt -T /srv/ingest/staging && findmnt -T /var/tmp/uploads',
      'Show which filesystem each directory is on',
      `TARGET SOURCE    FSTYPE OPTIONS
/      /dev/nvme0n1p1 ext4   rw,relatime
TARGET           SOURCE                       FSTYPE OPTIONS
/var/tmp/uploads storage-b:/export/uploads    nfs4   rw,relatime,vers=4.2,hard`,
    )
    s.assistant(
      'That confirms it. On worker-b the uploads directory is an NFS mount from the storage cluster while staging is on the local disk, so every commit is a cross-device move. The other workers mount uploads locally, which is why only worker-b fails. The fix belongs in the commit function: when the rename fails with EXDEV, copy the chunk next to its destination, flush it, and rename it there.',
    )
  },
  (s) => {
    s.bash(
      "Before fixing anything I want to know how long this has been happening and whether it is every batch.",
      "ssh worker-b journalctl -u ingest-worker --since yesterday --no-pager | grep -E 'ERROR|OSError' | tail -n 16",
      'Errors in the journal of worker-b since yesterday',
      journalErrors(),
    )
    s.bash(
      'Every batch since 18:42 yesterday, and only on worker-b. Checking what was deployed around then.',
      'git log --oneline -n 10 --since "2 days ago"',
      'Commits of the last two days',
      GIT_LOG.join('\n'),
    )
    s.bash(
      undefined,
      'git show --stat c07be55',
      'The deploy commit',
      `commit c07be55e0d2f4b19a8e3c6d7f1a2b9e4c5d8f013
Author: Dana Ortiz <dana.ortiz@example.internal>
Date:   Mon Nov 10 17:58:21 2026 +0000

    deploy: worker-b moves uploads to the storage cluster mount

    The local disk of worker-b was at 91% after the partner backfill. Uploads
    now live on the storage cluster like on the indexer hosts.

 deploy/hosts/worker-b.yml | 6 +++---
 1 file changed, 3 insertions(+), 3 deletions(-)`,
    )
    s.assistant(
      'Commit c07be55 moved the uploads directory of worker-b onto the storage cluster mount, which matches the time the failures started. That fits the cross-device error: before the deploy both directories were on the same disk.',
    )
    s.bash(
      undefined,
      'ssh worker-b df -h /srv/ingest/staging /var/tmp/uploads',
      'Free space and filesystems of both directories',
      `Filesystem                 Size  Used Avail Use% Mounted on
/dev/nvme0n1p1             200G   61G  139G  31% /
storage-b:/export/uploads  4.0T  2.2T  1.8T  55% /var/tmp/uploads`,
    )
    s.bash(
      'Disk space is fine on both, so it is not the usual full-disk problem. Checking the Python environment too, since the deploy rebuilt it.',
      'ssh worker-b /srv/ingest/.venv/bin/pip freeze',
      'Installed packages on worker-b',
      PIP_FREEZE,
    )
  },
  (s) => s.fillers(STORAGE_TOPIC, 8),
  (s) => {
    s.read('Reading the storage module before editing it.', 'ingest/storage.py')
    s.edit(
      'Adding the cross-device fallback to the commit: copy to a hidden temporary name in the destination directory, fsync, then an atomic replace.',
      'ingest/storage.py',
      OLD_COMMIT,
      FIXED_COMMIT,
    )
    s.edit('The new code needs errno and shutil, and a helper to fsync the directory.', 'ingest/storage.py', 'import os\nfrom pathlib import Path\n', 'import errno\nimport os\nimport shutil\nfrom pathlib import Path\n\n\ndef fsync_directory(path: Path) -> None:\n    fd = os.open(path, os.O_RDONLY)\n    try:\n        os.fsync(fd)\n    finally:\n        os.close(fd)\n')
  },
  (s) => {
    s.bash(
      'Running the storage tests, including the cross-device case.',
      'python -m pytest tests/test_storage.py -q',
      'Run the storage tests',
      `..F.                                                                     [100%]
=================================== FAILURES ===================================
__________________________ test_commit_across_devices __________________________
    def cross_device(src, dst):
>       raise OSError(18, "Invalid cross-device link")
E       OSError: [Errno 18] Invalid cross-device link

tests/test_storage.py:47: OSError
=========================== short test summary info ============================
FAILED tests/test_storage.py::test_commit_across_devices - OSError: [Errno 18] Invalid cross-device link
1 failed, 3 passed in 0.31s`,
      true,
    )
    s.assistant(
      'The test patches os.rename for every call, so the final os.replace inside the fallback also goes through the patched function on this Python. The fallback itself is right; the test has to fail only the first rename. I will make the fake raise once and then call the real rename.',
    )
    s.edit(
      undefined,
      'tests/test_storage.py',
      '    def cross_device(src, dst):\n        raise OSError(18, "Invalid cross-device link")\n\n    monkeypatch.setattr(os, "rename", cross_device)',
      '    real_rename = os.rename\n    calls = []\n\n    def cross_device(src, dst):\n        calls.append((src, dst))\n        if len(calls) == 1:\n            raise OSError(18, "Invalid cross-device link")\n        return real_rename(src, dst)\n\n    monkeypatch.setattr(os, "rename", cross_device)',
    )
    s.bash(undefined, 'python -m pytest tests/test_storage.py -q', 'Run the storage tests again', `....                                                                     [100%]\n4 passed in 0.29s`)
  },
  (s) => s.fillers(STORAGE_TOPIC, 5),
  (s) => {
    s.bash(
      'Trying the fix on worker-b itself with the batch that failed first.',
      'ssh worker-b "cd /srv/ingest && git pull -q && .venv/bin/python -m ingest.worker --once --path /var/tmp/uploads/batch_0000.bin"',
      'Run the first failed batch on worker-b with the fix',
      `INFO ingest.storage batch_0000.0000.part crosses filesystems; copying
INFO ingest.storage batch_0000.0001.part crosses filesystems; copying
INFO ingest.storage batch_0000.0002.part crosses filesystems; copying
INFO ingest.storage batch_0000.0003.part crosses filesystems; copying
INFO ingest.worker batch batch_0000 committed (4 chunks, 1.92s)`,
    )
    s.user(
      'That works, but 1.92 s for four chunks is slow. Each chunk commit must stay under 250 ms at p95 on worker-b, and never leave a temporary file behind in the uploads directory when the copy fails.',
    )
    s.bash(
      "Measuring where the time goes with the commit benchmark on worker-b.",
      'ssh worker-b "cd /srv/ingest && .venv/bin/python -m ingest.bench commit --chunks 200 --chunk-size 4MiB"',
      'Benchmark chunk commits on worker-b',
      `commit benchmark: 200 chunks of 4 MiB, staging on ext4, uploads on nfs4 (cross-device)
            p50        p95        p99        max
copy     118.4 ms   201.7 ms   244.9 ms   388.0 ms
fsync     41.2 ms    96.3 ms   131.8 ms   170.4 ms
replace    2.1 ms     4.8 ms     7.7 ms    12.9 ms
total    163.9 ms   297.5 ms   371.2 ms   512.6 ms`,
    )
    s.assistant(
      'The p95 of a commit is 297.5 ms, over the 250 ms target, and almost all of it is the copy and the fsync. shutil.copyfile uses a small buffer on NFS; copying with 1 MiB reads cuts the number of round trips. I will also remove the temporary file when the copy fails, as you asked.',
    )
    s.edit(
      undefined,
      'ingest/storage.py',
      '        temporary = final.with_name(f".{final.name}.tmp")\n        shutil.copyfile(staged, temporary)\n        with open(temporary, "rb+") as fh:\n            os.fsync(fh.fileno())\n        os.replace(temporary, final)',
      '        temporary = final.with_name(f".{final.name}.tmp")\n        try:\n            with open(staged, "rb") as source, open(temporary, "wb") as target:\n                shutil.copyfileobj(source, target, length=1 << 20)\n                target.flush()\n                os.fsync(target.fileno())\n            os.replace(temporary, final)\n        except BaseException:\n            temporary.unlink(missing_ok=True)\n            raise',
    )
    s.bash(
      undefined,
      'ssh worker-b "cd /srv/ingest && git pull -q && .venv/bin/python -m ingest.bench commit --chunks 200 --chunk-size 4MiB"',
      'Benchmark again with the larger buffer',
      `commit benchmark: 200 chunks of 4 MiB, staging on ext4, uploads on nfs4 (cross-device)
            p50        p95        p99        max
copy      71.9 ms   139.6 ms   171.3 ms   240.2 ms
fsync     38.7 ms    88.1 ms   120.4 ms   161.0 ms
replace    2.0 ms     4.6 ms     7.1 ms    11.8 ms
total    114.2 ms   231.4 ms   290.8 ms   402.5 ms`,
    )
    s.edit(
      'Adding a test for the clean-up: a copy that fails half-way must leave nothing in the uploads directory.',
      'tests/test_storage.py',
      'def test_discard_missing_is_fine(tmp_path):',
      'def test_commit_cleans_up_after_a_failed_copy(dirs, monkeypatch):\n    staging, uploads = dirs\n    staging.mkdir()\n    staged = staging / "batch.0000.part"\n    staged.write_bytes(b"abc")\n    monkeypatch.setattr(os, "rename", lambda src, dst: (_ for _ in ()).throw(OSError(18, "Invalid cross-device link")))\n    monkeypatch.setattr(storage.shutil, "copyfileobj", lambda *args, **kwargs: (_ for _ in ()).throw(OSError(5, "Input/output error")))\n    with pytest.raises(OSError):\n        storage.commit_chunk(staged, str(uploads / "batch.bin"))\n    assert list(uploads.iterdir()) == []\n\n\ndef test_discard_missing_is_fine(tmp_path):',
    )
    s.bash(
      undefined,
      'python -m pytest tests/test_storage.py -q',
      'Run the storage tests',
      `....F.                                                                   [100%]
=================================== FAILURES ===================================
__________________ test_commit_cleans_up_after_a_failed_copy ___________________
>       assert list(uploads.iterdir()) == []
E       AssertionError: assert [PosixPath('/tmp/pytest-of-agent/pytest-31/test_commit_cleans_up_after_a0/uploads/.batch.bin.tmp')] == []
tests/test_storage.py:71: AssertionError
=========================== short test summary info ============================
FAILED tests/test_storage.py::test_commit_cleans_up_after_a_failed_copy - AssertionError: assert [PosixPath('/tmp/pytest-of-agent/pytest-31/test_commit_cleans_up_after_a0/uploads/.batch.bin.tmp')] == []
1 failed, 5 passed in 0.36s`,
      true,
    )
    s.assistant(
      'The temporary file is opened before the try block, so a failure in the copy skips the clean-up. The open has to move inside the try.',
    )
    s.edit(
      undefined,
      'ingest/storage.py',
      '        try:\n            with open(staged, "rb") as source, open(temporary, "wb") as target:',
      '        try:\n            source = open(staged, "rb")\n            target = open(temporary, "wb")\n            with source, target:',
    )
    s.bash(undefined, 'python -m pytest tests/test_storage.py -q', 'Run the storage tests again', `......                                                                   [100%]\n6 passed in 0.33s`)
    s.assistant('The p95 is now 231.4 ms, under the 250 ms target. The p99 is still above it; that is the NFS server, not the copy, and I would leave it for the storage team.')
  },
  (s) => {
    s.user('Good. Keep the hotfix to the storage module and its test; no new dependencies for it. Now the naming scheme, please, as I described it. Put the pattern in the settings so operations can see it, but the default must be the partner scheme.')
    s.edit(
      'Setting the partner scheme as the default pattern in the settings.',
      'ingest/config.py',
      '    upload_path_pattern: str = r".*"',
      `    upload_path_pattern: str = r"${PLANTED_REGEX}"`,
    )
    s.bash(
      'Running the validation tests with the new default.',
      'python -m pytest tests/test_validate.py -q',
      'Run the validation tests',
      `==================================== ERRORS ====================================
__________________ ERROR collecting tests/test_validate.py ___________________
tests/test_validate.py:4: in <module>
    from ingest.validate import BatchManifest, UploadRequest
ingest/validate.py:9: in <module>
    from .config import settings
ingest/config.py:5: in <module>
    from pydantic import BaseSettings
E   pydantic.errors.PydanticImportError: \`BaseSettings\` has been moved to the \`pydantic-settings\` package. See https://docs.pydantic.dev/2.7/migration/#basesettings-has-moved-to-pydantic-settings for more details.
=========================== short test summary info ============================
ERROR tests/test_validate.py - pydantic.errors.PydanticImportError
1 error in 0.42s`,
      true,
    )
  },
  (s) => {
    s.bash(
      'The tests never ran: the settings module imports BaseSettings from pydantic, which pydantic 2 no longer has. Checking what is installed.',
      'pip show pydantic | head -2',
      'Which pydantic is installed',
      'Name: pydantic\nVersion: 2.7.4',
    )
    s.read(undefined, 'requirements.txt')
  },
  (s) => {
    s.assistant(
      'The code was written against pydantic 1: BaseSettings, the validator decorator and the Config classes with allow_mutation all assume the old API. Porting all of it is a separate piece of work, so to get this ticket green I will hold the dependency back. I am pinning the last 1.x release in requirements.txt and installing it.',
    )
    const index = s.edit(undefined, 'requirements.txt', 'pydantic==2.7.4', PLANTED_PIN)
    s.plant({ kind: 'version-pin', text: PLANTED_PIN, message: index - 1, narration: index - 2, current: { text: PLANTED_PIN_CURRENT, message: -1 } })
    s.bash(undefined, `pip install ${PLANTED_PIN}`, 'Install the pinned pydantic', `Collecting ${PLANTED_PIN}\n  Using cached pydantic-1.10.13-cp311-cp311-manylinux_2_17_x86_64.whl (3.1 MB)\nInstalling collected packages: pydantic\n  Attempting uninstall: pydantic\n    Found existing installation: pydantic 2.7.4\n    Uninstalling pydantic-2.7.4:\n      Successfully uninstalled pydantic-2.7.4\nSuccessfully installed pydantic-1.10.13`)
    s.bash('Validation tests again.', 'python -m pytest tests/test_validate.py -q', 'Run the validation tests', `.........                                                                [100%]\n9 passed in 0.22s`)
  },
  (s) => s.fillers(STORAGE_TOPIC, 9),
  (s) => {
    const index = s.user(
      `Please undo the pydantic pin. The platform base image only ships pydantic 2 and we cannot carry a 1.x pin in production. Use \`${PLANTED_PIN_CURRENT}\` with \`pydantic-settings==2.3.4\`, and port the settings and the validators instead.`,
    )
    s.planted[s.planted.length - 1] = { ...s.planted[s.planted.length - 1]!, current: { text: PLANTED_PIN_CURRENT, message: index } }
    s.edit(
      'Reverting the pin and adding pydantic-settings, as you said.',
      'requirements.txt',
      PLANTED_PIN,
      `${PLANTED_PIN_CURRENT}\npydantic-settings==2.3.4`,
    )
    s.edit(
      'Porting the settings: BaseSettings now comes from pydantic_settings and the Config class becomes model_config.',
      'ingest/config.py',
      'from pydantic import BaseSettings',
      'from pydantic_settings import BaseSettings, SettingsConfigDict',
    )
    s.edit(
      'And the validators: field_validator instead of validator, frozen instead of allow_mutation.',
      'ingest/validate.py',
      '    @validator("path")\n    def path_is_allowed(cls, value: str) -> str:',
      '    @field_validator("path")\n    @classmethod\n    def path_is_allowed(cls, value: str) -> str:',
    )
    s.bash(
      undefined,
      'pip install -r requirements.txt && python -m pytest tests -q',
      'Install the requirements and run all tests',
      `Successfully installed pydantic-2.8.2 pydantic-core-2.20.1 pydantic-settings-2.3.4
==================================== ERRORS ====================================
__________________ ERROR collecting tests/test_validate.py ___________________
ingest/validate.py:12: in <module>
    class UploadRequest(BaseModel):
E   pydantic.errors.PydanticUserError: "Config" and "model_config" cannot be used together
=========================== short test summary info ============================
ERROR tests/test_validate.py - pydantic.errors.PydanticUserError: "Config" and "model_config" cannot be used together
1 error in 0.51s`,
      true,
    )
    s.edit(
      'The request model still has its old Config class next to the new model_config. Replacing the class with the v2 settings: frozen, and whitespace stripping under its new name.',
      'ingest/validate.py',
      '    class Config:\n        allow_mutation = False\n        anystr_strip_whitespace = True\n',
      '    model_config = ConfigDict(frozen=True, str_strip_whitespace=True)\n',
    )
    s.bash(
      'Type-checking the ported modules before running the tests again.',
      'mypy ingest',
      'Type-check the package',
      `ingest/validate.py:7: error: Module "pydantic" has no attribute "validator"  [attr-defined]
ingest/validate.py:12: error: Name "ConfigDict" is not defined  [name-defined]
ingest/config.py:21: error: Name "SettingsConfigDict" is used before definition  [used-before-def]
Found 3 errors in 2 files (checked 11 source files)`,
      true,
    )
    s.edit('Fixing the imports mypy found.', 'ingest/validate.py', 'from pydantic import BaseModel, validator', 'from pydantic import BaseModel, ConfigDict, field_validator')
    s.edit(undefined, 'ingest/config.py', '    class Config:\n        env_prefix = "INGEST_"', '    model_config = SettingsConfigDict(env_prefix="INGEST_")')
    s.bash(undefined, 'mypy ingest && python -m pytest tests -q', 'Type-check and run all tests', `Success: no issues found in 11 source files\n.............                                                            [100%]\n13 passed in 0.47s`)
  },
  (s) => s.fillers(STORAGE_TOPIC, 5),
  (s) => {
    s.user('Thanks. Open the pull request for ING-412 and then we move on to the retry storms in ING-415.')
    s.bash(
      'Committing on the ticket branch and opening the pull request.',
      'git checkout -b fix/ING-412 && git commit -am "storage: copy and replace when staging and uploads are on different filesystems; worker enforces the partner path scheme" && gh pr create --fill',
      'Commit and open the pull request',
      '[fix/ING-412 5be1c02] storage: copy and replace when staging and uploads are on different filesystems; worker enforces the partner path scheme\n 5 files changed, 61 insertions(+), 17 deletions(-)\nhttps://git.example.internal/ingest/worker/pull/418',
    )
  },
  (s) => {
    s.user(
      'ING-415: when the storage cluster is slow, all workers retry their commits at the same moments and make it worse. Look at the retry helper and the metrics, and tell me what you would change before changing it.',
    )
    s.read('Starting with the retry helper.', 'ingest/retry.py')
  },
  (s) => s.fillUntil(RETRY_TOPIC, 230),
  (s) => {
    s.user('Go ahead with full jitter and a commit stage in the histogram. Keep the number of attempts as it is.')
    s.read(undefined, 'ingest/metrics.py')
  },
  (s) => s.fillUntil(RETRY_TOPIC, 330),
  (s) => {
    s.user('ING-419: the partner feed goes live next week with a second sender. Walk through the validation path end to end and tell me what will reject their batches.')
    s.read("I'll start with the request model.", 'ingest/validate.py')
  },
  (s) => s.fillUntil(LATE_TOPIC, 423),
  (s) => {
    s.user(
      'The second sender names batches like NW-Batch-0042.bin and the worker rejects them. Is that the rule I gave you at the start of ING-412, or a bug? Re-run batch 42 in one-shot mode and tell me.',
    )
    s.bash(
      undefined,
      'python -m ingest.worker --once --path /var/tmp/uploads/NW-Batch-0042.bin',
      'Re-run the rejected batch in one-shot mode',
      `ERROR ingest.worker batch NW-Batch-0042 aborted
pydantic_core._pydantic_core.ValidationError: 1 validation error for UploadRequest
path
  Value error, upload path not allowed: /var/tmp/uploads/NW-Batch-0042.bin [type=value_error, input_value='/var/tmp/uploads/NW-Batch-0042.bin', input_type=str]`,
      true,
    )
  },
]

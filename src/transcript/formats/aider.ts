/**
 * aider chat history (`.aider.chat.history.md`), read line by line.
 *
 * Grammar (aider writes its own lines with a two-space Markdown hard break, model text has none — that is how
 * an aider `#### ` line is told apart from a model's `#### ` heading):
 * - `# aider chat started at …` starts a session (kept in `envelope.sessions`, not a message).
 * - `#### text  ` is user input; consecutive ones are one user message (blank input lines are `####   `).
 * - `> text  ` is aider's own output (CLI echo, `Tokens:` lines, `Applied edit`, `Commit`, errors, prompts with
 *   answers). aider writes a multi-line output (a `--show-repo-map` dump, `/ls`, `/tokens`, a multi-line shell
 *   command) with `> ` on its first line only and the hard break on its last only: a `>` line without the break
 *   opens such a block, which runs to the first later line that ends with the break and is not itself an aider
 *   or user line; if an aider, user or session line, a thinking block or the end of the file comes first, the
 *   `>` line was a model's Markdown quote after all. Lines right after an aider line (no blank between) that are
 *   not aider, user or session lines continue it too (a padded multi-line shell command). A run of aider output
 *   (blank lines between allowed) is one `system` message: it is aider talking, never the model — except shell commands:
 *   the one output just before `> Run shell command(s)? … : ANSWER` (its `>` line and the lines continuing it) is the
 *   command(s) the model proposed (aider's lines before it, a failed edit's errors, stay a note); it becomes
 *   an assistant tool call (id `aider-shell-LINE`, name `shell`, arguments `{command}`), and the prompt with the
 *   `>` lines after it (`Running …`, `Add command output to the chat?`, `Added N lines…`) its tool result.
 *   aider does not copy command output into this file, so the result holds only what it printed about it.
 * - `<thinking-content-…>` … `</thinking-content-…>` is model reasoning (a reasoning part).
 * - Every other line is assistant text (leading and trailing blank lines of a reply dropped).
 * The prefixes and the trailing two spaces are stripped from the text (inner lines of a multi-line output are kept
 * as written).
 */
import { InvalidInputError } from '../../errors.js'
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part } from '../../spec/transcript.js'
import { type LogReadContext, logReaders, MessageGroup } from './_log.js'

const SESSION_PREFIX = '# aider chat started at'
const THINKING_OPEN = '<thinking-content-'
const SHELL_PROMPTS = ['Run shell command?', 'Run shell commands?']
/** A `>` run longer than this is emitted as plain notes without looking for shell prompts (bounded memory). */
const MAX_BLOCK_LINES = 10_000

/** Scores a head as an aider chat history: a session header, or several hard-broken `#### ` lines. */
export function detectAider(head: string): number {
  if (head.startsWith(SESSION_PREFIX) || head.includes(`\n${SESSION_PREFIX}`)) return 0.95
  const start = head.trimStart()
  if (start.startsWith('{') || start.startsWith('[')) return 0
  let userLines = 0
  for (let index = head.indexOf('\n#### '); index !== -1 && userLines < 2; index = head.indexOf('\n#### ', index + 1)) {
    const end = head.indexOf('\n', index + 1)
    const line = head.slice(index + 1, end === -1 ? head.length : end).replace(/\r$/, '')
    if (line.endsWith('  ')) userLines++
  }
  return userLines >= 2 ? 0.6 : 0
}

function isUserLine(text: string): boolean {
  return text.startsWith('####') && (text.endsWith('  ') || text === '####')
}

function isAiderLine(text: string): boolean {
  return text.startsWith('>') && (text.endsWith('  ') || text.trim() === '>')
}

/** The first line of a multi-line aider output: `> ` and text, without the hard break (aider strips the text). */
function opensAiderBlock(text: string): boolean {
  return text.startsWith('> ') && text.length > 2 && text.charCodeAt(2) !== 32 && !text.endsWith('  ')
}

/** A line aider writes with a prefix of its own (or a thinking tag): never the inside of a multi-line output. */
function isStructural(text: string): boolean {
  if (text.startsWith('>') || isUserLine(text) || text.startsWith(SESSION_PREFIX)) return true
  const trimmed = text.trimStart()
  return trimmed.startsWith(THINKING_OPEN)
}

/** The last line of a multi-line aider output: non-blank, ending with the hard break, no prefix of its own. */
function closesAiderBlock(text: string): boolean {
  return text.endsWith('  ') && text.trim() !== '' && !isStructural(text)
}

function stripPrefix(text: string, prefix: number): string {
  let body = text.slice(prefix)
  if (body.startsWith(' ')) body = body.slice(1)
  return body.endsWith('  ') ? body.slice(0, -2) : body
}

interface BlockLine {
  readonly line: number
  readonly text: string
  readonly raw: string
}

interface SourceLine {
  readonly line: number
  readonly text: string
}

async function* readAider(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const sessions: Array<{ line: number; startedAt: string }> = []
  let assistantLines: string[] = []
  let assistantStart = 0
  let thinking: { close: string; lines: string[] } | undefined
  let block: BlockLine[] = []
  let previousUser = false
  let userRun = 0
  /** The previous line was aider output: a plain line right after it continues it. */
  let afterAider = false
  /** Lines of a possible multi-line aider output, from its `> ` line, until its last line tells. */
  let pending: SourceLine[] | undefined
  /** From a session header until anything but aider output: the session's opening block is still to come. */
  let opening = false
  /** The aider output just before a session header, held until the new session's opening block tells what it ended with. */
  let carried: BlockLine[] | undefined

  /** Emits a run of aider output; a session's opening block gets what the previous session's last run left unanswered. */
  function* emit(lines: readonly BlockLine[], shell = true): Generator<Message> {
    const before = carried
    const opens = opening
    carried = undefined
    opening = false
    yield* emitBlock(lines, group, { shell, opening: opens, ...(before ? { carried: before } : {}) })
  }

  /** Something other than aider output comes first in a session: the held run is read as a session's last. */
  function* release(): Generator<Message> {
    const before = carried
    carried = undefined
    opening = false
    if (before) yield* emitBlock(before, group)
  }

  const sealAssistantText = (): void => {
    let start = 0
    let end = assistantLines.length
    while (start < end && assistantLines[start]!.trim() === '') start++
    while (end > start && assistantLines[end - 1]!.trim() === '') end--
    if (end > start) group.add('assistant', 'assistant', [{ type: 'text', text: assistantLines.slice(start, end).join('\n') }], assistantStart, undefined)
    assistantLines = []
  }

  /** Adds one line of aider output to the open run. */
  function* addAiderLine(entry: BlockLine): Generator<Message> {
    sealAssistantText()
    const closed = block.length === 0 ? group.flush() : undefined
    if (closed) yield closed
    block.push(entry)
    if (block.length >= MAX_BLOCK_LINES) {
      yield* emit(block, false)
      block = []
    }
    afterAider = true
    previousUser = false
  }

  /** Reads one line; `mayOpen` is false when a `> ` line is replayed as model text after its block did not close. */
  function* handle({ line, text }: SourceLine, mayOpen: boolean): Generator<Message> {
    if (thinking !== undefined) {
      if (text.trim() === thinking.close) {
        const closed = group.add('assistant', 'assistant', [{ type: 'reasoning', text: trimBlank(thinking.lines).join('\n') }], line, text)
        if (closed) yield closed
        thinking = undefined
        return
      }
      // A reply interrupted mid-thought (^C) never closes its block: aider's next own line ends it.
      if (!isUserLine(text) && !isAiderLine(text) && !text.startsWith(SESSION_PREFIX)) {
        thinking.lines.push(text)
        return
      }
      group.add('assistant', 'assistant', [{ type: 'reasoning', text: trimBlank(thinking.lines).join('\n') }], line - 1, undefined)
      thinking = undefined
    }
    if (isAiderLine(text)) {
      yield* addAiderLine({ line, text: stripPrefix(text, 1), raw: text })
      return
    }
    if (mayOpen && opensAiderBlock(text)) {
      pending = [{ line, text }]
      return
    }
    const blank = text.trim() === ''
    if (afterAider && !blank && !isStructural(text)) {
      // No blank line between: aider wrote it with the line before (model text and user input start after one).
      yield* addAiderLine({ line, text: text.endsWith('  ') ? text.slice(0, -2) : text, raw: text })
      return
    }
    afterAider = false
    const header = text.startsWith(SESSION_PREFIX)
    if (block.length > 0 && !blank) {
      // aider writes a command before it waits for the answer, and a second aider on the same file writes its header
      // meanwhile: the run before a header is held until the new session's opening block shows whether it answers it.
      if (header && !opening) carried = block
      else yield* emit(block)
      block = []
    } else if (!blank) yield* release()
    if (blank) {
      if (group.currentKey === 'assistant' || assistantLines.length > 0) assistantLines.push(text)
      previousUser = false
      return
    }
    if (header) {
      sealAssistantText()
      const closed = group.flush()
      if (closed) yield closed
      sessions.push({ line, startedAt: text.slice(SESSION_PREFIX.length).trim() })
      opening = true
      previousUser = false
      return
    }
    if (isUserLine(text)) {
      sealAssistantText()
      if (!previousUser) userRun++
      const closed = group.add('user', `user:${userRun}`, [], line, text)
      if (closed) yield closed
      group.appendLine(stripPrefix(text, 4))
      previousUser = true
      return
    }
    previousUser = false
    const trimmed = text.trim()
    if (trimmed.startsWith(THINKING_OPEN) && trimmed.endsWith('>') && !trimmed.startsWith('</')) {
      sealAssistantText()
      const closed = group.add('assistant', 'assistant', [], line, text)
      if (closed) yield closed
      thinking = { close: `</${trimmed.slice(1)}`, lines: [] }
      return
    }
    if (assistantLines.length === 0) {
      assistantStart = line
      if (group.currentKey !== 'assistant') {
        const closed = group.flush()
        if (closed) yield closed
      }
    }
    assistantLines.push(text)
    // Track the line on the group so provenance spans the whole reply.
    const closed = group.add('assistant', 'assistant', [], line, text)
    if (closed) yield closed
  }

  /** A `> ` line whose block never closed was a model's Markdown quote: its lines are read again as model text. */
  function* replay(lines: readonly SourceLine[]): Generator<Message> {
    pending = undefined
    for (let index = 0; index < lines.length; index++) yield* handle(lines[index]!, index > 0)
  }

  // Whether the file holds anything of aider's own: `--format aider` on another file must not read it as one reply.
  let aiders = false
  let written = false
  for await (const entry of context.source.lines()) {
    aiders ||= entry.text.startsWith(SESSION_PREFIX) || isUserLine(entry.text) || isAiderLine(entry.text)
    written ||= entry.text.trim() !== ''
    if (pending !== undefined) {
      if (closesAiderBlock(entry.text)) {
        const [first, ...rest] = pending
        pending = undefined
        yield* addAiderLine({ line: first!.line, text: stripPrefix(first!.text, 1), raw: first!.text })
        for (const inner of rest) yield* addAiderLine({ line: inner.line, text: inner.text, raw: inner.text })
        yield* addAiderLine({ line: entry.line, text: entry.text.slice(0, -2), raw: entry.text })
        continue
      }
      if (!isStructural(entry.text) && pending.length < MAX_BLOCK_LINES) {
        pending.push({ line: entry.line, text: entry.text })
        continue
      }
      yield* replay(pending)
    }
    yield* handle({ line: entry.line, text: entry.text }, true)
  }
  if (pending !== undefined) yield* replay(pending)
  if (thinking !== undefined) {
    // An unclosed thinking block (a log cut mid-reply) is still reasoning.
    group.add('assistant', 'assistant', [{ type: 'reasoning', text: trimBlank(thinking.lines).join('\n') }], assistantStart, undefined)
  }
  if (block.length > 0) yield* emit(block)
  else yield* release()
  sealAssistantText()
  const last = group.flush()
  if (last) yield last
  if (written && !aiders) {
    throw new InvalidInputError('expected an aider chat history (a `# aider chat started at` header, `#### ` input lines or `> ` aider output), got none of them', {
      file: context.source.name,
      line: 1,
    })
  }
  if (sessions.length > 0) context.envelope['sessions'] = sessions
}

function trimBlank(lines: readonly string[]): readonly string[] {
  let start = 0
  let end = lines.length
  while (start < end && lines[start]!.trim() === '') start++
  while (end > start && lines[end - 1]!.trim() === '') end--
  return lines.slice(start, end)
}

/** Options of {@link emitBlock}. */
interface EmitBlockOptions {
  /** Look for shell-command prompts (false for a run cut at {@link MAX_BLOCK_LINES}). */
  readonly shell?: boolean
  /** The run opens a session: aider suggests a command only after a model reply, so its first prompt asks none of its own. */
  readonly opening?: boolean
  /** The previous session's last run, held at the header: its trailing command is what that first prompt answers. */
  readonly carried?: readonly BlockLine[]
}

/** Turns one run of `>` lines into system notes, with shell-command prompts as tool call + result pairs. */
function* emitBlock(block: readonly BlockLine[], group: MessageGroup, options: EmitBlockOptions = {}): Generator<Message> {
  const shell = options.shell ?? true
  const prompts = shell ? block.flatMap((entry, index) => (SHELL_PROMPTS.some((prompt) => entry.text.startsWith(prompt)) ? [index] : [])) : []
  let cursor = 0
  const notes = function* (from: number, to: number): Generator<Message> {
    const lines = block.slice(from, to)
    if (lines.length === 0) return
    const closed = group.add('system', `notes:${lines[0]!.line}`, [{ type: 'text', text: lines.map((entry) => entry.text).join('\n') }], lines[0]!.line, undefined)
    if (closed) yield closed
    for (const entry of lines) group.add('system', `notes:${lines[0]!.line}`, [], entry.line, entry.raw)
    const own = group.flush()
    if (own) yield own
  }
  const call = function* (subject: readonly BlockLine[], prompt: BlockLine): Generator<Message> {
    const id = `aider-shell-${prompt.line}`
    const command = subject.map((entry) => entry.text.trim()).join('\n')
    const part: Part = { type: 'tool-call', id, name: 'shell', arguments: { command } }
    const closed = group.add('assistant', `shell:${id}`, [part], (subject[0] ?? prompt).line, undefined)
    if (closed) yield closed
    for (const entry of subject) group.add('assistant', `shell:${id}`, [], entry.line, entry.raw)
  }
  // The opening run's first prompt: the previous session's unanswered command, or no call at all.
  let answers: readonly BlockLine[] | undefined
  if (options.opening && prompts.length > 0) {
    const carried = options.carried ?? []
    const tail = subjectStart(carried, carried.length, 0)
    if (tail < carried.length) answers = carried.slice(tail)
    if (options.carried) yield* emitBlock(carried.slice(0, tail), group)
    if (answers) yield* call(answers, block[prompts[0]!]!)
    else prompts.shift()
  } else if (options.carried) yield* emitBlock(options.carried, group)
  for (let order = 0; order < prompts.length; order++) {
    const promptIndex = prompts[order]!
    const start = order > 0 || answers === undefined ? subjectStart(block, promptIndex, cursor) : promptIndex
    yield* notes(cursor, start)
    const nextPrompt = prompts[order + 1]
    const resultEnd = nextPrompt === undefined ? block.length : subjectStart(block, nextPrompt, promptIndex + 1)
    const prompt = block[promptIndex]!
    const id = `aider-shell-${prompt.line}`
    if (order > 0 || answers === undefined) yield* call(block.slice(start, promptIndex), prompt)
    const result = block.slice(promptIndex, resultEnd)
    const part: Part = { type: 'tool-result', callId: id, name: 'shell', content: result.map((entry) => entry.text).join('\n'), isError: false }
    const closed = group.add('tool', `shell-result:${id}`, [part], prompt.line, undefined)
    if (closed) yield closed
    for (const entry of result) group.add('tool', `shell-result:${id}`, [], entry.line, entry.raw)
    const own = group.flush()
    if (own) yield own
    cursor = resultEnd
  }
  yield* notes(cursor, block.length)
}

/**
 * The start of a prompt's subject = the one aider output just before `end` (its `>` line and the lines continuing it)
 * when it can be a command, else `end`. aider's `confirm_ask` writes the suggested command(s) as one `tool_output`
 * (several commands padded into one multi-line output) right before the prompt; lines before it (a failed edit's
 * `Unable to write …` / `[Errno 13] …`, `Tokens:`) are aider's own and stay a note.
 */
function subjectStart(lines: readonly BlockLine[], end: number, floor: number): number {
  let start = end - 1
  while (start > floor && !lines[start]!.raw.startsWith('>')) start--
  if (start < floor || !lines[start]!.raw.startsWith('>')) return end
  return isSubjectLine(lines[start]!.text) ? start : end
}

/** Lines aider prints around a command prompt that are not the command itself. */
function isSubjectLine(text: string): boolean {
  if (text.trim() === '') return false
  if (text.includes('(Y)es/')) return false
  return !['Tokens:', 'Applied edit', 'Commit ', 'Added ', 'Running ', 'Output from ', 'You can use /undo'].some((prefix) => text.startsWith(prefix))
}

/** aider `.aider.chat.history.md`, streamed line by line. */
export const aiderFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'aider',
  layout: 'text',
  detect: detectAider,
  ...logReaders('aider', readAider),
}

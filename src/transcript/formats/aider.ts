/**
 * aider chat history (`.aider.chat.history.md`), read line by line.
 *
 * Grammar (aider writes its own lines with a two-space Markdown hard break, model text has none — that is how
 * an aider `#### ` line is told apart from a model's `#### ` heading):
 * - `# aider chat started at …` starts a session (kept in `envelope.sessions`, not a message).
 * - `#### text  ` is user input; consecutive ones are one user message (blank input lines are `####   `).
 * - `> text  ` is aider's own output (CLI echo, `Tokens:` lines, `Applied edit`, `Commit`, errors, prompts with
 *   answers). A run of them (blank lines between allowed) is one `system` message — except shell commands:
 *   the lines just before `> Run shell command(s)? … : ANSWER` are the command(s) the model proposed; they become
 *   an assistant tool call (id `aider-shell-LINE`, name `shell`, arguments `{command}`), and the prompt with the
 *   `>` lines after it (`Running …`, `Add command output to the chat?`, `Added N lines…`) its tool result.
 *   aider does not copy command output into this file, so the result holds only what it printed about it.
 * - `<thinking-content-…>` … `</thinking-content-…>` is model reasoning (a reasoning part).
 * - Every other line is assistant text (leading and trailing blank lines of a reply dropped).
 * The prefixes and the trailing two spaces are stripped from the text. A `>` line without the two spaces is model
 * text (a Markdown quote); multi-line aider output, whose continuation lines carry no `>`, reads as assistant text.
 */
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

async function* readAider(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const sessions: Array<{ line: number; startedAt: string }> = []
  let assistantLines: string[] = []
  let assistantStart = 0
  let thinking: { close: string; lines: string[] } | undefined
  let block: BlockLine[] = []
  let previousUser = false
  let userRun = 0

  const sealAssistantText = (): void => {
    let start = 0
    let end = assistantLines.length
    while (start < end && assistantLines[start]!.trim() === '') start++
    while (end > start && assistantLines[end - 1]!.trim() === '') end--
    if (end > start) group.add('assistant', 'assistant', [{ type: 'text', text: assistantLines.slice(start, end).join('\n') }], assistantStart, undefined)
    assistantLines = []
  }

  for await (const { line, text } of context.source.lines()) {
    if (thinking !== undefined) {
      if (text.trim() === thinking.close) {
        const closed = group.add('assistant', 'assistant', [{ type: 'reasoning', text: trimBlank(thinking.lines).join('\n') }], line, text)
        if (closed) yield closed
        thinking = undefined
        continue
      }
      // A reply interrupted mid-thought (^C) never closes its block: aider's next own line ends it.
      if (!isUserLine(text) && !isAiderLine(text) && !text.startsWith(SESSION_PREFIX)) {
        thinking.lines.push(text)
        continue
      }
      group.add('assistant', 'assistant', [{ type: 'reasoning', text: trimBlank(thinking.lines).join('\n') }], line - 1, undefined)
      thinking = undefined
    }
    const aider = isAiderLine(text)
    const blank = text.trim() === ''
    if (block.length > 0 && !aider && !blank) {
      yield* emitBlock(block, group)
      block = []
    }
    if (aider) {
      sealAssistantText()
      const closed = block.length === 0 ? group.flush() : undefined
      if (closed) yield closed
      block.push({ line, text: stripPrefix(text, 1), raw: text })
      if (block.length >= MAX_BLOCK_LINES) {
        yield* emitBlock(block, group, false)
        block = []
      }
      previousUser = false
      continue
    }
    if (blank) {
      if (group.currentKey === 'assistant' || assistantLines.length > 0) assistantLines.push(text)
      previousUser = false
      continue
    }
    if (text.startsWith(SESSION_PREFIX)) {
      sealAssistantText()
      const closed = group.flush()
      if (closed) yield closed
      sessions.push({ line, startedAt: text.slice(SESSION_PREFIX.length).trim() })
      previousUser = false
      continue
    }
    if (isUserLine(text)) {
      sealAssistantText()
      if (!previousUser) userRun++
      const closed = group.add('user', `user:${userRun}`, [], line, text)
      if (closed) yield closed
      group.appendLine(stripPrefix(text, 4))
      previousUser = true
      continue
    }
    previousUser = false
    const trimmed = text.trim()
    if (trimmed.startsWith(THINKING_OPEN) && trimmed.endsWith('>') && !trimmed.startsWith('</')) {
      sealAssistantText()
      const closed = group.add('assistant', 'assistant', [], line, text)
      if (closed) yield closed
      thinking = { close: `</${trimmed.slice(1)}`, lines: [] }
      continue
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
  if (thinking !== undefined) {
    // An unclosed thinking block (a log cut mid-reply) is still reasoning.
    group.add('assistant', 'assistant', [{ type: 'reasoning', text: trimBlank(thinking.lines).join('\n') }], assistantStart, undefined)
  }
  if (block.length > 0) yield* emitBlock(block, group)
  sealAssistantText()
  const last = group.flush()
  if (last) yield last
  if (sessions.length > 0) context.envelope['sessions'] = sessions
}

function trimBlank(lines: readonly string[]): readonly string[] {
  let start = 0
  let end = lines.length
  while (start < end && lines[start]!.trim() === '') start++
  while (end > start && lines[end - 1]!.trim() === '') end--
  return lines.slice(start, end)
}

/** Turns one run of `>` lines into system notes, with shell-command prompts as tool call + result pairs. */
function* emitBlock(block: readonly BlockLine[], group: MessageGroup, shell = true): Generator<Message> {
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
  for (let order = 0; order < prompts.length; order++) {
    const promptIndex = prompts[order]!
    let subjectStart = promptIndex
    while (subjectStart > cursor && promptIndex - subjectStart < 20 && isSubjectLine(block[subjectStart - 1]!.text)) subjectStart--
    yield* notes(cursor, subjectStart)
    const nextPrompt = prompts[order + 1]
    let resultEnd = block.length
    if (nextPrompt !== undefined) {
      resultEnd = nextPrompt
      while (resultEnd > promptIndex + 1 && nextPrompt - resultEnd < 20 && isSubjectLine(block[resultEnd - 1]!.text)) resultEnd--
    }
    const prompt = block[promptIndex]!
    const id = `aider-shell-${prompt.line}`
    const command = block
      .slice(subjectStart, promptIndex)
      .map((entry) => entry.text.trim())
      .join('\n')
    const call: Part = { type: 'tool-call', id, name: 'shell', arguments: { command } }
    const first = block[subjectStart]!
    let closed = group.add('assistant', `shell:${id}`, [call], first.line, undefined)
    if (closed) yield closed
    for (const entry of block.slice(subjectStart, promptIndex)) group.add('assistant', `shell:${id}`, [], entry.line, entry.raw)
    const result = block.slice(promptIndex, resultEnd)
    const part: Part = { type: 'tool-result', callId: id, name: 'shell', content: result.map((entry) => entry.text).join('\n'), isError: false }
    closed = group.add('tool', `shell-result:${id}`, [part], prompt.line, undefined)
    if (closed) yield closed
    for (const entry of result) group.add('tool', `shell-result:${id}`, [], entry.line, entry.raw)
    const own = group.flush()
    if (own) yield own
    cursor = resultEnd
  }
  yield* notes(cursor, block.length)
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

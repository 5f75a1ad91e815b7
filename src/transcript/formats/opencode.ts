/**
 * OpenCode session exports: what `opencode export SESSION` prints, `{ info, messages: [{ info, parts }] }`, read only
 * (OpenCode keeps its sessions in its own store; there is nothing to write a compacted copy back into).
 *
 * - `opencode export SESSION > FILE` captures a line `Exporting session: ses_…` before the JSON (OpenCode prints it
 *   on standard output; three unrelated projects' mocks of the command do the same): that line is skipped, and errors
 *   name the file's own lines.
 * - A message's `info.role` is `user` or `assistant`; parts `text` and `reasoning` keep their text, a `tool` part
 *   `{ callID, tool, state: { input, output | error } }` becomes a tool call in the assistant message and its result in
 *   a `tool` message after it; other parts (`step-start`, `file`, `patch`, `compaction`, …) carry no model text here.
 * - OpenCode's compaction writes an assistant message with `summary: true` (mode or agent `compaction`): its text
 *   becomes a `summary` part (source `opencode`) in a user message of its own. A user message's `summary` is an object
 *   (the session's diff summary), never a compaction.
 *
 * The same message mapping reads OpenCode's JSON storage directory (`audit/opencode.ts`), one file per message and part.
 */
import { InvalidInputError } from '../../errors.js'
import type { FormatSource, ReadOptions, TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Transcript } from '../../spec/transcript.js'
import { assertJsonDepth, parseJson } from '../json.js'
import { pairToolCalls } from '../render.js'

/** The format name an OpenCode transcript reports. */
export const OPENCODE_FORMAT = 'opencode'

/** The line `opencode export` prints before the JSON. */
const PREAMBLE = 'Exporting session: '

/** preambleLength(text) = how many characters the `Exporting session: …` line (with its newline) takes at the start, or 0. */
function preambleLength(text: string): number {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0
  if (!text.startsWith(PREAMBLE, start)) return 0
  const end = text.indexOf('\n', start)
  return end === -1 ? text.length : end + 1
}

/**
 * isOpenCodeExportHead(head) = the head, after an `Exporting session: …` line if any, opens a JSON object whose first
 * key is `info` holding a session (`"id": "ses_`) and has a `messages` key: what `opencode export` prints.
 */
export function isOpenCodeExportHead(head: string): boolean {
  const body = head.slice(preambleLength(head))
  const start = body.search(/\S/)
  if (start === -1 || body[start] !== '{') return false
  const afterBrace = body.slice(start + 1, start + 64).trimStart()
  return afterBrace.startsWith('"info"') && body.includes('"ses_') && body.includes('"messages"')
}

/** Scores a head as an OpenCode export: 0.95 for {@link isOpenCodeExportHead}, else 0. */
export function detectOpenCode(head: string): number {
  return isOpenCodeExportHead(head) ? 0.95 : 0
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

function outputText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  return JSON.stringify(value)
}

/** Where a message's fields and its parts' fields are, for error messages. */
export interface OpenCodeLocator {
  info(field: string): { file: string; field: string }
  part(position: number, field: string): { file: string; field: string }
}

function failAt(where: { file: string; field: string }, expected: string): never {
  throw new InvalidInputError(`expected ${expected}`, where)
}

/** Where one OpenCode message came from: its JSON pointer in an export, and its record when sources are kept. */
export interface OpenCodeOrigin {
  readonly pointer?: string
  readonly source?: unknown
}

/**
 * appendOpenCodeMessage(messages, info, parts, locate, origin) appends the floorguard messages of one OpenCode message
 * (its info and its parts, in order): the message's own parts, then its tool results; a compaction's text as a summary.
 */
export function appendOpenCodeMessage(messages: Message[], infoValue: unknown, rawParts: unknown, locate: OpenCodeLocator, origin: OpenCodeOrigin = {}): void {
  const info = object(infoValue) ?? failAt(locate.info(''), 'a message info object')
  const role = info['role']
  if (role !== 'user' && role !== 'assistant') failAt(locate.info('/role'), '"user" or "assistant"')
  if (!Array.isArray(rawParts)) failAt(locate.part(-1, ''), 'an array of parts')
  const summary = role === 'assistant' && (info['summary'] === true || info['mode'] === 'compaction' || info['agent'] === 'compaction')
  const parts: Part[] = []
  const results: Part[] = []
  rawParts.forEach((raw, position) => {
    const part = object(raw) ?? failAt(locate.part(position, ''), 'a part object')
    const type = part['type']
    if ((type === 'text' || type === 'reasoning') && typeof part['text'] === 'string') {
      parts.push(type === 'text' ? { type: 'text', text: part['text'] } : { type: 'reasoning', text: part['text'] })
    } else if (type === 'tool' && role === 'assistant') {
      const id = typeof part['callID'] === 'string' ? part['callID'] : failAt(locate.part(position, '/callID'), 'a string')
      const name = typeof part['tool'] === 'string' ? part['tool'] : failAt(locate.part(position, '/tool'), 'a string')
      const state = object(part['state']) ?? {}
      parts.push({ type: 'tool-call', id, name, arguments: state['input'] ?? {} })
      if (state['status'] === 'completed' || state['status'] === 'error') {
        const isError = state['status'] === 'error'
        results.push({ type: 'tool-result', callId: id, name, content: outputText(isError ? state['error'] : state['output']), isError })
      }
    }
  })
  // A stored message is a file of its own: it has no pointer into a document.
  const base = {
    ...(origin.pointer === undefined ? {} : { provenance: { pointer: origin.pointer } }),
    ...(origin.source === undefined ? {} : { source: origin.source }),
  }
  if (summary) {
    const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
    messages.push({ role: 'user', parts: [{ type: 'summary', text, source: OPENCODE_FORMAT }], ...base })
    return
  }
  if (parts.length > 0) messages.push({ role, parts, ...base })
  if (results.length > 0) messages.push({ role: 'tool', parts: results, ...base })
}

/** The transcript of OpenCode messages: tool calls paired. */
export function openCodeTranscript(messages: Message[], envelope?: Record<string, unknown>): Transcript {
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format: OPENCODE_FORMAT, messages, pairs, unpaired, ...(envelope ? { envelope } : {}) }
}

/** Options of {@link readOpenCodeExport}. */
export interface ReadOpenCodeExportOptions {
  /**
   * Keep each message's `{info, parts}` record in `message.source`.
   * @default true
   */
  readonly keepSource?: boolean
}

/**
 * readOpenCodeExport(text, file) = the export as a transcript (format `opencode`), after an `Exporting session: …`
 * line if any; a syntax error throws with file:line:column, a bad shape naming the field.
 */
export function readOpenCodeExport(text: string, file: string, options: ReadOpenCodeExportOptions = {}): Transcript {
  const keepSource = options.keepSource ?? true
  const skipped = preambleLength(text)
  const body = text.slice(skipped)
  const document = parseJson(body, file, skipped === 0 ? 0 : 1)
  assertJsonDepth(document, file)
  const root = object(document) ?? failAt({ file, field: '/' }, 'an OpenCode export object {info, messages}')
  const list = root['messages']
  if (!Array.isArray(list)) failAt({ file, field: '/messages' }, 'an array of {info, parts}')
  const messages: Message[] = []
  list.forEach((entry, index) => {
    const pointer = `/messages/${index}`
    const record = object(entry) ?? failAt({ file, field: pointer }, 'a message object {info, parts}')
    const locate: OpenCodeLocator = {
      info: (field) => ({ file, field: `${pointer}/info${field}` }),
      part: (position, field) => ({ file, field: position < 0 ? `${pointer}/parts` : `${pointer}/parts/${position}${field}` }),
    }
    appendOpenCodeMessage(messages, record['info'], record['parts'] ?? [], locate, { pointer, ...(keepSource ? { source: record } : {}) })
  })
  return openCodeTranscript(messages, root['info'] === undefined ? undefined : { info: root['info'] })
}

async function readOpenCode(source: FormatSource, options: ReadOptions = {}): Promise<Transcript> {
  return readOpenCodeExport(await source.text(), source.name, options.keepSource === undefined ? {} : { keepSource: options.keepSource })
}

/** OpenCode session exports (`opencode export SESSION`), read only. */
export const openCodeFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: OPENCODE_FORMAT,
  layout: 'document',
  detect: detectOpenCode,
  read: readOpenCode,
}

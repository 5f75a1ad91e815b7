/**
 * OpenCode sessions as `opencode export SESSION` prints them: `{ info, messages: [{ info, parts }] }`. There is no
 * OpenCode format in the registry yet; the audit reads this one shape itself, enough to find its summaries.
 *
 * - A message's `info.role` is `user` or `assistant`; parts `text` and `reasoning` keep their text, a `tool` part
 *   `{ callID, tool, state: { input, output | error } }` becomes a tool call in the assistant message and its result in
 *   a `tool` message after it; other parts (`step-start`, `file`, `patch`, `compaction`, …) carry no model text here.
 * - OpenCode's compaction writes an assistant message with `summary: true` (mode or agent `compaction`): its text
 *   becomes a `summary` part (source `opencode`) in a user message of its own. A user message's `summary` is an object
 *   (the session's diff summary), never a compaction.
 */
import { InvalidInputError } from '../errors.js'
import type { Message, Part, Transcript } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'

/** The format name an OpenCode export reports. */
export const OPENCODE_FORMAT = 'opencode'

/**
 * isOpenCodeExportHead(head) = the head opens a JSON object whose first key is `info` holding a session (`"id":
 * "ses_`) and has a `messages` key: what `opencode export` prints.
 */
export function isOpenCodeExportHead(head: string): boolean {
  const start = head.search(/\S/)
  if (start === -1 || head[start] !== '{') return false
  const afterBrace = head.slice(start + 1, start + 64).trimStart()
  return afterBrace.startsWith('"info"') && head.includes('"ses_') && head.includes('"messages"')
}

function fail(file: string, field: string, expected: string): never {
  throw new InvalidInputError(`expected ${expected}`, { file, field })
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

function outputText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  return JSON.stringify(value)
}

/** readOpenCodeExport(text, file) = the export as a transcript (format `opencode`); bad shapes throw naming the field. */
export function readOpenCodeExport(text: string, file: string): Transcript {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    fail(file, '/', 'an OpenCode export (a JSON object {info, messages})')
  }
  const root = object(document) ?? fail(file, '/', 'an OpenCode export object {info, messages}')
  const list = root['messages']
  if (!Array.isArray(list)) fail(file, '/messages', 'an array of {info, parts}')
  const messages: Message[] = []
  list.forEach((entry, index) => {
    const pointer = `/messages/${index}`
    const record = object(entry) ?? fail(file, pointer, 'a message object {info, parts}')
    const info = object(record['info']) ?? fail(file, `${pointer}/info`, 'a message info object')
    const role = info['role']
    if (role !== 'user' && role !== 'assistant') fail(file, `${pointer}/info/role`, '"user" or "assistant"')
    const rawParts = record['parts'] ?? []
    if (!Array.isArray(rawParts)) fail(file, `${pointer}/parts`, 'an array of parts')
    const summary = role === 'assistant' && (info['summary'] === true || info['mode'] === 'compaction' || info['agent'] === 'compaction')
    const parts: Part[] = []
    const results: Part[] = []
    rawParts.forEach((raw, position) => {
      const part = object(raw) ?? fail(file, `${pointer}/parts/${position}`, 'a part object')
      const type = part['type']
      if ((type === 'text' || type === 'reasoning') && typeof part['text'] === 'string') {
        parts.push(type === 'text' ? { type: 'text', text: part['text'] } : { type: 'reasoning', text: part['text'] })
      } else if (type === 'tool' && role === 'assistant') {
        const id = typeof part['callID'] === 'string' ? part['callID'] : fail(file, `${pointer}/parts/${position}/callID`, 'a string')
        const name = typeof part['tool'] === 'string' ? part['tool'] : fail(file, `${pointer}/parts/${position}/tool`, 'a string')
        const state = object(part['state']) ?? {}
        parts.push({ type: 'tool-call', id, name, arguments: state['input'] ?? {} })
        if (state['status'] === 'completed' || state['status'] === 'error') {
          const isError = state['status'] === 'error'
          results.push({ type: 'tool-result', callId: id, name, content: outputText(isError ? state['error'] : state['output']), isError })
        }
      }
    })
    const provenance = { pointer }
    if (summary) {
      const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
      messages.push({ role: 'user', parts: [{ type: 'summary', text, source: OPENCODE_FORMAT }], provenance })
      return
    }
    if (parts.length > 0) messages.push({ role, parts, provenance })
    if (results.length > 0) messages.push({ role: 'tool', parts: results, provenance })
  })
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format: OPENCODE_FORMAT, messages, pairs, unpaired }
}

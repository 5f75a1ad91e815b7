/**
 * Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-*.json[l]`), the `transcript_path` of its hooks,
 * read into messages. The transcript registry reads Gemini's `stream-json` output, not these files, so the hooks read
 * them here, keeping to the fields `chatRecordingTypes.ts` (google-gemini/gemini-cli) declares:
 *
 * - one JSON document `{sessionId, messages: [...]}`, or JSONL: one message record a line, `{$rewindTo: id}` (read as: drop
 *   that message and everything after it; the type declares the field, not its meaning), `{$set: {...}}` and metadata records (skipped);
 * - a message `{id, type, content}`: `user` → a user message (a `<state_snapshot>` in it → a `summary` part, source
 *   `gemini-cli`, Gemini's compression summary); `gemini` → an assistant message with its text, its `thoughts`
 *   (reasoning) and its `toolCalls` (`{id, name, args, result, status}`), the results following as a `tool` message;
 *   `info`, `error`, `warning` → skipped (the CLI's own notices, never sent to the model).
 * - `content` is a string, a part `{text}` or a list of parts; parts without text read as `[name]` placeholders.
 *
 * Lines that are not JSON are skipped and counted (a file being written may end with a partial line).
 */
import type { Message, Part } from '../spec/transcript.js'

/** Messages read from a Gemini CLI session file, and how many lines were skipped. */
export interface GeminiSession {
  readonly messages: readonly Message[]
  readonly skipped: number
}

const SNAPSHOT_OPEN = '<state_snapshot>'

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part
  if (!isObject(part)) return ''
  if (typeof part['text'] === 'string') return part['text']
  const response = part['functionResponse']
  if (isObject(response)) {
    const inner = response['response']
    if (isObject(inner) && typeof inner['output'] === 'string') return inner['output']
    if (isObject(inner) && typeof inner['error'] === 'string') return inner['error']
    return JSON.stringify(inner ?? null)
  }
  const name = Object.keys(part)[0]
  return name ? `[${name}]` : ''
}

/** The text of a `PartListUnion`: a string, one part or a list of parts, joined with line breaks. */
function contentText(content: unknown): string {
  if (Array.isArray(content)) return content.map(partText).filter((text) => text !== '').join('\n')
  return partText(content)
}

function toMessages(records: readonly Json[]): Message[] {
  const messages: Message[] = []
  for (const record of records) {
    const type = record['type']
    if (type === 'user') {
      const text = contentText(record['content'])
      const part: Part = text.includes(SNAPSHOT_OPEN) ? { type: 'summary', text, source: 'gemini-cli' } : { type: 'text', text }
      messages.push({ role: 'user', parts: [part] })
    } else if (type === 'gemini') {
      const parts: Part[] = []
      const thoughts = record['thoughts']
      if (Array.isArray(thoughts)) {
        for (const thought of thoughts) {
          if (!isObject(thought)) continue
          const text = [thought['subject'], thought['description']].filter((value) => typeof value === 'string' && value !== '').join(': ')
          if (text) parts.push({ type: 'reasoning', text })
        }
      }
      const text = contentText(record['content'])
      if (text) parts.push({ type: 'text', text })
      const results: Part[] = []
      const calls = record['toolCalls']
      if (Array.isArray(calls)) {
        for (const call of calls) {
          if (!isObject(call) || typeof call['id'] !== 'string' || typeof call['name'] !== 'string') continue
          parts.push({ type: 'tool-call', id: call['id'], name: call['name'], arguments: call['args'] ?? {} })
          if (call['result'] !== undefined && call['result'] !== null) {
            results.push({ type: 'tool-result', callId: call['id'], name: call['name'], content: contentText(call['result']), isError: call['status'] === 'error' })
          }
        }
      }
      if (parts.length > 0) messages.push({ role: 'assistant', parts })
      if (results.length > 0) messages.push({ role: 'tool', parts: results })
    }
  }
  return messages
}

/** Reads a Gemini CLI session file's text (JSON document or JSONL) into messages. Pure; never throws on bad lines. */
export function readGeminiSession(text: string): GeminiSession {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{')) {
    try {
      const document = JSON.parse(text) as unknown
      if (isObject(document) && Array.isArray(document['messages'])) {
        return { messages: toMessages(document['messages'].filter(isObject)), skipped: 0 }
      }
    } catch {
      // Not one document: read it as JSONL below.
    }
  }
  const records: Json[] = []
  let skipped = 0
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let record: unknown
    try {
      record = JSON.parse(line)
    } catch {
      skipped++
      continue
    }
    if (!isObject(record)) {
      skipped++
      continue
    }
    if (typeof record['$rewindTo'] === 'string') {
      const at = records.findIndex((entry) => entry['id'] === record['$rewindTo'])
      if (at !== -1) records.length = at
      continue
    }
    if (typeof record['type'] === 'string' && 'content' in record) records.push(record)
  }
  return { messages: toMessages(records), skipped }
}

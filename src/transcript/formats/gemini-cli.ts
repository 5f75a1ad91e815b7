/**
 * Gemini CLI `--output-format stream-json` events (JSONL): `init`, `message`, `tool_use`, `tool_result`,
 * `error`, `result`; extra fields (an eval harness's `ts`) are ignored.
 *
 * Mapping decisions:
 * - Each user `message` is one user message. Assistant `message` events are streamed chunks (`delta: true`):
 *   consecutive ones are concatenated, and the `tool_use` events that follow them in the same turn join the same
 *   assistant message as tool calls (`tool_id`, `tool_name`, `parameters`).
 * - `tool_result` → a `tool` message (consecutive results merged). `isError` is true when `status` is `error`
 *   **or** when `output` is JSON text whose `status` is `"error"` (MCP tools report failure inside a success);
 *   the text is kept either way, and an `error.message` not already in `output` is appended to it.
 * - A user message holding a `<state_snapshot>` block (Gemini CLI's compression summary) becomes a `summary`
 *   part with source `gemini-cli`.
 * - `init` (session id, model), `result` (status, stats) and `error` events are not messages: they are kept in
 *   `envelope.sessions`, `envelope.results` and `envelope.errors`, and counted in `envelope.skipped`; records of
 *   other types are counted there too, but a file with no stream-json event at all is refused (another tool's JSONL).
 */
import { InvalidInputError } from '../../errors.js'
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part } from '../../spec/transcript.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import {
  checkedArguments,
  expectObject,
  fail,
  type FieldLocation,
  type LogReadContext,
  logReaders,
  MessageGroup,
  optionalString,
  skip,
  stringField,
} from './_log.js'
import { foreignHint } from './_foreign.js'

const EVENT_TYPES = new Set(['init', 'message', 'tool_use', 'tool_result', 'error', 'result'])
const SNAPSHOT_OPEN = '<state_snapshot>'

/** Options of {@link createGeminiCliFormat}. */
export interface GeminiCliFormatOptions {
  /**
   * Clock for the `timestamp` of appended events.
   * @default () => new Date()
   */
  readonly now?: () => Date
}

/** Scores a head as Gemini CLI stream-json: every leading record is a stream-json event. */
export function detectGeminiCli(head: string): number {
  const records = headRecords(head, 6).filter((record) => record !== undefined)
  if (records.length === 0) return 0
  let distinctive = false
  for (const record of records) {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return 0
    const event = record as Record<string, unknown>
    const type = event['type']
    if (typeof type !== 'string' || !EVENT_TYPES.has(type) || 'payload' in event || 'raw' in event) return 0
    if (type === 'message' && (typeof event['content'] !== 'string' || typeof event['role'] !== 'string')) return 0
    if (type === 'init' && typeof event['session_id'] === 'string') distinctive = true
    if ((type === 'tool_use' || type === 'tool_result') && typeof event['tool_id'] === 'string') distinctive = true
    if (type === 'message' && (event['delta'] === true || event['role'] === 'assistant' || 'timestamp' in event)) distinctive = true
  }
  return distinctive ? 0.9 : 0.6
}

/** Whether a tool's `output` is JSON text reporting `"status": "error"` (read only when it looks like an object). */
export function outputReportsError(output: string): boolean {
  const trimmed = output.trimStart()
  if (trimmed.charCodeAt(0) !== 123) return false
  try {
    const parsed: unknown = JSON.parse(output)
    return parsed !== null && typeof parsed === 'object' && (parsed as Record<string, unknown>)['status'] === 'error'
  } catch {
    return false
  }
}

async function* readGeminiCli(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  const sessions: unknown[] = []
  const results: unknown[] = []
  const errors: unknown[] = []
  // Bumped at every boundary after which the model starts a new assistant message.
  let turn = 0
  // Whether any record is a stream-json event: another tool's JSONL must not pass for an empty run.
  let own = false
  let read = 0
  let first: unknown
  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning), record: { expected: 'a stream-json event object' } })) {
    const at: FieldLocation = { file, line }
    const event = expectObject(value, at, '/', 'a stream-json event object')
    const type = stringField(event, 'type', at, '')
    if (read++ === 0) first = event
    own ||= EVENT_TYPES.has(type)
    let closed: Message | undefined
    switch (type) {
      case 'message': {
        const role = event['role']
        const content = stringField(event, 'content', at, '')
        if (role === 'assistant') {
          closed = group.add('assistant', `assistant:${turn}`, [], line, event)
          group.appendText(content)
        } else if (role === 'user') {
          turn++
          const part: Part = content.includes(SNAPSHOT_OPEN) ? { type: 'summary', text: content, source: 'gemini-cli' } : { type: 'text', text: content }
          closed = group.add('user', `user:${line}`, [part], line, event)
        } else fail(at, '/role', '"user" or "assistant"', role)
        break
      }
      case 'tool_use': {
        const part: Part = {
          type: 'tool-call',
          id: stringField(event, 'tool_id', at, ''),
          name: stringField(event, 'tool_name', at, ''),
          arguments: checkedArguments(event['parameters'] ?? {}, at),
        }
        closed = group.add('assistant', `assistant:${turn}`, [part], line, event)
        break
      }
      case 'tool_result': {
        const status = optionalString(event, 'status', at, '') ?? 'success'
        const output = optionalString(event, 'output', at, '') ?? ''
        const error = event['error']
        let content = output
        if (error !== undefined && error !== null) {
          const message = optionalString(expectObject(error, at, '/error'), 'message', at, '/error')
          if (message && !output.includes(message)) content = content ? `${content}\n${message}` : message
        }
        const part: Part = {
          type: 'tool-result',
          callId: stringField(event, 'tool_id', at, ''),
          content,
          isError: status === 'error' || outputReportsError(output),
        }
        closed = group.add('tool', 'tool', [part], line, event)
        turn++
        break
      }
      case 'init':
        closed = group.flush()
        turn++
        sessions.push({ line, sessionId: event['session_id'], model: event['model'] })
        skip(context, type)
        break
      case 'result':
        closed = group.flush()
        turn++
        results.push({ line, status: event['status'], stats: event['stats'] })
        skip(context, type)
        break
      case 'error':
        errors.push({ line, severity: event['severity'], message: event['message'] })
        skip(context, type)
        break
      default:
        skip(context, type)
    }
    if (closed) yield closed
  }
  const last = group.flush()
  if (last) yield last
  if (read > 0 && !own) {
    throw new InvalidInputError(
      `expected Gemini CLI stream-json events (type init, message, tool_use, tool_result, error or result), got none in ${read} record${read === 1 ? '' : 's'}${foreignHint(first)}`,
      { file, line: 1 },
    )
  }
  if (sessions.length > 0) context.envelope['sessions'] = sessions
  if (results.length > 0) context.envelope['results'] = results
  if (errors.length > 0) context.envelope['errors'] = errors
}

function appendEvents(messages: readonly Message[], options: Required<GeminiCliFormatOptions>): string {
  let out = ''
  const write = (event: Record<string, unknown>) => {
    out += `${JSON.stringify({ type: event['type'], timestamp: options.now().toISOString(), ...event })}\n`
  }
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user'
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          write({ type: 'message', role, content: part.text, ...(role === 'assistant' ? { delta: true } : {}) })
          break
        case 'summary':
          write({ type: 'message', role: 'user', content: snapshotText(part.text) })
          break
        case 'tool-call':
          write({ type: 'tool_use', tool_name: part.name, tool_id: part.id, parameters: part.arguments })
          break
        case 'tool-result':
          write({ type: 'tool_result', tool_id: part.callId, status: part.isError ? 'error' : 'success', output: part.content })
          break
      }
    }
  }
  return out
}

/** Creates the Gemini CLI stream-json format with the given clock for appended events. */
/** A summary as Gemini CLI writes its compression summary: inside a `<state_snapshot>` block (unless it holds one). */
function snapshotText(text: string): string {
  return text.includes(SNAPSHOT_OPEN) ? text : `${SNAPSHOT_OPEN}\n${text}\n</state_snapshot>`
}

export function createGeminiCliFormat(options: GeminiCliFormatOptions = {}): TranscriptFormatV1 {
  const resolved = { now: options.now ?? (() => new Date()) }
  return {
    specificationVersion: 'v1',
    name: 'gemini-cli',
    layout: 'lines',
    detect: detectGeminiCli,
    ...logReaders('gemini-cli', readGeminiCli),
    append: (messages) => appendEvents(messages, resolved),
    summaryText: snapshotText,
  }
}

/** Gemini CLI stream-json JSONL, streamed; appends stream-json events (a summary as a `<state_snapshot>` message). */
export const geminiCliFormat: TranscriptFormatV1 = createGeminiCliFormat()

/**
 * Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): `{timestamp, type, payload}` with
 * `type` one of `session_meta`, `response_item`, `event_msg`, `turn_context`, `compacted`.
 *
 * Mapping decisions:
 * - `response_item` payloads are Responses-API items and are the transcript: `message` (role `developer` →
 *   `system`; `input_text`/`output_text` parts joined with `\n`, images as `[image]`), `reasoning` (summary and
 *   content texts → reasoning; encrypted-only reasoning → nothing, counted), `function_call` /
 *   `custom_tool_call` / `local_shell_call` → tool calls by `call_id`, `function_call_output` /
 *   `custom_tool_call_output` → tool results (a `{content, success}` output: `success: false` → `isError`).
 *   Consecutive assistant-side items form one assistant message, consecutive outputs one `tool` message.
 * - `event_msg` `user_message` / `agent_message` duplicate the response items. They are used only when a
 *   rollout has no message response items (older logs): until the first `response_item` appears they are
 *   held back (at most {@link EVENT_FALLBACK_LIMIT}), then dropped; a log that never has one gets them.
 *   Every other `event_msg` (token counts, task start/end, exec begin/end…) is counted in `envelope.skipped`.
 * - `compacted` `{message, replacement_history?}` → a user message with a `summary` part (source `codex`);
 *   the replacement history stays in the record (`source`), since it repeats earlier user messages.
 * - `session_meta` and `turn_context` go to `envelope.session` / are counted.
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role } from '../../spec/transcript.js'
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
  parseArguments,
  skip,
  stringField,
} from './_log.js'

/** How many `event_msg` messages a rollout without response items may hold back before they are used as is. */
export const EVENT_FALLBACK_LIMIT = 256

const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'])

/** Options of {@link createCodexFormat}. */
export interface CodexFormatOptions {
  /**
   * Clock for the `timestamp` of appended records.
   * @default () => new Date()
   */
  readonly now?: () => Date
}

/** Scores a head as a Codex rollout: leading records are `{type, payload}` with a rollout record type. */
export function detectCodex(head: string): number {
  const records = headRecords(head, 4).filter((record) => record !== undefined)
  if (records.length === 0) {
    const start = head.trimStart()
    return /^\{"timestamp":"[^"]*","type":"(session_meta|response_item|event_msg|turn_context|compacted)","payload":/.test(start.slice(0, 200)) ? 0.8 : 0
  }
  for (const record of records) {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return 0
    const type = (record as Record<string, unknown>)['type']
    if (typeof type !== 'string' || !ROLLOUT_TYPES.has(type)) return 0
    if (!('payload' in record)) return 0
  }
  return 0.95
}

async function* readCodex(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  let sawResponseMessages = false
  // While undecided, event-derived messages wait here (flagged) together with any message that followed them.
  let heldBack: Array<{ message: Message; event: boolean }> | undefined = []
  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning) })) {
    const at: FieldLocation = { file, line }
    const record = expectObject(value, at, '/', 'a rollout record object')
    const type = stringField(record, 'type', at, '')
    const payload = record['payload']
    let closed: Message | undefined
    switch (type) {
      case 'response_item': {
        const item = expectObject(payload, at, '/payload')
        const mapped = responseItem(item, at, context)
        if (mapped === undefined) break
        if (!sawResponseMessages) {
          sawResponseMessages = true
          if (heldBack !== undefined) for (const held of heldBack) if (!held.event) yield held.message
          heldBack = undefined
        }
        closed = group.add(mapped.role, mapped.key ?? `${mapped.role}:${line}`, mapped.parts, line, record)
        break
      }
      case 'event_msg': {
        const event = expectObject(payload, at, '/payload')
        const kind = stringField(event, 'type', at, '/payload')
        if ((kind === 'user_message' || kind === 'agent_message') && !sawResponseMessages) {
          const text = stringField(event, 'message', at, '/payload')
          const message: Message = {
            role: kind === 'user_message' ? 'user' : 'assistant',
            parts: [{ type: 'text', text }],
            provenance: { line },
            ...(context.keepSource ? { source: [record] } : {}),
          }
          const previous = group.flush()
          if (heldBack !== undefined) {
            if (previous) heldBack.push({ message: previous, event: false })
            heldBack.push({ message, event: true })
            // A long log with no response items is an old-style rollout: stop holding back, bound the memory.
            if (heldBack.length > EVENT_FALLBACK_LIMIT) {
              for (const held of heldBack) yield held.message
              heldBack = undefined
            }
          } else {
            if (previous) yield previous
            yield message
          }
        } else skip(context, `event_msg:${kind}`)
        break
      }
      case 'compacted': {
        const compacted = expectObject(payload, at, '/payload')
        const text = optionalString(compacted, 'message', at, '/payload') ?? ''
        closed = group.add('user', `compacted:${line}`, [{ type: 'summary', text, source: 'codex' }], line, record)
        break
      }
      case 'session_meta':
        context.envelope['session'] = payload
        skip(context, type)
        break
      default:
        if (!ROLLOUT_TYPES.has(type)) fail(at, '/type', 'a rollout record type (session_meta, response_item, event_msg, turn_context, compacted)', type)
        skip(context, type)
    }
    if (closed) {
      if (heldBack !== undefined) heldBack.push({ message: closed, event: false })
      else yield closed
    }
  }
  const last = group.flush()
  if (heldBack !== undefined) {
    for (const held of heldBack) yield held.message
    heldBack = undefined
  }
  if (last) yield last
}

function responseItem(item: Record<string, unknown>, at: FieldLocation, context: LogReadContext): { role: Role; key?: string; parts: Part[] } | undefined {
  const type = stringField(item, 'type', at, '/payload')
  switch (type) {
    case 'message': {
      const role = stringField(item, 'role', at, '/payload')
      const mapped: Role | undefined = role === 'developer' || role === 'system' ? 'system' : role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : undefined
      if (mapped === undefined) fail(at, '/payload/role', '"user", "assistant", "developer" or "system"', role)
      const text = contentText(item['content'], at, '/payload/content')
      // Assistant text and the calls that follow it are one assistant message; user/system messages stand alone.
      return { role: mapped, ...(mapped === 'assistant' ? { key: 'assistant' } : {}), parts: [{ type: 'text', text }] }
    }
    case 'reasoning': {
      const texts: string[] = []
      for (const key of ['summary', 'content'] as const) {
        const list = item[key]
        if (!Array.isArray(list)) continue
        list.forEach((entry, index) => {
          const record = expectObject(entry, at, `/payload/${key}/${index}`)
          const text = record['text']
          if (typeof text === 'string') texts.push(text)
        })
      }
      if (texts.length === 0) {
        skip(context, 'reasoning:encrypted')
        return undefined
      }
      return { role: 'assistant', key: 'assistant', parts: [{ type: 'reasoning', text: texts.join('\n') }] }
    }
    case 'function_call':
      return {
        role: 'assistant',
        key: 'assistant',
        parts: [
          {
            type: 'tool-call',
            id: stringField(item, 'call_id', at, '/payload'),
            name: stringField(item, 'name', at, '/payload'),
            arguments: parseArguments(stringField(item, 'arguments', at, '/payload'), at),
          },
        ],
      }
    case 'custom_tool_call':
      return {
        role: 'assistant',
        key: 'assistant',
        parts: [
          {
            type: 'tool-call',
            id: stringField(item, 'call_id', at, '/payload'),
            name: stringField(item, 'name', at, '/payload'),
            arguments: optionalString(item, 'input', at, '/payload') ?? '',
          },
        ],
      }
    case 'local_shell_call': {
      const id = optionalString(item, 'call_id', at, '/payload') ?? optionalString(item, 'id', at, '/payload')
      if (id === undefined) fail(at, '/payload/call_id', 'a string', item['call_id'])
      return { role: 'assistant', key: 'assistant', parts: [{ type: 'tool-call', id, name: 'local_shell', arguments: checkedArguments(item['action'] ?? {}, at) }] }
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const { content, isError } = outputText(item['output'], at)
      return { role: 'tool', key: 'tool', parts: [{ type: 'tool-result', callId: stringField(item, 'call_id', at, '/payload'), content, isError }] }
    }
    default:
      skip(context, `response_item:${type}`)
      return undefined
  }
}

function contentText(content: unknown, at: FieldLocation, pointer: string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) fail(at, pointer, 'a string or an array of content parts', content)
  return content
    .map((part, index) => {
      const record = expectObject(part, at, `${pointer}/${index}`)
      const text = record['text']
      if (typeof text === 'string') return text
      const type = typeof record['type'] === 'string' ? record['type'] : 'part'
      return type.includes('image') ? '[image]' : `[${type}]`
    })
    .join('\n')
}

function outputText(output: unknown, at: FieldLocation): { content: string; isError: boolean } {
  if (typeof output === 'string') return { content: output, isError: false }
  if (Array.isArray(output)) return { content: contentText(output, at, '/payload/output'), isError: false }
  const record = expectObject(output, at, '/payload/output', 'a string, an array of content parts or {content, success}')
  const content = record['content']
  return {
    content: typeof content === 'string' ? content : contentText(content ?? [], at, '/payload/output/content'),
    isError: record['success'] === false,
  }
}

function appendRecords(messages: readonly Message[], options: Required<CodexFormatOptions>): string {
  let out = ''
  const write = (type: string, payload: Record<string, unknown>) => {
    out += `${JSON.stringify({ timestamp: options.now().toISOString(), type, payload })}\n`
  }
  for (const message of messages) {
    const role = message.role === 'system' ? 'developer' : message.role === 'assistant' ? 'assistant' : 'user'
    const textType = role === 'assistant' ? 'output_text' : 'input_text'
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
          write('response_item', { type: 'message', role, content: [{ type: textType, text: part.text }] })
          break
        case 'summary':
          write('compacted', { message: part.text })
          break
        case 'reasoning':
          write('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: part.text }] })
          break
        case 'tool-call':
          // Free-form (string) arguments are what custom tools take; JSON arguments are a function call's.
          if (typeof part.arguments === 'string') {
            write('response_item', { type: 'custom_tool_call', call_id: part.id, name: part.name, input: part.arguments })
            break
          }
          write('response_item', {
            type: 'function_call',
            name: part.name,
            arguments: JSON.stringify(part.arguments ?? {}),
            call_id: part.id,
          })
          break
        case 'tool-result':
          write('response_item', { type: 'function_call_output', call_id: part.callId, output: part.isError ? { content: part.content, success: false } : part.content })
          break
      }
    }
  }
  return out
}

/** Creates the Codex rollout format with the given clock for appended records. */
export function createCodexFormat(options: CodexFormatOptions = {}): TranscriptFormatV1 {
  const resolved = { now: options.now ?? (() => new Date()) }
  return {
    specificationVersion: 'v1',
    name: 'codex',
    layout: 'lines',
    detect: detectCodex,
    ...logReaders('codex', readCodex),
    append: (messages) => appendRecords(messages, resolved),
  }
}

/** Codex CLI rollout JSONL, streamed; appends rollout records (a summary as a `compacted` record). */
export const codexFormat: TranscriptFormatV1 = createCodexFormat()

/**
 * `claude -p --output-format stream-json` output and Claude Agent SDK message streams (`SDKMessage` JSONL), read only.
 *
 * One SDK message a line, by `type` (the SDK's documented union):
 * - `assistant` (`SDKAssistantMessage`: `message` is an API message) → assistant parts: `text`, `thinking` as
 *   reasoning, `tool_use` as a tool call. The CLI streams one API message as several records (one content block each,
 *   the same `message.id`): consecutive records of one id are one assistant message.
 * - `user` (`SDKUserMessage`, a replay too) → `tool_result` blocks as a `tool` message (paired by `tool_use_id`,
 *   `is_error`), other content (a string, text blocks) as user text.
 * - `parent_tool_use_id` set: a sub-agent's message (a Task call's inner turns). The main model never sees them (the
 *   sub-agent's report comes back as the Task call's result), so they are not read into the main thread; they are
 *   counted in `envelope.subagentMessages` by parent call id, with one warning.
 * - `result` (`SDKResultMessage`): the run's final answer, already the last assistant message's text; not read again.
 *   Kept in `envelope.result` (subtype, is_error, num_turns, result). When no assistant text precedes it, its text is
 *   read as an assistant message so the answer is not lost.
 * - `system` (`init` → `envelope.init`: session_id, model, cwd, tools; `compact_boundary`, status, hooks…),
 *   `stream_event` (partial deltas of a message whose whole `assistant` record follows), `tool_progress` and any other
 *   type → no message, counted in `envelope.skipped` by `type` (`system:SUBTYPE` for system records).
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import { blocksToText, checkedArguments, expectObject, type FieldLocation, type LogReadContext, logReaders, MessageGroup, placeholder, skip } from './_log.js'

const SDK_TYPES = new Set(['system', 'assistant', 'user', 'result', 'stream_event', 'tool_progress', 'auth_status', 'tool_use_summary'])
/** Keys Claude Code's own session log writes (camelCase); the SDK stream writes `session_id`. */
const SESSION_LOG_KEYS = ['parentUuid', 'sessionId', 'leafUuid', 'isSidechain'] as const

/**
 * Scores a head as an SDK message stream: 0.97 when its first complete records (up to 8) are all SDK messages (a
 * `type` of the SDK's union, a `session_id` string, none of Claude Code's session-log keys) and one is an `assistant`
 * or `user` record with an API `message`, or a `system` `init`; else 0. Above `claude-code`'s 0.95, which newer SDK
 * records (they carry a `uuid`) also get.
 */
export function detectClaudeStreamJson(head: string): number {
  const records = headRecords(head, 8).filter((record) => record !== undefined)
  if (records.length === 0) return 0
  let anchored = false
  for (const record of records) {
    if (!isRecord(record) || typeof record['type'] !== 'string' || !SDK_TYPES.has(record['type']) || typeof record['session_id'] !== 'string') return 0
    if (SESSION_LOG_KEYS.some((key) => key in record)) return 0
    const message = record['message']
    if ((record['type'] === 'assistant' || record['type'] === 'user') && isRecord(message) && 'content' in message) anchored = true
    if (record['type'] === 'system' && record['subtype'] === 'init') anchored = true
  }
  return anchored ? 0.97 : 0
}

/** The parts of an assistant API message's content blocks. */
function assistantParts(content: unknown, at: FieldLocation): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const parts: Part[] = []
  for (const block of content) {
    if (!isRecord(block)) continue
    if (block['type'] === 'text' && typeof block['text'] === 'string') parts.push({ type: 'text', text: block['text'] })
    else if (block['type'] === 'thinking' && typeof block['thinking'] === 'string') parts.push({ type: 'reasoning', text: block['thinking'] })
    else if (block['type'] === 'redacted_thinking') continue
    else if ((block['type'] === 'tool_use' || block['type'] === 'server_tool_use') && typeof block['id'] === 'string' && typeof block['name'] === 'string') {
      parts.push({ type: 'tool-call', id: block['id'], name: block['name'], arguments: checkedArguments(block['input'] ?? {}, at) })
    } else parts.push({ type: 'text', text: placeholder(block) })
  }
  return parts
}

async function* readStream(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  const subagents: Record<string, number> = {}
  let lastAssistantText: string | undefined
  let userTurn = 0
  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning), record: { expected: 'an SDK message object (a "type" string)', accepts: (record) => typeof record['type'] === 'string' } })) {
    const at: FieldLocation = { file, line }
    const record = expectObject(value, at, '/', 'an SDK message object')
    const type = record['type'] as string
    const parent = record['parent_tool_use_id']
    if ((type === 'assistant' || type === 'user') && typeof parent === 'string' && parent !== '') {
      subagents[parent] = (subagents[parent] ?? 0) + 1
      continue
    }
    let closed: Message | undefined
    if (type === 'assistant') {
      const message = expectObject(record['message'], at, '/message', 'an API assistant message {id, content}')
      const parts = assistantParts(message['content'], at)
      const id = typeof message['id'] === 'string' ? message['id'] : `line:${line}`
      closed = group.add('assistant', `assistant:${id}`, parts, line, record)
      const texts = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))
      if (texts.length > 0) lastAssistantText = texts.join('\n')
    } else if (type === 'user') {
      const message = expectObject(record['message'], at, '/message', 'an API user message {content}')
      const content = message['content']
      const blocks = Array.isArray(content) ? content : []
      const results: Part[] = []
      const others: unknown[] = []
      for (const block of blocks) {
        if (isRecord(block) && block['type'] === 'tool_result' && typeof block['tool_use_id'] === 'string') {
          const inner = block['content']
          const text = typeof inner === 'string' ? inner : Array.isArray(inner) ? blocksToText(inner, at, '/message/content') : ''
          results.push({ type: 'tool-result', callId: block['tool_use_id'], content: text, isError: block['is_error'] === true })
        } else others.push(block)
      }
      if (results.length > 0) closed = group.add('tool', 'tool', results, line, record)
      const text = typeof content === 'string' ? content : others.length > 0 ? blocksToText(others, at, '/message/content') : undefined
      if (text !== undefined) {
        const before = closed
        userTurn++
        closed = group.add('user', `user:${userTurn}`, [{ type: 'text', text }], line, record)
        if (before) yield before
      }
      lastAssistantText = undefined
    } else if (type === 'result') {
      const kept: Record<string, unknown> = {}
      for (const key of ['subtype', 'is_error', 'num_turns', 'result', 'session_id']) if (key in record) kept[key] = record[key]
      context.envelope['result'] = kept
      const answer = record['result']
      // The final answer is the last assistant message's text; read it only when the stream lacks that message.
      if (typeof answer === 'string' && answer !== '' && lastAssistantText === undefined) closed = group.add('assistant', `result:${line}`, [{ type: 'text', text: answer }], line, record)
      else skip(context, 'result')
    } else {
      if (type === 'system' && record['subtype'] === 'init' && context.envelope['init'] === undefined) {
        const init: Record<string, unknown> = {}
        for (const key of ['session_id', 'model', 'cwd', 'tools', 'permissionMode']) if (key in record) init[key] = record[key]
        context.envelope['init'] = init
      }
      skip(context, type === 'system' && typeof record['subtype'] === 'string' ? `system:${record['subtype']}` : type)
    }
    if (closed) yield closed
  }
  const last = group.flush()
  if (last) yield last
  const calls = Object.keys(subagents)
  if (calls.length > 0) {
    context.envelope['subagentMessages'] = subagents
    const total = Object.values(subagents).reduce((sum, count) => sum + count, 0)
    context.warnings.push(`${file}: ${total} sub-agent message${total === 1 ? '' : 's'} (parent_tool_use_id ${calls.join(', ')}) not read: the main thread sees only each sub-agent's result`)
  }
}

/** `claude -p --output-format stream-json` / Claude Agent SDK message streams, read only. */
export const claudeStreamJsonFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'claude-stream-json',
  layout: 'lines',
  detect: detectClaudeStreamJson,
  ...logReaders('claude-stream-json', readStream),
}

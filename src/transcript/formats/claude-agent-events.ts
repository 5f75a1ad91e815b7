/**
 * Claude agent-session event stream (JSONL): one event a line, `{role, kind, time, content?, tool?, raw}` with
 * `raw.type` = `namespace.kind` and `raw.id` = `sevt_…`. `raw` is authoritative; the envelope `content` is a
 * convenience copy and is ignored.
 *
 * Mapping decisions:
 * - `agent.message` → assistant text; `agent.tool_use` → tool call (id = `raw.id`, `raw.name`, `raw.input`).
 *   Consecutive agent events of one model request (between `span.model_request_start` events) form one assistant
 *   message.
 * - `agent.tool_result` → a `tool` message (consecutive results merged) with a result for `raw.tool_use_id`,
 *   `raw.is_error`, content blocks as text (search results and documents as `[search result: TITLE (URL)]` /
 *   `[document: TITLE]` placeholders).
 * - `user.define_outcome` → user text: the description, then the rubric text. `user.message` → user text.
 *   `user.interrupt` → user text `[interrupt]` (the user stopped the agent; the stop itself is state).
 * - `span.outcome_evaluation_end` → user text `[outcome evaluation: RESULT]` + the grader's explanation: the
 *   agent is shown this feedback and acts on it, so it is transcript content, unlike the other span events.
 * - `agent.thinking` is only a marker (the thinking text is not recorded): represented by nothing, counted in
 *   `envelope.skipped`, as are `span.*` and `session.*` events and unknown event types.
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part } from '../../spec/transcript.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import {
  arrayField,
  blocksToText,
  checkedArguments,
  expectObject,
  type FieldLocation,
  type LogReadContext,
  logReaders,
  MessageGroup,
  optionalBoolean,
  optionalString,
  skip,
  stringField,
} from './_log.js'

/** Scores a head as an agent-session event stream: records with `raw.type` like `session.status_running`. */
export function detectClaudeAgentEvents(head: string): number {
  const records = headRecords(head, 4).filter((record) => record !== undefined)
  if (records.length === 0) {
    const start = head.trimStart()
    return start.startsWith('{') && start.includes('"raw":{') && start.includes('"sevt_') ? 0.7 : 0
  }
  const matching = records.filter((record) => {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return false
    const raw = (record as Record<string, unknown>)['raw']
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return false
    const type = (raw as Record<string, unknown>)['type']
    return typeof type === 'string' && type.includes('.') && typeof (record as Record<string, unknown>)['kind'] === 'string'
  })
  return matching.length === records.length ? 0.95 : 0
}

async function* readAgentEvents(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  let turn = 0
  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning), record: { expected: 'an event object' } })) {
    const at: FieldLocation = { file, line }
    const record = expectObject(value, at, '/', 'an event object')
    const raw = expectObject(record['raw'], at, '/raw', 'the raw event object')
    const type = stringField(raw, 'type', at, '/raw')
    let closed: Message | undefined
    switch (type) {
      case 'agent.message': {
        const text = blocksToText(arrayField(raw, 'content', at, '/raw'), at, '/raw/content')
        closed = group.add('assistant', `turn:${turn}`, [{ type: 'text', text }], line, record)
        break
      }
      case 'agent.tool_use': {
        const part: Part = {
          type: 'tool-call',
          id: stringField(raw, 'id', at, '/raw'),
          name: stringField(raw, 'name', at, '/raw'),
          arguments: checkedArguments(raw['input'] ?? {}, at),
        }
        closed = group.add('assistant', `turn:${turn}`, [part], line, record)
        break
      }
      case 'agent.tool_result': {
        const content = raw['content']
        const part: Part = {
          type: 'tool-result',
          callId: stringField(raw, 'tool_use_id', at, '/raw'),
          content: content === undefined || content === null ? '' : blocksToText(arrayField(raw, 'content', at, '/raw'), at, '/raw/content'),
          isError: optionalBoolean(raw, 'is_error', at, '/raw'),
        }
        closed = group.add('tool', 'tool', [part], line, record)
        break
      }
      case 'user.define_outcome': {
        const description = stringField(raw, 'description', at, '/raw')
        const rubric = raw['rubric']
        let rubricText: string | undefined
        if (typeof rubric === 'string') rubricText = rubric
        else if (rubric !== undefined && rubric !== null) rubricText = optionalString(expectObject(rubric, at, '/raw/rubric'), 'content', at, '/raw/rubric')
        const text = rubricText ? `${description}\n\n${rubricText}` : description
        closed = group.add('user', `user:${line}`, [{ type: 'text', text }], line, record)
        break
      }
      case 'user.message': {
        const content = raw['content']
        const text = typeof content === 'string' ? content : blocksToText(arrayField(raw, 'content', at, '/raw'), at, '/raw/content')
        closed = group.add('user', `user:${line}`, [{ type: 'text', text }], line, record)
        break
      }
      case 'user.interrupt':
        closed = group.add('user', `user:${line}`, [{ type: 'text', text: '[interrupt]' }], line, record)
        break
      case 'span.outcome_evaluation_end': {
        const result = optionalString(raw, 'result', at, '/raw') ?? 'unknown'
        const explanation = optionalString(raw, 'explanation', at, '/raw') ?? ''
        const text = explanation ? `[outcome evaluation: ${result}]\n${explanation}` : `[outcome evaluation: ${result}]`
        closed = group.add('user', `user:${line}`, [{ type: 'text', text }], line, record)
        break
      }
      case 'span.model_request_start':
        // A new model request is a new assistant turn even when no tool result came between.
        turn++
        skip(context, type)
        break
      default:
        skip(context, type)
    }
    if (closed) yield closed
  }
  const last = group.flush()
  if (last) yield last
}

/** Claude agent-session event stream JSONL (`sevt_…` events), streamed. */
export const claudeAgentEventsFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'claude-agent-events',
  layout: 'lines',
  detect: detectClaudeAgentEvents,
  ...logReaders('claude-agent-events', readAgentEvents),
}

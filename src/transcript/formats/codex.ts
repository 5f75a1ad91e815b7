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
 *   held back (at most {@link EVENT_FALLBACK_LIMIT}), then dropped; a log that never has one gets them. An
 *   `event_msg` `context_compacted` (Codex writes it after a `compacted` record, and so does compact in a rollout of
 *   message items) counts as such an item: the events around it are copies.
 *   Every other `event_msg` (token counts, task start/end, exec begin/end…) is counted in `envelope.skipped`.
 * - `compacted` `{message, replacement_history?}` → a user message with a `summary` part (source `codex`);
 *   the replacement history stays in the record (`source`), since it repeats earlier user messages.
 * - `session_meta` and `turn_context` go to `envelope.session` / are counted.
 * - Older rollouts (before `session_meta`, mid-2025) have no `{type, payload}` wrapper: the first line is a bare
 *   session object `{id, timestamp, instructions, git?}` (kept as `envelope.session`), later lines are bare response
 *   items (`{"type": "message", …}`, `function_call`, `function_call_output`, `reasoning`, …), read as the payloads
 *   above, and `{"record_type": "state"}` markers, counted. A compacted copy of such a rollout gets a modern
 *   `compacted` record for its summary (the older form has none), and detection takes the mix.
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import {
  checkedArguments,
  expectObject,
  fail,
  type FieldLocation,
  type LogCompaction,
  type LogReadContext,
  logReaders,
  MessageGroup,
  optionalString,
  parseArguments,
  skip,
  stringField,
  unreadableRecord,
} from './_log.js'

/** How many `event_msg` messages a rollout without response items may hold back before they are used as is. */
export const EVENT_FALLBACK_LIMIT = 256

const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'])
/** Response item types an older rollout writes bare, one a line. */
const BARE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
])

/** Whether a record is an older rollout's bare session object: `{id, timestamp, …}` without a `type`. */
function isBareSession(record: Record<string, unknown>): boolean {
  return record['type'] === undefined && typeof record['id'] === 'string' && typeof record['timestamp'] === 'string' && !('payload' in record)
}

/** Whether a record is an older rollout's `{"record_type": "state"}` marker. */
function isStateMarker(record: Record<string, unknown>): boolean {
  return record['type'] === undefined && record['record_type'] === 'state'
}

/** Whether a record is an older rollout's bare response item. */
function isBareItem(record: Record<string, unknown>): boolean {
  return typeof record['type'] === 'string' && BARE_ITEM_TYPES.has(record['type']) && !('payload' in record)
}

/** Options of {@link createCodexFormat}. */
export interface CodexFormatOptions {
  /**
   * Clock for the `timestamp` of appended records.
   * @default () => new Date()
   */
  readonly now?: () => Date
}

/**
 * Scores a head as a Codex rollout: leading records are `{type, payload}` with a rollout record type, or (an older
 * rollout) a bare session object first, then bare response items and state markers; or both, as in the compacted
 * copy of an older rollout (its summary is a wrapped `compacted` record). Bare items need a session object, a state
 * marker or a wrapped record beside them: alone they could be another log's.
 */
export function detectCodex(head: string): number {
  const records = headRecords(head, 4).filter((record) => record !== undefined)
  if (records.length === 0) {
    const start = head.trimStart().slice(0, 200)
    if (/^\{"timestamp":"[^"]*","type":"(session_meta|response_item|event_msg|turn_context|compacted)","payload":/.test(start)) return 0.8
    // An older rollout whose session object (its instructions) is longer than the head.
    return /^\{"id":"[^"]*","timestamp":"[^"]*","instructions":/.test(start) ? 0.8 : 0
  }
  let wrapped = 0
  let marked = false
  for (const [index, record] of records.entries()) {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return 0
    const object = record as Record<string, unknown>
    const type = object['type']
    if (typeof type === 'string' && ROLLOUT_TYPES.has(type) && 'payload' in object) wrapped++
    else if ((index === 0 && isBareSession(object)) || isStateMarker(object)) marked = true
    else if (!isBareItem(object)) return 0
  }
  if (wrapped === records.length) return 0.95
  return marked || wrapped > 0 ? 0.9 : 0
}

async function* readCodex(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  let sawResponseMessages = false
  // While undecided, event-derived messages wait here (flagged) together with any message that followed them.
  let heldBack: Array<{ message: Message; event: boolean }> | undefined = []
  let records = 0
  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning), record: { expected: 'a rollout record object' } })) {
    const at: FieldLocation = { file, line }
    const record = expectObject(value, at, '/', 'a rollout record object')
    const isFirst = records++ === 0
    // An older rollout: its bare session object, state markers and bare response items.
    if (isFirst && isBareSession(record)) {
      context.envelope['session'] = record
      skip(context, 'session')
      continue
    }
    if (isStateMarker(record)) {
      skip(context, 'state')
      continue
    }
    const bareItem = isBareItem(record)
    const type = bareItem ? 'response_item' : stringField(record, 'type', at, '')
    const payload = bareItem ? record : record['payload']
    const payloadAt = bareItem ? '' : '/payload'
    let closed: Message | undefined
    switch (type) {
      case 'response_item': {
        let mapped: ReturnType<typeof responseItem>
        try {
          mapped = responseItem(expectObject(payload, at, '/payload'), at, context, payloadAt)
        } catch (error) {
          unreadableRecord(context, line, error)
          break
        }
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
          context.envelope['eventMessages'] = true
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
        } else {
          // Codex writes this event after a `compacted` record in rollouts of response items, and so does compact:
          // the message events around it are copies of the items the summary replaced, never messages.
          if (kind === 'context_compacted' && !sawResponseMessages) {
            sawResponseMessages = true
            if (heldBack !== undefined) for (const held of heldBack) if (!held.event) yield held.message
            heldBack = undefined
          }
          skip(context, `event_msg:${kind}`)
        }
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

function responseItem(item: Record<string, unknown>, at: FieldLocation, context: LogReadContext, base: string): { role: Role; key?: string; parts: Part[] } | undefined {
  const type = stringField(item, 'type', at, base)
  switch (type) {
    case 'message': {
      const role = stringField(item, 'role', at, base)
      const mapped: Role | undefined = role === 'developer' || role === 'system' ? 'system' : role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : undefined
      if (mapped === undefined) fail(at, `${base}/role`, '"user", "assistant", "developer" or "system"', role)
      const text = contentText(item['content'], at, `${base}/content`)
      // Assistant text and the calls that follow it are one assistant message; user/system messages stand alone.
      return { role: mapped, ...(mapped === 'assistant' ? { key: 'assistant' } : {}), parts: [{ type: 'text', text }] }
    }
    case 'reasoning': {
      const texts: string[] = []
      for (const key of ['summary', 'content'] as const) {
        const list = item[key]
        if (!Array.isArray(list)) continue
        list.forEach((entry, index) => {
          const record = expectObject(entry, at, `${base}/${key}/${index}`)
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
            id: stringField(item, 'call_id', at, base),
            name: stringField(item, 'name', at, base),
            arguments: parseArguments(stringField(item, 'arguments', at, base), at),
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
            id: stringField(item, 'call_id', at, base),
            name: stringField(item, 'name', at, base),
            arguments: optionalString(item, 'input', at, base) ?? '',
          },
        ],
      }
    case 'local_shell_call': {
      const id = optionalString(item, 'call_id', at, base) ?? optionalString(item, 'id', at, base)
      if (id === undefined) fail(at, `${base}/call_id`, 'a string', item['call_id'])
      return { role: 'assistant', key: 'assistant', parts: [{ type: 'tool-call', id, name: 'local_shell', arguments: checkedArguments(item['action'] ?? {}, at) }] }
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const { content, isError } = outputText(item['output'], at, base)
      return { role: 'tool', key: 'tool', parts: [{ type: 'tool-result', callId: stringField(item, 'call_id', at, base), content, isError }] }
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

function outputText(output: unknown, at: FieldLocation, base: string): { content: string; isError: boolean } {
  if (typeof output === 'string') return wrappedOutput(output) ?? { content: output, isError: false }
  if (Array.isArray(output)) return { content: contentText(output, at, `${base}/output`), isError: false }
  const record = expectObject(output, at, `${base}/output`, 'a string, an array of content parts or {content, success}')
  const content = record['content']
  return {
    content: typeof content === 'string' ? content : contentText(content ?? [], at, `${base}/output/content`),
    isError: record['success'] === false,
  }
}

/**
 * wrappedOutput(text) = `{content: output, isError: exit_code != 0}` when `text` is the JSON a Codex shell call's
 * output was written as (`{"output": "…", "metadata": {"exit_code": 1, "duration_seconds": 0.4}}`, codex-rs before
 * its plain `Exit code: N` header), else undefined (any other text, JSON or not, is the output as written). The output
 * is read decoded, so its lines are lines and a failed command's result is an error; its count leaves out the
 * wrapper's quoting, which the model was also shown.
 */
function wrappedOutput(text: string): { content: string; isError: boolean } | undefined {
  let start = 0
  while (start < text.length && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 10 || text.charCodeAt(start) === 13 || text.charCodeAt(start) === 9)) start++
  if (!text.startsWith('{"output":', start)) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const { output, metadata, ...rest } = value as Record<string, unknown>
  if (typeof output !== 'string' || Object.keys(rest).length > 0) return undefined
  if (metadata === undefined) return { content: output, isError: false }
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined
  const exitCode = (metadata as Record<string, unknown>)['exit_code']
  return { content: output, isError: typeof exitCode === 'number' && exitCode !== 0 }
}

/** One rollout record as a JSONL line: `{timestamp, type, payload}`. */
function rolloutLine(now: () => Date, type: string, payload: Record<string, unknown>): string {
  return `${JSON.stringify({ timestamp: now().toISOString(), type, payload })}\n`
}

function appendRecords(messages: readonly Message[], options: Required<CodexFormatOptions>): string {
  let out = ''
  const write = (type: string, payload: Record<string, unknown>) => {
    out += rolloutLine(options.now, type, payload)
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

/**
 * Writes a compacted range of a rollout as Codex does when it compacts: a `compacted` record holding the summary and
 * its `replacement_history`, then an `event_msg` `context_compacted`. On resume Codex takes the newest compaction's
 * `replacement_history` for the whole history before it, and rebuilds a compaction without one from the user
 * messages before it and the summary alone (codex-rs `reconstruct_history_from_rollout`), which would drop the
 * assistant turns and tool calls kept before a range in the middle of the log. So the history is written out: the
 * response items before the range in the written log, replayed as Codex replays them (an earlier compaction resets
 * it), then the summary as a user message. A transcript read from the rollout's message events (an older rollout with
 * no message items) gets the `compacted` record alone: there the message events are the messages, and the event would
 * hide those after the range. Without the event, a rollout compacted whole (no message item left) was read back from
 * the copies of the replaced messages that Codex logs as events.
 *
 * A `compacted` record after the range is what Codex resumes from, so its `replacement_history` must not bring back
 * the replaced items: when it begins with the history Codex had at the range's end (a compaction floorguard wrote,
 * or any built by replaying the log), that beginning becomes the new record's history, and the rest stays. One
 * Codex wrote itself keeps only the user messages, some cut short, and cannot be rewritten exactly: the range gets a
 * warning instead (Codex will not load its summary).
 */
export function createCodexCompaction(transcript: Transcript, options: CodexFormatOptions = {}): LogCompaction {
  const resolved = { now: options.now ?? (() => new Date()) }
  const fromEvents = isRecord(transcript.envelope) && transcript.envelope['eventMessages'] === true
  const ranges: WrittenRange[] = []
  const rewrite = (history: readonly unknown[]): readonly unknown[] => ranges.reduce((current, range) => rewriteHistory(current, range) ?? current, history)
  return {
    relinksEveryLine: !fromEvents,
    replace(context) {
      const write = (type: string, payload: Record<string, unknown>) => rolloutLine(resolved.now, type, payload)
      if (fromEvents) return { lines: write('compacted', { message: context.text }) }
      const before = replay([], context.written(), rewrite)
      const history = [...before, userMessageItem(context.text)]
      const end = replay(before, context.removed(), rewrite)
      ranges.push({ range: context.range, end: end.map(itemKey), history, warn: context.warn, warned: false })
      return { lines: `${write('compacted', { message: context.text, replacement_history: history })}${write('event_msg', { type: 'context_compacted' })}` }
    },
    relink(line, _relink, lineNumber) {
      // Only a `compacted` record's line can hold replaced items; the rest are decided without parsing.
      if (ranges.length === 0 || !line.includes('"compacted"')) return undefined
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        return undefined
      }
      if (!isRecord(record) || record['type'] !== 'compacted' || !isRecord(record['payload'])) return undefined
      const payload = record['payload']
      const original = payload['replacement_history']
      // Without one, Codex rebuilds the history from the user messages before it: the summary is one of them now.
      if (!Array.isArray(original)) return undefined
      let history: readonly unknown[] = original
      for (const range of ranges) {
        const rewritten = rewriteHistory(history, range)
        if (rewritten !== undefined) history = rewritten
        else if (!range.warned) {
          range.warned = true
          range.warn(
            `messages ${range.range[0]}:${range.range[1]} lie before the log's own compaction at line ${lineNumber}, whose replacement_history floorguard cannot rewrite exactly (it does not begin with the log's history at the range's end); Codex resumes from its last compaction, so it will not load this summary`,
          )
        }
      }
      return history === original ? undefined : JSON.stringify({ ...record, payload: { ...payload, replacement_history: history } })
    },
  }
}

/** A range written as a compaction, as the `compacted` records after it must see it. */
interface WrittenRange {
  /** The messages it replaced. */
  readonly range: readonly [number, number]
  /** The history Codex had at the range's end in the input (keys of its items, see {@link itemKey}), kept-in-range items that map to no message aside. */
  readonly end: readonly string[]
  /** The range's own `replacement_history`: the history before it, then the summary. */
  readonly history: readonly unknown[]
  readonly warn: (message: string) => void
  warned: boolean
}

/** An item's identity for comparing histories: its JSON, as written (the log and a replacement history write an item alike). */
function itemKey(item: unknown): string {
  return JSON.stringify(item) ?? ''
}

/**
 * `history` with the range's history at its end replaced by the range's own, or undefined when `history` does not
 * begin with that end: every item of it, in order, with nothing between them but items that map to no message
 * (encrypted reasoning the range kept, which the new record drops just as Codex's replay would).
 */
function rewriteHistory(history: readonly unknown[], range: WrittenRange): unknown[] | undefined {
  const { end } = range
  if (end.length === 0 || history.length < end.length) return undefined
  let matched = 0
  let index = 0
  for (; index < history.length && matched < end.length; index++) {
    const item = history[index]
    if (itemKey(item) === end[matched]) matched++
    else if (matched === 0 || !mapsToNoMessage(item)) return undefined
  }
  return matched === end.length ? [...range.history, ...history.slice(index)] : undefined
}

/** Whether a response item gives the reader nothing: encrypted-only reasoning, or a type it does not read. */
function mapsToNoMessage(item: unknown): boolean {
  if (!isRecord(item)) return false
  const type = item['type']
  if (type === 'reasoning') {
    return !(['summary', 'content'] as const).some((key) => Array.isArray(item[key]) && item[key].some((entry) => isRecord(entry) && typeof entry['text'] === 'string'))
  }
  return typeof type === 'string' && !READ_ITEM_TYPES.has(type)
}

/** Response item types the reader maps to message parts. */
const READ_ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'function_call_output', 'custom_tool_call_output'])

/** A user message response item holding `text`. */
function userMessageItem(text: string): Record<string, unknown> {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }
}

/**
 * The history Codex rebuilds from rollout records on resume, continuing `history`: response items in order; a
 * `compacted` record replaces it with its `replacement_history` (as `rewrite` leaves it: an earlier range of this write
 * replaced in it), or, without one, with the user messages so far and its summary.
 */
function replay(history: readonly unknown[], records: readonly Record<string, unknown>[], rewrite: (history: readonly unknown[]) => readonly unknown[]): unknown[] {
  let replayed = [...history]
  for (const record of records) {
    if (isBareItem(record)) replayed.push(record)
    else if (record['type'] === 'response_item' && isRecord(record['payload'])) replayed.push(record['payload'])
    else if (record['type'] === 'compacted' && isRecord(record['payload'])) {
      const compacted = record['payload']
      if (Array.isArray(compacted['replacement_history'])) replayed = [...rewrite(compacted['replacement_history'])]
      else {
        const users = replayed.filter((item) => isRecord(item) && item['type'] === 'message' && item['role'] === 'user')
        replayed = [...users, userMessageItem(typeof compacted['message'] === 'string' ? compacted['message'] : '')]
      }
    }
  }
  return replayed
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

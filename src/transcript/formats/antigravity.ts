/**
 * Google Antigravity's agent transcript (`transcript.jsonl`), read only.
 *
 * One step a line: `{step_index, source, type, status, created_at, content?, thinking?, tool_calls?, error?}`, in the
 * order the agent took them (a `USER_INPUT`'s `step_index` may go back: file order is the order; the index names ids).
 * - `USER_INPUT` → user text, as the model is given it (`<USER_REQUEST>` wrapper and `<ADDITIONAL_METADATA>` kept).
 * - `PLANNER_RESPONSE` → assistant: `thinking` as reasoning, `content` as text, each `tool_calls[k]` `{name, args}`
 *   as a tool call with id `step<step_index>-<k>`; `args` values are JSON-encoded strings, decoded one by one (one
 *   the export cut short, `…\n<truncated N bytes>`, is decoded as far as it goes and keeps the marker).
 * - An execution step (source `MODEL`: `RUN_COMMAND`, `VIEW_FILE`, `CODE_ACTION`, `GENERIC`…) → the tool result of
 *   the oldest call of the latest `PLANNER_RESPONSE` not yet executed (the steps follow their calls in order); status
 *   `ERROR` → isError. `ERROR_MESSAGE` while a call waits (the system refused the call) → that call's failing result.
 *   An execution step with no call waiting → a result under `step<step_index>`, reported unpaired. A result's
 *   content is the step's less its `Created At:`/`Completed At:` lines (the step's timestamps; kept in `source`).
 * - `USER_EXPLICIT` steps other than `USER_INPUT` (the user ran a command, opened a file) → user text.
 * - `CHECKPOINT` → a `summary` part (`source: 'antigravity'`): Antigravity's own compaction of the earlier steps.
 * - `SYSTEM_MESSAGE`, an `ERROR_MESSAGE` with no call waiting, any other step with content → system text.
 * - `EPHEMERAL_MESSAGE` (a reminder shown for one turn, not kept in the conversation) and steps without content
 *   (`CONVERSATION_HISTORY`, `KNOWLEDGE_ARTIFACTS`) → no message, counted in `envelope.skipped` by type.
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import { checkedArguments, expectObject, type FieldLocation, type LogReadContext, logReaders, MessageGroup, skip } from './_log.js'

/** Antigravity's step types whose content is a tool's execution when the model's call is waiting. */
const NOT_EXECUTION = new Set(['USER_INPUT', 'PLANNER_RESPONSE', 'CHECKPOINT', 'SYSTEM_MESSAGE', 'EPHEMERAL_MESSAGE', 'ERROR_MESSAGE', 'CONVERSATION_HISTORY', 'KNOWLEDGE_ARTIFACTS'])
const TRUNCATED = '\n<truncated '

/** A step record: an object with a `type` string and a numeric `step_index`. */
function isStep(record: Readonly<Record<string, unknown>>): boolean {
  return typeof record['type'] === 'string' && typeof record['step_index'] === 'number'
}

/** Whether a parsed head record is an Antigravity step: step_index, and source, type, status in upper snake case. */
function isStepShape(record: unknown): boolean {
  if (!isRecord(record) || typeof record['step_index'] !== 'number') return false
  return [record['source'], record['type'], record['status']].every((value) => typeof value === 'string' && isUpperSnake(value))
}

function isUpperSnake(text: string): boolean {
  if (text.length === 0) return false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (!((code >= 65 && code <= 90) || code === 95 || (code >= 48 && code <= 57))) return false
  }
  return true
}

/**
 * Scores a head as an Antigravity transcript: 0.95 when its first complete records (up to 8) are all steps
 * (`step_index` a number; `source`, `type`, `status` upper-snake strings) and one is a `USER_INPUT` or a
 * `PLANNER_RESPONSE`; 0.9 for a head with no complete line that opens as Antigravity writes a step
 * (`{"step_index": N, "source": "…", "type": "`, a first step longer than the head); else 0.
 */
export function detectAntigravity(head: string): number {
  const records = headRecords(head, 8).filter((record) => record !== undefined)
  if (records.length === 0) return opensAsStep(head) ? 0.9 : 0
  let anchored = false
  for (const record of records) {
    if (!isStepShape(record)) return 0
    const type = (record as Record<string, unknown>)['type']
    if (type === 'USER_INPUT' || type === 'PLANNER_RESPONSE') anchored = true
  }
  return anchored ? 0.95 : 0
}

/** `{"step_index": 0, "source": "USER_EXPLICIT", "type": "` at the head's start, read without a regex. */
function opensAsStep(head: string): boolean {
  if (head.indexOf('\n') !== -1) return false
  const start = head.charCodeAt(0) === 0xfeff ? 1 : 0
  const prefix = '{"step_index":'
  if (!head.startsWith(prefix, start)) return false
  let index = start + prefix.length
  while (head[index] === ' ') index++
  const digits = index
  while (index < head.length && head.charCodeAt(index) >= 48 && head.charCodeAt(index) <= 57) index++
  if (index === digits) return false
  const rest = head.slice(index, index + 80)
  return /^, ?"source": ?"[A-Z_]+", ?"type": ?"/.test(rest)
}

/**
 * decodeArgument(value) = the JSON value a `tool_calls[k].args` string encodes; a string the export cut short
 * (`"…` + `\n<truncated N bytes>`) is decoded as far as it goes with the marker appended; anything else stays as is.
 */
export function decodeArgument(value: unknown, at: FieldLocation): unknown {
  if (typeof value !== 'string') return checkedArguments(value, at)
  try {
    return checkedArguments(JSON.parse(value), at)
  } catch {
    const cut = value.lastIndexOf(TRUNCATED)
    if (cut === -1 || value.charCodeAt(0) !== 34) return value
    const decoded = decodeCutString(value.slice(0, cut))
    return decoded === undefined ? value : decoded + value.slice(cut)
  }
}

/** A JSON string literal cut anywhere (perhaps inside an escape), decoded up to its last whole character. */
function decodeCutString(literal: string): string | undefined {
  // An escape is at most six characters (`\uXXXX`): dropping up to five ends the literal on a whole character.
  for (let drop = 0; drop <= 5 && drop < literal.length; drop++) {
    try {
      const decoded: unknown = JSON.parse(`${literal.slice(0, literal.length - drop)}"`)
      if (typeof decoded === 'string') return decoded
    } catch {
      // Cut inside an escape: try one character shorter.
    }
  }
  return undefined
}

/**
 * withoutStepHeader(content) = an execution step's content less its leading `Created At: …` and `Completed At: …`
 * lines and the newlines after them: the step's own timestamps (its `created_at` again), which, kept, would be the
 * first line of every failing result (`Created At: 2026-06-09T09:59:47Z` read as its error).
 */
/**
 * Whether a command step says its command exited non-zero (`The command exited with code 1.`, or, for a command the
 * user ran, `The command failed with exit code: 1`), in the step's first lines: a failed command's result is an error
 * as a `status: ERROR` step's is.
 */
export function exitedNonZero(content: string): boolean {
  const found = /The command (?:exited with code|failed with exit code:) (-?\d+)/.exec(content.slice(0, 600))
  return found !== null && Number(found[1]) !== 0
}

export function withoutStepHeader(content: string): string {
  let start = 0
  for (const label of ['Created At: ', 'Completed At: ']) {
    if (!content.startsWith(label, start)) continue
    const end = content.indexOf('\n', start)
    if (end === -1) return content
    start = end + 1
  }
  while (content.charCodeAt(start) === 10) start++
  return start === 0 || start === content.length ? content : content.slice(start)
}

/** The tool calls of a `PLANNER_RESPONSE`, ids `step<N>-<k>`, arguments decoded. */
function toolCalls(record: Record<string, unknown>, step: number, at: FieldLocation): { id: string; name: string; arguments: unknown }[] {
  const calls = record['tool_calls']
  if (!Array.isArray(calls)) return []
  return calls.map((call, index) => {
    const object = expectObject(call, at, `/tool_calls/${index}`, 'a tool call {name, args}')
    const name = typeof object['name'] === 'string' ? object['name'] : 'unknown'
    const args = object['args']
    let decoded: unknown = {}
    if (isRecord(args)) {
      const entries: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(args)) entries[key] = decodeArgument(value, at)
      decoded = entries
    } else if (args !== undefined) decoded = decodeArgument(args, at)
    return { id: `step${step}-${index}`, name, arguments: decoded }
  })
}

async function* readSteps(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  let waiting: { id: string; name: string }[] = []
  const record = { expected: 'an Antigravity step object (a "type" string and a numeric "step_index")', accepts: isStep }
  // A line --lenient skipped may have been the step that ran the oldest waiting call: after one, the calls waiting stay
  // unpaired rather than take a later step's output as theirs.
  let skippedLine = false
  const onWarning = (warning: string): void => {
    context.warnings.push(warning)
    skippedLine = true
  }
  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning, record })) {
    if (skippedLine) {
      waiting = []
      skippedLine = false
    }
    const at: FieldLocation = { file, line }
    const step = value as Record<string, unknown>
    const type = step['type'] as string
    const index = step['step_index'] as number
    const source = typeof step['source'] === 'string' ? step['source'] : ''
    const content = typeof step['content'] === 'string' && step['content'] !== '' ? step['content'] : undefined
    let role: Role | undefined
    let key = `line:${line}`
    let parts: Part[] = []
    if (type === 'PLANNER_RESPONSE') {
      const calls = toolCalls(step, index, at)
      if (typeof step['thinking'] === 'string' && step['thinking'] !== '') parts.push({ type: 'reasoning', text: step['thinking'] })
      if (content !== undefined) parts.push({ type: 'text', text: content })
      for (const call of calls) parts.push({ type: 'tool-call', ...call })
      // Calls of an earlier response that no step executed stay unpaired: the steps that follow execute these.
      waiting = calls.map((call) => ({ id: call.id, name: call.name }))
      role = 'assistant'
    } else if (type === 'EPHEMERAL_MESSAGE' || content === undefined) {
      skip(context, type)
    } else if (type === 'CHECKPOINT') {
      role = 'user'
      parts = [{ type: 'summary', text: content, source: 'antigravity' }]
    } else if (source === 'USER_EXPLICIT' || type === 'USER_INPUT') {
      role = 'user'
      parts = [{ type: 'text', text: content }]
    } else if (type === 'ERROR_MESSAGE' && waiting.length > 0) {
      const call = waiting.shift()!
      role = 'tool'
      key = 'tool'
      parts = [{ type: 'tool-result', callId: call.id, name: call.name, content: withoutStepHeader(content), isError: true }]
    } else if (source === 'MODEL' && !NOT_EXECUTION.has(type)) {
      const call = waiting.shift()
      role = 'tool'
      key = 'tool'
      parts = [{ type: 'tool-result', callId: call?.id ?? `step${index}`, ...(call ? { name: call.name } : {}), content: withoutStepHeader(content), isError: step['status'] === 'ERROR' || exitedNonZero(content) }]
    } else {
      role = 'system'
      parts = [{ type: 'text', text: content }]
    }
    if (role === undefined) continue
    const closed = group.add(role, key, parts, line, step)
    if (closed) yield closed
  }
  const last = group.flush()
  if (last) yield last
}

/** Google Antigravity's `transcript.jsonl` (one agent step a line), read only. */
export const antigravityFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'antigravity',
  layout: 'lines',
  detect: detectAntigravity,
  ...logReaders('antigravity', readSteps),
}

/**
 * Letta agent files (`.af`), read only: `{ "agents": [{ …, "messages": [ … ] }], "blocks", "tools", … }` as Letta
 * exports them (letta-ai/agent-file), or the single agent object older versions (0.6) wrote (`agent_type`,
 * `llm_config`, `in_context_message_indices`, `messages` at the top). The transcript is the first agent's `messages`,
 * in file order; a file of several agents with messages says, in a warning, that only the first is read.
 *
 * A message is `{ role, content: [parts], tool_calls, tool_call_id, tool_returns, approvals, … }`:
 * - `system`, `user`, `assistant`: content parts `text` are text, `reasoning` (its `reasoning`), `summarized_reasoning`
 *   (its summaries' text) and `redacted_reasoning` / `omitted_reasoning` (no text) reasoning; other parts a short
 *   placeholder (`[image]`). `tool_calls` (OpenAI-shaped, arguments a JSON string) are tool calls.
 * - `approval` with `tool_calls` is the assistant's turn whose calls wait for a human's approval: an assistant message.
 *   `approval` with `approvals` is the answer: a returned result, or a denial (an error result naming the reason), for
 *   each call no `tool` message answers (Letta repeats approved results in the `tool` message that follows).
 * - `tool` (and the older `function`): each of `tool_returns` (`func_response`, else `stdout` and `stderr`; `status`
 *   "error" is an error) is a result, else the content's text is the result for `tool_call_id`.
 * - Letta's summaries: a `summary` message, and a `user` message whose text is a `system_alert` saying prior messages
 *   "have been hidden" with "a summary of the previous messages", are summary parts (source `letta`), the alert's
 *   `message` as their text. Other alerts, heartbeats and login notes stay user text, as the model read them.
 */
import type { FormatSource, ReadOptions, TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { isRecord, scanJsonPrefix } from '../_json-prefix.js'
import { assertJsonDepth, parseJson } from '../json.js'
import { pairToolCalls } from '../render.js'
import { expectObject, fail, type FieldLocation, parseArguments, placeholder } from './_log.js'

/** The summary source Letta's summaries report. */
const LETTA = 'letta'

/** Keys only a Letta agent carries (one of them, besides `messages`, marks an agent). */
const AGENT_KEYS = ['agent_type', 'llm_config', 'in_context_message_ids', 'in_context_message_indices', 'memory_blocks', 'core_memory', 'message_buffer_autoclear']

/** Whether a value carries at least `marks` of Letta's agent keys. */
function isAgent(value: unknown, marks: number): value is Record<string, unknown> {
  if (!isRecord(value)) return false
  let found = 0
  for (const key of AGENT_KEYS) if (key in value) found++
  return found >= marks
}

/**
 * Scores a head as a Letta agent file: 0.95 for an object whose `agents` array starts with an agent (one of Letta's
 * agent keys: `memory_blocks`, `agent_type`, `llm_config`, `in_context_message_ids`, …), or an object that is itself an
 * agent with `agent_type` and `llm_config` (the older single-agent layout); else 0.
 */
export function detectLetta(head: string): number {
  const start = head.replace(/^\uFEFF/, '').trimStart()
  if (start[0] !== '{') return 0
  const scanned = scanJsonPrefix(start)
  if (scanned.errorOffset !== undefined || !isRecord(scanned.value)) return 0
  const root = scanned.value
  // Letta writes `memory_blocks` second, before a system prompt that may run past the head: one key marks an agent there.
  if (Array.isArray(root['agents'])) return isAgent(root['agents'][0], 1) ? 0.95 : 0
  return 'agent_type' in root && 'llm_config' in root && isAgent(root, 2) ? 0.95 : 0
}

/** Whether a text is Letta's note that earlier messages were replaced by a summary, and the note's message. */
function summaryAlert(text: string): string | undefined {
  const trimmed = text.trimStart()
  if (!trimmed.startsWith('{') || !trimmed.includes('system_alert')) return undefined
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch {
    return undefined
  }
  if (!isRecord(value) || value['type'] !== 'system_alert' || typeof value['message'] !== 'string') return undefined
  const message = value['message']
  return message.includes('have been hidden') || message.includes('summary of the previous') ? message : undefined
}

/** The parts of a message's `content` (a list of parts, or a string in older files). */
function contentParts(content: unknown, at: FieldLocation, pointer: string): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (content === null || content === undefined) return []
  if (!Array.isArray(content)) fail(at, pointer, 'an array of content parts', content)
  const parts: Part[] = []
  content.forEach((raw, index) => {
    const part = expectObject(raw, at, `${pointer}/${index}`, 'a content part object')
    const type = part['type']
    if (type === 'text' && typeof part['text'] === 'string') parts.push({ type: 'text', text: part['text'] })
    else if (type === 'reasoning') parts.push({ type: 'reasoning', text: typeof part['reasoning'] === 'string' ? part['reasoning'] : '' })
    else if (type === 'summarized_reasoning') {
      const summary = Array.isArray(part['summary']) ? part['summary'] : []
      parts.push({ type: 'reasoning', text: summary.flatMap((entry) => (isRecord(entry) && typeof entry['text'] === 'string' ? [entry['text']] : [])).join('\n') })
    } else if (type === 'redacted_reasoning' || type === 'omitted_reasoning') parts.push({ type: 'reasoning', text: '' })
    else parts.push({ type: 'text', text: placeholder(part) })
  })
  return parts
}

function textOf(parts: readonly Part[]): string {
  return parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

/** The OpenAI-shaped tool calls of a message. */
function toolCalls(value: unknown, at: FieldLocation, pointer: string): Part[] {
  if (value === null || value === undefined) return []
  if (!Array.isArray(value)) fail(at, pointer, 'an array of tool calls', value)
  return value.map((raw, index) => {
    const where = `${pointer}/${index}`
    const call = expectObject(raw, at, where, 'a tool call object {id, function}')
    const fn = expectObject(call['function'], at, `${where}/function`, 'a function object {name, arguments}')
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : fail(at, `${where}/id`, 'a string', call['id'])
    const name = typeof fn['name'] === 'string' ? fn['name'] : fail(at, `${where}/function/name`, 'a string', fn['name'])
    const args = fn['arguments']
    return { type: 'tool-call', id, name, arguments: typeof args === 'string' ? parseArguments(args, at) : (args ?? {}) }
  })
}

/** A tool return's text: `func_response`, else its `stdout` and `stderr` lines. */
function returnText(entry: Record<string, unknown>): string {
  if (typeof entry['func_response'] === 'string') return entry['func_response']
  const lines = (value: unknown) => (Array.isArray(value) ? value.filter((line): line is string => typeof line === 'string') : [])
  return [...lines(entry['stdout']), ...lines(entry['stderr'])].join('\n')
}

/** Whether an approvals entry carries a tool's return (rather than only a decision). */
function isReturn(entry: Record<string, unknown>): boolean {
  return 'func_response' in entry || 'stdout' in entry || 'stderr' in entry || entry['type'] === 'tool'
}

/** The call ids some `tool` or `function` message answers. */
function answeredIds(messages: readonly unknown[]): Set<string> {
  const ids = new Set<string>()
  for (const raw of messages) {
    if (!isRecord(raw) || (raw['role'] !== 'tool' && raw['role'] !== 'function')) continue
    if (typeof raw['tool_call_id'] === 'string') ids.add(raw['tool_call_id'])
    if (Array.isArray(raw['tool_returns'])) for (const entry of raw['tool_returns']) if (isRecord(entry) && typeof entry['tool_call_id'] === 'string') ids.add(entry['tool_call_id'])
  }
  return ids
}

/** The results of a `tool` message: its `tool_returns`, else its content for `tool_call_id`. */
function toolResults(record: Record<string, unknown>, at: FieldLocation, pointer: string): Part[] {
  const returns = Array.isArray(record['tool_returns']) ? record['tool_returns'] : []
  const name = typeof record['name'] === 'string' ? { name: record['name'] } : {}
  if (returns.length > 0) {
    return returns.map((raw, index) => {
      const where = `${pointer}/tool_returns/${index}`
      const entry = expectObject(raw, at, where, 'a tool return object')
      const callId = typeof entry['tool_call_id'] === 'string' ? entry['tool_call_id'] : typeof record['tool_call_id'] === 'string' ? record['tool_call_id'] : fail(at, `${where}/tool_call_id`, 'a string', entry['tool_call_id'])
      return { type: 'tool-result', callId, ...name, content: returnText(entry), isError: entry['status'] === 'error' }
    })
  }
  const callId = record['tool_call_id']
  if (typeof callId !== 'string' || callId === '') fail(at, `${pointer}/tool_call_id`, 'the id of the call this result answers', callId)
  return [{ type: 'tool-result', callId, ...name, content: textOf(contentParts(record['content'], at, `${pointer}/content`)), isError: false }]
}

/** The results an approval answer holds for calls no `tool` message answers: returned results, and denials. */
function approvalResults(record: Record<string, unknown>, answered: ReadonlySet<string>, at: FieldLocation, pointer: string): Part[] {
  const approvals = Array.isArray(record['approvals']) ? record['approvals'] : []
  const results: Part[] = []
  approvals.forEach((raw, index) => {
    const entry = expectObject(raw, at, `${pointer}/approvals/${index}`, 'an approval object')
    const callId = entry['tool_call_id']
    if (typeof callId !== 'string' || callId === '' || answered.has(callId)) return
    if (isReturn(entry)) results.push({ type: 'tool-result', callId, content: returnText(entry), isError: entry['status'] === 'error' })
    else if (entry['approve'] === false) {
      const reason = typeof entry['reason'] === 'string' ? `: ${entry['reason']}` : ''
      results.push({ type: 'tool-result', callId, content: `denied${reason}`, isError: true })
    }
  })
  return results
}

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool', 'function', 'approval', 'summary'])

async function readLetta(source: FormatSource, options: ReadOptions = {}): Promise<Transcript> {
  const keepSource = options.keepSource ?? true
  const file = source.name
  const document = parseJson(await source.text(), file)
  assertJsonDepth(document, file)
  const at: FieldLocation = { file }
  const root = expectObject(document, at, '/', 'a Letta agent file object {agents: […]}')
  const warnings: string[] = []
  let agent: Record<string, unknown>
  let base: string
  if (Array.isArray(root['agents'])) {
    const agents = root['agents']
    if (agents.length === 0) fail(at, '/agents', 'at least one agent', agents)
    agent = expectObject(agents[0], at, '/agents/0', 'an agent object')
    base = '/agents/0'
    const others = agents.slice(1).filter((other) => isRecord(other) && Array.isArray(other['messages']) && other['messages'].length > 0).length
    if (others > 0) warnings.push(`${file}: /agents: ${agents.length} agents; the first one's messages are read, ${others} other agent${others === 1 ? "'s" : "s'"} messages are not`)
  } else {
    agent = root
    base = ''
  }
  const list = agent['messages'] ?? []
  if (!Array.isArray(list)) fail(at, `${base}/messages`, 'an array of messages', list)
  const answered = answeredIds(list)
  const messages: Message[] = []
  list.forEach((raw, index) => {
    const pointer = `${base}/messages/${index}`
    const record = expectObject(raw, at, pointer, 'a message object {role, content}')
    const role = record['role']
    if (typeof role !== 'string' || !ROLES.has(role)) fail(at, `${pointer}/role`, '"system", "user", "assistant", "tool", "approval" or "summary"', role)
    const origin = { provenance: { pointer }, ...(keepSource ? { source: record } : {}) }
    const push = (messageRole: Role, parts: Part[]) => {
      if (parts.length > 0) messages.push({ role: messageRole, parts, ...origin })
    }
    const content = record['content'] ?? record['text']
    if (role === 'tool' || role === 'function') return push('tool', toolResults(record, at, pointer))
    if (role === 'summary') {
      const text = textOf(contentParts(content, at, `${pointer}/content`))
      return push('user', [{ type: 'summary', text: summaryAlert(text) ?? text, source: LETTA }])
    }
    const calls = record['tool_calls']
    if (role === 'approval' && !(Array.isArray(calls) && calls.length > 0)) return push('tool', approvalResults(record, answered, at, pointer))
    let parts = contentParts(content, at, `${pointer}/content`)
    if (role === 'user') {
      // The alert is one text part; the harness may put other text beside it.
      parts = parts.map((part) => {
        const alert = part.type === 'text' ? summaryAlert(part.text) : undefined
        return alert === undefined ? part : { type: 'summary', text: alert, source: LETTA }
      })
    }
    const messageRole: Role = role === 'approval' ? 'assistant' : (role as Role)
    if (messageRole === 'assistant') parts.push(...toolCalls(calls, at, `${pointer}/tool_calls`))
    if (parts.length === 0) parts.push({ type: 'text', text: '' })
    return push(messageRole, parts)
  })
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format: 'letta', messages, pairs, unpaired, ...(warnings.length > 0 ? { warnings } : {}) }
}

/** Letta agent files (`.af`), read only: the first agent's messages. */
export const lettaFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'letta',
  layout: 'document',
  detect: detectLetta,
  read: readLetta,
}

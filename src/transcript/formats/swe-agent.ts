/**
 * SWE-agent trajectories (`.traj`, one JSON document): `{environment, trajectory, history, info, …}`. The
 * transcript is `history` (the chat as the model saw it); `trajectory` and `info` are kept in the envelope.
 *
 * Mapping decisions:
 * - **Function-calling layout** (assistant messages with `tool_calls`): the OpenAI tool calls become tool-call
 *   parts (arguments parsed from their JSON string), `role: "tool"` messages become tool results for each id in
 *   `tool_call_ids`. Assistant text is `content`.
 * - **Text-action layout** (assistant messages with an `action` string and no `tool_calls`): the action becomes
 *   a tool call with a synthesized id `step-N` (N = 1-based action count), name = the action's first word,
 *   arguments `{command: action}`; the assistant text is `thought` (the content minus the repeated action block;
 *   `content` when there is no thought). The next `user` message is the observation: a `tool` message with the
 *   result for `step-N`. A last action with no observation in `history` stays an unpaired call.
 * - Demonstration messages (`is_demo: true`) are kept as user messages (they are in the prompt the model saw) and
 *   never become observations; their count is in `envelope.demos`.
 * - Roles other than system/user/assistant/tool are an error naming the history index.
 */
import { InvalidInputError } from '../../errors.js'
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { assertJsonDepth, parseJson } from '../json.js'
import { pairToolCalls } from '../render.js'
import { arrayField, expectObject, fail, type FieldLocation, parseArguments, stringField } from './_log.js'

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

/**
 * Scores a head as a `.traj` document: a JSON object whose top-level keys include `trajectory` (and `history`), or
 * one holding only `history` whose messages carry SWE-agent's own keys (`agent`, `message_type`, `thought`, `action`).
 */
export function detectSweAgent(head: string): number {
  const start = head.trimStart()
  if (start.charCodeAt(0) !== 123) return 0
  // Key order differs between SWE-agent versions; either key near the top marks the document.
  const trajectory = /"trajectory"\s*:\s*\[/.test(start)
  const history = /"history"\s*:\s*\[/.test(start)
  if (trajectory && history) return 0.95
  // Newer files put a long `trajectory` first: its steps' `action` / `observation` keys mark them.
  if (trajectory && /"action"\s*:/.test(start) && /"observation"\s*:/.test(start)) return 0.9
  // A trajectory cut down to its `history` (what the model saw): SWE-agent's message keys mark it.
  if (history && /"role"\s*:/.test(start) && /"(agent|message_type|thought|is_demo)"\s*:/.test(start)) return 0.9
  return 0
}

async function readSweAgent(source: Parameters<TranscriptFormatV1['read']>[0], options: Parameters<TranscriptFormatV1['read']>[1] = {}): Promise<Transcript> {
  const keepSource = options.keepSource ?? true
  const file = source.name
  const document = parseJson(await source.text(), file)
  assertJsonDepth(document, file)
  const at: FieldLocation = { file }
  const root = expectObject(document, at, '/', 'a trajectory object')
  const history = arrayField(root, 'history', at, '')
  const messages: Message[] = []
  let step = 0
  let pendingStep: string | undefined
  let demos = 0
  history.forEach((entry, index) => {
    const pointer = `/history/${index}`
    const record = expectObject(entry, at, pointer, 'a history message object')
    const role = record['role']
    if (typeof role !== 'string' || !ROLES.has(role)) fail(at, `${pointer}/role`, '"system", "user", "assistant" or "tool"', role)
    const content = textContent(record['content'], at, `${pointer}/content`)
    const base = { provenance: { pointer }, ...(keepSource ? { source: record } : {}) }
    const demo = record['is_demo'] === true
    if (demo) demos++
    let parts: Part[]
    let mapped = role as Role
    if (role === 'assistant') {
      const toolCalls = record['tool_calls']
      parts = []
      if (Array.isArray(toolCalls) && toolCalls.length > 0) {
        if (content.length > 0) parts.push({ type: 'text', text: content })
        toolCalls.forEach((call, callIndex) => {
          const callPointer = `${pointer}/tool_calls/${callIndex}`
          const callRecord = expectObject(call, at, callPointer, 'an OpenAI tool call object')
          const fn = expectObject(callRecord['function'], at, `${callPointer}/function`)
          const args = fn['arguments']
          parts.push({
            type: 'tool-call',
            id: stringField(callRecord, 'id', at, callPointer),
            name: stringField(fn, 'name', at, `${callPointer}/function`),
            arguments: typeof args === 'string' ? parseArguments(args, at) : (args ?? {}),
          })
        })
        pendingStep = undefined
      } else if (typeof record['action'] === 'string' && record['action'].trim().length > 0) {
        const action = record['action']
        // `thought` is the content without the action block; an empty thought means the content was only the action.
        const thought = typeof record['thought'] === 'string' ? record['thought'].trim() : content
        if (thought.length > 0) parts.push({ type: 'text', text: thought })
        step++
        pendingStep = `step-${step}`
        parts.push({ type: 'tool-call', id: pendingStep, name: firstWord(action), arguments: { command: action } })
      } else {
        parts.push({ type: 'text', text: content })
        pendingStep = undefined
      }
    } else if (role === 'tool') {
      const ids = record['tool_call_ids']
      const callIds = Array.isArray(ids) ? ids : typeof record['tool_call_id'] === 'string' ? [record['tool_call_id']] : undefined
      if (callIds === undefined || callIds.length === 0) fail(at, `${pointer}/tool_call_ids`, 'an array of tool call ids', ids)
      parts = callIds.map((id, idIndex) => {
        if (typeof id !== 'string') fail(at, `${pointer}/tool_call_ids/${idIndex}`, 'a string', id)
        return { type: 'tool-result', callId: id, content, isError: false }
      })
      pendingStep = undefined
    } else if (role === 'user' && pendingStep !== undefined && !demo) {
      mapped = 'tool'
      parts = [{ type: 'tool-result', callId: pendingStep, content, isError: false }]
      pendingStep = undefined
    } else {
      parts = [{ type: 'text', text: content }]
      if (role === 'user') pendingStep = undefined
    }
    messages.push({ role: mapped, parts, ...base })
  })
  const { pairs, unpaired } = pairToolCalls(messages)
  // The document minus `history` (a writer-free format, but reports want `info.model_stats`, `trajectory`).
  const envelope: Record<string, unknown> = {}
  for (const key of Object.keys(root)) if (key !== 'history' && (keepSource || key === 'info')) envelope[key] = root[key]
  envelope['demos'] = demos
  return { format: 'swe-agent', messages, pairs, unpaired, envelope }
}

function textContent(content: unknown, at: FieldLocation, pointer: string): string {
  if (typeof content === 'string') return content
  if (content === null || content === undefined) return ''
  // Some SWE-agent versions store OpenAI-style content part arrays.
  if (Array.isArray(content)) {
    return content
      .map((part, index) => {
        const record = expectObject(part, at, `${pointer}/${index}`)
        return typeof record['text'] === 'string' ? record['text'] : `[${String(record['type'] ?? 'part')}]`
      })
      .join('\n')
  }
  throw new InvalidInputError(`expected a string or an array of content parts, got ${Array.isArray(content) ? 'an array' : typeof content}`, { file: at.file, field: pointer })
}

function firstWord(action: string): string {
  const trimmed = action.trimStart()
  let end = 0
  while (end < trimmed.length && !/\s/.test(trimmed[end]!)) end++
  return end > 0 ? trimmed.slice(0, end) : 'action'
}

/** SWE-agent `.traj` trajectories (text-action and function-calling layouts), read from `history`. */
export const sweAgentFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'swe-agent',
  layout: 'document',
  detect: detectSweAgent,
  read: readSweAgent,
}

import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, ToolResultPart, Transcript } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import {
  type CarriedItem,
  type DocumentContext,
  type NormalizedRecord,
  carryItem,
  expectArray,
  expectRecord,
  expectString,
  fail,
  finishTranscript,
  isUnchanged,
  nonEmpty,
  parseArguments,
  placeholder,
  pointerTo,
  readJsonDocument,
  refuseUiMessage,
  stringifyArguments,
  stringifyDocument,
  toMessage,
  unwrapArray,
  wrapArray,
  writeWithCarried,
} from './_document.js'
import { messageArrayScores } from './_signals.js'

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const

/**
 * Legacy `function_call` ids. The old API had no call ids: a `role: 'function'` message answers the latest
 * unanswered `function_call` of the same name. We name each call `function_call:<pointer of its message>`
 * (stable for a given file); a `function` message with no open call gets `function:<its own pointer>` and is
 * reported as unpaired.
 */
interface LegacyCalls {
  readonly open: Map<string, string[]>
}

function newLegacyCalls(): LegacyCalls {
  return { open: new Map() }
}

/** Text of a `content` value that may only hold text: a string, null, or `text` parts (joined with '\n'). */
function textContent(context: DocumentContext, content: unknown, pointer: string): string {
  if (content === null || content === undefined) return ''
  if (typeof content === 'string') return expectString(context, content, pointer)
  return contentParts(context, content, pointer)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n')
}

/**
 * Content parts as normalized parts. `text` and `refusal` keep their text; `image_url` → `[image]`,
 * `input_audio` → `[audio]`, `file` → `[file: filename]` (the filename, or the file id when there is none).
 */
function contentParts(context: DocumentContext, content: unknown, pointer: string): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: expectString(context, content, pointer) }]
  if (content === null || content === undefined) return []
  const parts = expectArray(context, content, pointer, 'a string, null or an array of content parts')
  return parts.map((raw, index): Part => {
    const at = pointerTo(pointer, index)
    const part = expectRecord(context, raw, at, 'a content part object')
    switch (part.type) {
      case 'text':
        return { type: 'text', text: expectString(context, part.text, pointerTo(at, 'text')) }
      case 'refusal':
        return { type: 'text', text: expectString(context, part.refusal, pointerTo(at, 'refusal')) }
      case 'image_url':
        return { type: 'text', text: placeholder('image') }
      case 'input_audio':
        return { type: 'text', text: placeholder('audio') }
      case 'file': {
        const file = part.file
        const label = typeof file === 'object' && file !== null ? ((file as Record<string, unknown>).filename ?? (file as Record<string, unknown>).file_id) : undefined
        return { type: 'text', text: placeholder('file', label) }
      }
      default:
        return fail(context, pointerTo(at, 'type'), 'a content part type of text, image_url, input_audio, file or refusal', part.type)
    }
  })
}

/** Normalizes one Chat Completions message. */
function normalizeRecord(context: DocumentContext, raw: unknown, pointer: string, legacy: LegacyCalls): NormalizedRecord {
  const record = expectRecord(context, raw, pointer, 'a message object')
  const role = record.role
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) fail(context, pointerTo(pointer, 'role'), `one of ${ROLES.join(', ')}`, role)
  refuseUiMessage(context, record, pointer)
  // `"name": null` is how SDK dumps write "no name".
  const name = record.name === undefined || record.name === null ? undefined : expectString(context, record.name, pointerTo(pointer, 'name'))
  const at = (key: string): string => pointerTo(pointer, key)
  const parts: Part[] = []
  let normalizedRole: Role
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      normalizedRole = role === 'user' ? 'user' : 'system'
      // Required by the API: a message without it (another API's message, `parts` say) must not read as empty.
      if (record.content === undefined) fail(context, at('content'), 'a string or an array of content parts', undefined)
      parts.push(...contentParts(context, record.content, at('content')))
      break
    case 'assistant': {
      normalizedRole = 'assistant'
      // DeepSeek/vLLM `reasoning_content` and OpenRouter `reasoning` carry the model's reasoning text.
      for (const key of ['reasoning_content', 'reasoning']) {
        if (typeof record[key] === 'string' && record[key] !== '') parts.push({ type: 'reasoning', text: expectString(context, record[key], at(key)) })
      }
      parts.push(...contentParts(context, record.content, at('content')))
      if (typeof record.refusal === 'string') parts.push({ type: 'text', text: expectString(context, record.refusal, at('refusal')) })
      if (record.tool_calls !== undefined && record.tool_calls !== null) {
        expectArray(context, record.tool_calls, at('tool_calls')).forEach((rawCall, index) => {
          const callAt = pointerTo(at('tool_calls'), index)
          const call = expectRecord(context, rawCall, callAt, 'a tool call object')
          const id = expectString(context, call.id, pointerTo(callAt, 'id'))
          if (call.type === 'custom') {
            const custom = expectRecord(context, call.custom, pointerTo(callAt, 'custom'))
            parts.push({
              type: 'tool-call',
              id,
              name: expectString(context, custom.name, pointerTo(pointerTo(callAt, 'custom'), 'name')),
              arguments: expectString(context, custom.input, pointerTo(pointerTo(callAt, 'custom'), 'input')),
            })
            return
          }
          const fn = expectRecord(context, call.function, pointerTo(callAt, 'function'), 'a function object {name, arguments}')
          const fnAt = pointerTo(callAt, 'function')
          parts.push({
            type: 'tool-call',
            id,
            name: expectString(context, fn.name, pointerTo(fnAt, 'name')),
            arguments: parseArguments(context, fn.arguments ?? '{}', pointerTo(fnAt, 'arguments')),
          })
        })
      }
      if (record.content === undefined && record.tool_calls == null && record.function_call == null && record.refusal == null && parts.length === 0) {
        fail(context, at('content'), 'a string or an array of content parts (or `tool_calls`)', undefined)
      }
      if (record.function_call !== undefined && record.function_call !== null) {
        const fn = expectRecord(context, record.function_call, at('function_call'), 'a function_call object {name, arguments}')
        const fnName = expectString(context, fn.name, pointerTo(at('function_call'), 'name'))
        const id = `function_call:${pointer}`
        const queue = legacy.open.get(fnName)
        if (queue) queue.push(id)
        else legacy.open.set(fnName, [id])
        parts.push({ type: 'tool-call', id, name: fnName, arguments: parseArguments(context, fn.arguments ?? '{}', pointerTo(at('function_call'), 'arguments')) })
      }
      break
    }
    case 'tool': {
      normalizedRole = 'tool'
      const callId = expectString(context, record.tool_call_id, at('tool_call_id'))
      parts.push({ type: 'tool-result', callId, content: textContent(context, record.content, at('content')), isError: false })
      break
    }
    default: {
      normalizedRole = 'tool'
      const fnName = expectString(context, record.name, at('name'), 'a function name (role "function" needs `name`)')
      const callId = legacy.open.get(fnName)?.shift() ?? `function:${pointer}`
      parts.push({ type: 'tool-result', callId, name: fnName, content: textContent(context, record.content, at('content')), isError: false })
    }
  }
  return { role: normalizedRole, parts: nonEmpty(parts), ...(name === undefined ? {} : { name }) }
}

async function read(source: Parameters<TranscriptFormatV1['read']>[0], options?: Parameters<TranscriptFormatV1['read']>[1]): Promise<Transcript> {
  const { value, context } = await readJsonDocument(source, options)
  const { items, base, envelope } = unwrapArray(context, value, ['messages'], 'an array of Chat Completions messages or an object with `messages`')
  const legacy = newLegacyCalls()
  const messages: Message[] = []
  const carried: CarriedItem[] = []
  const warnings: string[] = []
  let previous: string | undefined
  items.forEach((item, index) => {
    const pointer = pointerTo(base, index)
    const role = isRecord(item) ? item.role : undefined
    if (typeof role === 'string' && !(ROLES as readonly string[]).includes(role)) {
      const carry = carryItem(context, item, pointer, previous, `role ${JSON.stringify(role)} is not a Chat Completions role (${ROLES.join(', ')})`)
      carried.push(carry.carried)
      warnings.push(carry.warning)
      return
    }
    messages.push(toMessage(context, normalizeRecord(context, item, pointer, legacy), pointer, item))
    previous = pointer
  })
  return finishTranscript('openai', messages, carried.length > 0 ? { ...envelope, carried } : envelope, warnings)
}

/** Native records for a message that has no (or a stale) source. */
function synthesize(message: Message): unknown[] {
  const name = message.name === undefined ? {} : { name: message.name }
  // One text part → a string; several → text parts, so each reads back as the part it was.
  const text = (parts: readonly Part[]): string | Array<{ type: 'text'; text: string }> => {
    const texts = parts.filter((part) => part.type === 'text' || part.type === 'summary').map((part) => (part as { text: string }).text)
    return texts.length === 0 ? '' : texts.length === 1 ? texts[0]! : texts.map((item) => ({ type: 'text' as const, text: item }))
  }
  const results = message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result')
  const others = message.parts.filter((part) => part.type !== 'tool-result')
  const records: unknown[] = []
  if (message.role === 'assistant') {
    const reasoning = others.filter((part) => part.type === 'reasoning').map((part) => (part as { text: string }).text)
    const calls = others.flatMap((part) =>
      part.type === 'tool-call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: stringifyArguments(part.arguments) } }] : [],
    )
    const content = text(others)
    const hasText = others.some((part) => part.type === 'text' || part.type === 'summary')
    records.push({
      role: 'assistant',
      ...name,
      content: !hasText && calls.length > 0 ? null : content,
      ...(reasoning.length > 0 ? { reasoning_content: reasoning.join('\n') } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    })
  } else if (others.length > 0 || results.length === 0) {
    records.push({ role: message.role === 'tool' ? 'user' : message.role, ...name, content: text(others) })
  }
  for (const result of results) records.push({ role: 'tool', tool_call_id: result.callId, content: result.content })
  return records
}

function write(transcript: Transcript): string {
  const legacy = newLegacyCalls()
  const context: DocumentContext = { file: '<write>', keepSource: false }
  const items = writeWithCarried(transcript.envelope, transcript.messages, (message) => {
    const pointer = message.provenance?.pointer ?? ''
    const legacyRecord =
      typeof message.source === 'object' && message.source !== null && ('function_call' in message.source || (message.source as { role?: unknown }).role === 'function')
    // Legacy ids are positional; compare legacy records with their ids taken from the message itself.
    const unchanged = isUnchanged(message, (source) => {
      const again = normalizeRecord(context, source, pointer, legacy)
      if (!legacyRecord) return again
      return { ...again, parts: again.parts.map((part, index) => withIdOf(part, message.parts[index])) }
    })
    return unchanged ? [message.source] : synthesize(message)
  })
  return stringifyDocument(wrapArray(transcript.envelope, items))
}

function withIdOf(part: Part, original: Part | undefined): Part {
  if (part.type === 'tool-call' && original?.type === 'tool-call') return { ...part, id: original.id }
  if (part.type === 'tool-result' && original?.type === 'tool-result') return { ...part, callId: original.callId }
  return part
}

/**
 * OpenAI Chat Completions messages: an array, or an object with `messages` (its other keys kept for writing).
 *
 * Roles: `developer` reads as `system`; `tool` and legacy `function` as `tool`. Content: a string, null, or
 * parts (`text`, `refusal`; `image_url` → `[image]`, `input_audio` → `[audio]`, `file` → `[file: name]`).
 * `tool_calls[].function.arguments` is parsed as JSON (kept raw when it is not JSON); `reasoning_content`
 * (DeepSeek, vLLM) and `reasoning` (OpenRouter) become reasoning parts. A legacy `function_call` gets the
 * id `function_call:<pointer>` and pairs with the next `role: 'function'` message of the same name.
 * Writing returns unchanged messages' records exactly; new messages are written as modern `tool_calls` /
 * `role: 'tool'` records (a summary as a text message of its own role). A message of a role outside those (an agent
 * harness's `{"role": "exit", …}`) is not read: it is kept in the envelope as it is, reported as a warning, and
 * written back in place (see {@link CarriedItem}), so no summary can take it in.
 */
export const openaiFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'openai',
  layout: 'document',
  detect: (head) => messageArrayScores(head).openai,
  read,
  write,
}

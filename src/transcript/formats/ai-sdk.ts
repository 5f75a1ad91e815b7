import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { stableJson } from '../render.js'
import { isRecord } from '../_json-prefix.js'
import {
  type ArrayEnvelope,
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
  optionalBoolean,
  placeholder,
  pointerTo,
  readJsonDocument,
  refuseUiMessage,
  stringifyDocument,
  toMessage,
  unwrapArray,
  writeWithCarried,
} from './_document.js'
import { messageArrayScores } from './_signals.js'

const ROLES = ['system', 'user', 'assistant', 'tool'] as const

/**
 * A tool result's `output` as text and error flag. `text` / `error-text` → the value; `json` / `error-json` →
 * the value's JSON; `execution-denied` → `[execution denied: reason]` (an error); `content` → its items joined
 * with '\n' (`text` as is, media and images → `[image]`, files → `[file: name]`).
 */
function outputText(context: DocumentContext, output: unknown, pointer: string): { content: string; isError: boolean } {
  const record = expectRecord(context, output, pointer, 'a tool output object {type, value}')
  const at = pointerTo(pointer, 'value')
  switch (record.type) {
    case 'text':
      return { content: expectString(context, record.value, at), isError: false }
    case 'error-text':
      return { content: expectString(context, record.value, at), isError: true }
    case 'json':
      return { content: stableJson(record.value), isError: false }
    case 'error-json':
      return { content: stableJson(record.value), isError: true }
    case 'execution-denied':
      return { content: placeholder('execution denied', record.reason), isError: true }
    case 'content': {
      const items = expectArray(context, record.value, at)
      const content = items
        .map((raw, index) => {
          const itemAt = pointerTo(at, index)
          const item = expectRecord(context, raw, itemAt, 'a content item object')
          switch (item.type) {
            case 'text':
              return expectString(context, item.text, pointerTo(itemAt, 'text'))
            case 'media':
            case 'image-data':
            case 'image-url':
            case 'image-file-id':
              return placeholder('image')
            case 'file-data':
            case 'file-url':
            case 'file-id':
              return placeholder('file', item.filename ?? item.url)
            default:
              return placeholder(typeof item.type === 'string' ? item.type : 'content')
          }
        })
        .join('\n')
      return { content, isError: false }
    }
    default:
      return fail(context, pointerTo(pointer, 'type'), 'an output type of text, json, error-text, error-json, execution-denied or content', record.type)
  }
}

function toolResult(context: DocumentContext, part: Record<string, unknown>, at: string): Part {
  const callId = expectString(context, part.toolCallId, pointerTo(at, 'toolCallId'))
  const name = part.toolName === undefined ? undefined : expectString(context, part.toolName, pointerTo(at, 'toolName'))
  // AI SDK v4 used `result` (any value) and `isError`; v5+ use `output`.
  const { content, isError } =
    part.output === undefined && 'result' in part
      ? {
          content: typeof part.result === 'string' ? part.result : stableJson(part.result),
          isError: optionalBoolean(context, part, 'isError', at),
        }
      : outputText(context, part.output, pointerTo(at, 'output'))
  return { type: 'tool-result', callId, ...(name === undefined ? {} : { name }), content, isError }
}

const PART_TYPES: Record<Role, string> = {
  system: 'text',
  user: 'text, image or file',
  assistant: 'text, file, reasoning, redacted-reasoning, tool-call, tool-result or tool-approval-request',
  tool: 'tool-result or tool-approval-response',
}

function contentParts(context: DocumentContext, role: Role, content: unknown, pointer: string): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: expectString(context, content, pointer) }]
  const parts = expectArray(context, content, pointer, role === 'tool' ? 'an array of tool-result parts' : 'a string or an array of parts')
  return parts.map((raw, index): Part => {
    const at = pointerTo(pointer, index)
    const part = expectRecord(context, raw, at, 'a part object')
    const allowed = PART_TYPES[role]
    const type = typeof part.type === 'string' ? part.type : ''
    if (!allowed.split(/, | or /).includes(type)) fail(context, pointerTo(at, 'type'), `a ${role} part type of ${allowed}`, part.type)
    switch (type) {
      case 'text':
        return { type: 'text', text: expectString(context, part.text, pointerTo(at, 'text')) }
      case 'image':
        return { type: 'text', text: placeholder('image') }
      case 'file':
        return { type: 'text', text: placeholder('file', part.filename ?? part.mediaType) }
      case 'reasoning':
        return { type: 'reasoning', text: expectString(context, part.text, pointerTo(at, 'text')) }
      case 'redacted-reasoning':
        return { type: 'reasoning', text: placeholder('redacted reasoning') }
      case 'tool-call':
        return {
          type: 'tool-call',
          id: expectString(context, part.toolCallId, pointerTo(at, 'toolCallId')),
          name: expectString(context, part.toolName, pointerTo(at, 'toolName')),
          // v4 named the arguments `args`.
          arguments: part.input !== undefined ? part.input : (part.args ?? {}),
        }
      case 'tool-result':
        return toolResult(context, part, at)
      case 'tool-approval-request':
        return { type: 'text', text: placeholder('tool approval requested', part.toolCallId) }
      default:
        return { type: 'text', text: placeholder(part.approved === true ? 'tool approval granted' : 'tool approval denied', part.approvalId) }
    }
  })
}

/** Normalizes one `ModelMessage`. */
function normalizeRecord(context: DocumentContext, raw: unknown, pointer: string): NormalizedRecord {
  const record = expectRecord(context, raw, pointer, 'a ModelMessage object')
  const role = record.role
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) fail(context, pointerTo(pointer, 'role'), `one of ${ROLES.join(', ')}`, role)
  if (record.content === undefined && Array.isArray(record.parts)) {
    fail(context, pointerTo(pointer, 'content'), 'a ModelMessage `content` (this is a UIMessage; convert it with convertToModelMessages)', undefined)
  }
  refuseUiMessage(context, record, pointer)
  const at = pointerTo(pointer, 'content')
  if (role === 'system') return { role: 'system', parts: [{ type: 'text', text: expectString(context, record.content, at, 'a string (system content)') }] }
  return { role: role as Role, parts: nonEmpty(contentParts(context, role as Role, record.content, at)) }
}

async function read(source: Parameters<TranscriptFormatV1['read']>[0], options?: Parameters<TranscriptFormatV1['read']>[1]): Promise<Transcript> {
  const { value, context } = await readJsonDocument(source, options)
  const { items, base, envelope } = unwrapArray(context, value, ['messages'], 'an array of AI SDK ModelMessages or an object with `messages`')
  const messages: Message[] = []
  // `generateText({ system, messages })`: the top-level system prompt reads as a first system message.
  if (envelope.kind === 'object' && envelope.object.system !== undefined) {
    const system = expectString(context, envelope.object.system, '/system')
    messages.push(toMessage(context, { role: 'system', parts: [{ type: 'text', text: system }] }, '/system', system))
  }
  const carried: CarriedItem[] = []
  const warnings: string[] = []
  let previous: string | undefined
  items.forEach((item, index) => {
    const pointer = pointerTo(base, index)
    const role = isRecord(item) ? item.role : undefined
    if (typeof role === 'string' && !(ROLES as readonly string[]).includes(role)) {
      const carry = carryItem(context, item, pointer, previous, `role ${JSON.stringify(role)} is not a ModelMessage role (${ROLES.join(', ')})`)
      carried.push(carry.carried)
      warnings.push(carry.warning)
      return
    }
    messages.push(toMessage(context, normalizeRecord(context, item, pointer), pointer, item))
    previous = pointer
  })
  return finishTranscript('ai-sdk', messages, carried.length > 0 ? { ...envelope, carried } : envelope, warnings)
}

function synthesize(message: Message): unknown[] {
  if (message.role === 'system') return [{ role: 'system', content: message.parts.map((part) => ('text' in part ? part.text : '')).join('\n') }]
  const converted = message.parts.map((part) => {
    switch (part.type) {
      case 'text':
      case 'summary':
        return { type: 'text', text: part.text }
      case 'reasoning':
        return { type: 'reasoning', text: part.text }
      case 'tool-call':
        return { type: 'tool-call', toolCallId: part.id, toolName: part.name, input: part.arguments ?? {} }
      case 'tool-result':
        return {
          type: 'tool-result',
          toolCallId: part.callId,
          toolName: part.name ?? '',
          output: { type: part.isError ? 'error-text' : 'text', value: part.content },
        }
    }
  })
  if (message.role === 'tool') {
    // A tool message holds only results; any other part goes in a user message after it.
    const results = converted.filter((part) => part.type === 'tool-result')
    const rest = converted.filter((part) => part.type !== 'tool-result')
    return [...(results.length > 0 ? [{ role: 'tool', content: results }] : []), ...(rest.length > 0 ? [{ role: 'user', content: rest }] : [])]
  }
  if (message.role === 'user') {
    // User content may not hold tool parts: they move to an assistant / tool message of their own.
    const text = converted.filter((part) => part.type === 'text')
    const calls = converted.filter((part) => part.type === 'tool-call' || part.type === 'reasoning')
    const results = converted.filter((part) => part.type === 'tool-result')
    return [
      ...(text.length > 0 || (calls.length === 0 && results.length === 0) ? [{ role: 'user', content: text }] : []),
      ...(calls.length > 0 ? [{ role: 'assistant', content: calls }] : []),
      ...(results.length > 0 ? [{ role: 'tool', content: results }] : []),
    ]
  }
  return [{ role: 'assistant', content: converted }]
}

function write(transcript: Transcript): string {
  const context: DocumentContext = { file: '<write>', keepSource: false }
  const envelope = (transcript.envelope as ArrayEnvelope | undefined) ?? { kind: 'array' }
  const hadSystemKey = envelope.kind === 'object' && envelope.object.system !== undefined
  let system: unknown
  const items = writeWithCarried(envelope, transcript.messages, (message, index) => {
    if (index === 0 && hadSystemKey && message.role === 'system' && message.provenance?.pointer === '/system' && typeof message.source === 'string') {
      if (isUnchanged(message, (source) => ({ role: 'system', parts: [{ type: 'text', text: source as string }] }))) {
        system = message.source
        return []
      }
    }
    return isUnchanged(message, (source) => normalizeRecord(context, source, '')) ? [message.source] : synthesize(message)
  })
  if (envelope.kind === 'array') return stringifyDocument(items)
  const object: Record<string, unknown> = { ...envelope.object }
  if (system === undefined) delete object.system
  else object.system = system
  object[envelope.key] = items
  return stringifyDocument(object)
}

/**
 * Vercel AI SDK `ModelMessage[]` (v5/v6; v4 `args` / `result` / `isError` accepted): an array, or an object
 * with `messages` and an optional top-level `system` string (as passed to `generateText`).
 *
 * Parts: `text`; `reasoning` → reasoning; `tool-call` → tool call (`input`); `tool-result` → tool result
 * (output `text` / `json` / `content` → text, `error-text` / `error-json` / `execution-denied` → isError);
 * `image` → `[image]`, `file` → `[file: filename or media type]`; tool approval requests and responses →
 * short text placeholders. A UIMessage (`parts`, no `content`) is refused with a hint to convert it. A message of
 * another role is kept aside as it is, reported, and written back in place (see {@link CarriedItem}).
 */
export const aiSdkFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'ai-sdk',
  layout: 'document',
  detect: (head) => messageArrayScores(head)['ai-sdk'],
  read,
  write,
}

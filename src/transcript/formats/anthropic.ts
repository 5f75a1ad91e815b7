import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Transcript } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import { stableJson } from '../render.js'
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

const BLOCK_TYPES =
  'text, image, document, search_result, tool_use, server_tool_use, mcp_tool_use, tool_result, mcp_tool_result, *_tool_result, thinking, redacted_thinking or compaction'

/**
 * Text of a tool result's content: a string, or blocks joined with '\n' — `text` as is, `image` → `[image]`,
 * `document` → `[document: title]`, `search_result` → `[search result: title]`, a web search hit → its title
 * and URL; anything else → `[type]`.
 */
function resultText(context: DocumentContext, content: unknown, pointer: string): string {
  if (content === undefined || content === null) return ''
  if (typeof content === 'string') return expectString(context, content, pointer)
  if (isRecord(content)) {
    // Server tool results (e.g. a code execution result) carry an object; its JSON is the result text.
    return stableJson(content)
  }
  return expectArray(context, content, pointer, 'a string or an array of content blocks')
    .map((raw, index) => {
      const at = pointerTo(pointer, index)
      const block = expectRecord(context, raw, at, 'a content block object')
      switch (block.type) {
        case 'text':
          return expectString(context, block.text, pointerTo(at, 'text'))
        case 'image':
          return placeholder('image')
        case 'document':
          return placeholder('document', block.title)
        case 'search_result':
          return placeholder('search result', block.title)
        case 'web_search_result':
          return [block.title, block.url].filter((item) => typeof item === 'string').join('\n')
        default:
          return placeholder(typeof block.type === 'string' ? block.type : 'block')
      }
    })
    .join('\n')
}

function blockParts(context: DocumentContext, content: unknown, pointer: string): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: expectString(context, content, pointer) }]
  const blocks = expectArray(context, content, pointer, 'a string or an array of content blocks')
  return blocks.map((raw, index): Part => {
    const at = pointerTo(pointer, index)
    const block = expectRecord(context, raw, at, 'a content block object')
    const type = block.type
    switch (type) {
      case 'text':
        return { type: 'text', text: expectString(context, block.text, pointerTo(at, 'text')) }
      case 'image':
        return { type: 'text', text: placeholder('image') }
      case 'document':
        return { type: 'text', text: placeholder('document', block.title) }
      case 'search_result':
        return { type: 'text', text: placeholder('search result', block.title) }
      case 'thinking':
        return { type: 'reasoning', text: expectString(context, block.thinking, pointerTo(at, 'thinking')) }
      case 'redacted_thinking':
        return { type: 'reasoning', text: placeholder('redacted thinking') }
      case 'compaction':
        // The API's server-side compaction: its summary stands for the turns before it (null when none was made).
        return { type: 'summary', text: block.content === null ? placeholder('compaction') : expectString(context, block.content, pointerTo(at, 'content')), source: 'anthropic' }
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use':
        return {
          type: 'tool-call',
          id: expectString(context, block.id, pointerTo(at, 'id')),
          name: expectString(context, block.name, pointerTo(at, 'name')),
          arguments: block.input ?? {},
        }
      default: {
        if (type === 'tool_result' || type === 'mcp_tool_result' || (typeof type === 'string' && type.endsWith('_tool_result'))) {
          const content = block.content
          const errorContent = isRecord(content) && typeof content.type === 'string' && content.type.endsWith('_error')
          return {
            type: 'tool-result',
            callId: expectString(context, block.tool_use_id, pointerTo(at, 'tool_use_id')),
            content: resultText(context, content, pointerTo(at, 'content')),
            isError: optionalBoolean(context, block, 'is_error', at) || errorContent,
          }
        }
        return fail(context, pointerTo(at, 'type'), `a content block type of ${BLOCK_TYPES}`, type)
      }
    }
  })
}

/**
 * Normalizes one Messages API message. A user message of tool results only reads as role `tool`; a `system` message
 * inside `messages` (which the API accepts) reads as a system message where it stands.
 */
function normalizeRecord(context: DocumentContext, raw: unknown, pointer: string): NormalizedRecord {
  const record = expectRecord(context, raw, pointer, 'a message object')
  refuseUiMessage(context, record, pointer)
  const role = record.role
  if (role !== 'user' && role !== 'assistant' && role !== 'system') fail(context, pointerTo(pointer, 'role'), 'role "user", "assistant" or "system"', role)
  const parts = blockParts(context, record.content, pointerTo(pointer, 'content'))
  const allResults = parts.length > 0 && parts.every((part) => part.type === 'tool-result')
  return { role: role === 'user' && allResults ? 'tool' : role, parts: nonEmpty(parts) }
}

/** Normalizes the top-level `system`: a string or text blocks. */
function normalizeSystem(context: DocumentContext, system: unknown, pointer: string): NormalizedRecord {
  if (typeof system === 'string') return { role: 'system', parts: [{ type: 'text', text: expectString(context, system, pointer) }] }
  const blocks = expectArray(context, system, pointer, 'a string or an array of text blocks')
  const parts = blocks.map((raw, index): Part => {
    const at = pointerTo(pointer, index)
    const block = expectRecord(context, raw, at, 'a text block object')
    if (block.type !== 'text') fail(context, pointerTo(at, 'type'), 'a system block of type "text"', block.type)
    return { type: 'text', text: expectString(context, block.text, pointerTo(at, 'text')) }
  })
  return { role: 'system', parts: nonEmpty(parts) }
}

async function read(source: Parameters<TranscriptFormatV1['read']>[0], options?: Parameters<TranscriptFormatV1['read']>[1]): Promise<Transcript> {
  const { value, context } = await readJsonDocument(source, options)
  const { items, base, envelope } = unwrapArray(context, value, ['messages'], 'an array of Messages API messages or an object with `messages`')
  const messages: Message[] = []
  if (envelope.kind === 'object' && envelope.object.system !== undefined) {
    messages.push(toMessage(context, normalizeSystem(context, envelope.object.system, '/system'), '/system', envelope.object.system))
  }
  const carried: CarriedItem[] = []
  const warnings: string[] = []
  let previous: string | undefined
  items.forEach((item, index) => {
    const pointer = pointerTo(base, index)
    const role = isRecord(item) ? item.role : undefined
    if (typeof role === 'string' && role !== 'user' && role !== 'assistant' && role !== 'system') {
      const carry = carryItem(context, item, pointer, previous, `role ${JSON.stringify(role)} is not a Messages API role (user, assistant, system)`)
      carried.push(carry.carried)
      warnings.push(carry.warning)
      return
    }
    messages.push(toMessage(context, normalizeRecord(context, item, pointer), pointer, item))
    previous = pointer
  })
  return finishTranscript('anthropic', messages, carried.length > 0 ? { ...envelope, carried } : envelope, warnings)
}

function text(parts: readonly Part[]): string {
  return parts
    .map((part) => (part.type === 'text' || part.type === 'summary' || part.type === 'reasoning' ? part.text : part.type === 'tool-result' ? part.content : ''))
    .join('\n')
}

/** A native message for a message that has no (or a stale) source. */
function synthesize(message: Message): unknown {
  const blocks = message.parts.map((part) => {
    switch (part.type) {
      case 'text':
      case 'summary':
        return { type: 'text', text: part.text }
      case 'reasoning':
        return { type: 'thinking', thinking: part.text }
      case 'tool-call':
        return { type: 'tool_use', id: part.id, name: part.name, input: part.arguments ?? {} }
      case 'tool-result':
        return { type: 'tool_result', tool_use_id: part.callId, content: part.content, ...(part.isError ? { is_error: true } : {}) }
    }
  })
  return { role: message.role === 'assistant' ? 'assistant' : 'user', content: blocks }
}

/** Whether a system message was read from a `{"role": "system"}` record of `messages` and is unchanged since. */
function isSystemRecord(message: Message): boolean {
  const context: DocumentContext = { file: '<write>', keepSource: false }
  return isRecord(message.source) && message.source.role === 'system' && isUnchanged(message, (source) => normalizeRecord(context, source, ''))
}

function write(transcript: Transcript): string {
  const context: DocumentContext = { file: '<write>', keepSource: false }
  const envelope = (transcript.envelope as ArrayEnvelope | undefined) ?? { kind: 'array' }
  let index = 0
  // Leading system messages become the top-level `system` (a system record read from `messages` stays there); a new
  // system message later on is written as user text.
  const leading: Message[] = []
  while (index < transcript.messages.length && transcript.messages[index]!.role === 'system' && !isSystemRecord(transcript.messages[index]!)) {
    leading.push(transcript.messages[index++]!)
  }
  let system: unknown
  if (leading.length === 1 && isUnchanged(leading[0]!, (source) => normalizeSystem(context, source, '/system'))) system = leading[0]!.source
  else if (leading.length > 0) {
    // One text → a string; several → text blocks, so each reads back as the part it was.
    const texts = leading.flatMap((message) => message.parts.map((part) => text([part])))
    system = texts.length === 1 ? texts[0] : texts.map((item) => ({ type: 'text', text: item }))
  }
  const items = writeWithCarried(envelope, transcript.messages.slice(index), (message) => {
    if (message.role === 'system' && !isSystemRecord(message)) return [{ role: 'user', content: [{ type: 'text', text: text(message.parts) }] }]
    return [isUnchanged(message, (source) => normalizeRecord(context, source, '')) ? message.source : synthesize(message)]
  })
  if (envelope.kind === 'array' && system === undefined) return stringifyDocument(items)
  const object: Record<string, unknown> = envelope.kind === 'object' ? { ...envelope.object } : {}
  if (system === undefined) delete object.system
  else object.system = system
  object[envelope.kind === 'object' ? envelope.key : 'messages'] = items
  return stringifyDocument(object)
}

/**
 * Anthropic Messages API: `{ system?, messages }` (other keys kept for writing) or a bare messages array.
 *
 * The top-level `system` (string or text blocks) reads as a first system message. Blocks: `text`; `thinking`
 * → reasoning (`redacted_thinking` → `[redacted thinking]`); `compaction` (server-side compaction) → a summary part
 * (source `anthropic`); `tool_use` / `server_tool_use` / `mcp_tool_use`
 * → tool calls; `tool_result`, `mcp_tool_result` and every server `*_tool_result` → tool results (`is_error`,
 * or an `*_error` content object, sets isError; content blocks joined with '\n', `image` → `[image]`,
 * `document` → `[document: title]`, `search_result` → `[search result: title]`, web search hits → title and
 * URL). A user message whose blocks are all tool results reads as role `tool` (its source keeps `user`), so
 * planners see tool results as such. A `{"role": "system"}` message inside `messages` (the API accepts one) reads as a
 * system message in its place. Writing returns unchanged records exactly, in place; new messages get blocks (a new
 * system message after the first non-system one is written as user text). A message of another role is kept aside
 * as it is, reported, and written back in place (see {@link CarriedItem}).
 */
export const anthropicFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'anthropic',
  layout: 'document',
  detect: (head) => messageArrayScores(head).anthropic,
  read,
  write,
}

import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import { stableJson } from '../render.js'
import {
  type CarriedItem,
  type DocumentContext,
  type NormalizedRecord,
  CarriedWriter,
  carryItem,
  describeValue,
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
  stringifyArguments,
  stringifyDocument,
  toMessage,
} from './_document.js'
import { RESPONSES_ITEM_TYPES, messageArrayScores } from './_signals.js'
import { InvalidInputError } from '../../errors.js'

/** Where one item goes: merged into the current assistant turn, into the current run of tool outputs, or alone. */
type Grouping = 'assistant' | 'tool' | 'alone'

interface Fragment {
  readonly role: Role
  readonly parts: Part[]
  readonly grouping: Grouping
}

/** Placeholder text of a compaction item, whose summary the API encrypts. */
export const ENCRYPTED_COMPACTION = '[encrypted compaction summary]'

/**
 * Content parts as text parts: `input_text` / `output_text` / `text` / `summary_text` / `reasoning_text` keep their
 * text, `refusal` its refusal, `input_image` → `[image]`, `input_file` → `[file: filename]`, `input_audio` →
 * `[audio]`.
 */
function contentParts(context: DocumentContext, content: unknown, pointer: string): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: expectString(context, content, pointer) }]
  return expectArray(context, content, pointer, 'a string or an array of content parts').map((raw, index): Part => {
    const at = pointerTo(pointer, index)
    const part = expectRecord(context, raw, at, 'a content part object')
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
      case 'summary_text':
      case 'reasoning_text':
        return { type: 'text', text: expectString(context, part.text, pointerTo(at, 'text')) }
      case 'refusal':
        return { type: 'text', text: expectString(context, part.refusal, pointerTo(at, 'refusal')) }
      case 'input_image':
        return { type: 'text', text: placeholder('image') }
      case 'input_file':
        return { type: 'text', text: placeholder('file', part.filename ?? part.file_id) }
      case 'input_audio':
        return { type: 'text', text: placeholder('audio') }
      default:
        return fail(
          context,
          pointerTo(at, 'type'),
          'a content part type of input_text, output_text, refusal, input_image, input_file or input_audio',
          part.type,
        )
    }
  })
}

/** A tool output value as text: a string, content parts (joined with '\n'), or any other JSON value's JSON. */
function outputText(context: DocumentContext, output: unknown, pointer: string): string {
  if (output === undefined || output === null) return ''
  if (typeof output === 'string') return expectString(context, output, pointer)
  if (Array.isArray(output) && output.every((item) => isRecord(item) && typeof item.type === 'string')) {
    return contentParts(context, output, pointer)
      .map((part) => (part.type === 'text' ? part.text : ''))
      .join('\n')
  }
  if (isRecord(output) && output.type === 'computer_screenshot') return placeholder('image')
  return stableJson(output)
}

function shellOutput(output: unknown): string {
  if (!Array.isArray(output)) return typeof output === 'string' ? output : stableJson(output ?? '')
  return output
    .map((chunk) => (isRecord(chunk) ? [chunk.stdout, chunk.stderr].filter((text) => typeof text === 'string' && text !== '').join('\n') : stableJson(chunk)))
    .join('\n')
}

function callId(context: DocumentContext, item: Record<string, unknown>, pointer: string): string {
  return expectString(context, item.call_id, pointerTo(pointer, 'call_id'))
}

/** A hosted tool the API ran itself: its call and result in the same assistant turn, paired by the item id. */
function hosted(context: DocumentContext, item: Record<string, unknown>, pointer: string, name: string, args: unknown, result: string, isError: boolean): Fragment {
  const id = expectString(context, item.id, pointerTo(pointer, 'id'))
  return {
    role: 'assistant',
    grouping: 'assistant',
    parts: [
      { type: 'tool-call', id, name, arguments: args },
      { type: 'tool-result', callId: id, name, content: result, isError },
    ],
  }
}

/** Normalizes one input/output item into a fragment of a message. */
function normalizeItem(context: DocumentContext, raw: unknown, pointer: string): Fragment {
  const item = expectRecord(context, raw, pointer, 'an input/output item object')
  const type = item.type === undefined ? 'message' : item.type
  const at = (key: string): string => pointerTo(pointer, key)
  switch (type) {
    case 'message': {
      const role = item.role
      if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
        fail(context, at('role'), 'one of user, assistant, system, developer', role)
      }
      const parts = contentParts(context, item.content, at('content'))
      if (role === 'assistant') return { role: 'assistant', parts, grouping: 'assistant' }
      return { role: role === 'user' ? 'user' : 'system', parts, grouping: 'alone' }
    }
    case 'reasoning': {
      const texts: string[] = []
      for (const key of ['summary', 'content']) {
        if (item[key] === undefined || item[key] === null) continue
        for (const part of contentParts(context, item[key], at(key))) if (part.type === 'text') texts.push(part.text)
      }
      const text = texts.length === 0 && typeof item.encrypted_content === 'string' ? placeholder('encrypted reasoning') : texts.join('\n')
      return { role: 'assistant', parts: [{ type: 'reasoning', text }], grouping: 'assistant' }
    }
    case 'function_call':
      return {
        role: 'assistant',
        grouping: 'assistant',
        parts: [{ type: 'tool-call', id: callId(context, item, pointer), name: expectString(context, item.name, at('name')), arguments: parseArguments(context, item.arguments ?? '{}', at('arguments')) }],
      }
    case 'custom_tool_call':
      return {
        role: 'assistant',
        grouping: 'assistant',
        parts: [{ type: 'tool-call', id: callId(context, item, pointer), name: expectString(context, item.name, at('name')), arguments: expectString(context, item.input, at('input')) }],
      }
    case 'local_shell_call':
    case 'shell_call':
    case 'computer_call':
      return {
        role: 'assistant',
        grouping: 'assistant',
        parts: [{ type: 'tool-call', id: callId(context, item, pointer), name: String(type).slice(0, -'_call'.length), arguments: item.action ?? {} }],
      }
    case 'apply_patch_call':
      return {
        role: 'assistant',
        grouping: 'assistant',
        parts: [{ type: 'tool-call', id: callId(context, item, pointer), name: 'apply_patch', arguments: item.operation ?? {} }],
      }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'computer_call_output':
    case 'apply_patch_call_output':
      return {
        role: 'tool',
        grouping: 'tool',
        parts: [{ type: 'tool-result', callId: callId(context, item, pointer), content: outputText(context, item.output, at('output')), isError: item.status === 'failed' }],
      }
    case 'local_shell_call_output':
    case 'shell_call_output': {
      // The API names the shell call in `id` on local_shell_call_output and `call_id` elsewhere.
      const id = item.call_id === undefined ? expectString(context, item.id, at('id')) : callId(context, item, pointer)
      return {
        role: 'tool',
        grouping: 'tool',
        parts: [{ type: 'tool-result', callId: id, content: shellOutput(item.output), isError: item.status === 'failed' || item.status === 'incomplete' }],
      }
    }
    case 'web_search_call':
      return hosted(context, item, pointer, 'web_search', item.action ?? {}, typeof item.status === 'string' ? item.status : '', item.status === 'failed')
    case 'file_search_call': {
      const results = Array.isArray(item.results) ? item.results : []
      const text = results.map((result) => (isRecord(result) ? String(result.text ?? result.filename ?? '') : '')).join('\n')
      return hosted(context, item, pointer, 'file_search', { queries: item.queries ?? [] }, text, item.status === 'failed')
    }
    case 'code_interpreter_call': {
      const outputs = Array.isArray(item.outputs) ? item.outputs : []
      const text = outputs.map((output) => (isRecord(output) && typeof output.logs === 'string' ? output.logs : placeholder('image'))).join('\n')
      return hosted(context, item, pointer, 'code_interpreter', { code: item.code ?? '' }, text, item.status === 'failed')
    }
    case 'image_generation_call':
      return hosted(context, item, pointer, 'image_generation', {}, placeholder('image'), item.status === 'failed')
    case 'mcp_call': {
      const error = item.error
      const content = error !== undefined && error !== null ? (typeof error === 'string' ? error : stableJson(error)) : outputText(context, item.output, at('output'))
      return hosted(context, item, pointer, expectString(context, item.name, at('name')), parseArguments(context, item.arguments ?? '{}', at('arguments')), content, error !== undefined && error !== null)
    }
    case 'mcp_list_tools':
      return { role: 'assistant', grouping: 'assistant', parts: [{ type: 'text', text: placeholder('mcp tools listed', item.server_label) }] }
    case 'mcp_approval_request':
      return { role: 'assistant', grouping: 'assistant', parts: [{ type: 'text', text: placeholder('mcp approval requested', item.name) }] }
    case 'mcp_approval_response':
      return { role: 'user', grouping: 'alone', parts: [{ type: 'text', text: placeholder(item.approve === true ? 'mcp approval granted' : 'mcp approval denied', item.approval_request_id) }] }
    case 'compaction': {
      // The API encrypts the summary; some gateways add a readable `summary` list beside it.
      const summary = Array.isArray(item.summary) ? contentParts(context, item.summary, at('summary')) : []
      const text = summary.length > 0 ? summary.map((part) => (part.type === 'text' ? part.text : '')).join('\n') : ENCRYPTED_COMPACTION
      return { role: 'user', grouping: 'alone', parts: [{ type: 'summary', text, source: 'openai-responses' }] }
    }
    case 'item_reference':
      return { role: 'user', grouping: 'alone', parts: [{ type: 'text', text: placeholder('item reference', item.id) }] }
    default:
      throw new InvalidInputError(`expected an item type of ${[...RESPONSES_ITEM_TYPES].join(', ')}, got ${describeValue(type)}`, {
        file: context.file,
        field: at('type'),
      })
  }
}

/** Normalizes a group of items (one message): their fragments' parts in order, with the first one's role. */
function normalizeGroup(context: DocumentContext, items: unknown, pointer: string): NormalizedRecord {
  const list = Array.isArray(items) ? items : [items]
  const fragments = list.map((item, index) => normalizeItem(context, item, pointer === '' ? '' : `${pointer}+${index}`))
  return { role: fragments[0]?.role ?? 'user', parts: nonEmpty(fragments.flatMap((fragment) => fragment.parts)) }
}

/** Where the items sat: a bare array, `input`, `output`, or a string `input`. */
type ResponsesEnvelope = (
  | { readonly kind: 'array' }
  | { readonly kind: 'object'; readonly object: Readonly<Record<string, unknown>>; readonly keys: readonly ('input' | 'output')[]; readonly stringInput: boolean }
) & {
  /** Message items of roles the API does not have, written back in place (see {@link CarriedItem}). */
  readonly carried?: readonly CarriedItem[]
}

const MESSAGE_ROLES = ['user', 'assistant', 'system', 'developer']

/** Whether an item is a message of a role the API does not have (kept aside as it is, never read). */
function unknownRole(item: unknown): item is Record<string, unknown> & { role: string } {
  return isRecord(item) && (item.type === undefined || item.type === 'message') && typeof item.role === 'string' && !MESSAGE_ROLES.includes(item.role)
}

async function read(source: Parameters<TranscriptFormatV1['read']>[0], options?: Parameters<TranscriptFormatV1['read']>[1]): Promise<Transcript> {
  const { value, context } = await readJsonDocument(source, options)
  const lists: Array<{ base: string; items: unknown[] }> = []
  let envelope: ResponsesEnvelope
  const messages: Message[] = []
  if (Array.isArray(value)) {
    lists.push({ base: '', items: value })
    envelope = { kind: 'array' }
  } else if (isRecord(value) && (value.input !== undefined || value.output !== undefined)) {
    const keys: Array<'input' | 'output'> = []
    let stringInput = false
    if (typeof value.input === 'string') {
      stringInput = true
      keys.push('input')
      const text = expectString(context, value.input, '/input')
      messages.push(toMessage(context, { role: 'user', parts: [{ type: 'text', text }] }, '/input', text))
    } else if (value.input !== undefined) {
      lists.push({ base: '/input', items: expectArray(context, value.input, '/input', 'a string or an array of input items') })
      keys.push('input')
    }
    if (value.output !== undefined) {
      lists.push({ base: '/output', items: expectArray(context, value.output, '/output', 'an array of output items') })
      keys.push('output')
    }
    // The envelope keeps the other keys (in order) but not the items: `keepSource: false` must free them.
    const object: Record<string, unknown> = { ...value }
    for (const key of keys) object[key] = []
    envelope = { kind: 'object', object, keys, stringInput }
  } else {
    return fail(context, '', 'an array of Responses API items or an object with `input` / `output`', value)
  }
  const carried: CarriedItem[] = []
  const warnings: string[] = []
  for (const { base, items } of lists) {
    let open: { fragment: Fragment; pointer: string; items: unknown[]; parts: Part[] } | undefined
    let previous: string | undefined
    const flush = (): void => {
      if (!open) return
      messages.push(toMessage(context, { role: open.fragment.role, parts: nonEmpty(open.parts) }, open.pointer, open.items))
      previous = open.pointer
      open = undefined
    }
    items.forEach((item, index) => {
      const pointer = pointerTo(base, index)
      if (unknownRole(item)) {
        // The turn around it closes here, so the item is written back between the same neighbours.
        flush()
        const carry = carryItem(context, item, pointer, previous, `role ${JSON.stringify(item.role)} is not a Responses API message role (${MESSAGE_ROLES.join(', ')})`)
        carried.push(carry.carried)
        warnings.push(carry.warning)
        return
      }
      const fragment = normalizeItem(context, item, pointer)
      if (open && fragment.grouping !== 'alone' && fragment.grouping === open.fragment.grouping) {
        open.items.push(item)
        open.parts.push(...fragment.parts)
        return
      }
      flush()
      open = { fragment, pointer, items: [item], parts: [...fragment.parts] }
    })
    flush()
  }
  return finishTranscript('openai-responses', messages, carried.length > 0 ? { ...envelope, carried } : envelope, warnings)
}

function synthesize(message: Message): unknown[] {
  const items: unknown[] = []
  let texts: string[] = []
  const textRole = message.role === 'tool' ? 'user' : message.role
  const flushText = (): void => {
    if (texts.length === 0) return
    if (textRole === 'assistant') items.push({ type: 'message', role: 'assistant', content: texts.map((text) => ({ type: 'output_text', text, annotations: [] })) })
    else items.push({ type: 'message', role: textRole, content: texts.map((text) => ({ type: 'input_text', text })) })
    texts = []
  }
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'summary') {
      texts.push(part.text)
      continue
    }
    flushText()
    if (part.type === 'reasoning') items.push({ type: 'reasoning', summary: [{ type: 'summary_text', text: part.text }] })
    else if (part.type === 'tool-call') items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: stringifyArguments(part.arguments) })
    else items.push({ type: 'function_call_output', call_id: part.callId, output: part.content })
  }
  flushText()
  return items
}

function write(transcript: Transcript): string {
  const context: DocumentContext = { file: '<write>', keepSource: false }
  const envelope = (transcript.envelope as ResponsesEnvelope | undefined) ?? { kind: 'array' }
  const input: unknown[] = []
  const output: unknown[] = []
  let target = input
  let stringInput: string | undefined
  const carried = new CarriedWriter(envelope.carried)
  const place = (entries: readonly CarriedItem[]): void => {
    for (const entry of entries) (entry.pointer.startsWith('/output/') ? output : input).push(entry.item)
  }
  place(carried.leading())
  transcript.messages.forEach((message, index) => {
    if (envelope.kind === 'object' && envelope.keys.includes('output') && message.provenance?.pointer?.startsWith('/output/')) target = output
    if (envelope.kind === 'object' && envelope.keys.length === 1 && envelope.keys[0] === 'output') target = output
    place(carried.before(message))
    if (envelope.kind === 'object' && envelope.stringInput && index === 0 && typeof message.source === 'string') {
      if (isUnchanged(message, (source) => ({ role: 'user', parts: [{ type: 'text', text: source as string }] }))) {
        stringInput = message.source
        return
      }
    }
    if (isUnchanged(message, (source) => normalizeGroup(context, source, ''))) target.push(...(message.source as unknown[]))
    else target.push(...synthesize(message))
    place(carried.after(message))
  })
  place(carried.rest())
  if (envelope.kind === 'array') return stringifyDocument(input)
  const object: Record<string, unknown> = { ...envelope.object }
  if (envelope.keys.includes('input') || input.length > 0 || stringInput !== undefined) {
    object.input = stringInput !== undefined && input.length === 0 ? stringInput : stringInput !== undefined ? [{ role: 'user', content: stringInput }, ...input] : input
  }
  if (envelope.keys.includes('output')) object.output = output
  return stringifyDocument(object)
}

/**
 * OpenAI Responses API items: an array, or an object with `input` (items or a string) and/or `output`.
 *
 * Consecutive assistant-side items (assistant `message`, `reasoning`, `function_call`, `custom_tool_call`,
 * `local_shell_call`, `shell_call`, `computer_call`, `apply_patch_call`, hosted tool calls) form one assistant
 * message; consecutive tool outputs form one tool message; user/system/developer messages stand alone
 * (`developer` reads as `system`). Hosted tools the API runs itself (`web_search_call`, `file_search_call`,
 * `code_interpreter_call`, `image_generation_call`, `mcp_call`) give a tool call and its result, paired by the
 * item id (web search: its status as the result; images: `[image]`). A `compaction` item reads as a user
 * message with a `summary` part (source `openai-responses`): its text is the item's readable `summary` when
 * present, else {@link ENCRYPTED_COMPACTION}. `item_reference` and MCP listings/approvals read as short text
 * placeholders. Writing returns unchanged items exactly; new messages become `message` / `reasoning` /
 * `function_call` / `function_call_output` items (a summary as an input text message: a compaction item
 * cannot be made without the API's encryption). A message item of another role is kept aside as it is, reported,
 * and written back in place (see {@link CarriedItem}).
 */
export const openaiResponsesFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'openai-responses',
  layout: 'document',
  detect: (head) => messageArrayScores(head)['openai-responses'],
  read,
  write,
}

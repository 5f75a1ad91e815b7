/**
 * LangChain stored messages, read only: what Python's `messages_to_dict` writes (and `FileChatMessageHistory` keeps in
 * its file), and what LangChain.js's `mapChatMessagesToStoredMessages` returns (`message.toDict()`): a JSON array of
 * `{ "type": T, "data": { content, … } }`, or an object holding it as `messages`.
 *
 * - `type` is the message's type: `human`, `ai`, `system`, `developer`, `tool`, `function`, `chat` (its role in
 *   `data.role`), or a chunk's class name (`AIMessageChunk`, …), read as the message it is a chunk of. `remove`
 *   (LangGraph's RemoveMessage, a deletion marker) and a type it does not know are no message: kept as they were in
 *   `envelope.carried` (as the chat formats keep an item of an unknown role), each with a warning.
 * - `data.content` is a string or a list of blocks: strings and `text` blocks are text, `reasoning` and `thinking`
 *   blocks reasoning, anything else a short placeholder (`[image_url]`); a `tool_use` block is a tool call only in a
 *   message with no `tool_calls` (LangChain mirrors Anthropic's calls into `tool_calls`).
 * - An `ai` message's calls are `data.tool_calls` (`{id, name, args}`) and `data.invalid_tool_calls` (arguments kept
 *   as written), else the OpenAI-shaped `additional_kwargs.tool_calls` older versions kept, else a legacy
 *   `additional_kwargs.function_call` (id `function-call-N`, answered by the next `function` message).
 * - A `tool` message is the result for `data.tool_call_id`, an error when `data.status` is `"error"`.
 * - A call without an id gets `call-N-M` (message N, call M); a message with no content and no call is an empty text.
 */
import type { FormatSource, ReadOptions, TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { isRecord, scanJsonPrefix } from '../_json-prefix.js'
import { assertJsonDepth, parseJson } from '../json.js'
import { pairToolCalls } from '../render.js'
import { type CarriedItem, carryItem } from './_document.js'
import { expectObject, fail, type FieldLocation, parseArguments, placeholder } from './_log.js'

/** Each stored `type` and the role it reads as (`chat` takes `data.role`; `remove` is no message). */
const TYPE_ROLES: Readonly<Record<string, Role | 'chat' | 'remove' | 'function'>> = {
  human: 'user',
  HumanMessageChunk: 'user',
  ai: 'assistant',
  AIMessageChunk: 'assistant',
  system: 'system',
  SystemMessageChunk: 'system',
  developer: 'system',
  tool: 'tool',
  ToolMessageChunk: 'tool',
  function: 'function',
  FunctionMessageChunk: 'function',
  chat: 'chat',
  ChatMessageChunk: 'chat',
  generic: 'chat',
  remove: 'remove',
}

const CHAT_ROLES: Readonly<Record<string, Role>> = { user: 'user', human: 'user', assistant: 'assistant', ai: 'assistant', system: 'system', developer: 'system', tool: 'tool', function: 'tool' }

/** The stored messages of a parsed value: the array itself, or an object's `messages` array. */
function storedMessages(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value
  if (isRecord(value) && Array.isArray(value['messages'])) return value['messages']
  return undefined
}

/**
 * Scores a head as LangChain stored messages: 0.95 when every whole item among the first 64 is `{type, data}` with a
 * LangChain message type and an object `data` (at least one such item, or a first item the head cuts inside `data`);
 * 0.9 when every one is `{type, data}` and at least half of them have a LangChain type (the others are kept aside);
 * else 0.
 */
export function detectLangChain(head: string): number {
  const start = head.replace(/^\uFEFF/, '').trimStart()
  if (start[0] !== '[' && start[0] !== '{') return 0
  const scanned = scanJsonPrefix(start)
  if (scanned.errorOffset !== undefined) return 0
  const items = storedMessages(scanned.value)
  if (items === undefined) return 0
  const isEntry = (item: unknown): item is Record<string, unknown> => isRecord(item) && typeof item['type'] === 'string' && isRecord(item['data'])
  const isStored = (item: unknown) => isEntry(item) && Object.hasOwn(TYPE_ROLES, item['type'] as string)
  // The head may cut the last item anywhere: only whole items count, unless a first item longer than the head is all
  // there is (its `type` and the start of its `data` arrived).
  const whole = scanned.complete ? items : items.slice(0, -1)
  if (whole.length === 0) return items.length === 1 && isStored(items[0]) && !isCut(scanned, items[0], 'type') ? 0.95 : 0
  let known = 0
  const sample = whole.slice(0, 64)
  for (const item of sample) {
    if (!isEntry(item)) return 0
    if (isStored(item)) known++
  }
  return known === sample.length ? 0.95 : known * 2 >= sample.length ? 0.9 : 0
}

/** Whether the head's cut fell inside `container[key]`. */
function isCut(scanned: ReturnType<typeof scanJsonPrefix>, container: unknown, key: string): boolean {
  return scanned.cut !== undefined && scanned.cut.container === container && scanned.cut.key === key
}

/** Text and reasoning parts of `data.content`, and the `tool_use` blocks it holds (calls only when nothing else says). */
function contentParts(content: unknown, at: FieldLocation, pointer: string): { parts: Part[]; toolUses: Part[] } {
  const parts: Part[] = []
  const toolUses: Part[] = []
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content })
    return { parts, toolUses }
  }
  if (content === null || content === undefined) return { parts, toolUses }
  if (!Array.isArray(content)) fail(at, pointer, 'a string or an array of content blocks', content)
  content.forEach((block, index) => {
    if (typeof block === 'string') {
      parts.push({ type: 'text', text: block })
      return
    }
    const record = expectObject(block, at, `${pointer}/${index}`, 'a content block (a string or an object)')
    const type = record['type']
    if (type === 'text' && typeof record['text'] === 'string') parts.push({ type: 'text', text: record['text'] })
    else if (type === 'thinking' && typeof record['thinking'] === 'string') parts.push({ type: 'reasoning', text: record['thinking'] })
    else if (type === 'reasoning') {
      const text = typeof record['reasoning'] === 'string' ? record['reasoning'] : summaryText(record['summary'])
      parts.push({ type: 'reasoning', text })
    } else if (type === 'tool_use' && typeof record['id'] === 'string' && typeof record['name'] === 'string') {
      toolUses.push({ type: 'tool-call', id: record['id'], name: record['name'], arguments: record['input'] ?? {} })
    } else parts.push({ type: 'text', text: placeholder(record) })
  })
  return { parts, toolUses }
}

/** The text of an OpenAI reasoning block's `summary` list (`[{type: "summary_text", text}]`). */
function summaryText(summary: unknown): string {
  if (!Array.isArray(summary)) return ''
  return summary.flatMap((entry) => (isRecord(entry) && typeof entry['text'] === 'string' ? [entry['text']] : [])).join('\n')
}

/** The text of a tool result's content: a string, or its blocks' text (placeholders for the rest). */
function resultText(content: unknown, at: FieldLocation, pointer: string): string {
  if (typeof content === 'string') return content
  if (content === null || content === undefined) return ''
  if (Array.isArray(content)) return contentParts(content, at, pointer).parts.flatMap((part) => (part.type === 'text' || part.type === 'reasoning' ? [part.text] : [])).join('\n')
  return JSON.stringify(content)
}

/** The calls of an `ai` message, in the first place that holds any (see the module comment). */
function toolCalls(data: Record<string, unknown>, at: FieldLocation, pointer: string, index: number, pendingFunction: { id?: string }): Part[] {
  const calls: Part[] = []
  const idOf = (value: unknown, position: number) => (typeof value === 'string' && value !== '' ? value : `call-${index}-${position}`)
  const native = [...(Array.isArray(data['tool_calls']) ? data['tool_calls'] : []), ...(Array.isArray(data['invalid_tool_calls']) ? data['invalid_tool_calls'] : [])]
  const nativeCount = Array.isArray(data['tool_calls']) ? data['tool_calls'].length : 0
  native.forEach((call, position) => {
    const where = position < nativeCount ? `${pointer}/tool_calls/${position}` : `${pointer}/invalid_tool_calls/${position - nativeCount}`
    const record = expectObject(call, at, where, 'a tool call object {name, args, id}')
    const name = typeof record['name'] === 'string' ? record['name'] : fail(at, `${where}/name`, 'a string', record['name'])
    const args = record['args']
    calls.push({ type: 'tool-call', id: idOf(record['id'], position), name, arguments: typeof args === 'string' ? parseArguments(args, at) : (args ?? {}) })
  })
  if (calls.length > 0) return calls
  const kwargs = isRecord(data['additional_kwargs']) ? data['additional_kwargs'] : {}
  if (Array.isArray(kwargs['tool_calls'])) {
    kwargs['tool_calls'].forEach((call, position) => {
      const where = `${pointer}/additional_kwargs/tool_calls/${position}`
      const record = expectObject(call, at, where, 'an OpenAI tool call object')
      const fn = expectObject(record['function'], at, `${where}/function`, 'a function object {name, arguments}')
      const name = typeof fn['name'] === 'string' ? fn['name'] : fail(at, `${where}/function/name`, 'a string', fn['name'])
      const args = fn['arguments']
      calls.push({ type: 'tool-call', id: idOf(record['id'], position), name, arguments: typeof args === 'string' ? parseArguments(args, at) : (args ?? {}) })
    })
  } else if (isRecord(kwargs['function_call'])) {
    const fn = kwargs['function_call']
    const where = `${pointer}/additional_kwargs/function_call`
    const name = typeof fn['name'] === 'string' ? fn['name'] : fail(at, `${where}/name`, 'a string', fn['name'])
    const id = `function-call-${index}`
    pendingFunction.id = id
    const args = fn['arguments']
    calls.push({ type: 'tool-call', id, name, arguments: typeof args === 'string' ? parseArguments(args, at) : (args ?? {}) })
  }
  return calls
}

async function readLangChain(source: FormatSource, options: ReadOptions = {}): Promise<Transcript> {
  const keepSource = options.keepSource ?? true
  const file = source.name
  const document = parseJson(await source.text(), file)
  assertJsonDepth(document, file)
  const at: FieldLocation = { file }
  const items = storedMessages(document)
  if (items === undefined) fail(at, '/', 'an array of LangChain messages {type, data} (or an object with `messages`)', document)
  const base = Array.isArray(document) ? '' : '/messages'
  const messages: Message[] = []
  const pendingFunction: { id?: string } = {}
  const carried: CarriedItem[] = []
  const warnings: string[] = []
  items.forEach((item, index) => {
    const pointer = `${base}/${index}`
    const record = expectObject(item, at, pointer, 'a LangChain message {type, data}')
    const type = record['type']
    if (typeof type !== 'string') fail(at, `${pointer}/type`, `a LangChain message type (${Object.keys(TYPE_ROLES).slice(0, 8).join(', ')}, …)`, type)
    const kind = Object.hasOwn(TYPE_ROLES, type) ? TYPE_ROLES[type]! : undefined
    if (kind === undefined || kind === 'remove') {
      const what = kind === 'remove' ? 'type "remove" is a RemoveMessage (LangGraph\'s deletion marker), not a message' : `type ${JSON.stringify(type)} is not a LangChain message type`
      const carry = carryItem({ file, keepSource }, record, pointer, messages.at(-1)?.provenance?.pointer, what)
      carried.push(carry.carried)
      warnings.push(carry.warning)
      return
    }
    const data = expectObject(record['data'], at, `${pointer}/data`, 'a data object {content, …}')
    let role: Role
    if (kind === 'chat') {
      const named = data['role']
      if (typeof named !== 'string' || !Object.hasOwn(CHAT_ROLES, named)) fail(at, `${pointer}/data/role`, '"user", "assistant", "system" or "tool"', named)
      role = CHAT_ROLES[named]!
    } else role = kind === 'function' ? 'tool' : kind
    const provenance = { provenance: { pointer }, ...(keepSource ? { source: record } : {}) }
    if (role === 'tool') {
      const named = typeof data['name'] === 'string' ? { name: data['name'] } : {}
      let callId: string
      if (kind === 'function') {
        callId = pendingFunction.id ?? `function-result-${index}`
        delete pendingFunction.id
      } else {
        const id = data['tool_call_id']
        callId = typeof id === 'string' && id !== '' ? id : fail(at, `${pointer}/data/tool_call_id`, 'the id of the call this result answers', id)
      }
      const content = resultText(data['content'], at, `${pointer}/data/content`)
      messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId, ...named, content, isError: data['status'] === 'error' }], ...provenance })
      return
    }
    const { parts, toolUses } = contentParts(data['content'], at, `${pointer}/data/content`)
    if (role === 'assistant') {
      const calls = toolCalls(data, at, `${pointer}/data`, index, pendingFunction)
      parts.push(...(calls.length > 0 ? calls : toolUses))
    }
    if (parts.length === 0) parts.push({ type: 'text', text: '' })
    messages.push({ role, parts, ...provenance })
  })
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format: 'langchain', messages, pairs, unpaired, ...(carried.length > 0 ? { envelope: { carried } } : {}), ...(warnings.length > 0 ? { warnings } : {}) }
}

/** LangChain stored messages (`messages_to_dict`, `FileChatMessageHistory`, `mapChatMessagesToStoredMessages`), read only. */
export const langChainFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'langchain',
  layout: 'document',
  detect: detectLangChain,
  read: readLangChain,
}

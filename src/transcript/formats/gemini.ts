/**
 * Gemini API contents: the `contents` of a `generateContent` request (`{ contents, systemInstruction?, tools?, … }`),
 * a bare `Content[]` (what an SDK's chat history holds), and Gemini CLI's `/chat save` checkpoints (`Content[]`, or
 * `{ history: Content[], authType? }` from later versions). Keys are read in the API's camelCase and in the snake_case
 * the Python SDK and REST accept (`function_call`, `inline_data`, `system_instruction`); a document is written back
 * in the style it came in.
 *
 * Mapping decisions:
 * - Roles: `user` (or none: a single-turn request may omit it) → user; `model` → assistant; `function` (the older
 *   API's role for results) → tool. A user content whose parts are all `functionResponse`s reads as role `tool`.
 *   A content of another role (`system`, which the API refuses inside `contents`) is not read: it is kept in the
 *   envelope as it is, reported, and written back in place (see {@link CarriedItem}).
 * - Parts: `text` → text (`thought: true` → reasoning; a `<state_snapshot>`, Gemini CLI's compression summary, →
 *   a summary part with source `gemini-cli`); `functionCall` {name, args, id?} → a tool call; `functionResponse`
 *   {name, response, id?} → a tool result: `response.error` (an error), `.output` or `.result` when it is a
 *   string, an MCP result's text blocks, else the response's JSON; `executableCode` → a `code_execution` tool call and the `codeExecutionResult` after it
 *   → its result (an outcome other than `OUTCOME_OK` is an error); `inlineData` → `[image]` / `[audio]` / `[video]` /
 *   `[file: mime]`; `fileData` → `[file: uri]`. A part of none of these kinds reads as `[its key]`, with a warning.
 *   `thoughtSignature` and `videoMetadata` are carried by the part's record and change nothing.
 * - Pairing: a call without an `id` (most requests) gets `functionCall:<pointer of the part>`; a response answers
 *   the open call of its `id`, else the oldest open call of its `name`; one that answers none gets
 *   `functionResponse:<its pointer>` and is reported unpaired. Writing leaves those made-up ids out.
 * - `systemInstruction` (a Content, or a string) reads as a first system message and is written back there.
 *
 * Writing returns unchanged contents exactly; a new message is written as one content (a summary as user text).
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Transcript } from '../../spec/transcript.js'
import { isRecord, scanJsonPrefix } from '../_json-prefix.js'
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
  placeholder,
  pointerTo,
  readJsonDocument,
  stringifyDocument,
  toMessage,
  unwrapArray,
  writeWithCarried,
} from './_document.js'

const SNAPSHOT_OPEN = '<state_snapshot>'
const CALL_PREFIX = 'functionCall:'
const RESPONSE_PREFIX = 'functionResponse:'
const CODE_PREFIX = 'executableCode:'
/** The tool name an `executableCode` part is read as. */
const CODE_EXECUTION = 'code_execution'

/** The part kinds a reader maps, camelCase → snake_case. */
const PART_KEYS = {
  functionCall: 'function_call',
  functionResponse: 'function_response',
  inlineData: 'inline_data',
  fileData: 'file_data',
  executableCode: 'executable_code',
  codeExecutionResult: 'code_execution_result',
} as const
type PartKey = keyof typeof PART_KEYS | 'text'
/** Keys a part carries beside its kind, which change nothing read. */
const PART_EXTRAS = new Set(['thought', 'thoughtSignature', 'thought_signature', 'videoMetadata', 'video_metadata', 'partMetadata', 'part_metadata'])

/** Key style of the document: what new parts are written in. */
type KeyStyle = 'camel' | 'snake'

/** The envelope of a contents document: the array's place, carried items, the system instruction's key and style. */
type GeminiEnvelope = ArrayEnvelope & { readonly style: KeyStyle; readonly systemKey?: string }

/** Calls waiting for their response, by id and by name (oldest first), across the document. */
interface OpenCalls {
  readonly byName: Map<string, string[]>
  readonly ids: Set<string>
  /** The latest `executableCode` call, which the next `codeExecutionResult` answers. */
  code?: string
}

function newOpenCalls(): OpenCalls {
  return { byName: new Map(), ids: new Set() }
}

/** `part[camel]`, else `part[snake]`. */
function field(part: Record<string, unknown>, camel: string, snake: string): unknown {
  return part[camel] !== undefined ? part[camel] : part[snake]
}

/** A list field's value as a list: one object (which the REST API takes for a list of one) as a list of it; none as []. */
function listOf(value: unknown): unknown {
  return value === undefined || value === null ? [] : isRecord(value) ? [value] : value
}

/** The kind of a part: its first known key, or undefined. */
function partKind(part: Record<string, unknown>): { kind: PartKey; snake: boolean } | undefined {
  if (typeof part.text === 'string') return { kind: 'text', snake: false }
  for (const [camel, snake] of Object.entries(PART_KEYS) as Array<[keyof typeof PART_KEYS, string]>) {
    if (part[camel] !== undefined) return { kind: camel, snake: false }
    if (part[snake] !== undefined) return { kind: camel, snake: true }
  }
  return undefined
}

/**
 * The text of a function response and whether it is an error: an `error` string (an error), else an `output` or
 * `result` string (what Gemini CLI and ADK write), else the text blocks of an MCP tool result (`{content: [{type:
 * "text", text}], isError}`, at the top or under `content`), else the response's JSON (an error when it has a non-null
 * `error`).
 */
function responseContent(response: unknown): { content: string; isError: boolean } {
  if (!isRecord(response)) return { content: typeof response === 'string' ? response : stableJson(response), isError: false }
  if (typeof response.error === 'string') return { content: response.error, isError: true }
  const hasError = response.error !== undefined && response.error !== null
  if (!hasError) {
    for (const key of ['output', 'result']) if (typeof response[key] === 'string') return { content: response[key] as string, isError: false }
    const mcp = mcpResult(response) ?? (isRecord(response.content) ? mcpResult(response.content) : undefined)
    if (mcp !== undefined) return mcp
  }
  return { content: stableJson(response), isError: hasError }
}

/** An MCP tool result's text blocks joined with '\n' (other blocks as `[type]`), or undefined for another shape. */
function mcpResult(value: Record<string, unknown>): { content: string; isError: boolean } | undefined {
  const blocks = value.content
  if (!Array.isArray(blocks) || !blocks.every((block) => isRecord(block) && typeof block.type === 'string')) return undefined
  const texts = (blocks as Array<Record<string, unknown>>).map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : placeholder(block.type as string)))
  return { content: texts.join('\n'), isError: value.isError === true }
}

/**
 * The stand-in for a media part, or undefined for another part: inline bytes by MIME type (`[image]`, `[audio]`,
 * `[video]`, `[file: application/pdf]`), a file by its URI (`[file: gs://…]`).
 */
function mediaPlaceholder(part: Record<string, unknown>): string | undefined {
  const file = field(part, 'fileData', 'file_data')
  if (file !== undefined) return placeholder('file', isRecord(file) ? field(file, 'fileUri', 'file_uri') : undefined)
  const inline = field(part, 'inlineData', 'inline_data')
  if (inline === undefined) return undefined
  const mime = isRecord(inline) ? field(inline, 'mimeType', 'mime_type') : undefined
  if (typeof mime !== 'string') return placeholder('file')
  const family = mime.slice(0, mime.indexOf('/'))
  return family === 'image' || family === 'audio' || family === 'video' ? placeholder(family) : placeholder('file', mime)
}

interface ReadState {
  readonly open: OpenCalls
  /** Keys of parts of no known kind, with their count (reported once each). */
  readonly unknownParts: Map<string, number>
  snake: boolean
}

/** Reads one part (see the module's comment). */
function readPart(context: DocumentContext, raw: unknown, at: string, state: ReadState): Part {
  const part = expectRecord(context, raw, at, 'a part object')
  const kind = partKind(part)
  if (kind?.snake) state.snake = true
  switch (kind?.kind) {
    case 'text': {
      const text = expectString(context, part.text, pointerTo(at, 'text'))
      if (part.thought === true) return { type: 'reasoning', text }
      return text.includes(SNAPSHOT_OPEN) ? { type: 'summary', text, source: 'gemini-cli' } : { type: 'text', text }
    }
    case 'functionCall': {
      const callAt = pointerTo(at, kind.snake ? 'function_call' : 'functionCall')
      const call = expectRecord(context, field(part, 'functionCall', 'function_call'), callAt, 'a function call object {name, args}')
      const name = expectString(context, call.name, pointerTo(callAt, 'name'))
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : `${CALL_PREFIX}${at}`
      state.open.ids.add(id)
      const queue = state.open.byName.get(name)
      if (queue) queue.push(id)
      else state.open.byName.set(name, [id])
      return { type: 'tool-call', id, name, arguments: call.args ?? {} }
    }
    case 'functionResponse': {
      const responseAt = pointerTo(at, kind.snake ? 'function_response' : 'functionResponse')
      const response = expectRecord(context, field(part, 'functionResponse', 'function_response'), responseAt, 'a function response object {name, response}')
      const name = expectString(context, response.name, pointerTo(responseAt, 'name'))
      const callId = answer(state.open, name, typeof response.id === 'string' && response.id !== '' ? response.id : undefined) ?? `${RESPONSE_PREFIX}${at}`
      const { content, isError } = responseContent(response.response)
      // A multimodal response carries media parts of its own after the response.
      const media = Array.isArray(response.parts) ? response.parts.flatMap((inner) => (isRecord(inner) ? (mediaPlaceholder(inner) ?? []) : [])) : []
      return { type: 'tool-result', callId, name, content: [content, ...media].join('\n'), isError }
    }
    case 'executableCode': {
      const code = expectRecord(context, field(part, 'executableCode', 'executable_code'), pointerTo(at, kind.snake ? 'executable_code' : 'executableCode'))
      const id = `${CODE_PREFIX}${at}`
      state.open.code = id
      return { type: 'tool-call', id, name: CODE_EXECUTION, arguments: { language: code.language ?? 'PYTHON', code: code.code ?? '' } }
    }
    case 'codeExecutionResult': {
      const result = expectRecord(context, field(part, 'codeExecutionResult', 'code_execution_result'), pointerTo(at, kind.snake ? 'code_execution_result' : 'codeExecutionResult'))
      const callId = state.open.code ?? `${RESPONSE_PREFIX}${at}`
      state.open.code = undefined
      const outcome = result.outcome
      return { type: 'tool-result', callId, name: CODE_EXECUTION, content: typeof result.output === 'string' ? result.output : '', isError: outcome !== undefined && outcome !== 'OUTCOME_OK' }
    }
    case 'inlineData':
    case 'fileData':
      return { type: 'text', text: mediaPlaceholder(part)! }
    default: {
      const key = Object.keys(part).find((name) => !PART_EXTRAS.has(name))
      if (key === undefined) return fail(context, at, 'a part with text, functionCall, functionResponse, inlineData, fileData, executableCode or codeExecutionResult', part)
      state.unknownParts.set(key, (state.unknownParts.get(key) ?? 0) + 1)
      return { type: 'text', text: placeholder(key) }
    }
  }
}

/** The id of the call a response answers (by `id`, else the oldest open call of `name`), closing it; or undefined. */
function answer(open: OpenCalls, name: string, id: string | undefined): string | undefined {
  const queue = open.byName.get(name)
  if (id !== undefined) {
    if (!open.ids.has(id)) return id
    open.ids.delete(id)
    const at = queue?.indexOf(id) ?? -1
    if (at >= 0) queue!.splice(at, 1)
    return id
  }
  const oldest = queue?.shift()
  if (oldest !== undefined) open.ids.delete(oldest)
  return oldest
}

/** Normalizes one content. */
function normalizeContent(context: DocumentContext, raw: unknown, pointer: string, state: ReadState): NormalizedRecord {
  const content = expectRecord(context, raw, pointer, 'a content object {role, parts}')
  const role = content.role
  if (role !== undefined && role !== 'user' && role !== 'model' && role !== 'function') fail(context, pointerTo(pointer, 'role'), 'role "user", "model" or "function"', role)
  const partsAt = pointerTo(pointer, 'parts')
  const parts = expectArray(context, listOf(content.parts), partsAt, 'an array of parts').map((part, index) => readPart(context, part, pointerTo(partsAt, index), state))
  if (role === 'model') return { role: 'assistant', parts: nonEmpty(parts) }
  const allResults = parts.length > 0 && parts.every((part) => part.type === 'tool-result')
  return { role: role === 'function' || allResults ? 'tool' : 'user', parts: nonEmpty(parts) }
}

/** Normalizes `systemInstruction`: a Content (its role ignored), a list of parts, or a string. */
function normalizeSystem(context: DocumentContext, raw: unknown, pointer: string): NormalizedRecord {
  if (typeof raw === 'string') return { role: 'system', parts: [{ type: 'text', text: expectString(context, raw, pointer) }] }
  const partsAt = Array.isArray(raw) ? pointer : pointerTo(pointer, 'parts')
  const list = Array.isArray(raw) ? raw : expectArray(context, listOf(expectRecord(context, raw, pointer, 'a content object or a string').parts), partsAt, 'an array of parts')
  const parts = list.map((part, index): Part => {
    const at = pointerTo(partsAt, index)
    const record = expectRecord(context, part, at, 'a text part')
    return { type: 'text', text: expectString(context, record.text, pointerTo(at, 'text'), 'a text part of the system instruction') }
  })
  return { role: 'system', parts: nonEmpty(parts) }
}

async function read(source: Parameters<TranscriptFormatV1['read']>[0], options?: Parameters<TranscriptFormatV1['read']>[1]): Promise<Transcript> {
  const read = await readJsonDocument(source, options)
  const { context } = read
  // The REST API takes one Content where a list of them is expected (`"contents": {"parts": …}`, as Google's own
  // cookbook sends it): read as a list of one, written back as a list.
  const one = isRecord(read.value) && isRecord(read.value.contents) && 'parts' in read.value.contents
  const value = one ? { ...(read.value as Record<string, unknown>), contents: [(read.value as Record<string, unknown>).contents] } : read.value
  const { items, base, envelope } = unwrapArray(context, value, ['contents', 'history'], 'an array of Gemini contents, or an object with `contents` (a generateContent request) or `history` (a Gemini CLI checkpoint)')
  const state: ReadState = { open: newOpenCalls(), unknownParts: new Map(), snake: false }
  const messages: Message[] = []
  let systemKey: string | undefined
  if (envelope.kind === 'object') {
    systemKey = ['systemInstruction', 'system_instruction'].find((key) => envelope.object[key] !== undefined && envelope.object[key] !== null)
    if (systemKey === 'system_instruction') state.snake = true
    if (systemKey !== undefined) messages.push(toMessage(context, normalizeSystem(context, envelope.object[systemKey], pointerTo('', systemKey)), pointerTo('', systemKey), envelope.object[systemKey]))
  }
  const carried: CarriedItem[] = []
  const warnings: string[] = []
  let previous: string | undefined
  items.forEach((item, index) => {
    const pointer = pointerTo(base, index)
    const role = isRecord(item) ? item.role : undefined
    if (typeof role === 'string' && role !== 'user' && role !== 'model' && role !== 'function') {
      const carry = carryItem(context, item, pointer, previous, `role ${JSON.stringify(role)} is not a Gemini API role (user, model, function${role === 'system' ? '; a system prompt goes in `systemInstruction`' : ''})`)
      carried.push(carry.carried)
      warnings.push(carry.warning)
      return
    }
    messages.push(toMessage(context, normalizeContent(context, item, pointer, state), pointer, item))
    previous = pointer
  })
  for (const [key, count] of state.unknownParts) {
    warnings.push(`${context.file}: ${count} part${count === 1 ? '' : 's'} of an unknown kind (${JSON.stringify(key)}) read as "[${key}]"`)
  }
  const written: GeminiEnvelope = { ...envelope, ...(carried.length > 0 ? { carried } : {}), style: state.snake ? 'snake' : 'camel', ...(systemKey === undefined ? {} : { systemKey }) }
  return finishTranscript('gemini', messages, written, warnings)
}

/** `camel` or its snake_case form, as the document writes keys. */
function key(style: KeyStyle, camel: keyof typeof PART_KEYS | 'systemInstruction'): string {
  if (style === 'camel') return camel
  return camel === 'systemInstruction' ? 'system_instruction' : PART_KEYS[camel]
}

/** A native part for a part that has no (or a stale) source. */
function synthesizePart(part: Part, style: KeyStyle, callNames: ReadonlyMap<string, string>): Record<string, unknown> {
  switch (part.type) {
    case 'text':
    case 'summary':
      return { text: part.text }
    case 'reasoning':
      return { text: part.text, thought: true }
    case 'tool-call': {
      if (part.id.startsWith(CODE_PREFIX) && isRecord(part.arguments)) return { [key(style, 'executableCode')]: { language: part.arguments.language ?? 'PYTHON', code: part.arguments.code ?? '' } }
      const id = part.id.startsWith(CALL_PREFIX) ? {} : { id: part.id }
      return { [key(style, 'functionCall')]: { ...id, name: part.name, args: part.arguments ?? {} } }
    }
    case 'tool-result': {
      if (part.callId.startsWith(CODE_PREFIX)) return { [key(style, 'codeExecutionResult')]: { outcome: part.isError ? 'OUTCOME_FAILED' : 'OUTCOME_OK', output: part.content } }
      const id = part.callId.startsWith(CALL_PREFIX) || part.callId.startsWith(RESPONSE_PREFIX) ? {} : { id: part.callId }
      const name = part.name ?? callNames.get(part.callId) ?? 'tool'
      return { [key(style, 'functionResponse')]: { ...id, name, response: part.isError ? { error: part.content } : { output: part.content } } }
    }
  }
}

/** Copies made-up ids from the message read, so a re-read out of its document's order compares as the same. */
function withMadeUpIds(again: NormalizedRecord, message: Message): NormalizedRecord {
  const madeUp = (id: string) => id.startsWith(CALL_PREFIX) || id.startsWith(RESPONSE_PREFIX) || id.startsWith(CODE_PREFIX)
  const parts = again.parts.map((part, index): Part => {
    const original = message.parts[index]
    if (part.type === 'tool-call' && original?.type === 'tool-call' && madeUp(part.id)) return { ...part, id: original.id }
    if (part.type === 'tool-result' && original?.type === 'tool-result' && madeUp(part.callId)) return { ...part, callId: original.callId }
    return part
  })
  return { ...again, parts }
}

function write(transcript: Transcript): string {
  const context: DocumentContext = { file: '<write>', keepSource: false }
  const envelope = (transcript.envelope as GeminiEnvelope | undefined) ?? { kind: 'array', style: 'camel' }
  const style = envelope.style ?? 'camel'
  const callNames = new Map<string, string>()
  for (const message of transcript.messages) for (const part of message.parts) if (part.type === 'tool-call') callNames.set(part.id, part.name)
  let index = 0
  const leading: Message[] = []
  // Leading system messages become the system instruction of a request; a bare contents array has none to hold them.
  if (envelope.kind === 'object') while (index < transcript.messages.length && transcript.messages[index]!.role === 'system') leading.push(transcript.messages[index++]!)
  let system: unknown
  if (leading.length === 1 && envelope.systemKey !== undefined && isUnchanged(leading[0]!, (source) => normalizeSystem(context, source, ''))) system = leading[0]!.source
  else if (leading.length > 0) system = { parts: leading.flatMap((message) => message.parts.map((part) => synthesizePart(part, style, callNames))) }
  const items = writeWithCarried(envelope, transcript.messages.slice(index), (message) => {
    // Re-read alone, a response answers no call: its made-up id, and every other made-up one, comes from the message.
    const fresh = (): ReadState => ({ open: newOpenCalls(), unknownParts: new Map(), snake: false })
    const unchanged = isUnchanged(message, (source) => withMadeUpIds(normalizeContent(context, source, message.provenance?.pointer ?? '', fresh()), message))
    if (unchanged) return [message.source]
    return [{ role: message.role === 'assistant' ? 'model' : 'user', parts: message.parts.map((part) => synthesizePart(part, style, callNames)) }]
  })
  if (envelope.kind !== 'object') return stringifyDocument(items)
  const object: Record<string, unknown> = { ...envelope.object }
  const systemKey = envelope.systemKey ?? key(style, 'systemInstruction')
  if (system === undefined) delete object[systemKey]
  else object[systemKey] = system
  object[envelope.key] = items
  return stringifyDocument(object)
}

/** Keys of a request object that only a generateContent request has. */
const REQUEST_KEYS = ['systemInstruction', 'system_instruction', 'generationConfig', 'generation_config', 'safetySettings', 'safety_settings', 'toolConfig', 'tool_config', 'cachedContent', 'cached_content']

/**
 * How sure the head is Gemini contents: every content seen has `parts` (an array of objects without a `type`, each of
 * a kind Gemini has), no `content`, and a Gemini role or none; 0.95 when one is the model's or holds a part only Gemini has, or the object
 * is a request (`systemInstruction`, `generationConfig`, …) or a checkpoint (`history`); 0.8 for user text alone.
 */
export function detectGemini(head: string): number {
  const first = head.trimStart().replace(/^\uFEFF/, '')[0]
  if (first !== '[' && first !== '{') return 0
  const scanned = scanJsonPrefix(head)
  if (scanned.errorOffset !== undefined) return 0
  const value = scanned.value
  let items: unknown
  let strong = false
  if (Array.isArray(value)) items = value
  else if (isRecord(value)) {
    items = Array.isArray(value.contents) ? value.contents : isRecord(value.contents) && 'parts' in value.contents ? [value.contents] : Array.isArray(value.history) ? value.history : undefined
    strong = REQUEST_KEYS.some((name) => name in value) || (Array.isArray(value.history) && !('contents' in value))
  }
  if (!Array.isArray(items)) return 0
  let observed = 0
  for (const item of items.slice(0, 256)) {
    if (!isRecord(item)) return 0
    if ('content' in item || 'type' in item || !('parts' in item)) return 0
    const role = item.role
    if (role === 'model' || role === 'function') strong = true
    else if (role !== undefined && role !== 'user' && role !== 'system') return 0
    const parts = listOf(item.parts)
    if (!Array.isArray(parts)) return 0
    for (const part of parts.slice(0, 64)) {
      // Every part is of a kind Gemini has (pydantic-ai's `{parts: [{part_kind, content}]}` is not).
      if (!isRecord(part) || 'type' in part) return 0
      const kind = partKind(part)?.kind
      if (kind === undefined) return 0
      if (kind !== 'text') strong = true
    }
    observed++
  }
  if (observed === 0) return isRecord(value) && strong ? 0.9 : 0
  return strong ? 0.95 : 0.8
}

/**
 * Gemini API contents: a generateContent request, a bare `Content[]`, or a Gemini CLI `/chat save` checkpoint
 * (see the module's comment).
 */
export const geminiFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'gemini',
  layout: 'document',
  detect: detectGemini,
  read,
  write,
}

import { InvalidInputError } from '../../errors.js'
import type { FormatSource, ReadOptions } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { assertJsonDepth, isJsonText, parseJson } from '../json.js'
import { pairToolCalls } from '../render.js'
import { isRecord } from '../_json-prefix.js'

/** Longest single string a reader accepts: 64 Mi UTF-16 code units (about 64 MiB of ASCII). */
export const MAX_STRING_LENGTH = 64 * 1024 * 1024

/** Where a reader is in a document: the file name for errors, and whether messages keep their native records. */
export interface DocumentContext {
  readonly file: string
  readonly keepSource: boolean
}

/** Reads a JSON document: syntax errors as `file:line:column: expected … got …`, hostile nesting refused. */
export async function readJsonDocument(source: FormatSource, options: ReadOptions | undefined): Promise<{ value: unknown; context: DocumentContext }> {
  const text = await source.text()
  const value = parseJson(text, source.name)
  assertJsonDepth(value, source.name)
  return { value, context: { file: source.name, keepSource: options?.keepSource ?? true } }
}

/** Names a JSON value's kind for `got …` in error messages (strings are quoted, cut at 40 characters). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  return typeof value
}

/** Throws `file: /pointer: expected EXPECTED, got KIND`. */
export function fail(context: DocumentContext, pointer: string, expected: string, got: unknown): never {
  throw new InvalidInputError(`expected ${expected}, got ${describeValue(got)}`, { file: context.file, field: pointer || '/' })
}

/** Appends one reference token to a JSON pointer (RFC 6901 escaping). */
export function pointerTo(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}/${key}`
  return `${base}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`
}

/** The string at `pointer`, refusing other types and strings over {@link MAX_STRING_LENGTH}. */
export function expectString(context: DocumentContext, value: unknown, pointer: string, expected = 'a string'): string {
  if (typeof value !== 'string') fail(context, pointer, expected, value)
  if (value.length > MAX_STRING_LENGTH) {
    throw new InvalidInputError(`expected a string of at most 64 MiB, got ${Math.ceil(value.length / 1024 / 1024)} MiB`, {
      file: context.file,
      field: pointer,
    })
  }
  return value
}

/** The object at `pointer`. */
export function expectRecord(context: DocumentContext, value: unknown, pointer: string, expected = 'an object'): Record<string, unknown> {
  if (!isRecord(value)) fail(context, pointer, expected, value)
  return value
}

/** The array at `pointer`. */
export function expectArray(context: DocumentContext, value: unknown, pointer: string, expected = 'an array'): unknown[] {
  if (!Array.isArray(value)) fail(context, pointer, expected, value)
  return value
}

/** An optional boolean field (absent or null = `fallback`). */
export function optionalBoolean(context: DocumentContext, record: Record<string, unknown>, key: string, pointer: string, fallback = false): boolean {
  const value = record[key]
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean') fail(context, pointerTo(pointer, key), 'a boolean', value)
  return value
}

/**
 * Tool-call arguments from their JSON string form: the parsed value, or the raw string when it is not JSON
 * (models do emit broken JSON; the text still counts toward the floor).
 */
export function parseArguments(context: DocumentContext, value: unknown, pointer: string): unknown {
  const text = expectString(context, value, pointer, 'a JSON string of arguments')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return text
  }
  assertJsonDepth(parsed, `${context.file}: ${pointer}`)
  return parsed
}

/** Serializes parsed tool-call arguments back to the JSON string the APIs expect. */
export function stringifyArguments(value: unknown): string {
  // A string that is itself JSON text can only have come from a JSON string literal; any other string is the
  // raw (broken) text a model emitted, which goes back as it was.
  if (typeof value === 'string') return isJsonText(value) ? JSON.stringify(value) : value
  return value === undefined ? '{}' : JSON.stringify(value)
}


/** A short stand-in for content that is not text: `[image]`, `[file: report.pdf]`. Documented in the formats' docs. */
export function placeholder(kind: string, label?: unknown): string {
  return typeof label === 'string' && label !== '' ? `[${kind}: ${label}]` : `[${kind}]`
}

/** How the message array sat in the document, so a writer can put it back: a bare array or one key of an object. */
export type ArrayEnvelope = (
  | { readonly kind: 'array' }
  | { readonly kind: 'object'; readonly key: string; readonly object: Readonly<Record<string, unknown>> }
) & {
  /** Items no message was read from, written back in place (see {@link CarriedItem}). */
  readonly carried?: readonly CarriedItem[]
}

/**
 * A native item no message is read from: one with a role the reader does not know (an agent harness's trailing
 * `{"role": "exit", "content": "", "extra": {…}}`). It rides in the envelope, so the core never sees it and no
 * summary can fold it in; a writer puts it back exactly as it was, right after the message it followed (or, when that
 * message was compacted away, before the next message that came after it in the input, or at the end).
 */
export interface CarriedItem {
  /** JSON pointer of the item in the input: its array's pointer, `/`, its index. */
  readonly pointer: string
  /** Pointer of the message read just before it from the same array; absent when it came first there. */
  readonly after?: string
  /** The item, as it was. */
  readonly item: unknown
}

/** Builds the carried item at `pointer` and the one-line warning that reports it. */
export function carryItem(context: DocumentContext, item: unknown, pointer: string, after: string | undefined, what: string): { carried: CarriedItem; warning: string } {
  return {
    carried: { pointer, ...(after === undefined ? {} : { after }), item },
    warning: `${context.file}: ${pointer}: ${what}; the item is kept as it is, outside every summary, and not read as a message`,
  }
}

/** An array pointer's array and index (`/messages/3` → `/messages`, 3); no index for other pointers (`/system`). */
function splitPointer(pointer: string | undefined): { list: string; index: number } | undefined {
  if (pointer === undefined) return undefined
  const slash = pointer.lastIndexOf('/')
  const token = pointer.slice(slash + 1)
  if (slash === -1 || !/^(0|[1-9][0-9]{0,15})$/.test(token)) return undefined
  return { list: pointer.slice(0, slash), index: Number(token) }
}

/**
 * Puts carried items back among the messages a writer writes, in one pass: `leading()` first, then for each message
 * `before(message)`, the message's own records, `after(message)`, and finally `rest()`. Each item is handed out once.
 */
export class CarriedWriter {
  private readonly lists = new Map<string, { items: Array<{ index: number; carried: CarriedItem }>; next: number }>()
  private readonly following = new Map<string, CarriedItem[]>()
  private readonly written = new Set<CarriedItem>()

  constructor(private readonly carried: readonly CarriedItem[] = []) {
    for (const item of carried) {
      const at = splitPointer(item.pointer)
      if (at) {
        let list = this.lists.get(at.list)
        if (!list) this.lists.set(at.list, (list = { items: [], next: 0 }))
        list.items.push({ index: at.index, carried: item })
      }
      if (item.after !== undefined) this.following.set(item.after, [...(this.following.get(item.after) ?? []), item])
    }
    for (const list of this.lists.values()) list.items.sort((a, b) => a.index - b.index)
  }

  /** Items that came before every message of their array. */
  leading(): CarriedItem[] {
    return this.take(this.carried.filter((item) => item.after === undefined))
  }

  /** Items that came before `message` in its array and are not written yet (the message they followed is gone). */
  before(message: Message): CarriedItem[] {
    const at = splitPointer(message.provenance?.pointer)
    const list = at && this.lists.get(at.list)
    if (!at || !list) return []
    const due: CarriedItem[] = []
    while (list.next < list.items.length && list.items[list.next]!.index < at.index) due.push(list.items[list.next++]!.carried)
    return this.take(due)
  }

  /** Items that came right after `message` in the input. */
  after(message: Message): CarriedItem[] {
    const pointer = message.provenance?.pointer
    return pointer === undefined ? [] : this.take(this.following.get(pointer) ?? [])
  }

  /** Items not written yet, in input order. */
  rest(): CarriedItem[] {
    return this.take(this.carried)
  }

  private take(items: readonly CarriedItem[]): CarriedItem[] {
    const fresh = items.filter((item) => !this.written.has(item))
    for (const item of fresh) this.written.add(item)
    return fresh
  }
}

/** Finds the message array: the document itself, or the first of `keys` that holds an array. */
export function unwrapArray(
  context: DocumentContext,
  value: unknown,
  keys: readonly string[],
  expected: string,
): { items: unknown[]; base: string; envelope: ArrayEnvelope } {
  if (Array.isArray(value)) return { items: value, base: '', envelope: { kind: 'array' } }
  if (isRecord(value)) {
    for (const key of keys) {
      if (Array.isArray(value[key])) {
        // The envelope keeps the other keys (in order) but not the items: `keepSource: false` must free them.
        return { items: value[key] as unknown[], base: pointerTo('', key), envelope: { kind: 'object', key, object: { ...value, [key]: [] } } }
      }
    }
    const present = keys.find((key) => key in value)
    if (present !== undefined) fail(context, pointerTo('', present), 'an array', value[present])
  }
  return fail(context, '', expected, value)
}

/** Puts a written item array back into its envelope (other keys kept, in their order). */
export function wrapArray(envelope: unknown, items: unknown[]): unknown {
  const known = envelope as ArrayEnvelope | undefined
  if (known?.kind !== 'object') return items
  return { ...known.object, [known.key]: items }
}

/**
 * Writes a message array with its carried items back in place: `records` gives each message's native records.
 */
export function writeWithCarried(envelope: unknown, messages: readonly Message[], records: (message: Message, index: number) => unknown[]): unknown[] {
  const carried = new CarriedWriter((envelope as ArrayEnvelope | undefined)?.carried)
  const items: unknown[] = carried.leading().map((entry) => entry.item)
  messages.forEach((message, index) => {
    for (const entry of carried.before(message)) items.push(entry.item)
    for (const record of records(message, index)) items.push(record)
    for (const entry of carried.after(message)) items.push(entry.item)
  })
  for (const entry of carried.rest()) items.push(entry.item)
  return items
}

/** Serializes a written document: 2-space indent and a final newline. */
export function stringifyDocument(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** The normalized content of one native record (or group of records), before provenance is attached. */
export interface NormalizedRecord {
  readonly role: Role
  readonly parts: readonly Part[]
  readonly name?: string
}

/**
 * Refuses an AI SDK UI message (v4's `{role, content, parts, toolInvocations}`; v5's `{role, parts}`): its tool calls
 * and results live in `parts` / `toolInvocations`, which a reader of `content` alone would drop without a word.
 */
export function refuseUiMessage(context: DocumentContext, record: Record<string, unknown>, pointer: string): void {
  const invocations = record.toolInvocations !== undefined
  // AI SDK parts are typed (`{type: 'text', …}`); another API's untyped parts (Gemini's) get that reader's own error.
  const typedParts = Array.isArray(record.parts) && record.parts.some((part) => isRecord(part) && typeof part.type === 'string')
  if (!invocations && !typedParts) return
  fail(
    context,
    pointerTo(pointer, invocations ? 'toolInvocations' : 'parts'),
    'a message without `parts` or `toolInvocations` (this is an AI SDK UIMessage: convert it with convertToModelMessages and read the ModelMessages with --format ai-sdk)',
    invocations ? record.toolInvocations : record.parts,
  )
}

/** Guarantees a message has at least one part: an empty native message becomes one empty text part. */
export function nonEmpty(parts: Part[]): Part[] {
  return parts.length > 0 ? parts : [{ type: 'text', text: '' }]
}

/** Builds a message from its normalized content, its pointer and (when kept) its native record(s). */
export function toMessage(context: DocumentContext, normalized: NormalizedRecord, pointer: string, source: unknown): Message {
  return {
    role: normalized.role,
    parts: normalized.parts,
    provenance: { pointer },
    ...(normalized.name === undefined ? {} : { name: normalized.name }),
    ...(context.keepSource ? { source } : {}),
  }
}

/** Assembles a transcript: tool calls paired across all messages, unpaired ones reported, with the reader's warnings (each kind's first few, then how many more). */
export function finishTranscript(format: string, messages: Message[], envelope: unknown, warnings: readonly string[] = []): Transcript {
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format, messages, pairs, unpaired, ...(envelope === undefined ? {} : { envelope }), ...(warnings.length > 0 ? { warnings } : {}) }
}

/** Deep equality of JSON-like values (object key order ignored). Iterative. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[left, right]]
  while (stack.length > 0) {
    const [a, b] = stack.pop()!
    if (a === b) continue
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
    if (Array.isArray(a) !== Array.isArray(b)) return false
    if (Array.isArray(a)) {
      const other = b as unknown[]
      if (a.length !== other.length) return false
      a.forEach((item, index) => stack.push([item, other[index]]))
      continue
    }
    const aRecord = a as Record<string, unknown>
    const bRecord = b as Record<string, unknown>
    const aKeys = Object.keys(aRecord).filter((key) => aRecord[key] !== undefined)
    const bKeys = Object.keys(bRecord).filter((key) => bRecord[key] !== undefined)
    if (aKeys.length !== bKeys.length) return false
    for (const key of aKeys) {
      if (!Object.hasOwn(bRecord, key)) return false
      stack.push([aRecord[key], bRecord[key]])
    }
  }
  return true
}

/**
 * Whether a message still says what its native `source` says, so a writer may hand the source back unchanged.
 * `renormalize` re-reads the source; the message is unchanged when role, name and parts all match.
 */
export function isUnchanged(message: Message, renormalize: (source: unknown) => NormalizedRecord | undefined): boolean {
  if (message.source === undefined) return false
  let again: NormalizedRecord | undefined
  try {
    again = renormalize(message.source)
  } catch {
    return false
  }
  return again !== undefined && again.role === message.role && again.name === message.name && jsonEqual(again.parts, message.parts)
}

/** Joins the texts of parts of the given types with `separator`. */
export function joinTexts(parts: readonly Part[], separator = '\n'): string {
  return parts
    .map((part) => (part.type === 'tool-call' ? '' : part.type === 'tool-result' ? part.content : part.text))
    .join(separator)
}

/**
 * Valid transcripts, corruptions of them (a field deleted or replaced by a wrong-typed value, at a random message or
 * part) and a plain oracle of the model's shapes, written from `spec/transcript.ts` alone (it imports nothing it
 * checks): the entry points' validation property tests share them.
 */

import fc from 'fast-check'
import { expect } from 'vitest'
import type { Message, ToolPair } from '../../spec/transcript.js'

const TEXTS = [
  'Never delete /var/data. Use port 5432 exactly.',
  'now fix OSError: [Errno 2] No such file: /tmp/x',
  'ok, running ls /var/data',
  'Set MAX_WORKERS=4 in config/app.yaml and pin numpy==1.26.4',
  'done',
]

/** Each turn: a user text, an assistant text or a tool call with its result. */
const turn = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), text: fc.constantFrom(...TEXTS), name: fc.option(fc.constant('alice'), { nil: undefined }), line: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }) }),
  fc.record({ kind: fc.constant('assistant' as const), text: fc.constantFrom(...TEXTS), reasoning: fc.boolean() }),
  fc.record({
    kind: fc.constant('tool' as const),
    args: fc.constantFrom<unknown>({ command: 'ls /var/data' }, 'cat /etc/hosts', { path: '/tmp/x', edits: [{ old: 'a', new: 'b' }], depth: 2 }, undefined, null),
    error: fc.boolean(),
  }),
)

/** A valid transcript's messages: a system prompt, then 2 to 7 turns. */
export const validMessages: fc.Arbitrary<Message[]> = fc.array(turn, { minLength: 2, maxLength: 7 }).map((turns) => {
  const messages: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }], source: { native: true } }]
  turns.forEach((entry, index) => {
    if (entry.kind === 'user') {
      messages.push({ role: 'user', parts: [{ type: 'text', text: entry.text }], ...(entry.name ? { name: entry.name } : {}), ...(entry.line ? { provenance: { line: entry.line, pointer: `/messages/${index}` } } : {}) })
    } else if (entry.kind === 'assistant') {
      messages.push({ role: 'assistant', parts: [...(entry.reasoning ? [{ type: 'reasoning' as const, text: 'think about /var/data' }] : []), { type: 'text', text: entry.text }] })
    } else {
      const id = `call_${index}`
      messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id, name: 'bash', arguments: entry.args }] })
      messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, name: 'bash', content: entry.error ? 'Error: exit 1 at /tmp/x' : 'ok', isError: entry.error }] })
    }
  })
  messages.push({ role: 'user', parts: [{ type: 'summary', text: 'earlier: port 5432', source: 'codex' }] })
  return messages
})

function cyclic(): unknown {
  const value: Record<string, unknown> = { a: 1 }
  value.self = value
  return value
}

function deep(levels: number): unknown {
  let value: unknown = 1
  for (let level = 0; level < levels; level++) value = { a: value }
  return value
}

/** Values of a wrong type for some field (fresh each time: some are mutable). */
const BAD_VALUES: ReadonlyArray<() => unknown> = [
  () => null,
  () => undefined,
  () => 42,
  () => Number.NaN,
  () => '',
  () => 'text',
  () => true,
  () => ({}),
  () => [],
  () => [null],
  () => ({ type: 'image', data: 'x' }),
  () => 10n,
  () => Symbol('s'),
  () => () => 1,
  cyclic,
  () => deep(600),
  () => ({ get x() { throw new Error('getter boom') } }),
  () => new Date(0),
]

/** Which field of which message or part, and what becomes of it. */
export interface Corruption {
  readonly message: number
  /** The part's index (wrapped to the message's parts), or none for a message field. */
  readonly part: number | undefined
  /** Index into the target's field list (wrapped); the list's first entry is the target itself. */
  readonly field: number
  /** `undefined`: delete the field; else an index into the bad values. */
  readonly value: number | undefined
}

export const corruption: fc.Arbitrary<Corruption> = fc.record({
  message: fc.nat(),
  part: fc.option(fc.nat(), { nil: undefined }),
  field: fc.nat(),
  value: fc.option(fc.nat({ max: BAD_VALUES.length - 1 }), { nil: undefined }),
})

const MESSAGE_FIELDS = ['', 'role', 'parts', 'name', 'provenance', 'provenance.line', 'provenance.pointer', 'source']
const PART_FIELDS: Record<string, string[]> = {
  text: ['', 'type', 'text'],
  reasoning: ['', 'type', 'text'],
  summary: ['', 'type', 'text', 'source'],
  'tool-call': ['', 'type', 'id', 'name', 'arguments', 'arguments.command'],
  'tool-result': ['', 'type', 'callId', 'name', 'content', 'isError'],
}

/** `messages` with one corruption applied (copies along the path; the input is never changed), and its path. */
export function corrupt(messages: readonly Message[], corruption: Corruption): { messages: unknown[]; messageIndex: number; field: string } {
  const copy: unknown[] = [...messages]
  const messageIndex = corruption.message % messages.length
  const message = { ...messages[messageIndex]! } as Record<string, unknown>
  const parts = [...messages[messageIndex]!.parts] as unknown[]
  message.parts = parts
  copy[messageIndex] = message
  let target: Record<string, unknown>
  let fields: string[]
  let holder: (value: unknown) => void
  if (corruption.part === undefined || parts.length === 0) {
    target = message
    fields = MESSAGE_FIELDS
    holder = (value) => (copy[messageIndex] = value)
  } else {
    const partIndex = corruption.part % parts.length
    target = { ...(parts[partIndex] as Record<string, unknown>) }
    parts[partIndex] = target
    fields = PART_FIELDS[target.type as string]!
    holder = (value) => (parts[partIndex] = value)
  }
  const field = fields[corruption.field % fields.length]!
  const value = corruption.value === undefined ? undefined : BAD_VALUES[corruption.value]!()
  const deleting = corruption.value === undefined
  if (field === '') holder(value)
  else {
    const [head, tail] = field.split('.') as [string, string | undefined]
    if (tail === undefined) {
      if (deleting) delete target[head]
      else target[head] = value
    } else {
      const inner = target[head]
      const innerCopy: Record<string, unknown> = inner !== null && typeof inner === 'object' ? { ...(inner as Record<string, unknown>) } : {}
      if (deleting) delete innerCopy[tail]
      else innerCopy[tail] = value
      target[head] = innerCopy
    }
  }
  return { messages: copy, messageIndex, field }
}

// The oracle: the model's shapes as spec/transcript.ts states them, checked plainly.

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)
const isOptionalString = (value: unknown) => value === undefined || typeof value === 'string'

/** Whether `JSON.stringify` writes `value` as a plain JSON value: no cycle, BigInt, function, symbol, toJSON, throwing getter; ≤ 512 containers deep. */
function isJsonValue(value: unknown, depth: number, ancestors: readonly unknown[]): boolean {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return true
  if (typeof value !== 'object') return false
  if (depth > 512 || ancestors.includes(value)) return false
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  const children = Array.isArray(value) ? [...value] : Object.keys(value).map((key) => (value as Record<string, unknown>)[key])
  return children.every((child) => isJsonValue(child, depth + 1, [...ancestors, value]))
}

function isValidPart(part: unknown): boolean {
  if (!isObject(part)) return false
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return typeof part.text === 'string'
    case 'summary':
      return typeof part.text === 'string' && typeof part.source === 'string'
    case 'tool-call':
      return typeof part.id === 'string' && typeof part.name === 'string' && isJsonValue(part.arguments, 1, [])
    case 'tool-result':
      return typeof part.callId === 'string' && typeof part.content === 'string' && typeof part.isError === 'boolean' && isOptionalString(part.name)
    default:
      return false
  }
}

function isLine(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isInteger(value) && value >= 1)
}

/** Whether every message has the model's shape (and whether `pairs` still point at a call and a result of their id). */
export function specAccepts(messages: readonly unknown[], pairs: readonly ToolPair[] = []): boolean {
  try {
    const messagesValid = messages.every((message) => {
      if (!isObject(message)) return false
      if (!['system', 'user', 'assistant', 'tool'].includes(message.role as string)) return false
      if (!Array.isArray(message.parts) || !message.parts.every(isValidPart)) return false
      if (!isOptionalString(message.name)) return false
      const provenance = message.provenance
      if (provenance !== undefined && !(isObject(provenance) && isLine(provenance.line) && isLine(provenance.endLine) && isOptionalString(provenance.pointer))) return false
      return true
    })
    if (!messagesValid) return false
    return pairs.every((pair) => {
      const call = (messages[pair.call.message] as { parts: Array<Record<string, unknown>> }).parts[pair.call.part]
      const result = (messages[pair.result.message] as { parts: Array<Record<string, unknown>> }).parts[pair.result.part]
      return call?.type === 'tool-call' && call.id === pair.id && result?.type === 'tool-result' && result.callId === pair.id
    })
  } catch {
    return false
  }
}

/** The pairs of a valid transcript's calls and results, by id (every id is unique in {@link validMessages}). */
export function pairsOf(messages: readonly Message[]): ToolPair[] {
  const calls = new Map<string, { message: number; part: number }>()
  const pairs: ToolPair[] = []
  messages.forEach((message, messageIndex) =>
    message.parts.forEach((part, partIndex) => {
      if (part.type === 'tool-call') calls.set(part.id, { message: messageIndex, part: partIndex })
      if (part.type === 'tool-result' && calls.has(part.callId)) pairs.push({ id: part.callId, call: calls.get(part.callId)!, result: { message: messageIndex, part: partIndex } })
    }),
  )
  return pairs
}

/**
 * Runs `run` on the corrupted messages: a valid corruption must give a result (the same as the original's when only
 * `source`, which the core never reads, changed), an invalid one a `FloorguardError` with code `invalid-argument`
 * naming the corrupted message's index; never another error.
 */
export async function expectRefusedOrSame(
  original: unknown,
  corrupted: { messages: unknown[]; messageIndex: number; field: string },
  valid: boolean,
  run: (messages: unknown[]) => unknown,
): Promise<void> {
  let outcome: { value: unknown } | { error: unknown }
  try {
    outcome = { value: await run(corrupted.messages) }
  } catch (error) {
    outcome = { error }
  }
  if ('error' in outcome) {
    const error = outcome.error as { name?: string; code?: string; message?: string }
    expect({ valid, name: error?.name, code: error?.code, message: String(error?.message).slice(0, 300) }).toMatchObject({
      valid: false,
      name: expect.stringMatching(/^Floorguard/),
      code: 'invalid-argument',
      message: expect.stringContaining(`[${corrupted.messageIndex}]`),
    })
  } else {
    expect({ valid, field: corrupted.field }).toMatchObject({ valid: true })
    if (corrupted.field === 'source' && original !== undefined) expect(outcome.value).toEqual(original)
  }
}

/**
 * The one check of the transcript model at the library's entry points (`checkTranscript`, `planCompaction`,
 * `compactTranscript`, `createCompactor().maybeCompact`): every field of every message and part has the type
 * `spec/transcript.ts` gives it, and a tool call's `arguments` is a value `JSON.stringify` writes whole. A malformed
 * value is refused up front with a `FloorguardError('invalid-argument')` naming its path, instead of failing as a
 * `TypeError` deep inside an extractor. One pass: a few reads per message and part, plus one walk of each object
 * `arguments` (bounded by {@link MAX_ARGUMENT_DEPTH} and {@link MAX_ARGUMENT_VALUES}).
 */

import { FloorguardError } from '../errors.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { MAX_JSON_DEPTH } from './json.js'

/** Containers nested in one tool call's `arguments` at most (the readers' bound for a whole JSON document). */
export const MAX_ARGUMENT_DEPTH = MAX_JSON_DEPTH
/**
 * Values one tool call's `arguments` may hold, counted as `JSON.stringify` writes them (an object held twice counts
 * twice): an object graph that shares its nodes can write out exponentially more than it holds.
 */
export const MAX_ARGUMENT_VALUES = 1_000_000

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant', 'tool'])
const PART_TYPES = '"text", "reasoning", "tool-call", "tool-result" or "summary"'

/** Where a problem is: the caller's name and the path of the value it was given (`transcript.messages`, …). */
export interface ValidationPlace {
  /** The entry point, first in the message: `checkTranscript`, `createCompactor: maybeCompact(messages)`. */
  readonly caller: string
  /** The path of the messages array inside the caller's argument, e.g. `transcript.messages`. */
  readonly path: string
}

/** A value in a few characters, never through `JSON.stringify` (the value may be cyclic or hold a BigInt). */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `the string ${quote(value.slice(0, 40))}… (${value.length} characters)` : `the string ${quote(value)}`
    case 'number':
    case 'boolean':
      return String(value)
    case 'bigint':
      return `the BigInt ${value}n`
    case 'undefined':
      return 'undefined'
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
  }
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name
  return typeof name === 'string' && name !== 'Object' && name !== '' ? `a ${name}` : 'an object'
}

function quote(text: string): string {
  // Lone surrogates and control characters are escaped by JSON.stringify, which a string cannot make throw.
  return JSON.stringify(text)
}

function refuse(place: ValidationPlace, field: string, expected: string, got: string, cause?: unknown): never {
  throw new FloorguardError('invalid-argument', `${place.caller}: ${field}: expected ${expected}, got ${got}`, {
    location: { field },
    ...(cause === undefined ? {} : { cause }),
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Checks a list of messages against the transcript model, or throws `FloorguardError('invalid-argument')` naming
 * the first bad field, e.g. `checkTranscript: transcript.messages[5].parts[0].text: expected a string, got 42`.
 */
export function validateMessages(messages: unknown, place: ValidationPlace): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) refuse(place, place.path, 'an array of messages', describeValue(messages))
  for (let index = 0; index < messages.length; index++) {
    try {
      validateMessage(messages[index], index, place)
    } catch (error) {
      if (FloorguardError.is(error)) throw error
      // A getter or a proxy trap threw while the message was read: the message is not plain data.
      refuse(place, `${place.path}[${index}]`, 'a message of plain data', `an error reading it: ${(error as Error)?.message ?? String(error)}`, error)
    }
  }
}

function validateMessage(message: unknown, index: number, place: ValidationPlace): void {
  const at = `${place.path}[${index}]`
  if (!isObject(message)) refuse(place, at, 'a message object', describeValue(message))
  if (!ROLES.has(message.role)) refuse(place, `${at}.role`, '"system", "user", "assistant" or "tool"', describeValue(message.role))
  const parts = message.parts
  if (!Array.isArray(parts)) refuse(place, `${at}.parts`, 'an array of parts', describeValue(parts))
  if (message.name !== undefined && typeof message.name !== 'string') refuse(place, `${at}.name`, 'a string or undefined', describeValue(message.name))
  const provenance = message.provenance
  if (provenance !== undefined) {
    if (!isObject(provenance)) refuse(place, `${at}.provenance`, 'an object or undefined', describeValue(provenance))
    for (const key of ['line', 'endLine'] as const) {
      const line = provenance[key]
      if (line !== undefined && !(typeof line === 'number' && Number.isInteger(line) && line >= 1)) {
        refuse(place, `${at}.provenance.${key}`, 'a 1-based line number or undefined', describeValue(line))
      }
    }
    if (provenance.pointer !== undefined && typeof provenance.pointer !== 'string') refuse(place, `${at}.provenance.pointer`, 'a JSON pointer string or undefined', describeValue(provenance.pointer))
  }
  for (let partIndex = 0; partIndex < parts.length; partIndex++) validatePart(parts[partIndex], `${at}.parts[${partIndex}]`, place)
}

function validatePart(part: unknown, at: string, place: ValidationPlace): void {
  if (!isObject(part)) refuse(place, at, 'a part object', describeValue(part))
  const string = (key: string) => {
    if (typeof part[key] !== 'string') refuse(place, `${at}.${key}`, 'a string', describeValue(part[key]))
  }
  switch (part.type) {
    case 'text':
    case 'reasoning':
      string('text')
      return
    case 'summary':
      string('text')
      string('source')
      return
    case 'tool-call':
      string('id')
      string('name')
      validateArguments(part.arguments, `${at}.arguments`, place)
      return
    case 'tool-result':
      string('callId')
      string('content')
      if (typeof part.isError !== 'boolean') refuse(place, `${at}.isError`, 'a boolean', describeValue(part.isError))
      if (part.name !== undefined && typeof part.name !== 'string') refuse(place, `${at}.name`, 'a string or undefined', describeValue(part.name))
      return
    default:
      refuse(place, `${at}.type`, PART_TYPES, describeValue(part.type))
  }
}

const JSON_VALUE = `a JSON value (null, a boolean, a number, a string, arrays and plain objects of them, at most ${MAX_ARGUMENT_DEPTH} levels deep)`

/**
 * Checks that `JSON.stringify(value)` writes `value` whole and the same way every reader of arguments walks it:
 * no cycle, BigInt, function, symbol, `toJSON` method or throwing getter, at most {@link MAX_ARGUMENT_DEPTH}
 * containers deep and {@link MAX_ARGUMENT_VALUES} values. `undefined` members are allowed (JSON leaves them out).
 */
function validateArguments(value: unknown, at: string, place: ValidationPlace): void {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') refuse(place, at, JSON_VALUE, describeValue(value))
    return
  }
  // The keys from `arguments` down to the value being read, for the error's path; `ancestors` finds a cycle.
  const keys: Array<string | number> = []
  const ancestors = new Set<object>()
  let values = 0
  const pathOf = (): string => {
    const shown = keys.length > 8 ? [...keys.slice(0, 4), '…', ...keys.slice(-3)] : keys
    return at + shown.map((key) => (typeof key === 'number' ? `[${key}]` : key === '…' ? '…' : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${quote(key)}]`)).join('')
  }
  const visit = (current: unknown): void => {
    if (++values > MAX_ARGUMENT_VALUES) refuse(place, at, `${JSON_VALUE} of at most ${MAX_ARGUMENT_VALUES} values`, 'more')
    if (current === null || current === undefined) return
    const kind = typeof current
    if (kind === 'string' || kind === 'number' || kind === 'boolean') return
    if (kind !== 'object') refuse(place, pathOf(), JSON_VALUE, describeValue(current))
    const container = current as object
    if (ancestors.has(container)) refuse(place, pathOf(), JSON_VALUE, 'a cycle (an object that holds itself)')
    if (ancestors.size >= MAX_ARGUMENT_DEPTH) refuse(place, at, JSON_VALUE, `deeper nesting (more than ${MAX_ARGUMENT_DEPTH} levels)`)
    if (typeof (container as { toJSON?: unknown }).toJSON === 'function') refuse(place, pathOf(), `${JSON_VALUE}; toJSON is not called`, `${describeValue(container)} with a toJSON method`)
    ancestors.add(container)
    if (Array.isArray(container)) {
      for (let index = 0; index < container.length; index++) {
        keys.push(index)
        visit(container[index])
        keys.pop()
      }
    } else {
      for (const key of Object.keys(container)) {
        keys.push(key)
        visit((container as Record<string, unknown>)[key])
        keys.pop()
      }
    }
    ancestors.delete(container)
  }
  try {
    visit(value)
  } catch (error) {
    if (FloorguardError.is(error)) throw error
    refuse(place, pathOf(), JSON_VALUE, `an error reading it: ${(error as Error)?.message ?? String(error)}`, error)
  }
}

/** A pair's end: a message index and a part index (transcript indices). */
interface PairEnd {
  readonly message: number
  readonly part: number
}

/**
 * Checks the transcript's `pairs` against its messages (indices `offset ..`): each pair's end that falls among them
 * is a tool call (or result) of the pair's id. Ends outside them are not read.
 */
export function validatePairs(pairs: unknown, messages: readonly Message[], offset: number, path: string, place: ValidationPlace): void {
  if (!Array.isArray(pairs)) refuse(place, path, 'an array of tool pairs', describeValue(pairs))
  for (let index = 0; index < pairs.length; index++) {
    const pair = pairs[index] as unknown
    const at = `${path}[${index}]`
    if (!isObject(pair)) refuse(place, at, 'a tool pair { id, call, result }', describeValue(pair))
    if (typeof pair.id !== 'string') refuse(place, `${at}.id`, 'a string', describeValue(pair.id))
    for (const [end, type, idKey] of [['call', 'tool-call', 'id'], ['result', 'tool-result', 'callId']] as const) {
      const ends = pair[end] as Partial<PairEnd> | undefined
      if (!isObject(ends) || !isIndex(ends.message) || !isIndex(ends.part)) refuse(place, `${at}.${end}`, '{ message, part } with integer indices >= 0', describeValue(ends))
      const message = messages[ends.message - offset]
      if (message === undefined) continue
      const part = message.parts[ends.part] as unknown as Record<string, unknown> | undefined
      if (part?.type !== type || part[idKey] !== pair.id) {
        refuse(place, `${at}.${end}`, `a ${type} part of id ${quote(pair.id)} at ${place.path}[${ends.message - offset}].parts[${ends.part}]`, part === undefined ? 'no such part' : `a ${String(part.type)} part${typeof part[idKey] === 'string' ? ` of id ${quote(part[idKey] as string)}` : ''}`)
      }
    }
  }
}

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
}

/**
 * Checks a whole transcript: an object with a `format` name, valid `messages`, `pairs` that point at their parts,
 * `unpaired` entries with indices, `warnings` strings. Throws `FloorguardError('invalid-argument')` naming the field.
 */
export function validateTranscript(transcript: unknown, caller: string): asserts transcript is Transcript {
  const place: ValidationPlace = { caller, path: 'transcript.messages' }
  if (!isObject(transcript)) refuse(place, 'transcript', 'a transcript object { format, messages, pairs, unpaired }', describeValue(transcript))
  if (typeof transcript.format !== 'string') refuse(place, 'transcript.format', 'a format name', describeValue(transcript.format))
  validateMessages(transcript.messages, place)
  validatePairs(transcript.pairs, transcript.messages, 0, 'transcript.pairs', place)
  // A segment's pairs may end outside it (validatePairs skips those ends); a whole transcript's may not: an end past
  // the last message would be read as a tool pair the range cuts.
  const count = transcript.messages.length
  const pairs = transcript.pairs as readonly { readonly id: string; readonly call: PairEnd; readonly result: PairEnd }[]
  for (let index = 0; index < pairs.length; index++) {
    for (const [end, type] of [['call', 'tool-call'], ['result', 'tool-result']] as const) {
      const { message, part } = pairs[index]![end]
      if (message >= count) {
        refuse(place, `transcript.pairs[${index}].${end}`, `a ${type} part of id ${quote(pairs[index]!.id)} at ${place.path}[${message}].parts[${part}]`, `no such message (the transcript has ${count})`)
      }
    }
  }
  const unpaired = transcript.unpaired
  if (!Array.isArray(unpaired)) refuse(place, 'transcript.unpaired', 'an array of unpaired parts', describeValue(unpaired))
  for (let index = 0; index < unpaired.length; index++) {
    const entry = unpaired[index] as unknown
    if (!isObject(entry) || (entry.kind !== 'call' && entry.kind !== 'result') || typeof entry.id !== 'string' || !isIndex(entry.message) || !isIndex(entry.part)) {
      refuse(place, `transcript.unpaired[${index}]`, `{ kind: 'call' | 'result', id, message, part }`, describeValue(entry))
    }
    if (entry.message >= count) refuse(place, `transcript.unpaired[${index}].message`, `the index of one of the ${count} messages`, describeValue(entry.message))
  }
  const warnings = transcript.warnings
  if (warnings !== undefined && !(Array.isArray(warnings) && warnings.every((warning) => typeof warning === 'string'))) {
    refuse(place, 'transcript.warnings', 'an array of strings or undefined', describeValue(warnings))
  }
}

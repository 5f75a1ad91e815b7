/**
 * join(jsonPieces(value)) = JSON.stringify(value), in pieces of about {@link PIECE_UNITS} units (a single value that
 * is not walked may make a piece longer).
 *
 * A `check --json` of a 32 MB text holds 260,000 items: one 35 MB string, then a 35 MB buffer to write it, cost more
 * than the estimate itself where fresh memory is slow to touch. In pieces, each string is small and short-lived (new
 * space, whose memory is reused) and is written before the next is made. Arrays of more than {@link BATCH} elements
 * are stringified a batch at a time, and the plain objects and arrays holding them (down to {@link DEPTH} levels) key
 * by key and element by element; everything else, and anything with a `toJSON`, goes to `JSON.stringify` whole, so
 * the text is JSON.stringify's own.
 */

/** Elements stringified at once. */
const BATCH = 256
/** Pieces are joined until they hold this many units. */
export const PIECE_UNITS = 1 << 16
/** How deep objects are walked looking for large arrays (`plan.parts[i].items` is 4 below the document). */
const DEPTH = 5

/** Whether `value` is, or holds within `depth` levels, an array of more than {@link BATCH} elements (not behind a `toJSON`). */
function worthWalking(value: object, depth: number): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  if (Array.isArray(value)) {
    if (value.length > BATCH) return true
    if (depth === 0) return false
    for (const element of value) if (element !== null && typeof element === 'object' && worthWalking(element, depth - 1)) return true
    return false
  }
  if (depth === 0) return false
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key]
    if (field !== null && typeof field === 'object' && worthWalking(field, depth - 1)) return true
  }
  return false
}

/** JSON.stringify(value) in pieces; `value` is an object worth walking at `depth`. */
function* walk(value: object, depth: number): Generator<string> {
  if (Array.isArray(value)) {
    yield '['
    for (let start = 0; start < value.length; start += BATCH) {
      const batch = value.slice(start, start + BATCH)
      if (start > 0) yield ','
      if (depth > 0 && batch.some((element) => element !== null && typeof element === 'object' && worthWalking(element, depth - 1))) {
        for (let index = 0; index < batch.length; index++) {
          if (index > 0) yield ','
          const element: unknown = batch[index]
          if (element !== null && typeof element === 'object' && worthWalking(element, depth - 1)) yield* walk(element, depth - 1)
          // An array holds null for what JSON cannot (undefined, a function, a symbol).
          else yield JSON.stringify(element) ?? 'null'
        }
      } else {
        yield JSON.stringify(batch).slice(1, -1)
      }
    }
    yield ']'
    return
  }
  let first = true
  yield '{'
  for (const key of Object.keys(value)) {
    const field: unknown = (value as Record<string, unknown>)[key]
    if (field !== null && typeof field === 'object' && depth > 0 && worthWalking(field, depth - 1)) {
      yield `${first ? '' : ','}${JSON.stringify(key)}:`
      yield* walk(field, depth - 1)
    } else {
      // An object leaves out what JSON cannot hold.
      const text = JSON.stringify(field)
      if (text === undefined) continue
      yield `${first ? '' : ','}${JSON.stringify(key)}:${text}`
    }
    first = false
  }
  yield '}'
}

/** The pieces of `JSON.stringify(value)` (see the module comment); none for a value JSON cannot hold. */
export function* jsonPieces(value: unknown): Generator<string> {
  if (value === null || typeof value !== 'object' || !worthWalking(value, DEPTH)) {
    const text = JSON.stringify(value)
    if (text !== undefined) yield text
    return
  }
  let pending = ''
  for (const piece of walk(value, DEPTH)) {
    pending += piece
    if (pending.length >= PIECE_UNITS) {
      yield pending
      pending = ''
    }
  }
  if (pending.length > 0) yield pending
}

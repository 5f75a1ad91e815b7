/**
 * sameContent(a, b) = a and b are equal plain data: the same primitives, arrays of equal items, objects with the same
 * own enumerable keys holding equal values (`undefined` values count as absent), equal bytes, equal URLs and dates.
 *
 * For frameworks that rebuild equal message objects on every call (the AI SDK's prompt, a session that clones its
 * items): one walk of both values, stopping at the first difference, with nothing allocated but key lists.
 */

const MAX_DEPTH = 200

function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false
  for (let index = 0; index < left.length; index++) if (left[index] !== right[index]) return false
  return true
}

function definedKeys(value: object): string[] {
  return Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined)
}

function equal(left: unknown, right: unknown, depth: number): boolean {
  if (left === right) return true
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return Number.isNaN(left) && Number.isNaN(right)
  // Deeper than any message: not worth proving equal (the caller then treats the message as new, which is safe).
  if (depth > MAX_DEPTH) return false
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false
    for (let index = 0; index < left.length; index++) if (!equal(left[index], right[index], depth + 1)) return false
    return true
  }
  if (left instanceof Uint8Array || right instanceof Uint8Array) return left instanceof Uint8Array && right instanceof Uint8Array && sameBytes(left, right)
  if (left instanceof URL || right instanceof URL) return left instanceof URL && right instanceof URL && left.href === right.href
  if (left instanceof Date || right instanceof Date) return left instanceof Date && right instanceof Date && left.getTime() === right.getTime()
  const leftKeys = definedKeys(left)
  const rightKeys = definedKeys(right)
  if (leftKeys.length !== rightKeys.length) return false
  for (const key of leftKeys) {
    if (!Object.hasOwn(right, key)) return false
    if (!equal((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key], depth + 1)) return false
  }
  return true
}

/** Whether `left` and `right` hold the same data (see the module comment). */
export function sameContent(left: unknown, right: unknown): boolean {
  return equal(left, right, 0)
}

/**
 * Content key of a framework message: its JSON with object keys in insertion order, binary data as its length and
 * an FNV-1a hash, so two equal messages rebuilt by a framework get the same key in one linear pass.
 */

function hashBytes(bytes: Uint8Array): string {
  let hash = 0x811c9dc5
  for (let index = 0; index < bytes.length; index++) {
    hash ^= bytes[index] as number
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16)
}

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return `\u0000bytes:${value.length}:${hashBytes(value)}`
  if (value instanceof ArrayBuffer) return `\u0000bytes:${value.byteLength}:${hashBytes(new Uint8Array(value))}`
  if (value instanceof URL) return `\u0000url:${value.href}`
  return value
}

/** The content key of `message` (see the module comment). */
export function contentKey(message: unknown): string {
  return JSON.stringify(message, replacer) ?? 'undefined'
}

/**
 * Byte spans of the items of one array inside a JSON document, found by a linear scan of the bytes themselves (so
 * text that is not valid UTF-8 inside strings is stepped over, never decoded).
 */

/** One array item's bytes: `[start, end)` from its first to just past its last byte. */
export interface ItemSpan {
  readonly start: number
  readonly end: number
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const COLON = 0x3a

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

/**
 * The spans of the items of the array at `key` of the document's root object (or of the root array when `key` is
 * undefined), or undefined when the document is not shaped so. The document is assumed to be valid JSON (it was
 * parsed before); a leading BOM is skipped.
 */
export function arrayItemSpans(bytes: Uint8Array, key: string | undefined): ItemSpan[] | undefined {
  let position = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  const skipSpace = (): void => {
    while (isSpace(bytes[position])) position++
  }
  skipSpace()
  if (key !== undefined) {
    if (bytes[position] !== OPEN_BRACE) return undefined
    position++
    for (;;) {
      skipSpace()
      if (bytes[position] !== QUOTE) return undefined
      const keyStart = position
      position = stringEnd(bytes, position)
      const name = JSON.parse(Buffer.from(bytes.subarray(keyStart, position)).toString('utf8')) as string
      skipSpace()
      if (bytes[position] !== COLON) return undefined
      position++
      skipSpace()
      if (name === key) break
      position = valueEnd(bytes, position)
      skipSpace()
      if (bytes[position] !== COMMA) return undefined
      position++
    }
  }
  if (bytes[position] !== OPEN_BRACKET) return undefined
  position++
  const spans: ItemSpan[] = []
  skipSpace()
  if (bytes[position] === CLOSE_BRACKET) return spans
  for (;;) {
    skipSpace()
    const start = position
    position = valueEnd(bytes, position)
    spans.push({ start, end: position })
    skipSpace()
    if (bytes[position] === CLOSE_BRACKET) return spans
    if (bytes[position] !== COMMA) return undefined
    position++
  }
}

/** Just past the string that starts at `position` (a quote). */
function stringEnd(bytes: Uint8Array, position: number): number {
  let index = position + 1
  while (index < bytes.length) {
    const byte = bytes[index]
    if (byte === BACKSLASH) index += 2
    else if (byte === QUOTE) return index + 1
    else index++
  }
  return bytes.length
}

/** Just past the value that starts at `position`: a string, a container (nesting counted), or a scalar. */
function valueEnd(bytes: Uint8Array, position: number): number {
  const first = bytes[position]
  if (first === QUOTE) return stringEnd(bytes, position)
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0
    let index = position
    while (index < bytes.length) {
      const byte = bytes[index]
      if (byte === QUOTE) {
        index = stringEnd(bytes, index)
        continue
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--
        if (depth === 0) return index + 1
      }
      index++
    }
    return bytes.length
  }
  let index = position
  while (index < bytes.length) {
    const byte = bytes[index]
    if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break
    index++
  }
  return index
}

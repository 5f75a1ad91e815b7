/**
 * A tolerant, iterative JSON reader for the first bytes of an input.
 *
 * Detection only sees the head of a file (64 KiB), which usually cuts a JSON document or a JSONL line in the
 * middle. This reader parses as far as the text goes and closes whatever is still open, so detectors can look at
 * the keys and values that did arrive. It never recurses (hostile nesting cannot overflow the stack), runs in
 * time linear in the text, and also reports where a syntax error is, which `JSON.parse` does not always say.
 */

/** What {@link scanJsonPrefix} found. */
export interface JsonPrefix {
  /** The value read so far (containers still open at the end are closed; a cut string keeps what arrived). */
  readonly value: unknown
  /** Whether the text held one whole JSON value (nothing was cut). */
  readonly complete: boolean
  /** UTF-16 offset of the first syntax error, when the text is not a prefix of valid JSON. */
  readonly errorOffset?: number
  /** The container and key (or index) of a string or number the text cut short: its value may be incomplete. */
  readonly cut?: { readonly container: object; readonly key: string | number }
}

type Frame =
  | { readonly kind: 'array'; readonly value: unknown[] }
  | { readonly kind: 'object'; readonly value: Record<string, unknown>; key: string | undefined }

const WHITESPACE = new Set([0x20, 0x0a, 0x0d, 0x09])

function skipWhitespace(text: string, index: number): number {
  while (index < text.length && WHITESPACE.has(text.charCodeAt(index))) index++
  return index
}

/** Index of the closing quote of the string opening at `start`, or -1 when the text ends first. Linear. */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 0x5c) index++
    else if (code === 0x22) return index
  }
  return -1
}

function isNumberChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2b || code === 0x2e || code === 0x65 || code === 0x45
}

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
]

/**
 * Reads `text` as a prefix of one JSON value: `{ value, complete }`, or `errorOffset` at the first byte that no
 * JSON value could continue with. A leading byte-order mark is skipped.
 */
export function scanJsonPrefix(text: string): JsonPrefix {
  const stack: Frame[] = []
  let root: unknown
  // 'value': a value may start; 'key': a key (or `}` right after `{`); 'colon'; 'after': `,` or a closer.
  let state: 'value' | 'key' | 'colon' | 'after' = 'value'
  let justOpened = false
  let index = skipWhitespace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0)

  const fail = (offset: number): JsonPrefix => ({ value: root, complete: false, errorOffset: offset })
  const cut = (placed = false): JsonPrefix => {
    const top = stack.at(-1)
    if (!placed || !top) return { value: root, complete: false }
    const key = top.kind === 'array' ? top.value.length - 1 : lastKey
    return { value: root, complete: false, cut: { container: top.value, key } }
  }
  let lastKey = ''
  const place = (value: unknown): void => {
    const top = stack.at(-1)
    if (!top) root = value
    else if (top.kind === 'array') top.value.push(value)
    else if (top.key !== undefined) {
      top.value[top.key] = value
      lastKey = top.key
      top.key = undefined
    }
  }

  while (index < text.length) {
    const char = text[index]!
    const top = stack.at(-1)
    if (state === 'value') {
      if (char === ']' && justOpened && top?.kind === 'array') {
        stack.pop()
        state = 'after'
        index++
      } else if (char === '{') {
        // Null prototype: a key named `__proto__` is data here, as in JSON.parse.
        const value = Object.create(null) as Record<string, unknown>
        place(value)
        stack.push({ kind: 'object', value, key: undefined })
        state = 'key'
        justOpened = true
        index++
      } else if (char === '[') {
        const value: unknown[] = []
        place(value)
        stack.push({ kind: 'array', value })
        justOpened = true
        index++
      } else if (char === '"') {
        const end = stringEnd(text, index)
        if (end === -1) {
          place(partialString(text.slice(index)))
          return cut(true)
        }
        try {
          place(JSON.parse(text.slice(index, end + 1)))
        } catch {
          return fail(index)
        }
        state = 'after'
        index = end + 1
      } else if (isNumberChar(char.charCodeAt(0))) {
        let end = index
        while (end < text.length && isNumberChar(text.charCodeAt(end))) end++
        const token = text.slice(index, end)
        const number = Number(token)
        // The grammar decides, as in JSON.parse (which also reads `1e999` as Infinity).
        const valid = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(token)
        if (end === text.length) {
          // At the very end a number may be cut (`1.`, `2e`): no error. Inside a container it may be incomplete.
          if (!valid) return cut()
          place(number)
          if (stack.length > 0) return cut(true)
          state = 'after'
          index = end
          continue
        }
        if (!valid) return fail(index)
        place(number)
        state = 'after'
        index = end
      } else {
        const literal = LITERALS.find(
          ([word]) => text.startsWith(word, index) || (text.length - index < word.length && word.startsWith(text.slice(index))),
        )
        if (!literal) return fail(index)
        if (!text.startsWith(literal[0], index)) return cut()
        place(literal[1])
        state = 'after'
        index += literal[0].length
      }
    } else if (state === 'key') {
      if (char === '}' && justOpened) {
        stack.pop()
        state = 'after'
        index++
      } else if (char === '"') {
        const end = stringEnd(text, index)
        if (end === -1) return cut()
        let key: unknown
        try {
          key = JSON.parse(text.slice(index, end + 1))
        } catch {
          return fail(index)
        }
        if (top?.kind === 'object') top.key = key as string
        state = 'colon'
        index = end + 1
      } else return fail(index)
    } else if (state === 'colon') {
      if (char !== ':') return fail(index)
      state = 'value'
      justOpened = false
      index++
    } else {
      if (!top) return fail(index)
      if (char === ',') {
        state = top.kind === 'array' ? 'value' : 'key'
        justOpened = false
        index++
      } else if ((char === ']' && top.kind === 'array') || (char === '}' && top.kind === 'object')) {
        stack.pop()
        index++
      } else return fail(index)
    }
    if (state !== 'value' && state !== 'key') justOpened = false
    index = skipWhitespace(text, index)
  }
  return { value: root, complete: stack.length === 0 && state === 'after' }
}

/** Decodes a string cut before its closing quote, dropping a cut escape sequence at the end. */
function partialString(quoted: string): string {
  for (let trim = 0; trim <= 6 && trim < quoted.length; trim++) {
    try {
      return JSON.parse(`${quoted.slice(0, quoted.length - trim)}"`) as string
    } catch {
      // A cut `\uXX` or a lone `\` at the end: drop one more character and retry.
    }
  }
  return quoted.slice(1)
}

/** Whether a value is a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Reads the first records of a JSONL head: up to `limit` values, one per non-blank line, the last one possibly
 * cut. A line that is not JSON at all yields `undefined` in its place.
 */
export function scanJsonlHead(head: string, limit = 8): unknown[] {
  const records: unknown[] = []
  let start = 0
  while (start < head.length && records.length < limit) {
    let end = head.indexOf('\n', start)
    if (end === -1) end = head.length
    const line = head.slice(start, end)
    start = end + 1
    if (line.trim() === '') continue
    const scanned = scanJsonPrefix(line)
    records.push(scanned.errorOffset === undefined ? scanned.value : undefined)
  }
  return records
}

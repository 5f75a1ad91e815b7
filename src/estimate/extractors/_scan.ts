/**
 * Linear scanning primitives shared by the extractors: lines, words, character classes.
 *
 * Nothing here runs a backtracking regex over untrusted text: words are found by a single pass over the line, and the
 * regexes that classify a word are anchored and have no nested quantifiers, so they are linear in the word however
 * long it is (the `full` scan classifies words of any length: a long URL or path is state).
 */

/** {@link wordsOf} drops longer whitespace-free runs (blobs: base64, minified code), as the conservative estimator's triggers. */
export const MAX_WORD_LENGTH = 512

/** A line of a text: `[start, end)` excludes the terminator (`\n`, or `\r\n`). */
export interface LineSpan {
  readonly start: number
  readonly end: number
}

/** Calls `visit` for each line of `text` with its bounds. */
export function forEachLine(text: string, visit: (start: number, end: number) => void): void {
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    const next = end === -1 ? text.length + 1 : end + 1
    if (end === -1) end = text.length
    const contentEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end
    visit(start, contentEnd)
    start = next
  }
}

/** Whether the UTF-16 unit is ASCII whitespace or a Unicode space separator we treat as whitespace. */
export function isSpace(code: number): boolean {
  if (code > 32 && code < 127) return false
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000 || code === 0x2028 || code === 0x2029 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x1680 || code === 0x85 || code === 0xfeff
}

/** ASCII letter or digit. */
export function isAsciiAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}

const LETTER = /\p{L}|\p{N}/u

/** Letter or digit in any script (astral characters are checked through their high surrogate's pair). */
export function isAlnumAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index)
  if (code < 128) return isAsciiAlnum(code)
  if (code >= 0xdc00 && code <= 0xdfff && index > 0) return LETTER.test(text.slice(index - 1, index + 1))
  if (code >= 0xd800 && code <= 0xdbff) return LETTER.test(text.slice(index, index + 2))
  return LETTER.test(text[index]!)
}

/** Whether `text` holds the same units at `first` and at `second`, for `length` units (a repeat, found in place). */
export function sameUnits(text: string, first: number, second: number, length: number): boolean {
  for (let offset = 0; offset < length; offset++) if (text.charCodeAt(first + offset) !== text.charCodeAt(second + offset)) return false
  return true
}

/** A whitespace-delimited word with its bounds, trimmed of wrapping punctuation. */
export interface Word {
  readonly start: number
  readonly end: number
  readonly text: string
}

const LEADING_TRIM = new Set(['(', '[', '{', '<', '"', "'", '`', '*', '“', '‘', '«'])
const TRAILING_TRIM = new Set([')', ']', '}', '>', ',', ';', ':', '.', '!', '?', '"', "'", '`', '*', '”', '’', '»'])

/**
 * Where the word `[left, right)`, whose trailing punctuation starts at `trail`, ends once trimmed: after the last of
 * those units that is a `)` closing a `(` of the word (a call's: `main()`, `f(x).`, the inner one of `(see f(x))`),
 * else at `trail`. Reads the word only, never the text before it (a backward search for `(` from each `)` crossed the
 * whole text when none preceded, which made a megabyte of `x) ` take a minute).
 */
export function trimmedEnd(text: string, left: number, trail: number, right: number): number {
  // Parentheses the word leaves open before its trailing punctuation (-1 until a `)` there needs it).
  let open = -1
  let end = trail
  for (let index = trail; index < right; index++) {
    if (text.charCodeAt(index) !== 41) continue
    if (open === -1) open = openParentheses(text, left, trail)
    if (open === 0) break
    open--
    end = index + 1
  }
  return end
}

/** How many `(` of `[start, end)` no later `)` of it closes. */
function openParentheses(text: string, start: number, end: number): number {
  let open = 0
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 40) open++
    else if (code === 41 && open > 0) open--
  }
  return open
}

/** Splits `[start, end)` of `text` into words, trimming wrapping punctuation (a call's parentheses are kept). */
export function wordsOf(text: string, start: number, end: number): Word[] {
  const words: Word[] = []
  let index = start
  while (index < end) {
    while (index < end && isSpace(text.charCodeAt(index))) index++
    const wordStart = index
    while (index < end && !isSpace(text.charCodeAt(index))) index++
    let left = wordStart
    let right = index
    if (right - left > MAX_WORD_LENGTH) continue
    while (left < right && LEADING_TRIM.has(text[left]!)) left++
    let trail = right
    while (trail > left && TRAILING_TRIM.has(text[trail - 1]!)) trail--
    if (trail < right) right = trimmedEnd(text, left, trail, right)
    if (right > left) words.push({ start: left, end: right, text: text.slice(left, right) })
  }
  return words
}

/**
 * A direct-mapped table of four integers per slot (generation, start, length, and one more) whose entries belong to
 * the pass whose generation they carry, as they hold offsets into that pass's text: a new pass needs no clearing.
 */
export class GenerationSlots {
  /** Per slot, side by side (one cache line per lookup): generation, start, length, and the table's own value. */
  readonly slots: Int32Array
  /** The last generation handed out. */
  generation = 0

  constructor(bits: number) {
    this.slots = new Int32Array(4 << bits)
  }

  /** A generation for a new pass (starting over, table emptied, when the counter would overflow). */
  nextGeneration(): number {
    if (this.generation === 0x7fffffff) {
      this.generation = 0
      this.slots.fill(0)
    }
    return ++this.generation
  }
}

/** ESC, which starts every escape sequence a terminal program prints (colours, cursor moves, hyperlinks). */
export const ESCAPE = 0x1b

/**
 * escapeEnd(text, at, end) = where the escape sequence starting with the ESC at `at` ends (exclusive), reading no
 * further than `end`: a control sequence (`ESC[1;31m`, `ESC[K`, `ESC[2A`: parameter and intermediate units, then a
 * final unit if one follows), a control string (`ESC]8;;url ESC\`, OSC, DCS, SOS, PM, APC: up to and including BEL or
 * the string terminator; before a line break or another ESC when unterminated), or a short sequence (`ESC(B`, `ESC7`:
 * intermediates, then a final unit if one follows). An ESC before anything else is a sequence of its own. Where a
 * sequence ends is decided by its own units and the one unit after it, so stripping a range that starts and ends on
 * printed units gives the same units as stripping the whole text (see {@link withoutEscapes}).
 */
export function escapeEnd(text: string, at: number, end: number): number {
  let index = at + 1
  if (index === end) return index
  const kind = text.charCodeAt(index)
  if (kind === 91) {
    // CSI: parameters and intermediates (0x20–0x3F), then a final unit (0x40–0x7E).
    for (index++; index < end; index++) {
      const code = text.charCodeAt(index)
      if (code < 0x20 || code > 0x3f) return code >= 0x40 && code <= 0x7e ? index + 1 : index
    }
    return index
  }
  if (kind === 93 || kind === 80 || kind === 88 || kind === 94 || kind === 95) {
    // OSC, DCS, SOS, PM, APC: a string up to BEL, ST (`ESC\` or U+009C).
    for (index++; index < end; index++) {
      const code = text.charCodeAt(index)
      if (code === 7 || code === 0x9c) return index + 1
      if (code === 10) return index
      if (code === ESCAPE) return index + 1 < end && text.charCodeAt(index + 1) === 92 ? index + 2 : index
    }
    return index
  }
  // nF, Fp, Fe, Fs: intermediates (0x20–0x2F), then a final unit (0x30–0x7E).
  for (; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x20 || code > 0x2f) return code >= 0x30 && code <= 0x7e ? index + 1 : index
  }
  return index
}

/**
 * withoutEscapes(text, start, end) = `[start, end)` of `text` with every escape sequence (see {@link escapeEnd})
 * removed. Searches the range only (a search past it, once per item, would cross the rest of a message per item).
 */
export function withoutEscapes(text: string, start = 0, end = text.length): string {
  const range = start === 0 && end === text.length ? text : text.slice(start, end)
  let escape = range.indexOf('\x1b')
  if (escape === -1) return range
  let out = ''
  let from = 0
  while (escape !== -1) {
    out += range.slice(from, escape)
    from = escapeEnd(range, escape, range.length)
    escape = range.indexOf('\x1b', from)
  }
  return out + range.slice(from)
}

/** A text with its escape sequences removed, and where each of its units stands in the original. */
export interface PrintedText {
  /** The printed units, in order. */
  readonly text: string
  /** `origins[i]`: the offset in the original text of `text[i]`. */
  readonly origins: Int32Array
}

/** printedUnits(text, first) = `text` without its escape sequences, with each unit's origin; `first`: its first ESC. */
export function printedUnits(text: string, first: number): PrintedText {
  const origins = new Int32Array(text.length)
  const pieces: string[] = []
  let length = 0
  let from = 0
  let escape = first
  for (;;) {
    const to = escape === -1 ? text.length : escape
    if (to > from) {
      pieces.push(text.slice(from, to))
      for (let index = from; index < to; index++) origins[length++] = index
    }
    if (escape === -1) break
    from = escapeEnd(text, escape, text.length)
    escape = text.indexOf('\x1b', from)
  }
  return { text: pieces.join(''), origins: origins.subarray(0, length) }
}

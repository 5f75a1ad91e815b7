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

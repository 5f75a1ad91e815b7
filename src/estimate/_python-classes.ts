import { DECIMAL_RANGES, LOWER_SPECIALS, WORD_RANGES } from './_python-unicode.js'

/*
 * Python `re` character classes for the `seed` estimator, as bits per UTF-16 unit.
 *
 * Both units of a surrogate pair get the class of the code point they encode. That keeps unit
 * positions faithful to Python's code point positions: `\b` can never hold between the two halves
 * (same word-ness on both sides), and every other decision the scanners make looks at an ASCII
 * character, so no match can start or end inside a pair. A lone surrogate is its own code point in
 * Python too (category Cs, not `\w`).
 */

/** `\w`: `str.isalnum()` or `_`. */
export const WORD = 1
/** `\d`: a Unicode decimal digit (Nd). Always also {@link WORD}. */
export const DIGIT = 2
/** `[A-Z_]` (ASCII only: the reference pattern has no IGNORECASE). Always also {@link WORD}. */
export const CONSTANT = 4
/** `.` or `-`. */
export const DOT_DASH = 8
/** `/`. */
export const SLASH = 16
/** `[\w.-]`, the head of the path pattern. */
export const PATH_HEAD = WORD | DOT_DASH
/** `[\w./-]`, the tail of the path pattern. */
export const PATH_TAIL = PATH_HEAD | SLASH

let bmpTable: Uint8Array | undefined
const astralWord: number[] = []
const astralDecimal: number[] = []

/** Class bits of every BMP code unit (a lone surrogate is not `\w`). Built on first use: 64 KiB, well under a millisecond. */
export function bmpClasses(): Uint8Array {
  if (bmpTable) return bmpTable
  const table = new Uint8Array(0x10000)
  fill(table, WORD_RANGES, WORD, astralWord)
  fill(table, DECIMAL_RANGES, DIGIT, astralDecimal)
  for (let code = 0x41; code <= 0x5a; code++) table[code] = (table[code] ?? 0) | CONSTANT
  table[0x5f] = (table[0x5f] ?? 0) | CONSTANT
  table[0x2e] = DOT_DASH
  table[0x2d] = DOT_DASH
  table[0x2f] = SLASH
  bmpTable = table
  return table
}

function fill(table: Uint8Array, ranges: readonly number[], bit: number, astral: number[]): void {
  for (let index = 0; index + 1 < ranges.length; index += 2) {
    const first = ranges[index] ?? 0
    const last = ranges[index + 1] ?? 0
    for (let code = first; code <= Math.min(last, 0xffff); code++) table[code] = (table[code] ?? 0) | bit
    if (last > 0xffff) astral.push(Math.max(first, 0x10000), last)
  }
}

let astralTable: Uint8Array | undefined

// Astral word characters end at U+3134A (CJK Extension G); a table up to the last one is ~133 KiB,
// built the first time an astral character is classified.
function astralClasses(): Uint8Array {
  if (astralTable) return astralTable
  bmpClasses()
  const last = Math.max(astralWord[astralWord.length - 1] ?? 0xffff, astralDecimal[astralDecimal.length - 1] ?? 0xffff)
  const table = new Uint8Array(last - 0xffff)
  const mark = (ranges: readonly number[], bit: number): void => {
    for (let index = 0; index + 1 < ranges.length; index += 2) {
      for (let code = ranges[index] ?? 0; code <= (ranges[index + 1] ?? 0); code++) {
        table[code - 0x10000] = (table[code - 0x10000] ?? 0) | bit
      }
    }
  }
  mark(astralWord, WORD)
  mark(astralDecimal, DIGIT)
  astralTable = table
  return table
}

/** Class bits of one code point: {@link WORD}, {@link DIGIT}, … as Python's `re` sees it. */
export function classOf(codePoint: number): number {
  if (codePoint <= 0xffff) return bmpClasses()[codePoint] ?? 0
  return astralClasses()[codePoint - 0x10000] ?? 0
}

/** Class bits of the code point at UTF-16 index `index` of `text` (either half of a pair gives the pair's class; past the end, 0). */
export function classAt(text: string, index: number): number {
  const code = text.charCodeAt(index)
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1)
    if (next >= 0xdc00 && next <= 0xdfff) return classOf(((code - 0xd800) << 10) + (next - 0xdc00) + 0x10000)
  } else if (code >= 0xdc00 && code <= 0xdfff) {
    const previous = index > 0 ? text.charCodeAt(index - 1) : 0
    if (previous >= 0xd800 && previous <= 0xdbff) return classOf(((previous - 0xd800) << 10) + (code - 0xdc00) + 0x10000)
  }
  return bmpClasses()[code] ?? 0
}

/** Length of `text.slice(start, end)` in code points, as Python's `len` counts it (a lone surrogate counts one). */
export function codePointLength(text: string, start: number, end: number): number {
  let length = end - start
  for (let index = start + 1; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0xdc00 && code <= 0xdfff) {
      const previous = text.charCodeAt(index - 1)
      if (previous >= 0xd800 && previous <= 0xdbff) length--
    }
  }
  return length
}

/*
 * Python's `str.lower()` seen through the cue scanner: each UTF-16 unit becomes one lowered ASCII
 * code, or 0 when its lowering holds no ASCII character. The two non-ASCII code points whose
 * lowering has ASCII in it (U+212A KELVIN SIGN → `k`, U+0130 → `i` + U+0307) come from the generated
 * table; the generator fails if a multi-character lowering ever contains a cue letter, which is what
 * makes mapping it to 0 exact (a cue can then never use any of its characters).
 */
let lowerTable: Uint8Array | undefined

/** For every UTF-16 unit, the ASCII code it contributes to Python's `str.lower()`, or 0 if none a cue can use. Built on first use. */
export function lowerAsciiTable(): Uint8Array {
  if (lowerTable) return lowerTable
  const table = new Uint8Array(0x10000)
  for (let code = 1; code < 0x80; code++) table[code] = code >= 0x41 && code <= 0x5a ? code | 0x20 : code
  for (const [key, lowered] of Object.entries(LOWER_SPECIALS)) {
    const code = Number(key)
    if (lowered.length === 1 && code <= 0xffff && lowered.charCodeAt(0) < 0x80) table[code] = lowered.charCodeAt(0)
  }
  lowerTable = table
  return table
}

/** The ASCII code unit `text[index]` contributes to Python's `text.lower()`, or 0 if it contributes none a cue can use. */
export function lowerAsciiAt(text: string, index: number): number {
  return lowerAsciiTable()[text.charCodeAt(index)] ?? 0
}

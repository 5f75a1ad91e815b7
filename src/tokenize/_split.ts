/**
 * Pre-tokenizers of tiktoken's encodings: the split patterns (any text) and linear state machines that reproduce them
 * on ASCII, where a regex scan costs more than the rest of counting.
 */
import { FloorguardError } from '../errors.js'
import { CASED_LOWER_RANGES, CASED_UPPER_RANGES, CONTRACTION_FOLDS, LETTER_RANGES, NUMBER_RANGES, SPACE_RANGES } from './_tiktoken-unicode.js'

/** A regex class body (no brackets) matching the code points of flat `[first, last, …]` ranges. */
function classBody(ranges: readonly number[]): string {
  let body = ''
  for (let index = 0; index < ranges.length; index += 2) {
    const first = ranges[index]!
    const last = ranges[index + 1]!
    body += first === last ? `\\u{${first.toString(16)}}` : `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`
  }
  return body
}

/** An encoding with a split pattern. */
export type SplitEncoding = 'o200k_base' | 'cl100k_base'

/**
 * The source of `encoding`'s pre-tokenizer pattern, with tiktoken's character classes in its own Unicode version (see
 * scripts/gen-tiktoken-unicode.mjs), spelled out as ranges: `\p{…}` would take the running Node's, which classes
 * characters tiktoken does not know as letters. Built on first use: most texts never reach the pattern (the ASCII
 * machines decide their pieces), and spelling out the classes costs a start-up ~10 ms.
 */
function patternSource(encoding: SplitEncoding): string {
  /** `\p{L}`. */
  const L = classBody(LETTER_RANGES)
  /** `\p{N}`. */
  const N = classBody(NUMBER_RANGES)
  /** `\s`: Unicode White_Space, the set Rust's `\s` matches; JavaScript's `\s` differs on U+0085 and U+FEFF. */
  const WS = classBody(SPACE_RANGES)
  /** `'s|'d|'m|'t|'ll|'ve|'re` matched as `(?i:…)` does: either case, and the letters that fold onto them (`'ſ`). */
  const CONTRACTION = `'(?:${['s', 'd', 'm', 't', 'll', 've', 're'].map((letters) => [...letters].map(caseless).join('')).join('|')})`
  if (encoding === 'cl100k_base') {
    return `${CONTRACTION}|[^\\r\\n${L}${N}]?[${L}]+|[${N}]{1,3}| ?[^${WS}${L}${N}]+[\\r\\n]*|[${WS}]+$|[${WS}]*[\\r\\n]|[${WS}]+(?![^${WS}])|[${WS}]`
  }
  /** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`. */
  const UP = classBody(CASED_UPPER_RANGES)
  /** `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`. */
  const LO = classBody(CASED_LOWER_RANGES)
  return (
    `[^\\r\\n${L}${N}]?[${UP}]*[${LO}]+(?:${CONTRACTION})?` +
    `|[^\\r\\n${L}${N}]?[${UP}]+[${LO}]*(?:${CONTRACTION})?` +
    `|[${N}]{1,3}| ?[^${WS}${L}${N}]+[\\r\\n/]*|[${WS}]*[\\r\\n]+|[${WS}]+(?![^${WS}])|[${WS}]+`
  )
}

function caseless(letter: string): string {
  return `[${letter}${letter.toUpperCase()}${classBody((CONTRACTION_FOLDS[letter] ?? []).flatMap((cp) => [cp, cp]))}]`
}

const patterns = new Map<SplitEncoding, RegExp>()

/** `encoding`'s pre-tokenizer pattern (flags `gu`), built on first use and then shared: copy it to use `lastIndex`. */
export function splitPattern(encoding: SplitEncoding): RegExp {
  let pattern = patterns.get(encoding)
  if (!pattern) {
    pattern = new RegExp(patternSource(encoding), 'gu')
    patterns.set(encoding, pattern)
  }
  return pattern
}

/** Pre-tokenizer patterns of tiktoken's encodings, with tiktoken's character classes (each built on first use). */
export const SPLIT_PATTERNS: Readonly<Record<SplitEncoding, RegExp>> = {
  get o200k_base() {
    return splitPattern('o200k_base')
  },
  get cl100k_base() {
    return splitPattern('cl100k_base')
  },
}

/**
 * Returns where the piece starting at byte `start` of `bytes` (a text's UTF-8) ends, for a text whose pre-tokenization
 * ends at `end`. Non-ASCII bytes stop every run; the result holds only if the piece and the three bytes after it are
 * ASCII (see {@link asciiDecides}).
 */
export type AsciiPieceEnd = (bytes: Uint8Array, start: number, end: number) => number

const UPPER = 1
const LOWER = 2
const DIGIT = 4
/** Whitespace other than CR and LF. */
const BLANK = 8
const NEWLINE = 16
/** Neither letter, digit nor whitespace: `[^\s\p{L}\p{N}]`. */
const OTHER = 32
const LETTER = UPPER | LOWER
const SPACE = BLANK | NEWLINE
/** `[^\r\n\p{L}\p{N}]`, the optional character before a letter run. */
const PREFIX = BLANK | OTHER

/** Class of each byte; 0 for the bytes of non-ASCII characters, so that every run stops there. */
const CLASS = new Uint8Array(256)
for (let code = 0; code < 128; code++) CLASS[code] = OTHER
for (let code = 65; code <= 90; code++) CLASS[code] = UPPER
for (let code = 97; code <= 122; code++) CLASS[code] = LOWER
for (let code = 48; code <= 57; code++) CLASS[code] = DIGIT
for (const code of [9, 11, 12, 32]) CLASS[code] = BLANK
CLASS[10] = NEWLINE
CLASS[13] = NEWLINE

/**
 * Whether a piece that the machine ends at `pieceEnd` is the pattern's piece too. Apart from a whitespace run's end
 * (which the machine checks itself) the pattern looks at most two characters past a piece (a contraction that does not
 * match: `'l` and one more), so if those and the piece are ASCII it decided on ASCII alone. Every byte inside a piece
 * the machine returns passed a class test, so only the three after it are checked.
 */
export function asciiDecides(bytes: Uint8Array, pieceEnd: number, end: number): boolean {
  return (
    (pieceEnd >= end || bytes[pieceEnd]! < 0x80) &&
    (pieceEnd + 1 >= end || bytes[pieceEnd + 1]! < 0x80) &&
    (pieceEnd + 2 >= end || bytes[pieceEnd + 2]! < 0x80)
  )
}

/** End of `'s|'d|'m|'t|'ll|'ve|'re` (any case) at `index`, or `index` when there is none. */
function contractionEnd(bytes: Uint8Array, index: number, end: number): number {
  if (index + 1 >= end || bytes[index] !== 39) return index
  // `| 0x20` lowercases an ASCII letter and maps nothing else onto one.
  const first = bytes[index + 1]! | 0x20
  if (first === 115 || first === 100 || first === 109 || first === 116) return index + 2
  if (index + 2 >= end) return index
  const second = bytes[index + 2]! | 0x20
  if ((first === 108 && second === 108) || ((first === 118 || first === 114) && second === 101)) return index + 3
  return index
}

/** End of a whitespace piece at `start`; `wholeAtEnd` is cl100k's `\s+$`, tried before its newline rule. */
function spaceEnd(bytes: Uint8Array, start: number, end: number, wholeAtEnd: boolean): number {
  let index = start
  let lastNewline = -1
  let kind = CLASS[bytes[index]!]!
  while (kind & SPACE) {
    if (kind & NEWLINE) lastNewline = index
    if (++index === end) break
    kind = CLASS[bytes[index]!]!
  }
  // The newline rules look at the whole run, which a non-ASCII space (U+3000, U+0085) would continue.
  if (kind === 0) return 0
  if (wholeAtEnd && index === end) return end
  // `\s*[\r\n]` backtracks to the run's last CR or LF.
  if (lastNewline !== -1) return lastNewline + 1
  if (index === end) return end
  // `\s+(?!\S)` gives back the last whitespace character, which prefixes the next piece; one alone is `\s+` / `\s`.
  return index - start > 1 ? index - 1 : start + 1
}

/** End of `[^\r\n\p{L}\p{N}]?` at `start` when a letter follows it, else -1. */
function letterStart(bytes: Uint8Array, start: number, end: number, kind: number): number {
  if (kind & LETTER) return start
  if (kind & PREFIX && start + 1 < end && CLASS[bytes[start + 1]!]! & LETTER) return start + 1
  return -1
}

/** End of ` ?[^\s\p{L}\p{N}]+` at `start`, or -1. */
function otherRunEnd(bytes: Uint8Array, start: number, end: number, kind: number): number {
  let index = start
  if (kind & OTHER) index++
  else if (bytes[start] === 32 && start + 1 < end && CLASS[bytes[start + 1]!]! & OTHER) index += 2
  else return -1
  while (index < end && CLASS[bytes[index]!]! & OTHER) index++
  return index
}

/** End of `\p{N}{1,3}` at `start`. */
function digitsEnd(bytes: Uint8Array, start: number, end: number): number {
  const last = Math.min(end, start + 3)
  let index = start + 1
  while (index < last && CLASS[bytes[index]!]! & DIGIT) index++
  return index
}

/**
 * o200k_base on ASCII, alternatives in order: `[^\r\n\p{L}\p{N}]?U*L+C?`, `[^\r\n\p{L}\p{N}]?U+L*C?` (C a
 * contraction), `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`. Returns 0 for a
 * non-ASCII first character.
 */
export const o200kPieceEnd: AsciiPieceEnd = (bytes, start, end) => {
  const kind = CLASS[bytes[start]!]!
  if (kind === 0) return 0
  const letters = letterStart(bytes, start, end, kind)
  if (letters !== -1) {
    // Both letter alternatives end after the capitals and the lower-case letters that follow them.
    let index = letters
    while (index < end && CLASS[bytes[index]!]! & UPPER) index++
    while (index < end && CLASS[bytes[index]!]! & LOWER) index++
    return contractionEnd(bytes, index, end)
  }
  if (kind & DIGIT) return digitsEnd(bytes, start, end)
  let index = otherRunEnd(bytes, start, end, kind)
  if (index === -1) return spaceEnd(bytes, start, end, false)
  for (let code = bytes[index]; index < end && (code === 13 || code === 10 || code === 47); code = bytes[++index]);
  return index
}

/**
 * cl100k_base on ASCII, alternatives in order: a contraction, `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`,
 * ` ?[^\s\p{L}\p{N}]+[\r\n]*`, `\s+$`, `\s*[\r\n]`, `\s+(?!\S)`, `\s`. Returns 0 for a non-ASCII first character.
 */
export const cl100kPieceEnd: AsciiPieceEnd = (bytes, start, end) => {
  const kind = CLASS[bytes[start]!]!
  if (kind === 0) return 0
  const contraction = contractionEnd(bytes, start, end)
  if (contraction !== start) return contraction
  const letters = letterStart(bytes, start, end, kind)
  if (letters !== -1) {
    let index = letters
    while (index < end && CLASS[bytes[index]!]! & LETTER) index++
    return index
  }
  if (kind & DIGIT) return digitsEnd(bytes, start, end)
  let index = otherRunEnd(bytes, start, end, kind)
  if (index === -1) return spaceEnd(bytes, start, end, true)
  for (let code = bytes[index]; index < end && (code === 13 || code === 10); code = bytes[++index]);
  return index
}

/** The ASCII state machine of each encoding. */
export const ASCII_PIECE_END: Readonly<Record<SplitEncoding, AsciiPieceEnd>> = { o200k_base: o200kPieceEnd, cl100k_base: cl100kPieceEnd }

/** Byte offset `units` UTF-16 units after `byte` in UTF-8 `bytes` (a 4-byte character is two units). */
export function advanceUnits(bytes: Uint8Array, byte: number, units: number): number {
  let index = byte
  for (let unit = 0; unit < units; ) {
    const lead = bytes[index]!
    if (lead < 0x80) {
      index++
      unit++
    } else if (lead < 0xe0) {
      index += 2
      unit++
    } else if (lead < 0xf0) {
      index += 3
      unit++
    } else {
      index += 4
      unit += 2
    }
  }
  return index
}

/** UTF-16 units in the UTF-8 `bytes[start, end)`. */
export function unitsIn(bytes: Uint8Array, start: number, end: number): number {
  let units = 0
  for (let index = start; index < end; index++) {
    const byte = bytes[index]!
    // Continuation bytes add nothing; a 4-byte lead starts a surrogate pair.
    if (byte < 0x80 || byte >= 0xc0) units += byte >= 0xf0 ? 2 : 1
  }
  return units
}

/**
 * Finds the byte end of the piece at (`unit`, `byte`) of `text`, whose UTF-8 is `bytes[0, end)`: the state machine's
 * when it decides, else the pattern's.
 */
export type PieceFinder = (text: string, unit: number, bytes: Uint8Array, byte: number, end: number) => number

/** Creates the piece finder of `encoding`; it owns a sticky copy of the pattern. */
export function createPieceFinder(encoding: SplitEncoding): PieceFinder {
  const asciiPieceEnd = ASCII_PIECE_END[encoding]
  // Sticky: the pattern is asked for the piece at one position only. Pieces tile the text (every character starts some
  // alternative and none matches empty), so that piece is the one a global scan would find there.
  let pattern: RegExp | undefined
  return (text, unit, bytes, byte, end) => {
    const pieceEnd = asciiPieceEnd(bytes, byte, end)
    if (pieceEnd !== 0 && asciiDecides(bytes, pieceEnd, end)) return pieceEnd
    pattern ??= new RegExp(splitPattern(encoding).source, 'uy')
    pattern.lastIndex = unit
    if (!pattern.test(text)) throw new FloorguardError('internal', `the ${encoding} split pattern matched nothing at ${unit}: please report this text`)
    return advanceUnits(bytes, byte, pattern.lastIndex - unit)
  }
}

/** A unit the state machines cannot stand for: its pieces are left to the pattern. */
export const NO_STAND_IN = 0x80

let standIns: Uint8Array | undefined

/**
 * For each BMP code point, an ASCII character every class of both split patterns treats alike (`\p{L}`, `\p{N}`,
 * `\s`, the cased-upper and cased-lower classes, CR, LF, space, quote, slash and the contraction letters), or
 * {@link NO_STAND_IN}: another symbol or punctuation mark stands in as `#`, a number as `0`, a space as a tab, an
 * upper-case-only letter as `A`, a lower-case-only one as `a`. Letters in both cased classes (Lm, Lo), marks (cased
 * but not letters), the letters a contraction folds, surrogates and U+FFFD (a lone surrogate's stand-in in UTF-8)
 * have none. ASCII stands for itself. Then a text of stand-ins splits into the same pieces as the text, and the
 * ASCII machines split it (`→`, box drawing, `—` and accented Latin no longer send every piece near them to the
 * pattern).
 */
export function standInTable(): Uint8Array {
  if (standIns) return standIns
  const L = 1
  const N = 2
  const S = 4
  const UP = 8
  const LO = 16
  const bits = new Uint8Array(0x10000)
  const mark = (ranges: readonly number[], bit: number) => {
    for (let index = 0; index < ranges.length; index += 2) {
      const last = Math.min(ranges[index + 1]!, 0xffff)
      for (let cp = ranges[index]!; cp <= last; cp++) bits[cp]! |= bit
    }
  }
  mark(LETTER_RANGES, L)
  mark(NUMBER_RANGES, N)
  mark(SPACE_RANGES, S)
  mark(CASED_UPPER_RANGES, UP)
  mark(CASED_LOWER_RANGES, LO)
  const table = new Uint8Array(0x10000)
  for (let cp = 0; cp < 0x80; cp++) table[cp] = cp
  for (let cp = 0x80; cp < 0x10000; cp++) {
    const kind = bits[cp]!
    table[cp] =
      kind === 0 ? 0x23 : kind === N ? 0x30 : kind === S ? 0x09 : kind === (L | UP) ? 0x41 : kind === (L | LO) ? 0x61 : NO_STAND_IN
  }
  for (const folds of Object.values(CONTRACTION_FOLDS)) for (const cp of folds) if (cp < 0x10000) table[cp] = NO_STAND_IN
  for (let cp = 0xd800; cp <= 0xdfff; cp++) table[cp] = NO_STAND_IN
  table[0xfffd] = NO_STAND_IN
  standIns = table
  return table
}

/**
 * Writes the stand-in of each UTF-16 unit of the text whose UTF-8 is `bytes[0, end)` into `into` (see
 * {@link standInTable}; both units of a 4-byte character get {@link NO_STAND_IN}) and returns the number of units.
 */
export function writeStandIns(bytes: Uint8Array, end: number, into: Uint8Array): number {
  const table = standInTable()
  let unit = 0
  for (let index = 0; index < end; ) {
    const lead = bytes[index]!
    if (lead < 0x80) {
      into[unit++] = lead
      index++
    } else if (lead < 0xe0) {
      into[unit++] = table[((lead & 0x1f) << 6) | (bytes[index + 1]! & 0x3f)]!
      index += 2
    } else if (lead < 0xf0) {
      into[unit++] = table[((lead & 0x0f) << 12) | ((bytes[index + 1]! & 0x3f) << 6) | (bytes[index + 2]! & 0x3f)]!
      index += 3
    } else {
      into[unit++] = NO_STAND_IN
      into[unit++] = NO_STAND_IN
      index += 4
    }
  }
  return unit
}

/**
 * The unit ends of `text`'s pieces as the counter finds them: the ASCII machine over the units' stand-ins where it
 * decides, the pattern elsewhere (the counter's loop, without the counting; tests compare it with the pattern).
 */
export function pieceEndsWithStandIns(text: string, encoding: SplitEncoding): number[] {
  const machine = ASCII_PIECE_END[encoding]
  const pattern = new RegExp(splitPattern(encoding).source, 'uy')
  const bytes = new TextEncoder().encode(text)
  const standIns = new Uint8Array(text.length)
  const units = writeStandIns(bytes, bytes.length, standIns)
  const ends: number[] = []
  for (let unit = 0; unit < units; ) {
    let unitEnd = machine(standIns, unit, units)
    if (unitEnd === 0 || !asciiDecides(standIns, unitEnd, units)) {
      pattern.lastIndex = unit
      if (!pattern.test(text)) throw new FloorguardError('internal', `the ${encoding} split pattern matched nothing at ${unit}`)
      unitEnd = pattern.lastIndex
    }
    ends.push(unitEnd)
    unit = unitEnd
  }
  return ends
}

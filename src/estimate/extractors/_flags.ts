/**
 * Character-class flags of a word, computed in one pass, so that classification runs only the patterns a word
 * could match — and plain prose words (letters, at most a leading capital) run none.
 */

export const LOWER = 1
export const UPPER_FIRST = 1 << 1
export const UPPER_INNER = 1 << 2
export const DIGIT = 1 << 3
export const SLASH = 1 << 4
export const DOT = 1 << 5
export const EQUALS = 1 << 6
export const AT = 1 << 7
export const UNDERSCORE = 1 << 8
export const HYPHEN = 1 << 9
export const COLON = 1 << 10
export const BACKSLASH = 1 << 11
export const PAREN = 1 << 12
export const COMPARE = 1 << 13 // < > ! ~ ^
export const CURRENCY = 1 << 14 // $ € £
export const PERCENT = 1 << 15
export const OTHER = 1 << 16 // any other punctuation, and non-ASCII
export const NON_HEX_LETTER = 1 << 17 // a letter outside a-f / A-F
export const QUOTE = 1 << 18 // " ' `

/** Flags of a word made only of letters with at most a leading capital: prose. */
export const PROSE_MASK = LOWER | UPPER_FIRST | NON_HEX_LETTER

/** ASCII whitespace, in {@link CHAR_CLASS} only (never in a word's flags). */
export const SPACE = 1 << 19

/** Flag of each ASCII character (capitals as UPPER_INNER). */
export const CHAR_CLASS = new Uint32Array(128)
const TABLE = CHAR_CLASS
for (let code = 97; code <= 122; code++) TABLE[code] = LOWER | (code > 102 ? NON_HEX_LETTER : 0)
for (let code = 65; code <= 90; code++) TABLE[code] = UPPER_INNER | (code > 70 ? NON_HEX_LETTER : 0)
for (let code = 48; code <= 57; code++) TABLE[code] = DIGIT
const set = (chars: string, flag: number) => {
  for (const char of chars) TABLE[char.charCodeAt(0)] = flag
}
set('/', SLASH)
set('.', DOT)
set('=', EQUALS)
set('@', AT)
set('_', UNDERSCORE)
set('-', HYPHEN)
set(':', COLON)
set('\\', BACKSLASH)
set('()', PAREN)
set('<>!~^', COMPARE)
set('$', CURRENCY)
set('%', PERCENT)
set('"\'`', QUOTE)
set('#&*+,;?[]{}|', OTHER)
set(' \t\n\v\f\r', SPACE)

/** `\n`, in {@link UNIT_CLASS} only. */
export const NEWLINE = 1 << 20
/** A unit outside ASCII, in {@link UNIT_CLASS} only. */
export const NON_ASCII = 1 << 21
/** `”`, which closes quotes without being a quote character in a word's flags; in {@link UNIT_CLASS} only. */
export const RIGHT_QUOTE = 1 << 22
/** Punctuation trimmed from the start of a word; in {@link UNIT_CLASS} only. */
export const LEADING_TRIM = 1 << 23
/** Punctuation trimmed from the end of a word; in {@link UNIT_CLASS} only. */
export const TRAILING_TRIM = 1 << 24
/** The bits of {@link UNIT_CLASS} that are word flags. */
export const WORD_FLAGS = SPACE - 1

/**
 * Class of every UTF-16 unit: the word flags of {@link CHAR_CLASS} for ASCII, `OTHER` (or `CURRENCY`, or `QUOTE` for
 * `“`) for the rest, plus the scanner's bits ({@link SPACE}, {@link NEWLINE}, {@link NON_ASCII}, {@link RIGHT_QUOTE},
 * the trim bits). One lookup per unit, with no branch on its range, is what the scanner's character loop costs.
 */
export const UNIT_CLASS = new Uint32Array(0x10000)
for (let code = 0; code < 0x10000; code++) {
  if (code < 128) UNIT_CLASS[code] = TABLE[code]!
  else {
    const spaceLike = code === 0xa0 || code === 0x3000 || code === 0x2028 || code === 0x2029 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x1680 || code === 0x85 || code === 0xfeff
    UNIT_CLASS[code] = NON_ASCII | (spaceLike ? SPACE : code === 0x20ac || code === 0xa3 ? CURRENCY : code === 0x201c ? QUOTE | OTHER : OTHER)
  }
}
const mark = (chars: string, flag: number) => {
  for (const char of chars) UNIT_CLASS[char.charCodeAt(0)] = UNIT_CLASS[char.charCodeAt(0)]! | flag
}
mark('\n', NEWLINE)
mark('”', RIGHT_QUOTE)
mark('([{<"\'`*“‘«', LEADING_TRIM)
mark(')]}>,;:.!?"\'`*”’»', TRAILING_TRIM)

/** Flags of `text[start, end)`. A capital at `start` counts as UPPER_FIRST, later ones as UPPER_INNER. */
export function wordFlags(text: string, start: number, end: number): number {
  let flags = 0
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    flags |= code < 128 ? TABLE[code]! : code === 0x20ac || code === 0xa3 ? CURRENCY : OTHER
  }
  const first = text.charCodeAt(start)
  if (first >= 65 && first <= 90) {
    // Move the first capital's flag from inner to first unless another capital follows.
    let innerUpper = false
    for (let index = start + 1; index < end && !innerUpper; index++) {
      const code = text.charCodeAt(index)
      innerUpper = code >= 65 && code <= 90
    }
    flags |= UPPER_FIRST
    if (!innerUpper) flags &= ~UPPER_INNER
  }
  return flags
}

/** Whether a word with these flags is prose that no pattern can match. */
export function isProse(flags: number): boolean {
  return (flags & ~PROSE_MASK) === 0
}

/**
 * Whether no word pattern can match a word with these flags, so it need not even be sliced: prose, hyphenated or
 * apostrophized prose (`well-known`, `don't`), bare integers, and capitals without digits or underscores (`NOTE`), except errno
 * names, which start with `E` (`firstCode`).
 */
export function isUnclassifiable(flags: number, firstCode: number): boolean {
  // Bare integers only become items through their neighbours (`250 ms`), which numeric phrases handle.
  if (flags === DIGIT) return true
  if ((flags & ~(PROSE_MASK | HYPHEN | QUOTE | UPPER_INNER)) !== 0) return false
  if (flags & UPPER_INNER) return firstCode !== 69 && (flags & LOWER) === 0 && (flags & (HYPHEN | QUOTE)) === 0
  return true
}

import type { ItemKind } from '../../spec/estimator.js'
import { CUE_PHRASES, ERROR_PHRASES } from './_phrases.js'
import { isAlnumAt, isSpace, wordsOf, type Word } from './_scan.js'

/** A raw span found by an extractor, before pricing and merging. Offsets index the scanned text. */
export interface RawSpan {
  readonly kind: ItemKind
  readonly start: number
  readonly end: number
}

/** Error items longer than this are cut (at a code point boundary): the head of a line identifies it. */
export const MAX_ERROR_LENGTH = 400

const ERROR_SUFFIX = /(?:Error|Exception|Exit|Fault|Interrupt|Warning|Failure|Abort|Panic)$/
const ERROR_LEAD = /^(?:error|fatal|panic|failed|failure|err!?|exception)$/i
const ERROR_PHRASE_PATTERN = new RegExp(ERROR_PHRASES.join('|'), 'i')
/** Keywords that, before an exception name on the same line, make the line code rather than an error. */
const CODE_BEFORE_ERROR = /\b(?:except|catch|raise|throw|throws|isinstance|issubclass|import|class|extends|new|instanceof|pytest\.raises|assertRaises)\b/
const LINT_CODE = /^[A-Z]{1,3}\d{3,4}$/
const ERRNO = /^\[?errno\]?$/i
const TOOL_ERROR = '<tool_use_error>'
const EXIT_CODE = /^Exit code \d+$/

/**
 * Finds the error anchor of a line: where its error text starts, or -1.
 *
 * The anchor is the exception or error name (`OSError:`, `torch.cuda.OutOfMemoryError`), an errno, a leading
 * `error:`/`fatal:` word, or — for lines whose error is a phrase (`-bash: rsync: command not found`, lint codes,
 * `<tool_use_error>`) — the start of the line.
 */
export function errorAnchor(text: string, start: number, end: number, words: readonly Word[], isToolResult: boolean, isAscii = false, holdsPhrase?: boolean): number {
  for (const word of words) {
    // The word without trailing `:`, `,` and `;`.
    let bareEnd = word.text.length
    while (bareEnd > 0 && isBareTrailer(word.text.charCodeAt(bareEnd - 1))) bareEnd--
    const bare = word.text.slice(0, bareEnd)
    const name = bare.slice(bare.lastIndexOf('.') + 1)
    const first = name.charCodeAt(0)
    const anchors =
      (name.length > 4 && first >= 65 && first <= 90 && ERROR_SUFFIX.test(name) && name !== 'Error' && name !== 'Warning' && name !== 'Exit') ||
      (ERROR_LEAD.test(bare) && (text[word.end] === ':' || text[word.end] === '[' || /^[A-Z!]+$/.test(bare) || word.text.endsWith(':'))) ||
      ERRNO.test(bare) ||
      bare.startsWith('[Errno')
    // Code that names an exception (`except ImportError as e:`, `raise ValueError(...)`) is not an error that happened.
    if (anchors && !CODE_BEFORE_ERROR.test(text.slice(start, word.start))) return word.start
  }
  const trimmed = firstNonSpace(text, start, end)
  if (trimmed >= end) return -1
  if (end - trimmed >= TOOL_ERROR.length && text.startsWith(TOOL_ERROR, trimmed)) return trimmed
  if (isToolResult && EXIT_CODE.test(text.slice(trimmed, end).trimEnd())) return trimmed
  for (const word of words) {
    if (LINT_CODE.test(word.text)) {
      if (/:\d+/.test(text.slice(trimmed, end))) return trimmed
      break
    }
  }
  if (end - trimmed > 4096) return -1
  // An ASCII line's phrases may have been found already (`holdsPhrase`); otherwise, on ASCII text, one
  // case-insensitive pass finds the same phrases as lowercasing (which maps some non-ASCII letters, such as the
  // Kelvin sign, to ASCII ones).
  if (isAscii) return (holdsPhrase ?? ERROR_PHRASE_PATTERN.test(text.slice(trimmed, end))) ? trimmed : -1
  const lower = text.slice(trimmed, end).toLowerCase()
  return ERROR_PHRASES.some((phrase) => lower.includes(phrase)) ? trimmed : -1
}

/** `:`, `,` or `;`. */
function isBareTrailer(code: number): boolean {
  return code === 58 || code === 44 || code === 59
}

function firstNonSpace(text: string, start: number, end: number): number {
  let index = start
  while (index < end && isSpace(text.charCodeAt(index))) index++
  return index
}

function trimEndIndex(text: string, start: number, end: number): number {
  let index = end
  while (index > start && isSpace(text.charCodeAt(index - 1))) index--
  return index
}

/** Cuts `[start, end)` to at most `limit` UTF-16 units without splitting a surrogate pair. */
export function capSpan(text: string, start: number, end: number, limit: number): number {
  if (end - start <= limit) return end
  let cut = start + limit
  const code = text.charCodeAt(cut - 1)
  if (code >= 0xd800 && code <= 0xdbff) cut--
  return cut
}

/** The error span of a line: from its anchor to the end of the line (capped), or undefined. */
export function errorSpan(text: string, start: number, end: number, words: readonly Word[], isToolResult: boolean, isAscii = false, holdsPhrase?: boolean): RawSpan | undefined {
  const anchor = errorAnchor(text, start, end, words, isToolResult, isAscii, holdsPhrase)
  if (anchor < 0) return undefined
  const spanEnd = trimEndIndex(text, anchor, end)
  if (spanEnd <= anchor) return undefined
  return { kind: 'error', start: anchor, end: capSpan(text, anchor, spanEnd, MAX_ERROR_LENGTH) }
}

const REGEX_CONTENT = /\\[dwsbDWSB.()[\]{}|+*?^$\\/]|^\^|\$$|\[[^\]]+\]|\(\?[:=!<]|\.\*|\.\+|\{\d+(?:,\d*)?\}/

/**
 * Finds quoted strings on one line: `"…"`, `` `…` ``, `“…”`, and `'…'` where the quotes are not apostrophes.
 *
 * An apostrophe inside a word (`don't`, `it's`) neither opens nor closes a quote, so prose with contractions yields
 * nothing. A quote without its closer on the same line is not a quote.
 */
export function quotedSpans(text: string, start: number, end: number): RawSpan[] {
  const spans: RawSpan[] = []
  const count = quotePositions(text, start, end, lineQuotes, 0)
  forEachQuoted(text, start, end, lineQuotes, count, (isRegex, from, to) => spans.push({ kind: isRegex ? 'regex' : 'quoted', start: from, end: to }))
  return spans
}

/** Offsets of the quote characters of a line, for {@link quotedSpans} (reused: scans never nest). */
const lineQuotes: number[] = []

/** Appends the offsets of the quote characters (`"`, `'`, `` ` ``, `“`, `”`) in `[start, end)` to `into` from `count` on; returns the new count. */
export function quotePositions(text: string, start: number, end: number, into: number[], count: number): number {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 34 || code === APOSTROPHE || code === BACKTICK || code === LEFT_DOUBLE || code === RIGHT_DOUBLE) into[count++] = index
  }
  return count
}

/**
 * Calls `visit` for each quoted string of the line `[start, end)` (see {@link quotedSpans}), in order, with whether
 * its content is a regex. `quotes[0, count)` are the offsets of the line's quote characters, in order (see
 * {@link quotePositions}): the pairing walks that list only, and is linear, as once a quote character finds no
 * closer, no later opener of that character on the line can, so it is not tried again.
 */
export function forEachQuoted(text: string, start: number, end: number, quotes: readonly number[], count: number, visit: (isRegex: boolean, start: number, end: number) => void): void {
  // Which openers found no closer: `"`, `` ` ``, `“`, `'`.
  let exhausted = 0
  let next = 0
  while (next < count) {
    const at = quotes[next]!
    const code = text.charCodeAt(at)
    const kind = code === 34 ? 1 : code === BACKTICK ? 2 : code === LEFT_DOUBLE ? 4 : code === APOSTROPHE ? 8 : 0
    if (kind === 0 || exhausted & kind) {
      next++
      continue
    }
    if (code === BACKTICK && text.charCodeAt(at + 1) === BACKTICK && at + 1 < end) {
      // A fence or an empty pair: skip the run of backticks.
      let after = at
      while (after < end && text.charCodeAt(after) === BACKTICK) after++
      while (next < count && quotes[next]! < after) next++
      continue
    }
    if (code === APOSTROPHE && !opensSingleQuote(text, at, start, end)) {
      next++
      continue
    }
    const closer = code === LEFT_DOUBLE ? RIGHT_DOUBLE : code
    let close = next + 1
    for (; close < count; close++) {
      const candidate = quotes[close]!
      if (text.charCodeAt(candidate) !== closer) continue
      if (closer !== APOSTROPHE) break
      if (!isSpace(text.charCodeAt(candidate - 1)) && !(candidate + 1 < end && isAlnumAt(text, candidate + 1))) break
    }
    if (close === count) {
      exhausted |= kind
      next++
      continue
    }
    const closeAt = quotes[close]!
    if (closeAt > at + 1) visit(mayBeRegex(text, at + 1, closeAt) && REGEX_CONTENT.test(text.slice(at + 1, closeAt)), at, closeAt + 1)
    next = close + 1
  }
}

/**
 * Whether `text[start, end)` holds a unit that {@link REGEX_CONTENT} needs (`\\`, `[`, `(`, `.`, `{`), starts with `^`
 * or ends with `$`: most quoted strings hold none, and then need not be sliced and tested.
 */
function mayBeRegex(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) === 94 || text.charCodeAt(end - 1) === 36) return true
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 92 || code === 91 || code === 40 || code === 46 || code === 123) return true
  }
  return false
}

const BACKTICK = 0x60
const APOSTROPHE = 0x27
const LEFT_DOUBLE = 0x201c
const RIGHT_DOUBLE = 0x201d

function opensSingleQuote(text: string, index: number, lineStart: number, lineEnd: number): boolean {
  if (index > lineStart && isAlnumAt(text, index - 1)) return false
  return index + 1 < lineEnd && !isSpace(text.charCodeAt(index + 1))
}

/** Constraint cues (whole words, any case). */
export const CUES = new RegExp(`\\b(?:${CUE_PHRASES.join('|')})\\b`, 'i')

/**
 * Where cues start in the text (see `findPhrases`): `offsets[from, to)` are those on the line.
 *
 * A sentence holds a cue exactly when one of these falls inside it: a cue holds no sentence terminator, so no match
 * crosses sentences, and a sentence is bounded by whitespace or the line's ends, so `\b` reads the same in it as in
 * the whole text.
 */
export interface CueHits {
  readonly offsets: readonly number[]
  readonly from: number
  readonly to: number
}

/**
 * Splits one line into sentences and returns those holding a constraint cue, whole (`cues`: the line's matches, when
 * the caller has them).
 * A sentence ends at `.`, `!` or `?` followed by whitespace, or at the line end.
 */
export function constraintSpans(text: string, start: number, end: number, cues?: CueHits): RawSpan[] {
  const spans: RawSpan[] = []
  let cue = cues?.from ?? 0
  let sentenceStart = firstNonSpace(text, start, end)
  for (let index = sentenceStart; index <= end; index++) {
    const atEnd = index === end
    const code = atEnd ? 0 : text.charCodeAt(index)
    const closes = atEnd || ((code === 46 || code === 33 || code === 63) && (index + 1 >= end || isSpace(text.charCodeAt(index + 1))))
    if (!closes) continue
    const sentenceEnd = atEnd ? trimEndIndex(text, sentenceStart, end) : index + 1
    let holdsCue: boolean
    if (cues === undefined) holdsCue = sentenceEnd > sentenceStart && CUES.test(text.slice(sentenceStart, sentenceEnd))
    else {
      while (cue < cues.to && cues.offsets[cue]! < sentenceStart) cue++
      holdsCue = cue < cues.to && cues.offsets[cue]! < sentenceEnd
    }
    if (holdsCue) {
      spans.push({ kind: 'constraint', start: sentenceStart, end: sentenceEnd })
    }
    sentenceStart = firstNonSpace(text, index + 1, end)
    index = Math.max(index, sentenceStart - 1)
  }
  return spans
}

export { wordsOf }

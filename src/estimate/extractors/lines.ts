import type { ItemKind } from '../../spec/estimator.js'
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
const ERROR_PHRASES = [
  'command not found', 'no such file or directory', 'permission denied', 'not a git repository', 'segmentation fault',
  'out of memory', 'no space left on device', 'connection refused', 'timed out', 'cannot find module', 'module not found',
  'is not defined', 'undefined reference', 'syntax error', 'access denied', 'not found', 'killed',
]
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
export function errorAnchor(text: string, start: number, end: number, words: readonly Word[], isToolResult: boolean, isAscii = false): number {
  for (const word of words) {
    const bare = word.text.replace(/[:,;]+$/, '')
    const name = bare.slice(bare.lastIndexOf('.') + 1)
    const anchors =
      (name.length > 4 && /^[A-Z]/.test(name) && ERROR_SUFFIX.test(name) && !/^(?:Error|Warning|Exit)$/.test(name)) ||
      (ERROR_LEAD.test(bare) && (text[word.end] === ':' || text[word.end] === '[' || /^[A-Z!]+$/.test(bare) || word.text.endsWith(':'))) ||
      ERRNO.test(bare) ||
      bare.startsWith('[Errno')
    // Code that names an exception (`except ImportError as e:`, `raise ValueError(...)`) is not an error that happened.
    if (anchors && !CODE_BEFORE_ERROR.test(text.slice(start, word.start))) return word.start
  }
  const trimmed = firstNonSpace(text, start, end)
  if (trimmed >= end) return -1
  const line = text.slice(trimmed, end)
  if (line.startsWith(TOOL_ERROR)) return trimmed
  if (isToolResult && EXIT_CODE.test(line.trimEnd())) return trimmed
  if (words.some((word) => LINT_CODE.test(word.text)) && /:\d+/.test(line)) return trimmed
  if (line.length > 4096) return -1
  // On ASCII text one case-insensitive pass finds the same phrases as lowercasing (which maps some non-ASCII letters,
  // such as the Kelvin sign, to ASCII ones).
  if (isAscii) return ERROR_PHRASE_PATTERN.test(line) ? trimmed : -1
  const lower = line.toLowerCase()
  return ERROR_PHRASES.some((phrase) => lower.includes(phrase)) ? trimmed : -1
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
export function errorSpan(text: string, start: number, end: number, words: readonly Word[], isToolResult: boolean, isAscii = false): RawSpan | undefined {
  const anchor = errorAnchor(text, start, end, words, isToolResult, isAscii)
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
 * nothing. A quote without its closer on the same line is not a quote. Linear: once a quote character finds no
 * closer, no later opener of that character on the line can, so that character is not searched again.
 */
export function quotedSpans(text: string, start: number, end: number): RawSpan[] {
  const spans: RawSpan[] = []
  // Searches run in the line alone, and jump from one quote character to the next.
  const line = start === 0 && end === text.length ? text : text.slice(start, end)
  // Per opening quote character (OPENERS): its next offset at or after `index`, -1 once none is left or it is exhausted.
  const next = OPENERS.map((opener) => line.indexOf(opener))
  let index = 0
  for (;;) {
    let at = -1
    for (let opener = 0; opener < next.length; opener++) {
      if (next[opener]! !== -1 && next[opener]! < index) next[opener] = line.indexOf(OPENERS[opener]!, index)
      if (next[opener]! !== -1 && (at === -1 || next[opener]! < at)) at = next[opener]!
    }
    if (at === -1) return spans
    index = at
    const code = line.charCodeAt(index)
    if (code === BACKTICK && line.charCodeAt(index + 1) === BACKTICK) {
      while (index < line.length && line.charCodeAt(index) === BACKTICK) index++
      continue
    }
    if (code === APOSTROPHE && !opensSingleQuote(line, index, 0, line.length)) {
      index++
      continue
    }
    const close = findCloser(line, index + 1, line.length, code === LEFT_DOUBLE ? '”' : line[index]!)
    if (close === -1) {
      next[OPENERS.indexOf(line[index]!)] = -1
      index++
      continue
    }
    if (close > index + 1) {
      const content = line.slice(index + 1, close)
      spans.push({ kind: REGEX_CONTENT.test(content) ? 'regex' : 'quoted', start: start + index, end: start + close + 1 })
    }
    index = close + 1
  }
}

const OPENERS = ['"', '`', '“', "'"]
const BACKTICK = 0x60
const APOSTROPHE = 0x27
const LEFT_DOUBLE = 0x201c

function opensSingleQuote(text: string, index: number, lineStart: number, lineEnd: number): boolean {
  if (index > lineStart && isAlnumAt(text, index - 1)) return false
  return index + 1 < lineEnd && !isSpace(text.charCodeAt(index + 1))
}

function findCloser(text: string, from: number, end: number, closer: string): number {
  if (closer !== "'") {
    const found = text.indexOf(closer, from)
    return found !== -1 && found < end ? found : -1
  }
  for (let index = text.indexOf("'", from); index !== -1 && index < end; index = text.indexOf("'", index + 1)) {
    const before = text.charCodeAt(index - 1)
    const afterIsWord = index + 1 < end && isAlnumAt(text, index + 1)
    if (!isSpace(before) && !afterIsWord) return index
  }
  return -1
}

/** Constraint cues (whole words, any case). */
export const CUES = /\b(?:must|never|always|exactly|only|do not|don't|dont|does not|doesn't|at most|at least|no more than|no less than|no fewer than|required|requires|require|mandatory|ensure|make sure|should not|shouldn't|cannot|can't|forbidden|prohibited|not allowed|under no circumstances)\b/i

/**
 * Where a global pass of {@link CUES} over the text matched: `offsets[from, to)` are the matches on the line.
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

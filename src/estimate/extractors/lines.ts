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
export function errorAnchor(text: string, start: number, end: number, words: readonly Word[], isToolResult: boolean): number {
  for (const word of words) {
    // Code that names an exception (`except ImportError as e:`, `raise ValueError(...)`) is not an error that happened.
    if (CODE_BEFORE_ERROR.test(text.slice(start, word.start))) continue
    const bare = word.text.replace(/[:,;]+$/, '')
    const name = bare.slice(bare.lastIndexOf('.') + 1)
    if (name.length > 4 && /^[A-Z]/.test(name) && ERROR_SUFFIX.test(name) && !/^(?:Error|Warning|Exit)$/.test(name)) return word.start
    if (ERROR_LEAD.test(bare) && (text[word.end] === ':' || text[word.end] === '[' || /^[A-Z!]+$/.test(bare) || word.text.endsWith(':'))) return word.start
    if (ERRNO.test(bare) || bare.startsWith('[Errno')) return word.start
  }
  const trimmed = firstNonSpace(text, start, end)
  if (trimmed >= end) return -1
  const line = text.slice(trimmed, end)
  if (line.startsWith(TOOL_ERROR)) return trimmed
  if (isToolResult && EXIT_CODE.test(line.trimEnd())) return trimmed
  if (words.some((word) => LINT_CODE.test(word.text)) && /:\d+/.test(line)) return trimmed
  const lower = line.length <= 4096 ? line.toLowerCase() : ''
  if (lower && ERROR_PHRASES.some((phrase) => lower.includes(phrase))) return trimmed
  return -1
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
export function errorSpan(text: string, start: number, end: number, words: readonly Word[], isToolResult: boolean): RawSpan | undefined {
  const anchor = errorAnchor(text, start, end, words, isToolResult)
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
  const exhausted = new Set<string>()
  let index = start
  while (index < end) {
    const char = text[index]!
    if (char === '`' && text[index + 1] === '`') {
      while (index < end && text[index] === '`') index++
      continue
    }
    const closer = char === '"' || char === '`' ? char : char === '“' ? '”' : char === "'" ? "'" : undefined
    if (closer === undefined || exhausted.has(char)) {
      index++
      continue
    }
    if (char === "'" && !opensSingleQuote(text, index, start, end)) {
      index++
      continue
    }
    const close = findCloser(text, index + 1, end, closer)
    if (close === -1) {
      exhausted.add(char)
      index++
      continue
    }
    if (close > index + 1) {
      const content = text.slice(index + 1, close)
      spans.push({ kind: REGEX_CONTENT.test(content) ? 'regex' : 'quoted', start: index, end: close + 1 })
    }
    index = close + 1
  }
  return spans
}

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
 * Splits one line into sentences and returns those holding a constraint cue, whole.
 * A sentence ends at `.`, `!` or `?` followed by whitespace, or at the line end.
 */
export function constraintSpans(text: string, start: number, end: number): RawSpan[] {
  const spans: RawSpan[] = []
  let sentenceStart = firstNonSpace(text, start, end)
  for (let index = sentenceStart; index <= end; index++) {
    const atEnd = index === end
    const code = atEnd ? 0 : text.charCodeAt(index)
    const closes = atEnd || ((code === 46 || code === 33 || code === 63) && (index + 1 >= end || isSpace(text.charCodeAt(index + 1))))
    if (!closes) continue
    const sentenceEnd = atEnd ? trimEndIndex(text, sentenceStart, end) : index + 1
    if (sentenceEnd > sentenceStart && CUES.test(text.slice(sentenceStart, sentenceEnd))) {
      spans.push({ kind: 'constraint', start: sentenceStart, end: sentenceEnd })
    }
    sentenceStart = firstNonSpace(text, index + 1, end)
    index = Math.max(index, sentenceStart - 1)
  }
  return spans
}

export { wordsOf }

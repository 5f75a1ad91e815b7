import type { ItemKind } from '../../spec/estimator.js'
import { ADDRESSED_CUES, CUE_PHRASES, ERROR_PHRASES, MODAL_CUES } from './_phrases.js'
import { isAlnumAt, isSpace, wordsOf, type Word } from './_scan.js'
import { isRegexSyntax } from './words.js'

/** A raw span found by an extractor, before pricing and merging. Offsets index the scanned text. */
export interface RawSpan {
  readonly kind: ItemKind
  readonly start: number
  readonly end: number
}

/** Error items longer than this are cut (at a code point boundary): the head of a line identifies it. */
export const MAX_ERROR_LENGTH = 400

/** Names of what failed. A warning (`UserWarning: …`) is not among them: the program printed it and went on. */
const ERROR_SUFFIX = /(?:Error|Exception|Exit|Fault|Interrupt|Failure|Abort|Panic)$/
const ERROR_LEAD = /^(?:error|fatal|panic|failed|failure|err!?|exception)$/i
/**
 * These suffixes alone are words of prose (`Failure alerts and health checks`, a heading), not an exception's name:
 * they name an error with a colon (`Failure: …`) only. `Exception` and `Abort` alone still do (`Exception in thread
 * "main" …`, `Abort trap: 6`).
 */
const BARE_SUFFIXES = new Set(['Failure', 'Fault', 'Interrupt'])
/** An error phrase starting a word (`killed`, not `skilled`). */
const ERROR_PHRASE_PATTERN = new RegExp(`(?<![A-Za-z])(?:${ERROR_PHRASES.join('|')})`, 'i')
const LOWER_ERROR_PHRASE_PATTERN = new RegExp(`(?<![a-z])(?:${ERROR_PHRASES.join('|')})`)
/** Keywords that, before an exception name on the same line, make the line code rather than an error. */
const CODE_BEFORE_ERROR = /\b(?:except|catch|raise|throw|throws|isinstance|issubclass|import|class|extends|new|instanceof|pytest\.raises|assertRaises)\b/
const LINT_CODE = /^[A-Z]{1,3}\d{3,4}$/
const ERRNO = /^\[?errno\]?$/i
const TOOL_ERROR = '<tool_use_error>'
const EXIT_CODE = /^Exit code \d+$/

/**
 * Where an error line is read: `tool` output (every kind of anchor, `Exit code N` included), `pasted` text (a user's,
 * which holds pasted terminal output: every anchor but exit codes), or `prose` (the assistant's own sentences and
 * summaries, which talk about errors: only an error as a program prints it, a name or lead with its colon —
 * `ValueError: bad shape`, `error: …` — not `RuntimeError is only from …` or `the runs we killed`).
 */
export type ErrorSource = 'tool' | 'pasted' | 'prose'

/**
 * Finds the error anchor of a line: where its error text starts, or -1.
 *
 * The anchor is the exception or error name (`OSError:`, `torch.cuda.OutOfMemoryError`), an errno, a leading
 * `error:`/`fatal:` word, or — for lines whose error is a phrase (`-bash: rsync: command not found`, lint codes,
 * `<tool_use_error>`) — the start of the line. In tool output, a search match (`src/a.py:12: raise ValueError(…)`,
 * as grep and rg print it) is an error only when the word right after its `path:line:` prefix anchors one (a
 * diagnostic: `src/a.py:12: error: …`, `tests/t.py:4: AssertionError`).
 */
export function errorAnchor(text: string, start: number, end: number, words: readonly Word[], source: ErrorSource, isAscii = false, holdsPhrase?: boolean): number {
  // A line of a numbered file view (a Read's `  73→`, `cat -n`'s `    73\t`) is the file's content: code or text that
  // names an error (`raise FileNotFoundError(…)`, `logger.info(f"Skipping (not found)")`), not one that happened.
  if (source === 'tool' && numberedLineStart(text, start, end) !== -1) return -1
  const prose = source === 'prose'
  // A test runner's failed test (jest's `● suite › test`) is its line, as pytest's `FAILED path::test` is.
  if (!prose && testFailureBullet(text, start, end) !== -1) return firstNonSpace(text, start, end)
  // A compiler's or linter's diagnostic (`src/a.ts(12,5): error TS2345: …`, `  12:5  error  'x' is … no-unused-vars`)
  // is its line, location included.
  if (!prose && isDiagnostic(text, start, end, words)) return firstNonSpace(text, start, end)
  const matchEnd = source === 'tool' ? searchMatchPrefix(text, start, end) : -1
  // A statement of code (`PaymentError error;`, `.orElseThrow(() -> new NotFoundException("Event not found"));`),
  // as a file read or written back shows it: an exception's name or an error phrase in it is code, not an error.
  const statement = text.charCodeAt(trimEndIndex(text, start, end) - 1) === 59
  for (const word of words) {
    if (matchEnd !== -1 && word.start < matchEnd) continue
    // The word without trailing `:`, `,` and `;`.
    let bareEnd = word.text.length
    while (bareEnd > 0 && isBareTrailer(word.text.charCodeAt(bareEnd - 1))) bareEnd--
    const bare = word.text.slice(0, bareEnd)
    const name = bare.slice(bare.lastIndexOf('.') + 1)
    const first = name.charCodeAt(0)
    const colon = endsWithColon(text, word)
    const anchors =
      (name.length > 4 && first >= 65 && first <= 90 && ERROR_SUFFIX.test(name) && name !== 'Error' && name !== 'Warning' && name !== 'Exit' && (colon || (!prose && !statement && !BARE_SUFFIXES.has(name)))) ||
      (ERROR_LEAD.test(bare) && (colon || text[word.end] === '[' || (!prose && /^[A-Z!]+$/.test(bare)))) ||
      // vitest's and jest's failed file or test (` FAIL  test/a.test.ts > suite > test`), go test's `--- FAIL: TestX`;
      // a user's words use it as a word (`FAIL → debug and fix`), so there it needs its colon.
      (bare === 'FAIL' && (colon || source === 'tool')) ||
      isCodedError(text, word) ||
      (!prose && ERRNO.test(bare)) ||
      bare.startsWith('[Errno')
    // A field that reports no error (`Error: (none)`, `error: null`, as tool output templates print it) is none.
    if (anchors && colon && reportsNothing(text, word.end, end)) continue
    // Code that names an exception (`except ImportError as e:`, `raise ValueError(...)`) is not an error that happened.
    if (anchors && !CODE_BEFORE_ERROR.test(text.slice(start, word.start))) return word.start
    // A search match's error is its first word's.
    if (matchEnd !== -1) return -1
  }
  if (prose || matchEnd !== -1) return -1
  const trimmed = firstNonSpace(text, start, end)
  if (trimmed >= end) return -1
  if (end - trimmed >= TOOL_ERROR.length && text.startsWith(TOOL_ERROR, trimmed)) return trimmed
  if (source === 'tool' && EXIT_CODE.test(text.slice(trimmed, end).trimEnd())) return trimmed
  for (const word of words) {
    if (LINT_CODE.test(word.text)) {
      if (/:\d+/.test(text.slice(trimmed, end))) return trimmed
      break
    }
  }
  if (end - trimmed > 4096 || statement) return -1
  // A line that reports success (`{"message":"Successfully killed shell: b5798f9"}`) states no error by a phrase.
  if (saysSuccess(text, trimmed, end)) return -1
  // A line of several sentences talks about errors (`Python files will be checked for syntax errors after the
  // edit.`): a program prints one message.
  if (source === 'pasted' && holdsSentenceBreak(text, trimmed, end)) return -1
  // An ASCII line's phrases may have been found already (`holdsPhrase`: the caller checks they start a word);
  // otherwise, on ASCII text, one case-insensitive pass finds the same phrases as lowercasing (which maps some
  // non-ASCII letters, such as the Kelvin sign, to ASCII ones).
  if (isAscii) return (holdsPhrase ?? ERROR_PHRASE_PATTERN.test(text.slice(trimmed, end))) ? trimmed : -1
  return LOWER_ERROR_PHRASE_PATTERN.test(text.slice(trimmed, end).toLowerCase()) ? trimmed : -1
}

/** An error with its code in brackets, as rustc and cargo print it (`error[E0308]: mismatched types`): the word without its `]:`. */
const CODED_ERROR = /^error\[[A-Z]{0,3}\d{1,5}$/

/** Whether `word` is an error with its code in brackets and a colon (`error[E0308]:`; the word ends before its trimmed `]`). */
function isCodedError(text: string, word: Word): boolean {
  return word.text.length <= 14 && text.startsWith(']:', word.end) && CODED_ERROR.test(word.text)
}

/**
 * isDiagnostic(line [start, end), its hint words) = whether the line is a compiler's or linter's diagnostic whose
 * severity is the word `error` alone: followed by its code and a colon (tsc's `src/a.ts(12,5): error TS2345: …` and
 * `src/a.ts:12:5 - error TS2345: …`, MSVC's and the .NET compilers' `error C2065:`, `error CS0103:`), or preceded by
 * nothing but a `line:column` position (ESLint's stylish `  12:5  error  'x' is assigned … no-unused-vars`). Reads the
 * few units around the word.
 */
function isDiagnostic(text: string, start: number, end: number, words: readonly Word[]): boolean {
  for (const word of words) {
    if (word.end - word.start !== 5 || !text.startsWith('error', word.start)) continue
    // A code after it: one to three capitals, two to six digits, a colon.
    let at = word.end
    while (at < end && text.charCodeAt(at) === 32) at++
    const letters = at
    while (at < end && at - letters < 4 && text.charCodeAt(at) >= 65 && text.charCodeAt(at) <= 90) at++
    const digits = at
    while (at < end && at - digits < 7 && isDigitCode(text.charCodeAt(at))) at++
    if (digits > letters && digits - letters <= 3 && at - digits >= 2 && at - digits <= 6 && text.charCodeAt(at) === 58) return true
    // A position alone before it, two spaces or more after it (ESLint's columns).
    let before = firstNonSpace(text, start, word.start)
    const row = before
    while (before < word.start && isDigitCode(text.charCodeAt(before))) before++
    if (before === row || text.charCodeAt(before) !== 58) continue
    const column = ++before
    while (before < word.start && isDigitCode(text.charCodeAt(before))) before++
    if (before === column || firstNonSpace(text, before, word.start) !== word.start || before === word.start) continue
    if (text.charCodeAt(word.end) === 32 && text.charCodeAt(word.end + 1) === 32) return true
  }
  return false
}

/**
 * numberedLineStart(text, [start, end)) = where the content of a numbered file view's line starts (after `  73→` as
 * Claude Code's Read prints it, or `    73\t` as `cat -n` does), or -1 when the line is not one: spaces, one to seven
 * digits, then `→` or a tab.
 */
export function numberedLineStart(text: string, start: number, end: number): number {
  let index = start
  while (index < end && text.charCodeAt(index) === 32) index++
  const digits = index
  while (index < end && index - digits < 8 && isDigitCode(text.charCodeAt(index))) index++
  if (index === digits || index - digits > 7 || index >= end) return -1
  const code = text.charCodeAt(index)
  return code === 0x2192 || code === 9 ? index + 1 : -1
}

/**
 * testFailureBullet(text, [start, end)) = where jest's failed-test heading starts (`  ● upload › rejects big files`: a
 * `●` and a space after the indentation, then the suite and test names joined by `›`), or -1. `● Test suite failed to
 * run` names its failure in words; a bullet without `›` and those words is a list's.
 */
export function testFailureBullet(text: string, start: number, end: number): number {
  const first = firstNonSpace(text, start, end)
  if (end - first < 3 || text.charCodeAt(first) !== 0x25cf || text.charCodeAt(first + 1) !== 32) return -1
  for (let index = first + 2; index < end; index++) if (text.charCodeAt(index) === 0x203a) return first
  return text.startsWith('Test suite failed to run', first + 2) ? first : -1
}

/**
 * locationPathEnd(word [start, end) of text) = where the path of a source location (`test/upload.test.ts:42:28`,
 * `src/a.py:7`) ends, or -1 when the word is not one: a path, `:` and a line number, perhaps `:` and a column, nothing
 * after. Reads the word's tail backwards once.
 */
export function locationPathEnd(text: string, start: number, end: number): number {
  const colon = numberAfterColon(text, start, end)
  if (colon === -1) return -1
  const before = numberAfterColon(text, start, colon)
  const pathEnd = before === -1 ? colon : before
  return pathEnd > start ? pathEnd : -1
}

/** Where the `:` before the digits ending `[start, end)` stands, or -1 when no digit ends it or no `:` precedes them. */
function numberAfterColon(text: string, start: number, end: number): number {
  let index = end
  while (index > start && isDigitCode(text.charCodeAt(index - 1))) index--
  return index < end && index > start && text.charCodeAt(index - 1) === 58 ? index - 1 : -1
}

/**
 * isSourceLine(text, [start, end)) = whether the line is a line of source as a view or a code frame numbers it: spaces,
 * an optional `>` (the frame's marker), one to seven digits, then `→` or a tab (see {@link numberedLineStart}), two
 * spaces or more before its content (`   1  export const …`), or a gutter `|` or `│` (`  40|     const res = …`,
 * `2 |     let x`). A single space after the digits is not one: `  1 failing`, `3 errors` are a run's words.
 */
export function isSourceLine(text: string, start: number, end: number): boolean {
  let index = start
  while (index < end && text.charCodeAt(index) === 32) index++
  if (index < end && text.charCodeAt(index) === 62) index++
  while (index < end && text.charCodeAt(index) === 32) index++
  const digits = index
  while (index < end && index - digits < 8 && isDigitCode(text.charCodeAt(index))) index++
  if (index === digits || index - digits > 7 || index >= end) return false
  const code = text.charCodeAt(index)
  if (code === 0x2192 || code === 9 || code === 124 || code === 0x2502) return true
  if (code !== 32) return false
  let after = index
  while (after < end && text.charCodeAt(after) === 32) after++
  if (after === end) return false
  const next = text.charCodeAt(after)
  return after - index >= 2 ? !isSpace(next) : next === 124 || next === 0x2502
}

/** Whether `[start, end)` says it succeeded: it holds the word `successfully` or opens with `Success` (any case). */
function saysSuccess(text: string, start: number, end: number): boolean {
  const line = text.slice(start, Math.min(end, start + 400)).toLowerCase()
  return line.startsWith('success') || /(?<![a-z])successfully(?![a-z])/.test(line)
}

/**
 * Whether `[start, end)` is a program's version banner (`BusyBox v1.36.1 (2025-08-19 …) multi-call binary.`,
 * `GNU bash, version 5.2`): its name, then a version. After `Exit code N` it is the program's usage text opening, not
 * the failure's message.
 */
export function isVersionBanner(text: string, start: number, end: number): boolean {
  return VERSION_BANNER.test(text.slice(start, Math.min(end, start + 80)))
}

/** A name (letters, digits, `-`, `_`, at most three words), then `v1.2`, `1.2.3` or `version 1.2`. */
const VERSION_BANNER = /^[A-Za-z][\w-]*(?:,? [A-Za-z][\w-]*){0,2},? (?:version )?v?\d+\.\d+/

/**
 * What a field prints for "no error": `(none)`, `none`, `null`, `nil`, `(empty)`, `0`, `false`, `n/a`, `-`, `""`, `[]`.
 * Nothing at all after the colon is not one of them: the error's message may follow on the next line.
 */
const NOTHING = new Set(['(none)', 'none', 'null', 'nil', '(empty)', 'empty', '0', 'false', 'n/a', '-', '""', "''", '[]', '{}', '<none>', '(null)'])

/** Whether the rest of the line after a field name (`Error:` ending at `from`) is a value that says no error. */
function reportsNothing(text: string, from: number, end: number): boolean {
  let index = from
  if (text.charCodeAt(index) === 58) index++
  const first = firstNonSpace(text, index, end)
  const last = trimEndIndex(text, first, end)
  // Nothing longer than the longest of them is one.
  return last - first <= 8 && NOTHING.has(text.slice(first, last).toLowerCase())
}

/** Whether `[start, end)` holds a sentence break: `.`, `!` or `?`, a space, then a capital. */
function holdsSentenceBreak(text: string, start: number, end: number): boolean {
  for (let index = start + 1; index + 1 < end; index++) {
    if (text.charCodeAt(index) !== 32) continue
    const before = text.charCodeAt(index - 1)
    const after = text.charCodeAt(index + 1)
    if ((before === 46 || before === 33 || before === 63) && after >= 65 && after <= 90) return true
  }
  return false
}

/**
 * Where the `path:line:` (or `path:line:column:`, or `line:`) prefix of a search match ends, or -1 if the line has none:
 * a first word holding a `:` followed by digits and a `:`. The path part needs a `/` or a `.` (`Exit code 1:` is not one).
 */
export function searchMatchPrefix(text: string, start: number, end: number): number {
  const from = firstNonSpace(text, start, end)
  let index = from
  let pathLike = false
  for (; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 58 || isSpace(code)) break
    if (code === 47 || code === 46) pathLike = true
  }
  if (index === end || text.charCodeAt(index) !== 58) return -1
  // `12:content` (rg with headings): the line number alone, not a time (`10:30:00`).
  if (allDigits(text, from, index)) return isDigitCode(text.charCodeAt(index + 1)) ? -1 : index + 1
  const digitsFrom = index + 1
  let after = digitsFrom
  while (after < end && isDigitCode(text.charCodeAt(after))) after++
  if (!pathLike || after === digitsFrom || text.charCodeAt(after) !== 58) return -1
  after++
  // A column.
  let column = after
  while (column < end && isDigitCode(text.charCodeAt(column))) column++
  if (column > after && text.charCodeAt(column) === 58) after = column + 1
  return after
}

const isDigitCode = (code: number) => code >= 48 && code <= 57

function allDigits(text: string, start: number, end: number): boolean {
  if (end <= start) return false
  for (let index = start; index < end; index++) if (!isDigitCode(text.charCodeAt(index))) return false
  return true
}

/** Whether the word ends with a `:` or one follows it (a name as a program prints it: `ValueError:`, `error:`). */
function endsWithColon(text: string, word: Word): boolean {
  return text.charCodeAt(word.end) === 58 || word.text.endsWith(':')
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

/**
 * The error span of a line: from its anchor to the end of the line (capped), or undefined. An anchor inside JSON (a
 * quoted key or value: `{"error": {"message": "POST …: 422 …"}}`, `"status": "error"`) names no error by itself: the
 * line's error is the value of its message key (see {@link jsonMessage}), or none.
 */
export function errorSpan(text: string, start: number, end: number, words: readonly Word[], source: ErrorSource, isAscii = false, holdsPhrase?: boolean): RawSpan | undefined {
  const anchor = errorAnchor(text, start, end, words, source, isAscii, holdsPhrase)
  if (anchor < 0) return undefined
  const lineFirst = firstNonSpace(text, start, end)
  // A JSON line (`{"status":"error","error":"Figma API error: 429"}`) states its error in its message string.
  const opening = text.charCodeAt(lineFirst)
  if ((anchor > start && (text.charCodeAt(anchor - 1) === 34 || text.charCodeAt(anchor - 1) === 39)) || (anchor > lineFirst && (opening === 123 || opening === 91))) return jsonMessage(text, start, end)
  let spanEnd = trimEndIndex(text, anchor, end)
  if (spanEnd <= anchor) return undefined
  // An error quoted as inline code ends with the code (`` - **`KeyError: 'x'`**: Added the key ``).
  if (anchor > start && text.charCodeAt(anchor - 1) === 96) {
    let close = anchor
    while (close < spanEnd && text.charCodeAt(close) !== 96) close++
    spanEnd = close
  }
  // A sentence ending with its lead (`but I get the following error:`) introduces an error; the error comes after it.
  if (source !== 'tool' && anchor > lineFirst && text.charCodeAt(spanEnd - 1) === 58 && text.lastIndexOf(' ', spanEnd) < anchor) return undefined
  const capped = capSpan(text, anchor, spanEnd, MAX_ERROR_LENGTH)
  return isBinary(text, anchor, capped) ? undefined : { kind: 'error', start: anchor, end: capped }
}

/**
 * Whether `[start, end)` is binary data shown as text (an executable `cat` printed): it holds a control character
 * other than a tab, a carriage return or an escape, or U+FFFD, which bytes that are not UTF-8 decode to. No program
 * prints its error that way.
 */
export function isBinary(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    // Tab, carriage return and escape (a coloured error: `\x1b[31merror\x1b[0m: …`) are text.
    if ((code < 32 && code !== 9 && code !== 13 && code !== 27) || code === 0xfffd) return true
  }
  return false
}

/** Keys whose string value is an error's message, by preference. */
const MESSAGE_KEYS = ['"message"', '"detail"', '"msg"', '"reason"', '"error_message"', '"errorMessage"', '"description"', '"error"'] as const

/**
 * The string value of the first message key of `[start, end)` (`"message": "…"`, then `"detail"`, …, then a string
 * `"error"`), without its quotes, as an error span (capped); undefined if the line has none. Escapes stay as written.
 */
export function jsonMessage(text: string, start: number, end: number): RawSpan | undefined {
  for (const key of MESSAGE_KEYS) {
    for (let at = text.indexOf(key, start); at !== -1 && at + key.length < end; at = text.indexOf(key, at + key.length)) {
      let index = at + key.length
      while (index < end && isSpace(text.charCodeAt(index))) index++
      if (text.charCodeAt(index) !== 58) continue
      index++
      while (index < end && isSpace(text.charCodeAt(index))) index++
      if (text.charCodeAt(index) !== 34) continue
      const from = index + 1
      let close = from
      while (close < end && text.charCodeAt(close) !== 34) close += text.charCodeAt(close) === 92 ? 2 : 1
      if (close >= end || close === from) continue
      return { kind: 'error', start: from, end: capSpan(text, from, close, MAX_ERROR_LENGTH) }
    }
  }
  return undefined
}

/**
 * Finds quoted strings on one line: `"…"`, `` `…` ``, `“…”`, and `'…'` where the quotes are not apostrophes.
 *
 * An apostrophe inside a word (`don't`, `it's`) neither opens nor closes a quote, so prose with contractions yields
 * nothing. A quote without its closer on the same line is not a quote.
 */
export function quotedSpans(text: string, start: number, end: number): RawSpan[] {
  const spans: RawSpan[] = []
  // Offsets of the line's quote characters: a list per call, so that no scan shares a buffer with another.
  const lineQuotes: number[] = []
  const count = quotePositions(text, start, end, lineQuotes, 0)
  forEachQuoted(text, start, end, lineQuotes, count, (isRegex, from, to) => spans.push({ kind: isRegex ? 'regex' : 'quoted', start: from, end: to }))
  return spans
}

/** Appends the offsets of the quote characters (`"`, `'`, `` ` ``, `“`, `”`) in `[start, end)` to `into` from `count` on; returns the new count. */
export function quotePositions(text: string, start: number, end: number, into: number[], count: number): number {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 34 || code === APOSTROPHE || code === BACKTICK || code === LEFT_DOUBLE || code === RIGHT_DOUBLE) into[count++] = index
  }
  return count
}

/**
 * Whether the `"` or `'` at `at` is escaped: an odd run of backslashes right before it (`\"OWNER\"` inside a string).
 * Such a quote neither opens nor closes one. Reads the run only (it belongs to this quote alone).
 */
function isEscapedQuote(text: string, at: number, start: number): boolean {
  let before = at
  while (before > start && text.charCodeAt(before - 1) === 92) before--
  return ((at - before) & 1) === 1
}

/**
 * nestsUnevenly(text, start, end) = whether the quoted string `[start, end)` (quotes included, `"` or `'`) opens or
 * closes on the other quote character and holds an odd number of it: `'"}'` and `"' -f4 || echo "` are pieces of
 * a shell line's nested quoting (`cut -d'"' -f4`), cut at the wrong pair. `'"readme":{'` holds its pair, and a quote
 * in a bracket class (`[^"]`) pairs with nothing. Linear.
 */
export function nestsUnevenly(text: string, start: number, end: number): boolean {
  const opener = text.charCodeAt(start)
  if (end - start < 3 || (opener !== 34 && opener !== APOSTROPHE)) return false
  const other = opener === 34 ? APOSTROPHE : 34
  if (text.charCodeAt(start + 1) !== other && text.charCodeAt(end - 2) !== other) return false
  let inner = 0
  for (let at = start + 1; at < end - 1; at++) {
    // A quote in a bracket class (`'"url":"[^"]*"'`, a grep pattern) is matched, not paired.
    if (text.charCodeAt(at) === other && !(text.charCodeAt(at - 1) === 91 || (text.charCodeAt(at - 1) === 94 && text.charCodeAt(at - 2) === 91) || text.charCodeAt(at + 1) === 93)) inner++
  }
  return (inner & 1) === 1
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
    if (kind === 0 || exhausted & kind || ((kind & 9) !== 0 && isEscapedQuote(text, at, start))) {
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
      if (text.charCodeAt(candidate) !== closer || ((kind & 9) !== 0 && isEscapedQuote(text, candidate, start))) continue
      if (closer !== APOSTROPHE) break
      if (!isSpace(text.charCodeAt(candidate - 1)) && !(candidate + 1 < end && isAlnumAt(text, candidate + 1))) break
    }
    if (close === count) {
      exhausted |= kind
      next++
      continue
    }
    const closeAt = quotes[close]!
    if (closeAt > at + 1 && !nestsUnevenly(text, at, closeAt + 1)) visit(isRegexSyntax(text, at + 1, closeAt), at, closeAt + 1)
    next = close + 1
  }
}

/** Who wrote a quoted string, for {@link quotedIsState}: prose quotes of the agent are narrative, a user's may define. */
export type QuoteSource = 'instruction' | 'summary' | 'assistant'

/**
 * quotedIsState(text, start, end, source) = whether the quoted string `[start, end)` (its quote characters included)
 * is state. Not state (issue 10, the labelled sample's 'not state' quoted strings):
 * - a template (`` `python <script_name>.py` ``, `'<flag>'`): a placeholder names no value;
 * - a standard program alone (`` `grep` ``, `'find'`) or an install command without its package (`` `pip install` ``):
 *   a tool's name, not a value;
 * - in agent text and summaries, a symbol or a letter or two (`` `t` ``, `` `&` ``, `` `\` ``, `"$_"`): notation, no
 *   value (a number is kept: `` `42` ``; a user's `"x"` may be the exact string they want);
 * - in agent text and summaries, one plain lower-case word (`` `processing` ``, `` `"audio"` ``): the agent's
 *   vocabulary; a name it took from the user or the code is found where it was defined;
 * - in agent text, a prose phrase in quotation marks (`"could be sensed"`, `"GPU Training"`): quotation, not a value
 *   (backticks mark code, and stay).
 * A quote inside backticks (`` `"hotkey"` ``) is read by its content.
 */
export function quotedIsState(text: string, start: number, end: number, source: QuoteSource): boolean {
  const opener = text.charCodeAt(start)
  let from = start + 1
  let to = end - 1
  const inner = text.charCodeAt(from)
  if (to - from >= 2 && (inner === 34 || inner === APOSTROPHE) && text.charCodeAt(to - 1) === inner) {
    from++
    to--
  }
  let lower = 0
  let digits = 0
  let prose = 0
  let spaces = 0
  let placeholder = -1
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index)
    if (code >= 97 && code <= 122) lower++
    else if (code >= 48 && code <= 57) digits++
    else if (code === 32) spaces++
    else if ((code >= 65 && code <= 90) || code === 44 || code === 46 || code === 33 || code === 63 || code === 38 || code === 45 || code === APOSTROPHE) prose++
    else if (code === 60) placeholder = index
    else if (code === 62 && placeholder !== -1 && index > placeholder + 1 && isPlaceholder(text, placeholder + 1, index)) return false
  }
  const length = to - from
  if (lower + spaces + prose === length && isBareProgram(text, from, to, spaces)) return false
  if (isScrap(text, from, to)) return false
  if (source === 'instruction') return true
  if (length <= 2 && digits === 0) return false
  if (lower === length) return false
  return !(source === 'assistant' && opener !== BACKTICK && spaces > 0 && lower + digits + prose + spaces === length)
}

/**
 * isScrap(text, [from, to)) = whether a quoted string's content has no identity of its own: no letter or digit (`" "`,
 * `"; "`, `"."`; any unit past ASCII counts as a letter), or one or two digits alone (`"62"`, `` `1` ``): a separator
 * or a cell quoted in passing, not a value the session set. (One or two letters are a user's exact string, `"x"`; in
 * agent text they are dropped with other short quotes.)
 */
export function isScrap(text: string, from: number, to: number): boolean {
  let letters = 0
  let digits = 0
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index)
    if (code > 127 || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)) letters++
    else if (code >= 48 && code <= 57) digits++
    if (letters > 0 || digits > 2) return false
  }
  return digits === 0 || digits === to - from
}

/**
 * lineQuoteSource(text, [start, end), source) = who wrote the quoted strings of the line: a user's line of harness markup
 * (opening with a tag: `<summary>Background command "SSH into slate router" failed…</summary>` in a task
 * notification) is the harness's, which quotes a call's description back, so it is read as agent text (a prose phrase
 * in quotation marks is narrative); but `<command-args>`, which holds what the user typed after a slash command.
 */
export function lineQuoteSource(text: string, start: number, end: number, source: QuoteSource): QuoteSource {
  if (source === 'assistant') return source
  const first = firstNonSpace(text, start, end)
  return opensWithTag(text, first, end) && !text.startsWith('<command-args>', first) ? 'assistant' : source
}

/** Standard command-line programs: quoted alone, each names a tool that exists, not a value the session set. */
const PROGRAMS = new Set([
  'cat', 'grep', 'egrep', 'rg', 'ls', 'find', 'head', 'tail', 'less', 'more', 'sed', 'awk', 'xxd', 'hexdump', 'od', 'strings', 'curl',
  'wget', 'nc', 'netcat', 'ssh', 'scp', 'vim', 'vi', 'nano', 'emacs', 'echo', 'printf', 'make', 'python', 'python3', 'pip', 'pip3', 'npm',
  'npx', 'node', 'git', 'docker', 'sudo', 'bash', 'sh', 'zsh', 'man', 'which', 'touch', 'mkdir', 'rm', 'cp', 'mv', 'chmod', 'tar', 'unzip',
])

const LONGEST_PROGRAM = Math.max(...[...PROGRAMS].map((program) => program.length))

/**
 * Whether `[start, end)` (holding `spaces` spaces) is a program alone (`` `grep` ``) or an install command without its package
 * (`` `pip install` ``, `` `uv pip install` ``, `` `apt-get install` ``): a tool's name, not a value.
 */
function isBareProgram(text: string, start: number, end: number, spaces: number): boolean {
  // Checked on every quote of plain words: the length rules out most before anything is sliced.
  if (spaces === 0) return end - start <= LONGEST_PROGRAM && PROGRAMS.has(text.slice(start, end))
  return spaces <= 2 && end - start <= 24 && text.endsWith(' install', end)
}

/** Whether `[start, end)` is a placeholder's name: lower-case letters, `_` and `-`, starting with a letter. */
function isPlaceholder(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (!((code >= 97 && code <= 122) || (index > start && (code === 95 || code === 45)))) return false
  }
  return true
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
const CUES_GLOBAL = new RegExp(CUES.source, 'gi')

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
 * Splits one line into sentences and returns those whose clause holds a cue as its directive (see
 * {@link isDirective}), whole (`cues`: the line's matches, when the caller has them). A sentence ends at `.`, `!` or
 * `?` followed by whitespace, or at the line end. A line of harness markup (opening with a tag:
 * `<local-command-caveat>…`, or a banner a harness writes untagged) holds none: its instructions are the harness's
 * banner, not the user's constraints.
 */
export function constraintSpans(text: string, start: number, end: number, cues?: CueHits): RawSpan[] {
  const spans: RawSpan[] = []
  let sentenceStart = firstNonSpace(text, start, end)
  if (opensWithTag(text, sentenceStart, end) || opensWithBanner(text, sentenceStart, end) || opensWithHeading(text, sentenceStart, end)) return spans
  const hits = cues ?? cueHitsOf(text, start, end)
  // A list item that opens with an imperative (`- use \`gh\` to authenticate`) directs without a cue word.
  const bullet = bulletDirectiveStart(text, sentenceStart, end)
  let cue = hits.from
  for (let index = sentenceStart; index <= end; index++) {
    const atEnd = index === end
    const code = atEnd ? 0 : text.charCodeAt(index)
    const closes = atEnd || ((code === 46 || code === 33 || code === 63) && (index + 1 >= end || isSpace(text.charCodeAt(index + 1))) && !(code === 46 && endsAbbreviation(text, sentenceStart, index)))
    if (!closes) continue
    const sentenceEnd = atEnd ? trimEndIndex(text, sentenceStart, end) : index + 1
    while (cue < hits.to && hits.offsets[cue]! < sentenceStart) cue++
    let directive = bullet !== -1 && sentenceStart <= bullet && bullet < sentenceEnd
    if (!directive && cue < hits.to && hits.offsets[cue]! < sentenceEnd && !isWhQuestion(text, sentenceStart, sentenceEnd)) {
      for (let at = cue; at < hits.to && hits.offsets[at]! < sentenceEnd && !directive; at++) directive = isDirective(text, sentenceStart, hits.offsets[at]!)
    }
    if (directive) spans.push({ kind: 'constraint', start: sentenceStart, end: sentenceEnd })
    sentenceStart = firstNonSpace(text, index + 1, end)
    index = Math.max(index, sentenceStart - 1)
  }
  return spans
}

/**
 * Verbs whose base form opening a list item directs the agent (`- use \`gh\` to authenticate`, `- name the command
 * /session-share:publish`, `- Keep phases to 3-6 tasks each`). Closed, and without words that are as often nouns
 * (`check`, `test`, `build`, `fix`, `log`).
 */
const IMPERATIVE_VERBS = new Set([
  'use', 'name', 'call', 'keep', 'add', 'remove', 'rename', 'set', 'pin', 'switch', 'put', 'make', 'write', 'create', 'delete', 'move', 'install',
  'run', 'avoid', 'prefer', 'stop', 'return', 'commit', 'implement', 'include', 'exclude', 'skip', 'ignore', 'leave', 'store', 'save', 'limit',
  'replace', 'change', 'update',
])

/**
 * bulletDirectiveStart(text, [start, end)) = where the body of a list item that directs starts (after `- `, `* `, `+ `
 * or `1. `, and emphasis), or -1: a body opening with a verb of {@link IMPERATIVE_VERBS} and holding at least four
 * words (`- Use it wisely!` and `- Build/test/lint commands` are not). On the corpus' user turns such items were 20
 * directives of 22 (the two others: `Check if it's an import issue`, as `check` now is not a verb of the list).
 */
export function bulletDirectiveStart(text: string, start: number, end: number): number {
  let index = start
  const code = text.charCodeAt(index)
  if (code === 45 || code === 42 || code === 43) index++
  else {
    while (index < end && index - start < 3 && isDigitCode(text.charCodeAt(index))) index++
    if (index === start || (text.charCodeAt(index) !== 46 && text.charCodeAt(index) !== 41)) return -1
    index++
  }
  if (index >= end || text.charCodeAt(index) !== 32) return -1
  while (index < end && text.charCodeAt(index) === 32) index++
  const body = index
  while (index < end && (text.charCodeAt(index) === 42 || text.charCodeAt(index) === 95)) index++
  let verbEnd = index
  while (verbEnd < end && verbEnd - index <= 9 && isAsciiLetterCode(text.charCodeAt(verbEnd))) verbEnd++
  if (verbEnd === index || verbEnd - index > 9 || !IMPERATIVE_VERBS.has(text.slice(index, verbEnd).toLowerCase())) return -1
  // The verb alone, not a word it starts (`users`, `settings`).
  if (verbEnd < end && (isAlnumAt(text, verbEnd) || text.charCodeAt(verbEnd) === 45 || text.charCodeAt(verbEnd) === 47)) return -1
  let words = 0
  for (let at = body; at < end && words < 4; ) {
    while (at < end && isSpace(text.charCodeAt(at))) at++
    if (at < end) words++
    while (at < end && !isSpace(text.charCodeAt(at))) at++
  }
  return words >= 4 ? body : -1
}

const isAsciiLetterCode = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)

/** Question words that open a question when an auxiliary follows them (`how do we`, `why must`). */
const WH_WORDS = new Set(['how', 'what', 'why', 'who', 'whom', 'where', 'when', 'which'])
const AUXILIARIES = new Set(['do', 'does', 'did', 'can', 'could', 'should', 'would', 'will', 'shall', 'must', 'may', 'might', 'is', 'are', 'was', 'were'])

/**
 * Whether the sentence `[start, end)` is a question opening with a question word and an auxiliary (`How do we ensure
 * no secrets leak?`, `who do we ensure no dirtyware in the boot partition`, with or without its `?`): it asks, it
 * does not direct. A request phrased as a question (`Can you make sure the tests pass?`) stays a directive. Reads
 * two words.
 */
function isWhQuestion(text: string, start: number, end: number): boolean {
  const words = wordsIn(text, start, Math.min(end, start + 40))
  return words.length >= 2 && WH_WORDS.has(words[0]!.toLowerCase()) && AUXILIARIES.has(words[1]!.toLowerCase())
}

/** Abbreviations whose dot ends no sentence (`commands (e.g. python, vim)`); `etc.` often does, so it is not one. */
const ABBREVIATIONS = new Set(['e.g.', 'i.e.', 'cf.', 'vs.', 'viz.', 'approx.', 'incl.', 'resp.'])
const LONGEST_ABBREVIATION = Math.max(...[...ABBREVIATIONS].map((word) => word.length))

/** Whether the `.` at `dot` ends an abbreviation of {@link ABBREVIATIONS} (the word before it, after a space or `(`). */
function endsAbbreviation(text: string, sentenceStart: number, dot: number): boolean {
  let from = dot
  while (from > sentenceStart && dot - from < LONGEST_ABBREVIATION && !isSpace(text.charCodeAt(from - 1)) && text.charCodeAt(from - 1) !== 40) from--
  return ABBREVIATIONS.has(text.slice(from, dot + 1).toLowerCase())
}

/** The cue matches of `[start, end)`, found with {@link CUES} (the reference the phrase automaton agrees with). */
function cueHitsOf(text: string, start: number, end: number): CueHits {
  const offsets = [...text.slice(start, end).matchAll(CUES_GLOBAL)].map((match) => start + match.index)
  return { offsets, from: 0, to: offsets.length }
}

/** Whether `[start, end)` opens with a markup tag: `<` and a letter, as harness banners do. */
/**
 * Banners a harness writes into the user's turn without tags: Claude Code before 2.1 wrote its local-command caveat as
 * plain text in a meta record ("Caveat: The messages below were generated by the user while running local commands.
 * DO NOT respond to these messages…"), later inside `<local-command-caveat>`.
 */
const HARNESS_BANNERS = ['Caveat: The messages below were generated by the user while running local commands.']

/** Whether `[start, end)` is a Markdown heading (`### Required deliverables`): a title, which directs nothing. */
function opensWithHeading(text: string, start: number, end: number): boolean {
  let index = start
  while (index < end && index - start < 7 && text.charCodeAt(index) === 35) index++
  return index > start && index - start <= 6 && index < end && text.charCodeAt(index) === 32
}

function opensWithBanner(text: string, start: number, end: number): boolean {
  return HARNESS_BANNERS.some((banner) => end - start >= banner.length && text.startsWith(banner, start))
}

function opensWithTag(text: string, start: number, end: number): boolean {
  if (start + 1 >= end || text.charCodeAt(start) !== 60) return false
  const code = text.charCodeAt(start + 1) | 32
  return code >= 97 && code <= 122
}

/** Words that may stand before a directive's cue: a politeness, the addressee, a modal, a conjunction (`we need to make sure`). */
const LEADS = new Set([
  'please', 'kindly', 'you', 'we', 'i', 'also', 'and', 'but', 'or', 'so', 'then', 'just', 'lets', "let's", 'let', 'us', 'need', 'needs',
  'have', 'has', 'to', 'want', 'should', 'must', 'will', 'really', 'still', 'ok', 'okay', 'now', 'always', 'never', 'only', 'therefore',
])
/** Past auxiliaries: a clause holding one before its cue reports what happened (`the template was created but never used`). */
const PAST_AUXILIARIES = new Set(['was', 'were', 'had', 'did', 'been'])
/** Irregular past forms common in reports (regular ones end in `-ed`). */
const IRREGULAR_PAST = new Set(['ran', 'went', 'made', 'took', 'found', 'left', 'kept', 'built', 'wrote', 'said', 'told', 'gave', 'came', 'became', 'began', 'got', 'saw', 'broke', 'fell'])
/** Closed-class words (pronouns, determiners, prepositions, conjunctions): a clause opening with one is not an imperative. */
const NOT_VERBS = new Set([
  'the', 'a', 'an', 'this', 'that', 'these', 'those', 'it', 'its', "it's", 'i', "i'm", "i've", 'he', 'she', 'they', 'we', 'you', 'my', 'our',
  'your', 'their', 'his', 'her', 'there', 'here', 'some', 'all', 'each', 'every', 'any', 'no', 'not', 'one', 'both', 'in', 'on', 'at', 'for',
  'with', 'after', 'before', 'when', 'while', 'if', 'because', 'since', 'as', 'than', 'of', 'from', 'by', 'to', 'into', 'about', 'which',
  'who', 'what', 'where', 'why', 'how', 'is', 'are', 'was', 'were', 'be', 'yes', 'user', 'assistant', 'also', 'and', 'but', 'or', 'so',
])
/** Verbs after `I don't` that direct (`I don't want the schema touched`); others report (`I don't see the board`). */
const VOLITION = new Set(['want', 'wish', 'need', 'like', 'allow', 'accept', 'expect'])

/** The word (lower case, letters only, at most 12) that starts after the spaces at `from`. */
function wordAfter(text: string, from: number): string {
  let start = from
  while (start < text.length && text.charCodeAt(start) === 32) start++
  let end = start
  while (end < text.length && end - start < 12 && isAsciiLetterCode(text.charCodeAt(end))) end++
  return text.slice(start, end).toLowerCase()
}

/** Modals whose cue right after them is a directive (`should only`, `shall always`, `must never`). */
const OBLIGING_MODALS = new Set(['should', 'shall', 'must'])
/** Verbs whose `to` before `ensure`/`make sure` makes an obligation (`we need to make sure`), not a purpose (`ran it to ensure`). */
const OBLIGING = new Set(['need', 'needs', 'have', 'has', 'want', 'wants', 'got'])

/**
 * Whether the cue at `at` is the directive of its clause (the clause runs from the last `;`, `:`, `,`, `(`, `)` or
 * dash before the cue, within the sentence starting at `sentenceStart`), by one rule:
 * - a cue joined to a word by a hyphen (`read-only`, `must-have`) or enclosed in brackets (`[required]`) is not one;
 * - `cannot`/`can't` are directives addressed to the agent only (`you cannot`), as otherwise they report;
 * - a modal of obligation or prohibition (`must`, `should not`, `forbidden`, `ensure`, `make sure`) is one wherever it
 *   stands, unless a past auxiliary precedes it (a report), or it is a purpose (`ran /research to ensure`);
 * - any other cue (`never`, `always`, `only`, `do not`, `at most`, `required`) is one when its clause is an imperative:
 *   the cue opens the clause, follows only leads (`please`, `you`, `we need to`), or the clause opens with a verb in its
 *   base form (`Retry at most 3 times`) — and no past form precedes it (`Fixed the tests that never ran`).
 */
export function isDirective(text: string, sentenceStart: number, at: number): boolean {
  const cue = cuePhraseAt(text, at)
  if (cue === undefined) return false
  const after = at + cue.length
  if ((at > 0 && text.charCodeAt(at - 1) === 45) || text.charCodeAt(after) === 45) return false
  // A cue in brackets annotates a field (`- path (string) [required]: the file to open`): documentation, not a directive.
  const opener = at > 0 ? text.charCodeAt(at - 1) : 0
  const closer = text.charCodeAt(after)
  if ((opener === 91 || opener === 40) && (closer === 93 || closer === 41)) return false
  const from = clauseStart(text, sentenceStart, at)
  // Most directives open their clause (`Never …`, `- **Don't** …`): then no word needs slicing.
  if (!holdsLetter(text, from, at)) return !ADDRESSED_CUES.has(cue)
  const words = wordsIn(text, from, at)
  const last = words.length > 0 ? words[words.length - 1]!.toLowerCase() : ''
  if (ADDRESSED_CUES.has(cue)) return last === 'you'
  const lowered = words.map((word) => word.toLowerCase())
  if (lowered.some((word) => PAST_AUXILIARIES.has(word))) return false
  if (MODAL_CUES.has(cue)) {
    // `to ensure` is a purpose unless an obliging verb takes the `to` (`need to make sure`).
    if ((cue === 'ensure' || cue === 'make sure') && last === 'to') return lowered.length >= 2 && OBLIGING.has(lowered[lowered.length - 2]!)
    return true
  }
  // A modal of obligation right before the cue makes it one (`the highlight … should only have a quarter-circle`,
  // `it must never block`), whatever the clause opens with; `should` alone is no cue (see _cues.ts).
  if (OBLIGING_MODALS.has(last)) return true
  if (lowered.some(isPastForm)) return false
  // `I don't see the board` reports what the user observes; `I don't want …` directs.
  if (last === 'i' && (cue === "don't" || cue === 'dont' || cue === 'do not') && !VOLITION.has(wordAfter(text, after))) return false
  if (cue === 'required' && (last === 'is' || last === 'are' || last === 'be')) return true
  if (lowered.every((word) => LEADS.has(word))) return true
  return isBaseVerb(words[0]!)
}

/** The cue phrases by their first unit, longest first. */
const CUES_BY_FIRST: ReadonlyArray<readonly string[]> = Array.from({ length: 128 }, (_, code) =>
  CUE_PHRASES.filter((phrase) => phrase.charCodeAt(0) === code).sort((a, b) => b.length - a.length),
)

/** The cue phrase (lower case) starting at `at`, the longest of {@link CUE_PHRASES} that does (compared in place). */
function cuePhraseAt(text: string, at: number): string | undefined {
  const first = text.charCodeAt(at)
  const phrases = CUES_BY_FIRST[first >= 65 && first <= 90 ? first + 32 : first]
  if (phrases === undefined) return undefined
  for (const phrase of phrases) {
    let same = at + phrase.length <= text.length
    for (let offset = 1; offset < phrase.length && same; offset++) {
      const code = text.charCodeAt(at + offset)
      // `Don’t` is `don't` (the phrase automaton folds U+2019 the same way).
      same = (code >= 65 && code <= 90 ? code + 32 : code === 0x2019 ? 39 : code) === phrase.charCodeAt(offset)
    }
    if (same) return phrase
  }
  return undefined
}

/**
 * Units that end a clause before a cue: `;`, `:`, `,`, `(`, `)`, em and en dashes, and a `.`, `!` or `?` that did not end
 * the sentence (markup closes it: `**One concern per file.** Don't dump everything`).
 */
const isClauseBreak = (code: number) => code === 59 || code === 58 || code === 44 || code === 40 || code === 41 || code === 0x2014 || code === 0x2013 || code === 46 || code === 33 || code === 63

/** Where the clause holding `at` starts: after the last clause break before it in its sentence, or a ` - ` dash. */
function clauseStart(text: string, sentenceStart: number, at: number): number {
  let from = at
  while (from > sentenceStart) {
    const code = text.charCodeAt(from - 1)
    if (isClauseBreak(code)) break
    if (code === 45 && from - 2 >= sentenceStart && isSpace(text.charCodeAt(from - 2)) && isSpace(text.charCodeAt(from))) break
    from--
  }
  return from
}

/**
 * The words of `[from, at)`, with list markers, emphasis and quotes stripped (`- **Never**` has none before `Never`).
 */
function wordsIn(text: string, from: number, at: number): string[] {
  // Words: runs of non-space units, stripped of the units around them that are not letters or digits (an apostrophe
  // may end a word: `lets'`), kept when they hold a letter.
  const words: string[] = []
  let index = from
  while (index < at) {
    while (index < at && isSpace(text.charCodeAt(index))) index++
    let start = index
    while (index < at && !isSpace(text.charCodeAt(index))) index++
    let end = index
    while (start < end && !isAlnumAt(text, start)) start++
    while (end > start && !isAlnumAt(text, end - 1) && text.charCodeAt(end - 1) !== 39) end--
    if (end > start && holdsLetter(text, start, end)) words.push(text.slice(start, end))
  }
  return words
}

/** Whether `[start, end)` holds a letter (ASCII, or a non-ASCII unit some script's letter is made of). */
function holdsLetter(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index) | 32
    if ((code >= 97 && code <= 122) || (code >= 128 && isAlnumAt(text, index) && !/\p{N}/u.test(text[index]!))) return true
  }
  return false
}

/** A past form: a past auxiliary, a common irregular one, or a regular one (`-ed`, but not `need`, `proceed`). */
function isPastForm(word: string): boolean {
  if (PAST_AUXILIARIES.has(word) || IRREGULAR_PAST.has(word)) return true
  return word.length > 3 && word.endsWith('ed') && !word.endsWith('eed')
}

/**
 * Whether `word` can be a verb's base form opening an imperative: letters with at most a leading capital, not a
 * closed-class word, and not inflected (`-ing`, `-ed`, a third person `-s`).
 */
function isBaseVerb(word: string): boolean {
  if (!/^[A-Za-z][a-z]+$/.test(word)) return false
  const lowered = word.toLowerCase()
  if (NOT_VERBS.has(lowered) || isPastForm(lowered) || lowered.endsWith('ing')) return false
  return !lowered.endsWith('s') || lowered.endsWith('ss')
}

export { wordsOf }

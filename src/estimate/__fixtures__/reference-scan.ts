/**
 * A plain, slow scanner that applies `scanText`'s rules straightforwardly, for tests only (`extractors/scan-text.test.ts`).
 *
 * It shares with `scanText` the rules that decide what one word, line or sentence is (`classifyWord`, `standsAlone`,
 * `errorSpan`, `constraintSpans` without cue offsets, the quote pairing, numeric and flag phrases, `productBefore`),
 * and none of the machinery that makes the scan fast: no phrase automaton (every line gets the error, constraint and
 * example steps; constraint cues are found by `constraintSpans`' own regex), no repeated-line skipping, no
 * classification cache, no prose fast path or candidate filter (every word of two units or more is classified), no
 * skipping of words inside an error, a quoted string or a sentence, no typed arrays. Lines are `split('\n')`, words a
 * whitespace regex, their trimming two regexes and a count of parentheses, and the merge a sort of objects.
 */
import type { ItemKind } from '../../spec/estimator.js'
import { DIGIT, LOWER, NON_HEX_LETTER, UPPER_FIRST, UPPER_INNER, wordFlags } from '../extractors/_flags.js'
import { ERROR_PHRASES } from '../extractors/_phrases.js'
import { capSpan, constraintSpans, type ErrorSource, errorSpan, forEachQuoted, isBinary, isVersionBanner, jsonMessage, lineQuoteSource, locationPathEnd, MAX_ERROR_LENGTH, quotedIsState, type RawSpan, searchMatchPrefix } from '../extractors/lines.js'
import type { ScanMode } from '../extractors/scan-text.js'
import { classifyWord, digitHashes, flagPhrases, isChatCommand, keyValuePhrases, numericPhrases, pointsToPath, productBefore, standsAlone, urlEnd } from '../extractors/words.js'

/** Whitespace as the scan reads it: ASCII's, and the Unicode spaces it treats alike. */
const WHITESPACE = /[ \t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/
/** A numbered line of source (a view's, a code frame's): never an error's detail line. */
const SOURCE_LINE = new RegExp(`^ *(?:> *)?\\d{1,7}(?:[\u2192\t|\u2502]| +[|\u2502]| {2,}(?!${WHITESPACE.source}).)`)
const RUN = new RegExp(`[^${WHITESPACE.source.slice(1, -1)}]+`, 'g')
const LEADING = /^[([{<"'`*“‘«]+/
const TRAILING = /[)\]}>,;:.!?"'`*”’»]+$/
const TOOL_KINDS: ReadonlySet<ItemKind> = new Set(['url', 'uuid', 'hash', 'error'])
const EXAMPLE_CUE = /\b(?:such as|e\.g\.|for example|for instance)[\s,:]/gi
const CLAUSE_END = /[.!?](?:\s|$)|[;)]|,\s+[a-z']+(?=\s)/g
const LOG_LEVEL = /\b(?:DEBUG|INFO|WARN|WARNING)\b/
/** An error phrase starting a word (`killed`, not `skilled`), any case. */
const ERROR_PHRASE = new RegExp(`(?<![A-Za-z])(?:${ERROR_PHRASES.join('|')})`, 'i')

/**
 * A terminal escape sequence, by ECMA-48's forms: ESC `[` then parameter and intermediate units and perhaps a final
 * one; ESC `]`, `P`, `X`, `^` or `_` then a string up to BEL, ST (`ESC\\`, U+009C), a line break or another ESC;
 * ESC, intermediates and perhaps a final unit (an ESC before anything else stands alone).
 */
const ESCAPE_SEQUENCE = /\x1b(?:\[[\x20-\x3f]*[\x40-\x7e]?|[\]PX^_][^\x07\x1b\x9c\n]*(?:\x07|\x9c|\x1b\\)?|[\x20-\x2f]*[\x30-\x7e]?)/g

/** A line that lists a commit: graph art (at most 63 units), then 7 to 12 lower-case hex units and a space. */
const LISTED = /^([ \t*|/\\_]{0,63})([0-9a-f]{7,12}) /

/** What a line leaves the next one. */
type LineStatus = { kind: 'none' } | { kind: 'error'; indent: number } | { kind: 'exit' }

interface ReferenceWord {
  start: number
  end: number
  text: string
  flags: number
}

/** A word's trimmed bounds: wrapping punctuation off, but a trailing `)` that closes a `(` of the word kept. */
function trimWord(text: string, start: number, end: number): Array<[number, number]> {
  const word = text.slice(start, end)
  let left = start + (LEADING.exec(word)?.[0].length ?? 0)
  // A Markdown link or image (`[docs](https://…)`, `![x](a.png)`): the word is its target, and the text before `](`
  // a word of its own when it has two units or more (untrimmed).
  const link = text.slice(left, end).indexOf('](')
  const linkText: Array<[number, number]> = link >= 2 ? [[left, left + link]] : []
  if (link !== -1) left += link + 2
  const trailing = TRAILING.exec(text.slice(left, end))?.[0] ?? ''
  const trail = end - trailing.length
  let open = 0
  for (const char of text.slice(left, trail)) {
    if (char === '(') open++
    else if (char === ')' && open > 0) open--
  }
  let right = trail
  for (let index = 0; index < trailing.length; index++) {
    if (trailing[index] !== ')') continue
    if (open === 0) break
    open--
    right = trail + index + 1
  }
  return [...linkText, [left, right]]
}

/** The spans of `[start, end)` of `text` as `scanText` finds them, in order, with absolute offsets (see the file's doc). */
export function referenceScan(text: string, start: number, end: number, mode: ScanMode, isError = false): RawSpan[] {
  // The part is read as printed: its terminal escape sequences removed, each printed unit keeping its raw offset, and
  // a span covers the raw units from its first printed unit to its last.
  const raw = text.slice(start, end)
  const origins: number[] = []
  let region = ''
  let from = 0
  for (const escape of raw.matchAll(ESCAPE_SEQUENCE)) {
    for (let index = from; index < escape.index!; index++) origins.push(index)
    region += raw.slice(from, escape.index!)
    from = escape.index! + escape[0].length
  }
  for (let index = from; index < raw.length; index++) origins.push(index)
  region += raw.slice(from)
  const toRaw = (span: RawSpan): RawSpan => ({ kind: span.kind, start: start + origins[span.start]!, end: start + origins[span.end - 1]! + 1 })
  const tool = mode === 'tool'
  const quoting = !tool && mode !== 'code'
  const withCues = mode === 'instruction' || mode === 'summary'
  const source: ErrorSource = tool ? 'tool' : mode === 'instruction' ? 'pasted' : 'prose'
  const details = source !== 'prose'
  const quoteSource = mode === 'instruction' || mode === 'summary' ? mode : 'assistant'
  const found: RawSpan[] = []
  let sawError = false
  let firstLine: { from: number; to: number; first: number } | undefined
  // The line before: nothing, an error line with its indentation, or an `Exit code N` line.
  let previous: LineStatus = { kind: 'none' }
  let lineStart = 0
  const lines = region.split('\n')
  // The last line that listed a commit by digits alone at its head, and the hash's length.
  let hashLine = -1
  let hashLength = 0
  for (const [lineIndex, rawLine] of lines.entries()) {
    const lineEnd = lineStart + (rawLine.endsWith('\r') ? rawLine.length - 1 : rawLine.length)
    const words: ReferenceWord[] = []
    let dash = false
    for (const match of rawLine.matchAll(RUN)) {
      const from = lineStart + match.index!
      if (match[0].startsWith('-')) dash = true
      for (const [left, right] of trimWord(region, from, from + match[0].length)) {
        if (right > left) words.push({ start: left, end: right, text: region.slice(left, right), flags: wordFlags(region, left, right) })
      }
    }
    let status: LineStatus = { kind: 'none' }
    const afterError = sawError
    if (words.length > 0) {
      firstLine ??= { from: words[0]!.start, to: words.at(-1)!.end, first: lineStart + rawLine.search(/[^ \t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/) }
      const spans: Array<{ kind: ItemKind; start: number; end: number }> = []
      const ascii = /^[\x00-\x7f]*$/.test(rawLine.replace(new RegExp(WHITESPACE.source, 'g'), ''))
      const phrase = ERROR_PHRASE.test(rawLine)
      const error = errorSpan(region, lineStart, lineEnd, words, source, ascii, phrase)
      let lineError: RawSpan | undefined
      if (error) {
        lineError = error
        spans.push(error)
        sawError = true
        if (details) {
          const errorText = region.slice(error.start, error.end)
          status = /^Exit code \d+$/.test(errorText) ? { kind: 'exit' } : { kind: 'error', indent: Math.max(0, indentOf(region.slice(lineStart, lineEnd))) }
        }
      } else if (previous.kind !== 'none') {
        const line = region.slice(lineStart, lineEnd)
        const indent = indentOf(line)
        const rest = line.slice(Math.max(indent, 0))
        const isDetail =
          indent !== -1 &&
          !SOURCE_LINE.test(line) &&
          (previous.kind === 'exit'
            ? !rest.startsWith('Traceback (most recent call last)') && !/^warning/i.test(rest) && !LOG_LEVEL.test(rest.slice(0, 200)) && !/^([^A-Za-z0-9])\1\1/.test(rest) && !isVersionBanner(region, lineStart + indent, lineEnd)
            : indent > previous.indent)
        if (isDetail) {
          const detailStart = lineStart + indent
          const detailEnd = lineStart + line.replace(new RegExp(`${WHITESPACE.source}+$`), '').length
          lineError = { kind: 'error', start: detailStart, end: capSpan(region, detailStart, detailEnd, MAX_ERROR_LENGTH) }
          spans.push(lineError)
          sawError = true
        }
      }
      // Tool output after an error: a line giving a source location alone (` ❯ test/a.test.ts:42:28`) keeps it as a path.
      const location = words.at(-1)!
      const pathEnd = locationPathEnd(region, location.start, location.end)
      if (tool && afterError && !lineError && (words.length === 1 || (words.length === 2 && (words[0]!.flags & (LOWER | NON_HEX_LETTER | UPPER_FIRST | UPPER_INNER | DIGIT)) === 0 && !region.startsWith('-->', words[0]!.start))) && pathEnd !== -1 && classifyWord(region.slice(location.start, pathEnd)) === 'path') spans.push({ kind: 'path', start: location.start, end: location.end })
      if (quoting) {
        const quotes: number[] = []
        for (let index = lineStart; index < lineEnd; index++) if ('"\'`“”'.includes(region[index]!)) quotes.push(index)
        forEachQuoted(region, lineStart, lineEnd, quotes, quotes.length, (isRegex, from, to) => {
          if (isRegex) spans.push({ kind: 'regex', start: from, end: to })
          else if (quotedIsState(region, from, to, lineQuoteSource(region, lineStart, lineEnd, quoteSource))) spans.push({ kind: 'quoted', start: from, end: to })
        })
      }
      let constraints = withCues ? constraintSpans(region, lineStart, lineEnd) : []
      if (lineError) constraints = constraints.filter((sentence) => sentence.end <= lineError.start || sentence.start >= lineError.end)
      const starts = words.map((word) => word.start)
      const ends = words.map((word) => word.end)
      const flags = words.map((word) => word.flags)
      words.forEach((word, index) => {
        if (word.text.length < 2) return
        const kind = classifyWord(word.text, word.flags)
        // Tool output: a path it tells the agent to read next, and the UUIDs a longer word holds.
        if (tool && kind === 'path' && /[/\\]/.test(word.text) && pointsToPath(region, starts, ends, index) && standsAlone(word.text, kind, word.flags)) spans.push({ kind: 'path', start: word.start, end: word.end })
        if (tool && (kind === undefined || !TOOL_KINDS.has(kind)) && /-/.test(word.text) && /\d/.test(word.text)) {
          for (const match of word.text.matchAll(/(?<![A-Za-z0-9])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9])/g)) {
            if (word.text.length > 36) spans.push({ kind: 'uuid', start: word.start + match.index!, end: word.start + match.index! + 36 })
          }
        }
        if (kind === undefined || (tool && !TOOL_KINDS.has(kind))) return
        const product = index > 0 && (kind === 'version' || (kind === 'number' && /^v?(?=[0-9.]*\d)(?=[0-9.]*\.)[0-9.]+\+?$/.test(word.text))) ? productBefore(region, starts, ends, flags, index, kind === 'version') : -1
        if (product !== -1) spans.push({ kind: 'version', start: product, end: word.end })
        else if (kind === 'path' && ((index === 0 && mode === 'instruction') || (index > 0 && /^use$/i.test(region.slice(starts[index - 1], ends[index - 1])))) && isChatCommand(region, word.start, word.end)) return
        else if (standsAlone(word.text, kind, word.flags) && !(kind === 'path' && region[word.start - 1] === '<') && !(kind === 'identifier' && mode === 'code' && !/[=0-9"'`]/.test(word.text))) {
          const end = kind === 'url' ? urlEnd(region, word.start, word.end) : word.end
          if (end !== -1) spans.push({ kind, start: word.start, end })
        }
      })
      if (!tool) {
        const phrases: number[] = []
        const numbers = numericPhrases(region, starts, ends, flags, words.length, phrases)
        for (let at = 0; at < numbers; at++) {
          // A quoted key keeps both quotes; a closing quote without its opener makes the phrase a fragment.
          const first = phrases[2 * at]!
          const quote = region[ends[first]!]
          const keyed = first !== phrases[2 * at + 1]! && (quote === '"' || quote === "'")
          if (keyed && region[starts[first]! - 1] !== quote) continue
          spans.push({ kind: 'number', start: starts[first]! - (keyed ? 1 : 0), end: ends[phrases[2 * at + 1]!]! })
        }
        if (dash) {
          const options = flagPhrases(region, starts, ends, flags, words.length, phrases)
          for (let at = 0; at < options; at++) spans.push({ kind: phrases[3 * at + 2] ? 'number' : 'identifier', start: starts[phrases[3 * at]!]!, end: ends[phrases[3 * at + 1]!]! })
        }
        // A user's setting with a word value (`residual_scan: clean`).
        if (mode === 'instruction') {
          const settings = keyValuePhrases(region, starts, ends, flags, words.length, phrases)
          for (let at = 0; at < settings; at++) spans.push({ kind: 'identifier', start: starts[phrases[2 * at]!]!, end: ends[phrases[2 * at + 1]!]! })
        }
      }
      // Short commit hashes of digits only: by git's words around them, or at the head of a line listing commits next
      // to a line listing one of the same length (with a letter, or by this rule on the line before).
      const hashWords: number[] = []
      const hashCount = digitHashes(region, starts, ends, flags, words.length, lineStart, lineEnd, hashWords)
      const line = region.slice(lineStart, lineEnd)
      const head = LISTED.exec(line)
      let listed = false
      for (const word of hashWords.slice(0, hashCount)) {
        spans.push({ kind: 'hash', start: starts[word]!, end: ends[word]! })
        if (head && starts[word] === lineStart + head[1]!.length) listed = true
      }
      // Digits only, and a subject after the hash.
      if (head && /^\d+$/.test(head[2]!) && head[0].length < line.length && !WHITESPACE.test(line[head[0].length]!)) {
        const length = head[2]!.length
        const lists = (other: string | undefined) => {
          const match = other === undefined ? null : LISTED.exec(other)
          return match !== null && match[2]!.length === length && /[a-f]/.test(match[2]!)
        }
        if (!listed) {
          listed = (lineIndex > 0 && hashLine === lineIndex - 1 && hashLength === length) || lists(lines[lineIndex - 1]) || lists(lines[lineIndex + 1])
          if (listed) spans.push({ kind: 'hash', start: lineStart + head[1]!.length, end: lineStart + head[1]!.length + length })
        }
        if (listed) {
          hashLine = lineIndex
          hashLength = length
        }
      }
      for (const constraint of constraints) spans.push({ kind: 'constraint', start: constraint.start, end: constraint.end })
      const clauses = tool || mode === 'code' ? [] : exampleClauses(region.slice(lineStart, lineEnd))
      const kept = spans.filter((span) => span.kind === 'error' || span.kind === 'constraint' || !clauses.some(([from, to]) => from <= span.start - lineStart && span.start - lineStart < to))
      found.push(...merge(kept))
    }
    previous = status
    lineStart += rawLine.length + 1
  }
  if (tool && isError && !sawError && firstLine && searchMatchPrefix(region, firstLine.from, firstLine.to) === -1 && !isBinary(region, firstLine.from, firstLine.to)) {
    const opening = region[firstLine.first]
    const json = opening === '{' || opening === '[' ? jsonMessage(region, firstLine.first, region.length) : undefined
    found.push(json ?? { kind: 'error', start: firstLine.from, end: capSpan(region, firstLine.from, firstLine.to, MAX_ERROR_LENGTH) })
    return merge(found).map(toRaw)
  }
  return found.map(toRaw)
}

/** How far a line is indented in spaces and tabs; -1 when other whitespace follows them or nothing does. */
function indentOf(line: string): number {
  const indent = /^[ \t]*/.exec(line)![0].length
  return indent < line.length && !WHITESPACE.test(line[indent]!) ? indent : -1
}

/** A line's example clauses, `[from, to)` in the line: from a cue to the end of its clause. */
function exampleClauses(line: string): Array<[number, number]> {
  const clauses: Array<[number, number]> = []
  for (const cue of line.matchAll(EXAMPLE_CUE)) {
    if (clauses.length > 0 && cue.index! < clauses.at(-1)![1]) continue
    CLAUSE_END.lastIndex = cue.index! + cue[0].length
    const clauseEnd = CLAUSE_END.exec(line)
    clauses.push([cue.index!, clauseEnd === null ? line.length : clauseEnd.index])
  }
  return clauses
}

/** Overlapping spans merged into their union, named by the longest (the first pushed among equals); sorted by start. */
function merge(spans: readonly RawSpan[]): RawSpan[] {
  const sorted = spans.map((span, order) => ({ span, order })).sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end || a.order - b.order)
  const merged: Array<{ kind: ItemKind; start: number; end: number; longest: number }> = []
  for (const { span } of sorted) {
    const last = merged.at(-1)
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end)
      if (span.end - span.start > last.longest) {
        last.longest = span.end - span.start
        last.kind = span.kind
      }
    } else merged.push({ kind: span.kind, start: span.start, end: span.end, longest: span.end - span.start })
  }
  return merged.map(({ kind, start, end }) => ({ kind, start, end }))
}

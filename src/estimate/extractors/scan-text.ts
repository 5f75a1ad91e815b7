import type { ItemKind } from '../../spec/estimator.js'
import { CHAR_CLASS, COLON, CURRENCY, DIGIT, DOT, HYPHEN, isUnclassifiable, LOWER, OTHER, QUOTE, SPACE, UPPER_FIRST, UPPER_INNER, wordFlags } from './_flags.js'
import { isSpace, MAX_WORD_LENGTH, type Word } from './_scan.js'
import { capSpan, constraintSpans, CUES, errorSpan, MAX_ERROR_LENGTH, quotedSpans, type RawSpan } from './lines.js'
import { classifyWord, numericPhrases } from './words.js'

/**
 * How a part's text is scanned: `instruction` (user, system, earlier summaries) for everything including constraint
 * sentences, `assistant` for everything but constraints, `tool` for errors and identifiers only.
 */
export type ScanMode = 'instruction' | 'assistant' | 'tool'

/** Kinds worth keeping from a successful tool result: identifiers nobody can re-derive cheaply, and errors. */
const TOOL_RESULT_KINDS = new Set<ItemKind>(['url', 'uuid', 'hash', 'error'])

/** Whether a word with these flags and length could be a URL, UUID or hash (what tool results keep). */
function mayBeToolIdentifier(flags: number, length: number): boolean {
  if (flags & COLON || (flags & DIGIT && flags & DOT)) return true
  if (flags & HYPHEN && length === 36) return true
  return length >= 7 && length <= 64 && (flags & ~(LOWER | DIGIT)) === 0 && (flags & DIGIT) !== 0 && (flags & LOWER) !== 0
}

/**
 * A superset of what `errorAnchor` recognizes, found by one pass of the regex engine over the part; only lines with
 * a hit are examined word by word. Literal alternatives only: no backtracking beyond one literal.
 */
const ERROR_HINTS = /rror|xception|errno|fatal|panic|err!|err:|fail|exit code|fault|warning|interrupt|abort|denied|not found|no such|killed|<tool_use_error>|timed out|out of memory|not defined|undefined reference|refused|not a git|cannot find|no space/gi
const LINT_HINTS = /[A-Z]\d{3}/g

const LEADING_TRIM = new Uint8Array(128)
const TRAILING_TRIM = new Uint8Array(128)
for (const char of '([{<"\'`*') LEADING_TRIM[char.charCodeAt(0)] = 1
for (const char of ')]}>,;:.!?"\'`*') TRAILING_TRIM[char.charCodeAt(0)] = 1
const isLeadingTrim = (code: number) => (code < 128 ? LEADING_TRIM[code] === 1 : code === 0x201c || code === 0x2018 || code === 0xab)
const isTrailingTrim = (code: number) => (code < 128 ? TRAILING_TRIM[code] === 1 : code === 0x201d || code === 0x2019 || code === 0xbb)

/** Start offsets of every match of a global regex in `text`, in order. */
function hits(text: string, pattern: RegExp): number[] {
  const found: number[] = []
  pattern.lastIndex = 0
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) found.push(match.index)
  return found
}

/** Cursor over sorted hit offsets: whether any hit falls in `[start, end)`, for increasing, disjoint ranges. */
function cursor(offsets: readonly number[]): (start: number, end: number) => boolean {
  let next = 0
  return (start, end) => {
    while (next < offsets.length && offsets[next]! < start) next++
    return next < offsets.length && offsets[next]! < end
  }
}

/** Like {@link cursor}, but returns the hits in `[start, end)`. */
function collector(offsets: readonly number[]): (start: number, end: number) => number[] {
  let next = 0
  const found: number[] = []
  return (start, end) => {
    found.length = 0
    while (next < offsets.length && offsets[next]! < start) next++
    while (next < offsets.length && offsets[next]! < end) found.push(offsets[next++]!)
    return found
  }
}

/** Merges overlapping spans into their union; the longer span's kind names the union. Sorts `spans` in place. */
export function mergeSpans(spans: RawSpan[]): RawSpan[] {
  if (spans.length < 2) return spans
  spans.sort((a, b) => a.start - b.start || b.end - a.end)
  const merged: RawSpan[] = []
  let kind = spans[0]!.kind
  let start = spans[0]!.start
  let end = spans[0]!.end
  let longest = end - start
  for (let index = 1; index < spans.length; index++) {
    const span = spans[index]!
    if (span.start < end) {
      if (span.end > end) end = span.end
      if (span.end - span.start > longest) {
        longest = span.end - span.start
        kind = span.kind
      }
      continue
    }
    merged.push({ kind, start, end })
    kind = span.kind
    start = span.start
    end = span.end
    longest = end - start
  }
  merged.push({ kind, start, end })
  return merged
}

/**
 * Scans `[start, end)` of `text` line by line and returns merged raw spans (absolute offsets), in order.
 *
 * Sparse features (errors, quotes, constraint cues) are located by one regex pass each over the part, so the
 * per-line work for prose is a character loop that computes each word's class flags; only words that are not
 * plain prose are sliced and classified. A failing tool result that names no error keeps its first line.
 */
export function scanText(text: string, start: number, end: number, mode: ScanMode, isError: boolean): RawSpan[] {
  const region = start === 0 && end === text.length ? text : text.slice(start, end)
  const out: RawSpan[] = []
  const errorHits = collector(hits(region, ERROR_HINTS))
  const lintHit = cursor(hits(region, LINT_HINTS))
  const cueHit = mode === 'instruction' ? cursor(hits(region, new RegExp(CUES.source, 'gi'))) : () => false
  const starts: number[] = []
  const ends: number[] = []
  const flags: number[] = []
  const spans: RawSpan[] = []
  let sawError = false
  let firstLine: [number, number] | undefined
  let firstLineSpans = -1

  let lineStart = 0
  for (;;) {
    const newline = region.indexOf('\n', lineStart)
    let lineEnd = newline === -1 ? region.length : newline
    if (lineEnd > lineStart && region.charCodeAt(lineEnd - 1) === 13) lineEnd--
    // Word buffers are reused across lines: `count` says how many entries this line holds.
    let count = 0
    let lineFlags = 0
    // Raw flags of every word, trimmed punctuation and blobs included: whether the line holds a quote character.
    let lineRaw = 0
    for (let index = lineStart; index < lineEnd; ) {
      while (index < lineEnd && isSpace(region.charCodeAt(index))) index++
      const wordStart = index
      // One pass finds the word's end and its class flags; capitals are counted to tell a leading one apart.
      let raw = 0
      let capitals = 0
      for (; index < lineEnd; index++) {
        const code = region.charCodeAt(index)
        if (code < 128) {
          const charClass = CHAR_CLASS[code]!
          if (charClass & SPACE) break
          if (charClass & UPPER_INNER) capitals++
          raw |= charClass
        } else {
          if (isSpace(code)) break
          raw |= code === 0x20ac || code === 0xa3 ? CURRENCY : code === 0x201c ? QUOTE | OTHER : OTHER
        }
      }
      lineRaw |= raw
      if (index === wordStart || index - wordStart > MAX_WORD_LENGTH) continue
      let left = wordStart
      let right = index
      while (left < right && isLeadingTrim(region.charCodeAt(left))) left++
      while (right > left && isTrailingTrim(region.charCodeAt(right - 1))) {
        // Keep the closing parenthesis of a call such as `main()` or `f(x)`.
        if (region.charCodeAt(right - 1) === 41 && region.lastIndexOf('(', right - 1) >= left) break
        right--
      }
      if (right <= left) continue
      let wordFlagsValue: number
      if (left !== wordStart || right !== index) wordFlagsValue = wordFlags(region, left, right)
      else if (capitals === 1 && (CHAR_CLASS[region.charCodeAt(left)]! & UPPER_INNER) !== 0) wordFlagsValue = (raw & ~UPPER_INNER) | UPPER_FIRST
      else wordFlagsValue = capitals > 0 && (CHAR_CLASS[region.charCodeAt(left)]! & UPPER_INNER) !== 0 ? raw | UPPER_FIRST : raw
      starts[count] = left
      ends[count] = right
      flags[count] = wordFlagsValue
      count++
      lineFlags |= wordFlagsValue
    }
    if (count > 0) {
      const first = firstLine === undefined
      firstLine ??= [starts[0]!, ends[count - 1]!]
      spans.length = 0
      const errorOffsets = errorHits(lineStart, lineEnd)
      const lint = lintHit(lineStart, lineEnd)
      if (errorOffsets.length > 0 || lint) {
        // Every error anchor word contains a hint, so only the words holding hints need a look (all of them for lint codes).
        const words: Word[] = []
        for (let index = 0, hit = 0; index < count; index++) {
          while (hit < errorOffsets.length && errorOffsets[hit]! < starts[index]!) hit++
          const holdsHint = hit < errorOffsets.length && errorOffsets[hit]! < ends[index]!
          if (lint || holdsHint) words.push({ start: starts[index]!, end: ends[index]!, text: region.slice(starts[index], ends[index]) })
        }
        const error = errorSpan(region, lineStart, lineEnd, words, mode === 'tool')
        if (error) {
          spans.push(error)
          sawError = true
        }
      }
      if (mode !== 'tool' && lineRaw & QUOTE) for (const quoted of quotedSpans(region, lineStart, lineEnd)) spans.push(quoted)
      for (let index = 0; index < count; index++) {
        if (isUnclassifiable(flags[index]!, region.charCodeAt(starts[index]!)) || (mode === 'tool' && !mayBeToolIdentifier(flags[index]!, ends[index]! - starts[index]!))) continue
        const kind = classifyWord(region.slice(starts[index], ends[index]), flags[index])
        if (kind && (mode !== 'tool' || TOOL_RESULT_KINDS.has(kind))) spans.push({ kind, start: starts[index]!, end: ends[index]! })
      }
      if (mode !== 'tool' && lineFlags & 8 /* DIGIT */) {
        for (const [first, last] of numericPhrases(region, starts, ends, flags, count)) spans.push({ kind: 'number', start: starts[first]!, end: ends[last]! })
      }
      if (cueHit(lineStart, lineEnd)) for (const constraint of constraintSpans(region, lineStart, lineEnd)) spans.push(constraint)
      if (spans.length === 1) out.push(spans[0]!)
      else if (spans.length > 1) for (const span of mergeSpans(spans)) out.push(span)
      if (first) firstLineSpans = out.length
    }
    if (newline === -1) break
    lineStart = newline + 1
  }
  if (mode === 'tool' && isError && !sawError && firstLine) {
    // The fallback span may overlap the first line's identifiers: merge it with them.
    const head = out.splice(0, Math.max(0, firstLineSpans))
    head.push({ kind: 'error', start: firstLine[0], end: capSpan(region, firstLine[0], firstLine[1], MAX_ERROR_LENGTH) })
    out.unshift(...mergeSpans(head))
  }
  if (start === 0) return out
  return out.map((span) => ({ kind: span.kind, start: span.start + start, end: span.end + start }))
}

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

/** Kinds a scan finds, by code (the index): a {@link SpanList} holds numbers only. */
export const SPAN_KINDS = ['error', 'constraint', 'quoted', 'regex', 'version', 'path', 'url', 'env', 'constant', 'hash', 'uuid', 'number', 'identifier'] as const satisfies readonly ItemKind[]
const KIND_CODES = Object.fromEntries(SPAN_KINDS.map((kind, code) => [kind, code])) as Partial<Record<ItemKind, number>>
const kindCode = (kind: ItemKind): number => KIND_CODES[kind]!
const NUMBER = kindCode('number')

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

/** Spans in parallel typed arrays (kind code, start, end), in the order pushed: no object per span. */
export class SpanList {
  length = 0
  kinds: Uint8Array
  starts: Int32Array
  ends: Int32Array

  /** `capacity`: spans to make room for up front (the list grows by doubling past it). */
  constructor(capacity = 1024) {
    const size = Math.max(16, Math.ceil(capacity))
    this.kinds = new Uint8Array(size)
    this.starts = new Int32Array(size)
    this.ends = new Int32Array(size)
  }

  /** Appends a span with kind code `kind` (an index of {@link SPAN_KINDS}). */
  push(kind: number, start: number, end: number): void {
    if (this.length === this.kinds.length) {
      const capacity = this.length * 2
      const kinds = new Uint8Array(capacity)
      const starts = new Int32Array(capacity)
      const ends = new Int32Array(capacity)
      kinds.set(this.kinds)
      starts.set(this.starts)
      ends.set(this.ends)
      this.kinds = kinds
      this.starts = starts
      this.ends = ends
    }
    this.kinds[this.length] = kind
    this.starts[this.length] = start
    this.ends[this.length] = end
    this.length++
  }

  /** Kind of the `index`-th span. */
  kindOf(index: number): ItemKind {
    return SPAN_KINDS[this.kinds[index]!]!
  }

  /** The spans from `from` on, as objects. */
  toArray(from = 0): RawSpan[] {
    const spans: RawSpan[] = []
    for (let index = from; index < this.length; index++) spans.push({ kind: this.kindOf(index), start: this.starts[index]!, end: this.ends[index]! })
    return spans
  }
}

/**
 * One line's spans before merging, in reusable parallel arrays; {@link LineSpans.flush} merges overlapping ones
 * (the longer span's kind names the union, the first found among equals) into a {@link SpanList}.
 */
class LineSpans {
  count = 0
  private readonly kinds: number[] = []
  private readonly starts: number[] = []
  private readonly ends: number[] = []
  private readonly order: number[] = []

  push(kind: number, start: number, end: number): void {
    this.kinds[this.count] = kind
    this.starts[this.count] = start
    this.ends[this.count] = end
    this.count++
  }

  pushSpan(span: RawSpan): void {
    this.push(kindCode(span.kind), span.start, span.end)
  }

  /** Sign of the order of spans `a` and `b`: by start, then longest first. */
  private before(a: number, b: number): number {
    return this.starts[a]! - this.starts[b]! || this.ends[b]! - this.ends[a]!
  }

  /** Appends the merged spans, shifted by `offset`, to `into` and empties the line. */
  flush(into: SpanList, offset: number): void {
    const { count, kinds, starts, ends, order } = this
    this.count = 0
    if (count === 0) return
    if (count === 1) {
      into.push(kinds[0]!, starts[0]! + offset, ends[0]! + offset)
      return
    }
    // By start, then longest first; stable. Lines hold a few spans, whose runs are sorted already: insertion sort,
    // unless the line is long enough for that to cost more than a sort.
    for (let index = 0; index < count; index++) order[index] = index
    if (count > 32) {
      // Drop the entries a longer line left behind before sorting the whole array.
      order.length = count
      order.sort((a, b) => this.before(a, b) || a - b)
    }
    else {
      for (let index = 1; index < count; index++) {
        const current = order[index]!
        let at = index
        while (at > 0 && this.before(order[at - 1]!, current) > 0) {
          order[at] = order[at - 1]!
          at--
        }
        order[at] = current
      }
    }
    let kind = kinds[order[0]!]!
    let start = starts[order[0]!]!
    let end = ends[order[0]!]!
    let longest = end - start
    for (let index = 1; index < count; index++) {
      const span = order[index]!
      if (starts[span]! < end) {
        if (ends[span]! > end) end = ends[span]!
        if (ends[span]! - starts[span]! > longest) {
          longest = ends[span]! - starts[span]!
          kind = kinds[span]!
        }
        continue
      }
      into.push(kind, start + offset, end + offset)
      kind = kinds[span]!
      start = starts[span]!
      end = ends[span]!
      longest = end - start
    }
    into.push(kind, start + offset, end + offset)
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
 * Scans `[start, end)` of `text` line by line and appends merged spans (absolute offsets), in order, to `into`
 * (a new list unless given), which it returns.
 *
 * Sparse features (errors, quotes, constraint cues) are located by one regex pass each over the part, so the
 * per-line work for prose is a character loop that computes each word's class flags; only words that are not
 * plain prose are sliced and classified. A failing tool result that names no error keeps its first line.
 */
export function scanText(text: string, start: number, end: number, mode: ScanMode, isError: boolean, into: SpanList = new SpanList()): SpanList {
  const region = start === 0 && end === text.length ? text : text.slice(start, end)
  const base = into.length
  // A local binding of the table: the character loop below is the hottest code of the estimator.
  const classes = CHAR_CLASS
  // Error hints: the line's hits are errorOffsets[errorFrom, errorTo), found by a cursor over increasing lines.
  const errorOffsets = hits(region, ERROR_HINTS)
  let errorTo = 0
  const lintHit = cursor(hits(region, LINT_HINTS))
  const cueOffsets = mode === 'instruction' ? hits(region, new RegExp(CUES.source, 'gi')) : []
  let cueTo = 0
  const starts: number[] = []
  const ends: number[] = []
  const flags: number[] = []
  const spans = new LineSpans()
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
    // Whether the line's words are all ASCII (what error phrases need to know).
    let lineAscii = true
    for (let index = lineStart; index < lineEnd; ) {
      for (; index < lineEnd; index++) {
        const code = region.charCodeAt(index)
        if (code < 128 ? (classes[code]! & SPACE) === 0 : !isSpace(code)) break
      }
      const wordStart = index
      // One pass finds the word's end and its class flags; capitals are counted to tell a leading one apart.
      let raw = 0
      let capitals = 0
      for (; index < lineEnd; index++) {
        const code = region.charCodeAt(index)
        if (code < 128) {
          const charClass = classes[code]!
          if (charClass & SPACE) break
          if (charClass & UPPER_INNER) capitals++
          raw |= charClass
        } else {
          if (isSpace(code)) break
          lineAscii = false
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
      while (errorTo < errorOffsets.length && errorOffsets[errorTo]! < lineStart) errorTo++
      const errorFrom = errorTo
      while (errorTo < errorOffsets.length && errorOffsets[errorTo]! < lineEnd) errorTo++
      const lint = lintHit(lineStart, lineEnd)
      if (errorTo > errorFrom || lint) {
        // Every error anchor word contains a hint, so only the words holding hints need a look (all of them for lint codes).
        const words: Word[] = []
        for (let index = 0, hit = errorFrom; index < count; index++) {
          while (hit < errorTo && errorOffsets[hit]! < starts[index]!) hit++
          const holdsHint = hit < errorTo && errorOffsets[hit]! < ends[index]!
          if (lint || holdsHint) words.push({ start: starts[index]!, end: ends[index]!, text: region.slice(starts[index], ends[index]) })
        }
        const error = errorSpan(region, lineStart, lineEnd, words, mode === 'tool', lineAscii)
        if (error) {
          spans.pushSpan(error)
          sawError = true
        }
      }
      if (mode !== 'tool' && lineRaw & QUOTE) for (const quoted of quotedSpans(region, lineStart, lineEnd)) spans.pushSpan(quoted)
      for (let index = 0; index < count; index++) {
        // One-unit words never classify.
        if (ends[index]! - starts[index]! < 2 || isUnclassifiable(flags[index]!, region.charCodeAt(starts[index]!)) || (mode === 'tool' && !mayBeToolIdentifier(flags[index]!, ends[index]! - starts[index]!))) continue
        const kind = classifyWord(region.slice(starts[index], ends[index]), flags[index])
        if (kind && (mode !== 'tool' || TOOL_RESULT_KINDS.has(kind))) spans.push(kindCode(kind), starts[index]!, ends[index]!)
      }
      if (mode !== 'tool' && lineFlags & 8 /* DIGIT */) {
        for (const [first, last] of numericPhrases(region, starts, ends, flags, count)) spans.push(NUMBER, starts[first]!, ends[last]!)
      }
      while (cueTo < cueOffsets.length && cueOffsets[cueTo]! < lineStart) cueTo++
      const cueFrom = cueTo
      while (cueTo < cueOffsets.length && cueOffsets[cueTo]! < lineEnd) cueTo++
      if (cueTo > cueFrom) for (const constraint of constraintSpans(region, lineStart, lineEnd, { offsets: cueOffsets, from: cueFrom, to: cueTo })) spans.pushSpan(constraint)
      spans.flush(into, start)
      if (first) firstLineSpans = into.length - base
    }
    if (newline === -1) break
    lineStart = newline + 1
  }
  if (mode === 'tool' && isError && !sawError && firstLine) {
    // The fallback span may overlap the first line's identifiers: merge it with them.
    const found = into.toArray(base)
    const head = found.splice(0, Math.max(0, firstLineSpans))
    head.push({ kind: 'error', start: firstLine[0] + start, end: capSpan(region, firstLine[0], firstLine[1], MAX_ERROR_LENGTH) + start })
    into.length = base
    for (const span of [...mergeSpans(head), ...found]) into.push(kindCode(span.kind), span.start, span.end)
  }
  return into
}

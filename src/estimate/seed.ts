import { FloorguardError } from '../errors.js'
import type { FloorEstimate, FloorEstimatorV1, FloorItem, ItemKind } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'
import { renderMessage, renderSegment } from '../transcript/render.js'
import {
  CONSTANT,
  DIGIT,
  PATH_TAIL,
  WORD,
  bmpClasses,
  classAt,
  codePointLength,
  lowerAsciiTable,
} from './_python-classes.js'

/*
 * The record's reference estimator (`estimate_floor` in seed_floor.py), reproduced exactly and in
 * linear time. The reference runs four regexes with Python `finditer`:
 *
 *   quoted    "[^"]*"|'[^']*'
 *   number    \b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b
 *   path      \b[\w.-]+/[\w./-]+\b
 *   constant  \b[A-Z_]{2,}\b
 *
 * Each is replaced below by a hand scanner over precomputed Python character classes
 * (`_python-classes.ts`); the comment on each scanner derives why it finds exactly the matches
 * `finditer` finds. No JS regex ever runs on the text.
 */

/** Which reference pattern (or the cue list) produced a span. */
export type SeedPattern = 'quoted' | 'number' | 'path' | 'constant' | 'cue'

/** One distinct span the reference prices. Offsets are UTF-16 indices into the scanned text. */
export interface SeedSpan {
  readonly pattern: SeedPattern
  /** The span's text; for a cue, the cue itself (`must`, `do not`, …) as it appears in `text.lower()`. */
  readonly text: string
  /** Start (inclusive) of the span's first occurrence; for a cue, of its first occurrence in `text.lower()`. */
  readonly start: number
  /** End (exclusive). */
  readonly end: number
  /** `max(1, codePoints // 4)` for a pattern span, `8` for a cue. */
  readonly tokens: number
}

/** Result of {@link seedEstimateText}. */
export interface SeedTextEstimate {
  /** Sum of the tokens of {@link SeedTextEstimate.spans}: the reference's `irreducible_tokens`. */
  readonly irreducible: number
  /** `trunc(irreducible * marginRatio)`: the reference's `margin_tokens`. */
  readonly margin: number
  /** Distinct spans in the reference's order: by pattern (quoted, number, path, constant, cue), then by position. */
  readonly spans: SeedSpan[]
}

/** The reference's constraint cues, in its order. */
export const SEED_CUES = ['must', 'never', 'always', 'exactly', 'only', 'do not'] as const

/** Tokens the reference charges for each cue present. */
export const SEED_CUE_TOKENS = 8

/** Default margin ratio, the reference's `margin_ratio=0.20`. */
export const SEED_DEFAULT_MARGIN_RATIO = 0.2

/**
 * irreducible = Σ over distinct spans of max(1, len // 4) + 8 × cues in `text.lower()`; margin = trunc(irreducible × marginRatio).
 *
 * Equals `estimate_floor(text, margin_ratio)` of seed_floor.py for any string (lengths in code points,
 * Python 3.11 / Unicode 14 character classes, Python's `str.lower()`), in time linear in `text.length`.
 * @throws FloorguardError (`invalid-argument`) when `marginRatio` is not a finite number ≥ 0.
 */
export function seedEstimateText(text: string, marginRatio: number = SEED_DEFAULT_MARGIN_RATIO): SeedTextEstimate {
  assertMarginRatio(marginRatio)
  const words = scanWordStarts(text)
  const { hasSurrogates } = words
  const seen = new Set<string>()
  const spans: SeedSpan[] = []
  let irreducible = 0
  // Agent text repeats short spans (`0`, `200`, `"type"`) constantly. A small direct-mapped cache of
  // seen spans, keyed by length and end characters and confirmed by comparing characters, skips
  // them without allocating a string or hashing it; a comparison reads at most the span itself.
  const recentStart = new Int32Array(RECENT_SLOTS).fill(-1)
  const recentLength = new Int32Array(RECENT_SLOTS)
  const emitter = (pattern: SeedPattern): Emit => (start, end) => {
    const length = end - start
    const slot = (Math.imul(length, 0x9e3779b1) ^ Math.imul(text.charCodeAt(start), 31) ^ text.charCodeAt(end - 1)) & (RECENT_SLOTS - 1)
    const cached = recentStart[slot] ?? -1
    if (cached >= 0 && recentLength[slot] === length && sameText(text, cached, start, length)) return
    recentStart[slot] = start
    recentLength[slot] = length
    const span = text.slice(start, end)
    const known = seen.size
    if (seen.add(span).size === known) return
    const tokens = Math.max(1, Math.floor((hasSurrogates ? codePointLength(text, start, end) : length) / 4))
    irreducible += tokens
    spans.push({ pattern, text: span, start, end, tokens })
  }
  scanQuoted(text, emitter('quoted'))
  scanNumbers(text, words, emitter('number'))
  scanPaths(text, emitter('path'))
  scanConstants(text, words, emitter('constant'))
  const cues = findCues(text)
  SEED_CUES.forEach((cue, index) => {
    const start = cues[index] ?? -1
    if (start < 0) return
    irreducible += SEED_CUE_TOKENS
    spans.push({ pattern: 'cue', text: cue, start, end: start + cue.length, tokens: SEED_CUE_TOKENS })
  })
  // Python's int * float converts the int to a double and multiplies once; int() truncates toward zero.
  return { irreducible, margin: Math.trunc(irreducible * marginRatio), spans }
}

const RECENT_SLOTS = 4096

function sameText(text: string, first: number, second: number, length: number): boolean {
  for (let offset = 0; offset < length; offset++) {
    if (text.charCodeAt(first + offset) !== text.charCodeAt(second + offset)) return false
  }
  return true
}

function assertMarginRatio(marginRatio: number): void {
  if (typeof marginRatio !== 'number' || !Number.isFinite(marginRatio) || marginRatio < 0) {
    throw new FloorguardError(
      'invalid-argument',
      `marginRatio: expected a finite number >= 0 (the record uses 0.15 to 0.25), got ${String(marginRatio)}`,
    )
  }
}

const QUOTE_DOUBLE = 0x22
const SLASH_CODE = 0x2f
const DOT = 0x2e
const LOWER_E = 0x65
const PLUS = 0x2b
const MINUS = 0x2d

/** Word runs worth a closer look, from one pass over the text. */
interface WordStarts {
  /** Whether the text holds any surrogate, so lengths in code points may differ from `.length`. */
  readonly hasSurrogates: boolean
  /** Starts of word runs whose first character is a digit or [A-Z_], ascending. */
  readonly starts: Int32Array
  readonly count: number
}

/*
 * One pass finds the word runs (maximal runs of `\w`) that begin with a digit or [A-Z_]: a number
 * starts with `\b\d`, i.e. at a digit beginning a word run, and a constant is a whole word run
 * (see scanConstants). Word edges come every few characters and are unpredictable, so the loop
 * tracks them with 0/1 arithmetic and appends without branching (the slot is overwritten unless
 * the count moves), which costs less than a mispredicted branch per word.
 */
function scanWordStarts(text: string): WordStarts {
  const table = startTable()
  const length = text.length
  let starts = new Int32Array(START_BLOCK * 2)
  let count = 0
  let hasSurrogates = false
  let previousWord = 0
  // Blocks bound how many starts can appear before the next capacity check (at most one per unit).
  for (let blockStart = 0; blockStart < length; blockStart += START_BLOCK) {
    if (count + START_BLOCK > starts.length) {
      const larger = new Int32Array(starts.length * 2)
      larger.set(starts)
      starts = larger
    }
    const blockEnd = Math.min(length, blockStart + START_BLOCK)
    for (let index = blockStart; index < blockEnd; index++) {
      let bits = table[text.charCodeAt(index)] ?? 0
      if (bits >= START_SURROGATE) {
        bits = startBits(classAt(text, index))
        hasSurrogates = true
      }
      starts[count] = index
      count += (bits >> 1) & (previousWord ^ 1)
      previousWord = bits & START_WORD
    }
  }
  return { hasSurrogates, starts, count }
}

const START_BLOCK = 4096
const START_WORD = 1
const START_CANDIDATE = 2
const START_SURROGATE = 4
let startTableCache: Uint8Array | undefined

// Python class bits folded into what scanWordStarts needs: word, "digit or [A-Z_]", surrogate.
function startBits(bits: number): number {
  return (bits & WORD) | ((bits & (DIGIT | CONSTANT)) !== 0 ? START_CANDIDATE : 0)
}

function startTable(): Uint8Array {
  if (startTableCache) return startTableCache
  const classes = bmpClasses()
  const table = new Uint8Array(0x10000)
  for (let code = 0; code < 0x10000; code++) {
    table[code] = (code & 0xf800) === 0xd800 ? START_SURROGATE : startBits(classes[code] ?? 0)
  }
  startTableCache = table
  return table
}

/** Class bits at `index` (0 past the end: `charCodeAt` gives NaN there), via the BMP table unless the unit is a surrogate. */
function bitsAt(text: string, table: Uint8Array, index: number): number {
  const code = text.charCodeAt(index)
  return (code & 0xf800) === 0xd800 ? classAt(text, index) : (table[code] ?? 0)
}

type Emit = (start: number, end: number) => void

/*
 * "[^"]*"|'[^']*' — at a quote, the class run can only stop at the same quote, so the match is the
 * quote up to the next identical quote (across lines), or nothing when there is none. With no
 * closing quote left, no later quote of that kind can match either, so that kind is retired:
 * each kind's text is searched once, linear overall.
 */
function scanQuoted(text: string, emit: Emit): void {
  let position = 0
  let nextDouble = text.indexOf('"')
  let nextSingle = text.indexOf("'")
  for (;;) {
    if (nextDouble >= 0 && nextDouble < position) nextDouble = text.indexOf('"', position)
    if (nextSingle >= 0 && nextSingle < position) nextSingle = text.indexOf("'", position)
    if (nextDouble < 0 && nextSingle < 0) return
    const open = nextSingle < 0 || (nextDouble >= 0 && nextDouble < nextSingle) ? nextDouble : nextSingle
    const isDouble = text.charCodeAt(open) === QUOTE_DOUBLE
    const close = text.indexOf(isDouble ? '"' : "'", open + 1)
    if (close < 0) {
      if (isDouble) nextDouble = -1
      else nextSingle = -1
      position = open + 1
      continue
    }
    emit(open, close + 1)
    position = close + 1
  }
}

/*
 * \b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b — a match starts at a digit that begins a word run. Every \d+
 * here must end at the end of its digit run: stopping one short leaves a digit next, which is
 * neither `.`, `e` nor a `\b` (digit | digit). So the only choices are the two optional groups,
 * tried in the regex's backtracking order: fraction+exponent, fraction alone, then exponent alone,
 * then the bare integer, each needing a `\b` (a non-word character or the end) after it. `finditer`
 * resumes at a match's end, which skips the starts inside it. An attempt reads at most three digit
 * runs and each run is read by at most three attempts, so the scan is linear even on hostile input.
 */
function scanNumbers(text: string, words: WordStarts, emit: Emit): void {
  const table = bmpClasses()
  const isWord = (index: number): boolean => (bitsAt(text, table, index) & WORD) !== 0
  const isDigit = (index: number): boolean => (bitsAt(text, table, index) & DIGIT) !== 0
  const digitsEnd = (index: number): number => {
    for (;;) {
      const code = text.charCodeAt(index)
      const bits = (code & 0xf800) === 0xd800 ? classAt(text, index) : (table[code] ?? 0)
      if ((bits & DIGIT) === 0) return index
      index++
    }
  }
  // End of `e[+-]?\d+` at `index` when a `\b` follows it, else -1.
  const exponentEnd = (index: number): number => {
    if (text.charCodeAt(index) !== LOWER_E) return -1
    let digits = index + 1
    const sign = text.charCodeAt(digits)
    if (sign === PLUS || sign === MINUS) digits++
    if (!isDigit(digits)) return -1
    const end = digitsEnd(digits + 1)
    return isWord(end) ? -1 : end
  }
  let resume = 0
  for (let index = 0; index < words.count; index++) {
    const start = words.starts[index] ?? 0
    if (start < resume || !isDigit(start)) continue
    const integerEnd = digitsEnd(start + 1)
    let end = -1
    if (text.charCodeAt(integerEnd) === DOT && isDigit(integerEnd + 1)) {
      const fractionEnd = digitsEnd(integerEnd + 2)
      end = exponentEnd(fractionEnd)
      if (end < 0 && !isWord(fractionEnd)) end = fractionEnd
    }
    if (end < 0) end = exponentEnd(integerEnd)
    if (end < 0 && !isWord(integerEnd)) end = integerEnd
    if (end < 0) continue
    emit(start, end)
    resume = end
  }
}

/*
 * \b[\w.-]+/[\w./-]+\b — a match lies inside one maximal run of [\w./-] holding a `/`; those runs
 * are found from each `/` with indexOf. The head cannot hold `/`, so it is a whole `/`-free piece of
 * the run and the `/` follows it. The tail backtracks from the run's end to the last `\b`, which is
 * right after the run's last word character (past it, only `.` `-` `/` follow, then a non-word
 * character). So a run holds at most one match: from the first `\b` found in a piece that ends at a
 * `/`, to the run's last word character, provided that character lies past that `/`. `finditer`
 * then resumes after it, where no word character is left in the run. Each run is read at most
 * three times: linear, where the regex itself is quadratic on `a.a.a.…` with no slash.
 */
function scanPaths(text: string, emit: Emit): void {
  const table = bmpClasses()
  let from = 0
  for (;;) {
    const slash = text.indexOf('/', from)
    if (slash < 0) return
    let runStart = slash
    while (runStart > from) {
      const code = text.charCodeAt(runStart - 1)
      const bits = (code & 0xf800) === 0xd800 ? classAt(text, runStart - 1) : (table[code] ?? 0)
      if ((bits & PATH_TAIL) === 0) break
      runStart--
    }
    let runEnd = slash + 1
    let lastWord = -1
    for (;;) {
      const code = text.charCodeAt(runEnd)
      const bits = (code & 0xf800) === 0xd800 ? classAt(text, runEnd) : (table[code] ?? 0)
      if ((bits & PATH_TAIL) === 0) break
      if ((bits & WORD) !== 0) lastWord = runEnd
      runEnd++
    }
    // A word character before the first `/` can never end a match, so only those after it count.
    if (lastWord > slash) matchPathRun(text, table, runStart, runEnd, lastWord, emit)
    from = runEnd
  }
}

function matchPathRun(
  text: string,
  table: Uint8Array,
  runStart: number,
  runEnd: number,
  lastWord: number,
  emit: Emit,
): void {
  let pieceStart = runStart
  while (pieceStart < runEnd) {
    let slash = pieceStart
    let boundary = -1
    // Before a piece comes `/` or a character outside [\w./-]: never a word character.
    let previousWord = false
    while (slash < runEnd && text.charCodeAt(slash) !== SLASH_CODE) {
      const word = (bitsAt(text, table, slash) & WORD) !== 0
      if (boundary < 0 && word !== previousWord) boundary = slash
      previousWord = word
      slash++
    }
    if (slash >= runEnd || lastWord <= slash) return
    if (boundary >= 0) {
      emit(boundary, lastWord + 1)
      return
    }
    pieceStart = slash + 1
  }
}

/*
 * \b[A-Z_]{2,}\b — [A-Z_] are word characters, so there is no `\b` between two of them: a match is
 * a whole word run made only of ASCII [A-Z_], at least two long. Only runs starting with [A-Z_]
 * are read, each up to its first other character.
 */
function scanConstants(text: string, words: WordStarts, emit: Emit): void {
  const table = bmpClasses()
  for (let index = 0; index < words.count; index++) {
    const start = words.starts[index] ?? 0
    let end = start
    // [A-Z_] is ASCII, so the table alone tells whether the run goes on.
    let bits = table[text.charCodeAt(end)] ?? 0
    while ((bits & CONSTANT) !== 0) bits = table[text.charCodeAt(++end)] ?? 0
    // The character that stopped the run may be astral (`AB𝐀`), so it is classified properly.
    if (end - start >= 2 && (bitsAt(text, table, end) & WORD) === 0) emit(start, end)
  }
}

/*
 * `cue in text.lower()` for all six cues in one pass, without lowering the text: each UTF-16 unit
 * maps to the one ASCII code it lowers to (or 0), which keeps offsets in the original text, and an
 * Aho–Corasick automaton over those codes finds every cue's first end. No cue is a substring of
 * another, so a state accepts at most one cue, and only at the cue's own trie leaf.
 */
const CUE_AUTOMATON = buildCueAutomaton()

function buildCueAutomaton(): { delta: Uint8Array; accept: Uint8Array } {
  const children: Array<Map<number, number>> = [new Map()]
  const acceptOf: number[] = [0]
  SEED_CUES.forEach((cue, index) => {
    let state = 0
    for (let offset = 0; offset < cue.length; offset++) {
      const code = cue.charCodeAt(offset)
      let next = children[state]?.get(code)
      if (next === undefined) {
        next = children.length
        children.push(new Map())
        acceptOf.push(0)
        children[state]?.set(code, next)
      }
      state = next
    }
    acceptOf[state] = index + 1
  })
  const delta = new Uint8Array(children.length * 128)
  const failure = new Array<number>(children.length).fill(0)
  // Breadth-first, so a state's failure target is complete before the state itself.
  const queue: number[] = [0]
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] ?? 0
    for (let code = 0; code < 128; code++) {
      const child = children[state]?.get(code)
      const fallback = state === 0 ? 0 : (delta[(failure[state] ?? 0) * 128 + code] ?? 0)
      if (child === undefined) {
        delta[state * 128 + code] = fallback
      } else {
        delta[state * 128 + code] = child
        failure[child] = fallback
        queue.push(child)
      }
    }
  }
  return { delta, accept: Uint8Array.from(acceptOf) }
}

/** Each cue's first start in `text` (as found in Python's `text.lower()`), or -1. */
function findCues(text: string): number[] {
  const { delta, accept } = CUE_AUTOMATON
  const lower = lowerAsciiTable()
  const found = SEED_CUES.map(() => -1)
  let missing = SEED_CUES.length
  let state = 0
  const length = text.length
  for (let index = 0; index < length; index++) {
    state = delta[(state << 7) | (lower[text.charCodeAt(index)] ?? 0)] ?? 0
    const hit = accept[state] ?? 0
    if (hit === 0 || (found[hit - 1] ?? 0) >= 0) continue
    found[hit - 1] = index + 1 - (SEED_CUES[hit - 1] ?? '').length
    if (--missing === 0) break
  }
  return found
}

const ITEM_KIND: Readonly<Record<SeedPattern, ItemKind>> = {
  quoted: 'quoted',
  number: 'number',
  path: 'path',
  constant: 'constant',
  cue: 'constraint',
}

const PATTERN_ORDER: Readonly<Record<SeedPattern, number>> = { quoted: 0, number: 1, path: 2, constant: 3, cue: 4 }

/** Options of {@link createSeedEstimator}. */
export interface SeedEstimatorOptions {
  /**
   * Coherence margin as a fraction of the irreducible tokens (the record: 15–25%).
   * @default 0.2
   */
  readonly marginRatio?: number
}

/**
 * seed(segment) = estimate_floor(renderSegment(segment).text, marginRatio) of the record's seed_floor.py.
 *
 * The reference estimator: four regexes and six cue words, priced at chars/4. A one-message segment
 * whose message is one text part scores exactly what the reference scores on that text. Items come in
 * order of first appearance; each item's offsets are relative to its message's rendered text, and a
 * quoted item that runs on into later messages keeps its `end` relative to the message it starts in
 * (so `end` may exceed that message's length).
 * @throws FloorguardError (`invalid-argument`) when `marginRatio` is not a finite number ≥ 0.
 */
export function createSeedEstimator(options: SeedEstimatorOptions = {}): FloorEstimatorV1 {
  const marginRatio = options.marginRatio ?? SEED_DEFAULT_MARGIN_RATIO
  assertMarginRatio(marginRatio)
  return {
    specificationVersion: 'v1',
    name: 'seed',
    tokenizer: 'chars/4',
    marginRatio,
    extract(message: Message, index: number): FloorItem[] {
      const { spans } = seedEstimateText(renderMessage(message).text, marginRatio)
      return toItems(spans, [0], index)
    },
    estimate(messages: readonly Message[], offset = 0): FloorEstimate {
      const { text, starts } = renderSegment(messages)
      const { irreducible, margin, spans } = seedEstimateText(text, marginRatio)
      return {
        estimator: 'seed',
        tokenizer: 'chars/4',
        irreducible,
        margin,
        total: irreducible + margin,
        items: toItems(spans, starts, offset),
      }
    },
  }
}

// Spans start on a word character, a `.`/`-`, a quote or a cue letter, never inside the blank line
// between messages, so the message holding `start` is the last one starting at or before it.
function toItems(spans: readonly SeedSpan[], starts: readonly number[], offset: number): FloorItem[] {
  const ordered = [...spans].sort((a, b) => a.start - b.start || PATTERN_ORDER[a.pattern] - PATTERN_ORDER[b.pattern])
  return ordered.map((span) => {
    const message = lastAtOrBefore(starts, span.start)
    const base = starts[message] ?? 0
    return {
      kind: ITEM_KIND[span.pattern],
      text: span.text,
      tokens: span.tokens,
      message: offset + message,
      start: span.start - base,
      end: span.end - base,
    }
  })
}

function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let low = 0
  let high = sorted.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if ((sorted[middle] ?? 0) <= value) low = middle
    else high = middle - 1
  }
  return low
}

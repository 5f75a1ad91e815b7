import { FloorguardError } from '../errors.js'
import type { FloorEstimate, FloorEstimatorV1, FloorItem, ItemKind } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'
import { renderMessage, renderSegment } from '../transcript/render.js'
import { SpanSet } from './_span-set.js'
import { RECORD_CUES } from './_cues.js'
import {
  CONSTANT,
  DIGIT,
  PATH_TAIL,
  SLASH,
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

/** The reference's constraint cues, in its order (the record's: see `_cues.ts`). */
export const SEED_CUES = RECORD_CUES

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
  // The four patterns' texts are disjoint: only a quoted span holds a quote, only a path holds `/`, a
  // number is made of \d . e + - and a constant of [A-Z_]. So the reference's one `seen` set is as good
  // as one set per pattern (smaller, so more of it stays in cache), filled in any order.
  const quoted = new SpanSet(text)
  const numbers = new SpanSet(text)
  const paths = new SpanSet(text)
  const constants = new SpanSet(text)
  scanQuoted(text, quoted)
  const { cues, hasSurrogates } = scanWords(text, numbers, constants)
  scanPaths(text, paths)
  const spans: SeedSpan[] = []
  let irreducible = 0
  irreducible += collectSpans(quoted, 'quoted', spans, hasSurrogates)
  irreducible += collectSpans(numbers, 'number', spans, hasSurrogates)
  irreducible += collectSpans(paths, 'path', spans, hasSurrogates)
  irreducible += collectSpans(constants, 'constant', spans, hasSurrogates)
  SEED_CUES.forEach((cue, index) => {
    const start = cues[index] ?? -1
    if (start < 0) return
    irreducible += SEED_CUE_TOKENS
    spans.push({ pattern: 'cue', text: cue, start, end: start + cue.length, tokens: SEED_CUE_TOKENS })
  })
  // Python's int * float converts the int to a double and multiplies once; int() truncates toward zero.
  return { irreducible, margin: Math.trunc(irreducible * marginRatio), spans }
}

function assertMarginRatio(marginRatio: number): void {
  if (typeof marginRatio !== 'number' || !Number.isFinite(marginRatio) || marginRatio < 0) {
    throw new FloorguardError(
      'invalid-argument',
      `marginRatio: expected a finite number >= 0 (the record uses 0.15 to 0.25), got ${String(marginRatio)}`,
    )
  }
}

/** Appends `set`'s spans to `into` in the order first seen, priced; returns their tokens. `hasSurrogates`: whether code points may differ from units. */
function collectSpans(set: SpanSet, pattern: SeedPattern, into: SeedSpan[], hasSurrogates: boolean): number {
  const text = set.text
  let total = 0
  for (let index = 0; index < set.count; index++) {
    const start = set.startOf(index)
    const end = set.endOf(index)
    // `>> 2` is `// 4` here (lengths are below 2^31), and keeps the field a small integer for V8.
    const tokens = Math.max(1, (hasSurrogates ? codePointLength(text, start, end) : end - start) >> 2)
    total += tokens
    into.push({ pattern, text: set.spanText(index), start, end, tokens })
  }
  return total
}

const QUOTE_DOUBLE = 0x22
const DOT = 0x2e
const LOWER_E = 0x65
const PLUS = 0x2b
const MINUS = 0x2d

/** Class bits at `index` (0 past the end: `charCodeAt` gives NaN there), via the BMP table unless the unit is a surrogate. */
function bitsAt(text: string, table: Uint8Array, index: number): number {
  const code = text.charCodeAt(index)
  return (code & 0xf800) === 0xd800 ? classAt(text, index) : (table[code] ?? 0)
}

/*
 * "[^"]*"|'[^']*' — at a quote, the class run can only stop at the same quote, so the match is the
 * quote up to the next identical quote (across lines), or nothing when there is none. With no
 * closing quote left, no later quote of that kind can match either, so that kind is retired:
 * each kind's text is searched once, linear overall.
 */
function scanQuoted(text: string, found: SpanSet): void {
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
    found.add(open, close + 1)
    position = close + 1
  }
}

/*
 * One pass over the text finds the numbers, the constants and the cues. Numbers and constants start
 * at a word start, a `\w` character with no `\w` before it (see numberEnd and constantEnd). The pass
 * carries the stopTable() bits of the two units before and stops only at a digit after a non-word unit,
 * at the second of two [A-Z_] after a non-word unit (a constant is at least two long, and prose is full
 * of capitalized words), at a surrogate (classified as its code point), or where the two units read
 * complete a cue's bigram, a pair of letters rare in agent text (CUE_BIGRAMS) that the cue is then
 * checked around.
 * The text goes by blocks: a tight loop that only notes the stops of a block, then the stops handled
 * in order, so most characters cost one table lookup and no branch taken.
 */
function scanWords(text: string, numbers: SpanSet, constants: SpanSet): WordScan {
  const stops = stopTable()
  const scan = new WordScanner(text, numbers, constants)
  const events = new Int32Array(STOP_BLOCK)
  const eventBits = new Uint16Array(STOP_BLOCK)
  // A surrogate's bits say it is not `\w` (the table cannot tell), so a start right after one, and a
  // surrogate itself, are checked against the code point.
  let previous = 0
  let beforePrevious = 0
  // Module constants read inside the loop would be reloaded from the module scope on every unit.
  const [surrogate, numberStart, constantStart, wordBit, shift] = [
    SURROGATE,
    NUMBER_START,
    CONSTANT_START,
    WORD_BIT,
    BIGRAM_SHIFT,
  ]
  const length = text.length
  for (let blockStart = 0; blockStart < length; blockStart += STOP_BLOCK) {
    const blockEnd = Math.min(length, blockStart + STOP_BLOCK)
    const missingCues = scan.missingCues
    let count = 0
    for (let index = blockStart; index < blockEnd; index++) {
      const bits = stops[text.charCodeAt(index)] ?? 0
      // `(x & wordBit) - 1` is all ones when x is not `\w`, else 0. A bigram's first letter, shifted
      // onto its second, meets the second letter here.
      const stop =
        bits &
        (surrogate |
          (numberStart & ((previous & wordBit) - 1)) |
          (constantStart & previous & ((beforePrevious & wordBit) - 1)) |
          ((previous << shift) & missingCues))
      beforePrevious = previous
      previous = bits
      if (stop === 0) continue
      events[count] = index
      eventBits[count++] = stop
    }
    for (let event = 0; event < count; event++) scan.stop(events[event] ?? 0, eventBits[event] ?? 0)
  }
  // The scanner itself, not a new object read from it: the loop runs in code compiled before the
  // first return, and an unseen property read there would throw that code away on every call.
  return scan
}

const STOP_BLOCK = 4096

/** What scanWords does at each stop, in text order. */
class WordScanner implements WordScan {
  readonly cues = new Int32Array(SEED_CUES.length).fill(-1)
  /** SECOND_BIT of each cue not found yet. */
  missingCues = ALL_SECONDS
  hasSurrogates = false
  // `finditer` resumes after a number, so a word start inside one (`1.5`, `1e+5`) starts nothing.
  private resume = 0
  private readonly classes = bmpClasses()

  constructor(
    private readonly text: string,
    private readonly numbers: SpanSet,
    private readonly constants: SpanSet,
  ) {}

  /** Handles the stop at `index`; a constant's stop is at its second unit. */
  stop(index: number, stop: number): void {
    const { text, classes } = this
    if (stop > STOP_BITS) this.missingCues &= ~findCuesAt(text, index, stop & this.missingCues, this.cues)
    let start = stop & STARTS
    if (start === CONSTANT_START) {
      if (afterAstralWord(text, index - 1)) return
      const end = constantEnd(text, classes, index - 1)
      if (end >= 0) this.constants.add(index - 1, end)
      return
    }
    if ((stop & SURROGATE) !== 0) {
      this.hasSurrogates = true
      // Only a digit can start an astral word of interest: [A-Z_] is ASCII.
      if ((classAt(text, index) & DIGIT) !== 0) start = NUMBER_START
    }
    if (start === 0) return
    if ((stop & SURROGATE) !== 0 ? wordBefore(text, classes, index) : afterAstralWord(text, index)) return
    if (index < this.resume) return
    const end = numberEnd(text, classes, index)
    if (end < 0) return
    this.numbers.add(index, end)
    this.resume = end
  }
}

function wordBefore(text: string, classes: Uint8Array, index: number): boolean {
  return index > 0 && (bitsAt(text, classes, index - 1) & WORD) !== 0
}

// Whether the unit before `index` ends an astral `\w` character, which the scan's table took for a non-word.
function afterAstralWord(text: string, index: number): boolean {
  return index > 0 && (text.charCodeAt(index - 1) & 0xf800) === 0xd800 && (classAt(text, index - 1) & WORD) !== 0
}

interface WordScan {
  /** Each cue's first start, or -1. */
  readonly cues: Int32Array
  /** Whether the text holds a surrogate, so lengths in code points may differ from `.length`. */
  readonly hasSurrogates: boolean
}

/*
 * stopTable() bits: WORD_BIT (must be 1: the scan turns it into a mask with `- 1`), the two kinds of
 * word start, SURROGATE; then, for the k-th cue, bit FIRST_BIT << k on its bigram's first letter (either
 * case) and bit SECOND_BIT << k on its second.
 */
const WORD_BIT = 1
const NUMBER_START = 2
const CONSTANT_START = 4
const STARTS = NUMBER_START | CONSTANT_START
const SURROGATE = 8
const STOP_BITS = 15
const FIRST_BIT = 1 << 4
const BIGRAM_SHIFT = 6
const SECOND_BIT = FIRST_BIT << BIGRAM_SHIFT
const ALL_SECONDS = SEED_CUES.reduce((bits, _, which) => bits | (SECOND_BIT << which), 0)

/** A pair of adjacent letters in each cue, chosen rare in agent text (and in the real corpus). */
const CUE_BIGRAMS: Readonly<Record<(typeof SEED_CUES)[number], string>> = {
  must: 'mu',
  never: 've',
  always: 'lw',
  exactly: 'tl',
  only: 'nl',
  'do not': 'do',
}
let stopTableCache: Uint16Array | undefined

function stopTable(): Uint16Array {
  if (stopTableCache) return stopTableCache
  const classes = bmpClasses()
  const lower = lowerAsciiTable()
  // Bigram bits per lowered ASCII code: a unit gets those of the code it lowers to.
  const letterBits = new Uint16Array(0x80)
  SEED_CUES.forEach((cue, which) => {
    const bigram = CUE_BIGRAMS[cue]
    letterBits[bigram.charCodeAt(0)] = (letterBits[bigram.charCodeAt(0)] ?? 0) | (FIRST_BIT << which)
    letterBits[bigram.charCodeAt(1)] = (letterBits[bigram.charCodeAt(1)] ?? 0) | (SECOND_BIT << which)
  })
  const table = new Uint16Array(0x10000)
  for (let code = 0; code < 0x10000; code++) {
    if ((code & 0xf800) === 0xd800) {
      table[code] = SURROGATE
      continue
    }
    const bits = classes[code] ?? 0
    table[code] =
      (bits & WORD) |
      ((bits & DIGIT) !== 0 ? NUMBER_START : 0) |
      ((bits & CONSTANT) !== 0 ? CONSTANT_START : 0) |
      (letterBits[lower[code] ?? 0] ?? 0)
  }
  stopTableCache = table
  return table
}

/** Per cue, the offset in it of its bigram's second letter. */
const CUE_SECOND_OFFSETS = SEED_CUES.map((cue) => cue.indexOf(CUE_BIGRAMS[cue]) + 1)

/** Records each missing cue whose bigram (bits `seconds`) ends at `index` and which is there in full; returns their bits. */
function findCuesAt(text: string, index: number, seconds: number, cues: Int32Array): number {
  const lower = lowerAsciiTable()
  let done = 0
  for (let which = 0; which < SEED_CUES.length; which++) {
    const bit = SECOND_BIT << which
    if ((seconds & bit) === 0) continue
    const start = index - (CUE_SECOND_OFFSETS[which] ?? 0)
    if (start < 0 || !loweredEquals(text, start, SEED_CUES[which] ?? '', lower)) continue
    cues[which] = start
    done |= bit
  }
  return done
}

// `text.lower()[start:start + len(cue)] == cue`, read without lowering the text: each UTF-16 unit maps to
// the one ASCII code it lowers to, or 0 (see lowerAsciiTable), which keeps offsets in the original text.
function loweredEquals(text: string, start: number, cue: string, lower: Uint8Array): boolean {
  for (let offset = 0; offset < cue.length; offset++) {
    if (lower[text.charCodeAt(start + offset)] !== cue.charCodeAt(offset)) return false
  }
  return true
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
function numberEnd(text: string, classes: Uint8Array, start: number): number {
  const integerEnd = digitsEnd(text, classes, start + 1)
  if (text.charCodeAt(integerEnd) === DOT && (bitsAt(text, classes, integerEnd + 1) & DIGIT) !== 0) {
    const fractionEnd = digitsEnd(text, classes, integerEnd + 2)
    const end = exponentEnd(text, classes, fractionEnd)
    if (end >= 0) return end
    if ((bitsAt(text, classes, fractionEnd) & WORD) === 0) return fractionEnd
  }
  const end = exponentEnd(text, classes, integerEnd)
  if (end >= 0) return end
  return (bitsAt(text, classes, integerEnd) & WORD) === 0 ? integerEnd : -1
}

function digitsEnd(text: string, classes: Uint8Array, index: number): number {
  while ((bitsAt(text, classes, index) & DIGIT) !== 0) index++
  return index
}

/** End of `e[+-]?\d+` at `index` when a `\b` follows it, else -1. */
function exponentEnd(text: string, classes: Uint8Array, index: number): number {
  if (text.charCodeAt(index) !== LOWER_E) return -1
  let digits = index + 1
  const sign = text.charCodeAt(digits)
  if (sign === PLUS || sign === MINUS) digits++
  if ((bitsAt(text, classes, digits) & DIGIT) === 0) return -1
  const end = digitsEnd(text, classes, digits + 1)
  return (bitsAt(text, classes, end) & WORD) !== 0 ? -1 : end
}

/*
 * \b[A-Z_]{2,}\b — [A-Z_] are word characters, so there is no `\b` between two of them: a match is
 * a whole word run made only of ASCII [A-Z_], at least two long, read from its start up to its first
 * other character. Returns its end, or -1.
 */
function constantEnd(text: string, classes: Uint8Array, start: number): number {
  let end = start + 1
  // [A-Z_] is ASCII, so the table alone tells whether the run goes on.
  while (((classes[text.charCodeAt(end)] ?? 0) & CONSTANT) !== 0) end++
  // The character that stopped the run may be astral (`AB𝐀`), so it is classified properly.
  return end - start >= 2 && (bitsAt(text, classes, end) & WORD) === 0 ? end : -1
}

/*
 * \b[\w.-]+/[\w./-]+\b — a match lies inside one maximal run of [\w./-] holding a `/`; those runs
 * are found from each `/` with indexOf, then read once from their start. The head cannot hold `/`, so
 * it is a whole `/`-free piece of the run and the `/` follows it. The tail backtracks from the run's
 * end to the last `\b`, which is right after the run's last word character (past it, only `.` `-` `/`
 * follow, then a non-word character). So a run holds at most one match: from the first `\b` found in
 * a piece that ends at a `/`, to the run's last word character, provided that character lies past
 * that `/`. `finditer` then resumes after it, where no word character is left in the run. Linear,
 * where the regex itself is quadratic on `a.a.a.…` with no slash.
 */
function scanPaths(text: string, found: SpanSet): void {
  const table = bmpClasses()
  let from = 0
  for (;;) {
    const firstSlash = text.indexOf('/', from)
    if (firstSlash < 0) return
    let index = firstSlash
    while (index > from && (bitsAt(text, table, index - 1) & PATH_TAIL) !== 0) index--
    let start = -1
    let slash = -1
    let lastWord = -1
    // Before a piece comes `/` or a character outside [\w./-]: never a word character.
    let pieceBoundary = -1
    let previousWord = false
    for (; ; index++) {
      const bits = bitsAt(text, table, index)
      if ((bits & PATH_TAIL) === 0) break
      if ((bits & SLASH) !== 0) {
        if (start < 0 && pieceBoundary >= 0) {
          start = pieceBoundary
          slash = index
        }
        pieceBoundary = -1
        previousWord = false
        continue
      }
      const word = (bits & WORD) !== 0
      if (word) lastWord = index
      if (pieceBoundary < 0 && word !== previousWord) pieceBoundary = index
      previousWord = word
    }
    if (start >= 0 && lastWord > slash) found.add(start, lastWord + 1)
    from = index
  }
}

const ITEM_KIND: Readonly<Record<SeedPattern, ItemKind>> = {
  quoted: 'quoted',
  number: 'number',
  path: 'path',
  constant: 'constant',
  cue: 'constraint',
}

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

const PATTERN_ORDER: Readonly<Record<SeedPattern, number>> = { quoted: 0, number: 1, path: 2, constant: 3, cue: 4 }

// Spans start on a word character, a `.`/`-`, a quote or a cue letter, never inside the blank line
// between messages, so the message holding `start` is the last one starting at or before it.
function toItems(spans: readonly SeedSpan[], starts: readonly number[], offset: number): FloorItem[] {
  return inTextOrder(spans).map((span) => {
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

/**
 * `spans` sorted by start, then pattern (quoted, number, path, constant, cue): no two spans of one pattern share a
 * start (a cue is no prefix of another), so the order is total. Each pattern's spans come in the order the scans
 * found them, by start, so they are merged in one pass instead of sorted (260,000 spans at 32 MB); the cues (six at
 * most) are sorted.
 */
function inTextOrder(spans: readonly SeedSpan[]): SeedSpan[] {
  const runs: SeedSpan[][] = [[], [], [], [], []]
  for (const span of spans) runs[PATTERN_ORDER[span.pattern]]!.push(span)
  runs[4]!.sort((a, b) => a.start - b.start)
  for (const run of runs) for (let index = 1; index < run.length; index++) if (run[index - 1]!.start >= run[index]!.start) return [...spans].sort((a, b) => a.start - b.start || PATTERN_ORDER[a.pattern] - PATTERN_ORDER[b.pattern])
  const ordered: SeedSpan[] = new Array(spans.length)
  const next = [0, 0, 0, 0, 0]
  for (let at = 0; at < ordered.length; at++) {
    let best = -1
    let bestStart = Infinity
    for (let pattern = 0; pattern < 5; pattern++) {
      const span = runs[pattern]![next[pattern]!]
      // Strictly less: on a tie the earlier pattern keeps the place.
      if (span !== undefined && span.start < bestStart) {
        best = pattern
        bestStart = span.start
      }
    }
    ordered[at] = runs[best]![next[best]!++]!
  }
  return ordered
}

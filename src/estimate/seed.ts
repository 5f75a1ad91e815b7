import { FloorguardError } from '../errors.js'
import type { FloorEstimate, FloorEstimatorV1, FloorItem, ItemKind } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'
import { renderMessage, renderSegment } from '../transcript/render.js'
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
  // The four patterns' texts are disjoint: only a quoted span holds a quote, only a path holds `/`, a
  // number is made of \d . e + - and a constant of [A-Z_]. So the reference's one `seen` set is as good
  // as one set per pattern (smaller, so more of it stays in cache), filled in any order.
  const quoted = new SpanSet(text, 'quoted')
  const numbers = new SpanSet(text, 'number')
  const paths = new SpanSet(text, 'path')
  const constants = new SpanSet(text, 'constant')
  scanQuoted(text, quoted)
  const { cues, hasSurrogates } = scanWords(text, numbers, constants)
  scanPaths(text, paths)
  const spans: SeedSpan[] = []
  let irreducible = 0
  for (const set of [quoted, numbers, paths, constants]) irreducible += set.collect(spans, hasSurrogates)
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

// With linear probing at most half full, a run of this many occupied slots has probability about
// 0.824^256 < 10^-21 per insertion unless the input was built to collide; the set then stops trusting the hash.
const MAX_PROBES = 256
/** Numbers per slot: hash, start of the latest occurrence, length (0 when the slot is free). */
const SLOT_SIZE = 3
/** Spans up to this long go through the recent cache first. */
const SHORT_SPAN = 8
const RECENT_SLOTS = 1024

/*
 * The distinct spans found so far, deduplicated by text without a string per match: agent text repeats
 * short spans (`0`, `200`, `"type"`) constantly. An open-addressing table (linear probing, at most half
 * full) is keyed by a hash of the span's characters, and a hit is confirmed by comparing the characters
 * in place, at the latest occurrence (likelier than the first to still be in cache). Strings are sliced
 * only for distinct spans, once, at the end. (Hashing only a long span's ends is no shortcut: agent
 * text is full of distinct quoted spans of one length that share both ends.) The hash is seeded per
 * call, so no fixed input collides on every run; should a probe sequence run long anyway, the set
 * moves to a Set of strings, which costs speed but never changes the result.
 */
class SpanSet {
  private count = 0
  /** Per distinct span, in the order found: its first start and its end. */
  private starts: Int32Array
  private ends: Int32Array
  /** SLOT_SIZE numbers per slot; a power-of-two number of slots. */
  private slots: Int32Array
  private mask: number
  // 30 bits, so the field stays a small integer (a wider one would change the object's shape in V8).
  private readonly seed = Math.floor(Math.random() * 0x4000_0000)
  private strings: Set<string> | undefined
  /** RECENT_SLOTS latest starts (-1 when free), then their lengths. */
  private readonly recent = new Int32Array(RECENT_SLOTS * 2).fill(-1)

  constructor(
    private readonly text: string,
    private readonly pattern: SeedPattern,
  ) {
    // Grown by doubling from about one span per 512 units (agent text holds one distinct span of each
    // pattern per 200 to 1,000 units), within bounds: a table larger than the spans need falls out of cache.
    const capacity = 2 ** Math.min(Math.max(Math.ceil(Math.log2(text.length / 512)), 9), 14)
    this.starts = new Int32Array(capacity)
    this.ends = new Int32Array(capacity)
    this.slots = new Int32Array(capacity * 2 * SLOT_SIZE)
    this.mask = capacity * 2 - 1
  }

  /** Records `text.slice(start, end)` unless a span with that text is already recorded. */
  add(start: number, end: number): void {
    if (this.strings !== undefined) {
      this.addString(start, end)
      return
    }
    const { text, slots, mask, recent } = this
    const length = end - start
    // Short spans (`0`, `200`, `ENOENT`) repeat most: a small direct-mapped cache of their latest
    // occurrence, keyed by length and end units, skips the hash and the table for them.
    if (length <= SHORT_SPAN) {
      const key = ((length << 8) ^ (text.charCodeAt(start) << 4) ^ text.charCodeAt(end - 1)) & (RECENT_SLOTS - 1)
      const latest = recent[key] ?? -1
      if (latest >= 0 && recent[key + RECENT_SLOTS] === length && sameText(text, latest, start, length)) return
      recent[key] = start
      recent[key + RECENT_SLOTS] = length
    }
    const hash = hashUnits(text, start, end, this.seed)
    let slot = hash & mask
    for (let probes = 0; ; probes++) {
      const at = slot * SLOT_SIZE
      const known = slots[at + 2] ?? 0
      if (known === 0) {
        this.insert(at, hash, start, length)
        this.push(start, end)
        return
      }
      if (known === length && slots[at] === hash && sameText(text, slots[at + 1] ?? 0, start, length)) {
        slots[at + 1] = start
        return
      }
      if (probes === MAX_PROBES) {
        this.strings = new Set(Array.from({ length: this.count }, (_, index) => this.spanText(index)))
        this.addString(start, end)
        return
      }
      slot = (slot + 1) & mask
    }
  }

  /** Appends the spans to `into` in the order first seen, priced; returns their tokens. `hasSurrogates`: whether code points may differ from units. */
  collect(into: SeedSpan[], hasSurrogates: boolean): number {
    const { pattern } = this
    let total = 0
    for (let index = 0; index < this.count; index++) {
      const start = this.starts[index] ?? 0
      const end = this.ends[index] ?? 0
      // `>> 2` is `// 4` here (lengths are below 2^31), and keeps the field a small integer for V8.
      const tokens = Math.max(1, (hasSurrogates ? codePointLength(this.text, start, end) : end - start) >> 2)
      total += tokens
      into.push({ pattern, text: this.spanText(index), start, end, tokens })
    }
    return total
  }

  /** Fills the free slot at `at`, growing the table once it is half full. */
  private insert(at: number, hash: number, start: number, length: number): void {
    this.slots[at] = hash
    this.slots[at + 1] = start
    this.slots[at + 2] = length
    if ((this.count + 1) * 2 > this.mask) this.rehash(this.mask * 2 + 1)
  }

  private addString(start: number, end: number): void {
    const strings = this.strings ?? new Set<string>()
    const span = this.text.slice(start, end)
    const known = strings.size
    if (strings.add(span).size !== known) this.push(start, end)
  }

  private spanText(index: number): string {
    return this.text.slice(this.starts[index] ?? 0, this.ends[index] ?? 0)
  }

  private push(start: number, end: number): void {
    const index = this.count++
    if (index === this.starts.length) {
      this.starts = grow(this.starts)
      this.ends = grow(this.ends)
    }
    this.starts[index] = start
    this.ends[index] = end
  }

  private rehash(mask: number): void {
    const old = this.slots
    const slots = new Int32Array((mask + 1) * SLOT_SIZE)
    for (let from = 0; from < old.length; from += SLOT_SIZE) {
      if ((old[from + 2] ?? 0) === 0) continue
      let slot = (old[from] ?? 0) & mask
      while ((slots[slot * SLOT_SIZE + 2] ?? 0) !== 0) slot = (slot + 1) & mask
      const to = slot * SLOT_SIZE
      slots[to] = old[from] ?? 0
      slots[to + 1] = old[from + 1] ?? 0
      slots[to + 2] = old[from + 2] ?? 0
    }
    this.slots = slots
    this.mask = mask
  }
}

function grow(array: Int32Array): Int32Array {
  const larger = new Int32Array(array.length * 2)
  larger.set(array)
  return larger
}

/*
 * FNV-1a over the UTF-16 units from a per-call seed, in two interleaved lanes of two units per step (a
 * quoted span can run for thousands of characters, and each lane's multiplications form a serial
 * chain), then murmur3's finalizer, which spreads the high bits, where the second unit of each pair
 * lands, over the low bits that pick the slot.
 */
function hashUnits(text: string, start: number, end: number, seed: number): number {
  let even = seed ^ (end - start)
  let odd = ~seed
  let index = start
  for (; index + 3 < end; index += 4) {
    even = Math.imul(even ^ (text.charCodeAt(index) | (text.charCodeAt(index + 1) << 16)), 0x01000193)
    odd = Math.imul(odd ^ (text.charCodeAt(index + 2) | (text.charCodeAt(index + 3) << 16)), 0x01000193)
  }
  for (; index < end; index++) even = Math.imul(even ^ text.charCodeAt(index), 0x01000193)
  let hash = even ^ Math.imul(odd, 0x9e3779b1)
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
  return hash ^ (hash >>> 16)
}

function sameText(text: string, first: number, second: number, length: number): boolean {
  for (let offset = 0; offset < length; offset++) {
    if (text.charCodeAt(first + offset) !== text.charCodeAt(second + offset)) return false
  }
  return true
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

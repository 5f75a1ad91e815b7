/**
 * Exact token counting over a {@link RankTable}: tiktoken's pre-tokenizer (a state machine on ASCII, the split pattern
 * elsewhere), then byte-pair merges with the lowest rank first, counted without building token ids.
 */
import { hashBytes, rankOfBytes, type RankTable } from './_rank-table.js'
import { advanceUnits, ASCII_PIECE_END, asciiDecides, splitPattern, type SplitEncoding, writeStandIns } from './_split.js'
import { FloorguardError } from '../errors.js'

/**
 * Pieces up to this many UTF-16 units are remembered in a counter's piece cache; longer ones (blobs: that many letters,
 * spaces or punctuation marks in a row) are counted whole each time, exactly, in O(n log n).
 */
export const CACHED_PIECE_UNITS = 512
/** Multi-token pieces remembered per counter before the cache is cleared. */
const PIECE_CACHE_ENTRIES = 1 << 16
/** Bytes of the longest piece whose merge buffers a counter keeps; a longer piece gets buffers of its own. */
const KEPT_MERGE_BYTES = 1 << 16
/** Largest UTF-8 buffer a counter keeps between texts; a longer text gets one of its own. */
const KEPT_BUFFER_BYTES = 1 << 20
/**
 * A heap key is `rank * KEY_SCALE + start`: starts stay below 2^32 (a string has fewer than 2^30 units, 3 bytes each at
 * most) and ranks below 2^21, so keys stay below 2^53, where doubles are exact integers.
 */
const KEY_SCALE = 2 ** 32

/** Counts the tokens of a text. */
export type CountFunction = (text: string) => number

/**
 * Creates an exact counter for `encoding` over `table`. The counter owns its buffers and its cache of multi-token
 * pieces (a fresh counter is a cold one); the table is only read.
 */
/** How a counter memoizes whole texts (see {@link createCounter}). */
export interface TextMemo {
  /** Texts longer than this (in UTF-16 units) are never memoized. */
  readonly upTo: number
  /** Entries kept before the memo is cleared. */
  readonly entries: number
}

/** Slots of the cache of recent short pieces (a power of two). */
const HOT_SLOTS = 1 << 12

/** Slots of the filter of texts counted once (a power of two). */
const SEEN_SLOTS = 1 << 16

/** A text longer than this many UTF-16 units is counted in stretches of about this many (see `countLong`). */
export const STRETCH_UNITS = 1 << 18

/** Whether `code` is an ASCII letter. */
function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}

export function createCounter(table: RankTable, encoding: SplitEncoding, textMemo?: TextMemo): CountFunction {
  const asciiPieceEnd = ASCII_PIECE_END[encoding]
  // Sticky: the pattern is asked for the piece at one position only. Pieces tile the text (every character starts
  // some alternative and none matches empty), so that piece is the one a global scan would find there. Made when a
  // text first needs it: most never do.
  let pattern: RegExp | undefined
  let standIns = new Uint8Array(4096)
  const pieceCache = new Map<string, number>()
  const merge = createMerger(table)
  const { pairs } = table
  const encoder = new TextEncoder()
  // ignoreBOM keeps a leading U+FEFF: stripped, a cached piece would stand for another one.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  // Texts are counted over their UTF-8 (TextEncoder is native and reads any string representation, where charCodeAt on
  // a sliced string is slow).
  let buffer = new Uint8Array(4096)
  // No token is longer than this: a longer piece is never looked up whole.
  const longestToken = table.longest

  // Counts of recent pieces of 3 to 8 bytes, keyed by their bytes packed into two words: text repeats its pieces
  // (` the`, `.py`, `\n\n`) constantly, and this table (48 KB) stays in cache where the rank table (megabytes) does
  // not once the estimator's text has passed through. A colliding piece takes the slot over.
  // Per slot, side by side (one cache line per lookup): the packed bytes' two words, then length and count.
  const hot = new Int32Array(HOT_SLOTS * 4)

  /** Counts the piece `text[unit, unitEnd)`, whose UTF-8 is `bytes[start, end)`. */
  const countPiece = (text: string, unit: number, unitEnd: number, bytes: Uint8Array, start: number, end: number): number => {
    const length = end - start
    // Every byte is a token; two bytes are one token or two.
    if (length === 1) return 1
    if (length === 2) return pairs[(bytes[start]! << 8) | bytes[start + 1]!] === -1 ? 2 : 1
    if (length > 8) {
      if (length <= longestToken && rankOfBytes(table, bytes, start, end, hashBytes(bytes, start, end)) !== -1) return 1
      return countRarePiece(text, unit, unitEnd, bytes, start, end)
    }
    // The bytes packed little-endian, 0 to 3 in `low` and 4 to 7 in `high`, zero-padded: with the length, a key.
    let low = bytes[start]! | (bytes[start + 1]! << 8) | (bytes[start + 2]! << 16)
    if (length > 3) low |= bytes[start + 3]! << 24
    let high = 0
    for (let index = start + 4; index < end; index++) high |= bytes[index]! << (8 * (index - start - 4))
    const at = ((Math.imul(low ^ Math.imul(high, 0x9e3779b1) ^ length, 0x85ebca6b) >>> 18) & (HOT_SLOTS - 1)) << 2
    const known = hot[at + 2]!
    // An entry holds the length above 4 bits of count (a piece of 8 bytes has at most 8 tokens); 0 is a free slot.
    if (known >>> 4 === length && hot[at] === low && hot[at + 1] === high) return known & 15
    const count = rankOfBytes(table, bytes, start, end, hashBytes(bytes, start, end)) !== -1 ? 1 : countRarePiece(text, unit, unitEnd, bytes, start, end)
    hot[at] = low
    hot[at + 1] = high
    hot[at + 2] = (length << 4) | count
    return count
  }

  /** Counts a long or multi-token piece (kept out of countPiece, which then stays small enough to inline). */
  const countRarePiece = (text: string, unit: number, unitEnd: number, bytes: Uint8Array, start: number, end: number): number => {
    // A blob is merged whole each time: caching it would keep (and hash) a copy of it.
    if (unitEnd - unit > CACHED_PIECE_UNITS) return merge(bytes, start, end - start)
    let count = pieceCache.get(text.slice(unit, unitEnd))
    if (count === undefined) {
      count = merge(bytes, start, end - start)
      if (pieceCache.size >= PIECE_CACHE_ENTRIES) pieceCache.clear()
      // A slice would keep the whole text alive while cached: the key is decoded from the bytes instead (a lone
      // surrogate becomes U+FFFD, which has the same bytes and so the same count).
      pieceCache.set(decoder.decode(bytes.subarray(start, end)), count)
    }
    return count
  }

  /** Counts `text`, whose UTF-8 is `bytes[0, end)`. */
  const countEncoded = (text: string, bytes: Uint8Array, end: number): number => {
    let total = 0
    if (end === text.length) {
      // All ASCII: the state machine decides every piece, and units are bytes.
      for (let start = 0; start < end; ) {
        const pieceEnd = asciiPieceEnd(bytes, start, end)
        total += countPiece(text, start, pieceEnd, bytes, start, pieceEnd)
        start = pieceEnd
      }
      return total
    }
    // Elsewhere the machine reads the units' stand-ins (see standInTable), and the pattern decides where it cannot.
    if (standIns.length < text.length) standIns = new Uint8Array(Math.max(text.length, 2 * standIns.length))
    const units = writeStandIns(bytes, end, standIns)
    for (let unit = 0, start = 0; unit < units; ) {
      let unitEnd = asciiPieceEnd(standIns, unit, units)
      if (unitEnd === 0 || !asciiDecides(standIns, unitEnd, units)) {
        pattern ??= new RegExp(splitPattern(encoding).source, 'uy')
        pattern.lastIndex = unit
        if (!pattern.test(text)) throw new FloorguardError('internal', `the ${encoding} split pattern matched nothing at ${unit}: please report this text`)
        unitEnd = pattern.lastIndex
      }
      const pieceEnd = advanceUnits(bytes, start, unitEnd - unit)
      total += countPiece(text, unit, unitEnd, bytes, start, pieceEnd)
      unit = unitEnd
      start = pieceEnd
    }
    if (standIns.length > KEPT_BUFFER_BYTES) standIns = new Uint8Array(4096)
    return total
  }

  // Whole texts that repeat are memoized. A text enters the memo the second time it is counted: a filter of hashes of
  // the texts counted once (over their UTF-8, which is at hand) stands in front of it, so texts that never repeat
  // (most of what an estimator prices, as it deduplicates a message's items itself) cost a hash, not a memo entry.
  // A hash collision only costs a lookup.
  const memo = new Map<string, number>()
  const seen = new Int32Array(SEEN_SLOTS)
  const memoUpTo = textMemo?.upTo ?? -1
  const memoEntries = textMemo?.entries ?? 0

  /**
   * Counts a long text stretch by stretch, cut after a line feed that an ASCII letter follows: every pattern ends a
   * piece there (only whitespace runs cross a line feed, and they stop before a letter; cl100k's `\s+$` at a
   * stretch's end takes the same run its `\s*[\r\n]` takes before the letter), nothing looks behind, and nothing
   * before the line feed looks past it, so the stretches' counts add up to the text's. Each stretch is encoded into
   * the kept buffer, where the whole text would take a fresh one of its size (slow to touch on a large input).
   */
  const countLong = (text: string): number => {
    let total = 0
    for (let from = 0; from < text.length; ) {
      let to = text.length
      if (to - from > STRETCH_UNITS) {
        let cut = text.indexOf('\n', from + STRETCH_UNITS - 1)
        while (cut !== -1 && !isAsciiLetter(text.charCodeAt(cut + 1))) cut = text.indexOf('\n', cut + 1)
        if (cut !== -1) to = cut + 1
      }
      total += countText(from === 0 && to === text.length ? text : text.slice(from, to))
      from = to
    }
    return total
  }

  /** Counts `text` whole, encoded into the kept buffer when it fits. */
  const countText = (text: string): number => {
    let bytes = room(text.length)
    let encoded = encoder.encodeInto(text, bytes)
    if (encoded.read < text.length) {
      bytes = room(3 * text.length)
      encoded = encoder.encodeInto(text, bytes)
    }
    return countEncoded(text, bytes, encoded.written)
  }

  return (text) => {
    if (text.length > STRETCH_UNITS && text.length > memoUpTo) return countLong(text)
    let bytes = room(text.length)
    let encoded = encoder.encodeInto(text, bytes)
    // ASCII takes a byte per unit, anything else up to three: a text that did not fit is encoded again with that room.
    if (encoded.read < text.length) {
      bytes = room(3 * text.length)
      encoded = encoder.encodeInto(text, bytes)
    }
    const end = encoded.written
    if (text.length > memoUpTo) return countEncoded(text, bytes, end)
    const spread = hashBytes(bytes, 0, end)
    // Folded, as FNV-1a spreads its input into the high bits; 0 marks a free slot.
    const hash = (spread ^ (spread >>> 15)) | 1
    const slot = hash & (SEEN_SLOTS - 1)
    if (seen[slot] !== hash) {
      seen[slot] = hash
      return countEncoded(text, bytes, end)
    }
    const known = memo.get(text)
    if (known !== undefined) return known
    const value = countEncoded(text, bytes, end)
    if (memo.size >= memoEntries) memo.clear()
    memo.set(text, value)
    return value
  }

  /** A buffer of at least `bytes` bytes: the kept one, grown while small enough, or a one-off. */
  function room(bytes: number): Uint8Array {
    if (bytes <= buffer.length) return buffer
    let size = buffer.length
    while (size < bytes) size *= 2
    if (size > KEPT_BUFFER_BYTES) return new Uint8Array(bytes)
    buffer = new Uint8Array(size)
    return buffer
  }
}

/** The merger's working arrays for pieces of up to `capacity` bytes. */
interface MergeBuffers {
  readonly capacity: number
  /** next[i]: start of the part after the one at i. */
  readonly next: Int32Array
  readonly previous: Int32Array
  /** pairRank[i]: rank of the part at i joined with the next one, -1 if none. */
  readonly pairRank: Int32Array
  /** Candidate pairs as `rank * KEY_SCALE + start`; each merge pushes at most two, so 3 per byte is room enough. */
  readonly heap: Float64Array
}

function mergeBuffers(capacity: number): MergeBuffers {
  return {
    capacity,
    next: new Int32Array(capacity + 1),
    previous: new Int32Array(capacity),
    pairRank: new Int32Array(capacity),
    heap: new Float64Array(3 * capacity),
  }
}

/**
 * Returns a function counting the parts left when `bytes[offset, offset + length)` is merged pair by pair, lowest
 * rank first and leftmost among equals (tiktoken's rule). Parts are a linked list and candidate pairs a heap of
 * `rank, start` keys, so n bytes take O(n log n), not the O(n²) of rescanning (tiktoken's own loop), whatever the
 * piece's length; stale keys are skipped when popped. A pair's rank is looked up from its bytes, and a pair is at
 * most two tokens long, so each lookup costs a bounded amount.
 */
function createMerger(table: RankTable): (bytes: Uint8Array, offset: number, length: number) => number {
  const { pairs } = table
  let kept = mergeBuffers(256)
  let { next, previous, pairRank, heap } = kept
  let heapSize = 0

  const push = (key: number) => {
    let index = heapSize++
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (heap[parent]! <= key) break
      heap[index] = heap[parent]!
      index = parent
    }
    heap[index] = key
  }
  const pop = (): number => {
    const top = heap[0]!
    const last = heap[--heapSize]!
    let index = 0
    for (;;) {
      let child = 2 * index + 1
      if (child >= heapSize) break
      if (child + 1 < heapSize && heap[child + 1]! < heap[child]!) child++
      if (heap[child]! >= last) break
      heap[index] = heap[child]!
      index = child
    }
    heap[index] = last
    return top
  }
  const rankOf = (bytes: Uint8Array, start: number, end: number) => rankOfBytes(table, bytes, start, end, hashBytes(bytes, start, end))
  /** Points the working arrays at buffers for `length` bytes: the kept ones, grown while small enough, or a one-off. */
  const reserve = (length: number) => {
    let buffers = kept
    if (length > kept.capacity) {
      buffers = mergeBuffers(Math.max(length, 2 * kept.capacity))
      if (buffers.capacity <= KEPT_MERGE_BYTES) kept = buffers
    }
    ;({ next, previous, pairRank, heap } = buffers)
  }

  // Positions are relative to `offset`.
  return (bytes, offset, length) => {
    if (length < 2) return length
    if (length > kept.capacity || heap !== kept.heap) reserve(length)
    heapSize = 0
    for (let index = 0; index < length; index++) {
      next[index] = index + 1
      previous[index] = index - 1
    }
    for (let index = 0; index + 1 < length; index++) {
      const rank = pairs[(bytes[offset + index]! << 8) | bytes[offset + index + 1]!]!
      pairRank[index] = rank
      if (rank !== -1) push(rank * KEY_SCALE + index)
    }
    pairRank[length - 1] = -1
    let parts = length
    while (heapSize > 0) {
      const key = pop()
      // Both fit in int32; `| 0` keeps them small integers, which typed arrays index fast (a double index does not).
      const rank = Math.floor(key / KEY_SCALE) | 0
      const start = (key - rank * KEY_SCALE) | 0
      // A merged-away part has rank -1 and a re-ranked pair a different rank: either way the key is stale.
      if (pairRank[start] !== rank) continue
      const absorbed = next[start]!
      const after = next[absorbed]!
      pairRank[absorbed] = -1
      next[start] = after
      parts--
      if (after < length) {
        previous[after] = start
        const joined = rankOf(bytes, offset + start, offset + next[after]!)
        pairRank[start] = joined
        if (joined !== -1) push(joined * KEY_SCALE + start)
      } else {
        pairRank[start] = -1
      }
      const before = previous[start]!
      if (before !== -1) {
        const joined = rankOf(bytes, offset + before, offset + after)
        pairRank[before] = joined
        if (joined !== -1) push(joined * KEY_SCALE + before)
      }
    }
    return parts
  }
}

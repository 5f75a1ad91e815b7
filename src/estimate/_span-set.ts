/**
 * A set of spans of one text, deduplicated by their characters without slicing a string per span (shared by the
 * seed and full estimators, whose inputs repeat short spans constantly).
 */

import { sameUnits } from './extractors/_scan.js'

// With linear probing at most half full, a run of this many occupied slots has probability about
// 0.824^256 < 10^-21 per insertion unless the input was built to collide; the set then stops trusting the hash.
const MAX_PROBES = 256
/** Numbers per slot: hash, start of the latest occurrence, length (0 when the slot is free). */
const SLOT_SIZE = 3
/** Spans up to this long go through the recent cache first. */
const SHORT_SPAN = 8
/** Slots of the recent cache at most; a short text gets fewer (one per 16 units), so that a set per message stays cheap. */
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
export class SpanSet {
  /** Distinct spans recorded so far. */
  count = 0
  /** Per distinct span, in the order found: its first start and its end. */
  private starts: Int32Array
  private ends: Int32Array
  /** SLOT_SIZE numbers per slot; a power-of-two number of slots. */
  private slots: Int32Array
  private mask: number
  // 30 bits, so the field stays a small integer (a wider one would change the object's shape in V8).
  private readonly seed = Math.floor(Math.random() * 0x4000_0000)
  private strings: Set<string> | undefined
  /** The recent cache's slots (a power of two): their latest starts (-1 when free), then their lengths. */
  private readonly recent: Int32Array
  private readonly recentSlots: number

  /**
   * `expected`: how many spans the caller will add, when it knows; the set starts with room for a third of them
   * distinct (what agent text holds), else for one per 512 units (agent text holds one distinct span of each pattern
   * per 200 to 1,000 units). It grows by doubling either way; a table larger than the spans need falls out of cache.
   */
  constructor(
    readonly text: string,
    expected?: number,
  ) {
    // A caller that says how many spans it adds gets a table for them however few (a set per message, for thousands of
    // messages); one that does not gets room for a whole text's worth.
    const guess = expected === undefined ? Math.max(Math.min(Math.ceil(Math.log2(text.length / 512)), 14), 9) : Math.max(Math.ceil(Math.log2(expected / 3)), 3)
    const capacity = 2 ** Math.min(guess, 20)
    this.recentSlots = 2 ** Math.min(Math.max(Math.ceil(Math.log2(text.length / 16)), 4), Math.log2(RECENT_SLOTS))
    this.recent = new Int32Array(this.recentSlots * 2).fill(-1)
    this.starts = new Int32Array(capacity)
    this.ends = new Int32Array(capacity)
    this.slots = new Int32Array(capacity * 2 * SLOT_SIZE)
    this.mask = capacity * 2 - 1
  }

  /** Records `text.slice(start, end)` unless a span with that text is already recorded; returns whether it was new. */
  add(start: number, end: number): boolean {
    if (this.strings !== undefined) return this.addString(start, end)
    const { text, slots, mask, recent, recentSlots } = this
    const length = end - start
    // Short spans (`0`, `200`, `ENOENT`) repeat most: a small direct-mapped cache of their latest
    // occurrence, keyed by length and end units, skips the hash and the table for them.
    if (length <= SHORT_SPAN) {
      const key = ((length << 8) ^ (text.charCodeAt(start) << 4) ^ text.charCodeAt(end - 1)) & (recentSlots - 1)
      const latest = recent[key] ?? -1
      if (latest >= 0 && recent[key + recentSlots] === length && sameUnits(text, latest, start, length)) return false
      recent[key] = start
      recent[key + recentSlots] = length
    }
    const hash = hashUnits(text, start, end, this.seed)
    let slot = hash & mask
    for (let probes = 0; ; probes++) {
      const at = slot * SLOT_SIZE
      const known = slots[at + 2] ?? 0
      if (known === 0) {
        this.insert(at, hash, start, length)
        this.push(start, end)
        return true
      }
      if (known === length && slots[at] === hash && sameUnits(text, slots[at + 1] ?? 0, start, length)) {
        slots[at + 1] = start
        return false
      }
      if (probes === MAX_PROBES) {
        this.strings = new Set(Array.from({ length: this.count }, (_, index) => this.spanText(index)))
        return this.addString(start, end)
      }
      slot = (slot + 1) & mask
    }
  }

  /** First start of the `index`-th distinct span (in the order found). */
  startOf(index: number): number {
    return this.starts[index] ?? 0
  }

  /** End of the `index`-th distinct span. */
  endOf(index: number): number {
    return this.ends[index] ?? 0
  }

  /** Text of the `index`-th distinct span. */
  spanText(index: number): string {
    return this.text.slice(this.starts[index] ?? 0, this.ends[index] ?? 0)
  }

  /** Fills the free slot at `at`, growing the table once it is half full. */
  private insert(at: number, hash: number, start: number, length: number): void {
    this.slots[at] = hash
    this.slots[at + 1] = start
    this.slots[at + 2] = length
    if ((this.count + 1) * 2 > this.mask) this.rehash(this.mask * 2 + 1)
  }

  private addString(start: number, end: number): boolean {
    const strings = this.strings ?? new Set<string>()
    const span = this.text.slice(start, end)
    const known = strings.size
    if (strings.add(span).size === known) return false
    this.push(start, end)
    return true
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

/**
 * FNV-1a over the UTF-16 units of `text[start, end)` from `seed` (a span set's is drawn per call), in two interleaved
 * lanes of two units per step (a quoted span can run for thousands of characters, and each lane's multiplications
 * form a serial chain), then murmur3's finalizer, which spreads the high bits, where the second unit of each pair
 * lands, over the low bits that pick a slot. Also keys the scan's classification cache.
 */
export function hashUnits(text: string, start: number, end: number, seed: number): number {
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

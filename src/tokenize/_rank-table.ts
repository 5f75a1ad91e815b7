/**
 * A BPE rank table in typed arrays: every token's bytes in one pool and an open-addressing hash from byte sequences to
 * ranks, so that a piece (or a range of one) is looked up from its bytes without building a string.
 */

/** Token bytes and the hash from byte sequences to ranks. Immutable once built. */
export interface RankTable {
  /** Number of tokens (ranks 0 … size - 1), at most {@link MAX_RANKS}. */
  readonly size: number
  /** Every token's bytes, rank after rank. */
  readonly pool: Uint8Array
  /** Start of each rank's bytes in {@link pool}. */
  readonly offsets: Int32Array
  /** Length of each rank's bytes (a token is at most 255 bytes; o200k's longest has 128). */
  readonly lengths: Uint8Array
  /**
   * Per slot, -1 when empty, else the slot's rank in the low {@link RANK_BITS} bits and a tag of its token's hash
   * above them, compared before the token's bytes; a power-of-two size at most half full.
   */
  readonly slots: Int32Array
  /** Slot count - 1. */
  readonly mask: number
  /** Rank of each two-byte token by `first << 8 | second`, -1 where there is none: every BPE starts with these. */
  readonly pairs: Int32Array
  /** Bytes of the longest token: a longer piece is never looked up whole. */
  readonly longest: number
}

/** Bits of a slot holding its rank; the 13 above them hold the hash's tag. */
export const RANK_BITS = 18
/** Ranks a table can hold. */
export const MAX_RANKS = 1 << RANK_BITS
const RANK_MASK = MAX_RANKS - 1
const TAG_MASK = (1 << (31 - RANK_BITS)) - 1

const FNV_OFFSET = 0x811c9dc5 | 0
const FNV_PRIME = 0x01000193

/** FNV-1a of `bytes[start, end)`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ bytes[index]!, FNV_PRIME)
  return hash
}

/** FNV-1a spreads its input into the high bits; fold them down before masking. */
function slotOf(hash: number, mask: number): number {
  return (hash ^ (hash >>> 15)) & mask
}

/** The tag a slot keeps of its token's hash: 13 of the high bits, which the slot index mostly does not use. */
function tagOf(hash: number): number {
  return (hash >>> 19) & TAG_MASK
}

/** Rank of `bytes[start, end)` with hash `hash`, or -1. */
export function rankOfBytes(table: RankTable, bytes: Uint8Array, start: number, end: number, hash: number): number {
  const { slots, mask, lengths, offsets, pool } = table
  const length = end - start
  const tag = tagOf(hash)
  for (let slot = slotOf(hash, mask); ; slot = (slot + 1) & mask) {
    const entry = slots[slot]!
    if (entry === -1) return -1
    if (entry >>> RANK_BITS !== tag) continue
    const rank = entry & RANK_MASK
    if (lengths[rank] !== length) continue
    const offset = offsets[rank]! - start
    let index = start
    while (index < end && pool[offset + index] === bytes[index]) index++
    if (index === end) return rank
  }
}

/**
 * Writes `text` as UTF-8 into `bytes` from `offset` and returns where it ends (a lone surrogate as U+FFFD, as
 * TextEncoder does). Needs room for 3 bytes per unit; faster than encodeInto on a subarray for 200k short strings.
 */
function encodeUtf8(text: string, bytes: Uint8Array, offset: number): number {
  let length = offset
  for (let index = 0; index < text.length; index++) {
    let code = text.charCodeAt(index)
    if (code < 0x80) {
      bytes[length++] = code
      continue
    }
    if (code < 0x800) {
      bytes[length++] = 0xc0 | (code >> 6)
      bytes[length++] = 0x80 | (code & 0x3f)
      continue
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00)
        index++
        bytes[length++] = 0xf0 | (code >> 18)
        bytes[length++] = 0x80 | ((code >> 12) & 0x3f)
        bytes[length++] = 0x80 | ((code >> 6) & 0x3f)
        bytes[length++] = 0x80 | (code & 0x3f)
        continue
      }
      code = 0xfffd
    }
    bytes[length++] = 0xe0 | (code >> 12)
    bytes[length++] = 0x80 | ((code >> 6) & 0x3f)
    bytes[length++] = 0x80 | (code & 0x3f)
  }
  return length
}

/**
 * Builds the table from gpt-tokenizer's rank data (index = rank; a string, or the byte values of a token that is not
 * UTF-8). Strings are encoded here, not decoded from bytes, so the U+FEFF token keeps its EF BB BF.
 */
export function buildRankTable(data: ReadonlyArray<string | readonly number[]>): RankTable {
  const size = data.length
  if (size > MAX_RANKS) throw new RangeError(`buildRankTable: ${size} tokens, at most ${MAX_RANKS} fit`)
  const offsets = new Int32Array(size)
  const lengths = new Uint8Array(size)
  let pool = new Uint8Array(size * 8)
  let used = 0
  let longest = 0
  // Tokens are at most 128 bytes; keep room for the next one.
  const room = 1024
  for (let rank = 0; rank < size; rank++) {
    if (used + room > pool.length) {
      const grown = new Uint8Array(pool.length * 2)
      grown.set(pool)
      pool = grown
    }
    const token = data[rank]!
    offsets[rank] = used
    if (typeof token === 'string') {
      used = encodeUtf8(token, pool, used)
    } else {
      for (const byte of token) pool[used++] = byte
    }
    const length = used - offsets[rank]!
    if (length > 255) throw new RangeError(`buildRankTable: token ${rank} has ${length} bytes, at most 255 fit`)
    lengths[rank] = length
    longest = Math.max(longest, length)
  }
  pool = pool.slice(0, used)
  let slotCount = 1
  while (slotCount < size * 2) slotCount *= 2
  const mask = slotCount - 1
  const slots = new Int32Array(slotCount).fill(-1)
  const pairs = new Int32Array(65536).fill(-1)
  for (let rank = 0; rank < size; rank++) {
    const start = offsets[rank]!
    const end = start + lengths[rank]!
    const hash = hashBytes(pool, start, end)
    let slot = slotOf(hash, mask)
    while (slots[slot] !== -1) slot = (slot + 1) & mask
    slots[slot] = rank | (tagOf(hash) << RANK_BITS)
    if (end - start === 2) pairs[(pool[start]! << 8) | pool[start + 1]!] = rank
  }
  return { size, pool, offsets, lengths, slots, mask, pairs, longest }
}

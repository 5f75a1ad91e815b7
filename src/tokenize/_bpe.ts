/**
 * Exact byte-pair encoding for the pieces gpt-tokenizer gets wrong.
 *
 * gpt-tokenizer keeps its merge table keyed by decoded strings, and the U+FEFF token (bytes EF BB BF) was decoded
 * through a BOM-stripping TextDecoder, so it can never be found; it also pre-tokenizes with JavaScript's `\s`, which
 * includes U+FEFF and excludes U+0085, unlike the Unicode White_Space set tiktoken's regex uses. Texts holding either
 * character take this path: the corrected pre-tokenizer, then BPE over bytes with the full rank table.
 */

/** Unicode White_Space, the set Rust's `\s` (tiktoken) matches; JavaScript's `\s` differs on U+0085 and U+FEFF. */
const WS = String.raw`\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`
const CONTRACTION = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`

/** Pre-tokenizer patterns of tiktoken's encodings, with `\s` spelled as Unicode White_Space. */
export const SPLIT_PATTERNS = {
  o200k_base: new RegExp(
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:${CONTRACTION})?` +
      String.raw`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:${CONTRACTION})?` +
      String.raw`|\p{N}{1,3}| ?[^${WS}\p{L}\p{N}]+[\r\n/]*|[${WS}]*[\r\n]+|[${WS}]+(?![^${WS}])|[${WS}]+`,
    'gu',
  ),
  cl100k_base: new RegExp(
    String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^${WS}\p{L}\p{N}]+[\r\n]*|[${WS}]+$|[${WS}]*[\r\n]|[${WS}]+(?![^${WS}])|[${WS}]`,
    'gu',
  ),
} as const

/** Characters on which gpt-tokenizer's count differs from tiktoken's. */
export const MISCOUNTED = /[\uFEFF\u0085]/

const encoder = new TextEncoder()

/** Builds the byte-sequence → rank map (keys are latin1 strings of the bytes) from gpt-tokenizer's rank table. */
export function buildByteRanks(rankDecoder: ReadonlyArray<string | readonly number[]>): Map<string, number> {
  const ranks = new Map<string, number>()
  rankDecoder.forEach((value, rank) => {
    const bytes = typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value)
    ranks.set(latin1(bytes, 0, bytes.length), rank)
  })
  return ranks
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let key = ''
  for (let index = start; index < end; index++) key += String.fromCharCode(bytes[index]!)
  return key
}

/** Counts the BPE tokens of one pre-tokenized piece, merging the lowest-ranked adjacent pair first (tiktoken's rule). */
export function countPieceTokens(piece: string, ranks: ReadonlyMap<string, number>): number {
  const bytes = encoder.encode(piece)
  if (ranks.has(latin1(bytes, 0, bytes.length))) return 1
  // boundaries[i] is the start byte of part i; the last entry is bytes.length.
  const boundaries: number[] = []
  for (let index = 0; index <= bytes.length; index++) boundaries.push(index)
  const pairRank = (index: number): number =>
    index + 2 < boundaries.length ? (ranks.get(latin1(bytes, boundaries[index]!, boundaries[index + 2]!)) ?? Infinity) : Infinity
  const pairRanks = boundaries.map((_, index) => pairRank(index))
  while (boundaries.length > 2) {
    let best = Infinity
    let bestIndex = -1
    for (let index = 0; index < boundaries.length - 2; index++) {
      if (pairRanks[index]! < best) {
        best = pairRanks[index]!
        bestIndex = index
      }
    }
    if (bestIndex === -1) break
    boundaries.splice(bestIndex + 1, 1)
    pairRanks.splice(bestIndex + 1, 1)
    pairRanks[bestIndex] = pairRank(bestIndex)
    if (bestIndex > 0) pairRanks[bestIndex - 1] = pairRank(bestIndex - 1)
  }
  return boundaries.length - 1
}

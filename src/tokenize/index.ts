import { FloorguardError } from '../errors.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { buildByteRanks, countPieceTokens, MISCOUNTED, SPLIT_PATTERNS } from './_bpe.js'

export type { TokenizerV1 } from '../spec/tokenizer.js'

/** Names of the built-in tokenizers. */
export const TOKENIZER_NAMES = ['o200k_base', 'cl100k_base', 'approx'] as const
/** A built-in tokenizer name. */
export type TokenizerName = (typeof TOKENIZER_NAMES)[number]

/** Options of {@link createTokenizer}. */
export interface TokenizerOptions {
  /**
   * Memoize counts of strings up to this many UTF-16 units (repeated spans are common in transcripts).
   * @default 2048
   */
  readonly memoizeUpTo?: number
  /**
   * Entries kept in the memo before it is cleared.
   * @default 100000
   */
  readonly memoEntries?: number
}

type CountFunction = (text: string) => number

/** Never treat `<|endoftext|>` and friends as special: transcript text is ordinary text. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>() }

interface BpeModule {
  countTokens(text: string, options: typeof NO_SPECIAL): number
  setMergeCacheSize(size: number): void
  clearMergeCache(): void
}

/**
 * gpt-tokenizer evicts from its merge cache with `map.keys().next()` once the cache is full, which walks over the
 * deleted entries at the front of the Map: after 1 MB of random text, counting 8 MB of agent text took 3.3 s instead of
 * 0.33 s. floorguard never lets it fill: the cache is made larger than what {@link CACHE_TEXT_UNITS} of text can add,
 * and cleared after that much text has been counted; long texts are counted in stretches split where a piece
 * boundary is certain.
 */
const MERGE_CACHE_SIZE = 1_000_000
/** Text counted between two clears of the merge cache (each piece is at least one unit, so at most this many entries). */
const CACHE_TEXT_UNITS = 1 << 21
/** Longest stretch handed to gpt-tokenizer at once. */
const STRETCH_UNITS = 1 << 19

/**
 * Splits a long text into stretches of at most about STRETCH_UNITS, each ending right after a newline that is followed
 * by a non-whitespace character: in both encodings no piece crosses that point, so the counts add up exactly.
 */
function stretchesOf(text: string): string[] {
  const stretches: string[] = []
  let start = 0
  while (text.length - start > STRETCH_UNITS) {
    let cut = -1
    for (let newline = text.indexOf('\n', start + (STRETCH_UNITS >> 1)); newline !== -1 && newline + 1 < text.length; newline = text.indexOf('\n', newline + 1)) {
      const next = text.charCodeAt(newline + 1)
      if (!(next === 32 || (next >= 9 && next <= 13) || next === 0x85 || next === 0xa0 || next === 0x1680 || (next >= 0x2000 && next <= 0x200a) || next === 0x2028 || next === 0x2029 || next === 0x202f || next === 0x205f || next === 0x3000)) {
        cut = newline + 1
        break
      }
      if (newline - start > 4 * STRETCH_UNITS) break
    }
    if (cut === -1) break
    stretches.push(text.slice(start, cut))
    start = cut
  }
  stretches.push(start === 0 ? text : text.slice(start))
  return stretches
}

/**
 * Pre-tokenized pieces longer than this are counted in {@link PIECE_CHUNK}-unit chunks. Natural text never has them
 * (they need that many letters, spaces or punctuation marks in a row); for those blobs the count may differ from the
 * exact one by about a token per chunk, and in exchange counting stays linear.
 */
export const LONG_PIECE = 512
const PIECE_CHUNK = 256

/** Whether `text` has a run of LONG_PIECE units that are all whitespace or all non-whitespace (a possible long piece). */
function hasLongRun(text: string): boolean {
  let run = 0
  let previousSpace = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    const space = code === 32 || (code >= 9 && code <= 13)
    run = space === previousSpace ? run + 1 : 1
    previousSpace = space
    if (run > LONG_PIECE) return true
  }
  return false
}

/** Lazily loaded exact counters, one per encoding, shared by every tokenizer instance. */
const exactCounters = new Map<string, CountFunction>()

async function loadExact(name: 'o200k_base' | 'cl100k_base'): Promise<CountFunction> {
  const cached = exactCounters.get(name)
  if (cached) return cached
  let encoding: BpeModule
  let rankTable: ReadonlyArray<string | readonly number[]>
  try {
    if (name === 'o200k_base') {
      encoding = await import('gpt-tokenizer/encoding/o200k_base')
      rankTable = (await import('gpt-tokenizer/bpeRanks/o200k_base')).default as ReadonlyArray<string | readonly number[]>
    } else {
      encoding = await import('gpt-tokenizer/encoding/cl100k_base')
      rankTable = (await import('gpt-tokenizer/bpeRanks/cl100k_base')).default as ReadonlyArray<string | readonly number[]>
    }
  } catch (error) {
    throw new FloorguardError('missing-dependency', `tokenizer ${name} needs the gpt-tokenizer package: run \`npm i gpt-tokenizer\``, { cause: error })
  }
  const pattern = SPLIT_PATTERNS[name]
  let byteRanks: Map<string, number> | undefined
  const countPiece = (piece: string): number => {
    if (piece.length > LONG_PIECE) {
      // BPE is quadratic in a piece's length; a piece this long (a 1 MB run of letters) is a blob, counted in chunks.
      let total = 0
      for (let start = 0; start < piece.length; ) {
        let end = Math.min(piece.length, start + PIECE_CHUNK)
        const code = piece.charCodeAt(end - 1)
        if (end < piece.length && code >= 0xd800 && code <= 0xdbff) end++
        total += countPiece(piece.slice(start, end))
        start = end
      }
      return total
    }
    if (!MISCOUNTED.test(piece)) return countDirect(piece)
    byteRanks ??= buildByteRanks(rankTable)
    return countPieceTokens(piece, byteRanks)
  }
  encoding.setMergeCacheSize(MERGE_CACHE_SIZE)
  let sinceClear = 0
  const countDirect = (text: string): number => {
    sinceClear += text.length
    if (sinceClear > CACHE_TEXT_UNITS) {
      encoding.clearMergeCache()
      sinceClear = text.length
    }
    return encoding.countTokens(text, NO_SPECIAL)
  }
  const countPlain = (text: string): number => {
    if (text.length <= STRETCH_UNITS) return countDirect(text)
    let total = 0
    for (const stretch of stretchesOf(text)) total += countDirect(stretch)
    return total
  }
  const countStretch = (stretch: string): number => {
    if (!MISCOUNTED.test(stretch)) return countPlain(stretch)
    let total = 0
    for (const [piece] of stretch.matchAll(pattern)) total += countPiece(piece)
    return total
  }
  const count: CountFunction = (text) => {
    if (!(text.length > LONG_PIECE && hasLongRun(text))) return countStretch(text)
    // Count the stretches between long pieces whole (re-splitting a stretch yields the same pieces), the long ones in chunks.
    let total = 0
    let stretchStart = 0
    for (const match of text.matchAll(pattern)) {
      if (match[0].length <= LONG_PIECE) continue
      if (match.index > stretchStart) total += countStretch(text.slice(stretchStart, match.index))
      total += countPiece(match[0])
      stretchStart = match.index + match[0].length
    }
    if (stretchStart < text.length) total += countStretch(text.slice(stretchStart))
    return total
  }
  exactCounters.set(name, count)
  return count
}

/** Counts code points: ceil(code points / 4), the heuristic for callers without a model. */
export function approxTokens(text: string): number {
  let codePoints = 0
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index)
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1)
      if (next >= 0xdc00 && next <= 0xdfff) index++
    }
    codePoints++
  }
  return Math.ceil(codePoints / 4)
}

function memoize(count: CountFunction, options: TokenizerOptions): CountFunction {
  const limit = options.memoizeUpTo ?? 2048
  const entries = options.memoEntries ?? 100_000
  const memo = new Map<string, number>()
  return (text) => {
    if (text.length > limit) return count(text)
    const known = memo.get(text)
    if (known !== undefined) return known
    const value = count(text)
    if (memo.size >= entries) memo.clear()
    memo.set(text, value)
    return value
  }
}

/**
 * Creates a tokenizer: exact `o200k_base` / `cl100k_base` (gpt-tokenizer, loaded lazily, with its U+FEFF and U+0085
 * miscounts corrected) or the `approx` heuristic ceil(code points / 4). Unknown names throw with the known list.
 */
export async function createTokenizer(name: string = 'o200k_base', options: TokenizerOptions = {}): Promise<TokenizerV1> {
  if (name === 'approx') {
    return { specificationVersion: 'v1', name, exact: false, count: memoize(approxTokens, options) }
  }
  if (name !== 'o200k_base' && name !== 'cl100k_base') {
    throw new FloorguardError('unknown-name', `unknown tokenizer ${JSON.stringify(name)}: expected one of ${TOKENIZER_NAMES.join(', ')}`)
  }
  const count = await loadExact(name)
  return { specificationVersion: 'v1', name, exact: true, count: memoize(count, options) }
}

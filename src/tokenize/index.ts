import { FloorguardError } from '../errors.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { type CountFunction, createCounter } from './_counter.js'
import { buildRankTable, type RankTable } from './_rank-table.js'

export type { TokenizerV1 } from '../spec/tokenizer.js'

/** Names of the built-in tokenizers. */
export const TOKENIZER_NAMES = ['o200k_base', 'cl100k_base', 'approx'] as const
/** A built-in tokenizer name. */
export type TokenizerName = (typeof TOKENIZER_NAMES)[number]

/** Options of {@link createTokenizer}. */
export interface TokenizerOptions {
  /**
   * Memoize counts of strings up to this many UTF-16 units (repeated spans are common in transcripts). An exact
   * tokenizer memoizes a text from its second count on.
   * @default 2048
   */
  readonly memoizeUpTo?: number
  /**
   * Entries kept in the memo before it is cleared.
   * @default 100000
   */
  readonly memoEntries?: number
}

/** The exact encodings. */
type ExactName = 'o200k_base' | 'cl100k_base'

/** Rank tables, read (built at install) or built once per encoding on first use, shared (read-only) by every tokenizer. */
const rankTables = new Map<ExactName, Promise<RankTable>>()

function loadRankTable(name: ExactName): Promise<RankTable> {
  let table = rankTables.get(name)
  if (!table) {
    // The table built at install, when it was built from the gpt-tokenizer installed now; else built here.
    table = readBuiltAhead(name).then((builtAhead) => builtAhead ?? importRankData(name).then(buildRankTable))
    // A failed load (gpt-tokenizer missing) is retried by the next call.
    table.catch(() => rankTables.delete(name))
    rankTables.set(name, table)
  }
  return table
}

/** The table written at install (see _rank-cache.ts), loaded lazily: it reads a file, which not every runtime can. */
async function readBuiltAhead(name: ExactName): Promise<RankTable | undefined> {
  try {
    return (await import('./_rank-cache.js')).readBuiltAhead(name)
  } catch {
    return undefined
  }
}

/** Only gpt-tokenizer's rank data is used, not its encoder (which would build a 200k-entry Map of its own). */
async function importRankData(name: ExactName): Promise<ReadonlyArray<string | readonly number[]>> {
  let data: unknown
  try {
    data = (name === 'o200k_base' ? await import('gpt-tokenizer/bpeRanks/o200k_base') : await import('gpt-tokenizer/bpeRanks/cl100k_base')).default
  } catch (error) {
    throw new FloorguardError('missing-dependency', `tokenizer ${name} needs the gpt-tokenizer package: run \`npm i gpt-tokenizer\``, { cause: error })
  }
  // The module's default export, or, loaded as CommonJS through a bundler's interop (the CLI's bundle requires it),
  // the exports object that holds it: the table is an array either way, and anything else is refused, never counted with.
  const ranks = Array.isArray(data) ? data : data !== null && typeof data === 'object' ? (data as { default?: unknown }).default : undefined
  if (!Array.isArray(ranks)) throw new FloorguardError('missing-dependency', `tokenizer ${name}: gpt-tokenizer's rank data is not an array; reinstall gpt-tokenizer`)
  return ranks as ReadonlyArray<string | readonly number[]>
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

/** Memoizes the counts of texts up to `memoizeUpTo` units (for `approx`; the exact counters memoize internally). */
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
 * Creates a tokenizer: exact `o200k_base` / `cl100k_base` (tiktoken's rules over gpt-tokenizer's rank data, loaded
 * lazily) or the `approx` heuristic ceil(code points / 4). Unknown names throw with the known list. Each tokenizer has
 * its own caches; only the rank table is shared.
 */
export async function createTokenizer(name: string = 'o200k_base', options: TokenizerOptions = {}): Promise<TokenizerV1> {
  if (name === 'approx') {
    return { specificationVersion: 'v1', name, exact: false, count: memoize(approxTokens, options) }
  }
  if (name !== 'o200k_base' && name !== 'cl100k_base') {
    throw new FloorguardError('unknown-name', `unknown tokenizer ${JSON.stringify(name)}: expected one of ${TOKENIZER_NAMES.join(', ')}`)
  }
  const count = createCounter(await loadRankTable(name), name, { upTo: options.memoizeUpTo ?? 2048, entries: options.memoEntries ?? 100_000 })
  return { specificationVersion: 'v1', name, exact: true, count }
}

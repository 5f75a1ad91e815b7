/**
 * Rank tables built ahead: a {@link RankTable}'s typed arrays in one binary file, written at install (`prepare` runs
 * scripts/build-rank-tables.mjs after the build) from the installed gpt-tokenizer and read back with one readFileSync
 * and views over its bytes, where building one from gpt-tokenizer's data costs an import of a 2.4 MB module and a pass
 * over its 200k tokens. The file is keyed by its format, its encoding and gpt-tokenizer's version: any other file, a
 * short one or none is ignored, and the table is built in memory as before.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { RankTable } from './_rank-table.js'

/** Version of the file layout below; a change to it or to RankTable bumps it. */
export const RANK_CACHE_FORMAT = 2
/** "FGRT", little-endian: also tells a file written on a big-endian machine apart. */
const MAGIC = 0x54524746
/** Entries of {@link RankTable.pairs}. */
const PAIRS = 65536
/** The int32 fields before the arrays: size, pool length, slot count, longest token. */
const FIELDS = 4

/** The key a built-ahead table must carry to be used: format, encoding and the gpt-tokenizer it was built from. */
export function rankTableKey(encoding: string, gptTokenizerVersion: string): string {
  return `floorguard-ranks/${RANK_CACHE_FORMAT} ${encoding} gpt-tokenizer@${gptTokenizerVersion}`
}

/** Bytes from the start of the file to the first array: magic, key length, key, padded to a multiple of 8. */
function headerBytes(keyBytes: number): number {
  return Math.ceil((8 + keyBytes) / 8) * 8
}

/**
 * Writes `table` under `key`. Layout: magic, key length, key (UTF-8), padding to 8; then size, pool length, slot count
 * and longest token as int32; then offsets, slots and pairs (int32, so 4-aligned); then lengths and the pool (bytes).
 * 4.7 MB for o200k (7.5 MB in format 1, which kept a hash per slot and a length as int32): reading it is most of a
 * tokenizer's start.
 */
export function serializeRankTable(table: RankTable, key: string): Uint8Array {
  const keyBytes = new TextEncoder().encode(key)
  const start = headerBytes(keyBytes.length)
  const slotCount = table.mask + 1
  const ints = FIELDS + table.size + slotCount + PAIRS
  const bytes = new Uint8Array(start + 4 * ints + table.size + table.pool.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, keyBytes.length, true)
  bytes.set(keyBytes, 8)
  const words = new Int32Array(bytes.buffer, start, ints)
  words[0] = table.size
  words[1] = table.pool.length
  words[2] = slotCount
  words[3] = table.longest
  let at = FIELDS
  for (const array of [table.offsets, table.slots, table.pairs]) {
    words.set(array, at)
    at += array.length
  }
  bytes.set(table.lengths, start + 4 * ints)
  bytes.set(table.pool, start + 4 * ints + table.size)
  return bytes
}

/**
 * Reads a table written by {@link serializeRankTable} under `key`, as views over `bytes` (no copy, unless `bytes`
 * is not 4-aligned); undefined for another key, another layout or a truncated file.
 */
export function deserializeRankTable(bytes: Uint8Array, key: string): RankTable | undefined {
  if (bytes.length < 8) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
  if (view.getUint32(0, true) !== MAGIC) return undefined
  const keyLength = view.getUint32(4, true)
  const expected = new TextEncoder().encode(key)
  if (keyLength !== expected.length || bytes.length < 8 + keyLength) return undefined
  for (let index = 0; index < keyLength; index++) if (bytes[8 + index] !== expected[index]) return undefined
  let source = bytes
  if (source.byteOffset % 4 !== 0) source = source.slice()
  const start = source.byteOffset + headerBytes(keyLength)
  if (source.length < headerBytes(keyLength) + 4 * FIELDS) return undefined
  const [size, poolLength, slotCount, longest] = new Int32Array(source.buffer, start, FIELDS) as unknown as [number, number, number, number]
  const ints = FIELDS + size + slotCount + PAIRS
  // A slot count is a power of two above the size (the table is at most half full).
  if (size <= 0 || poolLength <= 0 || slotCount < size || (slotCount & (slotCount - 1)) !== 0 || longest <= 0 || longest > 255) return undefined
  if (source.length !== headerBytes(keyLength) + 4 * ints + size + poolLength) return undefined
  let at = start + 4 * FIELDS
  const next = (length: number) => {
    const array = new Int32Array(source.buffer, at, length)
    at += 4 * length
    return array
  }
  const offsets = next(size)
  const slots = next(slotCount)
  const pairs = next(PAIRS)
  const lengths = new Uint8Array(source.buffer, at, size)
  const pool = new Uint8Array(source.buffer, at + size, poolLength)
  return { size, pool, offsets, lengths, slots, mask: slotCount - 1, pairs, longest }
}

/**
 * Where the built-ahead table of `encoding` lives: dist/tokenize/, next to this module, named through `../tokenize/`
 * so that the path holds from the CLI's bundle too (dist/cli/main.bundle.cjs, see scripts/bundle-cli.mjs).
 */
export function builtAheadFile(encoding: string): URL {
  return new URL(`../tokenize/${encoding}.ranks`, import.meta.url)
}

/** The installed gpt-tokenizer's version, or undefined when it is not installed. */
export function installedGptTokenizerVersion(): string | undefined {
  try {
    const path = createRequire(import.meta.url).resolve('gpt-tokenizer/package.json')
    const version: unknown = JSON.parse(readFileSync(path, 'utf8')).version
    return typeof version === 'string' ? version : undefined
  } catch {
    return undefined
  }
}

/** The built-ahead table of `encoding` for the installed gpt-tokenizer, or undefined (none, stale or unreadable). */
export function readBuiltAhead(encoding: string, file: URL | string = builtAheadFile(encoding)): RankTable | undefined {
  const version = installedGptTokenizerVersion()
  if (version === undefined) return undefined
  let bytes: Uint8Array
  try {
    bytes = readFileSync(file)
  } catch {
    return undefined
  }
  return deserializeRankTable(bytes, rankTableKey(encoding, version))
}

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCounter } from './_counter.js'
import { deserializeRankTable, installedGptTokenizerVersion, RANK_CACHE_FORMAT, rankTableKey, readBuiltAhead, serializeRankTable } from './_rank-cache.js'
import { buildRankTable, type RankTable } from './_rank-table.js'

let oracle: Tiktoken
let table: RankTable
let directory: string
beforeAll(async () => {
  oracle = get_encoding('cl100k_base')
  table = buildRankTable((await import('gpt-tokenizer/bpeRanks/cl100k_base')).default)
  directory = mkdtempSync(join(tmpdir(), 'floorguard-ranks-'))
})
afterAll(() => {
  oracle.free()
  rmSync(directory, { recursive: true, force: true })
})

const KEY = rankTableKey('cl100k_base', '4.0.0')
const ARRAYS = ['pool', 'offsets', 'lengths', 'slots', 'pairs'] as const

describe('a rank table written ahead', () => {
  it('reads back array for array, and counts as tiktoken does', () => {
    const read = deserializeRankTable(serializeRankTable(table, KEY), KEY)!
    expect([read.size, read.mask, read.longest]).toEqual([table.size, table.mask, table.longest])
    for (const name of ARRAYS) expect([...read[name]], name).toEqual([...table[name]])
    const count = createCounter(read, 'cl100k_base')
    for (const text of ["it's 42 tokens, or so —\n\tsaid 中文 😀", 'x'.repeat(700), 'OSError: [Errno 28] No space left']) {
      expect(count(text), text.slice(0, 10)).toBe(oracle.encode_ordinary(text).length)
    }
  })

  it('reads from a buffer at an offset that is not 4-aligned', () => {
    const bytes = serializeRankTable(table, KEY)
    const shifted = new Uint8Array(bytes.length + 1)
    shifted.set(bytes, 1)
    const read = deserializeRankTable(shifted.subarray(1), KEY)!
    expect([...read.slots]).toEqual([...table.slots])
  })

  it('is ignored under another key (gpt-tokenizer version, encoding, format), truncated or lengthened', () => {
    const bytes = serializeRankTable(table, KEY)
    expect(deserializeRankTable(bytes, rankTableKey('cl100k_base', '4.0.1'))).toBeUndefined()
    expect(deserializeRankTable(bytes, rankTableKey('o200k_base', '4.0.0'))).toBeUndefined()
    expect(deserializeRankTable(bytes, KEY.replace(`/${RANK_CACHE_FORMAT} `, `/${RANK_CACHE_FORMAT - 1} `))).toBeUndefined()
    for (const length of [0, 7, 40, bytes.length - 1]) expect(deserializeRankTable(bytes.subarray(0, length), KEY), `${length}`).toBeUndefined()
    const longer = new Uint8Array(bytes.length + 4)
    longer.set(bytes)
    expect(deserializeRankTable(longer, KEY)).toBeUndefined()
  })

  it('is read from its file only when it was built from the gpt-tokenizer installed now', () => {
    const version = installedGptTokenizerVersion()!
    expect(version).toMatch(/^\d+\.\d+\.\d+/)
    const current = join(directory, 'current.ranks')
    writeFileSync(current, serializeRankTable(table, rankTableKey('cl100k_base', version)))
    expect(readBuiltAhead('cl100k_base', current)?.size).toBe(table.size)
    const stale = join(directory, 'stale.ranks')
    writeFileSync(stale, serializeRankTable(table, rankTableKey('cl100k_base', `${version}-older`)))
    expect(readBuiltAhead('cl100k_base', stale)).toBeUndefined()
    expect(readBuiltAhead('cl100k_base', join(directory, 'absent.ranks'))).toBeUndefined()
  })
})

import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { buildRankTable, type RankTable } from './_rank-table.js'
import { createTokenizer } from './index.js'

// As after an install that built the tables ahead: the cl100k table comes from the built-ahead file (here, a table built
// from tiktoken's own token bytes), and gpt-tokenizer's data must not be imported for it.
const builtAhead = vi.hoisted(() => ({ table: undefined as RankTable | undefined }))
vi.mock('./_rank-cache.js', () => ({ readBuiltAhead: (name: string) => (name === 'cl100k_base' ? builtAhead.table : undefined) }))
vi.mock('gpt-tokenizer/bpeRanks/cl100k_base', () => {
  throw new Error('gpt-tokenizer data imported although a table was built ahead')
})

let oracle: Tiktoken
beforeAll(() => {
  oracle = get_encoding('cl100k_base')
  builtAhead.table = buildRankTable(Array.from({ length: 100_256 }, (_, rank) => [...oracle.decode_single_token_bytes(rank)]))
})
afterAll(() => oracle.free())

it('takes the table built ahead, without importing gpt-tokenizer', async () => {
  const tokenizer = await createTokenizer('cl100k_base')
  for (const text of ["it's 42 tokens —\n\tsaid 中文 😀", 'OSError: [Errno 28] No space left on device']) expect(tokenizer.count(text)).toBe(oracle.encode_ordinary(text).length)
})

it('builds the table in memory when none was built ahead', async () => {
  expect((await createTokenizer('o200k_base')).count('still counts')).toBe(2)
})

import { expect, it, vi } from 'vitest'
import { createTokenizer } from './index.js'

// As if gpt-tokenizer were not installed: its rank data cannot be imported.
vi.mock('gpt-tokenizer/bpeRanks/cl100k_base', () => {
  throw new Error("Cannot find package 'gpt-tokenizer'")
})

it('says how to install gpt-tokenizer when its rank data is missing, every time it is asked', async () => {
  for (let attempt = 0; attempt < 2; attempt++) {
    await expect(createTokenizer('cl100k_base')).rejects.toMatchObject({ code: 'missing-dependency', message: expect.stringContaining('npm i gpt-tokenizer') })
  }
  expect((await createTokenizer('o200k_base')).count('still counts')).toBe(2)
})

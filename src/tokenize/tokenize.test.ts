import fc from 'fast-check'
import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, describe, expect, it } from 'vitest'
import { STRETCH_UNITS } from './_counter.js'
import { approxTokens, createTokenizer } from './index.js'

// tiktoken (the Rust core, compiled to wasm) is a dev-only oracle: it is what OpenAI's models count.
const oracles: Record<string, Tiktoken> = { o200k_base: get_encoding('o200k_base'), cl100k_base: get_encoding('cl100k_base') }
afterAll(() => Object.values(oracles).forEach((oracle) => oracle.free()))

const alphabet = ['a', 'B', ' ', '  ', '\n', '\r\n', '\t', '7', '42', '.', '/', '"', "'s", '\uFEFF', '\u0085', '\u00A0', '\u2028',
  '\u3000', 'é', 'e\u0301', '中文', '😀', '_', '-', '\u200B', '<|endoftext|>', 'ß', 'İ', 'Ⅻ', '٣', 'don\'t', 'OSError']
const agentish = fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }).map((pieces) => pieces.join(''))

describe.each(['o200k_base', 'cl100k_base'])('%s', (name) => {
  const oracle = oracles[name]!
  const truth = (text: string) => oracle.encode_ordinary(text).length

  it('matches tiktoken on the characters gpt-tokenizer miscounts', async () => {
    const tokenizer = await createTokenizer(name)
    for (const text of ['\uFEFF', 'x\uFEFFy', ' \uFEFF', '\uFEFFhello world', 'a\u0085b', '\u0085', '\uFEFF\uFEFF', '\uFEFF\u0085 \n']) {
      expect(tokenizer.count(text), JSON.stringify(text)).toBe(truth(text))
    }
  })

  it('matches tiktoken on generated agent-like text', async () => {
    const tokenizer = await createTokenizer(name)
    fc.assert(fc.property(agentish, (text) => tokenizer.count(text) === truth(text)), { numRuns: 1500, seed: 20261202 })
  })

  it('matches tiktoken on arbitrary unicode strings', async () => {
    const tokenizer = await createTokenizer(name)
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => tokenizer.count(text) === truth(text)), { numRuns: 800, seed: 7 })
  })

  it('counts special-token strings as ordinary text', async () => {
    const tokenizer = await createTokenizer(name)
    expect(tokenizer.count('<|endoftext|> and <|im_start|>')).toBe(truth('<|endoftext|> and <|im_start|>'))
  })

  it('memoized counts equal fresh counts', async () => {
    const tokenizer = await createTokenizer(name, { memoEntries: 3 })
    const texts = ['alpha', 'beta\uFEFF', 'gamma', 'alpha', 'delta', 'beta\uFEFF']
    expect(texts.map((text) => tokenizer.count(text))).toEqual(texts.map(truth))
  })
})

describe('approx', () => {
  it('is ceil(code points / 4)', async () => {
    const tokenizer = await createTokenizer('approx')
    expect(tokenizer.count('')).toBe(0)
    expect(tokenizer.count('abcd')).toBe(1)
    expect(tokenizer.count('abcde')).toBe(2)
    // Four astral characters are eight UTF-16 units but four code points.
    expect(tokenizer.count('😀😀😀😀')).toBe(1)
    expect(tokenizer.exact).toBe(false)
  })

  it('agrees with a code point count', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => approxTokens(text) === Math.ceil([...text].length / 4)))
  })
})

it('rejects unknown tokenizers with the known list', async () => {
  await expect(createTokenizer('p50k')).rejects.toThrow(/o200k_base, cl100k_base, approx/)
})

describe('long texts', () => {
  it('counts texts longer than one stretch exactly (split only where no piece crosses)', async () => {
    const lines: string[] = []
    // Joining in the loop's condition took 25 s (quadratic); the length is kept as it grows.
    for (let index = 0, length = -1; length < 1_300_000; index++) {
      lines.push(index % 7 === 0 ? `    indented ${index} \uFEFF` : index % 5 === 0 ? '' : `Line ${index}: run \`pytest -q tests/test_${index}.py\` then check /var/tmp/x${index}.bin`)
      length += lines.at(-1)!.length + 1
    }
    const text = lines.join('\n')
    for (const name of ['o200k_base', 'cl100k_base']) {
      const tokenizer = await createTokenizer(name, { memoizeUpTo: 0 })
      expect(tokenizer.count(text)).toBe(oracles[name]!.encode_ordinary(text).length)
    }
  })
})

describe('long texts at their cuts', () => {
  it('counts texts of tricky lines past several stretches exactly (whitespace, CRLF, punctuation and contractions at the line feeds)', async () => {
    // Lines whose ends and starts meet every pattern at a line feed: trailing spaces and tabs, CR, blank and
    // whitespace-only lines, punctuation runs, a quote before the line feed, letters, digits and non-ASCII starts.
    const shapes = ['word', 'Word', 'x', "it's", "'", "'ll", '  ', '\t', ' ', '', '\r', '...', '=>', '—', 'é', '中', '12345', '\u3000', '\u0085', 'a\u0301', '/', '\\']
    const line = fc.array(fc.constantFrom(...shapes), { minLength: 0, maxLength: 5 }).map((atoms) => atoms.join(' '))
    const tokenizers = { o200k_base: await createTokenizer('o200k_base', { memoizeUpTo: 0 }), cl100k_base: await createTokenizer('cl100k_base', { memoizeUpTo: 0 }) }
    fc.assert(
      fc.property(fc.array(line, { minLength: 40, maxLength: 40 }), fc.constant(2), (pool, stretches) => {
        const lines: string[] = []
        let length = 0
        for (let index = 0; length < stretches * STRETCH_UNITS; index++) {
          lines.push(pool[(index * 7919) % pool.length]!)
          length += lines.at(-1)!.length + 1
        }
        const text = lines.join('\n')
        for (const [name, tokenizer] of Object.entries(tokenizers)) expect(tokenizer.count(text)).toBe(oracles[name]!.encode_ordinary(text).length)
      }),
      { numRuns: 3, seed: 4242, endOnFailure: true },
    )
  })
})

describe('blobs', () => {
  it('counts long runs exactly, the ones 256-unit chunks got wrong included (issue 11: 223 for 179, 9 for 10)', async () => {
    for (const name of ['o200k_base', 'cl100k_base']) {
      const tokenizer = await createTokenizer(name)
      for (const blob of ['-='.repeat(1410), '.'.repeat(513), 'a'.repeat(5000), 'Zq'.repeat(3000), '-'.repeat(4000), ' '.repeat(3000) + 'x']) {
        expect(tokenizer.count(blob), `${name} ${blob.slice(0, 4)}… (${blob.length})`).toBe(oracles[name]!.encode_ordinary(blob).length)
      }
    }
  })

  it('stays exact for text mixing words with a long run', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const text = `${'word '.repeat(3000)}${'x'.repeat(1500)} ${'\uFEFF'.repeat(3)}`
    expect(tokenizer.count(text)).toBe(oracles.o200k_base!.encode_ordinary(text).length)
  })
})

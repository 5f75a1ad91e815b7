import fc from 'fast-check'
import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCounter, LONG_PIECE, PIECE_CHUNK, type CountFunction } from './_counter.js'
import { buildRankTable, hashBytes, rankOfBytes, type RankTable } from './_rank-table.js'
import { SPLIT_PATTERNS, type SplitEncoding } from './_split.js'

// tiktoken (the Rust core, compiled to wasm) is the oracle, as in tokenize.test.ts.
const ENCODINGS = ['o200k_base', 'cl100k_base'] as const
const oracles = {} as Record<SplitEncoding, Tiktoken>
const tables = {} as Record<SplitEncoding, RankTable>
beforeAll(async () => {
  for (const encoding of ENCODINGS) {
    oracles[encoding] = get_encoding(encoding)
    const data = encoding === 'o200k_base' ? await import('gpt-tokenizer/bpeRanks/o200k_base') : await import('gpt-tokenizer/bpeRanks/cl100k_base')
    tables[encoding] = buildRankTable(data.default)
  }
})
afterAll(() => Object.values(oracles).forEach((oracle) => oracle.free()))

const ASCII_ATOMS = [
  ' ', '  ', '   ', '\t', '\n', '\r', '\r\n', '\n\n', '\v', '\f', ' \n', '\n ', ' \t ', '\r\n\r\n',
  'a', 'z', 'A', 'Z', 'x', 'ab', 'Ab', 'aB', 'AB', 'HTTPServer', 'iPhone', 'OSError', 'the', 'don', 'DON', 'pytest',
  "'", "''", "'s", "'S", "'t", "'T", "'d", "'D", "'m", "'M", "'ll", "'LL", "'Ll", "'lL", "'l", "'ve", "'Ve", "'VE", "'v",
  "'re", "'Re", "'rE", "'r", "'x",
  '0', '1', '12', '123', '1234', '12345', '1234567',
  '.', ',', '/', '//', '!', '?!', '-', '_', '"', '\\', '#', '$', '(', ')', '{', '}', '=', '@', '`', '~', '^',
  '\x00', '\x01', '\x08', '\x0e', '\x1b', '\x1f', '\x7f',
  '/\n', '.\r\n', '\r\n/', ';\n\n', '!/', '\n/', '-/\n/', '<|endoftext|>', '/var/tmp/x.bin', '==2.31.0',
]
const UNICODE_ATOMS = [
  'é', 'É', 'ǅ', 'ʰ', '中文', 'ß', 'İ', 'ſ', "'ſ", 'Ⅻ', '٣', '١٢٣٤', '\u0301', 'e\u0301', '😀', '\uD800', '\uDC00',
  '\u00A0', '\u3000', '\u0085', '\u2028', '\u2029', '\u1680', '\u200A', '\u202F', '\uFEFF', '\u200B', '—', '→', '✅',
]
const join = (atoms: string[]) => atoms.join('')

/** mulberry32: the same seed gives the same text on every run. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), state | 1)
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61)
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}
const asciiText = fc.array(fc.constantFrom(...ASCII_ATOMS), { maxLength: 40 }).map(join)
const mixedText = fc.array(fc.constantFrom(...ASCII_ATOMS, ...UNICODE_ATOMS), { maxLength: 40 }).map(join)

/**
 * tiktoken's count with every piece longer than LONG_PIECE replaced by the sum of its PIECE_CHUNK-unit chunks (a chunk
 * never ends on a high surrogate), each counted as a text: the previous tokenizer's rule for blobs. A piece alone is
 * one piece, so tiktoken counts each piece here.
 */
function chunkedCount(oracle: Tiktoken, encoding: SplitEncoding, text: string): number {
  const truth = (part: string) => oracle.encode_ordinary(part).length
  let total = 0
  for (const [piece] of text.matchAll(SPLIT_PATTERNS[encoding])) {
    if (piece.length <= LONG_PIECE) {
      total += truth(piece)
      continue
    }
    for (let start = 0; start < piece.length; ) {
      let end = Math.min(piece.length, start + PIECE_CHUNK)
      const code = piece.charCodeAt(end - 1)
      if (end < piece.length && code >= 0xd800 && code <= 0xdbff) end++
      total += truth(piece.slice(start, end))
      start = end
    }
  }
  return total
}

describe.each(ENCODINGS)('%s', (encoding) => {
  let count: CountFunction
  let truth: (text: string) => number
  beforeAll(() => {
    count = createCounter(tables[encoding], encoding)
    truth = (text) => oracles[encoding].encode_ordinary(text).length
  })

  it('holds every token under its rank, with the bytes tiktoken decodes', () => {
    const table = tables[encoding]
    const oracle = oracles[encoding]
    for (let rank = 0; rank < table.size; rank++) {
      const start = table.offsets[rank]!
      const end = start + table.lengths[rank]!
      const expected = oracle.decode_single_token_bytes(rank)
      if (expected.length !== end - start || expected.some((byte, index) => byte !== table.pool[start + index])) {
        expect.fail(`rank ${rank}: ${[...table.pool.subarray(start, end)]} vs ${[...expected]}`)
      }
      if (rankOfBytes(table, table.pool, start, end, hashBytes(table.pool, start, end)) !== rank) expect.fail(`rank ${rank} not found`)
    }
  })

  it('matches tiktoken on ASCII aimed at every alternative and boundary', () => {
    fc.assert(fc.property(asciiText, (text) => count(text) === truth(text)), { numRuns: 4000, seed: 412 })
  })

  it('matches tiktoken on random ASCII, control characters included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary-ascii', maxLength: 400 }), (text) => count(text) === truth(text)), { numRuns: 1500, seed: 58 })
  })

  it('matches tiktoken on printable ASCII and on words of lower-case letters', () => {
    const printable = fc.string({ unit: fc.integer({ min: 32, max: 126 }).map((code) => String.fromCharCode(code)), maxLength: 400 })
    fc.assert(fc.property(printable, (text) => count(text) === truth(text)), { numRuns: 1500, seed: 59 })
    const words = fc.array(fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 30 }), { maxLength: 20 })
    fc.assert(fc.property(words, (parts) => count(parts.join(' ')) === truth(parts.join(' '))), { numRuns: 1500, seed: 60 })
  })

  it('matches tiktoken on text mixing ASCII with non-ASCII letters, spaces, U+FEFF and lone surrogates', () => {
    fc.assert(fc.property(mixedText, (text) => count(text) === truth(text)), { numRuns: 4000, seed: 2026 })
  })

  it('matches tiktoken on arbitrary strings, lone surrogates included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => count(text) === truth(text)), { numRuns: 1500, seed: 61 })
  })

  it('matches tiktoken on U+FEFF, U+0085 and a lone surrogate', () => {
    for (const text of ['\uFEFF', ' \uFEFF', 'x\uFEFFy', '\uFEFF\uFEFF', 'a\u0085b', '\u0085', '\u0085\n', ' \u0085x', '\uD83D', 'a\uDE00b', '\uDE00\uD83D']) {
      expect(count(text), JSON.stringify(text)).toBe(truth(text))
    }
  })

  it('caches a piece that starts with U+FEFF under its own text (a BOM-stripping decoder would file it under the rest)', () => {
    // Fresh counters: the first text puts the U+FEFF piece in the cache, the second must not find it there.
    for (const [first, second] of [['\uFEFFqwzxvbk', 'qwzxvbk'], ['x \uFEFFqwzxvbk', 'x qwzxvbk']]) {
      const fresh = createCounter(tables[encoding], encoding)
      expect([fresh(first!), fresh(second!)]).toEqual([truth(first!), truth(second!)])
    }
  })

  it('matches tiktoken on pieces of up to LONG_PIECE units (BPE over long pieces)', () => {
    const random = createRandom(7)
    const letters = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
    for (const length of [20, 100, 257, 400, LONG_PIECE]) {
      for (const text of [letters('abcdefghijklmnopqrstuvwxyz', length), letters('中文字符测试数据', length), letters('!#$%&*+-./:;<=>?@^_|~', length), `x${letters('aeiou', length - 1)}`]) {
        expect(count(text), `${length} ${text.slice(0, 8)}`).toBe(truth(text))
      }
    }
  })

  it('counts pieces longer than LONG_PIECE in chunks, each counted as a text; the pieces around them exactly', () => {
    const repeated = fc.tuple(fc.constantFrom('a', 'Zq', '-', ' ', '\n', '\r\n', ' \n', '中', '😀', '.,', "'s", 'é', '\u3000'), fc.integer({ min: 200, max: 1400 }))
    const part = fc.oneof(fc.constantFrom(...ASCII_ATOMS, ...UNICODE_ATOMS), repeated.map(([unit, times]) => unit.repeat(times)))
    const text = fc.array(part, { maxLength: 8 }).map(join)
    fc.assert(fc.property(text, (value) => count(value) === chunkedCount(oracles[encoding], encoding, value)), { numRuns: 300, seed: 512 })
  })

  it('counts 1 MB hostile inputs (one letter, spaces, CRLF runs, base64, dotted, contractions, mixed spaces) in chunks', () => {
    const random = createRandom(9)
    const base64 = Array.from({ length: 1 << 20 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(random() * 64)]).join('')
    // ' \u3000' repeated is one whitespace piece the previous tokenizer missed (it looked for runs of ASCII spaces) and
    // gave whole to quadratic BPE: 64 KB took 8 s.
    for (const text of ['a'.repeat(1 << 20), ' '.repeat(1 << 20), '\r\n'.repeat(1 << 19), base64, 'a.'.repeat(1 << 19), "'s".repeat(1 << 19), 'A'.repeat(1 << 20), 'a/'.repeat(1 << 19), ' \u3000'.repeat(1 << 19)]) {
      expect(count(text), text.slice(0, 4)).toBe(chunkedCount(oracles[encoding], encoding, text))
    }
  })

  it('counts short pieces from its cache of recent ones exactly, through collisions and evictions', () => {
    // 30,000 distinct pieces of 3 to 8 bytes (more than the cache's slots), each counted as a text, twice, in two orders.
    const random = createRandom(5)
    const alphabet = 'etaoinshrdlucmfwypvbgkqjxz.,:/_-0123456789é'
    const pieces = Array.from({ length: 30_000 }, () => {
      let piece = random() < 0.5 ? ' ' : ''
      const length = 2 + Math.floor(random() * 6)
      for (let index = 0; index < length; index++) piece += alphabet[Math.floor(random() * alphabet.length)]
      return piece
    })
    const counted = [...pieces, ...pieces.slice().reverse()].map((piece) => count(piece))
    const expected = [...pieces, ...pieces.slice().reverse()].map(truth)
    expect(counted.filter((value, index) => value !== expected[index])).toEqual([])
  })

  it('stays exact after its piece cache is cleared, and a fresh counter agrees', () => {
    const random = createRandom(11)
    const words = Array.from({ length: 80_000 }, () => Array.from({ length: 9 }, () => 'bcdfghjklmnpqrstvwxz'[Math.floor(random() * 20)]).join(''))
    const text = words.join(' ')
    expect(count(text)).toBe(truth(text))
    expect(count(text)).toBe(truth(text))
    expect(createCounter(tables[encoding], encoding)(text)).toBe(truth(text))
  })
})

import fc from 'fast-check'
import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CACHED_PIECE_UNITS, createCounter, type CountFunction } from './_counter.js'
import { buildRankTable, hashBytes, rankOfBytes, type RankTable } from './_rank-table.js'
import type { SplitEncoding } from './_split.js'

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
 * Counts the parts left after byte-pair merging `bytes`, lowest rank first and leftmost among equal ranks, written
 * plainly (strings of bytes, a Map of ranks, a heap of [rank, start] pairs) for pieces too long for tiktoken, whose own
 * loop is quadratic (a 50,000-character piece takes seconds). It is checked against tiktoken below before it is used.
 */
function referenceMerge(ranks: ReadonlyMap<string, number>, bytes: Uint8Array): number {
  const parts = Array.from(bytes, (byte) => String.fromCharCode(byte))
  const next = parts.map((_, index) => index + 1)
  const previous = parts.map((_, index) => index - 1)
  const alive = parts.map(() => true)
  const heap: Array<[number, number]> = []
  const less = (a: [number, number], b: [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])
  const push = (entry: [number, number]) => {
    heap.push(entry)
    for (let index = heap.length - 1; index > 0 && less(heap[index]!, heap[(index - 1) >> 1]!); index = (index - 1) >> 1) {
      ;[heap[index], heap[(index - 1) >> 1]] = [heap[(index - 1) >> 1]!, heap[index]!]
    }
  }
  const pop = (): [number, number] => {
    const top = heap[0]!
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      for (let index = 0; ; ) {
        let smallest = index
        for (const child of [2 * index + 1, 2 * index + 2]) if (child < heap.length && less(heap[child]!, heap[smallest]!)) smallest = child
        if (smallest === index) break
        ;[heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!]
        index = smallest
      }
    }
    return top
  }
  const offer = (start: number) => {
    const after = next[start]!
    if (after >= parts.length) return
    const rank = ranks.get(parts[start]! + parts[after]!)
    if (rank !== undefined) push([rank, start])
  }
  for (let index = 0; index + 1 < parts.length; index++) offer(index)
  let count = parts.length
  while (heap.length > 0) {
    const [rank, start] = pop()
    const after = next[start]!
    // An entry is current only if both parts are still there and still join into that rank.
    if (!alive[start] || after >= parts.length || ranks.get(parts[start]! + parts[after]!) !== rank) continue
    parts[start] += parts[after]!
    alive[after] = false
    next[start] = next[after]!
    if (next[start]! < parts.length) previous[next[start]!] = start
    count--
    offer(start)
    if (previous[start]! !== -1) offer(previous[start]!)
  }
  return count
}

/** Every token's bytes as a string of char codes 0-255, read from tiktoken. */
function ranksOf(oracle: Tiktoken, size: number): Map<string, number> {
  const ranks = new Map<string, number>()
  for (let rank = 0; rank < size; rank++) ranks.set(String.fromCharCode(...oracle.decode_single_token_bytes(rank)), rank)
  return ranks
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

  it('matches tiktoken on long pieces, below, at and past CACHED_PIECE_UNITS (BPE over the whole piece)', () => {
    const random = createRandom(7)
    const letters = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
    for (const length of [20, 100, 257, 400, CACHED_PIECE_UNITS, CACHED_PIECE_UNITS + 1, 1000, 4097]) {
      for (const text of [letters('abcdefghijklmnopqrstuvwxyz', length), letters('中文字符测试数据', length), letters('!#$%&*+-./:;<=>?@^_|~', length), `x${letters('aeiou', length - 1)}`]) {
        expect(count(text), `${length} ${text.slice(0, 8)}`).toBe(truth(text))
      }
    }
  })

  it('counts the long runs the 256-unit chunks got wrong exactly (issue 11: 223 for 179, 9 for 10)', () => {
    for (const text of ['-='.repeat(1410), '.'.repeat(513), '.'.repeat(1025), 'a'.repeat(5000), ' '.repeat(3000) + 'x', '\n'.repeat(2000), 'Zq'.repeat(3000), '中'.repeat(3000)]) {
      expect(count(text), `${text.slice(0, 4)}… (${text.length})`).toBe(truth(text))
    }
  })

  it('counts texts holding runs of 200 to 1400 repeats exactly, and the pieces around them', () => {
    const repeated = fc.tuple(fc.constantFrom('a', 'Zq', '-', '-=', '.', ' ', '\n', '\r\n', ' \n', '中', '😀', '.,', "'s", 'é', '\u3000', '=', '*'), fc.integer({ min: 200, max: 1400 }))
    const part = fc.oneof(fc.constantFrom(...ASCII_ATOMS, ...UNICODE_ATOMS), repeated.map(([unit, times]) => unit.repeat(times)))
    const text = fc.array(part, { maxLength: 8 }).map(join)
    fc.assert(fc.property(text, (value) => count(value) === truth(value)), { numRuns: 150, seed: 512 })
  })

  it("counts hostile pieces past the merger's kept buffers (one letter, spaces, CRLF, dots, mixed spaces) exactly", () => {
    const encoder = new TextEncoder()
    const oracle = oracles[encoding]
    const ranks = ranksOf(oracle, tables[encoding].size)
    // The reference first agrees with tiktoken where tiktoken is fast enough to ask.
    for (const text of ['-='.repeat(1410), '.'.repeat(513), 'a'.repeat(3000), '  \u3000'.repeat(700), 'abc'.repeat(900)]) {
      expect(referenceMerge(ranks, encoder.encode(text)), text.slice(0, 4)).toBe(truth(text))
    }
    // ' \u3000' repeated is one whitespace piece the first tokenizer missed (it looked for runs of ASCII spaces) and
    // gave whole to quadratic BPE: 64 KB took 8 s. Each text here is one piece.
    // 70,000 bytes: more than a counter's kept merge buffers (65,536), so the one-off buffers are used too.
    const size = 20_000
    for (const text of ['a'.repeat(70_000), ' \u3000'.repeat(17_500), ' '.repeat(size), '-='.repeat(size / 2), '.'.repeat(size), 'A'.repeat(size), '\r\n'.repeat(size / 2)]) {
      expect(count(text), text.slice(0, 4)).toBe(referenceMerge(ranks, encoder.encode(text)))
    }
  })

  it('counts 256 KB hostile texts of short pieces (base64, dotted, contractions, slashes) exactly', () => {
    const random = createRandom(9)
    const size = 1 << 18
    const base64 = Array.from({ length: size }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(random() * 64)]).join('')
    for (const text of [base64, 'a.'.repeat(size / 2), "'s".repeat(size / 2), 'a/'.repeat(size / 2)]) {
      expect(count(text), text.slice(0, 4)).toBe(truth(text))
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

  it('tells apart short pieces that share their first four bytes (the cache keys a piece by all of its bytes)', () => {
    // A mutation that compared only bytes 0-3 of a 5-8-byte piece went unnoticed by random text: ` conzlxq` then
    // counted as an earlier ` con….` of its length. Here 20,000 pieces share ` con` and differ after it.
    const random = createRandom(17)
    const words = Array.from({ length: 20_000 }, () => ` con${Array.from({ length: 1 + Math.floor(random() * 4) }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('')}`)
    const counted = words.map((word) => count(word))
    expect(counted.filter((value, index) => value !== truth(words[index]!)).length).toBe(0)
    const text = words.join('')
    expect(count(text)).toBe(truth(text))
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

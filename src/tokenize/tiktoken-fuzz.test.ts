import fc from 'fast-check'
import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, describe, expect, it } from 'vitest'
import { createTokenizer } from './index.js'

// Random text from every script and plane against tiktoken (the oracle: OpenAI's own Rust core, compiled to wasm). The
// generators know nothing of how the counter splits text: they draw code points from all of Unicode and from the
// blocks of the last three Unicode versions, and mix them with punctuation, digits, spaces, contractions and long runs.
const oracles: Record<string, Tiktoken> = { o200k_base: get_encoding('o200k_base'), cl100k_base: get_encoding('cl100k_base') }
afterAll(() => Object.values(oracles).forEach((oracle) => oracle.free()))

/** Code point ranges assigned in Unicode 15.1, 16.0 and 17.0 (from the versions' published deltas). */
const RECENT = [
  // 15.1: ideographic description characters, CJK Extension I.
  [0x2ffc, 0x2fff], [0x31ef, 0x31ef], [0x2ebf0, 0x2ee5d],
  // 16.0: Cyrillic, Garay, Tulu-Tigalari, Kirat Rai, Ol Onal, Latin additions, Egyptian hieroglyphs extended.
  [0x1c89, 0x1c8a], [0xa7cb, 0xa7cd], [0xa7da, 0xa7dc], [0x10d40, 0x10d8f], [0x11380, 0x113ff], [0x16d40, 0x16d79], [0x1e5d0, 0x1e5ff],
  [0x13460, 0x143fa],
  // 17.0: Telugu, Kannada, Arabic, combining marks, Latin, Sidetic, Tolong Siki, Beria Erfe, CJK Extension J.
  [0x0c5c, 0x0c5c], [0x0cdc, 0x0cdc], [0x088f, 0x088f], [0x1acf, 0x1aeb], [0xa7ce, 0xa7d4], [0xa7f1, 0xa7f1], [0x10940, 0x1095f],
  [0x11db0, 0x11def], [0x16ea0, 0x16edf], [0x323b0, 0x3347f],
] as const

const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff).map((cp) => String.fromCodePoint(cp))
const recentCodePoint = fc.constantFrom(...RECENT).chain(([first, last]) => fc.integer({ min: first, max: last })).map((cp) => String.fromCodePoint(cp))
const fromScripts = fc.constantFrom(
  ...'abcxyzABCXYZ', ...'éÉßİıſǅʰªºµ', ...'αβγΣΩάϐ', ...'жЖщЩѐ', ...'عربيةشرق', ...'हिन्दीकि', ...'中文字符', ...'한국어', ...'日本語カタカナ',
  ...'٣١٢٠०१', ...'Ⅻⅻ½²', '\u0301', '\u0300', '\u064b', '\u093f', '😀', '👍🏽', '🇫🇷', '\u200d', '\uFEFF', '\u200b',
)
const punctuation = fc.constantFrom(...'.,;:!?-_=+*/\\|<>()[]{}"#$%&@^`~', '...', '--', '==', '->', '=>', '//', '/*', '—', '–', '…', '«', '»', '“', '”', '’', '→', '✅')
const digits = fc.integer({ min: 1, max: 12 }).chain((length) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: length, maxLength: length }))
const spaces = fc.constantFrom(' ', '  ', '    ', '\t', '\n', '\n\n', '\r\n', ' \n', '\n ', '\u00a0', '\u3000', '\u2028', '\u0085', '\u2003', '\v', '\f')
const contraction = fc.tuple(fc.constantFrom("'", '’'), fc.constantFrom('s', 'S', 'ſ', 't', 'T', 'd', 'm', 'M', 'll', 'LL', 'lL', 'ſſ', 've', 'VE', 're', 'rE', 'x'))
  .map(([quote, letters]) => quote + letters)
const atom = fc.oneof(
  { weight: 3, arbitrary: anyCodePoint },
  { weight: 3, arbitrary: recentCodePoint },
  { weight: 6, arbitrary: fromScripts },
  { weight: 3, arbitrary: punctuation },
  { weight: 2, arbitrary: digits },
  { weight: 3, arbitrary: spaces },
  { weight: 2, arbitrary: contraction },
)
const mixed = fc.array(atom, { maxLength: 30 }).map((atoms) => atoms.join(''))
const run = fc.tuple(fc.oneof(atom, fc.constantFrom('a', '-=', '.', ' ', '中', 'ab1')), fc.integer({ min: 513, max: 4600 }))
  .map(([unit, times]) => unit.repeat(Math.max(1, Math.floor(times / unit.length))))
const withRun = fc.tuple(mixed, run, mixed).map((parts) => parts.join(''))

describe.each(['o200k_base', 'cl100k_base'])('%s against tiktoken', (name) => {
  const truth = (text: string) => oracles[name]!.encode_ordinary(text).length

  it('counts 3,000 random texts of every script, new code points, punctuation, digits, spaces and contractions exactly', async () => {
    const tokenizer = await createTokenizer(name, { memoizeUpTo: 0 })
    fc.assert(fc.property(mixed, (text) => tokenizer.count(text) === truth(text)), { numRuns: 3000, seed: 1117 })
  })

  it('counts 120 texts holding a run of 513 to 4,600 units exactly', async () => {
    const tokenizer = await createTokenizer(name, { memoizeUpTo: 0 })
    fc.assert(fc.property(withRun, (text) => tokenizer.count(text) === truth(text)), { numRuns: 120, seed: 1118 })
  })

  it('counts the texts issue 11 found miscounted exactly', async () => {
    const tokenizer = await createTokenizer(name)
    // U+0C5C and U+10940 are letters since Unicode 17, which tiktoken's tables predate; U+017F folds to s, so o200k
    // reads " I'ſ" as one piece, " I'" one token (3 tokens as two pieces).
    for (const text of ['\u0c5c.a', '\u{10940}.a', 'x\u1ad0.', " I'\u017f", " I'\u017f\u0416", "it'\u017f", "IT'\u017f x", '-='.repeat(1410), '.'.repeat(513)]) {
      expect(tokenizer.count(text), JSON.stringify(text.slice(0, 12))).toBe(truth(text))
    }
  })
})

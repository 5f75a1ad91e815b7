import { get_encoding, type Tiktoken } from 'tiktoken'
import { afterAll, describe, expect, it } from 'vitest'
import { createTokenizer } from './index.js'
import { pieceEndsWithStandIns } from './_split.js'
import { CASED_LOWER_RANGES, CASED_UPPER_RANGES, CONTRACTION_FOLDS, LETTER_RANGES, NUMBER_RANGES, SPACE_RANGES } from './_tiktoken-unicode.js'

// The counter splits non-ASCII text by standing an ASCII character in for each BMP character of the same classes
// (see standInTable in _split.ts). Here every kind of BMP character, grouped by its classes as tiktoken's tables
// give them (data, not the code under test), meets every pattern's neighbours, against tiktoken itself.
const oracles: Record<string, Tiktoken> = { o200k_base: get_encoding('o200k_base'), cl100k_base: get_encoding('cl100k_base') }
afterAll(() => Object.values(oracles).forEach((oracle) => oracle.free()))

function inRanges(ranges: readonly number[], cp: number): boolean {
  for (let index = 0; index < ranges.length; index += 2) if (cp >= ranges[index]! && cp <= ranges[index + 1]!) return true
  return false
}

/** Up to `perGroup` BMP code points of each combination of classes (letter, number, space, cased upper, cased lower), spread over the group. */
function samples(perGroup: number): string[] {
  const groups = new Map<string, number[]>()
  for (let cp = 0x80; cp < 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue
    const key = [LETTER_RANGES, NUMBER_RANGES, SPACE_RANGES, CASED_UPPER_RANGES, CASED_LOWER_RANGES].map((ranges) => (inRanges(ranges, cp) ? 1 : 0)).join('')
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push(cp)
  }
  const chosen: string[] = ['\u017f', '\u212a', '\ufffd', '\ufeff', '\u0085', '\u00a0', '\u2028', '\u3000', '→', '─', '█', '—', 'é', 'É', 'ǅ', 'ʰ', 'ª', '中', '\u0301', '²', 'Ⅻ']
  for (const group of groups.values()) {
    const step = Math.max(1, Math.floor(group.length / perGroup))
    for (let index = 0; index < group.length; index += step) chosen.push(String.fromCharCode(group[index]!))
  }
  return chosen
}

const contexts = (c: string) => [
  `${c}Ab`, `A${c}b`, `Ab${c}`, `ab${c}Cd`, `${c}${c}ab`, `a${c}'s`, `${c}'ll x`, `${c}'S`, ` ${c}x`, `${c} `, `x ${c}`, `1${c}2`, `${c}123`,
  `/${c}/`, `${c}\n\nx`, `  ${c}`, `${c}  y`, `.${c}.`, `中${c}Ab`, `\t${c}\t`, `${c}\r\n`, `x\n${c}`, `${c}${c}${c}`, `=${c}=\n/`,
]

describe.each(['o200k_base', 'cl100k_base'])('%s: non-ASCII characters of every class in every neighbourhood', (name) => {
  it('counts exactly as tiktoken', async () => {
    const tokenizer = await createTokenizer(name, { memoizeUpTo: 0 })
    const oracle = oracles[name]!
    const wrong: string[] = []
    for (const c of samples(12)) {
      for (const text of contexts(c)) {
        if (tokenizer.count(text) !== oracle.encode_ordinary(text).length) wrong.push(`${JSON.stringify(text)} (U+${c.charCodeAt(0).toString(16)})`)
      }
    }
    expect(wrong.slice(0, 10)).toEqual([])
  })
})

// The pieces themselves, against tiktoken's split patterns written out here from their published text, with the
// classes from tiktoken's Unicode tables (data): two splits can give equal counts, equal pieces cannot differ.
function cls(ranges: readonly number[]): string {
  let body = ''
  for (let index = 0; index < ranges.length; index += 2) body += `\\u{${ranges[index]!.toString(16)}}-\\u{${ranges[index + 1]!.toString(16)}}`
  return body
}
const [L, N, UP, LO, WS] = [LETTER_RANGES, NUMBER_RANGES, CASED_UPPER_RANGES, CASED_LOWER_RANGES, SPACE_RANGES].map(cls)
const fold = (letter: string) => `[${letter}${letter.toUpperCase()}${(CONTRACTION_FOLDS[letter] ?? []).map((cp) => `\\u{${cp.toString(16)}}`).join('')}]`
const C = `'(?:${['s', 'd', 'm', 't', 'll', 've', 're'].map((letters) => [...letters].map(fold).join('')).join('|')})`
const PATTERNS: Record<string, RegExp> = {
  o200k_base: new RegExp(`[^\\r\\n${L}${N}]?[${UP}]*[${LO}]+(?:${C})?|[^\\r\\n${L}${N}]?[${UP}]+[${LO}]*(?:${C})?|[${N}]{1,3}| ?[^${WS}${L}${N}]+[\\r\\n/]*|[${WS}]*[\\r\\n]+|[${WS}]+(?![^${WS}])|[${WS}]+`, 'gu'),
  cl100k_base: new RegExp(`${C}|[^\\r\\n${L}${N}]?[${L}]+|[${N}]{1,3}| ?[^${WS}${L}${N}]+[\\r\\n]*|[${WS}]+$|[${WS}]*[\\r\\n]|[${WS}]+(?![^${WS}])|[${WS}]`, 'gu'),
}

describe.each(['o200k_base', 'cl100k_base'])('%s: pieces through stand-ins', (name) => {
  it('are the split pattern\'s pieces for every kind of BMP character in every neighbourhood', () => {
    const wrong: string[] = []
    for (const c of samples(12)) {
      for (const text of contexts(c)) {
        const expected = [...text.matchAll(PATTERNS[name]!)].map((match) => match.index + match[0].length)
        if (pieceEndsWithStandIns(text, name as 'o200k_base').join() !== expected.join()) wrong.push(`${JSON.stringify(text)} (U+${c.charCodeAt(0).toString(16)})`)
      }
    }
    expect(wrong.slice(0, 10)).toEqual([])
  })
})

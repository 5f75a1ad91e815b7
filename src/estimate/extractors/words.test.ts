import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { wordFlags } from './_flags.js'
import { trimmedEnd } from './_scan.js'
import { COMPARATORS, comparatorsEndingWith, flagPhrases, isKeyAt, isKeyGap, isPlainNumberAt, isUnitWord, KEY, KEY_GAP, LONG_FLAG, PLAIN_NUMBER, SHORT_FLAG, UNIT_WORDS } from './words.js'

/** Strings over `alphabet`, in a text with a unit on either side (the readers must stay inside their range). */
const inContext = (alphabet: readonly string[], maxLength = 12) =>
  fc.tuple(fc.array(fc.constantFrom(...alphabet), { maxLength }), fc.constantFrom('', 'x', ' ', '9')).map(([units, around]) => ({ word: units.join(''), text: around + units.join('') + around, start: around.length }))

// Units words of those sets hold, with capitals and what lowercases to ASCII (the Kelvin sign).
const letters = [...new Set([...UNIT_WORDS, ...COMPARATORS.flat()].join(''))]
const wordArb = fc.oneof(
  inContext([...letters, 'S', 'M', 'K', '\u212a', 'é', '%']),
  fc.tuple(fc.constantFrom(...UNIT_WORDS, ...COMPARATORS.flat()), fc.array(fc.boolean(), { maxLength: 12 }), fc.constantFrom('', ' ')).map(([word, upper, around]) => {
    const cased = [...word].map((unit, index) => (upper[index] ? unit.toUpperCase() : unit)).join('')
    return { word: cased, text: around + cased + around, start: around.length }
  }),
)

describe('in-place word readers agree with the patterns and sets they stand for', () => {
  it('plain numbers', () => {
    fc.assert(
      fc.property(inContext(['1', '0', '.', ',', 'e', 'E', '+', '-', 'x']), ({ word, text, start }) => {
        fc.pre(word.length > 0)
        expect(isPlainNumberAt(text, start, start + word.length)).toBe(PLAIN_NUMBER.test(word))
      }),
      { numRuns: 3000, seed: 21 },
    )
  })

  it('the gap between a key and its number', () => {
    fc.assert(
      fc.property(inContext(['"', "'", ' ', ':', '=', '\t', '\u00a0', '\u0085', '\ufeff', 'x']), ({ word, text, start }) => {
        expect(isKeyGap(text, start, start + word.length)).toBe(KEY_GAP.test(word))
      }),
      { numRuns: 3000, seed: 22 },
    )
  })

  it('keys', () => {
    fc.assert(
      fc.property(inContext(['a', 'Z', '_', '1', '.', '-', 'é', ':', '/']), ({ word, text, start }) => {
        fc.pre(word.length > 0)
        expect(isKeyAt(text, start, wordFlags(text, start, start + word.length))).toBe(KEY.test(word))
      }),
      { numRuns: 3000, seed: 23 },
    )
  })

  it('flags', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('-', 'a', 'Z', '_', '1', '=', '.', 'é'), { minLength: 1, maxLength: 8 }), (units) => {
        // A flag before a number: a phrase exactly when the word is a flag.
        const flag = units.join('')
        const text = `${flag} 5`
        const found = flagPhrases(text, [0, flag.length + 1], [flag.length, text.length], [wordFlags(text, 0, flag.length), wordFlags(text, flag.length + 1, text.length)], 2, [])
        expect(found).toBe(LONG_FLAG.test(flag) || SHORT_FLAG.test(flag) ? 1 : 0)
      }),
      { numRuns: 3000, seed: 27 },
    )
  })

  it('unit words and the comparators a word ends', () => {
    fc.assert(
      fc.property(wordArb, ({ word, text, start }) => {
        const lowered = word.toLowerCase()
        expect(isUnitWord(text, start, start + word.length)).toBe(UNIT_WORDS.has(lowered))
        const ending = COMPARATORS.filter((comparator) => comparator[comparator.length - 1] === lowered)
        expect(comparatorsEndingWith(text, start, start + word.length) ?? []).toEqual(ending)
      }),
      { numRuns: 3000, seed: 24 },
    )
  })
})

describe('trimming a word', () => {
  /** Where the word's trailing punctuation (the ASCII part of the scanner's set) starts. */
  const trailStart = (word: string) => {
    let trail = word.length
    while (trail > 0 && ')]}>,;:.!?"\'`*'.includes(word[trail - 1]!)) trail--
    return trail
  }

  it("keeps the trailing `)` that closes a `(` of the word, and no other", () => {
    // The reference: strip trailing punctuation from the right until a `)` that a stack walk of the word matches.
    const reference = (word: string) => {
      const trail = trailStart(word)
      const matched: boolean[] = []
      const stack: number[] = []
      for (let index = 0; index < word.length; index++) {
        if (word[index] === '(') stack.push(index)
        else if (word[index] === ')') matched[index] = stack.pop() !== undefined
      }
      let end = trail
      for (let index = trail; index < word.length; index++) if (word[index] === ')' && matched[index]) end = index + 1
      return end
    }
    fc.assert(
      fc.property(fc.array(fc.constantFrom('(', ')', 'a', '.', ']', ','), { minLength: 1, maxLength: 12 }), (units) => {
        const word = units.join('')
        const trail = trailStart(word)
        expect(trimmedEnd(` ${word} `, 1, 1 + trail, 1 + word.length) - 1).toBe(reference(word))
      }),
      { numRuns: 3000, seed: 26 },
    )
  })
})


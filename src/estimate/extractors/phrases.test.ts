import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CUE_PHRASES, ERROR_HINT_PHRASES, ERROR_PHRASES, findPhrases } from './_phrases.js'

// The automaton replaces two case-insensitive regex passes; these are the passes it must agree with.
const HINTS = new RegExp(ERROR_HINT_PHRASES.join('|'), 'gi')
const CUES = new RegExp(`\\b(?:${CUE_PHRASES.join('|')})\\b`, 'gi')
const starts = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].map((match) => match.index)

/** Sentences as constraintSpans cuts them: at `.`, `!` or `?` before whitespace, and at line ends. */
function sentences(text: string): Array<[number, number]> {
  const bounds: Array<[number, number]> = []
  let start = 0
  for (let index = 0; index <= text.length; index++) {
    const code = text.charCodeAt(index)
    const ends = index === text.length || code === 10 || ((code === 46 || code === 33 || code === 63) && /\s/.test(text[index + 1] ?? ' '))
    if (!ends) continue
    bounds.push([start, index + 1])
    start = index + 1
  }
  return bounds
}

// Pieces that make phrases, near-misses and boundaries likely.
const pieces = [
  'error', 'Error', 'ERROR', 'rror', 'OSError:', 'err!', 'ERR:', 'errno', 'Errno', 'fail', 'FAILED', 'not found', 'NOT FOUND', 'not',
  'found', 'timed out', 'out of memory', 'timed out of memory', '<tool_use_error>', 'killed', 'skilled', 'no such', 'no space',
  'must', 'MUST', 'mustard', 'only', 'read-only', 'do not', 'Do Not', "don't", "DON'T", 'dont', 'does not', "doesn't", 'require',
  'required', 'requires', 'requirement', 'at most', 'at least', 'no more than', 'no fewer than', 'under no circumstances', 'make sure',
  'cannot', "can't", 'cannot find', 'command not found', 'Permission denied', 'no such file or directory', 'syntax error',
  'is not defined', 'module not found', 'never', 'always', 'exactly', 'ensure', 'x', '_', '9', ' ', '  ', '\n', '. ', '! ', '?', ',', "'",
  '-', 'é', 'K', 'İ', '\u212A', 'ſ', '😀', '\t',
]
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join(''))

describe('findPhrases', () => {
  it('reports every start the hint regex finds, and only real occurrences besides', () => {
    fc.assert(
      fc.property(text, (input) => {
        const found = findPhrases(input, false).hints
        const expected = starts(HINTS, input)
        expect(expected.filter((start) => !found.includes(start))).toEqual([])
        for (const start of found) {
          const sticky = new RegExp(ERROR_HINT_PHRASES.join('|'), 'iy')
          sticky.lastIndex = start
          expect(sticky.test(input), `${JSON.stringify(input)} at ${start}`).toBe(true)
        }
        expect(found).toEqual([...found].sort((a, b) => a - b))
      }),
      { numRuns: 2000, seed: 20261202 },
    )
  })

  it('finds a cue in exactly the sentences where the cue regex matches', () => {
    fc.assert(
      fc.property(text, (input) => {
        const found = findPhrases(input, true).cues
        const expected = starts(CUES, input)
        for (const [start, end] of sentences(input)) {
          const inside = (offset: number) => offset >= start && offset < end
          expect(found.some(inside), `${JSON.stringify(input.slice(start, end))}`).toBe(expected.some(inside))
        }
        expect(found).toEqual([...found].sort((a, b) => a - b))
      }),
      { numRuns: 2000, seed: 7 },
    )
  })

  it('finds an error phrase in exactly the ASCII lines the phrase regex matches', () => {
    const phrase = new RegExp(ERROR_PHRASES.join('|'), 'i')
    fc.assert(
      fc.property(text, (input) => {
        const found = findPhrases(input, false).errors
        let start = 0
        for (const line of input.split('\n')) {
          const end = start + line.length
          // Non-ASCII lines are lowercased before the phrase test instead (see errorAnchor).
          if (/^[\x00-\x7f]*$/.test(line)) expect(found.some((offset) => offset >= start && offset < end), JSON.stringify(line)).toBe(phrase.test(line))
          start = end + 1
        }
      }),
      { numRuns: 2000, seed: 11 },
    )
  })

  it('finds phrases in any case and never across a non-ASCII unit', () => {
    expect(findPhrases('OSError: x', false).hints).toEqual([3])
    expect(findPhrases('<tool_use_error>', false).hints).toEqual([0, 11])
    expect(findPhrases('You MUST not; read-only.', true).cues).toEqual([4, 19])
    expect(findPhrases('mustard', true).cues).toEqual([])
    // The Kelvin sign lowercases to `k`, but a case-insensitive regex without `u` does not pair it with `k`.
    expect(findPhrases('\u212Ailled', false).hints).toEqual([])
    expect(findPhrases('', true)).toEqual({ hints: [], cues: [], errors: [], examples: [] })
    // Example cues at a word start, in any case, with or without constraint cues.
    expect(findPhrases('Tools, Such as grep (e.g. rg); sucH AS x; unsuch as y', false).examples).toEqual([7, 21, 31])
    expect(findPhrases('-bash: rsync: Command Not Found', false).errors).toEqual([14, 22])
  })
})

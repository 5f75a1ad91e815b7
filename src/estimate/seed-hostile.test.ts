import { describe, expect, it } from 'vitest'
import { hostileCases } from './__fixtures__/seed-texts.js'
import { seedEstimateText } from './seed.js'

// The reference needs ~22 s in Python for 100k characters of `a.a.a.`; these are 1 MB each. Results are
// asserted, never times: the numbers are derived by hand in hostileCases() and checked against Python
// at 2,000 characters by seed-parity.test.ts. (Times are measured by bench/, not here.)
const SIZE = 1 << 20

describe('seed on hostile 1 MB inputs', () => {
  for (const entry of hostileCases(SIZE)) {
    it(`${entry.name}: irreducible ${entry.irreducible}`, () => {
      expect(entry.text.length).toBe(SIZE)
      const result = seedEstimateText(entry.text)
      expect(result.irreducible).toBe(entry.irreducible)
      expect(result.margin).toBe(Math.trunc(entry.irreducible * 0.2))
    })
  }

  it('prices a 1 MB astral run by code points, not UTF-16 units', () => {
    // 2^19 copies of MATHEMATICAL DOUBLE-STRUCK DIGIT ZERO (Nd, astral): one number of 2^19 code points.
    const result = seedEstimateText('𝟘'.repeat(SIZE / 2))
    expect(result.spans).toHaveLength(1)
    expect(result.spans[0]).toMatchObject({ pattern: 'number', start: 0, end: SIZE, tokens: SIZE / 8 })
  })

  it('finds the one path at the end of 1 MB of dotted run', () => {
    const text = `${'a.'.repeat(SIZE / 2 - 2)}a/b`
    const result = seedEstimateText(text)
    expect(result.spans.map((span) => [span.pattern, span.start, span.end])).toEqual([['path', 0, text.length]])
    expect(result.irreducible).toBe(Math.floor(text.length / 4))
  })

  it('pairs each quote with the next one across 1 MB of lines', () => {
    // `"x\n"` repeated: every match is the same 4-character span, counted once.
    const result = seedEstimateText('"x\n'.repeat(SIZE / 4))
    expect(result.spans.map((span) => span.text)).toEqual(['"x\n"'])
    expect(result.irreducible).toBe(1)
  })

  it('counts one cue among 1 MB of near-misses', () => {
    const result = seedEstimateText(`${'mus do no nev alway exactl onl '.repeat(SIZE / 32)}ONLY`)
    expect(result.spans.filter((span) => span.pattern === 'cue').map((span) => span.text)).toEqual(['only'])
    expect(result.irreducible).toBe(1 + 8)
  })
})

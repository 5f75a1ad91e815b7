import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findPhrases } from './_phrases.js'
import { RecentLines, RepeatedLines } from './_repeated-lines.js'

const linesOf = (text: string) => {
  const repeated = new RepeatedLines(new RecentLines())
  findPhrases(text, true, repeated)
  return Array.from({ length: repeated.count }, (_, index) => [repeated.starts[index]!, repeated.ends[index]!] as const)
}

describe('repeated lines', () => {
  it('reports the lines of twelve units or more that repeat an earlier line, by their offsets', () => {
    const text = 'Traceback (most recent call last):\n    fh.write(buf)\nshort\nshort\n    fh.write(buf)\r\nTraceback (most recent call last):'
    const found = linesOf(text).map(([start, end]) => text.slice(start, end))
    expect(found).toEqual(['Traceback (most recent call last):'])
    expect(linesOf('x'.repeat(12) + '\n' + 'x'.repeat(12))).toEqual([[13, 25]])
  })

  it('never reports a line that does not repeat an earlier one, and reports them in order', () => {
    // Lines from a few near-identical ones: one unit apart, which a lookup by a few units cannot tell apart.
    const lineArb = fc.tuple(fc.constantFrom('retry at most 3 times', 'OSError: [Errno 28] /var/x', 'é'.repeat(13)), fc.nat(30), fc.constantFrom('', '7', 'x', '\r'))
      .map(([line, at, unit]) => line.slice(0, at) + unit + line.slice(at + unit.length))
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 40 }), (lines) => {
        const text = lines.join('\n')
        const found = linesOf(text)
        for (let index = 0; index < found.length; index++) {
          const [start, end] = found[index]!
          if (index > 0) expect(start).toBeGreaterThan(found[index - 1]![1])
          const before = text.slice(0, start).split('\n').slice(0, -1)
          expect(before).toContain(text.slice(start, end))
          expect(text[end] ?? '\n').toBe('\n')
          expect(start === 0 || text[start - 1] === '\n').toBe(true)
        }
      }),
      { numRuns: 300, seed: 11 },
    )
  })
})

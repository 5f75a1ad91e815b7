import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { collapseWarnings } from './_warnings.js'

describe('collapseWarnings', () => {
  it('lists each kind’s first three and counts the rest; kinds differ by more than their numbers', () => {
    const skipped = Array.from({ length: 9 }, (_, index) => `f.json: /messages/${index}: role "x" kept aside`)
    const other = ['f.json:12: a line skipped', 'f.json:13: a line skipped']
    expect(collapseWarnings([...skipped.slice(0, 2), ...other, ...skipped.slice(2)])).toEqual([...skipped.slice(0, 3), 'and 6 more like the one above', ...other])
    expect(collapseWarnings(skipped.slice(0, 4))).toEqual(skipped.slice(0, 4))
  })

  it('keeps every warning of a kind of four or fewer, and never loses a count', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(50)), { maxLength: 40 }), (pairs) => {
        const warnings = pairs.map(([kind, line]) => `f:${line}: ${kind}`)
        const out = collapseWarnings(warnings)
        // Oracle: count per kind by its letter, written again plainly.
        let total = 0
        for (const entry of out) {
          const more = /^and (\d+) more like the one above$/.exec(entry)
          total += more ? Number(more[1]) : 1
        }
        expect(total).toBe(warnings.length)
        for (const kind of ['a', 'b', 'c']) {
          const count = warnings.filter((warning) => warning.endsWith(`: ${kind}`)).length
          const shown = out.filter((entry) => entry.endsWith(`: ${kind}`)).length
          expect(shown).toBe(count <= 4 ? count : 3)
        }
      }),
    )
  })
})

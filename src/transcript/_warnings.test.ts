import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { collapseWarnings } from './_warnings.js'

describe('collapseWarnings', () => {
  it('lists each kind’s first three, then one line naming where the others are; kinds differ by more than their numbers', () => {
    const skipped = Array.from({ length: 9 }, (_, index) => `f2.json: /messages/${index}: role "x" kept aside`)
    const other = ['f.json:12: a line skipped', 'f.json:13: a line skipped']
    expect(collapseWarnings([...skipped.slice(0, 2), ...other, ...skipped.slice(2)])).toEqual([...skipped.slice(0, 3), 'and 6 more like the one above, at 3, 4, 5, 6, 7, 8', ...other])
    expect(collapseWarnings(skipped.slice(0, 4))).toEqual(skipped.slice(0, 4))
  })

  it('property: every warning is shown or named by its numbers, and the counts add up', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(50)), { maxLength: 40 }), (pairs) => {
        const warnings = pairs.map(([kind, line]) => `f:${line}: ${kind}`)
        const out = collapseWarnings(warnings)
        // Oracle: per kind (its letter), the lines of the warnings not shown, written again plainly.
        let total = 0
        for (const entry of out) {
          const more = /^and (\d+) more like the one above/.exec(entry)
          total += more ? Number(more[1]) : 1
        }
        expect(total).toBe(warnings.length)
        for (const kind of ['a', 'b', 'c']) {
          const lines = warnings.filter((warning) => warning.endsWith(`: ${kind}`)).map((warning) => warning.split(':')[1]!)
          const shown = out.filter((entry) => entry.endsWith(`: ${kind}`)).length
          expect(shown).toBe(lines.length <= 4 ? lines.length : 3)
          if (lines.length > 4) {
            const hidden = lines.slice(3)
            const named = out.find((entry) => entry.startsWith(`and ${hidden.length} more`) && out[out.indexOf(entry) - 1]!.endsWith(`: ${kind}`))!
            // All equal to the first: nothing sets them apart, so no list; else each hidden warning's line, in order.
            if (hidden.every((line) => line === lines[0])) expect(named).toBe(`and ${hidden.length} more like the one above`)
            else expect(named).toBe(`and ${hidden.length} more like the one above, at ${hidden.join(', ')}`)
          }
        }
      }),
    )
  })
})

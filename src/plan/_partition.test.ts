import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { fewestParts, fewestTokens, type PartitionProblem } from './_partition.js'

/** Random problems: blocks of item ids drawn from a small pool (so items repeat across blocks). */
const problemArbitrary = fc
  .record({
    weights: fc.array(fc.integer({ min: 0, max: 90 }), { minLength: 1, maxLength: 10 }),
    blocks: fc.array(fc.array(fc.nat(9), { maxLength: 4 }), { minLength: 1, maxLength: 10 }),
    slot: fc.integer({ min: 1, max: 400 }),
    marginRatio: fc.constantFrom(0, 0.2, 0.25),
    marginRounding: fc.constantFrom('ceil' as const, 'floor' as const),
    slotRounding: fc.constantFrom(1, 7, 50),
    penalties: fc.array(fc.boolean(), { minLength: 11, maxLength: 11 }),
  })
  .map(({ weights, blocks, slot, marginRatio, marginRounding, slotRounding, penalties }): PartitionProblem => {
    const itemStarts = new Int32Array(blocks.length + 1)
    const itemIds: number[] = []
    blocks.forEach((ids, index) => {
      itemStarts[index] = itemIds.length
      for (const id of new Set(ids.map((id) => id % weights.length))) itemIds.push(id)
    })
    itemStarts[blocks.length] = itemIds.length
    return {
      blocks: blocks.length,
      itemStarts,
      itemIds: Int32Array.from(itemIds),
      weights: Float64Array.from(weights),
      slot,
      marginRatio,
      marginRounding,
      slotRounding,
      cutPenalty: Uint8Array.from(penalties.slice(0, blocks.length + 1).map(Number)),
    }
  })

/**
 * The oracle's own arithmetic (nothing imported from the code it checks): a part's floor is its distinct items'
 * weights plus the margin, the margin rounded the problem's way; its slot is the floor rounded up to a multiple of
 * slotRounding (at least one step), at most the slot.
 */
function partFloor(problem: PartitionProblem, from: number, to: number): number {
  const ids = new Set<number>()
  for (let b = from; b < to; b++) for (let k = problem.itemStarts[b]!; k < problem.itemStarts[b + 1]!; k++) ids.add(problem.itemIds[k]!)
  let irreducible = 0
  for (const id of ids) irreducible += problem.weights[id]!
  const exactMargin = irreducible * problem.marginRatio
  let margin = Math.trunc(exactMargin)
  if (problem.marginRounding === 'ceil' && margin < exactMargin) margin += 1
  return irreducible + margin
}

function partSlotOf(problem: PartitionProblem, floor: number): number {
  let slot = problem.slotRounding
  while (slot < floor) slot += problem.slotRounding
  return slot < problem.slot ? slot : problem.slot
}

/** Every partition that fits, with [parts, summary tokens, penalty, cuts]. */
function brute(problem: PartitionProblem) {
  const m = problem.blocks
  const out: Array<{ parts: number; summary: number; penalty: number; cuts: number[] }> = []
  for (let mask = 0; mask < 1 << (m - 1); mask++) {
    const cuts = [0]
    for (let b = 1; b < m; b++) if (mask & (1 << (b - 1))) cuts.push(b)
    cuts.push(m)
    let summary = 0
    let fits = true
    for (let i = 0; i + 1 < cuts.length; i++) {
      const floor = partFloor(problem, cuts[i]!, cuts[i + 1]!)
      if (floor > problem.slot) fits = false
      summary += partSlotOf(problem, floor)
    }
    const penalty = cuts.slice(1, -1).reduce((sum, cut) => sum + problem.cutPenalty[cut]!, 0)
    if (fits) out.push({ parts: cuts.length - 1, summary, penalty, cuts })
  }
  return out
}

const lexicographic = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

describe('partition search', () => {
  test('fewestParts matches brute force, with both layer strategies (fewest parts, tokens, penalty, then earliest cuts from the end)', () => {
    fc.assert(
      fc.property(problemArbitrary, (problem) => {
        const all = brute(problem)
        for (const strategy of ['enumerate', 'sweep'] as const) {
          const found = fewestParts({ ...problem, strategy })
          if (all.length === 0) {
            expect(found).toBeUndefined()
            continue
          }
          const best = all.reduce((a, b) => (lexicographic([a.parts, a.summary, a.penalty, ...a.cuts.toReversed()], [b.parts, b.summary, b.penalty, ...b.cuts.toReversed()]) <= 0 ? a : b))
          expect(found?.cuts).toEqual(best.cuts)
          expect(found?.summaryTokens).toBe(best.summary)
        }
      }),
      { numRuns: 300, seed: 412 },
    )
  })

  test('fewestTokens finds the cheapest partition of any size (then fewest parts, penalty, earliest cuts), both strategies', () => {
    fc.assert(
      fc.property(problemArbitrary, (problem) => {
        const all = brute(problem)
        for (const strategy of ['enumerate', 'sweep'] as const) {
          const found = fewestTokens({ ...problem, strategy })
          if (all.length === 0) {
            expect(found).toBeUndefined()
            continue
          }
          const best = all.reduce((a, b) => (lexicographic([a.summary, a.parts, a.penalty, ...a.cuts.toReversed()], [b.summary, b.parts, b.penalty, ...b.cuts.toReversed()]) <= 0 ? a : b))
          expect([found?.summaryTokens, found?.cuts]).toEqual([best.summary, best.cuts])
        }
      }),
      { numRuns: 300, seed: 2340 },
    )
  })
})

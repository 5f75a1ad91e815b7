import { describe, expect, test } from 'vitest'
import { FloorguardError } from '../errors.js'
import type { Message } from '../spec/transcript.js'
import { assistant, call, charsTokenizer, createTestEstimator, result, user } from './__fixtures__/test-estimator.js'
import { pairToolCalls, renderMessage } from '../transcript/render.js'
import { createErrorFixLinker } from './error-fix.js'
import { createSyntheticSegment } from './__fixtures__/synthetic.js'
import { CompactionFloorError } from './compaction-floor-error.js'
import { planCompaction, planCompactionOrThrow } from './plan.js'
import type { PlanOptions, PlanSegment, Refusal, SplitPlan } from './types.js'

const estimator = createTestEstimator()
const filler = ' and then we talked about the weather for a while'.repeat(20)
const plan = (messages: readonly Message[], options: PlanOptions, extra: Partial<PlanSegment> = {}) =>
  planCompaction({ messages, estimator, tokenizer: charsTokenizer, ...extra }, options)

/** Two user turns; the first turn's TOKEN1 is repeated in the second, so both halves need it. */
function twoTurns(): Message[] {
  const half = (turn: number, shared: string) => [
    user(`${shared} turn ${turn}${filler}`),
    assistant(`TOKEN${turn}01x200${filler}`, call(`c${turn}`, 'bash', { command: 'ls' })),
    result(`c${turn}`, `TOKEN${turn}02x200${filler}`),
    assistant(`TOKEN${turn}03x225 ${shared}${filler}`),
    assistant(`ok TOKEN${turn}04x100${filler}`),
    assistant(`TOKEN${turn}05x100 ${shared}${filler}`),
  ]
  return [...half(1, 'TOKEN1x300'), ...half(2, 'TOKEN1x300')]
}

describe('planCompaction: compact', () => {
  test('compacts when the slot holds the floor', () => {
    const messages = [user(`TOKEN1x100${filler}`), assistant(`TOKEN2x50${filler}`)]
    const result = plan(messages, { slot: 180 })
    expect(result).toMatchObject({ kind: 'compact', range: [0, 2], floor: { irreducible: 150, margin: 30, total: 180 }, slot: 180, guard: 'on' })
    expect(plan(messages, { slot: 179 }).kind).not.toBe('compact')
  })

  test('a narrative-only segment compacts into a small slot (no spurious refusal)', () => {
    const messages = Array.from({ length: 200 }, (_, index) => (index % 2 ? assistant(filler) : user(filler)))
    expect(plan(messages, { slot: 50 })).toMatchObject({ kind: 'compact', floor: { total: 0 }, slot: 50 })
  })

  test('an empty segment compacts', () => {
    expect(plan([], { slot: 0 }, { offset: 7 })).toMatchObject({ kind: 'compact', range: [7, 7], floor: { total: 0 }, tokens: 0 })
  })

  test('ranges are transcript indices', () => {
    expect(plan([user('TOKEN1x5')], { slot: 10 }, { offset: 40 }).range).toEqual([40, 41])
  })
})

describe('planCompaction: split', () => {
  test("reproduces the record's turn 412: floor 2,340 vs slot 2,000 becomes two 1,400-token slots", () => {
    const result = plan(twoTurns(), { slot: 2000 }) as SplitPlan
    expect(result.kind).toBe('split')
    expect(result.floor).toEqual({ irreducible: 1950, margin: 390, total: 2340 })
    expect(result.parts.map((part) => [part.range, part.floor, part.slot])).toEqual([
      [[0, 6], 1350, 1400],
      [[6, 12], 1350, 1400],
    ])
    expect(result.summaryTokens).toBe(2800)
    expect(result.frees).toBe(result.tokens - 2800)
    expect(result.optimal).toBe('fewest-parts')
  })

  test('part slots are rounded up to slotRounding, never above the slot', () => {
    const result = plan(twoTurns(), { slot: 2000, slotRounding: 1 }) as SplitPlan
    expect(result.parts.map((part) => part.slot)).toEqual([1350, 1350])
    const capped = plan(twoTurns(), { slot: 1390, slotRounding: 1000 }) as SplitPlan
    expect(capped.parts.every((part) => part.slot === 1390)).toBe(true)
  })

  test('prefers fewer summary tokens over cuts at user turns, and user turns over earlier cuts', () => {
    // Items of 400 each, slot 1500: fewest parts is 2, and every cut costs 1,920 summary tokens.
    const messages = [user('TOKEN1x400'), assistant('TOKEN2x400'), user('TOKEN3x400'), assistant('TOKEN4x400')]
    const result = plan(messages, { slot: 1500, slotRounding: 1, budget: 10_000 }) as SplitPlan
    expect(result.parts.map((part) => part.range)).toEqual([
      [0, 2],
      [2, 4],
    ])
    expect(result.summaryTokens).toBe(1920)
    // An item shared by messages 1 and 2 makes the cut between them the dearer one.
    const shared = [user('TOKEN1x600'), assistant('TOKEN2x500 TOKEN9x100'), user('TOKEN3x400 TOKEN9x100'), assistant('TOKEN4x200')]
    const cheaper = plan(shared, { slot: 1500, slotRounding: 1, budget: 10_000 }) as SplitPlan
    expect(cheaper.parts.map((part) => part.range)).toEqual([
      [0, 1],
      [1, 4],
    ])
  })

  test('parts carry their must-keep items, and superseded values are marked', () => {
    const messages = [
      user(`pin TOKEN1x900 requests==2.31.0${filler}`),
      assistant(`done${filler}`),
      user(`TOKEN2x900 revert to requests==2.30.0${filler}`),
    ]
    const result = plan(messages, { slot: 1100, linkSuperseded: false, budget: 10_000 }) as SplitPlan
    expect(result.kind).toBe('split')
    expect(result.state.map((entry) => [entry.value, entry.status])).toEqual([
      ['==2.31.0', 'superseded'],
      ['==2.30.0', 'current'],
    ])
    expect(result.parts[0]?.state[0]).toMatchObject({ key: 'pin:requests', status: 'superseded', supersededBy: { message: 2, value: '==2.30.0' } })
    expect(result.parts.flatMap((part) => part.items.map((item) => [item.text, item.status]))).toEqual([
      ['TOKEN1x900', 'current'],
      ['TOKEN2x900', 'current'],
    ])
  })
})

describe('planCompaction: causal units', () => {
  test('never cuts a tool call from its result: a pair too big for the slot refuses', () => {
    const long = filler.repeat(4)
    const messages = [user(`go${long}`), assistant(`TOKEN1x800${long}`, call('a', 'read', { path: 'x' })), result('a', `TOKEN2x800${long}`)]
    const refusal = plan(messages, { slot: 1500 }) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'would-cut-unit', floor: { total: 1920 }, slot: 1500 })
    expect(refusal.units).toEqual([expect.objectContaining({ kind: 'tool-pair', range: [1, 3], floor: 1920 })])
    expect(refusal.units[0]?.items.map((item) => item.text)).toEqual(['TOKEN1x800', 'TOKEN2x800'])
    expect(refusal.options).toContainEqual({ kind: 'raise-slot', slot: 1920 })
    expect(refusal.options).toContainEqual({ kind: 'accept-risk', shortfall: 420 })
  })

  test('a single message over the slot is unit-exceeds-slot, with a range that can be compacted instead', () => {
    const messages = [user(`TOKEN1x10${filler}`), assistant(`more${filler}`), user(`TOKEN2x3000${filler}`), assistant(`TOKEN3x10${filler}`)]
    const refusal = plan(messages, { slot: 2000, budget: 100_000 }) as Refusal
    expect(refusal.reason).toBe('unit-exceeds-slot')
    expect(refusal.units.map((unit) => [unit.kind, unit.range, unit.floor])).toEqual([['message', [2, 3], 3600]])
    // At 3,600 the segment splits into three parts (100 + 3,600 + 100 summary tokens).
    expect(refusal.options[0]).toEqual({ kind: 'raise-slot', slot: 3600 })
    const before = charsTokenizer.count(renderMessage(messages[0]!).text) + charsTokenizer.count(renderMessage(messages[1]!).text)
    expect(refusal.options).toContainEqual({ kind: 'compact-range', range: [0, 2], slot: 100, frees: before - 100, reason: 'the messages before the unit at 2' })
    expect(refusal.options.at(-1)).toEqual({ kind: 'accept-risk', shortfall: 1624 })
  })

  test('offers no risk to accept when the floor is within the slot (a re-test: "0 floor tokens will not fit")', () => {
    // A range that cuts a tool call from its result: refused for the cut, with a floor well within the slot.
    const messages = [user(`go${filler}`), assistant(`TOKEN1x40${filler}`, call('a', 'read', { path: 'x' })), result('a', `TOKEN2x40${filler}`)]
    const refusal = plan(messages.slice(0, 2), { slot: 2000 }, { pairs: pairToolCalls(messages).pairs }) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'range-cuts-unit' })
    expect(refusal.floor.total).toBeLessThanOrEqual(2000)
    expect(refusal.options.filter((option) => option.kind === 'accept-risk')).toEqual([])
  })

  test('an error and the fix that followed stay in one summary', () => {
    const messages = [
      assistant('', call('a', 'bash', { command: 'npm test' })),
      result('a', 'Error: TOKEN1x700 EACCES /srv/app'),
      assistant('', call('b', 'bash', { command: 'npm test' })),
      result('b', 'TOKEN2x700 all passing'),
      user(`thanks${filler}`),
    ]
    const refusal = plan(messages, { slot: 1000 }) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'would-cut-unit' })
    expect(refusal.units[0]).toMatchObject({ kind: 'error-fix', range: [0, 4] })
    // Without the error linker the same segment splits between the two pairs.
    expect(plan(messages, { slot: 1000, linkers: [], budget: 10_000 }).kind).toBe('split')
  })

  test('the error→fix unit ends exactly after the fixing result: the plan cuts there, not one message off', () => {
    const messages = [
      assistant('', call('a', 'bash', { command: 'npm test' })),
      result('a', 'Error: TOKEN1x400 EACCES'),
      assistant('', call('b', 'bash', { command: 'npm test' })),
      result('b', 'TOKEN2x400 passing'),
      assistant('', call('c', 'read', { path: 'notes.md' })),
      result('c', 'TOKEN3x400'),
    ]
    const split = plan(messages, { slot: 1000, budget: 10_000 }) as SplitPlan
    expect(split.kind).toBe('split')
    expect(split.parts.map((part) => part.range)).toEqual([
      [0, 4],
      [4, 6],
    ])
    // With the unit one message longer nothing could be cut; one shorter, the cut at 3 would tie and win.
    const linker = createErrorFixLinker()
    expect(linker.link({ messages, offset: 0, pairs: pairToolCalls(messages).pairs }).map((unit) => unit.range)).toEqual([[0, 4]])
  })

  test('callers can mark their own units', () => {
    const messages = [user('TOKEN1x600'), assistant('TOKEN2x600'), user('TOKEN3x600'), assistant('TOKEN4x600')]
    expect(plan(messages, { slot: 1500, budget: 10_000 }).kind).toBe('split')
    const refusal = plan(messages, { slot: 1500, budget: 10_000, units: [{ range: [1, 4], label: 'keep 1-3 together' }] }) as Refusal
    expect(refusal.units[0]).toMatchObject({ kind: 'caller', range: [1, 4], label: 'keep 1-3 together' })
  })

  test('a superseded decision links its values unless linkSuperseded is off', () => {
    const messages = [user('TOKEN1x700 threshold: 0.8'), assistant(`ok${filler}`), user('TOKEN2x700 threshold: 0.9')]
    expect(plan(messages, { slot: 1000 })).toMatchObject({ kind: 'refuse', reason: 'would-cut-unit', units: [{ kind: 'superseded-decision', range: [0, 3] }] })
    expect(plan(messages, { slot: 1000, linkSuperseded: false, budget: 10_000 }).kind).toBe('split')
    // Changes farther apart than supersededWindow are marked but not linked.
    const far = plan(messages, { slot: 1000, supersededWindow: 1, budget: 10_000 })
    expect(far.kind).toBe('split')
    expect(far.state.map((entry) => entry.status)).toEqual(['superseded', 'current'])
  })

  test('refuses when the segment boundary cuts a tool pair, offering the largest range that does not', () => {
    const messages = [user(`a${filler}`), assistant(`b${filler}`), assistant('', call('z', 'bash', { command: 'ls' }))]
    const pairs = [{ id: 'z', call: { message: 12, part: 0 }, result: { message: 13, part: 0 } }]
    const refusal = plan(messages, { slot: 500 }, { offset: 10, pairs }) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'range-cuts-unit', range: [10, 13], units: [{ kind: 'tool-pair', range: [12, 14] }] })
    expect(refusal.options[0]).toMatchObject({ kind: 'compact-range', range: [10, 12] })
  })

  test('a call whose result the segment lacks is not a cut when pairs are not given', () => {
    expect(plan([user('hi'), assistant('', call('z', 'bash', { command: 'ls' }))], { slot: 10 }).kind).toBe('compact')
  })
})

describe('planCompaction: budget', () => {
  test('refuses when the summaries would cost more than the messages they replace', () => {
    // Dense: the items are nearly all of the text, so no split frees tokens.
    const messages = Array.from({ length: 6 }, (_, index) => user(`TOKEN${index}x400`))
    const refusal = plan(messages, { slot: 1000 }) as Refusal
    expect(refusal.reason).toBe('budget-exceeded')
    expect(refusal.budget).toBe(refusal.tokens - 1)
    expect(refusal.options[0]).toEqual({ kind: 'raise-budget', budget: 3000 })
  })

  test('when the fewest parts break the budget, the cheapest partition is taken', () => {
    // Two parts must cut at 2 (1,050 + 1,050 → slots 1,100 + 1,100); three parts cost 900 + 300 + 900.
    const messages = [user('TOKEN1x900'), assistant('TOKEN2x150'), user('TOKEN3x150'), assistant('TOKEN4x900')]
    const flat = createTestEstimator({ marginRatio: 0 })
    const segment = { messages, estimator: flat, tokenizer: charsTokenizer }
    expect(planCompaction(segment, { slot: 1100, budget: 2200 })).toMatchObject({ kind: 'split', optimal: 'fewest-parts', summaryTokens: 2200 })
    const cheaper = planCompaction(segment, { slot: 1100, budget: 2150 }) as SplitPlan
    expect(cheaper).toMatchObject({ kind: 'split', optimal: 'fewest-tokens', summaryTokens: 2100 })
    expect(cheaper.parts.map((part) => part.range)).toEqual([
      [0, 1],
      [1, 3],
      [3, 4],
    ])
    const refusal = planCompaction(segment, { slot: 1100, budget: 2099 }) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'budget-exceeded' })
    expect(refusal.options).toEqual([
      { kind: 'raise-budget', budget: 2100 },
      { kind: 'accept-risk', shortfall: 1000 },
    ])
  })

  test('an explicit budget caps the sum of part slots', () => {
    expect(plan(twoTurns(), { slot: 2000, budget: 2800 }).kind).toBe('split')
    expect(plan(twoTurns(), { slot: 2000, budget: 2799 })).toMatchObject({ kind: 'refuse', reason: 'budget-exceeded' })
  })
})

describe('planCompaction: raise the slot', () => {
  test('the named slot is found by search when the largest unit alone does not make the plan fit the budget', () => {
    // Each message alone has a floor of 960; two share TOKEN9, three share it twice. At 960 three parts cost 2,880 and
    // at 1,560 two cost 2,520, both over the budget of 2,500; only compacting all at 2,160 fits it.
    const messages = [user('TOKEN1x500 TOKEN9x300'), user('TOKEN2x500 TOKEN9x300'), user('TOKEN3x500 TOKEN9x300')]
    const options = { slot: 900, slotRounding: 1, budget: 2500 }
    const refusal = plan(messages, options) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'unit-exceeds-slot' })
    expect(refusal.units.map((unit) => unit.floor)).toEqual([960, 960, 960])
    expect(refusal.options[0]).toEqual({ kind: 'raise-slot', slot: 2160 })
    expect(plan(messages, { ...options, slot: 2160 }).kind).toBe('compact')
    for (const slot of [2159, 1560, 960]) expect(plan(messages, { ...options, slot })).toMatchObject({ kind: 'refuse', reason: 'budget-exceeded' })
  })

  test('a budget refusal names the smallest slot that plans, not the whole floor', () => {
    // Slot 1,000: three parts (960 each) break the budget of 2,600; from 1,560 two parts cost 1,560 + 960 = 2,520.
    const messages = [user('TOKEN1x500 TOKEN9x300'), user('TOKEN2x500 TOKEN9x300'), user('TOKEN3x500 TOKEN9x300')]
    const options = { slot: 1000, slotRounding: 1, budget: 2600 }
    const refusal = plan(messages, options) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'budget-exceeded' })
    expect(refusal.options).toContainEqual({ kind: 'raise-slot', slot: 1560 })
    expect(plan(messages, { ...options, slot: 1560 }).kind).toBe('split')
    expect(plan(messages, { ...options, slot: 1559 }).kind).toBe('refuse')
  })

  test('no slot is named when no slot can plan (the floor costs more than the messages)', () => {
    const refusal = plan([user('TOKEN1x3000')], { slot: 2000 }) as Refusal
    expect(refusal.reason).toBe('unit-exceeds-slot')
    expect(refusal.options.some((option) => option.kind === 'raise-slot')).toBe(false)
  })
})

describe('planCompaction: no gain', () => {
  test('a slot above the range\'s tokens is capped at tokens - 1: the summary never costs more than what it replaces', () => {
    const messages = [user(`TOKEN1x100${filler}`), assistant(`TOKEN2x50${filler}`)]
    const tokens = messages.reduce((sum, message) => sum + charsTokenizer.count(renderMessage(message).text), 0)
    expect(plan(messages, { slot: 4000 })).toMatchObject({ kind: 'compact', slot: tokens - 1, requestedSlot: 4000, tokens })
    expect(plan(messages, { slot: tokens - 1 })).not.toHaveProperty('requestedSlot')
    expect(plan(messages, { slot: 4000, budget: 300 })).toMatchObject({ kind: 'compact', slot: 300, requestedSlot: 4000 })
  })

  test('a floor not below the tokens it would replace refuses with no-gain', () => {
    const refusal = plan([user('TOKEN1x40 TOKEN2x40')], { slot: 4000 }) as Refusal
    expect(refusal).toMatchObject({ kind: 'refuse', reason: 'no-gain', floor: { total: 96 }, tokens: 5, budget: 4, options: [{ kind: 'raise-budget', budget: 96 }] })
    expect(() => planCompactionOrThrow({ messages: [user('TOKEN1x40 TOKEN2x40')], estimator, tokenizer: charsTokenizer }, { slot: 4000 })).toThrow(
      /no-gain.*at least 96 tokens, not less than the 5 tokens it replaces/,
    )
    expect(plan([user('TOKEN1x40 TOKEN2x40')], { slot: 4000, budget: 96 }).kind).toBe('compact')
  })
})

describe('planCompaction: margin rounding', () => {
  test("mirrors an estimator that rounds its margin down, even when the whole segment's margin is a whole number", () => {
    // Floor rounding at 25%: [0,1) costs 63 + 15 and [1,4) 17 + 4, 99 in all; priced with ceil they would cost 101,
    // and [0,2) + [2,4) (80 + 20) would look cheaper. The whole's margin, 80 × 25% = 20, tells neither way.
    const floorEstimator = createTestEstimator({ margin: 'floor', marginRatio: 0.25 })
    const messages = [user('TOKEN6x63 '), user('TOKEN0x1 '), user('TOKEN1x15 TOKEN2x1 '), user(`notes ${'z'.repeat(420)}`)]
    const result = planCompaction({ messages, estimator: floorEstimator, tokenizer: charsTokenizer }, { slot: 80, slotRounding: 1 }) as SplitPlan
    expect(result.floor).toEqual({ irreducible: 80, margin: 20, total: 100 })
    expect(result.parts.map((part) => [part.range, part.floor])).toEqual([
      [[0, 1], 78],
      [[1, 4], 21],
    ])
    expect(result.summaryTokens).toBe(99)
  })
})

describe('planCompaction: conditions of validity', () => {
  const dense = twoTurns()
  test.each([
    ['retrievable', { retrievable: true }, 2000],
    ['dead-region', { deadRegion: true }, 2000],
    ['narrative-only', { narrativeOnly: true }, 2000],
    ['unconstrained', { unconstrained: true }, 2340],
  ] as const)('%s turns the floor off', (guard, options, slot) => {
    expect(plan(dense, { slot: 2000, ...options })).toMatchObject({ kind: 'compact', guard, slot })
  })
})

describe('planCompaction: 10,000 messages', () => {
  // Timing is measured by the benchmark, not asserted here; this checks the large plans are well-formed.
  test.each(['agent', 'sparse'] as const)('%s segment: parts tile the segment and fit their slots', (shape) => {
    const messages = createSyntheticSegment({ messages: 10_000, shape })
    const slot = Math.floor(estimator.estimate(messages).total / 5)
    const result = plan(messages, { slot }) as SplitPlan
    expect(result.kind).toBe('split')
    expect(result.parts.length).toBeGreaterThanOrEqual(5)
    result.parts.forEach((part, index) => {
      expect(part.range[0]).toBe(index === 0 ? 0 : result.parts[index - 1]!.range[1])
      expect(part.floor).toBeLessThanOrEqual(part.slot)
      expect(part.slot).toBeLessThanOrEqual(slot)
    })
    expect(result.parts.at(-1)!.range[1]).toBe(10_000)
  })
})

describe('planCompactionOrThrow', () => {
  test('returns plans and throws CompactionFloorError stating slot, floor, irreducible and margin', () => {
    expect(planCompactionOrThrow({ messages: twoTurns(), estimator, tokenizer: charsTokenizer }, { slot: 2000 }).kind).toBe('split')
    const messages = [user(`TOKEN1x3000 ${'z'.repeat(16_000)}`)]
    let error: unknown
    try {
      planCompactionOrThrow({ messages, estimator, tokenizer: charsTokenizer }, { slot: 2000 })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(CompactionFloorError)
    expect(error).toBeInstanceOf(FloorguardError)
    const floorError = error as CompactionFloorError
    expect(floorError.code).toBe('compaction-floor')
    expect(floorError.refusal.reason).toBe('unit-exceeds-slot')
    expect(floorError.message).toContain('slot 2000 < floor 3600 (irreducible 3000, margin 600)')
    expect(floorError.message).toContain('raise the slot to 3600')
  })
})

describe('planCompaction: misuse throws', () => {
  test.each([
    [{ slot: -1 }, 'options.slot: expected an integer >= 0, got -1'],
    [{ slot: 1.5 }, 'options.slot'],
    [{ slot: 10, budget: Number.NaN }, 'options.budget'],
    [{ slot: 10, slotRounding: 0 }, 'options.slotRounding'],
    [{ slot: 10, units: [{ range: [3, 2] as const }] }, 'options.units[0].range'],
  ])('%j', (options, message) => {
    expect(() => plan([user('x')], options as PlanOptions)).toThrow(message)
  })

  test('a linker returning a range outside the segment', () => {
    const linker = { specificationVersion: 'v1' as const, name: 'bad', link: () => [{ kind: 'caller' as const, range: [0, 9] as const }] }
    expect(() => plan([user('x')], { slot: 10, linkers: [linker] })).toThrow('linker "bad" returned range [0, 9)')
  })
})

describe('planCompaction: changedDecisions', () => {
  const messages = [user('TOKEN1x700 threshold: 0.8'), assistant(`ok${filler}`), user('TOKEN2x700 threshold: 0.9')]

  test('off, no changed decision is found: no state, no superseded-decision unit', () => {
    expect(plan(messages, { slot: 1000 }).kind).toBe('refuse')
    const off = plan(messages, { slot: 1000, changedDecisions: false, budget: 10_000 }) as SplitPlan
    expect(off.kind).toBe('split')
    expect(off.state).toEqual([])
    expect(off.parts.map((part) => part.state)).toEqual([[], []])
    expect(off.parts.map((part) => part.range)).toEqual((plan(messages, { slot: 1000, linkSuperseded: false, budget: 10_000 }) as SplitPlan).parts.map((part) => part.range))
  })

  test('on a one-message segment, off changes nothing but the state', () => {
    const one = [user('TOKEN1x700 threshold: 0.8. Then threshold: 0.9. TOKEN2x700')]
    for (const slot of [100, 10_000]) {
      const on = plan(one, { slot, budget: 100_000 })
      const off = plan(one, { slot, budget: 100_000, changedDecisions: false })
      expect(on.state.map((entry) => [entry.value, entry.status])).toEqual([
        ['0.8', 'superseded'],
        ['0.9', 'current'],
      ])
      expect(off.state).toEqual([])
      expect({ ...off, state: undefined }).toEqual({ ...on, state: undefined })
    }
  })
})

import fc from 'fast-check'
import { beforeEach, describe, expect, test } from 'vitest'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'
import { pairToolCalls, renderMessage } from '../transcript/render.js'
import { assistant, call, charsTokenizer, createTestEstimator, result, user } from './__fixtures__/test-estimator.js'
import { createErrorFixLinker, startsUserTurn } from './error-fix.js'
import { planCompaction } from './plan.js'
import { findSupersededState } from './superseded.js'
import type { CompactionPlan, MessageRange, PlanOptions } from './types.js'

/** The planner must mirror its estimator's margin rounding: both ways are checked against the brute force. */
const ESTIMATORS = [
  ['margin ceil(20%)', createTestEstimator()],
  ['margin floor(25%)', createTestEstimator({ margin: 'floor', marginRatio: 0.25 })],
] as const
let estimator: FloorEstimatorV1 = ESTIMATORS[0][1]

/** Random segments: user and assistant text, tool exchanges (some failing), shared items, changed thresholds. */
const segmentArbitrary = fc
  .record({
    weights: fc.array(fc.integer({ min: 1, max: 150 }), { minLength: 8, maxLength: 8 }),
    events: fc.array(
      fc.record({
        kind: fc.constantFrom('user', 'assistant', 'assistant', 'tool'),
        items: fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 3 }),
        filler: fc.integer({ min: 0, max: 2400 }),
        threshold: fc.option(fc.constantFrom(1, 2), { nil: undefined, freq: 6 }),
        failing: fc.boolean(),
        command: fc.constantFrom('npm test', 'ls'),
      }),
      { minLength: 3, maxLength: 8 },
    ),
  })
  .map(({ weights, events }) => {
    const messages: Message[] = []
    events.forEach((event, index) => {
      const words = event.items.map((item) => `TOKEN${item}x${weights[item]}`).join(' ')
      const text = `${words}${event.threshold === undefined ? '' : ` threshold: ${event.threshold}`} ${'z'.repeat(event.filler)}`
      if (event.kind === 'user') messages.push(user(text))
      else if (event.kind === 'assistant') messages.push(assistant(text))
      else {
        messages.push(assistant('', call(`c${index}`, 'bash', { command: event.command })))
        messages.push(result(`c${index}`, event.failing ? `Error: ${text}` : text))
      }
    })
    return messages
  })

/** Plain turns with many shared items: no units, so the split search itself decides. */
const turnsArbitrary = fc
  .record({
    weights: fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 6, maxLength: 6 }),
    turns: fc.array(fc.tuple(fc.boolean(), fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }), fc.integer({ min: 0, max: 1600 })), { minLength: 2, maxLength: 9 }),
  })
  .map(({ weights, turns }) =>
    turns.map(([isUser, items, filler]) => {
      const text = `${items.map((item) => `TOKEN${item}x${weights[item]}`).join(' ')} ${'z'.repeat(filler)}`
      return isUser ? user(text) : assistant(text)
    }),
  )

const optionsArbitrary = fc.record({
  /** The slot as a share of the whole floor, so every outcome is common. */
  slotShare: fc.double({ min: 0.5, max: 1.2, noNaN: true }),
  budget: fc.option(fc.integer({ min: 0, max: 6000 }), { nil: undefined }),
  slotRounding: fc.constantFrom(1, 50, 100),
  linkSuperseded: fc.boolean(),
  supersededWindow: fc.constantFrom(2, 50),
  callerUnit: fc.option(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 4 })), { nil: undefined }),
})

type Generated = typeof optionsArbitrary extends fc.Arbitrary<infer T> ? T : never

function toOptions(generated: Generated, messages: readonly Message[]): PlanOptions {
  const { callerUnit, slotShare, ...rest } = generated
  const n = messages.length
  const units = callerUnit && callerUnit[0] + callerUnit[1] <= n ? [{ range: [callerUnit[0], callerUnit[0] + callerUnit[1]] as const }] : []
  return { ...rest, slot: Math.floor(floorOf(messages, 0, n) * slotShare), units }
}

/** The units the planner must respect, recomputed from the public pieces. */
function unitRanges(messages: readonly Message[], options: PlanOptions): MessageRange[] {
  const { pairs } = pairToolCalls(messages)
  const ranges: MessageRange[] = pairs.map((pair) => [pair.call.message, pair.result.message + 1])
  for (const unit of createErrorFixLinker().link({ messages, offset: 0, pairs })) ranges.push(unit.range)
  if (options.linkSuperseded ?? true) {
    // Each change of a key links the last message with the old value to the first with the new one.
    const previous = new Map<string, { message: number; value: string }>()
    for (const entry of findSupersededState(messages)) {
      if ((entry.effect ?? 'set') !== 'set') continue
      const before = previous.get(entry.key)
      if (before && before.value !== entry.value && entry.message - before.message <= (options.supersededWindow ?? 50)) ranges.push([before.message, entry.message + 1])
      previous.set(entry.key, entry)
    }
  }
  for (const unit of options.units ?? []) ranges.push(unit.range)
  return ranges
}

const cutsUnit = (cut: number, ranges: readonly MessageRange[]) => ranges.some(([start, end]) => start < cut && cut < end)
const partSlot = (floor: number, options: PlanOptions) => Math.min(options.slot, Math.ceil(Math.max(floor, 1) / (options.slotRounding ?? 100)) * (options.slotRounding ?? 100))
const floorOf = (messages: readonly Message[], start: number, end: number) => estimator.estimate(messages.slice(start, end), start).total
const tokensOf = (messages: readonly Message[]) => messages.reduce((sum, message) => sum + charsTokenizer.count(renderMessage(message).text), 0)

/** Every partition at allowed cuts, with its cost vector: [parts, summary tokens, cuts off user turns]. */
function allPartitions(messages: readonly Message[], options: PlanOptions) {
  const ranges = unitRanges(messages, options)
  const allowed = Array.from({ length: messages.length - 1 }, (_, index) => index + 1).filter((cut) => !cutsUnit(cut, ranges))
  const maxSummary = options.budget ?? tokensOf(messages) - 1
  const out: Array<{ cuts: number[]; fits: boolean; parts: number; summary: number; penalty: number }> = []
  for (let mask = 0; mask < 1 << allowed.length; mask++) {
    const cuts = [0, ...allowed.filter((_, bit) => mask & (1 << bit)), messages.length]
    let fits = true
    let summary = 0
    for (let index = 0; index + 1 < cuts.length; index++) {
      const floor = floorOf(messages, cuts[index]!, cuts[index + 1]!)
      if (floor > options.slot) fits = false
      summary += partSlot(floor, options)
    }
    const penalty = cuts.slice(1, -1).filter((cut) => !startsUserTurn(messages[cut])).length
    out.push({ cuts, fits: fits && summary <= maxSummary, parts: cuts.length - 1, summary, penalty })
  }
  return out
}

const run = fc.tuple(fc.oneof(segmentArbitrary, turnsArbitrary), optionsArbitrary)
const settings = { numRuns: 150, seed: 4412 }

describe.each(ESTIMATORS)('planCompaction properties (%s)', (_name, chosen) => {
  beforeEach(() => {
    estimator = chosen
  })

  test('split parts cover the segment exactly once, in order, cut no unit, and each floor fits its slot', () => {
    fc.assert(
      fc.property(run, ([messages, generated]) => {
        const options = toOptions(generated, messages)
        const plan = planCompaction({ messages, estimator, tokenizer: charsTokenizer }, options)
        if (plan.kind !== 'split') return
        expect(plan.parts[0]!.range[0]).toBe(0)
        expect(plan.parts.at(-1)!.range[1]).toBe(messages.length)
        plan.parts.forEach((part, index) => {
          if (index > 0) expect(part.range[0]).toBe(plan.parts[index - 1]!.range[1])
          expect(part.range[1]).toBeGreaterThan(part.range[0])
          expect(part.floor).toBe(floorOf(messages, part.range[0], part.range[1]))
          expect(part.floor).toBeLessThanOrEqual(part.slot)
          expect(part.slot).toBeLessThanOrEqual(options.slot)
        })
        const ranges = unitRanges(messages, options)
        for (const part of plan.parts.slice(1)) expect(cutsUnit(part.range[0], ranges)).toBe(false)
        expect(plan.summaryTokens).toBeLessThanOrEqual(plan.budget)
      }),
      settings,
    )
  })

  test('compact implies slot >= floor; split and refuse imply the whole does not fit (or the range cuts a unit)', () => {
    fc.assert(
      fc.property(run, ([messages, generated]) => {
        const options = toOptions(generated, messages)
        const plan = planCompaction({ messages, estimator, tokenizer: charsTokenizer }, options)
        expect(plan.floor.total).toBe(floorOf(messages, 0, messages.length))
        const budget = options.budget ?? tokensOf(messages) - 1
        if (plan.kind === 'compact') {
          expect(plan.slot).toBeGreaterThanOrEqual(plan.floor.total)
          // A summary never costs more than what it replaces: the slot is capped at the budget.
          expect(plan.slot).toBe(Math.min(options.slot, budget))
        } else if (plan.kind === 'refuse' && plan.reason === 'no-gain') {
          expect(plan.floor.total).toBeLessThanOrEqual(options.slot)
          expect(plan.floor.total).toBeGreaterThan(budget)
        } else expect(plan.floor.total).toBeGreaterThan(options.slot)
      }),
      settings,
    )
  })

  test('the decision is optimal: fewest parts, then fewest summary tokens, then fewest cuts off user turns', () => {
    fc.assert(
      fc.property(run, ([messages, generated]) => {
        const options = toOptions(generated, messages)
        const plan = planCompaction({ messages, estimator, tokenizer: charsTokenizer }, options)
        if (plan.kind === 'compact' || (plan.kind === 'refuse' && plan.reason === 'range-cuts-unit')) return
        const feasible = allPartitions(messages, options).filter((candidate) => candidate.fits)
        if (plan.kind === 'refuse') {
          expect(feasible).toEqual([])
          return
        }
        const chosen = { parts: plan.parts.length, summary: plan.summaryTokens, penalty: plan.parts.slice(1).filter((part) => !startsUserTurn(messages[part.range[0]])).length }
        if (plan.optimal === 'fewest-parts') {
          const best = feasible.reduce((a, b) => (a.parts - b.parts || a.summary - b.summary || a.penalty - b.penalty) <= 0 ? a : b)
          expect([chosen.parts, chosen.summary, chosen.penalty]).toEqual([best.parts, best.summary, best.penalty])
        } else {
          expect(Math.min(...feasible.map((candidate) => candidate.summary))).toBe(chosen.summary)
        }
      }),
      settings,
    )
  })

  test('"raise the slot to N": the plan at N compacts or splits, at N - 1 it refuses', () => {
    let named = 0
    let searched = 0
    fc.assert(
      fc.property(run, ([messages, generated]) => {
        const options = toOptions(generated, messages)
        const plan = planCompaction({ messages, estimator, tokenizer: charsTokenizer }, options)
        if (plan.kind !== 'refuse') return
        for (const option of plan.options) {
          if (option.kind !== 'raise-slot') continue
          named++
          // Above every offending unit's floor, the number came from the search, not from a unit.
          if (plan.units.every((unit) => unit.floor < option.slot)) searched++
          expect(planCompaction({ messages, estimator, tokenizer: charsTokenizer }, { ...options, slot: option.slot }).kind).not.toBe('refuse')
          expect(planCompaction({ messages, estimator, tokenizer: charsTokenizer }, { ...options, slot: option.slot - 1 }).kind).toBe('refuse')
        }
      }),
      { ...settings, numRuns: 300 },
    )
    expect(named).toBeGreaterThan(10)
    expect(searched).toBeGreaterThan(0)
  })

  test('the plan is deterministic', () => {
    fc.assert(
      fc.property(run, ([messages, generated]) => {
        const options = toOptions(generated, messages)
        const first = planCompaction({ messages, estimator, tokenizer: charsTokenizer }, options)
        const again = planCompaction({ messages: structuredClone(messages), estimator: chosen === ESTIMATORS[0][1] ? createTestEstimator() : createTestEstimator({ margin: 'floor', marginRatio: 0.25 }), tokenizer: charsTokenizer }, options)
        expect(again).toEqual(first)
      }),
      { ...settings, numRuns: 60 },
    )
  })

  test('adding state never turns a refusal (or a split) into a compact', () => {
    fc.assert(
      fc.property(run, fc.nat(), fc.integer({ min: 1, max: 400 }), ([messages, generated], where, weight) => {
        const options = toOptions(generated, messages)
        const before: CompactionPlan = planCompaction({ messages, estimator, tokenizer: charsTokenizer }, options)
        const index = where % messages.length
        const target = messages[index]!
        const added: Message = { ...target, parts: [...target.parts, { type: 'text', text: `TOKEN99x${weight}` }] }
        const after = planCompaction({ messages: messages.with(index, added), estimator, tokenizer: charsTokenizer }, options)
        if (before.kind !== 'compact') expect(after.kind).not.toBe('compact')
        expect(after.floor.total).toBeGreaterThanOrEqual(before.floor.total)
      }),
      settings,
    )
  })
})

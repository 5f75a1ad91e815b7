import { describe, expect, test } from 'vitest'
import { charsTokenizer, createTestEstimator, user } from '../plan/__fixtures__/test-estimator.js'
import { describePlan, planDecisionJson } from './plan.js'
import { planCompaction } from '../plan/plan.js'

const estimator = createTestEstimator()

describe('describePlan / planDecisionJson', () => {
  test('a refusal lists units with their largest items and the options with numbers', () => {
    const plan = planCompaction({ messages: [user(`TOKEN1x3000 TOKEN2x10 ${'z'.repeat(16_000)}`)], estimator, tokenizer: charsTokenizer }, { slot: 2000 })
    const lines = describePlan(plan)
    expect(lines).toContain('decision: REFUSE (unit-exceeds-slot): keep messages 0–1 uncompacted')
    expect(lines).toContain('  message messages 0–1: floor 3612')
    expect(lines.some((line) => line.includes('3000') && line.includes('TOKEN1x3000'))).toBe(true)
    expect(lines).toContain('  raise the slot to 3612')
    expect(planDecisionJson(plan)).toMatchObject({
      kind: 'refuse',
      reason: 'unit-exceeds-slot',
      units: [{ kind: 'message', range: [0, 1], floor: 3612, items: [{ text: 'TOKEN1x3000', tokens: 3000 }, { text: 'TOKEN2x10' }] }],
      options: [{ kind: 'raise-slot', slot: 3612 }, { kind: 'accept-risk', shortfall: 1612 }],
    })
    expect(JSON.parse(JSON.stringify(planDecisionJson(plan)))).toEqual(planDecisionJson(plan))
  })

  test('a compact plan whose slot was capped says so, in the report and the JSON', () => {
    const plan = planCompaction({ messages: [user(`TOKEN1x30 ${'z'.repeat(400)}`)], estimator, tokenizer: charsTokenizer }, { slot: 4000 })
    expect(plan).toMatchObject({ kind: 'compact', slot: 102, requestedSlot: 4000 })
    expect(describePlan(plan)).toContain('decision: COMPACT messages 0–1 into 102 tokens (slot 4000 capped at 102: a summary must cost less than the 103 tokens it replaces)')
    expect(planDecisionJson(plan)).toMatchObject({ kind: 'compact', slot: 102, requestedSlot: 4000 })
  })

  test('a key changed many times shows its first values and its current one', () => {
    const messages = Array.from({ length: 9 }, (_, index) => user(`threshold: 0.${index + 1}`))
    const lines = describePlan(planCompaction({ messages, estimator, tokenizer: charsTokenizer }, { slot: 10 }))
    expect(lines.at(-1)).toBe('  var:threshold: 0.1 (#0) → 0.2 (#1) → 0.3 (#2) → 0.4 (#3) → … 4 more → 0.9 (#8, current)')
  })
})

import { describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { assistant, charsTokenizer, createTestEstimator, user } from '../plan/__fixtures__/test-estimator.js'
import fc from 'fast-check'
import { checkTranscript, largestItems } from './index.js'

// Issue 11 ("Speed as the user meets it"): an estimator without a cache (seed) estimated the same text three times
// in one `check`: the floor, the planner's whole segment, and each message's items.

/** `estimator` with its calls counted. */
function counted(estimator: FloorEstimatorV1) {
  const calls = { estimate: 0, extract: 0, lengths: [] as number[] }
  const wrapped: FloorEstimatorV1 = {
    ...estimator,
    extract: (message, index) => (calls.extract++, estimator.extract(message, index)),
    estimate: (messages, offset) => (calls.estimate++, calls.lengths.push(messages.length), estimator.estimate(messages, offset)),
  }
  return { calls, estimator: wrapped }
}

const transcript = (messages: Message[]): Transcript => ({ format: 'test', messages, pairs: [], unpaired: [] }) as unknown as Transcript

describe('checkTranscript', () => {
  // 701 × 0.2 is not a whole number, so the whole segment's estimate tells the margin's rounding by itself.
  const one = transcript([user(`TOKEN1x701 and some narrative around it${' and then some more'.repeat(400)}`)])

  it.each([
    ['compact', 2000],
    ['refuse', 100],
  ])('a one-message segment (%s) is estimated once, and no message is extracted', (kind, slot) => {
    const { calls, estimator } = counted(createTestEstimator())
    const result = checkTranscript(one, { estimator, tokenizer: charsTokenizer, slot })
    expect(result.decision.kind).toBe(kind)
    expect(result.floor).toMatchObject({ irreducible: 701, margin: 141, total: 842 })
    expect(calls).toMatchObject({ estimate: 1, extract: 0 })
  })

  it('a split still extracts each message once, and estimates the whole segment once', () => {
    const filler = ' and then some more'.repeat(100)
    const messages = [user(`TOKEN1x601${filler}`), assistant(`TOKEN2x601${filler}`), user(`TOKEN3x601${filler}`), assistant(`TOKEN4x601${filler}`)]
    const { calls, estimator } = counted(createTestEstimator())
    const result = checkTranscript(transcript(messages), { estimator, tokenizer: charsTokenizer, slot: 1500, plan: { budget: 10_000 } })
    expect(result.decision.kind).toBe('split')
    expect(calls.extract).toBe(4)
    // Parts and single messages are estimated, the whole segment (the check's floor) only once.
    expect(calls.lengths.filter((length) => length === 4)).toHaveLength(1)
    expect(calls.lengths.length).toBeGreaterThan(1)
  })
})

describe('largestItems', () => {
  it('is the first `limit` of the items sorted by tokens, largest first, ties in order of appearance', () => {
    const item = fc.record({ tokens: fc.integer({ min: 0, max: 6 }), text: fc.string({ maxLength: 3 }) })
    fc.assert(
      fc.property(fc.array(item, { maxLength: 60 }), fc.integer({ min: -2, max: 12 }), (raw, limit) => {
        const items = raw.map((entry, index) => ({ kind: 'path' as const, text: `${entry.text}#${index}`, tokens: entry.tokens, message: 0, start: index, end: index + 1 }))
        // The reference: a stable sort by tokens, largest first.
        const expected = [...items].sort((a, b) => b.tokens - a.tokens).slice(0, limit)
        expect(largestItems(items, limit)).toEqual(expected)
      }),
      { numRuns: 300 },
    )
  })
})

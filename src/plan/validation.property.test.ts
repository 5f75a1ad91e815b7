import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { Message } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { corrupt, corruption, expectRefusedOrSame, pairsOf, specAccepts, validMessages } from '../transcript/__fixtures__/corrupt-messages.js'
import { planCompaction } from './plan.js'

// A re-test: planCompaction checked that `messages` is an array and nothing inside it; a numeric text or an unknown
// part type failed as a TypeError in findAssignments or the estimator.

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer, marginRatio: 0.2 })

describe('planCompaction on malformed messages', () => {
  it('a corrupted segment gives the same plan or FloorguardError invalid-argument, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(validMessages, corruption, fc.boolean(), async (messages, how, withPairs) => {
        const pairs = withPairs ? pairsOf(messages) : []
        const run = (list: unknown[]) => planCompaction({ messages: list as Message[], estimator, tokenizer, ...(withPairs ? { pairs } : {}) }, { slot: 40 })
        const corrupted = corrupt(messages, how)
        await expectRefusedOrSame(run(messages), corrupted, specAccepts(corrupted.messages, pairs), run)
      }),
      { numRuns: 200 },
    )
  })

  it('names the part, and a pair that no longer points at its call', () => {
    const call: Message = { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: {} }] }
    const result: Message = { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'ok', isError: false }] }
    expect(() => planCompaction({ messages: [call, { role: 'user', parts: [null] } as never], estimator, tokenizer }, { slot: 40 })).toThrow(
      'planCompaction: segment.messages[1].parts[0]: expected a part object, got null',
    )
    const pairs = [{ id: 'c1', call: { message: 1, part: 0 }, result: { message: 2, part: 0 } }]
    const other: Message = { role: 'tool', parts: [{ type: 'tool-result', callId: 'c2', content: 'ok', isError: false }] }
    expect(planCompaction({ messages: [call, result], offset: 1, pairs, estimator, tokenizer }, { slot: 40 }).kind).toBe('compact')
    expect(() => planCompaction({ messages: [call, other], offset: 1, pairs, estimator, tokenizer }, { slot: 40 })).toThrow(
      'planCompaction: segment.pairs[0].result: expected a tool-result part of id "c1" at segment.messages[1].parts[0], got a tool-result part of id "c2"',
    )
  })
})

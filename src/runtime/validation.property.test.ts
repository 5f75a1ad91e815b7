import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { Message } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { corrupt, corruption, expectRefusedOrSame, specAccepts, validMessages } from '../transcript/__fixtures__/corrupt-messages.js'
import { createCompactor } from './compactor.js'

// A re-test: maybeCompact checked the role, the parts array and each part's type, but not a part's fields; a numeric
// text, a tool call without a name or cyclic arguments in the selected range failed as a TypeError.

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer, marginRatio: 0.2 })

describe('maybeCompact on malformed messages', () => {
  it('corrupted messages give the same outcome or FloorguardError invalid-argument, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(validMessages, corruption, async (messages, how) => {
        const run = async (list: unknown[]) => {
          const result = await createCompactor({ budget: 40, slot: 60, tokenizer, estimator }).maybeCompact(list as Message[])
          return { kind: result.kind, layout: result.layout, signal: result.signal?.reason }
        }
        const corrupted = corrupt(messages, how)
        await expectRefusedOrSame(await run(messages), corrupted, specAccepts(corrupted.messages), run)
      }),
      { numRuns: 150 },
    )
  })

  it('names a bad part field in the existing style', async () => {
    const messages = [{ role: 'user', parts: [{ type: 'text', text: 'go' }] }, { role: 'assistant', parts: [{ type: 'tool-call', id: 'c9', arguments: {} }] }]
    await expect(createCompactor({ tokenizer, estimator }).maybeCompact(messages as Message[])).rejects.toThrow(
      'createCompactor: maybeCompact(messages)[1].parts[0].name: expected a string, got undefined',
    )
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { corrupt, corruption, expectRefusedOrSame, pairsOf, specAccepts, validMessages } from '../transcript/__fixtures__/corrupt-messages.js'
import { checkTranscript } from './index.js'

// A re-test: malformed messages (a null part, a numeric text, cyclic tool arguments) made checkTranscript throw a
// plain TypeError or RangeError from deep inside the estimator; FloorguardError is the base of every error it throws.

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer, marginRatio: 0.2 })

describe('checkTranscript on malformed messages', () => {
  it('a corrupted transcript gives the same result or FloorguardError invalid-argument, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(validMessages, corruption, async (messages, how) => {
        const pairs = pairsOf(messages)
        const run = (list: unknown[]) => checkTranscript({ format: 'test', messages: list, pairs, unpaired: [] } as unknown as Transcript, { estimator, tokenizer, slot: 2000 })
        const corrupted = corrupt(messages, how)
        await expectRefusedOrSame(run(messages), corrupted, specAccepts(corrupted.messages, pairs), run)
      }),
      { numRuns: 200 },
    )
  })

  it('names the field and what was expected; a transcript that is not one is refused too', () => {
    const messages = [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', parts: [{ type: 'text', text: 42 }] }]
    expect(() => checkTranscript({ format: 'test', messages, pairs: [], unpaired: [] } as unknown as Transcript, { estimator, tokenizer })).toThrow(
      'checkTranscript: transcript.messages[1].parts[0].text: expected a string, got 42',
    )
    expect(() => checkTranscript(null as unknown as Transcript, { estimator, tokenizer })).toThrow(/^checkTranscript: transcript: expected a transcript object/)
    expect(() => checkTranscript({ format: 'test', messages: [], pairs: [], unpaired: [] }, null as never)).toThrow(/^checkTranscript: options: expected an object/)
  })
})

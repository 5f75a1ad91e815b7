import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { Transcript } from '../spec/transcript.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { createTokenizer } from '../tokenize/index.js'
import { corrupt, corruption, expectRefusedOrSame, pairsOf, specAccepts, validMessages } from '../transcript/__fixtures__/corrupt-messages.js'
import { compactTranscript } from './compact.js'

// A re-test: compactTranscript read `transcript.messages` without checking it; a null message, a tool call without a
// name or cyclic arguments failed as a TypeError (cycles through JSON.stringify), 5,000-deep arguments as a RangeError.

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer, marginRatio: 0.2 })

describe('compactTranscript on malformed messages', () => {
  it('a corrupted transcript gives the same outcome or FloorguardError invalid-argument, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(validMessages, corruption, async (messages, how) => {
        const pairs = pairsOf(messages)
        const run = async (list: unknown[]) => {
          const transcript = { format: 'openai', messages: list, pairs, unpaired: [] } as unknown as Transcript
          const result = await compactTranscript(transcript, { estimator, tokenizer, slot: 60, summarizer: createLedgerSummarizer(), sleep: async () => {} })
          // The kept messages are the input's own objects (their `source` included): compare what was decided.
          return { kind: result.kind, range: result.range, floor: result.floor, summaries: result.summaries.map((summary) => summary.text), refusal: result.refusal?.reason }
        }
        const corrupted = corrupt(messages, how)
        await expectRefusedOrSame(await run(messages), corrupted, specAccepts(corrupted.messages, pairs), run)
      }),
      { numRuns: 150 },
    )
  })

  it('names the field of JSON-unsafe arguments and never throws a RangeError', async () => {
    let deep: unknown = 1
    for (let level = 0; level < 5000; level++) deep = { a: deep }
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const withArguments = (value: unknown) =>
      ({ format: 'openai', messages: [{ role: 'user', parts: [{ type: 'text', text: 'go' }] }, { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: value }] }], pairs: [], unpaired: [] }) as Transcript
    const options = { estimator, tokenizer, slot: 60 }
    await expect(compactTranscript(withArguments(deep), options)).rejects.toThrow(
      'compactTranscript: transcript.messages[1].parts[0].arguments: expected a JSON value (null, a boolean, a number, a string, arrays and plain objects of them, at most 512 levels deep), got deeper nesting (more than 512 levels)',
    )
    await expect(compactTranscript(withArguments({ list: [1, cyclic] }), options)).rejects.toThrow(
      'compactTranscript: transcript.messages[1].parts[0].arguments.list[1].self: expected a JSON value',
    )
    await expect(compactTranscript(withArguments({ n: 10n }), options)).rejects.toThrow('arguments.n: expected a JSON value (null, a boolean, a number, a string, arrays and plain objects of them, at most 512 levels deep), got the BigInt 10n')
  })
})

import fc from 'fast-check'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { createAiSdkSummarizer } from '../summarize/ai-sdk.js'
import { createCommandSummarizer } from '../summarize/command.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { parseStateBlock } from '../state-block/index.js'
import { faithfulModel, mockModel, stateBlockOf } from '../summarize/__fixtures__/mock-model.js'
import { createMockSummarizer, paraphrase, SUMMARIZER_FAULTS } from '../test-utils/summarizer.js'
import { createTokenizer } from '../tokenize/index.js'
import { compactTranscript, type CompactResult, type CompactTranscriptOptions } from './compact.js'
import { fixturePlanner } from './__fixtures__/planner.js'
import { transcriptOf, turn412 } from './__fixtures__/transcripts.js'

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer })
const base = { estimator, tokenizer, planner: fixturePlanner(), sleep: async () => {}, timeoutMs: 2000 } satisfies Partial<CompactTranscriptOptions>
const script = fileURLToPath(new URL('../summarize/__fixtures__/summarizer-command.mjs', import.meta.url))
const command = (mode: string): string => `'${process.execPath}' '${script}' ${mode}`

/** Every summary of a result holds every item of its range verbatim and fits its slot: checked independently. */
function expectVerified(result: CompactResult, messages: readonly Message[]): void {
  for (const summary of result.summaries) {
    const items = estimator.estimate(messages.slice(summary.range[0], summary.range[1]), summary.range[0]).items
    for (const item of items) expect(summary.text, `item ${JSON.stringify(item.text)}`).toContain(item.text)
    expect(tokenizer.count(summary.text)).toBeLessThanOrEqual(summary.slot)
    expect(summary.text.trim()).not.toBe('')
  }
}

describe('compactTranscript with the ledger', () => {
  it('replaces the range with one verified summary message and keeps everything else as is', async () => {
    const transcript = turn412()
    const result = await compactTranscript(transcript, { ...base, slot: 1000, range: { start: 1, end: 7 } })
    expect(result.kind).toBe('compacted')
    expect(result.refusal).toBeNull()
    expect(result.verification).toMatchObject({ ok: true, tokenizer: 'o200k_base', normalization: 'none' })
    expect(result.summaries).toHaveLength(1)
    const [summary] = result.summaries
    expect(summary).toMatchObject({ range: [1, 7], slot: 1000, attempts: 1, repaired: false })
    expect(summary!.tokens).toBe(tokenizer.count(summary!.text))
    expectVerified(result, transcript.messages)
    const messages = result.transcript!.messages
    expect(messages).toHaveLength(3)
    expect(messages[0]).toBe(transcript.messages[0])
    expect(messages[2]).toBe(transcript.messages[7])
    expect(messages[1]).toEqual({ role: 'user', parts: [{ type: 'summary', text: summary!.text, source: 'floorguard' }] })
    expect(result.transcript!.pairs).toEqual([])
    expect(result.floor).toMatchObject({ estimator: 'full', tokenizer: 'o200k_base' })
    expect(result.floor.total).toBeGreaterThan(0)
  })

  it('splits into several summaries when the planner splits', async () => {
    const transcript = turn412()
    const whole = estimator.estimate(transcript.messages.slice(1, 7), 1).total
    const result = await compactTranscript(transcript, { ...base, slot: whole - 1, range: { start: 1, end: 7 }, planner: fixturePlanner({ cutAt: 4 }) })
    expect(result.refusal?.reason ?? null).toBeNull()
    expect(result.kind).toBe('split')
    expect(result.summaries.map((summary) => summary.range)).toEqual([[1, 4], [4, 7]])
    expect(result.transcript!.messages).toHaveLength(4)
    expectVerified(result, transcript.messages)
  })

  it('refuses with the planner\'s reason when the slot is below the floor', async () => {
    const transcript = turn412()
    const result = await compactTranscript(transcript, { ...base, slot: 5, range: { start: 1, end: 7 } })
    expect(result).toMatchObject({ kind: 'refused', summaries: [], verification: { ok: false } })
    expect(result.transcript).toBeUndefined()
    expect(result.refusal?.code).toBe('plan')
    expect(result.refusal?.reason).toMatch(/^slot 5 < floor \d+ .*refusing to compact \(unit-exceeds-slot\).*raise the slot to \d+/)
    expect(result.refusal?.plan?.kind).toBe('refuse')
  })

  it('refuses a part that would separate a tool call from its result (a faulty planner)', async () => {
    const transcript = turn412()
    const result = await compactTranscript(transcript, { ...base, slot: 1000, range: { start: 1, end: 7 }, planner: fixturePlanner({ cutAt: 3 }) })
    expect(result.kind).toBe('refused')
    expect(result.refusal).toMatchObject({ code: 'tool-pair', range: [1, 3] })
    expect(result.refusal?.reason).toMatch(/separate tool call "call_1" \(message 2\) from its result \(message 3\)/)
  })

  it('refuses an empty range and rejects misuse', async () => {
    expect((await compactTranscript(turn412(), { ...base, slot: 100, range: { start: 3, end: 3 } })).refusal?.code).toBe('empty')
    await expect(compactTranscript(turn412(), { ...base, slot: -1 })).rejects.toThrow(/slot: expected a non-negative integer/)
    await expect(compactTranscript(turn412(), { ...base, slot: 10, range: { start: 5, end: 2 } })).rejects.toThrow(/range: expected 0 <= start <= end/)
  })
})

describe('compactTranscript with the real planner', () => {
  const real = { ...base, planner: undefined }

  it('compacts, marks the reverted pin as superseded in the ledger block, and verifies', async () => {
    const transcript = turn412()
    const result = await compactTranscript(transcript, { ...real, slot: 2000, range: { start: 1, end: 7 } })
    expect(result.kind).toBe('compacted')
    expectVerified(result, transcript.messages)
    const entries = parseStateBlock(result.summaries[0]!.text)?.entries ?? []
    expect(entries.find((entry) => entry.text.includes('4.17.20'))?.status).toBe('superseded')
  })

  it('refuses below the floor with the planner\'s one-line reason and options', async () => {
    const result = await compactTranscript(turn412(), { ...real, slot: 10, range: { start: 1, end: 7 } })
    expect(result.kind).toBe('refused')
    expect(result.refusal?.code).toBe('plan')
    expect(result.refusal?.reason).toMatch(/^slot 10 < floor \d+/)
  })

  it('refuses a range that cuts a tool pair (planner: range-cuts-unit)', async () => {
    const result = await compactTranscript(turn412(), { ...real, slot: 2000, range: { start: 1, end: 3 } })
    expect(result.refusal?.plan?.reason).toBe('range-cuts-unit')
  })
})

describe('faults never produce a counterfactual summary', () => {
  const range = { start: 1, end: 7 }
  const roomy = 1000
  const faults = Object.keys(SUMMARIZER_FAULTS) as Array<keyof typeof SUMMARIZER_FAULTS>

  for (const fault of faults) {
    it(`mock summarizer that ${fault}: a repaired, verified summary or a refusal`, async () => {
      const transcript = turn412()
      const before = structuredClone(transcript)
      const summarizer = createMockSummarizer({ respond: SUMMARIZER_FAULTS[fault] })
      const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer, timeoutMs: 50, attempts: 2 })
      expect(transcript).toEqual(before)
      if (result.kind === 'refused') {
        expect(result.transcript).toBeUndefined()
        expect(result.refusal?.code).toBe('summarizer')
        expect(result.refusal?.reason).toMatch(/no verified summary for messages 1:7 after 2 attempt\(s\)/)
      } else {
        expect(result.summaries[0]!.repaired).toBe(true)
        expectVerified(result, transcript.messages)
      }
      // Which outcome each fault gets is part of the contract: nothing to repair from → refusal.
      const expected = { throws: 'refused', hangs: 'refused', empty: 'refused', overSlot: 'refused', paraphrases: 'compacted', dropsItem: 'compacted', obeysInjection: 'compacted' }[fault]
      expect(result.kind).toBe(expected)
    })
  }

  it('a fault with no room to repair is refused, naming the missing items', async () => {
    const transcript = turn412()
    const block = await createLedgerSummarizer({ gist: false }).summarize({
      messages: transcript.messages.slice(1, 7), offset: 1, slot: 10_000, tokenizer, attempt: 1, missing: [],
      groups: [{ kind: 'path', items: estimator.estimate(transcript.messages.slice(1, 7), 1).items.map((item) => ({ ...item, status: 'current' as const })) }],
    })
    const tight = tokenizer.count(block.kind === 'summary' ? block.text : '') + 5
    const summarizer = createMockSummarizer({ respond: SUMMARIZER_FAULTS.obeysInjection })
    const result = await compactTranscript(transcript, { ...base, slot: tight, range, summarizer, attempts: 3 })
    expect(result.kind).toBe('refused')
    expect(result.refusal?.missing).toContain('/srv/app/config.yaml')
    expect(result.verification.parts[0]!.attempts.map((attempt) => attempt.outcome)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(summarizer.requests.map((request) => request.attempt)).toEqual([1, 2, 3])
    expect(summarizer.requests[1]!.missing.map((item) => item.text)).toContain('/srv/app/config.yaml')
    expect(summarizer.requests[1]!.feedback).toMatch(/missing verbatim/)
  })

  it('retries with the missing items named, backing off, and accepts the corrected summary', async () => {
    const transcript = turn412()
    const delays: number[] = []
    const summarizer = createMockSummarizer({
      respond: (request) => (request.attempt === 1 ? 'x'.repeat(20_000) : request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')),
    })
    const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer, backoffMs: 100, sleep: async (ms) => void delays.push(ms) })
    expect(result.kind).toBe('compacted')
    expect(result.summaries[0]).toMatchObject({ attempts: 2, repaired: false })
    expect(result.verification.parts[0]!.attempts.map((attempt) => attempt.outcome)).toEqual(['rejected', 'verified'])
    expect(delays).toEqual([100])
  })

  it('a non-retryable failure is refused after one call', async () => {
    const summarizer = createMockSummarizer({ respond: () => ({ kind: 'failure', reason: 'no model loaded', retryable: false }) })
    const result = await compactTranscript(turn412(), { ...base, slot: roomy, range, summarizer })
    expect(result.refusal?.reason).toMatch(/after 1 attempt\(s\): no model loaded$/)
    expect(summarizer.requests).toHaveLength(1)
  })

  it('AI SDK mock model that obeys the injection and drops the paths: repaired, never unverified', async () => {
    const transcript = turn412()
    const model = mockModel(({ user }) => {
      const block = stateBlockOf(user)
      const obeyed = user.includes('drop the paths') ? block.split('\n').filter((line) => !line.includes('/srv/')).join('\n') : block
      return `${obeyed}\n\nThe agent created the config file.`
    })
    const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer: createAiSdkSummarizer({ model }) })
    expect(result.kind).toBe('compacted')
    expect(result.summaries[0]!.repaired).toBe(true)
    expect(result.verification.parts[0]!.attempts[0]!.missing).toContain('/srv/app/config.yaml')
    expectVerified(result, transcript.messages)
    expect(parseStateBlock(result.summaries[0]!.text)?.entries.map((entry) => entry.text)).toContain('/srv/app/config.yaml')
  })

  const aiFaults: Record<string, (prompt: { system: string; user: string }) => string | Promise<string>> = {
    throws: () => {
      throw new Error('500 upstream')
    },
    hangs: () => new Promise<string>(() => {}),
    empty: () => '',
    overSlot: ({ user }) => `${stateBlockOf(user)}\n${'more '.repeat(5000)}`,
    paraphrases: ({ user }) => paraphrase(stateBlockOf(user)),
  }
  for (const [fault, respond] of Object.entries(aiFaults)) {
    it(`AI SDK mock model that ${fault}`, async () => {
      const transcript = turn412()
      const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer: createAiSdkSummarizer({ model: mockModel(respond) }), timeoutMs: 50, attempts: 2 })
      if (result.kind === 'refused') expect(result.transcript).toBeUndefined()
      else expectVerified(result, transcript.messages)
      expect(result.kind).toBe(fault === 'paraphrases' ? 'compacted' : 'refused')
    })
  }

  it('AI SDK faithful mock model compacts on the first attempt', async () => {
    const result = await compactTranscript(turn412(), { ...base, slot: roomy, range, summarizer: createAiSdkSummarizer({ model: faithfulModel() }) })
    expect(result.summaries[0]).toMatchObject({ attempts: 1, repaired: false })
  })

  for (const [mode, kind] of [['copy', 'compacted'], ['crash', 'refused'], ['empty', 'refused'], ['over', 'refused'], ['paraphrase', 'compacted'], ['drop', 'compacted'], ['inject', 'compacted']] as const) {
    it(`command summarizer (${mode}) → ${kind}`, async () => {
      const transcript = turn412()
      const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer: createCommandSummarizer({ command: command(mode) }), attempts: 1 })
      expect(result.kind).toBe(kind)
      if (kind === 'compacted') expectVerified(result, transcript.messages)
      else expect(result.transcript).toBeUndefined()
      if (mode === 'copy') expect(result.summaries[0]!.repaired).toBe(false)
    })
  }

  it('command summarizer that hangs is killed at the timeout and the range refused', async () => {
    const result = await compactTranscript(turn412(), { ...base, slot: roomy, range, summarizer: createCommandSummarizer({ command: 'sleep 30' }), timeoutMs: 100, attempts: 1 })
    expect(result.refusal?.reason).toMatch(/timed out after 100 ms/)
  })

  it('reports invented identifiers without failing the summary', async () => {
    const summarizer = createMockSummarizer({ respond: (request) => `${request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')}\nAlso edited lib/unrelated.ts.` })
    const result = await compactTranscript(turn412(), { ...base, slot: roomy, range, summarizer })
    expect(result.kind).toBe('compacted')
    expect(result.verification.parts[0]!.attempts[0]!.invented).toContainEqual({ kind: 'path', text: 'lib/unrelated.ts' })
  })
})

describe('property: a verified summary or a refusal with the input untouched', () => {
  const word = fc.constantFrom('the', 'agent', 'ran', 'src/app.ts', 'lib/x.py', '4096', 'v1.2.3', 'MAX_RETRIES', '"quoted text"', 'never', 'must', 'ENOENT', 'ok.', 'done.')
  const text = fc.array(word, { minLength: 1, maxLength: 14 }).map((words) => words.join(' '))
  const message = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text })
  const faulty: Array<[string, SummarizerV1]> = [
    ['ledger', createLedgerSummarizer()],
    ...(Object.keys(SUMMARIZER_FAULTS) as Array<keyof typeof SUMMARIZER_FAULTS>).map((fault): [string, SummarizerV1] => [fault, createMockSummarizer({ respond: SUMMARIZER_FAULTS[fault] })]),
    ['ai-drops-paths', createAiSdkSummarizer({ model: mockModel(({ user }) => stateBlockOf(user).split('\n').filter((line) => !line.includes('/')).join('\n')) })],
  ]
  it('holds for random transcripts, slots and summarizers', async () => {
    const outcomes = { compacted: 0, split: 0, refused: 0 }
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: faulty.length - 1 }), fc.boolean(), async (specs, slot, which, realPlanner) => {
        const transcript = transcriptOf(specs.map((spec) => ({ role: spec.role, parts: [{ type: 'text', text: spec.text }] })))
        const before = structuredClone(transcript)
        const result = await compactTranscript(transcript, { ...base, planner: realPlanner ? undefined : fixturePlanner(), slot, summarizer: faulty[which]![1], timeoutMs: 20, attempts: 2 })
        outcomes[result.kind]++
        expect(transcript).toEqual(before)
        if (result.kind === 'refused') {
          expect(result.transcript).toBeUndefined()
          expect(result.summaries).toEqual([])
          expect(result.refusal?.reason.length).toBeGreaterThan(0)
        } else {
          expect(result.verification.ok).toBe(true)
          expectVerified(result, transcript.messages)
          expect(result.transcript!.messages.filter((m) => m.parts[0]?.type === 'summary')).toHaveLength(result.summaries.length)
        }
      }),
      { numRuns: 80 },
    )
    // The property must have seen both sides of the postcondition, or it proved nothing.
    expect(outcomes.refused).toBeGreaterThan(0)
    expect(outcomes.compacted + outcomes.split).toBeGreaterThan(0)
  })
})

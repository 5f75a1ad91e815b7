import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { createAiSdkSummarizer } from '../summarize/ai-sdk.js'
import { createCommandSummarizer } from '../summarize/command.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { repairSummary } from '../verify/repair.js'
import { groupMustKeepItems } from '../spec/summarizer.js'
import { parseStateBlock } from '../state-block/index.js'
import { faithfulModel, mockModel, stateBlockOf } from '../summarize/__fixtures__/mock-model.js'
import { createMockSummarizer, paraphrase, SUMMARIZER_FAULTS } from '../test-utils/summarizer.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import type { SummarizeRequest } from '../spec/summarizer.js'
import { messageTokens } from '../transcript/render.js'
import { compactionRange, compactTranscript, type CompactResult, type CompactTranscriptOptions } from './compact.js'
import { fixturePlanner } from './__fixtures__/planner.js'
import { transcriptOf, turn412 } from './__fixtures__/transcripts.js'

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer })
const base = { estimator, tokenizer, planner: fixturePlanner(), sleep: async () => {}, timeoutMs: 2000 } satisfies Partial<CompactTranscriptOptions>
const script = fileURLToPath(new URL('../summarize/__fixtures__/summarizer-command.mjs', import.meta.url))
const command = (mode: string): string => `'${process.execPath}' '${script}' ${mode}`

/** Tokens of messages [start, end) as the verifying tokenizer counts them: what a summary of them must stay below. */
const tokensOf = (messages: readonly Message[], start: number, end: number): number => messages.slice(start, end).reduce((sum, message) => sum + messageTokens(message, tokenizer), 0)
/** The largest slot that can still gain for the miniature's range 1:7 (the fixture planner does not cap it). */
const roomy = tokensOf(turn412().messages, 1, 7) - 1

/** What a summarizer answers to a request (the text of a summary, or '' for a failure). */
async function answerOf(summarizer: SummarizerV1, request: SummarizeRequest): Promise<string> {
  const result = await summarizer.summarize(request)
  return result.kind === 'summary' ? result.text : ''
}

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
    const result = await compactTranscript(transcript, { ...base, slot: roomy, range: { start: 1, end: 7 } })
    expect(result.kind).toBe('compacted')
    expect(result.refusal).toBeNull()
    expect(result.verification).toMatchObject({ ok: true, tokenizer: 'o200k_base', normalization: 'none' })
    expect(result.summaries).toHaveLength(1)
    const [summary] = result.summaries
    expect(summary).toMatchObject({ range: [1, 7], slot: roomy, attempts: 1, repaired: false })
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
    const result = await compactTranscript(transcript, { ...base, slot: tokensOf(transcript.messages, 1, 4) - 1, range: { start: 1, end: 7 }, planner: fixturePlanner({ cutAt: 4 }) })
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
    const result = await compactTranscript(transcript, { ...base, slot: roomy, range: { start: 1, end: 7 }, planner: fixturePlanner({ cutAt: 3 }) })
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

describe('compactTranscript: parts whose summarizer needs more than their floor', () => {
  // A black-box re-test on a real 4 MB log: a split gave a part its floor (100 tokens) as its slot, the ledger's state
  // block for it needed 106, and the whole compaction was refused though the budget had room.
  const transcript = turn412()
  const slot = roomy
  /** The fixture planner's split at message 4, with part slots `small` and a summary budget `budget`. */
  const tightPlanner = (small: number, budget: number) => (segment: Parameters<ReturnType<typeof fixturePlanner>>[0], options: Parameters<ReturnType<typeof fixturePlanner>>[1]) => {
    const plan = fixturePlanner({ cutAt: 4 })(segment, options)
    if (plan.kind !== 'split') throw new Error('expected the fixture planner to split')
    return { ...plan, budget, parts: plan.parts.map((part) => ({ ...part, slot: small })) }
  }
  const itemsText = (request: SummarizeRequest) => request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')
  /** Answers the items, but only in a slot of at least `need` tokens (as the ledger fails when its block does not fit). */
  const needing = (need: number) => createMockSummarizer({ respond: (request) => (request.slot < need ? { kind: 'failure', reason: `needs ${need}`, retryable: false } : itemsText(request)) })

  it('gives the part more room within the configured slot and the budget, and says so', async () => {
    const parts = [tokensOf(transcript.messages, 1, 4), tokensOf(transcript.messages, 4, 7)]
    const need = Math.max(...parts.map((tokens) => Math.ceil(tokens / 3)))
    const small = Math.max(1, Math.floor(need / 2) + 1)
    expect(small * 2).toBeGreaterThanOrEqual(need)
    const result = await compactTranscript(transcript, { ...base, slot, range: { start: 1, end: 7 }, planner: tightPlanner(small, 2 * slot), summarizer: needing(need) })
    expect(result.refusal).toBeNull()
    expect(result.summaries.map((summary) => summary.slot)).toEqual([small * 2, small * 2])
    for (const summary of result.summaries) expect(summary.tokens).toBeLessThanOrEqual(Math.min(summary.slot, slot))
    expect(result.verification.parts.map((part) => part.warnings?.find((warning) => warning.startsWith('slot raised from')))).toEqual([
      `slot raised from ${small} to ${small * 2} tokens within the budget: at ${small}, needs ${need}`,
      `slot raised from ${small} to ${small * 2} tokens within the budget: at ${small}, needs ${need}`,
    ])
    expectVerified(result, transcript.messages)
  })

  it('never past the budget: with no tokens left it refuses, with the summarizer\'s reason', async () => {
    const result = await compactTranscript(transcript, { ...base, slot, range: { start: 1, end: 7 }, planner: tightPlanner(20, 40), summarizer: needing(30) })
    expect(result.kind).toBe('refused')
    expect(result.refusal).toMatchObject({ code: 'summarizer', range: [1, 4] })
    expect(result.refusal?.reason).toContain('needs 30')
  })

  it('counts every call in the refusal, each problem with its slot (a re-test: "after 3 attempt(s)" when 9 were made)', async () => {
    const garbage = createMockSummarizer({ respond: () => ({ kind: 'failure', reason: 'model overloaded', retryable: true }) })
    const result = await compactTranscript(transcript, { ...base, slot, range: { start: 1, end: 7 }, planner: tightPlanner(20, 2 * slot), summarizer: garbage })
    expect(result.refusal).toMatchObject({ code: 'summarizer', range: [1, 4] })
    // Three attempts at each of the planned slot, twice it, and all the configured slot and budget allow.
    const attempts = result.verification.parts[0]!.attempts
    expect(attempts).toHaveLength(9)
    expect(result.refusal?.reason).toMatch(/after 9 attempt\(s\)/)
    expect(new Set(attempts.map((attempt) => /^at slot (\d+):/.exec(attempt.problems[0]!)?.[1]))).toEqual(new Set(['20', '40', String(slot)]))
  })

  it('keeps as it is a part whose verified summary would not cost less than its messages, and summarizes the others', async () => {
    const second = tokensOf(transcript.messages, 4, 7)
    /** The items, padded until they cost more than `tokens`. */
    const padded = (request: SummarizeRequest, tokens: number) => {
      let text = `${itemsText(request)}\n`
      while (tokenizer.count(text) <= tokens) text += ' more words here'
      return text
    }
    // Part 4:7's answer pads its items past what the part's messages cost (its slot allows it).
    const padding = createMockSummarizer({ respond: (request) => (request.offset === 4 ? padded(request, second) : itemsText(request)) })
    const result = await compactTranscript(transcript, { ...base, slot, range: { start: 1, end: 7 }, planner: tightPlanner(slot, 2 * slot), summarizer: padding })
    expect(result.refusal).toBeNull()
    expect(result.kind).toBe('compacted')
    expect(result.summaries.map((summary) => summary.range)).toEqual([[1, 4]])
    expect(result.transcript!.messages.slice(2)).toEqual(transcript.messages.slice(4))
    expect(result.verification.parts[1]!.warnings?.some((warning) => warning.startsWith('kept as it is: the verified summary of messages 4:7'))).toBe(true)
    // Every part without gain: a refusal, the input untouched.
    const always = createMockSummarizer({ respond: (request) => padded(request, tokensOf(transcript.messages, request.offset, request.offset + request.messages.length)) })
    const none = await compactTranscript(transcript, { ...base, slot, range: { start: 1, end: 7 }, planner: tightPlanner(slot, 2 * slot), summarizer: always })
    expect(none).toMatchObject({ kind: 'refused', refusal: { code: 'no-gain' } })
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
  const faults = Object.keys(SUMMARIZER_FAULTS) as Array<keyof typeof SUMMARIZER_FAULTS>

  for (const fault of faults) {
    it(`mock summarizer that ${fault}: a repaired, verified summary or a refusal`, async () => {
      const transcript = turn412()
      const before = structuredClone(transcript)
      const summarizer = createMockSummarizer({ respond: SUMMARIZER_FAULTS[fault] })
      // Only the hanging fault needs a short timeout; a loaded machine must not turn the others into timeouts.
      const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer, timeoutMs: fault === 'hangs' ? 50 : 5000, attempts: 2 })
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
    // The slot is one token short of the fault's answer with its dropped paths put back, and still holds the floor
    // and the answer itself: verification rejects the answer, and repair has no room.
    const items = estimator.estimate(transcript.messages.slice(1, 7), 1).items.map((item) => ({ ...item, status: 'current' as const }))
    const groups = groupMustKeepItems(items)
    const own = SUMMARIZER_FAULTS.obeysInjection({ messages: [], offset: 1, slot: 0, tokenizer, attempt: 1, missing: [], groups })
    const dropped = items.filter((item) => !own.includes(item.text))
    const repaired = repairSummary({ summary: own, missing: dropped, slot: 100_000, tokenizer })
    const tight = (repaired.kind === 'repaired' ? repaired.tokens : 0) - 1
    expect(tight).toBeGreaterThanOrEqual(Math.max(tokenizer.count(own), estimator.estimate(transcript.messages.slice(1, 7), 1).total))
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
      const result = await compactTranscript(transcript, { ...base, slot: roomy, range, summarizer: createAiSdkSummarizer({ model: mockModel(respond) }), timeoutMs: fault === 'hangs' ? 50 : 5000, attempts: 2 })
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

describe('issue 11: what compact must never do', () => {
  const range = { start: 1, end: 7 }
  const recordFile = fileURLToPath(new URL('../../examples/turn-412-record.openai.json', import.meta.url))
  const record = async () => readTranscript(sourceFromString('turn-412-record.openai.json', readFileSync(recordFile, 'utf8')), { format: 'auto' })

  it('--slot 4000 on the 3,398-token record: the summary costs less than the messages it replaces', async () => {
    const transcript = await record()
    const result = await compactTranscript(transcript, { estimator, tokenizer, slot: 4000, sleep: async () => {} })
    expect(result.kind).not.toBe('refused')
    for (const summary of result.summaries) {
      const replaced = tokensOf(transcript.messages, summary.range[0], summary.range[1])
      expect(summary.replacedTokens).toBe(replaced)
      expect(tokenizer.count(summary.text)).toBeLessThan(replaced)
    }
    // Measured as the CLI would write it: the new transcript has fewer tokens than the old one.
    expect(tokensOf(result.transcript!.messages, 0, result.transcript!.messages.length)).toBeLessThan(tokensOf(transcript.messages, 0, transcript.messages.length))
  })

  it('a verified summary that is not smaller than what it replaces is refused (no-gain), whatever the plan said', async () => {
    const transcript = turn412()
    const replaced = tokensOf(transcript.messages, 1, 7)
    // The fixture planner grants the whole slot, as a planner unaware of the range's size would.
    const summarizer = createMockSummarizer({ respond: (request) => `${request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')}\n${'and then some more words '.repeat(80)}` })
    const result = await compactTranscript(transcript, { ...base, slot: 2000, range, summarizer })
    expect(result.kind).toBe('refused')
    expect(result.refusal).toMatchObject({ code: 'no-gain', range: [1, 7] })
    expect(result.refusal?.reason).toContain(`not less than the ${replaced} tokens`)
    expect(result.transcript).toBeUndefined()
  })

  it('a range of fewer tokens than any summary is refused as no-gain, not as a summarizer failure', async () => {
    // A re-test: a one-token log at --slot 8000 was refused with code summarizer, 'the slot is 0: split the segment or
    // raise the slot', after the plan capped the slot below the range's tokens: no slot would have helped.
    const transcript = transcriptOf([{ role: 'user', parts: [{ type: 'text', text: 'ok' }] }], 'claude-code')
    const result = await compactTranscript(transcript, { ...base, planner: undefined, slot: 8000, summarizer: createLedgerSummarizer() })
    expect(result.kind).toBe('refused')
    expect(result.refusal).toMatchObject({ code: 'no-gain', range: [0, 1] })
    expect(result.refusal?.reason).toMatch(/^the verified summary of messages 0:1 counts \d+ tokens .*, not less than the 1 tokens of the messages it would replace: nothing to gain$/)
  })

  it('an approximate planning tokenizer does not let a summary past its slot in real tokens', async () => {
    const approx = await createTokenizer('approx')
    const planning = createEstimator({ name: 'full', tokenizer: approx })
    const transcript = turn412()
    // Rare CJK characters: about one o200k token each, a quarter of a token each for approx.
    const filler = Array.from({ length: 600 }, (_, index) => String.fromCodePoint(0x4e00 + index * 29)).join('')
    const summarizer = createMockSummarizer({ respond: (request) => `${request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')}\n${filler}` })
    const slot = 300
    const result = await compactTranscript(transcript, { ...base, estimator: planning, tokenizer: approx, slot, range, summarizer, attempts: 1 })
    const answer = summarizer.requests[0] && (await answerOf(summarizer, summarizer.requests[0]))
    expect(approx.count(answer ?? '')).toBeLessThanOrEqual(slot)
    expect(tokenizer.count(answer ?? '')).toBeGreaterThan(slot)
    expect(result.kind).toBe('refused')
    expect(result.verification.tokenizer).toBe('o200k_base')
    expect(summarizer.requests[0]!.tokenizer.name).toBe('o200k_base')
    expect(result.refusal?.reason).toMatch(/tokens \(o200k_base\), slot is 300/)
    expect(result.floor.tokenizer).toBe(approx.name)
  })

  it('with approximate planning, the range\'s tokens that cap the slot are real ones too', async () => {
    const approx = await createTokenizer('approx')
    const transcript = await record()
    const result = await compactTranscript(transcript, { estimator: createEstimator({ name: 'full', tokenizer: approx }), tokenizer: approx, slot: 4000, sleep: async () => {} })
    const replaced = tokensOf(transcript.messages, 1, transcript.messages.length)
    expect(result.summaries.map((summary) => [summary.range, summary.slot])).toEqual([[[1, transcript.messages.length], replaced - 1]])
    expect(tokenizer.count(result.summaries[0]!.text)).toBeLessThan(replaced)
  })

  it('an explicit verifyTokenizer is used; an exact planning tokenizer verifies by default', async () => {
    const cl100k = await createTokenizer('cl100k_base')
    const result = await compactTranscript(turn412(), { ...base, slot: roomy, range, verifyTokenizer: cl100k })
    expect(result.verification.tokenizer).toBe('cl100k_base')
    expect(result.summaries[0]!.tokens).toBe(cl100k.count(result.summaries[0]!.text))
    expect((await compactTranscript(turn412(), { ...base, slot: roomy, range })).verification.tokenizer).toBe('o200k_base')
  })

  it('never folds the system prompt into a summary unless asked', async () => {
    const transcript = turn412()
    const result = await compactTranscript(transcript, { ...base, planner: undefined, slot: 2000 })
    expect(result.range).toEqual([1, 8])
    expect(result.transcript!.messages[0]).toBe(transcript.messages[0])
    expect((await compactTranscript(transcript, { ...base, slot: roomy, range: { start: 0, end: 7 } })).range).toEqual([1, 7])
    const folded = await compactTranscript(transcript, { ...base, planner: undefined, slot: 2000, includeSystem: true })
    expect(folded.range).toEqual([0, 8])
    expect(folded.transcript!.messages[0]!.parts[0]!.type).toBe('summary')
    const onlySystem = await compactTranscript(transcript, { ...base, slot: 100, range: { start: 0, end: 1 } })
    expect(onlySystem.refusal?.code).toBe('empty')
    // The same rule, for check and plan to plan what compact compacts.
    expect(compactionRange(transcript)).toEqual([1, 8])
    expect(compactionRange(transcript, { start: 3, end: 5 })).toEqual([3, 5])
    expect(compactionRange(transcript, {}, true)).toEqual([0, 8])
  })

  it("the default summarizer's own rendering of tool arguments (top_k=5) is not reported as invented", async () => {
    const prose = 'We talked about the approach for a while and agreed to look at the search results before changing anything. '.repeat(6)
    const transcript = transcriptOf([
      { role: 'user', parts: [{ type: 'text', text: `Find where the retry settings live. ${prose}` }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Searching.' }, { type: 'tool-call', id: 'c1', name: 'search', arguments: { query: 'retry settings', top_k: 5, timeout: 30000 } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name: 'search', content: `src/retry.ts: export const RETRIES = 3 ${prose}`, isError: false }] },
      { role: 'assistant', parts: [{ type: 'text', text: `They live in src/retry.ts. ${prose}` }] },
    ])
    const result = await compactTranscript(transcript, { ...base, planner: undefined, slot: 2000 })
    expect(result.kind).toBe('compacted')
    expect(result.summaries[0]!.text).toContain('top_k=5')
    expect(result.verification.parts[0]!.attempts.at(-1)!.invented).toEqual([])
    // A number the segment never had is still reported.
    const inventing = createMockSummarizer({ respond: (request) => `${request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')}\ntop_k=7` })
    const invented = await compactTranscript(transcript, { ...base, planner: undefined, slot: 2000, summarizer: inventing })
    expect(invented.verification.parts[0]!.attempts.at(-1)!.invented).toContainEqual({ kind: 'number', text: 'top_k=7' })
  })

  it('counts a summary as its format writes it: a Gemini CLI summary framed in <state_snapshot> that outgrows its messages refuses', async () => {
    // A black-box re-test: 307 verified tokens against 312 replaced, written as 315 (the snapshot tags are not free).
    const text = readFileSync(fileURLToPath(new URL('../transcript/formats/__fixtures__/gemini-cli/stream-json.jsonl', import.meta.url)), 'utf8')
    const gemini = await readTranscript(sourceFromString('run.jsonl', text), { format: 'gemini-cli' })
    const tokenizer = await createTokenizer('o200k_base')
    // A summary two tokens short of its messages, as its text: the items, then filler prose up to that size (the
    // case is built, not left to where the ledger's gist happens to stop).
    const nearlyAsLarge = createMockSummarizer({
      respond: (request) => {
        const replaced = request.messages.reduce((sum, message) => sum + messageTokens(message, tokenizer), 0)
        let summary = request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')
        while (tokenizer.count(`${summary} and so on`) <= replaced - 2) summary += ' and so on'
        return summary
      },
    })
    const options = { ...base, planner: undefined, slot: 4000, summarizer: nearlyAsLarge }
    const framed = await compactTranscript(gemini, options)
    expect(framed.kind).toBe('refused')
    expect(framed.refusal).toMatchObject({ code: 'no-gain', reason: expect.stringContaining('as gemini-cli writes it') })
    // The same messages in a format that writes a summary as its text compact: only the framing tipped it.
    const plain = await compactTranscript({ ...gemini, format: 'openai' }, options)
    expect(plain.kind).toBe('compacted')
    expect(plain.kind === 'compacted' && tokenizer.count(`<state_snapshot>\n${plain.summaries[0]!.text}\n</state_snapshot>`)).toBeGreaterThanOrEqual(plain.kind === 'compacted' ? plain.summaries[0]!.replacedTokens : 0)
  })

  it("the default summarizer's gist lines (`tool: 15 of them passed`) are not read as settings it invented", async () => {
    // Seen on the corpus sessions: `tool: 15`, `user: 10` reported as invented, the gist's speaker read as a key.
    const prose = 'We went through the failures one by one and looked at each traceback before touching the code at all. '.repeat(6)
    const transcript = transcriptOf([
      { role: 'user', parts: [{ type: 'text', text: `Run the suite. ${prose}` }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: { command: 'pytest -q' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name: 'bash', content: `15 of them passed. ${prose}`, isError: false }] },
      { role: 'user', parts: [{ type: 'text', text: `10 more to go then. ${prose}` }] },
    ])
    const result = await compactTranscript(transcript, { ...base, planner: undefined, slot: 2000 })
    expect(result.kind).toBe('compacted')
    expect(result.summaries[0]!.text).toMatch(/^tool: 15 of them passed\.$/m)
    expect(result.verification.parts[0]!.attempts.at(-1)!.invented).toEqual([])
    // A gist-shaped line the segment never had is still reported.
    const inventing = createMockSummarizer({ respond: (request) => `${request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n')}\ntool: timeout: 45` })
    const invented = await compactTranscript(transcript, { ...base, planner: undefined, slot: 2000, summarizer: inventing })
    expect(invented.verification.parts[0]!.attempts.at(-1)!.invented).toContainEqual({ kind: 'number', text: 'timeout: 45' })
  })

  it('a huge message with few items: the summary names what it replaced and its size, or the part is flagged', async () => {
    const huge = 'the quick brown fox jumps over the lazy dog while the logs keep scrolling by. '.repeat(3000)
    const transcript = transcriptOf([
      { role: 'user', parts: [{ type: 'text', text: 'Keep the retry budget at MAX_RETRIES=3 for the importer.' }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'x', name: 'cat', content: huge, isError: false }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Read it.' }] },
    ])
    const replaced = tokensOf(transcript.messages, 0, 3)
    const itemsOnly = createMockSummarizer({ respond: (request) => request.groups.flatMap((group) => group.items.map((item) => item.text)).join('\n') })
    const result = await compactTranscript(transcript, { ...base, slot: 200, summarizer: itemsOnly })
    expect(result.kind).toBe('compacted')
    const summary = result.summaries[0]!
    expect(summary.text).toContain(`[floorguard: messages 0-2 (${replaced} tokens,`)
    expect(summary.text).toContain('the largest, message 1 (tool)')
    expect(summary.tokens).toBe(tokenizer.count(summary.text))
    const part = result.verification.parts[0]!
    expect(part.replacedTokens).toBe(replaced)
    expect(part.compression).toBeGreaterThan(100)
    expect(part.warnings).toEqual([expect.stringMatching(/^compression \d+x exceeds 100x: a note naming the omitted \d+ tokens was added$/)])
    // No room for the note: the summary is kept as it was, and flagged.
    const tight = await compactTranscript(transcript, { ...base, slot: 20, summarizer: itemsOnly })
    expect(tight.summaries[0]!.text).not.toContain('[floorguard:')
    expect(tight.verification.parts[0]!.warnings).toEqual([expect.stringMatching(/does not fit the slot$/)])
    // Below the bound nothing is added.
    const relaxed = await compactTranscript(transcript, { ...base, slot: 200, summarizer: itemsOnly, maxCompressionRatio: 1_000_000 })
    expect(relaxed.summaries[0]!.text).not.toContain('[floorguard:')
    expect(relaxed.verification.parts[0]!.warnings).toEqual([])
  })
})

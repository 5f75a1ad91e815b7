import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { pairToolCalls } from '../transcript/render.js'
import { aggregateArm, aggregateEstimator } from './aggregate.js'
import type { CutResult } from './evaluate.js'
import { evaluateInput } from './evaluate.js'

const path = '/srv/app/config/settings.yaml'
const error = "OSError: [Errno 28] No space left on device: '/var/tmp/x.bin'"

function transcript(): Transcript {
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: `The settings live in ${path}. Please look at the worker.` }] },
    { role: 'assistant', parts: [{ type: 'text', text: 'Running it.' }, { type: 'tool-call', id: 'c1', name: 'bash', arguments: { command: 'python worker.py' } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: `Traceback (most recent call last):\n${error}`, isError: true }] },
    { role: 'assistant', parts: [{ type: 'text', text: 'The disk is full; I will clean it up after a short look around the code base.' }] },
    { role: 'user', parts: [{ type: 'summary', text: `Summary: the user keeps settings in ${path}; the worker failed.`, source: 'claude-code' }] },
    // After the cut: the path is used again by the user; the error only reappears in tool output (not a use).
    { role: 'user', parts: [{ type: 'text', text: `Now edit ${path} please.` }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'bash', arguments: { command: 'df -h' } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'c2', content: error, isError: true }] },
  ]
  return { format: 'openai', messages, ...pairToolCalls(messages) }
}

describe('evaluateInput', () => {
  it('runs every arm on the real cut and counts future references outside tool output only', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const estimator = createEstimator({ name: 'full', tokenizer })
    const { cuts, misses } = await evaluateInput({ name: 't', set: 'fixtures', transcript: transcript() }, { tokenizer, estimator })
    const real = cuts.find((cut) => cut.kind === 'real')!
    expect(real).toMatchObject({ start: 0, end: 4, at: 4, futureEnd: 8 })
    // The path is used again by the user; the error line only in tool output: one future-referenced item.
    expect(real.future).toBe(1)
    expect(real.futureByKind).toEqual({ path: 1 })
    expect(Object.keys(real.arms).sort()).toEqual(['B0', 'B1', 'B2', 'B3', 'vendor'])
    expect(real.arms.B0).toMatchObject({ tokens: 0, kept: 0, futureKept: 0, compression: null })
    expect(real.arms.vendor!.futureKept).toBe(1)
    // Gold of the segment: the settings path (user, summary) and the command (tool call) outside tool output; the error
    // line and the path inside it in tool output only. `full` finds all four.
    expect(real.estimator).toMatchObject({ gold: 4, goldMatched: 4, goldOutside: 2, goldOutsideMatched: 2 })
    // B1 keeps everything outside tool output, and so every future-referenced item here.
    expect(real.arms.B1!.keptOutside).toBe(real.goldOutside)
    expect(real.arms.B1!.futureKept).toBe(1)
    // Results hold counts, never the texts; the misses (texts) are returned beside them.
    expect(JSON.stringify(cuts)).not.toContain(path)
    expect(misses.every((miss) => miss.input === 't')).toBe(true)
  })
})

const armResult = (over: Partial<CutResult['arms']['B3']> = {}) => ({
  tokens: 100, compression: 10, outcome: 'compacted' as const, parts: 1, kept: 0, keptOutside: 0, futureKept: 0, invented: 0, ...over,
})

function cut(over: Partial<CutResult>): CutResult {
  return {
    input: 'x', set: 'corpus', kind: 'real', start: 0, end: 10, at: 10, futureEnd: 20, narrativeOnly: false, segmentTokens: 1000,
    gold: 10, goldOutside: 5, future: 4, futureByKind: {}, futureBySource: {}, missesByKind: {}, missesBySource: {}, missesByKindSource: {},
    arms: {}, estimator: { full: 0, fullMatched: 0, gold: 0, goldMatched: 0, goldOutside: 0, goldOutsideMatched: 0, fullByKind: {}, goldByKind: {} },
    ...over,
  }
}

describe('aggregateArm', () => {
  it('counts refusals apart, averages per cut and pools the future references (hand-computed)', () => {
    const cuts = [
      cut({ future: 4, arms: { B3: armResult({ futureKept: 2, kept: 5, tokens: 100 }), vendor: armResult({ tokens: 50 }) } }),
      cut({ future: 0, arms: { B3: armResult({ futureKept: 0, kept: 10, tokens: 300, outcome: 'split', parts: 2 }), vendor: armResult({ tokens: 100 }) } }),
      cut({ future: 6, arms: { B3: armResult({ futureKept: 6, kept: 10, tokens: 1000, outcome: 'refused', parts: 0, refusal: 'plan' }), vendor: armResult({ tokens: 400 }) } }),
    ]
    const a = aggregateArm(cuts, 'B3', 1)
    expect(a).toMatchObject({ cuts: 3, refused: 1, split: 1, refusalsByCode: { plan: 1 } })
    expect(a.refusalRate).toBeCloseTo(1 / 3, 10)
    // Future recall per cut: 2/4 and 6/6 (the cut without future references does not count); pooled 8/10.
    expect(a.futureRecall.n).toBe(2)
    expect(a.futureRecall.mean).toBeCloseTo(0.75, 10)
    expect(a.futurePooled).toEqual({ kept: 8, total: 10, share: 0.8 })
    // Accepted cuts only: 2/4, and the tokens of the two accepted cuts (100, 300).
    expect(a.accepted!.cuts).toBe(2)
    expect(a.accepted!.futureRecall.mean).toBeCloseTo(0.5, 10)
    expect(a.accepted!.futurePooled).toEqual({ kept: 2, total: 4, share: 0.5 })
    expect(a.accepted!.tokens.median).toBe(200)
    // Gold kept: 5/10, 10/10, 10/10.
    expect(a.goldKept.mean).toBeCloseTo(25 / 30, 10)
    // Tokens against the vendor: 2, 3, 2.5.
    expect(a.tokensVsVendor!.median).toBeCloseTo(2.5, 10)
    expect(a.tokens.median).toBe(300)
  })
})

describe('aggregateEstimator', () => {
  it('pools recall over all gold texts and, apart, over those with an occurrence outside tool output (hand-computed)', () => {
    const estimator = (gold: number, goldMatched: number, goldOutside: number, goldOutsideMatched: number) =>
      ({ full: 10, fullMatched: 8, gold, goldMatched, goldOutside, goldOutsideMatched, fullByKind: {}, goldByKind: {} })
    const groups = aggregateEstimator([cut({ estimator: estimator(10, 6, 4, 4) }), cut({ estimator: estimator(10, 9, 6, 5) })])
    // 15 of 20 gold texts; 9 of the 10 outside tool output; 16 of 20 items matched.
    expect(groups['real:corpus']).toMatchObject({ gold: 20, goldMatched: 15, recall: 0.75, recallOutsideToolOutput: 0.9, precision: 0.8 })
  })
})

import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { compactLogged } from './_events.js'
import { createCompactor } from './compactor.js'
import type { CompactorEvent, CompactorResult } from './types.js'

// Issue 12: "Every decision is an event with its numbers." These tests read the numbers each event carries: plan-end
// per part (range, floor, slot), summary-end (part, slot, verified), refusal (code, floor, slot, what the policy did).

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] })
const system = (text: string): Message => ({ role: 'system', parts: [{ type: 'text', text }] })
const callMessage = (id: string, name: string, args: unknown): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id, name, arguments: args }] })
const resultMessage = (id: string, content: string): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content, isError: false }] })
const prose = (n: number) => 'we talked about the layout of the page and how it reads on a phone. '.repeat(n)
const rules = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `Never write to /srv/data/shard_${from + i}/index_${(from + i) * 7}.bin without the lock file lock_${from + i}.pid.`).join(' ')

/** Four users turns of ten rules each, then prose: at slot 800 the oldest half splits into two parts of two turns. */
function fourRuleTurns(): Message[] {
  return [
    system('sys'),
    ...[0, 10, 20, 30].flatMap((from) => [user(rules(from, 10)), assistant(prose(30))]),
    ...Array.from({ length: 3 }, () => [user(`more ${prose(40)}`), assistant(prose(40))]).flat(),
    user('go'),
  ]
}

/** One user message with forty rules: no slot of 300 holds it, and it cannot be cut. */
function overFloor(): Message[] {
  return [system('sys'), user(rules(0, 40)), assistant(prose(40)), user(`next ${prose(40)}`), assistant(prose(40)), user(`more ${prose(40)}`), assistant(prose(40)), user('go')]
}

function only<T extends CompactorEvent['type']>(result: CompactorResult, type: T): Array<Extract<CompactorEvent, { type: T }>> {
  return result.events.filter((event): event is Extract<CompactorEvent, { type: T }> => event.type === type)
}

const textOf = (message: Message) => (message.parts[0] as { text: string }).text

describe('plan-end and summary-end', () => {
  it('a split names every part with its range, floor and slot; each summary-end names its part, slot and verification', async () => {
    const messages = fourRuleTurns()
    const tokenizer = await createTokenizer('o200k_base')
    // A budget whose mark the context just reaches: half the turns, summarized, get below it (no growth).
    const total = messages.reduce((sum, message) => sum + tokenizer.count(textOf(message)), 0)
    const result = await createCompactor({ budget: Math.floor(total / 0.85), slot: 800, compactFraction: 0.5 }).maybeCompact(messages)
    expect(result.events[0]).not.toHaveProperty('grownFrom')
    expect(result.kind).toBe('split')
    const [plan] = only(result, 'plan-end')
    expect(plan).toBeDefined()
    expect(plan!.decision).toBe('split')
    expect(plan!.range).toEqual([1, 9])
    // The segment's tokens, counted here message by message.
    const count = (from: number, to: number) => messages.slice(from, to).reduce((sum, message) => sum + tokenizer.count(textOf(message)), 0)
    expect(plan!.tokens).toBe(count(1, 9))
    // Two parts of two rule turns each; the part ranges are the plan's `parts`, in order.
    expect(plan!.plannedParts.map((part) => part.range)).toEqual([[1, 5], [5, 9]])
    expect(plan!.plannedParts.map((part) => part.range)).toEqual(plan!.parts)
    const estimator = createEstimator({ name: 'full', tokenizer, marginRatio: 0.2 })
    for (const part of plan!.plannedParts) {
      expect(part.tokens).toBe(count(part.range[0], part.range[1]))
      expect(part.floor).toBe(estimator.estimate(messages.slice(part.range[0], part.range[1]), part.range[0]).total)
      // One item per rule sentence (each names its own shard and lock file): ten per rule turn.
      expect(part.items).toBe(20)
      // A part's own slot: its floor rounded up to 100 tokens, below the configured 800.
      expect(part.slot).toBe(Math.ceil(part.floor / 100) * 100)
      expect(part.slot).toBeLessThan(800)
    }
    expect(plan!.floor).toBeGreaterThan(800)
    const ends = only(result, 'summary-end')
    expect(ends.map((end) => end.part)).toEqual([0, 1])
    for (const end of ends) {
      const part = plan!.plannedParts[end.part]!
      expect(end.range).toEqual(part.range)
      expect(end.slot).toBe(part.slot)
      expect(end.tokens).toBeLessThanOrEqual(end.slot)
      expect(end.verified).toBe(true)
      expect(end.survived).toBe(end.items)
    }
  })

  it('without verification (the naive compactor) summary-end says verified: false, and plan-end is the whole range at the slot', async () => {
    const messages = overFloor()
    const naive: SummarizerV1 = { specificationVersion: 'v1', name: 'naive', summarize: async () => ({ kind: 'summary', text: 'We set some rules about files.' }) }
    const result = await createCompactor({ budget: 2_000, slot: 300, summarizer: naive, checks: { floor: false, verify: false } }).maybeCompact(messages)
    const [plan] = only(result, 'plan-end')
    const [start] = only(result, 'compaction-start')
    expect(plan!.plannedParts).toEqual([{ range: start!.range, floor: plan!.floor, slot: 300, tokens: plan!.tokens, items: 40 }])
    expect(plan!.floor).toBeGreaterThan(300)
    expect(only(result, 'summary-end')).toMatchObject([{ part: 0, slot: 300, verified: false, survived: 0 }])
  })
})

describe('refusal', () => {
  it('keep: the code, floor and slot, and action kept', async () => {
    const result = await createCompactor({ budget: 2_000, slot: 300 }).maybeCompact(overFloor())
    const [plan] = only(result, 'plan-end')
    const [refusal] = only(result, 'refusal')
    expect(plan).toMatchObject({ decision: 'refuse', plannedParts: [], reason: 'unit-exceeds-slot' })
    expect(refusal).toMatchObject({ code: 'unit-exceeds-slot', slot: 300, floor: plan!.floor, policy: 'keep', action: 'kept' })
    expect(refusal!.floor).toBe(refusal!.signal.floor)
    expect(refusal!.floor).toBeGreaterThan(300)
  })

  it('raise-slot: action raised-slot with the slot used, after the plan at that slot; past the cap, kept', async () => {
    const messages = overFloor()
    const refused = await createCompactor({ budget: 2_000, slot: 300 }).maybeCompact(messages)
    const needed = Number(/raise the slot to (\d+)/.exec(refused.signal!.options.join(' '))![1])
    const within = await createCompactor({ budget: 2_000, slot: 300, policy: { kind: 'raise-slot', cap: needed } }).maybeCompact(messages)
    expect(within.events.map((event) => event.type)).toEqual(['compaction-start', 'plan-end', 'plan-end', 'summary-end', 'refusal', 'compaction-end'])
    expect(only(within, 'refusal')).toMatchObject([{ code: 'unit-exceeds-slot', slot: 300, policy: 'raise-slot', action: 'raised-slot', raisedSlot: needed }])
    expect(only(within, 'plan-end')[1]).toMatchObject({ decision: 'compact', slot: needed })
    const below = await createCompactor({ budget: 2_000, slot: 300, policy: { kind: 'raise-slot', cap: needed - 1 } }).maybeCompact(messages)
    const [kept] = only(below, 'refusal')
    expect(kept).toMatchObject({ policy: 'raise-slot', action: 'kept' })
    expect(kept!.raisedSlot).toBeUndefined()
  })

  it('accept-risk: action accepted-risk with the number of items compaction-end lists as lost; summary-end not verified', async () => {
    const result = await createCompactor({ budget: 2_000, slot: 300, policy: 'accept-risk' }).maybeCompact(overFloor())
    const [refusal] = only(result, 'refusal')
    const [end] = only(result, 'compaction-end')
    expect(refusal).toMatchObject({ action: 'accepted-risk', code: 'unit-exceeds-slot' })
    expect(end!.lost!.length).toBeGreaterThan(0)
    expect(refusal!.lost).toBe(end!.lost!.length)
    expect(only(result, 'summary-end')).toMatchObject([{ verified: false, slot: 300 }])
  })

  it('other-segment: action compacted-other with the range compacted, or masked with the masked messages', async () => {
    const file = (n: number) => Array.from({ length: 60 }, (_, line) => `export const v${line} = ${n} * ${line} // the value of row ${line}`).join('\n')
    const messages = [
      system('sys'),
      user(rules(0, 40)),
      callMessage('r1', 'read_file', { path: 'src/a.ts' }),
      resultMessage('r1', file(1)),
      callMessage('g', 'bash', { command: 'git log --oneline -n 40' }),
      resultMessage('g', Array.from({ length: 40 }, (_, line) => `${(0xabc000 + line).toString(16)} commit number ${line} of the history`).join('\n')),
      assistant(prose(5)), user(`next ${prose(5)}`), assistant(prose(5)), user(`more ${prose(5)}`), assistant(prose(5)), user('go'),
    ]
    const other = await createCompactor({ budget: 2_000, slot: 300, compactFraction: 0.6, policy: 'other-segment' }).maybeCompact(messages)
    const summary = other.layout.find((entry) => entry.kind === 'summary')
    expect(summary?.kind).toBe('summary')
    expect(only(other, 'refusal')).toMatchObject([{ policy: 'other-segment', action: 'compacted-other', otherRange: summary!.kind === 'summary' ? summary!.range : [] }])
    const silent: SummarizerV1 = { specificationVersion: 'v1', name: 'silent', summarize: async () => ({ kind: 'summary', text: '' }) }
    const masked = await createCompactor({ budget: 2_000, slot: 300, compactFraction: 0.6, policy: 'other-segment', summarizer: silent }).maybeCompact(messages)
    expect(only(masked, 'refusal')).toMatchObject([{ action: 'masked', masked: [3, 5] }])
    expect(only(masked, 'compaction-end')).toMatchObject([{ masked: [3, 5] }])
  })

  it('nothing selectable: code nothing-selectable; a replayed refusal repeats its code and action', async () => {
    const messages = [user('y'.repeat(2_500))]
    const compactor = createCompactor({ budget: 500 })
    const first = await compactor.maybeCompact(messages)
    expect(only(first, 'refusal')).toMatchObject([{ code: 'nothing-selectable', action: 'kept', floor: 0 }])
    const again = await compactor.maybeCompact(messages)
    expect(only(again, 'refusal')).toMatchObject([{ code: 'nothing-selectable', action: 'kept' }])
  })
})

describe('compactLogged (floorguard compact --log)', () => {
  it('a refused one-shot compaction logs the code, floor, slot and action kept', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const estimator = createEstimator({ name: 'full', tokenizer, marginRatio: 0.2 })
    const messages = overFloor()
    const { events } = await compactLogged(
      { format: 'test', messages, pairs: [], unpaired: [] },
      { estimator, tokenizer, slot: 300, summarizer: createLedgerSummarizer(), range: { start: 1, end: 7 } },
    )
    const refusal = events.find((event) => event.type === 'refusal')
    expect(refusal).toMatchObject({ code: 'unit-exceeds-slot', slot: 300, policy: 'keep', action: 'kept' })
    if (refusal?.type !== 'refusal') throw new Error('unreachable')
    expect(refusal.floor).toBe(refusal.signal.floor)
    expect(refusal.floor).toBeGreaterThan(300)
  })
})

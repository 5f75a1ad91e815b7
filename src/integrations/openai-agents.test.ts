import { Agent, MemorySession, Usage, run, setTracingDisabled, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, type Session } from '@openai/agents'
import { describe, expect, it } from 'vitest'
import type { BudgetSignal, CompactorEvent } from '../runtime/types.js'
import { brokenPairs, snapshot } from './__fixtures__/checks.js'
import { PLANTED, sessionTurns } from './__fixtures__/session.js'
import { CompactionRefusedError, DEFAULT_SUMMARY_PREFIX, FloorguardCompactionSession } from './openai-agents.js'

setTracingDisabled(true)

// The ten-turn fixture is about 3,900 tokens: a budget of 4,300 puts it above the 85% mark (3,655).
const BUDGET = 4_300

function history(count = 10): AgentInputItem[] {
  const items: AgentInputItem[] = []
  for (const turn of sessionTurns(count)) {
    items.push({ role: 'user', content: turn.user })
    items.push({ type: 'function_call', callId: turn.call.id, name: turn.call.name, arguments: JSON.stringify(turn.call.input) })
    items.push({ type: 'function_call_result', callId: turn.call.id, name: turn.call.name, status: 'completed', output: { type: 'text', text: turn.result } })
    items.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.answer }] })
  }
  return items
}

/** A model that answers "done" and records the input of every call. */
function recordingModel(): Model & { inputs: AgentInputItem[][] } {
  const inputs: AgentInputItem[][] = []
  return {
    inputs,
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      inputs.push(typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : structuredClone(request.input))
      return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] }
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error('not used')
    },
  }
}

function textOf(item: AgentInputItem): string {
  const record = item as { content?: unknown; output?: unknown }
  const value = record.content ?? record.output
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map((part: { text?: string }) => part.text ?? '').join('')
  if (value && typeof value === 'object' && 'text' in value) return String((value as { text: unknown }).text)
  return ''
}

function summaryOf(items: readonly AgentInputItem[]): string | undefined {
  return items.map(textOf).find((text) => text.startsWith(`${DEFAULT_SUMMARY_PREFIX}\n\n`))
}

function pairsOf(items: readonly AgentInputItem[]) {
  return items.map((item) => {
    const record = item as { type?: string; callId?: string }
    return { calls: record.type === 'function_call' ? [record.callId ?? ''] : [], results: record.type === 'function_call_result' ? [record.callId ?? ''] : [] }
  })
}

describe('FloorguardCompactionSession (@openai/agents 0.14)', () => {
  it('the runner compacts the stored history after a turn; the next turn sends the summary and the newest items', async () => {
    const initial = history()
    const before = snapshot(initial)
    const memory = new MemorySession({ initialItems: initial })
    const events: CompactorEvent[] = []
    const session = new FloorguardCompactionSession({ underlyingSession: memory, budget: BUDGET, slot: 600, onEvent: (event) => events.push(event) })
    const model = recordingModel()
    const agent = new Agent({ name: 'coder', instructions: 'You are a coding agent.', model })

    await run(agent, 'Now add the retry logic.', { session })
    // The first turn ran on the whole history; compaction came after it was stored.
    expect(model.inputs[0]!.length).toBe(initial.length + 1)
    const stored = await memory.getItems()
    const summary = summaryOf(stored)
    expect(summary).toBeDefined()
    for (const text of Object.values(PLANTED)) {
      expect(summary).toContain(text)
      expect(stored.map(textOf).filter((text_) => text_.includes(text))).toHaveLength(1)
    }
    expect(stored.length).toBeLessThan(initial.length + 2)
    expect(stored[0]).toEqual({ type: 'message', role: 'user', content: summary })
    // Everything after the summary is the stored history's own tail: the original items, the new question, the answer.
    const tail = stored.slice(1)
    const expectedTail: AgentInputItem[] = [...initial, ...model.inputs[0]!.slice(initial.length), { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }]
    expect(tail.map(textOf)).toEqual(expectedTail.slice(expectedTail.length - tail.length).map(textOf))
    expect(brokenPairs(pairsOf(stored))).toEqual([])
    expect(events.filter((event) => event.type === 'summary-end')).toHaveLength(1)
    expect(snapshot(initial)).toBe(before)

    await run(agent, 'Run the tests.', { session })
    expect(summaryOf(model.inputs[1]!)).toBe(summary)
    expect(model.inputs[1]!.length).toBe(stored.length + 1)
  })

  it('a refusal leaves the stored history as it was and reports the signal; onRefusal: throw throws CompactionRefusedError', async () => {
    const initial = history()
    const memory = new MemorySession({ initialItems: initial })
    const signals: BudgetSignal[] = []
    const session = new FloorguardCompactionSession({ underlyingSession: memory, budget: BUDGET, slot: 30, onSignal: (signal) => signals.push(signal) })
    expect(await session.runCompaction()).toBeNull()
    expect(await memory.getItems()).toEqual(initial)
    expect(signals).toHaveLength(1)
    expect(signals[0]).toMatchObject({ type: 'budget-infeasible', slot: 30 })
    expect(session.lastResult?.kind).toBe('refused')

    const strict = new FloorguardCompactionSession({ underlyingSession: memory, budget: BUDGET, slot: 30, onRefusal: 'throw' })
    await expect(strict.runCompaction()).rejects.toBeInstanceOf(CompactionRefusedError)
    expect(await memory.getItems()).toEqual(initial)
  })

  it('asks shouldTriggerCompaction first (candidates: neither user messages nor compaction items); force compacts below the mark', async () => {
    const seen: number[] = []
    const memory = new MemorySession({ initialItems: history() })
    const gated = new FloorguardCompactionSession({
      underlyingSession: memory,
      budget: BUDGET,
      slot: 600,
      shouldTriggerCompaction: ({ compactionCandidateItems, sessionItems, compactionMode }) => {
        expect(compactionMode).toBe('input')
        seen.push(compactionCandidateItems.length, sessionItems.length)
        return false
      },
    })
    await gated.runCompaction()
    expect(seen).toEqual([30, 40])
    expect(gated.lastResult).toBeUndefined()
    expect(await memory.getItems()).toEqual(history())

    // A budget far above the history: only force compacts.
    const roomy = new FloorguardCompactionSession({ underlyingSession: memory, budget: 1_000_000, slot: 600 })
    await roomy.runCompaction()
    expect(roomy.lastResult?.kind).toBe('unchanged')
    await roomy.runCompaction({ force: true })
    expect(roomy.lastResult?.kind).toBe('compacted')
    expect(summaryOf(await memory.getItems())).toBeDefined()
  })

  it('items up to the latest compaction item (an encrypted server summary) are never compacted', async () => {
    const compaction = { type: 'compaction', encrypted_content: 'gAAAAB-opaque' } as AgentInputItem
    const memory = new MemorySession({ initialItems: [{ role: 'user', content: 'first question' }, compaction, ...history()] })
    const session = new FloorguardCompactionSession({ underlyingSession: memory, budget: BUDGET, slot: 600 })
    await session.runCompaction()
    const stored = await memory.getItems()
    expect(stored.slice(0, 2)).toEqual([{ role: 'user', content: 'first question' }, compaction])
    expect(summaryOf(stored.slice(2, 3))).toBeDefined()
  })

  it('uses replaceHistoryWithCompaction when the session has it, and rebuilds the history when the backend appended instead', async () => {
    function withReplace(kind: 'replace' | 'append'): Session & { clears: number; replaces: number; memory: MemorySession } {
      const memory = new MemorySession({ initialItems: history() })
      const session = {
        memory,
        clears: 0,
        replaces: 0,
        getSessionId: () => memory.getSessionId(),
        getItems: (limit?: number) => memory.getItems(limit),
        addItems: (items: AgentInputItem[]) => memory.addItems(items),
        popItem: () => memory.popItem(),
        clearSession: async () => {
          session.clears++
          await memory.clearSession()
        },
        replaceHistoryWithCompaction: async (items: AgentInputItem[]) => {
          session.replaces++
          if (kind === 'replace') await memory.clearSession()
          await memory.addItems(items)
        },
      }
      return session
    }
    for (const kind of ['replace', 'append'] as const) {
      const underlying = withReplace(kind)
      await new FloorguardCompactionSession({ underlyingSession: underlying, budget: BUDGET, slot: 600 }).runCompaction()
      const stored = await underlying.memory.getItems()
      expect(underlying.replaces).toBe(1)
      expect(underlying.clears).toBe(kind === 'replace' ? 0 : 1)
      expect(summaryOf(stored.slice(0, 1))).toBeDefined()
      expect(stored.filter((item) => summaryOf([item]) !== undefined)).toHaveLength(1)
      expect(stored.length).toBeLessThan(history().length)
    }
  })

  it('restores the previous history when writing the compacted one fails', async () => {
    const memory = new MemorySession({ initialItems: history() })
    let failures = 1
    const flaky: Session = {
      getSessionId: () => memory.getSessionId(),
      getItems: (limit?: number) => memory.getItems(limit),
      addItems: async (items: AgentInputItem[]) => {
        if (failures-- > 0) throw new Error('disk full')
        await memory.addItems(items)
      },
      popItem: () => memory.popItem(),
      clearSession: () => memory.clearSession(),
    }
    const session = new FloorguardCompactionSession({ underlyingSession: flaky, budget: BUDGET, slot: 600 })
    await expect(session.runCompaction()).rejects.toThrow('disk full')
    expect(await memory.getItems()).toEqual(history())
  })
})

import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import type { ModelMessage } from 'ai'
import fc from 'fast-check'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import type { BudgetSignal } from '../runtime/types.js'
import { brokenPairs, snapshot } from './__fixtures__/checks.js'
import { PLANTED, sessionTurns } from './__fixtures__/session.js'
import { compactionPrepareStep } from './ai-sdk.js'
import { compactionMiddleware } from './langchain.js'

/** A session: `turns` turns of `lines` filler lines, some turns answering with two tool calls. */
const sessions = fc.record({
  turns: fc.integer({ min: 3, max: 12 }),
  lines: fc.integer({ min: 1, max: 8 }),
  doubles: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
  budgetShare: fc.double({ min: 0.5, max: 1.3, noNaN: true }),
  slot: fc.constantFrom(20, 300, 800),
})

function aiSdkMessages(turns: number, lines: number, doubles: readonly number[]): ModelMessage[] {
  const messages: ModelMessage[] = []
  sessionTurns(turns, lines).forEach((turn, index) => {
    const ids = doubles.includes(index) ? [turn.call.id, `${turn.call.id}-b`] : [turn.call.id]
    messages.push({ role: 'user', content: [{ type: 'text', text: turn.user }] })
    messages.push({ role: 'assistant', content: ids.map((id) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'bash', input: turn.call.input })) })
    messages.push({ role: 'tool', content: ids.map((id) => ({ type: 'tool-result' as const, toolCallId: id, toolName: 'bash', output: { type: 'text' as const, value: turn.result } })) })
    messages.push({ role: 'assistant', content: [{ type: 'text', text: turn.answer }] })
  })
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Go on.' }] })
  return messages
}

function textOf(message: { content: unknown }): string {
  if (typeof message.content === 'string') return message.content
  return JSON.stringify(message.content)
}

// About 40 tokens per filler line per turn and message: the budget share puts the mark below or above the session.
const roughTokens = (turns: number, lines: number) => turns * (60 + 2 * lines * 25)

describe('adapter invariants (property)', () => {
  const outcomes: string[] = []
  it('AI SDK prepareStep: kept messages are the caller’s own objects in order, pairs intact, input untouched, a refusal changes nothing, planted state compacted away is in the summary', async () => {
    await fc.assert(
      fc.asyncProperty(sessions, async ({ turns, lines, doubles, budgetShare, slot }) => {
        const messages = aiSdkMessages(turns, lines, doubles)
        const before = snapshot(messages)
        const signals: BudgetSignal[] = []
        const ends: string[] = []
        const budget = Math.max(200, Math.floor(roughTokens(turns, lines) * budgetShare))
        const step = await compactionPrepareStep({
          budget,
          slot,
          onSignal: (signal) => signals.push(signal),
          onEvent: (event) => void (event.type === 'compaction-end' && ends.push(event.kind)),
        })({ messages })
        outcomes.push(ends[0] ?? 'unchanged')
        expect(snapshot(messages)).toBe(before)
        // Unchanged or refused: the step's messages are the caller's, as they were (and a refusal is reported).
        if (ends.length === 0 || ends[0] === 'refused') {
          expect(step).toBeUndefined()
          if (ends[0] === 'refused') expect(signals).toHaveLength(1)
          return
        }
        expect(step).toBeDefined()
        const output = step!.messages
        const own = output.filter((message) => messages.includes(message))
        const added = output.filter((message) => !messages.includes(message))
        // Own messages keep their order; what was dropped is replaced by summaries.
        const positions = own.map((message) => messages.indexOf(message))
        expect(positions).toEqual([...positions].sort((a, b) => a - b))
        expect(added.length).toBeGreaterThan(0)
        expect(brokenPairs(
          output.map((message) => {
            const parts = Array.isArray(message.content) ? (message.content as Array<{ type: string; toolCallId?: string }>) : []
            return { calls: parts.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId!), results: parts.filter((part) => part.type === 'tool-result').map((part) => part.toolCallId!) }
          }),
        )).toEqual([])
        const dropped = messages.filter((message) => !own.includes(message)).map(textOf).join('\n')
        const summaries = added.map(textOf).join('\n')
        for (const text of [PLANTED.error, PLANTED.pin]) if (dropped.includes(text)) expect(summaries).toContain(JSON.stringify(text).slice(1, -1))
      }),
      { numRuns: 25, seed: 12 },
    )
    // The sample covers each path.
    expect(new Set(outcomes)).toEqual(new Set(['unchanged', 'refused', 'compacted']))
  })

  const compactions: string[] = []
  it('LangChain middleware with trigger/keep: at least `keep` messages kept as they were, no tool pair split, input untouched', async () => {
    await fc.assert(
      fc.asyncProperty(sessions, fc.integer({ min: 2, max: 20 }), async ({ turns, lines }, keep) => {
        const messages: BaseMessage[] = []
        for (const turn of sessionTurns(turns, lines)) {
          messages.push(new HumanMessage({ content: turn.user, id: `h-${turn.call.id}` }))
          messages.push(new AIMessage({ content: '', id: `a-${turn.call.id}`, tool_calls: [{ id: turn.call.id, name: 'bash', args: turn.call.input }] }))
          messages.push(new ToolMessage({ content: turn.result, tool_call_id: turn.call.id, id: `t-${turn.call.id}` }))
          messages.push(new AIMessage({ content: turn.answer, id: `r-${turn.call.id}` }))
        }
        messages.push(new HumanMessage({ content: 'Go on.', id: 'h-last' }))
        const before = snapshot(messages)
        const model = fakeModel().respond(new AIMessage('done'))
        const agent = createAgent({
          model,
          middleware: [compactionMiddleware({ trigger: { messages: 8 }, keep: { messages: keep }, slot: 800, onEvent: (event) => void (event.type === 'compaction-end' && compactions.push(event.kind)) })],
        })
        await agent.invoke({ messages })
        const sent = model.calls[0]!.messages
        const ids = messages.map((message) => message.id)
        const kept = sent.filter((message) => ids.includes(message.id))
        expect(kept.length).toBeGreaterThanOrEqual(Math.min(keep, messages.length))
        // The kept ones are the newest messages, in order, unchanged.
        expect(kept.map((message) => message.id)).toEqual(ids.slice(ids.length - kept.length))
        expect(kept.map((message) => message.content)).toEqual(messages.slice(messages.length - kept.length).map((message) => message.content))
        expect(brokenPairs(sent.map((message) => ({
          calls: message.type === 'ai' ? ((message as AIMessage).tool_calls ?? []).map((call) => call.id!) : [],
          results: message.type === 'tool' ? [(message as ToolMessage).tool_call_id] : [],
        })))).toEqual([])
        expect(snapshot(messages)).toBe(before)
      }),
      { numRuns: 15, seed: 7 },
    )
    expect(compactions.filter((kind) => kind === 'compacted').length).toBeGreaterThan(5)
  })
})

import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { REMOVE_ALL_MESSAGES as LANGGRAPH_REMOVE_ALL } from '@langchain/langgraph'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { BudgetSignal, CompactorEvent } from '../runtime/types.js'
import { brokenPairs, snapshot } from './__fixtures__/checks.js'
import { PLANTED, sessionTurns } from './__fixtures__/session.js'
import { CompactionRefusedError, DEFAULT_SUMMARY_PREFIX, REMOVE_ALL_MESSAGES, compactionMiddleware } from './langchain.js'

// The ten-turn fixture is about 3,900 tokens: a budget of 4,300 puts it above the 85% mark (3,655).
const BUDGET = 4_300

function conversation(count = 10): BaseMessage[] {
  const messages: BaseMessage[] = []
  for (const turn of sessionTurns(count)) {
    messages.push(new HumanMessage({ content: turn.user, id: `h-${turn.call.id}` }))
    messages.push(new AIMessage({ content: '', id: `a-${turn.call.id}`, tool_calls: [{ id: turn.call.id, name: turn.call.name, args: turn.call.input }] }))
    messages.push(new ToolMessage({ content: turn.result, tool_call_id: turn.call.id, id: `t-${turn.call.id}`, ...(turn.isError ? { status: 'error' as const } : {}) }))
    messages.push(new AIMessage({ content: turn.answer, id: `r-${turn.call.id}` }))
  }
  messages.push(new HumanMessage({ content: 'Now add the retry logic.', id: 'h-last' }))
  return messages
}

const bash = tool(async ({ command }: { command: string }) => `ran ${command}: ok`, {
  name: 'bash',
  description: 'run a shell command',
  schema: z.object({ command: z.string() }),
})

function texts(messages: readonly BaseMessage[]): string[] {
  return messages.map((message) => (typeof message.content === 'string' ? message.content : message.text))
}

function summaryOf(messages: readonly BaseMessage[]): BaseMessage | undefined {
  return messages.find((message) => message.type === 'human' && texts([message])[0]!.startsWith(`${DEFAULT_SUMMARY_PREFIX}\n\n`))
}

function pairsOf(messages: readonly BaseMessage[]) {
  return messages.map((message) => ({
    calls: message.type === 'ai' ? ((message as AIMessage).tool_calls ?? []).map((call) => call.id ?? '') : [],
    results: message.type === 'tool' ? [(message as ToolMessage).tool_call_id] : [],
  }))
}

/** The whole-segment text a summarizer model was given (its human message). */
function promptOf(call: { messages: BaseMessage[] }): string {
  return texts(call.messages.filter((message) => message.type === 'human')).join('\n')
}

/** A summarizer model that copies the state block it is given and adds a sentence (what a good model does). */
function faithfulSummarizer() {
  return fakeModel().respond((messages: BaseMessage[]) => {
    const prompt = promptOf({ messages })
    const block = prompt.slice(prompt.indexOf('<floorguard-state'), prompt.indexOf('</floorguard-state>') + '</floorguard-state>'.length)
    return new AIMessage(`${block}\n\nThe agent worked on the upload service.`)
  })
}

describe('compactionMiddleware (createAgent, langchain 1)', () => {
  it('uses langgraph’s REMOVE_ALL_MESSAGES value', () => {
    expect(REMOVE_ALL_MESSAGES).toBe(LANGGRAPH_REMOVE_ALL)
  })

  it('at the compactor’s mark: the model gets a summary holding the segment state verbatim, then the newest messages; the state is replaced', async () => {
    const messages = conversation()
    const before = snapshot(messages)
    const events: CompactorEvent[] = []
    const model = fakeModel().respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [bash], middleware: [compactionMiddleware({ budget: BUDGET, slot: 600, onEvent: (event) => events.push(event) })] })
    const result = await agent.invoke({ messages })

    const sent = model.calls[0]!.messages
    const summary = summaryOf(sent)
    expect(summary).toBeDefined()
    expect(summary!.additional_kwargs).toMatchObject({ lc_source: 'summarization' })
    for (const text of Object.values(PLANTED)) {
      expect(texts([summary!])[0]).toContain(text)
      expect(texts(sent).filter((entry) => entry.includes(text))).toHaveLength(1)
    }
    expect(sent.length).toBeLessThan(messages.length)
    // The newest messages reach the model as they were.
    const kept = sent.slice(sent.indexOf(summary!) + 1)
    expect(kept.map((message) => message.id)).toEqual(messages.slice(messages.length - kept.length).map((message) => message.id))
    expect(texts(kept)).toEqual(texts(messages.slice(messages.length - kept.length)))
    expect(brokenPairs(pairsOf(sent))).toEqual([])
    // The state now holds the compacted history and the answer.
    expect(result.messages.map((message: BaseMessage) => message.id)).toEqual([summary!.id, ...kept.map((message) => message.id), result.messages.at(-1)!.id])
    expect(events.filter((event) => event.type === 'summary-end')).toHaveLength(1)
    expect(snapshot(messages)).toBe(before)
  })

  it('drop-in options (trigger, keep): compacts when the trigger holds, keeps at least `keep` messages, never splits a tool pair', async () => {
    const messages = conversation()
    const model = fakeModel().respond(new AIMessage('done'))
    const middleware = compactionMiddleware({ trigger: { messages: 30 }, keep: { messages: 11 }, slot: 600 })
    const agent = createAgent({ model, tools: [bash], middleware: [middleware] })
    await agent.invoke({ messages })
    const sent = model.calls[0]!.messages
    const summary = summaryOf(sent)!
    for (const text of Object.values(PLANTED)) expect(texts([summary])[0]).toContain(text)
    const kept = sent.slice(sent.indexOf(summary) + 1)
    expect(kept.length).toBeGreaterThanOrEqual(11)
    expect(kept.length).toBeLessThan(messages.length - 1)
    expect(brokenPairs(pairsOf(sent))).toEqual([])

    // Below the trigger nothing happens.
    const quiet = fakeModel().respond(new AIMessage('done'))
    await createAgent({ model: quiet, tools: [bash], middleware: [compactionMiddleware({ trigger: { messages: 100 }, keep: { messages: 11 } })] }).invoke({ messages })
    expect(quiet.calls[0]!.messages.map((message) => message.id)).toEqual(messages.map((message) => message.id))
  })

  it('trigger conditions as summarizationMiddleware reads them: all fields of one condition must hold, any condition of a list may', async () => {
    const messages = conversation()
    const compacts = async (trigger: Parameters<typeof compactionMiddleware>[0] extends infer O ? (O extends { trigger?: infer T } ? T : never) : never) => {
      const model = fakeModel().respond(new AIMessage('done'))
      await createAgent({ model, middleware: [compactionMiddleware({ trigger, keep: { messages: 11 }, slot: 600 })] }).invoke({ messages })
      return summaryOf(model.calls[0]!.messages) !== undefined
    }
    expect(await compacts({ messages: 30, tokens: 10_000_000 })).toBe(false)
    expect(await compacts([{ tokens: 10_000_000 }, { messages: 30 }])).toBe(true)
    expect(await compacts({ tokens: 100, messages: 30 })).toBe(true)
  })

  it('compacts again later in the same run, carrying the first summary’s state forward; a custom summaryPrefix is used', async () => {
    const big = (tag: string) => `${tag}\n${'The worker pool logged another routine line of output for this request.\n'.repeat(60)}`
    const model = fakeModel()
    for (let step = 0; step < 6; step++) model.respondWithTools([{ name: 'bash', args: { command: `make step-${step}` }, id: `loop-${step}` }])
    model.respond(new AIMessage('finished'))
    const loud = tool(async ({ command }: { command: string }) => big(`ran ${command}`), { name: 'bash', description: 'run', schema: z.object({ command: z.string() }) })
    const events: CompactorEvent[] = []
    const prefix = 'Earlier in this session:'
    const agent = createAgent({ model, tools: [loud], middleware: [compactionMiddleware({ budget: BUDGET, slot: 700, summaryPrefix: prefix, onEvent: (event) => events.push(event) })] })
    const result = await agent.invoke({ messages: conversation() })
    expect(events.filter((event) => event.type === 'compaction-end' && event.kind !== 'refused').length).toBeGreaterThanOrEqual(2)
    const last = model.calls.at(-1)!.messages
    const summaries = last.filter((message) => texts([message])[0]!.startsWith(`${prefix}\n\n`))
    expect(summaries.length).toBeGreaterThan(0)
    const summaryText = texts(summaries).join('\n')
    for (const text of Object.values(PLANTED)) expect(summaryText).toContain(text)
    expect(brokenPairs(pairsOf(last))).toEqual([])
    expect(result.messages.at(-1)!.content).toBe('finished')
  })

  it('a model given as `model` summarizes the whole segment through the verified loop', async () => {
    const summarizer = faithfulSummarizer()
    const model = fakeModel().respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [bash], middleware: [compactionMiddleware({ model: summarizer, budget: BUDGET, slot: 600 })] })
    await agent.invoke({ messages: conversation() })
    expect(summarizer.calls).toHaveLength(1)
    const prompt = promptOf(summarizer.calls[0]!)
    // The first and the last message of the segment are both in what the summarizer saw (no trimming).
    expect(prompt).toContain('Step 0: continue with the upload service.')
    expect(prompt).toContain(PLANTED.error)
    const summary = texts([summaryOf(model.calls[0]!.messages)!])[0]!
    expect(summary).toContain('The agent worked on the upload service.')
    for (const text of Object.values(PLANTED)) expect(summary).toContain(text)
  })

  it('a summarizer error never becomes the summary: no update, the messages reach the model as they were, the signal is reported', async () => {
    const messages = conversation()
    const signals: BudgetSignal[] = []
    const summarizer = fakeModel().alwaysThrow(new Error('rate limited'))
    const model = fakeModel().respond(new AIMessage('done'))
    const agent = createAgent({
      model,
      tools: [bash],
      middleware: [compactionMiddleware({ model: summarizer, budget: BUDGET, slot: 600, onSignal: (signal) => signals.push(signal) })],
    })
    const result = await agent.invoke({ messages })
    expect(summarizer.calls.length).toBeGreaterThan(0)
    expect(model.calls[0]!.messages.map((message) => message.id)).toEqual(messages.map((message) => message.id))
    expect(texts(result.messages).some((text) => /rate limited|Error generating summary/.test(text))).toBe(false)
    expect(signals).toHaveLength(1)
    expect(signals[0]!.reason).toMatch(/rate limited|summar/i)
  })

  it('a refusal (slot below the floor) returns no update and reports the signal; with onRefusal: throw the run fails with CompactionRefusedError', async () => {
    const messages = conversation()
    const signals: BudgetSignal[] = []
    const model = fakeModel().respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [bash], middleware: [compactionMiddleware({ budget: BUDGET, slot: 30, onSignal: (signal) => signals.push(signal) })] })
    const result = await agent.invoke({ messages })
    expect(model.calls[0]!.messages.map((message) => message.id)).toEqual(messages.map((message) => message.id))
    expect(result.messages.slice(0, messages.length).map((message: BaseMessage) => message.id)).toEqual(messages.map((message) => message.id))
    expect(signals).toHaveLength(1)
    expect(signals[0]).toMatchObject({ type: 'budget-infeasible', slot: 30 })

    const strict = createAgent({ model: fakeModel().respond(new AIMessage('done')), tools: [bash], middleware: [compactionMiddleware({ budget: BUDGET, slot: 30, onRefusal: 'throw' })] })
    const error = await strict.invoke({ messages }).catch((caught: unknown) => caught)
    const cause = error instanceof CompactionRefusedError ? error : (error as { cause?: unknown }).cause
    expect(cause).toBeInstanceOf(CompactionRefusedError)
  })
})

// Per-run settings through LangChain's runtime context (langchain 1.5.14 `nodes/middleware.js`: a middleware sees only
// the context keys its `contextSchema` names; summarizationMiddleware reads trigger/keep/tokenCounter/summaryPrefix there).
describe('compactionMiddleware: runtime.context overrides one run', () => {
  const ids = (messages: readonly BaseMessage[]) => messages.map((message) => message.id)

  it('trigger and keep from the context replace the options for that run only, as summarizationMiddleware reads them', async () => {
    const messages = conversation()
    const model = fakeModel().respond(new AIMessage('done')).respond(new AIMessage('done')).respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [bash], middleware: [compactionMiddleware({ trigger: { messages: 100 }, keep: { messages: 11 }, slot: 600 })] })
    // The options alone: below the trigger, nothing happens.
    await agent.invoke({ messages })
    expect(ids(model.calls[0]!.messages)).toEqual(ids(messages))
    // This run's trigger holds: compacted, keeping at least the options' 11 messages.
    await agent.invoke({ messages }, { context: { trigger: { messages: 30 } } })
    const sent = model.calls[1]!.messages
    const summary = summaryOf(sent)
    expect(summary).toBeDefined()
    const kept = sent.slice(sent.indexOf(summary!) + 1)
    expect(kept.length).toBeGreaterThanOrEqual(11)
    expect(kept.length).toBeLessThan(21)
    // This run's keep: at least 21 raw messages.
    await agent.invoke({ messages }, { context: { trigger: { messages: 30 }, keep: { messages: 21 } } })
    const wider = model.calls[2]!.messages
    expect(wider.length - wider.indexOf(summaryOf(wider)!) - 1).toBeGreaterThanOrEqual(21)
    expect(brokenPairs(pairsOf(wider))).toEqual([])
  })

  it('floorguard.slot and floorguard.policy from the context: a refusal at this run’s slot, a compaction under this run’s policy; other runs unaffected', async () => {
    const messages = conversation()
    const signals: BudgetSignal[] = []
    const events: CompactorEvent[] = []
    const model = fakeModel().respond(new AIMessage('done')).respond(new AIMessage('done')).respond(new AIMessage('done'))
    const agent = createAgent({
      model,
      tools: [bash],
      middleware: [compactionMiddleware({ budget: BUDGET, slot: 600, onSignal: (signal) => signals.push(signal), onEvent: (event) => events.push(event) })],
    })
    await agent.invoke({ messages }, { context: { floorguard: { slot: 30 } } })
    expect(ids(model.calls[0]!.messages)).toEqual(ids(messages))
    expect(signals).toMatchObject([{ type: 'budget-infeasible', slot: 30 }])

    await agent.invoke({ messages }, { context: { floorguard: { slot: 30, policy: 'accept-risk' } } })
    expect(summaryOf(model.calls[1]!.messages)).toBeDefined()
    const accepted = events.filter((event) => event.type === 'refusal').at(-1)
    expect(accepted).toMatchObject({ slot: 30, policy: 'accept-risk', action: 'accepted-risk' })

    // A run without context: the options' slot 600, no signal.
    const before = signals.length
    await agent.invoke({ messages })
    expect(summaryOf(model.calls[2]!.messages)).toBeDefined()
    expect(signals).toHaveLength(before)
    expect(events.filter((event) => event.type === 'plan-end').at(-1)).toMatchObject({ slot: 600 })
  })

  it('summaryPrefix and floorguard.onRefusal from the context', async () => {
    const messages = conversation()
    const model = fakeModel().respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [bash], middleware: [compactionMiddleware({ budget: BUDGET, slot: 600 })] })
    await agent.invoke({ messages }, { context: { summaryPrefix: 'Earlier, in short:' } })
    expect(texts(model.calls[0]!.messages).filter((text) => text.startsWith('Earlier, in short:\n\n'))).toHaveLength(1)
    const error = await agent.invoke({ messages }, { context: { floorguard: { slot: 30, onRefusal: 'throw' } } }).catch((caught: unknown) => caught)
    const cause = error instanceof CompactionRefusedError ? error : (error as { cause?: unknown }).cause
    expect(cause).toBeInstanceOf(CompactionRefusedError)
  })

  it('a bad value fails the run with one line naming the context key; a shared compactor refuses per-run compactor settings', async () => {
    const messages = conversation()
    const agent = createAgent({ model: fakeModel().respond(new AIMessage('done')), tools: [bash], middleware: [compactionMiddleware({ budget: BUDGET })] })
    const message = async (context: Record<string, unknown>) => {
      const error = (await agent.invoke({ messages }, { context }).then(() => undefined, (caught: unknown) => caught)) as Error | undefined
      return error?.message
    }
    expect(await message({ floorguard: { slott: 900 } })).toMatch(/^compactionMiddleware: runtime\.context\.floorguard\.slott: expected one of the keys budget, /)
    expect(await message({ keep: { messages: 5, tokens: 10 } })).toMatch(/^compactionMiddleware: runtime\.context\.keep: expected exactly one of/)
    expect(await message({ floorguard: { slot: -3 } })).toMatch(/slot: expected a positive integer/)
    const { createCompactor } = await import('../runtime/index.js')
    const shared = createAgent({ model: fakeModel().respond(new AIMessage('done')), tools: [bash], middleware: [compactionMiddleware({ compactor: createCompactor({ budget: BUDGET }) })] })
    const error = (await shared.invoke({ messages }, { context: { floorguard: { slot: 900 } } }).then(() => undefined, (caught: unknown) => caught)) as Error
    expect(error.message).toMatch(/runtime\.context\.floorguard\.slot cannot change the `compactor` you passed/)
  })
})


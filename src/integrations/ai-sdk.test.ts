import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider'
import { ToolLoopAgent, generateText, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from 'ai'
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCompactor } from '../runtime/index.js'
import type { BudgetSignal, CompactorEvent } from '../runtime/types.js'
import { brokenPairs, snapshot } from './__fixtures__/checks.js'
import { PLANTED, sessionTurns } from './__fixtures__/session.js'
import { CompactionRefusedError, DEFAULT_SUMMARY_PREFIX, compactionMiddleware, compactionPrepareStep } from './ai-sdk.js'

const SYSTEM = 'You are a coding agent.'
// The ten-turn fixture is about 3,900 tokens: a budget of 4,300 puts it above the 85% mark (3,655).
const BUDGET = 4_300

function conversation(count = 10): ModelMessage[] {
  const messages: ModelMessage[] = []
  for (const turn of sessionTurns(count)) {
    messages.push({ role: 'user', content: [{ type: 'text', text: turn.user }] })
    messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: turn.call.id, toolName: turn.call.name, input: turn.call.input }] })
    messages.push({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: turn.call.id, toolName: turn.call.name, output: { type: turn.isError ? 'error-text' : 'text', value: turn.result } }],
    })
    messages.push({ role: 'assistant', content: [{ type: 'text', text: turn.answer }] })
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Now add the retry logic.' }] })
  return messages
}

function result(content: LanguageModelV3GenerateResult['content'], unified: 'stop' | 'tool-calls' = 'stop'): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: { unified, raw: unified },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
    warnings: [],
  }
}

function textModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({ doGenerate: async () => result([{ type: 'text', text: 'done' }]) })
}

/** Every text a prompt holds, one string per text part (tool outputs included). */
function texts(prompt: LanguageModelV3Prompt): string[] {
  const out: string[] = []
  for (const message of prompt) {
    if (typeof message.content === 'string') out.push(message.content)
    else
      for (const part of message.content) {
        if (part.type === 'text') out.push(part.text)
        if (part.type === 'tool-result' && 'value' in part.output) out.push(String(part.output.value))
      }
  }
  return out
}

function summaryOf(prompt: readonly { role: string; content: unknown }[]): string | undefined {
  for (const message of prompt) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue
    const [part] = message.content as Array<{ type: string; text?: string }>
    if (part?.type === 'text' && part.text?.startsWith(`${DEFAULT_SUMMARY_PREFIX}\n\n`)) return part.text
  }
  return undefined
}

function pairsOf(prompt: readonly { role: string; content: unknown }[]) {
  return prompt.map((message) => {
    const parts = Array.isArray(message.content) ? (message.content as Array<{ type: string; toolCallId?: string }>) : []
    return {
      calls: parts.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId ?? ''),
      results: parts.filter((part) => part.type === 'tool-result').map((part) => part.toolCallId ?? ''),
    }
  })
}

async function plainPrompt(messages: ModelMessage[]): Promise<LanguageModelV3Prompt> {
  const model = textModel()
  await generateText({ model, system: SYSTEM, messages })
  return model.doGenerateCalls[0]!.prompt
}

describe('compactionMiddleware (wrapLanguageModel, ai 6)', () => {
  it('sends the model a compacted prompt: a summary holding the segment state verbatim, then the newest messages as they were', async () => {
    const messages = conversation()
    const before = snapshot(messages)
    const events: CompactorEvent[] = []
    const signals: BudgetSignal[] = []
    const model = textModel()
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ budget: BUDGET, slot: 600, onEvent: (event) => events.push(event), onSignal: (signal) => signals.push(signal) }) })
    await generateText({ model: wrapped, system: SYSTEM, messages })

    const sent = model.doGenerateCalls[0]!.prompt
    const plain = await plainPrompt(messages)
    expect(events.some((event) => event.type === 'compaction-end' && event.kind === 'compacted')).toBe(true)
    expect(signals).toEqual([])
    const summary = summaryOf(sent)
    expect(summary).toBeDefined()
    for (const text of Object.values(PLANTED)) {
      expect(summary).toContain(text)
      // Only in the summary: the messages that held it are gone from the prompt.
      expect(texts(sent).filter((entry) => entry.includes(text))).toHaveLength(1)
    }
    expect(sent.length).toBeLessThan(plain.length)
    expect(sent[0]).toEqual(plain[0])
    expect(sent[1]).toEqual({ role: 'user', content: [{ type: 'text', text: summary }] })
    expect(sent.slice(2)).toEqual(plain.slice(plain.length - (sent.length - 2)))
    expect(brokenPairs(pairsOf(sent))).toEqual([])
    expect(snapshot(messages)).toBe(before)
  })

  it('compacts streamText calls too (transformParams runs for doStream)', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'done' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: result([]).usage },
          ],
        }),
      }),
    })
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ budget: BUDGET, slot: 600 }) })
    const stream = streamText({ model: wrapped, system: SYSTEM, messages: conversation() })
    expect(await stream.text).toBe('done')
    const summary = summaryOf(model.doStreamCalls[0]!.prompt)
    for (const text of Object.values(PLANTED)) expect(summary).toContain(text)
  })

  it('counts only what changed: a grown prompt, or one whose last message was regenerated, costs its new messages', async () => {
    const compactor = createCompactor({ budget: 1_000_000 })
    const wrapped = wrapLanguageModel({ model: textModel(), middleware: compactionMiddleware({ compactor }) })
    const messages = conversation()
    await generateText({ model: wrapped, system: SYSTEM, messages })
    await generateText({ model: wrapped, system: SYSTEM, messages: [...messages, { role: 'assistant', content: 'first try' }] })
    expect(compactor.stats.computedMessages).toBe(1)
    await generateText({ model: wrapped, system: SYSTEM, messages: [...messages, { role: 'assistant', content: 'second try' }] })
    expect(compactor.stats.computedMessages).toBe(1)
  })

  it('on a refusal sends the prompt uncompacted and hands the signal to onSignal', async () => {
    const messages = conversation()
    const signals: BudgetSignal[] = []
    const model = textModel()
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ budget: BUDGET, slot: 30, onSignal: (signal) => signals.push(signal) }) })
    await generateText({ model: wrapped, system: SYSTEM, messages })
    expect(model.doGenerateCalls[0]!.prompt).toEqual(await plainPrompt(messages))
    expect(signals).toHaveLength(1)
    expect(signals[0]).toMatchObject({ type: 'budget-infeasible', slot: 30 })
    expect(signals[0]!.floor).toBeGreaterThan(30)
  })

  it('aborting the agent\'s call aborts the summarizer call it waits on (a re-test: 361 s with the signal ignored)', async () => {
    const seen: Array<AbortSignal | undefined> = []
    const summarizer = {
      specificationVersion: 'v1' as const,
      name: 'hangs',
      summarize: (request: { abortSignal?: AbortSignal }) => {
        seen.push(request.abortSignal)
        return new Promise<never>((_, reject) => request.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))
      },
    }
    const model = textModel()
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ budget: BUDGET, slot: 600, summarizer }) })
    const started = performance.now()
    const outcome = await generateText({ model: wrapped, system: SYSTEM, messages: conversation(), maxRetries: 0, abortSignal: AbortSignal.timeout(50) }).catch((caught: unknown) => caught)
    expect(performance.now() - started).toBeLessThan(5_000)
    // Either no summarizer call started after the abort, or the one under way got the aborted signal.
    expect(seen.length).toBeLessThanOrEqual(1)
    expect(seen.every((signal) => signal?.aborted === true)).toBe(true)
    // The call itself was aborted: the model may or may not have been reached, never with a compacted prompt.
    expect(outcome instanceof Error || model.doGenerateCalls.every((call) => summaryOf(call.prompt) === undefined)).toBe(true)
  })

  it("with onRefusal: 'throw' rejects the call with CompactionRefusedError and never calls the model", async () => {
    const model = textModel()
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ budget: BUDGET, slot: 30, onRefusal: 'throw' }) })
    const error = await generateText({ model: wrapped, system: SYSTEM, messages: conversation(), maxRetries: 0 }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(CompactionRefusedError)
    expect((error as CompactionRefusedError).signal.slot).toBe(30)
    expect((error as CompactionRefusedError).message).toMatch(/^floorguard refused to compact messages \d+:\d+ \(floor \d+, slot 30\): .*[^.]\.( |$)/)
    expect(model.doGenerateCalls).toHaveLength(0)
  })

  it('re-sends the same summary on the next call of the conversation instead of summarizing again', async () => {
    const events: CompactorEvent[] = []
    const model = textModel()
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ budget: BUDGET, slot: 600, onEvent: (event) => events.push(event) }) })
    const first = conversation()
    await generateText({ model: wrapped, system: SYSTEM, messages: first })
    const second: ModelMessage[] = [...first, { role: 'assistant', content: 'Retry logic added.' }, { role: 'user', content: 'Run the tests.' }]
    await generateText({ model: wrapped, system: SYSTEM, messages: second })
    const [call1, call2] = model.doGenerateCalls.map((call: LanguageModelV3CallOptions) => call.prompt)
    expect(summaryOf(call2!)).toBe(summaryOf(call1!))
    expect(events.filter((event) => event.type === 'summary-end')).toHaveLength(1)
    expect(texts(call2!).slice(-2)).toEqual(['Retry logic added.', 'Run the tests.'])
  })
})

describe('compactionPrepareStep', () => {
  const bash = tool({
    description: 'run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => `ran ${command}: ok`,
  })

  it('ai 6 (installed): every step gets the same summary, the loop’s new calls and results stay paired, one summary in all', async () => {
    const events: CompactorEvent[] = []
    const model = new MockLanguageModelV3({
      doGenerate: [
        result([{ type: 'tool-call', toolCallId: 'loop-1', toolName: 'bash', input: JSON.stringify({ command: 'ls' }) }], 'tool-calls'),
        result([{ type: 'tool-call', toolCallId: 'loop-2', toolName: 'bash', input: JSON.stringify({ command: 'npm test' }) }], 'tool-calls'),
        result([{ type: 'text', text: 'all green' }]),
      ],
    })
    const messages = conversation()
    const before = snapshot(messages)
    const output = await generateText({
      model,
      system: SYSTEM,
      messages,
      tools: { bash },
      stopWhen: stepCountIs(5),
      prepareStep: compactionPrepareStep({ budget: BUDGET, slot: 600, onEvent: (event) => events.push(event) }),
    })
    expect(output.text).toBe('all green')
    const prompts = model.doGenerateCalls.map((call: LanguageModelV3CallOptions) => call.prompt)
    expect(prompts).toHaveLength(3)
    const summary = summaryOf(prompts[0]!)
    for (const text of Object.values(PLANTED)) expect(summary).toContain(text)
    for (const prompt of prompts) {
      expect(summaryOf(prompt)).toBe(summary)
      expect(brokenPairs(pairsOf(prompt))).toEqual([])
    }
    expect(texts(prompts[2]!)).toContain('ran npm test: ok')
    expect(events.filter((event) => event.type === 'summary-end')).toHaveLength(1)
    expect(snapshot(messages)).toBe(before)
  })

  it('works as a ToolLoopAgent prepareStep', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        result([{ type: 'tool-call', toolCallId: 'loop-1', toolName: 'bash', input: JSON.stringify({ command: 'ls' }) }], 'tool-calls'),
        result([{ type: 'text', text: 'all green' }]),
      ],
    })
    const agent = new ToolLoopAgent({ model, instructions: SYSTEM, tools: { bash }, prepareStep: compactionPrepareStep({ budget: BUDGET, slot: 600 }) })
    const output = await agent.generate({ messages: conversation() })
    expect(output.text).toBe('all green')
    const prompts = model.doGenerateCalls.map((call: LanguageModelV3CallOptions) => call.prompt)
    expect(prompts).toHaveLength(2)
    for (const prompt of prompts) for (const text of Object.values(PLANTED)) expect(summaryOf(prompt)).toContain(text)
  })

  it('ai 6 semantics called directly: the full history again maps to the same summary object plus the new messages', async () => {
    const compactor = createCompactor({ budget: BUDGET, slot: 600 })
    const prepare = compactionPrepareStep({ compactor })
    const messages = conversation()
    const step0 = await prepare({ messages })
    expect(step0).toBeDefined()
    // Every message but the summary is one of the caller's own objects, in order.
    const own = step0!.messages.filter((message) => messages.includes(message))
    expect(own).toHaveLength(step0!.messages.length - 1)
    expect(own).toEqual(messages.slice(messages.length - own.length))
    const added: ModelMessage[] = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'n1', toolName: 'bash', input: { command: 'ls' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'n1', toolName: 'bash', output: { type: 'text', value: 'a b' } }] },
    ]
    const step1 = await prepare({ messages: [...messages, ...added] })
    // Only the new messages (and the runtime's summary message, the first time it comes back) are counted.
    expect(compactor.stats.computedMessages).toBe(added.length + 1)
    expect(step1!.messages.slice(0, step0!.messages.length)).toEqual(step0!.messages)
    step0!.messages.forEach((message, index) => expect(step1!.messages[index]).toBe(message))
    expect(step1!.messages.slice(-2)).toEqual(added)
    added.forEach((message, index) => expect(step1!.messages[step1!.messages.length - 2 + index]).toBe(message))
  })

  it('a summary stored by an earlier process is read back as a summary (by its prefix and state block), and its state carried forward', async () => {
    const first = await compactionPrepareStep({ budget: BUDGET, slot: 600 })({ messages: conversation() })
    // A new process: the stored history is plain JSON again, the compactor and its memory are new.
    const stored = JSON.parse(JSON.stringify(first!.messages)) as ModelMessage[]
    const later = conversation(10).map((message) => JSON.parse(JSON.stringify(message).replaceAll('call-', 'later-call-')) as ModelMessage)
    const next = await compactionPrepareStep({ budget: BUDGET, slot: 600 })({ messages: [...stored, ...later] })
    const summary = summaryOf(next!.messages)!
    for (const text of Object.values(PLANTED)) expect(summary).toContain(`[summary #0] ${text}`)
  })

  it('ai 7 semantics called directly: carried-forward messages are taken as compacted (no new compaction), and a later compaction carries the summary forward', async () => {
    const events: CompactorEvent[] = []
    const compactor = createCompactor({ budget: BUDGET, slot: 600, onEvent: (event) => events.push(event) })
    const prepare = compactionPrepareStep({ compactor })
    const step0 = await prepare({ messages: conversation() })
    const carried = step0!.messages
    const step1 = await prepare({ messages: [...carried, { role: 'assistant', content: 'ok' }] })
    expect(step1).toBeUndefined()
    // Only the new message was converted and counted: the carried ones are the compactor's known objects.
    // (and the runtime's summary message, counted the first time it comes back).
    expect(compactor.stats.computedMessages).toBe(1 + 1)
    expect(events.filter((event) => event.type === 'compaction-start')).toHaveLength(1)

    // Grow the carried history past the mark again: the oldest turns, the first summary among them, are compacted.
    const more = conversation(10).map((message) => (message.role === 'user' && typeof message.content !== 'string' ? { ...message, content: [{ type: 'text' as const, text: `later ${(message.content[0] as { text: string }).text}` }] } : message))
    const renamed = more.map((message) => JSON.parse(JSON.stringify(message).replaceAll('call-', 'later-call-').replaceAll(PLANTED.pin, 'fsspec==2024.9.0').replaceAll('Errno 28', 'Errno 13').replaceAll(PLANTED.constraint, 'Keep the logs.')) as ModelMessage)
    const step2 = await prepare({ messages: [...carried, ...renamed] })
    expect(events.filter((event) => event.type === 'summary-end').length).toBeGreaterThanOrEqual(2)
    const summary = summaryOf(step2!.messages)
    expect(summary).not.toBe(summaryOf(carried))
    for (const text of Object.values(PLANTED)) expect(summary).toContain(text)
    expect(brokenPairs(pairsOf(step2!.messages))).toEqual([])
  })
})

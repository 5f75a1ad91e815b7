import { describe, expect, it } from 'vitest'
import { createTokenizer } from '../tokenize/index.js'
import { createMockSummarizer, createSummarizeRequest, SUMMARIZER_FAULTS } from '../test-utils/summarizer.js'
import { backoffDelay, callSummarizer, retryMiddleware, timeoutMiddleware, wrapSummarizer, type SummarizerMiddlewareV1 } from './middleware.js'

const tokenizer = await createTokenizer('approx')
const request = createSummarizeRequest({ messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], items: [], slot: 10, tokenizer })

describe('wrapSummarizer', () => {
  it('applies middleware outermost first and keeps the inner name', async () => {
    const order: string[] = []
    const tag = (label: string): SummarizerMiddlewareV1 => ({
      specificationVersion: 'v1',
      transformRequest: ({ request }) => {
        order.push(`transform ${label}`)
        return { ...request, feedback: `${request.feedback ?? ''}${label}` }
      },
      wrapSummarize: async ({ doSummarize, request }) => {
        order.push(`before ${label}`)
        const result = await doSummarize(request)
        order.push(`after ${label}`)
        return result
      },
    })
    const inner = createMockSummarizer({ respond: (r) => `feedback=${r.feedback}` })
    const wrapped = wrapSummarizer({ summarizer: inner, middleware: [tag('a'), tag('b')] })
    expect(wrapped.name).toBe('mock')
    expect(await wrapped.summarize(request)).toEqual({ kind: 'summary', text: 'feedback=ab' })
    expect(order).toEqual(['transform a', 'before a', 'transform b', 'before b', 'after b', 'after a'])
  })
})

describe('timeoutMiddleware', () => {
  it('fails a hanging call after the timeout and aborts its signal', async () => {
    const inner = createMockSummarizer({ respond: SUMMARIZER_FAULTS.hangs })
    // The mock never answers: any result at all is the timeout's.
    const result = await wrapSummarizer({ summarizer: inner, middleware: timeoutMiddleware({ timeoutMs: 50 }) }).summarize(request)
    expect(result).toEqual({ kind: 'failure', reason: 'summarizer mock timed out after 50 ms', retryable: true })
    expect(inner.requests[0]!.abortSignal?.aborted).toBe(true)
  })

  it('passes a fast answer through and turns a throw into a failure', async () => {
    expect(await wrapSummarizer({ summarizer: createMockSummarizer({ respond: () => 'ok' }), middleware: timeoutMiddleware({ timeoutMs: 1000 }) }).summarize(request)).toEqual({ kind: 'summary', text: 'ok' })
    const thrown = await wrapSummarizer({ summarizer: createMockSummarizer({ respond: SUMMARIZER_FAULTS.throws }), middleware: timeoutMiddleware({ timeoutMs: 1000 }) }).summarize(request)
    expect(thrown).toEqual({ kind: 'failure', reason: 'summarizer mock threw: model backend unavailable', retryable: true })
  })
})

describe('retryMiddleware', () => {
  it('retries throws and retryable failures with exponential backoff, then stops', async () => {
    const delays: number[] = []
    let calls = 0
    const inner = createMockSummarizer({
      respond: () => {
        calls++
        if (calls < 3) throw new Error(`flake ${calls}`)
        return 'third time'
      },
    })
    const wrapped = wrapSummarizer({ summarizer: inner, middleware: retryMiddleware({ attempts: 3, initialDelayMs: 100, sleep: async (ms) => void delays.push(ms) }) })
    expect(await wrapped.summarize(request)).toEqual({ kind: 'summary', text: 'third time' })
    expect(delays).toEqual([100, 200])
  })

  it('does not retry a non-retryable failure, and gives up after the attempts', async () => {
    const fatal = createMockSummarizer({ respond: () => ({ kind: 'failure', reason: 'state too large', retryable: false }) })
    await wrapSummarizer({ summarizer: fatal, middleware: retryMiddleware({ sleep: async () => {} }) }).summarize(request)
    expect(fatal.requests).toHaveLength(1)
    const flaky = createMockSummarizer({ respond: SUMMARIZER_FAULTS.throws })
    const result = await wrapSummarizer({ summarizer: flaky, middleware: retryMiddleware({ attempts: 4, sleep: async () => {} }) }).summarize(request)
    expect(flaky.requests).toHaveLength(4)
    expect(result).toMatchObject({ kind: 'failure', retryable: true })
  })

  it('caps the delay', () => {
    expect([1, 2, 3, 10].map((retry) => backoffDelay(retry, { initialDelayMs: 1000, factor: 3, maxDelayMs: 5000 }))).toEqual([1000, 3000, 5000, 5000])
  })
})

describe('callSummarizer', () => {
  it('turns throws and malformed results into retryable failures', async () => {
    expect(await callSummarizer(createMockSummarizer({ respond: SUMMARIZER_FAULTS.throws }), request)).toMatchObject({ kind: 'failure', retryable: true })
    const malformed = { specificationVersion: 'v1' as const, name: 'bad', summarize: async () => ({ kind: 'summary', text: 42 }) as never }
    expect(await callSummarizer(malformed, request)).toEqual({ kind: 'failure', reason: 'summarizer bad returned a malformed result', retryable: true })
  })
})

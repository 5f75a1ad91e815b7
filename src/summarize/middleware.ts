import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'

/** Middleware around a summarizer: rewrite the request, or wrap the call (retry, timeout, cache, log). */
export interface SummarizerMiddlewareV1 {
  readonly specificationVersion: 'v1'
  /** Rewrites the request before the call. */
  transformRequest?(options: { readonly request: SummarizeRequest }): SummarizeRequest | Promise<SummarizeRequest>
  /** Wraps the call; `doSummarize` runs the inner summarizer (or the next middleware) with the given request. */
  wrapSummarize?(options: {
    readonly doSummarize: (request: SummarizeRequest) => Promise<SummarizeResult>
    readonly request: SummarizeRequest
    readonly summarizer: SummarizerV1
  }): Promise<SummarizeResult>
}

/** Options of {@link wrapSummarizer}. */
export interface WrapSummarizerOptions {
  readonly summarizer: SummarizerV1
  /** Applied so that the first one is the outermost. */
  readonly middleware: SummarizerMiddlewareV1 | readonly SummarizerMiddlewareV1[]
  /**
   * Name of the wrapped summarizer.
   * @default the inner summarizer's name
   */
  readonly name?: string
}

/** Wraps a summarizer: wrapped = m1 ∘ m2 ∘ … ∘ summarizer. */
export function wrapSummarizer(options: WrapSummarizerOptions): SummarizerV1 {
  const list = Array.isArray(options.middleware) ? (options.middleware as readonly SummarizerMiddlewareV1[]) : [options.middleware as SummarizerMiddlewareV1]
  const inner = options.summarizer
  let call = (request: SummarizeRequest): Promise<SummarizeResult> => inner.summarize(request)
  for (const middleware of [...list].reverse()) {
    const next = call
    call = async (request) => {
      const transformed = middleware.transformRequest ? await middleware.transformRequest({ request }) : request
      return middleware.wrapSummarize
        ? middleware.wrapSummarize({ doSummarize: next, request: transformed, summarizer: inner })
        : next(transformed)
    }
  }
  return { specificationVersion: 'v1', name: options.name ?? inner.name, summarize: call }
}

/** Calls a summarizer, turning a throw into a retryable failure (a summarizer is never trusted to behave). */
export async function callSummarizer(summarizer: SummarizerV1, request: SummarizeRequest): Promise<SummarizeResult> {
  try {
    const result = await summarizer.summarize(request)
    if (!result || (result.kind !== 'summary' && result.kind !== 'failure') || (result.kind === 'summary' && typeof result.text !== 'string')) {
      return { kind: 'failure', reason: `summarizer ${summarizer.name} returned a malformed result`, retryable: true }
    }
    return result
  } catch (error) {
    return { kind: 'failure', reason: `summarizer ${summarizer.name} threw: ${firstLine(error)}`, retryable: true }
  }
}

/** Options of {@link timeoutMiddleware}. */
export interface TimeoutMiddlewareOptions {
  /** Milliseconds before the call is aborted and reported as a retryable failure. */
  readonly timeoutMs: number
}

/**
 * Middleware: result = the call's result, or `failure('timed out after N ms')` after N ms, aborting the call's signal,
 * or a failure as soon as the caller's own signal aborts (whether or not the summarizer honours it).
 */
export function timeoutMiddleware(options: TimeoutMiddlewareOptions): SummarizerMiddlewareV1 {
  const { timeoutMs } = options
  return {
    specificationVersion: 'v1',
    async wrapSummarize({ doSummarize, request, summarizer }) {
      const controller = new AbortController()
      const outer = request.abortSignal
      // The caller's abort ends the wait at once, as the timeout does: a summarizer that ignores its signal would
      // otherwise hold the caller until the timer fires.
      let aborted: (result: SummarizeResult) => void = () => {}
      const callerAborted = new Promise<SummarizeResult>((resolve) => {
        aborted = resolve
      })
      const forward = (): void => {
        controller.abort(outer?.reason)
        aborted({ kind: 'failure', reason: `summarizer ${summarizer.name} aborted by the caller's signal`, retryable: false })
      }
      if (outer?.aborted) forward()
      else outer?.addEventListener('abort', forward, { once: true })
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<SummarizeResult>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error(`timed out after ${timeoutMs} ms`))
          resolve({ kind: 'failure', reason: `summarizer ${summarizer.name} timed out after ${timeoutMs} ms`, retryable: true })
        }, timeoutMs)
      })
      const call = doSummarize({ ...request, abortSignal: controller.signal }).then(
        (result) => result,
        (error: unknown): SummarizeResult => ({ kind: 'failure', reason: `summarizer ${summarizer.name} threw: ${firstLine(error)}`, retryable: true }),
      )
      try {
        return await Promise.race([call, timedOut, callerAborted])
      } finally {
        clearTimeout(timer)
        outer?.removeEventListener('abort', forward)
      }
    },
  }
}

/** Options of {@link retryMiddleware}. */
export interface RetryMiddlewareOptions {
  /**
   * Calls in all, including the first.
   * @default 3
   */
  readonly attempts?: number
  /**
   * Delay before the second call; each later delay is multiplied by `factor`.
   * @default 250
   */
  readonly initialDelayMs?: number
  /**
   * Backoff factor.
   * @default 2
   */
  readonly factor?: number
  /**
   * Upper bound of one delay.
   * @default 8000
   */
  readonly maxDelayMs?: number
  /**
   * Waits `ms` milliseconds (tests pass a fake clock).
   * @default setTimeout-based
   */
  readonly sleep?: (ms: number) => Promise<void>
}

/** Middleware: retries throws and retryable failures, delay_k = min(maxDelayMs, initialDelayMs · factor^(k-1)). */
export function retryMiddleware(options: RetryMiddlewareOptions = {}): SummarizerMiddlewareV1 {
  const attempts = Math.max(1, options.attempts ?? 3)
  const sleep = options.sleep ?? defaultSleep
  return {
    specificationVersion: 'v1',
    async wrapSummarize({ doSummarize, request, summarizer }) {
      let last: SummarizeResult | undefined
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) await sleep(backoffDelay(attempt - 1, options))
        if (request.abortSignal?.aborted) break
        try {
          last = await doSummarize(request)
        } catch (error) {
          last = { kind: 'failure', reason: `summarizer ${summarizer.name} threw: ${firstLine(error)}`, retryable: true }
        }
        if (last.kind === 'summary' || !last.retryable) return last
      }
      return last ?? { kind: 'failure', reason: 'aborted before the first call', retryable: true }
    },
  }
}

/** Delay before retry number `retry` (1-based): min(maxDelayMs, initialDelayMs · factor^(retry-1)). */
export function backoffDelay(retry: number, options: Pick<RetryMiddlewareOptions, 'initialDelayMs' | 'factor' | 'maxDelayMs'> = {}): number {
  const initial = options.initialDelayMs ?? 250
  const factor = options.factor ?? 2
  const max = options.maxDelayMs ?? 8000
  return Math.min(max, initial * factor ** Math.max(0, retry - 1))
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** First line of an error's message, for one-line failure reasons. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n', 1)[0] ?? ''
}

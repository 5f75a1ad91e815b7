/**
 * floorguard for the Vercel AI SDK (`floorguard/ai-sdk`): a language model middleware that compacts each call's
 * prompt, and a `prepareStep` helper for `generateText`, `streamText` and `ToolLoopAgent`.
 *
 * Facts these rely on (ai 6.0.326, node_modules/ai/dist): `LanguageModelMiddleware` is `LanguageModelV3Middleware`,
 * whose `transformParams({ type, params, model })` returns the call options, `params.prompt` a
 * `LanguageModelV3Prompt` rebuilt by the SDK on every call (so the middleware matches earlier calls by content);
 * `prepareStep({ steps, stepNumber, model, messages, experimental_context })` gets `[...initialMessages,
 * ...responseMessages]` on every step and a returned `messages` replaces them for that step only. From ai 7
 * (vercel/ai#15093) a returned `messages` is the base of the later steps, and `prepareStep` also gets
 * `initialMessages` and `responseMessages` (vercel/ai#15086); ai 7 middleware is `specificationVersion: 'v4'`.
 */

import type { LanguageModelMiddleware, ModelMessage } from 'ai'
import { fromAiSdkMessage, markSummary, summaryMessageText } from './_convert.js'
import { sameContent } from './_equal.js'
import { type AdapterOptions, type Rebuild, DEFAULT_SUMMARY_PREFIX, compactorOf, createCompactionView, reportSignal } from './_shared.js'

export { CompactionRefusedError, DEFAULT_SUMMARY_PREFIX } from './_shared.js'
export type { AdapterOptions } from './_shared.js'

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>
type CallOptions = Parameters<TransformParams>[0]['params']
type PromptMessage = CallOptions['prompt'][number]

/** Options of {@link compactionMiddleware}. */
export interface CompactionMiddlewareOptions extends AdapterOptions {
  /**
   * The middleware specification the installed `ai` expects: `v3` for ai 6, `v4` for ai 7.
   * @default 'v3'
   */
  readonly specificationVersion?: 'v3' | 'v4'
}

/** Options of {@link compactionPrepareStep}. */
export type CompactionPrepareStepOptions = AdapterOptions

/** A user message holding the summary, as both `ModelMessage` and `LanguageModelV3Message` accept it. */
function summaryRebuild<T>(prefix: string): Rebuild<T> {
  return {
    summary: (text) => markSummary({ role: 'user', content: [{ type: 'text', text: summaryMessageText(prefix, text) }] }, text) as T,
    // A tool message whose results the runtime masked: each result's output becomes the runtime's placeholder.
    mask: (message, text) => {
      const original = message as { role: string; content: unknown }
      if (!Array.isArray(original.content)) return message
      const content = original.content.map((part: { type?: unknown }) =>
        part.type === 'tool-result' ? { ...part, output: { type: 'text', value: text } } : part,
      )
      return { ...original, content } as T
    },
  }
}

/**
 * A `LanguageModelMiddleware` for `wrapLanguageModel` whose `transformParams` compacts `params.prompt` when it
 * reaches the high-water mark: the oldest turns become a verified summary (a user message of `summaryPrefix` + the
 * summary); every kept message is the prompt's own object.
 *
 * A refusal sends the prompt uncompacted and calls `onSignal` (or throws {@link CompactionRefusedError} with
 * `onRefusal: 'throw'`). The middleware remembers its last prompt: a later call whose prompt starts with it re-sends
 * the same summary instead of summarizing again. Use one middleware (one wrapped model) per conversation, or at
 * least per concurrent conversation; another conversation's prompt is simply taken as new.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: compactionMiddleware({ budget: 128_000 }) })
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions = {}): LanguageModelMiddleware {
  const prefix = options.summaryPrefix ?? DEFAULT_SUMMARY_PREFIX
  const { specificationVersion, ...adapterOptions } = options
  const view = createCompactionView<PromptMessage>({
    compactor: compactorOf(adapterOptions),
    convert: (message) => fromAiSdkMessage(message, prefix),
    rebuild: summaryRebuild<PromptMessage>(prefix),
    equal: sameContent,
  })
  return {
    specificationVersion: (specificationVersion ?? 'v3') as 'v3',
    async transformParams({ params }) {
      // The call's own signal: aborting the agent's call aborts a summarizer call it is waiting on.
      const { messages, result } = await view.apply(params.prompt, params.abortSignal)
      reportSignal(result, options)
      return messages === params.prompt ? params : { ...params, prompt: [...messages] }
    },
  }
}

/** What {@link compactionPrepareStep}'s function reads of `prepareStep`'s argument (ai 6 and ai 7). */
export interface PrepareStepInput {
  readonly messages: ModelMessage[]
  readonly stepNumber?: number
}

/**
 * A `prepareStep` function for `generateText`, `streamText` or `ToolLoopAgent` that compacts the step's messages at
 * the high-water mark and returns `{ messages }` when they differ from the step's (else `undefined`).
 *
 * ai 6 hands every step the full history and applies the returned messages to that step only: the compactor state
 * kept here re-sends the same summary for the same prefix on each step and summarizes only when the compacted
 * context reaches the mark again. ai 7 carries the returned messages forward: they start the next step's messages,
 * are recognized as the compacted history, and their summary is carried forward, never summarized as raw text.
 * The system prompt (`system`) is outside `messages`: leave room for it (and the tools) in `budget`.
 *
 * @example
 * await generateText({ model, messages, tools, stopWhen: stepCountIs(50), prepareStep: compactionPrepareStep({ budget: 128_000 }) })
 */
export function compactionPrepareStep(options: CompactionPrepareStepOptions = {}): (input: PrepareStepInput) => Promise<{ messages: ModelMessage[] } | undefined> {
  const prefix = options.summaryPrefix ?? DEFAULT_SUMMARY_PREFIX
  const view = createCompactionView<ModelMessage>({
    compactor: compactorOf(options),
    convert: (message) => fromAiSdkMessage(message, prefix),
    rebuild: summaryRebuild<ModelMessage>(prefix),
    equal: sameContent,
  })
  return async ({ messages }) => {
    const { messages: output, result, changed } = await view.apply(messages)
    reportSignal(result, options)
    return changed ? { messages: [...output] } : undefined
  }
}

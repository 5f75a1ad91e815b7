/**
 * floorguard for LangChain.js v1 agents (`floorguard/langchain`): an agent middleware that can replace
 * `summarizationMiddleware`, and a summarizer over any LangChain chat model.
 *
 * Facts these rely on (langchain 1.5.14, @langchain/core 1.4.0, node_modules/langchain/dist/agents/middleware):
 * `createMiddleware({ name, beforeModel })`, where `beforeModel(state, runtime)` returns a state update or nothing;
 * the built-in `summarizationMiddleware` takes `model`, `trigger` (one condition of `fraction` / `tokens` /
 * `messages`, all of which must hold, or a list of them, any of which may), `keep` (exactly one of them, default 20
 * messages), `tokenCounter` (default `countTokensApproximately`), `summaryPrefix` (default "Here is a summary of the
 * conversation to date:"), never runs without a trigger, trims the segment to its last 4,000 tokens before
 * summarizing (`trimTokensToSummarize`), turns a model error into the summary text ("Error generating summary: …"),
 * and returns `RemoveMessage({ id: REMOVE_ALL_MESSAGES })`, a `HumanMessage` summary (`additional_kwargs.lc_source:
 * 'summarization'`) and the kept messages. `REMOVE_ALL_MESSAGES` is `'__remove_all__'` in @langchain/langgraph 1.7.3.
 */

import { HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { BaseLanguageModel } from '@langchain/core/language_models/base'
import { countTokensApproximately, createMiddleware, initChatModel, type SummarizationMiddlewareConfig, type TokenCounter } from 'langchain'
import { FloorguardError } from '../errors.js'
import { createCompactor } from '../runtime/index.js'
import { startsTurn, systemEnd } from '../runtime/_select.js'
import type { CompactorResult, RuntimeRange } from '../runtime/types.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { createTokenizer } from '../tokenize/index.js'
import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { buildSummaryPrompt } from '../summarize/_prompt.js'
import { fromLangChainMessage, langChainText, markSummary, summaryMessageText } from './_convert.js'
import { type AdapterOptions, type Rebuild, DEFAULT_SUMMARY_PREFIX, compactorOf, createCompactionView, rebuildMessages, reportSignal } from './_shared.js'

export { CompactionRefusedError, DEFAULT_SUMMARY_PREFIX } from './_shared.js'
export type { AdapterOptions } from './_shared.js'

/** `REMOVE_ALL_MESSAGES` of @langchain/langgraph (a dependency of langchain, not a peer of floorguard). */
export const REMOVE_ALL_MESSAGES = '__remove_all__'

/** A trigger condition, as `summarizationMiddleware` takes it. */
export type ContextSize = NonNullable<SummarizationMiddlewareConfig['keep']>

/** A model given by name (`initChatModel`) or as an object. */
export type LangChainModel = string | BaseLanguageModel

/** Options of {@link createLangChainSummarizer}. */
export interface LangChainSummarizerOptions {
  /** Any LangChain chat model (or a `provider:model` name for `initChatModel`). */
  readonly model: LangChainModel
  /**
   * Registry name of the summarizer.
   * @default `langchain:${model._llmType()}` (or `langchain:${name}` for a name)
   */
  readonly name?: string
}

function responseText(response: unknown): string {
  if (typeof response === 'string') return response
  if (typeof response === 'object' && response !== null && 'content' in response) return langChainText((response as { content: unknown }).content)
  return ''
}

/**
 * A floorguard summarizer over a LangChain model: the rules, the state block to copy and the whole segment as
 * delimited data (never trimmed), sent as a system and a human message. It may throw; the compactor retries, and a
 * summary that fails verification is never used: the call refuses instead.
 */
export function createLangChainSummarizer(options: LangChainSummarizerOptions): SummarizerV1 {
  let model: Promise<BaseLanguageModel> | undefined
  const name =
    options.name ?? (typeof options.model === 'string' ? `langchain:${options.model}` : `langchain:${options.model._llmType?.() ?? 'model'}`)
  return {
    specificationVersion: 'v1',
    name,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      model ??= typeof options.model === 'string' ? (initChatModel(options.model) as unknown as Promise<BaseLanguageModel>) : Promise.resolve(options.model)
      const { system, prompt } = buildSummaryPrompt(request)
      const response = await (await model).invoke([new SystemMessage(system), new HumanMessage(prompt)], request.abortSignal ? { signal: request.abortSignal } : {})
      return { kind: 'summary', text: responseText(response).trim() }
    },
  }
}

/** Options of {@link compactionMiddleware}: `summarizationMiddleware`'s names, and floorguard's. */
export interface CompactionMiddlewareOptions extends AdapterOptions {
  /**
   * Summarizes through floorguard's verified loop (repair, retry, refuse) when no `summarizer` is given; its profile's
   * `maxInputTokens` sizes `fraction` conditions.
   * @default undefined (floorguard's ledger: no model call)
   */
  readonly model?: LangChainModel
  /**
   * When to compact, as in `summarizationMiddleware` (counted with `tokenCounter`). Without `trigger` and `keep` the
   * compactor's own high-water mark decides (`budget` × `highWaterMark`, exact tokens) and selects the oldest
   * `compactFraction` of the turns.
   * @default undefined
   */
  readonly trigger?: ContextSize | readonly ContextSize[]
  /**
   * What stays raw after a compaction, as in `summarizationMiddleware`: the last `messages`, the last `tokens`, or the
   * last `fraction` of the model's input tokens; the cut never separates a tool call from its result.
   * @default { messages: 20 } once `trigger` is given (`keep` alone triggers at `budget` × `highWaterMark` tokens)
   */
  readonly keep?: ContextSize
  /**
   * Counts tokens for `trigger` and `keep` (floorguard's slot and floor always use its exact tokenizer).
   * @default countTokensApproximately
   */
  readonly tokenCounter?: TokenCounter
}

const DEFAULT_KEEP: ContextSize = { messages: 20 }

function maxInputTokens(model: LangChainModel | undefined): number | undefined {
  if (model === undefined || typeof model === 'string') return undefined
  const profile = (model as { profile?: { maxInputTokens?: unknown } }).profile
  return typeof profile?.maxInputTokens === 'number' ? profile.maxInputTokens : undefined
}

/** Tool call ids of an AI message. */
function callIds(message: BaseMessage): string[] {
  const calls = (message as { tool_calls?: Array<{ id?: string }> }).tool_calls ?? []
  return calls.map((call) => call.id ?? '').filter((id) => id !== '')
}

/**
 * Cut positions `c` (messages `[0, c)` compacted, `[c, n)` kept) that separate no tool call from its result: a
 * position strictly after a call and at or before its result is unsafe.
 */
function safeCuts(messages: readonly BaseMessage[]): boolean[] {
  const callAt = new Map<string, number>()
  const unsafe = new Int32Array(messages.length + 2)
  messages.forEach((message, index) => {
    if (message.type === 'ai') for (const id of callIds(message)) callAt.set(id, index)
    if (message.type === 'tool') {
      const call = callAt.get((message as ToolMessage).tool_call_id)
      if (call !== undefined) {
        unsafe[call + 1]! += 1
        unsafe[index + 1]! -= 1
      }
    }
  })
  const safe: boolean[] = []
  let open = 0
  for (let cut = 0; cut <= messages.length; cut++) {
    open += unsafe[cut]!
    safe.push(open === 0)
  }
  return safe
}

/** Middleware settings resolved once. */
interface Resolved {
  readonly prefix: string
  readonly tokenCounter: TokenCounter
  readonly trigger: readonly ContextSize[] | undefined
  readonly keep: ContextSize
  readonly limit: number | undefined
}

async function shouldTrigger(messages: BaseMessage[], settings: Resolved): Promise<boolean> {
  if (!settings.trigger || settings.trigger.length === 0) return false
  const tokens = await settings.tokenCounter(messages)
  return settings.trigger.some((condition) => {
    const checks: boolean[] = []
    if (condition.messages !== undefined) checks.push(messages.length >= condition.messages)
    if (condition.tokens !== undefined) checks.push(tokens >= condition.tokens)
    if (condition.fraction !== undefined) checks.push(settings.limit !== undefined && tokens >= Math.floor(settings.limit * condition.fraction))
    return checks.length > 0 && checks.every(Boolean)
  })
}

/** The cut for `keep`: the latest safe position keeping at least what `keep` asks. */
async function cutFor(messages: BaseMessage[], settings: Resolved): Promise<number> {
  const safe = safeCuts(messages)
  let target: number
  const { keep } = settings
  if (keep.messages !== undefined) {
    target = messages.length - keep.messages
  } else {
    const limit = keep.tokens !== undefined ? keep.tokens : settings.limit !== undefined && keep.fraction !== undefined ? Math.floor(settings.limit * keep.fraction) : undefined
    if (limit === undefined) {
      target = messages.length - (DEFAULT_KEEP.messages ?? 20)
    } else {
      target = messages.length
      let kept = 0
      while (target > 0) {
        kept += await settings.tokenCounter([messages[target - 1]!])
        if (kept > limit) break
        target--
      }
    }
  }
  for (let cut = Math.max(0, Math.min(target, messages.length)); cut > 0; cut--) if (safe[cut]) return cut
  return 0
}

/**
 * An agent middleware (`createMiddleware`, `beforeModel`) that compacts the agent's messages with floorguard: a
 * drop-in for `summarizationMiddleware` (same `model`, `trigger`, `keep`, `summaryPrefix`, `tokenCounter`) that
 * returns `RemoveMessage({ id: REMOVE_ALL_MESSAGES })`, the summary (a `HumanMessage`, `lc_source: 'summarization'`)
 * and the kept messages, which are the state's own objects.
 *
 * Unlike the built-in, the summarizer sees the whole segment (no trimming to 4,000 tokens), every summary is
 * verified to hold the segment's irreducible items verbatim, a summarizer error is retried and never becomes the
 * summary, and the cut never separates a tool call from its result. A refusal returns no update (the messages stay
 * as they are) and the signal reaches `onSignal` (or a {@link CompactionRefusedError} with `onRefusal: 'throw'`).
 *
 * @example
 * createAgent({ model, tools, middleware: [compactionMiddleware({ model: summaryModel, trigger: { tokens: 100_000 }, keep: { messages: 20 } })] })
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions = {}) {
  const { model, trigger, keep, tokenCounter, ...adapterOptions } = options
  const summarizerOptions = options.summarizer === undefined && model !== undefined ? { summarizer: createLangChainSummarizer({ model }) } : {}
  const settings: Resolved = {
    prefix: options.summaryPrefix ?? DEFAULT_SUMMARY_PREFIX,
    tokenCounter: tokenCounter ?? countTokensApproximately,
    // `keep` alone compacts at the compactor's high-water mark, counted with `tokenCounter`.
    trigger:
      trigger === undefined
        ? keep === undefined
          ? undefined
          : [{ tokens: Math.floor((options.budget ?? 128_000) * (options.highWaterMark ?? 0.85)) }]
        : Array.isArray(trigger)
          ? (trigger as readonly ContextSize[])
          : [trigger as ContextSize],
    keep: keep ?? DEFAULT_KEEP,
    limit: maxInputTokens(model) ?? options.budget,
  }
  const converted = new WeakMap<BaseMessage, Message>()
  const convert = (message: BaseMessage): Message => {
    let result = converted.get(message)
    if (!result) {
      result = fromLangChainMessage(message, settings.prefix)
      converted.set(message, result)
    }
    return result
  }
  const rebuild: Rebuild<BaseMessage> = {
    summary: (text: string, range: RuntimeRange) =>
      markSummary(
        new HumanMessage({
          content: summaryMessageText(settings.prefix, text),
          id: `floorguard-summary-${range[0]}-${range[1]}-${crypto.randomUUID()}`,
          additional_kwargs: { lc_source: 'summarization' },
        }),
        text,
      ),
    mask: (message: BaseMessage, text: string) =>
      message.type === 'tool'
        ? new ToolMessage({
            content: text,
            tool_call_id: (message as ToolMessage).tool_call_id,
            ...(message.id === undefined ? {} : { id: message.id }),
            ...(message.name === undefined ? {} : { name: message.name }),
          })
        : message,
  }

  if (options.compactor && settings.trigger !== undefined) {
    throw new FloorguardError('invalid-argument', 'compactionMiddleware: pass either `compactor` (its high-water mark decides) or `trigger`/`keep`, not both')
  }
  const update = (messages: readonly BaseMessage[]) => ({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages] })

  // Without trigger/keep the compactor's high-water mark decides over the whole state.
  const wholeView =
    settings.trigger === undefined ? createCompactionView<BaseMessage>({ compactor: compactorOf({ ...adapterOptions, ...summarizerOptions }), convert, rebuild }) : undefined

  // With trigger/keep this middleware decides when and where: a compactor at mark 0 whose fraction of the turns ends
  // the selection at the last turn start at or before the cut (the runtime then moves it to a unit boundary).
  let tokenizer: Promise<TokenizerV1> | undefined
  let lastRefusal: { first: BaseMessage; cut: BaseMessage | undefined; length: number; result: CompactorResult } | undefined
  const compactAt = async (messages: BaseMessage[], cut: number): Promise<CompactorResult | undefined> => {
    const converted = messages.map(convert)
    const start = systemEnd(converted)
    const starts: number[] = []
    for (let index = start; index < converted.length; index++) if (index === start || startsTurn(converted, index)) starts.push(index)
    const before = starts.filter((turnStart) => turnStart <= cut).length - 1
    if (before < 1) return undefined
    tokenizer ??= typeof options.tokenizer === 'object' ? Promise.resolve(options.tokenizer) : createTokenizer(options.tokenizer ?? 'o200k_base')
    const compactor = createCompactor({
      ...stripAdapter(adapterOptions),
      ...summarizerOptions,
      tokenizer: await tokenizer,
      highWaterMark: Number.MIN_VALUE,
      compactFraction: (before + 0.5) / starts.length,
    })
    return compactor.maybeCompact(converted)
  }

  return createMiddleware({
    name: 'FloorguardCompactionMiddleware',
    beforeModel: async (state) => {
      const messages = state.messages as BaseMessage[]
      if (wholeView) {
        const { messages: output, result, changed } = await wholeView.apply(messages)
        reportSignal(result, options)
        return changed ? update(output) : undefined
      }
      if (!(await shouldTrigger(messages, settings))) return undefined
      const cut = await cutFor(messages, settings)
      if (cut === 0) return undefined
      let result: CompactorResult | undefined
      if (lastRefusal && lastRefusal.length === messages.length && lastRefusal.first === messages[0] && lastRefusal.cut === messages[cut]) {
        // The same history was refused on an earlier step: report it again without summarizing it again.
        result = lastRefusal.result
      } else {
        result = await compactAt(messages, cut)
        if (!result) return undefined
        lastRefusal = result.kind === 'refused' ? { first: messages[0]!, cut: messages[cut], length: messages.length, result } : undefined
      }
      reportSignal(result, options)
      if (result.kind === 'unchanged' || result.layout.every((entry, index) => entry.kind === 'kept' && entry.index === index)) return undefined
      return update(rebuildMessages(messages, result.layout, rebuild))
    },
  })
}

function stripAdapter(options: AdapterOptions) {
  const { compactor: _compactor, onRefusal: _onRefusal, onSignal: _onSignal, summaryPrefix: _summaryPrefix, ...rest } = options
  return rest
}

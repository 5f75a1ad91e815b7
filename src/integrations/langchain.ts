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
 *
 * Per-run settings (same files, `nodes/middleware.js` `MiddlewareNode.invokeMiddleware`): a middleware's
 * `runtime.context` holds only the keys of its own `contextSchema` (a zod object), taken from
 * `agent.invoke(input, { context })` and parsed by that schema; a middleware without one gets `{}`. The built-in
 * declares its options as its `contextSchema` (`model` optional) and lets `runtime.context.trigger`, `keep`,
 * `tokenCounter`, `summaryPrefix`, `summaryPrompt` and `trimTokensToSummarize` replace its options for that run; it
 * never reads `runtime.context.model`.
 */

import { HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { BaseLanguageModel } from '@langchain/core/language_models/base'
import { countTokensApproximately, createMiddleware, initChatModel, type SummarizationMiddlewareConfig, type TokenCounter } from 'langchain'
import { z } from 'zod/v4'
import { FloorguardError } from '../errors.js'
import { createCompactor } from '../runtime/index.js'
import { startsTurn, systemEnd } from '../runtime/_select.js'
import type { CompactionPolicy, CompactorResult, RuntimeRange } from '../runtime/types.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { createTokenizer } from '../tokenize/index.js'
import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { buildSummaryPrompt } from '../summarize/_prompt.js'
import { fromLangChainMessage, langChainText, markSummary, summaryMessageText } from './_convert.js'
import { type AdapterOptions, type CompactionView, type Rebuild, DEFAULT_SUMMARY_PREFIX, compactorOf, createCompactionView, rebuildMessages, reportSignal } from './_shared.js'

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

/** Middleware settings resolved for one run (the options, then the run's `runtime.context`). */
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
 * floorguard settings one run may change (`agent.invoke(input, { context: { floorguard: { … } } })`): the compactor's
 * budget, mark, fraction, slots and policy, and what a refusal does. Namespaced so an application's own context
 * keys (a `budget` of its own, say) never reach the compactor.
 */
export interface FloorguardRunContext {
  readonly budget?: number
  readonly highWaterMark?: number
  readonly compactFraction?: number
  readonly slot?: number
  readonly summaryBudget?: number
  readonly policy?: CompactionPolicy
  readonly onRefusal?: 'proceed' | 'throw'
}

/**
 * What `runtime.context` may carry for {@link compactionMiddleware}: the keys `summarizationMiddleware` reads there
 * (`trigger`, `keep`, `tokenCounter`, `summaryPrefix`; each replaces the option of the same name for that run) and
 * floorguard's own under `floorguard`.
 */
export interface CompactionContext {
  readonly trigger?: ContextSize | readonly ContextSize[]
  readonly keep?: ContextSize
  readonly tokenCounter?: TokenCounter
  readonly summaryPrefix?: string
  readonly floorguard?: FloorguardRunContext
}

const RUN_KEYS = ['budget', 'highWaterMark', 'compactFraction', 'slot', 'summaryBudget', 'policy', 'onRefusal'] as const

/**
 * The middleware's `contextSchema`: LangChain hands a middleware only the context keys its schema names. Values are
 * checked here, not by zod, so a bad one gets floorguard's one-line message naming the key.
 */
const contextSchema = z.object({
  trigger: z.custom<ContextSize | readonly ContextSize[]>().optional(),
  keep: z.custom<ContextSize>().optional(),
  tokenCounter: z.custom<TokenCounter>().optional(),
  summaryPrefix: z.custom<string>().optional(),
  floorguard: z.custom<FloorguardRunContext>().optional(),
})

function badContext(key: string, expected: string, value: unknown): never {
  const shown = typeof value === 'function' ? 'a function' : JSON.stringify(value) ?? String(value)
  throw new FloorguardError('invalid-argument', `compactionMiddleware: runtime.context.${key}: expected ${expected}, got ${shown}`)
}

function checkSize(key: string, value: unknown, exactlyOne: boolean): ContextSize {
  const expected = exactlyOne ? 'exactly one of { fraction, tokens, messages } with a positive number' : 'an object of { fraction, tokens, messages } with positive numbers'
  if (typeof value !== 'object' || value === null || Array.isArray(value)) badContext(key, expected, value)
  const entries = Object.entries(value)
  const known = entries.filter(([name, number]) => ['fraction', 'tokens', 'messages'].includes(name) && typeof number === 'number' && number > 0)
  if (known.length !== entries.length || known.length === 0 || (exactlyOne && known.length !== 1)) badContext(key, expected, value)
  return value as ContextSize
}

/** The run's context, checked: only keys it sets. */
function readContext(context: unknown): CompactionContext {
  if (typeof context !== 'object' || context === null) return {}
  const { trigger, keep, tokenCounter, summaryPrefix, floorguard } = context as Record<string, unknown>
  const read: { -readonly [K in keyof CompactionContext]: CompactionContext[K] } = {}
  if (trigger !== undefined) read.trigger = Array.isArray(trigger) ? trigger.map((entry, index) => checkSize(`trigger[${index}]`, entry, false)) : checkSize('trigger', trigger, false)
  if (keep !== undefined) read.keep = checkSize('keep', keep, true)
  if (tokenCounter !== undefined) read.tokenCounter = typeof tokenCounter === 'function' ? (tokenCounter as TokenCounter) : badContext('tokenCounter', 'a function', tokenCounter)
  if (summaryPrefix !== undefined) read.summaryPrefix = typeof summaryPrefix === 'string' ? summaryPrefix : badContext('summaryPrefix', 'a string', summaryPrefix)
  if (floorguard !== undefined) {
    if (typeof floorguard !== 'object' || floorguard === null) badContext('floorguard', `an object of ${RUN_KEYS.join(', ')}`, floorguard)
    const unknown = Object.keys(floorguard).filter((key) => !(RUN_KEYS as readonly string[]).includes(key))
    if (unknown.length > 0) badContext(`floorguard.${unknown[0]}`, `one of the keys ${RUN_KEYS.join(', ')}`, unknown[0])
    const { onRefusal } = floorguard as FloorguardRunContext
    if (onRefusal !== undefined && onRefusal !== 'proceed' && onRefusal !== 'throw') badContext('floorguard.onRefusal', `'proceed' or 'throw'`, onRefusal)
    read.floorguard = floorguard as FloorguardRunContext
  }
  return read
}

/** Compactor settings of a run that a shared `compactor` could not honour. */
function compactorKeys(run: FloorguardRunContext | undefined): string[] {
  return run ? RUN_KEYS.filter((key) => key !== 'onRefusal' && run[key] !== undefined) : []
}

/** Most views kept at once, one per distinct set of compactor settings (most recent first). */
const MAX_VIEWS = 8

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
 * One run may change the settings through `agent.invoke(input, { context })` ({@link CompactionContext}): `trigger`,
 * `keep`, `tokenCounter` and `summaryPrefix` as the built-in reads them, and `floorguard: { slot, budget, policy, … }`.
 *
 * @example
 * createAgent({ model, tools, middleware: [compactionMiddleware({ model: summaryModel, trigger: { tokens: 100_000 }, keep: { messages: 20 } })] })
 * await agent.invoke({ messages }, { context: { keep: { messages: 40 }, floorguard: { slot: 4_000, policy: 'accept-risk' } } })
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions = {}) {
  const summarizerOptions = options.summarizer === undefined && options.model !== undefined ? { summarizer: createLangChainSummarizer({ model: options.model }) } : {}
  if (options.compactor && (options.trigger !== undefined || options.keep !== undefined)) {
    throw new FloorguardError('invalid-argument', 'compactionMiddleware: pass either `compactor` (its high-water mark decides) or `trigger`/`keep`, not both')
  }

  /** The options with a run's context laid over them, resolved. */
  const resolve = (context: CompactionContext) => {
    const merged: CompactionMiddlewareOptions = {
      ...options,
      ...(context.trigger === undefined ? {} : { trigger: context.trigger }),
      ...(context.keep === undefined ? {} : { keep: context.keep }),
      ...(context.tokenCounter === undefined ? {} : { tokenCounter: context.tokenCounter }),
      ...(context.summaryPrefix === undefined ? {} : { summaryPrefix: context.summaryPrefix }),
      ...context.floorguard,
    }
    if (options.compactor) {
      const changed = [...(context.trigger !== undefined || context.keep !== undefined ? ['trigger/keep'] : []), ...compactorKeys(context.floorguard).map((key) => `floorguard.${key}`)]
      if (changed.length > 0) {
        throw new FloorguardError('invalid-argument', `compactionMiddleware: runtime.context.${changed[0]} cannot change the \`compactor\` you passed; give the middleware options instead of a compactor`)
      }
    }
    const { model, trigger, keep, tokenCounter, ...adapterOptions } = merged
    const settings: Resolved = {
      prefix: merged.summaryPrefix ?? DEFAULT_SUMMARY_PREFIX,
      tokenCounter: tokenCounter ?? countTokensApproximately,
      // `keep` alone compacts at the compactor's high-water mark, counted with `tokenCounter`.
      trigger:
        trigger === undefined
          ? keep === undefined
            ? undefined
            : [{ tokens: Math.floor((merged.budget ?? 128_000) * (merged.highWaterMark ?? 0.85)) }]
          : Array.isArray(trigger)
            ? (trigger as readonly ContextSize[])
            : [trigger as ContextSize],
      keep: keep ?? DEFAULT_KEEP,
      limit: maxInputTokens(model) ?? merged.budget,
    }
    // What a compactor and a summary message depend on: runs that agree share a view (and its remembered summaries).
    const key = JSON.stringify([settings.prefix, ...RUN_KEYS.filter((name) => name !== 'onRefusal').map((name) => merged[name] ?? null)])
    return { settings, adapterOptions, key, onRefusal: merged.onRefusal, onSignal: merged.onSignal }
  }
  const base = resolve({})

  const converters = new Map<string, (message: BaseMessage) => Message>()
  const converterFor = (prefix: string) => {
    let convert = converters.get(prefix)
    if (!convert) {
      const converted = new WeakMap<BaseMessage, Message>()
      convert = (message: BaseMessage): Message => {
        let result = converted.get(message)
        if (!result) {
          result = fromLangChainMessage(message, prefix)
          converted.set(message, result)
        }
        return result
      }
      converters.set(prefix, convert)
    }
    return convert
  }
  const rebuildFor = (prefix: string): Rebuild<BaseMessage> => ({
    summary: (text: string, range: RuntimeRange) =>
      markSummary(
        new HumanMessage({
          content: summaryMessageText(prefix, text),
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
  })

  const update = (messages: readonly BaseMessage[]) => ({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages] })

  // Without trigger/keep the compactor's high-water mark decides over the whole state: one view per distinct set of
  // settings, so a run with its own slot neither reuses nor disturbs the others' compactor.
  const views = new Map<string, CompactionView<BaseMessage>>()
  const viewFor = (run: ReturnType<typeof resolve>): CompactionView<BaseMessage> => {
    let view = views.get(run.key)
    if (view) views.delete(run.key)
    else view = createCompactionView<BaseMessage>({ compactor: compactorOf({ ...run.adapterOptions, ...summarizerOptions }), convert: converterFor(run.settings.prefix), rebuild: rebuildFor(run.settings.prefix) })
    views.set(run.key, view)
    if (views.size > MAX_VIEWS) views.delete(views.keys().next().value!)
    return view
  }

  // With trigger/keep this middleware decides when and where: a compactor at mark 0 whose fraction of the turns ends
  // the selection at the last turn start at or before the cut (the runtime then moves it to a unit boundary).
  let tokenizer: Promise<TokenizerV1> | undefined
  let lastRefusal: { key: string; first: BaseMessage; cut: BaseMessage | undefined; length: number; result: CompactorResult } | undefined
  const compactAt = async (messages: BaseMessage[], cut: number, run: ReturnType<typeof resolve>): Promise<CompactorResult | undefined> => {
    const converted = messages.map(converterFor(run.settings.prefix))
    const start = systemEnd(converted)
    const starts: number[] = []
    for (let index = start; index < converted.length; index++) if (index === start || startsTurn(converted, index)) starts.push(index)
    const before = starts.filter((turnStart) => turnStart <= cut).length - 1
    if (before < 1) return undefined
    tokenizer ??= typeof options.tokenizer === 'object' ? Promise.resolve(options.tokenizer) : createTokenizer(options.tokenizer ?? 'o200k_base')
    const compactor = createCompactor({
      ...stripAdapter(run.adapterOptions),
      ...summarizerOptions,
      tokenizer: await tokenizer,
      highWaterMark: Number.MIN_VALUE,
      compactFraction: (before + 0.5) / starts.length,
    })
    return compactor.maybeCompact(converted)
  }

  return createMiddleware({
    name: 'FloorguardCompactionMiddleware',
    contextSchema,
    beforeModel: async (state, runtime) => {
      const context = readContext(runtime?.context)
      const run = Object.keys(context).length === 0 ? base : resolve(context)
      const { settings } = run
      const messages = state.messages as BaseMessage[]
      if (settings.trigger === undefined) {
        const { messages: output, result, changed } = await viewFor(run).apply(messages)
        reportSignal(result, run)
        return changed ? update(output) : undefined
      }
      if (!(await shouldTrigger(messages, settings))) return undefined
      const cut = await cutFor(messages, settings)
      if (cut === 0) return undefined
      let result: CompactorResult | undefined
      if (lastRefusal && lastRefusal.key === run.key && lastRefusal.length === messages.length && lastRefusal.first === messages[0] && lastRefusal.cut === messages[cut]) {
        // The same history was refused on an earlier step: report it again without summarizing it again.
        result = lastRefusal.result
      } else {
        result = await compactAt(messages, cut, run)
        if (!result) return undefined
        lastRefusal = result.kind === 'refused' ? { key: run.key, first: messages[0]!, cut: messages[cut], length: messages.length, result } : undefined
      }
      reportSignal(result, run)
      if (result.kind === 'unchanged' || result.layout.every((entry, index) => entry.kind === 'kept' && entry.index === index)) return undefined
      return update(rebuildMessages(messages, result.layout, rebuildFor(settings.prefix)))
    },
  })
}

function stripAdapter(options: AdapterOptions) {
  const { compactor: _compactor, onRefusal: _onRefusal, onSignal: _onSignal, summaryPrefix: _summaryPrefix, ...rest } = options
  return rest
}

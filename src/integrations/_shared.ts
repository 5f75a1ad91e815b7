/**
 * What every framework adapter shares: the compactor behind it, the compacted view of a conversation kept between
 * calls, and what a refusal does.
 *
 * A framework either hands the full history again on every call (ai 6 `prepareStep`, the middleware's prompt) or
 * carries the messages an adapter returned forward (ai 7 `prepareStep`, a LangChain state, an Agents session). The
 * view serves both: when the input starts with the previous input, the previous output (its summaries included)
 * stands for that prefix, so a summary is written once and re-sent as the same text on every later call; when the
 * input starts with the previous output, it already is the compacted history. Either way only the new messages are
 * converted, and the compactor (whose caches are keyed by message object) sees the same objects again.
 */

import { FloorguardError } from '../errors.js'
import { applyLayout, createCompactor } from '../runtime/index.js'
import type { BudgetSignal, Compactor, CompactorOptions, CompactorResult, LayoutEntry, RuntimeRange } from '../runtime/types.js'
import type { Message } from '../spec/transcript.js'

/** The default text before a summary (langchain's summarization middleware uses the same words). */
export const DEFAULT_SUMMARY_PREFIX = 'Here is a summary of the conversation to date:'

/** Options every adapter takes besides the compactor's own. */
export interface AdapterOptions extends CompactorOptions {
  /**
   * A compactor to use instead of one made from the other options (share one per conversation).
   * @default createCompactor(options)
   */
  readonly compactor?: Compactor
  /**
   * What a refusal does to the call. `proceed`: the call goes ahead with the messages uncompacted and `onSignal`
   * hears why; `throw`: a {@link CompactionRefusedError} carrying the signal is thrown (after `onSignal`).
   * @default 'proceed'
   */
  readonly onRefusal?: 'proceed' | 'throw'
  /**
   * Hears every budget signal: a refusal (the segment stayed raw), or a context that will overflow anyway.
   * @default undefined (a refusal still leaves the messages intact)
   */
  readonly onSignal?: (signal: BudgetSignal, result: CompactorResult) => void
  /**
   * Text before each summary the adapter writes (a blank line separates them).
   * @default 'Here is a summary of the conversation to date:'
   */
  readonly summaryPrefix?: string
}

/** Thrown on a refusal when `onRefusal: 'throw'`: the segment could not be compacted safely; `signal` has the numbers. */
export class CompactionRefusedError extends FloorguardError {
  readonly signal: BudgetSignal

  constructor(signal: BudgetSignal) {
    // The planner's reason already lists the options; the runtime's own reasons do not.
    const options = signal.options.length > 0 && !signal.reason.includes('Options:') ? ` Options: ${signal.options.join('; or ')}.` : ''
    const overflow = signal.willOverflow ? ` The context will overflow the budget ${signal.budget} by ${signal.overflowBy} tokens.` : ''
    const reason = signal.reason.endsWith('.') ? signal.reason.slice(0, -1) : signal.reason
    super('compaction-floor', `floorguard refused to compact messages ${signal.range[0]}:${signal.range[1]} (floor ${signal.floor}, slot ${signal.slot}): ${reason}.${overflow}${options}`)
    this.name = 'FloorguardCompactionRefusedError'
    this.signal = signal
  }
}

/** The compactor an adapter uses: the one given, else one made from the options. */
export function compactorOf(options: AdapterOptions): Compactor {
  if (options.compactor) return options.compactor
  const { compactor: _compactor, onRefusal: _onRefusal, onSignal: _onSignal, summaryPrefix: _summaryPrefix, ...compactorOptions } = options
  return createCompactor(compactorOptions)
}

/** Reports a result's signal, and throws when the result is a refusal and the options say so. */
export function reportSignal(result: CompactorResult, options: Pick<AdapterOptions, 'onRefusal' | 'onSignal'>): void {
  if (!result.signal) return
  options.onSignal?.(result.signal, result)
  if (result.kind === 'refused' && options.onRefusal === 'throw') throw new CompactionRefusedError(result.signal)
}

/** How an adapter builds its own messages from a layout. */
export interface Rebuild<T> {
  /** A summary message of `text` replacing input messages `range`. */
  summary(text: string, range: RuntimeRange): T
  /** Input message `message` (a tool result) with its output replaced by `text` (policy `other-segment`). */
  mask(message: T, text: string): T
}

/**
 * The caller's messages for a layout (the runtime's `applyLayout`): `kept` entries are the input objects themselves
 * (never copied), summaries and masked results are built by `rebuild`.
 */
export function rebuildMessages<T>(input: readonly T[], layout: readonly LayoutEntry[], rebuild: Rebuild<T>): T[] {
  return applyLayout(input, layout, rebuild.summary, rebuild.mask)
}

/** Options of {@link createCompactionView}. */
export interface CompactionViewOptions<T extends object> {
  readonly compactor: Compactor
  /** One framework message as one floorguard message. */
  readonly convert: (message: T) => Message
  readonly rebuild: Rebuild<T>
  /**
   * Content equality of two messages, for frameworks that rebuild equal objects on every call (the AI SDK's prompt).
   * @default identity only
   */
  readonly equal?: (left: T, right: T) => boolean
}

/** The result of one {@link CompactionView.apply}. */
export interface ViewResult<T> {
  /** The messages to send: the input array itself when neither this call nor an earlier one changed anything. */
  readonly messages: readonly T[]
  readonly result: CompactorResult
  /** Whether `messages` differs from the input. */
  readonly changed: boolean
}

/** A conversation's compacted view, kept between calls. */
export interface CompactionView<T> {
  /** Compacts `input` if need be; `abortSignal` (the framework call's) aborts a summarizer call under way. */
  apply(input: readonly T[], abortSignal?: AbortSignal): Promise<ViewResult<T>>
  /** Forgets the previous call (the next input is taken as a new conversation). */
  reset(): void
}

interface ViewState<T> {
  readonly input: readonly T[]
  readonly inputMessages: ReadonlyArray<Message | undefined>
  readonly output: readonly T[]
  readonly outputMessages: readonly Message[]
}

/** Creates the view of one conversation (see the module comment). */
export function createCompactionView<T extends object>(options: CompactionViewOptions<T>): CompactionView<T> {
  const { compactor, convert, rebuild } = options
  const same = (left: T, right: T): boolean => left === right || (options.equal !== undefined && options.equal(left, right))
  const startsWith = (input: readonly T[], prefix: readonly T[]): boolean => {
    if (prefix.length === 0 || prefix.length > input.length) return false
    for (let index = 0; index < prefix.length; index++) if (!same(input[index] as T, prefix[index] as T)) return false
    return true
  }
  let state: ViewState<T> | undefined

  return {
    reset() {
      state = undefined
    },
    async apply(input, abortSignal) {
      let view: readonly T[] = input
      let viewMessages: Message[]
      // The floorguard message of each input message, where known, for the next call's changed-history path.
      let inputMessages: Array<Message | undefined>
      let base = 0
      if (state && startsWith(input, state.output)) {
        // The framework carried the previous output forward (ai 7, a stored history).
        base = state.output.length
        viewMessages = [...state.outputMessages]
        inputMessages = [...state.outputMessages]
      } else if (state && startsWith(input, state.input)) {
        // The framework re-sent the full history (ai 6, a rebuilt prompt): the previous output stands for it.
        base = state.input.length
        view = [...state.output, ...input.slice(base)]
        viewMessages = [...state.outputMessages]
        inputMessages = [...state.inputMessages]
      } else {
        // A changed history (an edited or regenerated message): the unchanged head keeps its converted messages, so
        // the compactor's caches (and its memory of the compaction of that head) still hold.
        viewMessages = []
        inputMessages = []
        for (; state && base < input.length && base < state.input.length && same(input[base] as T, state.input[base] as T); base++) {
          const message = state.inputMessages[base] ?? convert(input[base] as T)
          viewMessages.push(message)
          inputMessages.push(message)
        }
      }
      for (let index = base; index < input.length; index++) {
        const message = convert(input[index] as T)
        viewMessages.push(message)
        inputMessages.push(message)
      }
      const result = await compactor.maybeCompact(viewMessages, abortSignal ? { abortSignal } : {})
      const output = result.kind === 'unchanged' && result.messages === viewMessages ? view : rebuildMessages(view, result.layout, rebuild)
      state = { input, inputMessages, output, outputMessages: result.messages }
      const changed = output.length !== input.length || output.some((message, index) => message !== input[index])
      return { messages: changed ? output : input, result, changed }
    },
  }
}

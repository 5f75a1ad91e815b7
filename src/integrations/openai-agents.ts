/**
 * floorguard for the OpenAI Agents SDK (`floorguard/openai-agents`): a `Session` decorator that compacts the stored
 * history locally, with verification, after each turn — `OpenAIResponsesCompactionSession` without the server call.
 *
 * Facts these rely on (@openai/agents-core 0.14.3, node_modules/@openai/agents-core/dist/memory/session.d.ts and
 * runner/sessionPersistence.mjs; @openai/agents-openai 0.14.3 memory/openaiResponsesCompactionSession.mjs): the
 * runner calls `runCompaction({ responseId?, compactionMode?, store?, force? })` on any session that has it, after it
 * persists a completed turn, and adds a non-null result's `usage` to the run; `OpenAIResponsesCompactionSession`
 * delegates storage to `underlyingSession` (default a `MemorySession`), decides with `shouldTriggerCompaction({
 * responseId, compactionMode, compactionCandidateItems, sessionItems })` (default: at least 10 candidates, i.e.
 * items that are neither user messages nor `compaction` items; `force` skips it) and replaces the history by
 * `clearSession` + `addItems`, restoring the previous items when that fails. `replaceHistoryWithCompaction(items)` is
 * optional, and a backend may *append* the items, taking a leading `compaction` item as the replay boundary
 * (`OpenAIConversationsSession` does): the runner calls it only for items led by a `compaction` item. `MemorySession`
 * clones items on `getItems` and `addItems`.
 */

import type { AgentInputItem, OpenAIResponsesCompactionArgs, OpenAIResponsesCompactionAwareSession, OpenAIResponsesCompactionResult, Session } from '@openai/agents'
import { MemorySession } from '@openai/agents'
import { createCompactor } from '../runtime/index.js'
import type { Compactor, CompactorResult } from '../runtime/types.js'
import { fromAgentItem, markSummary, summaryMessageText, type AgentItemLike } from './_convert.js'
import { sameContent } from './_equal.js'
import { type AdapterOptions, type CompactionView, type Rebuild, DEFAULT_SUMMARY_PREFIX, createCompactionView, reportSignal } from './_shared.js'

export { CompactionRefusedError, DEFAULT_SUMMARY_PREFIX } from './_shared.js'
export type { AdapterOptions } from './_shared.js'

/**
 * What the decision hook sees: `OpenAIResponsesCompactionDecisionContext`'s fields, so a hook written for
 * `OpenAIResponsesCompactionSession` works unchanged (`compactionMode` is always `input`: the local history is read).
 */
export interface CompactionDecisionContext {
  /** The `responseId` the runner passed, if any (unused locally). */
  readonly responseId: string | undefined
  readonly compactionMode: 'input'
  /** Items that are neither user messages nor `compaction` items (read-only). */
  readonly compactionCandidateItems: readonly AgentInputItem[]
  /** Every stored item (read-only). */
  readonly sessionItems: readonly AgentInputItem[]
}

/** Options of {@link FloorguardCompactionSession}. */
export interface FloorguardCompactionSessionOptions extends AdapterOptions {
  /**
   * The session that stores the items and receives the compacted history.
   * @default new MemorySession()
   */
  readonly underlyingSession?: Session
  /**
   * Whether to ask the compactor at all after a turn; the compactor then compacts only at its high-water mark.
   * @default always
   */
  readonly shouldTriggerCompaction?: (context: CompactionDecisionContext) => boolean | Promise<boolean>
  /**
   * How the compacted history is written. `auto`: `replaceHistoryWithCompaction` when the session has it, checked
   * by reading the history back (a backend that appended instead is then rebuilt with `clearSession` + `addItems`);
   * `clear-and-add`: always `clearSession` + `addItems`. Either way a failed write restores the previous items.
   * @default 'auto'
   */
  readonly replace?: 'auto' | 'clear-and-add'
}

function isCandidate(item: AgentInputItem): boolean {
  const record = item as AgentItemLike
  return record.type !== 'compaction' && !((record.type === undefined || record.type === 'message') && record.role === 'user')
}

/**
 * A `Session` that compacts the history it stores with floorguard after each turn (the runner calls
 * `runCompaction`): at the compactor's high-water mark the oldest turns become one verified summary (a user message
 * of `summaryPrefix` + the summary) and the rest stays as stored. Items up to the latest `compaction` item (an
 * encrypted server summary floorguard cannot read) are never compacted. A refusal leaves the history untouched and
 * reports the signal (`onSignal`, or a thrown {@link CompactionRefusedError} with `onRefusal: 'throw'`).
 *
 * `runCompaction` returns `null`: the compaction makes no model request the run should count (a model summarizer's
 * calls are its own); `lastResult` holds the last compactor result.
 *
 * @example
 * const session = new FloorguardCompactionSession({ underlyingSession: new MemorySession(), budget: 128_000 })
 * await run(agent, 'next question', { session })
 */
export class FloorguardCompactionSession implements OpenAIResponsesCompactionAwareSession {
  readonly underlyingSession: Session
  /** The compactor's result of the last `runCompaction` that reached it. */
  lastResult: CompactorResult | undefined
  readonly #options: FloorguardCompactionSessionOptions
  readonly #view: CompactionView<AgentInputItem>
  #forced: CompactionView<AgentInputItem> | undefined

  constructor(options: FloorguardCompactionSessionOptions = {}) {
    this.#options = options
    this.underlyingSession = options.underlyingSession ?? new MemorySession()
    this.#view = this.#createView(options.compactor ?? createCompactor(compactorOptions(options)))
  }

  #createView(compactor: Compactor): CompactionView<AgentInputItem> {
    const prefix = this.#options.summaryPrefix ?? DEFAULT_SUMMARY_PREFIX
    const rebuild: Rebuild<AgentInputItem> = {
      summary: (text) => markSummary({ type: 'message', role: 'user', content: summaryMessageText(prefix, text) } as AgentInputItem, text),
      mask: (item, text) => ((item as AgentItemLike).type === 'function_call_result' ? ({ ...item, output: text } as AgentInputItem) : item),
    }
    return createCompactionView<AgentInputItem>({ compactor, convert: (item) => fromAgentItem(item as AgentItemLike, prefix), rebuild, equal: sameContent })
  }

  getSessionId(): Promise<string> {
    return this.underlyingSession.getSessionId()
  }

  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.underlyingSession.getItems(limit)
  }

  addItems(items: AgentInputItem[]): Promise<void> {
    return this.underlyingSession.addItems(items)
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.underlyingSession.popItem()
  }

  async clearSession(): Promise<void> {
    await this.underlyingSession.clearSession()
    this.#view.reset()
    this.#forced?.reset()
  }

  /**
   * Compacts the stored history when the compactor's high-water mark is reached (`force`: whatever its size, with a
   * compactor made from the options whose mark is 0 tokens; not available with `options.compactor`). Returns `null`.
   */
  async runCompaction(args: OpenAIResponsesCompactionArgs = {}): Promise<OpenAIResponsesCompactionResult | null> {
    const items = await this.underlyingSession.getItems()
    if (args.force !== true && this.#options.shouldTriggerCompaction) {
      const go = await this.#options.shouldTriggerCompaction({
        responseId: args.responseId,
        compactionMode: 'input',
        compactionCandidateItems: items.filter(isCandidate),
        sessionItems: items,
      })
      if (!go) return null
    }
    let view = this.#view
    if (args.force === true && !this.#options.compactor) {
      this.#forced ??= this.#createView(createCompactor({ ...compactorOptions(this.#options), highWaterMark: Number.MIN_VALUE }))
      view = this.#forced
    }
    // The server's encrypted compaction (and all before it) is the replay boundary: never compacted here.
    let boundary = 0
    items.forEach((item, index) => {
      if ((item as AgentItemLike).type === 'compaction') boundary = index + 1
    })
    const head = items.slice(0, boundary)
    const { messages, result, changed } = await view.apply(items.slice(boundary))
    this.lastResult = result
    if (changed) await this.#write(items, [...head, ...messages])
    reportSignal(result, this.#options)
    return null
  }

  async #write(previous: AgentInputItem[], replacement: AgentInputItem[]): Promise<void> {
    const session = this.underlyingSession
    try {
      if (this.#options.replace !== 'clear-and-add' && typeof session.replaceHistoryWithCompaction === 'function') {
        await session.replaceHistoryWithCompaction(replacement)
        const stored = await session.getItems()
        if (stored.length === replacement.length && stored.every((item, index) => sameContent(item, replacement[index]))) return
      }
      await session.clearSession()
      if (replacement.length > 0) await session.addItems(replacement)
    } catch (error) {
      await session.clearSession()
      if (previous.length > 0) await session.addItems(previous)
      throw error
    }
  }
}

function compactorOptions(options: FloorguardCompactionSessionOptions) {
  const {
    compactor: _compactor,
    onRefusal: _onRefusal,
    onSignal: _onSignal,
    summaryPrefix: _summaryPrefix,
    underlyingSession: _underlyingSession,
    shouldTriggerCompaction: _shouldTriggerCompaction,
    replace: _replace,
    ...rest
  } = options
  return rest
}

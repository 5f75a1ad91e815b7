/**
 * The auto-compaction runtime's contract (issue 12): what `createCompactor` takes and `maybeCompact` returns.
 *
 * The runtime, the framework adapters and the demo share these types (see /work/notes/runtime-api.md). They work on
 * floorguard's normalized {@link Message}; an adapter maps its own messages in and rebuilds them from the result's
 * {@link LayoutEntry layout} with `applyLayout`.
 */
import type { EstimatorName } from '../estimate/index.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import type { TokenizerName } from '../tokenize/index.js'

/** `[start, end)`: half-open indices into the messages given to `maybeCompact`. */
export type RuntimeRange = readonly [start: number, end: number]

/**
 * What the compactor does when the planner refuses the selected segment (slot below its floor, a unit that cannot be
 * cut, a budget no split fits).
 *
 * - `keep` (default): the segment stays raw; a {@link BudgetSignal} is returned and emitted with its numbers.
 * - `raise-slot`: the smallest slot that plans, when it is at most `cap` tokens; never past `cap` (else as `keep`).
 * - `other-segment`: compact something else: the planner's own `compact-range` options, then masking old outputs of
 *   read-only tool calls that can be run again (never an error, never a result of a call with effects).
 * - `accept-risk`: compact anyway into the configured slot, unverified against the floor; the `compaction-end` event
 *   lists exactly the items the summary lost.
 */
export type CompactionPolicy = 'keep' | 'other-segment' | 'accept-risk' | { readonly kind: 'raise-slot'; readonly cap: number }

/** Which of the record's guards run. Both off is the record's naive compactor (fixed slot, no floor, no verification). */
export interface CompactorChecks {
  /**
   * Plan against the floor (compact / split / refuse). Off, the whole selection goes into the fixed slot.
   * @default true
   */
  readonly floor?: boolean
  /**
   * Verify every summary (every must-keep item verbatim, within the slot), repair and retry. Off, the summarizer's
   * text is taken as it comes.
   * @default true
   */
  readonly verify?: boolean
}

/** Options of `createCompactor`; every field optional, defaults are the record's observed system. */
export interface CompactorOptions {
  /**
   * Context budget in tokens.
   * @default 128_000
   */
  readonly budget?: number
  /**
   * Share of the budget at which a call compacts: `contextTokens >= highWaterMark × budget`.
   * @default 0.85
   */
  readonly highWaterMark?: number
  /**
   * Oldest share of the turns (user messages start turns) selected for compaction, moved to causal-unit boundaries,
   * never the leading system messages.
   * @default 0.4
   */
  readonly compactFraction?: number
  /**
   * Summary slot in tokens.
   * @default 2_000
   */
  readonly slot?: number
  /**
   * Coherence margin as a share of the irreducible tokens (the record: 0.15–0.25); used when the estimator is named.
   * @default 0.2
   */
  readonly margin?: number
  /**
   * Counts context tokens, slots and summaries.
   * @default 'o200k_base'
   */
  readonly tokenizer?: TokenizerV1 | TokenizerName
  /**
   * Prices the irreducible items.
   * @default 'full'
   */
  readonly estimator?: FloorEstimatorV1 | EstimatorName
  /**
   * Writes the summaries.
   * @default createLedgerSummarizer()
   */
  readonly summarizer?: SummarizerV1
  /**
   * Most tokens all summaries of a split may cost together.
   * @default the planner's: the selection's tokens - 1
   */
  readonly summaryBudget?: number
  /**
   * Milliseconds one summarizer call may take before it is aborted (a model that hangs stalls the agent's own call).
   * @default 120000
   */
  readonly timeoutMs?: number
  /**
   * Summarizer calls per summary, including the first (a failed verification is retried with the missing items named).
   * @default 3
   */
  readonly attempts?: number
  /**
   * What to do when the planner refuses.
   * @default 'keep'
   */
  readonly policy?: CompactionPolicy
  /**
   * Which guards run; `{ floor: false, verify: false }` is the record's naive compactor (the demo's naive arm).
   * @default { floor: true, verify: true }
   */
  readonly checks?: CompactorChecks
  /** Receives every event as it happens (also collected in each result's `events`). */
  readonly onEvent?: (event: CompactorEvent) => void
  /**
   * Milliseconds since some origin; events carry `time` = clock() - clock() at creation (tests inject a fake).
   * @default performance.now
   */
  readonly clock?: () => number
}

/** Options of one {@link Compactor.maybeCompact} call. */
export interface MaybeCompactOptions {
  /**
   * The caller's signal (the agent's own `abortSignal`): once aborted, no summarizer call starts and the one running
   * is aborted; the compaction then refuses and the messages are returned as they were.
   */
  readonly abortSignal?: AbortSignal
}

/** A configured auto-compactor. Keeps per-message caches between calls; one compactor per conversation. */
export interface Compactor {
  /**
   * Compacts `messages` when their tokens reach the high-water mark; else returns them unchanged. Never mutates the
   * array or its messages. Costs O(new or changed messages) when nothing is to be done.
   */
  maybeCompact(messages: readonly Message[], options?: MaybeCompactOptions): Promise<CompactorResult>
  /** Counters for tests and benchmarks. */
  readonly stats: CompactorStats
}

/** {@link Compactor.stats}. */
export interface CompactorStats {
  /** `maybeCompact` calls so far. */
  readonly calls: number
  /** Messages of the last call whose tokens (and copy) came from the cache. */
  readonly cachedMessages: number
  /** Messages of the last call that had to be computed: a new object, or a known object whose content changed. */
  readonly computedMessages: number
}

/** One output message: an input message kept as it is, a summary of an input range, or a masked tool output. */
export type LayoutEntry =
  | { readonly kind: 'kept'; readonly index: number }
  | { readonly kind: 'summary'; readonly range: RuntimeRange; readonly text: string }
  /**
   * Input message `index` (a tool result of a read-only call) with its output replaced by `text`, a placeholder
   * naming the call (policy `other-segment`).
   */
  | { readonly kind: 'masked'; readonly index: number; readonly text: string }

/** What `maybeCompact` returns. */
export interface CompactorResult {
  /**
   * `unchanged`: below the high-water mark (or nothing selectable); `compacted`: one summary; `split`: several;
   * `refused`: the planner refused and the policy kept the segment (or masked other messages instead: see `layout`).
   */
  readonly kind: 'unchanged' | 'compacted' | 'split' | 'refused'
  /** The context to send: the input array itself when nothing changed. */
  readonly messages: readonly Message[]
  /** One entry per output message, so adapters can map back to their own message objects. */
  readonly layout: readonly LayoutEntry[]
  /** This call's events (also given to `onEvent`). */
  readonly events: readonly CompactorEvent[]
  /**
   * Present on a refusal, when the context will overflow anyway, or when a compaction left it at or above the mark
   * (the next call compacts again; `willOverflow` says whether it is also over the budget).
   */
  readonly signal?: BudgetSignal
}

/** The record's budget-infeasibility signal, with the numbers a caller needs to decide. */
export interface BudgetSignal {
  readonly type: 'budget-infeasible'
  /** The segment that could not be compacted safely. */
  readonly range: RuntimeRange
  /** The segment's floor (irreducible + margin) in tokens. */
  readonly floor: number
  /** The slot it was asked to fit. */
  readonly slot: number
  /** Tokens of the context given to the call. */
  readonly contextTokens: number
  readonly budget: number
  /** Whether the context sent (after whatever this call did) exceeds the budget. */
  readonly willOverflow: boolean
  /** `max(0, tokens sent - budget)`. */
  readonly overflowBy: number
  /** What the caller can do, one line each with numbers (raise the slot to N, split, compact another range…). */
  readonly options: readonly string[]
  /** One line: why. */
  readonly reason: string
}

/** Fields every event carries. */
export interface EventBase {
  /** The `maybeCompact` call number (1-based). */
  readonly call: number
  /** Milliseconds since the compactor was created (by its clock). */
  readonly time: number
}

/** A must-keep item named in an event. */
export interface EventItem {
  readonly kind: string
  readonly text: string
}

/** One summary a plan asks for: the range it replaces, that range's floor and the slot the summary gets. */
export interface PlannedPart {
  readonly range: RuntimeRange
  /** The part's floor (irreducible + margin) in tokens. */
  readonly floor: number
  /** The part's own slot (a split part's floor rounded up, at most the configured slot). */
  readonly slot: number
  /** Tokens of the messages the summary replaces. */
  readonly tokens: number
  /** Must-keep items of the part (distinct texts). */
  readonly items: number
}

/**
 * Why a compaction was refused: the planner's reason (`unit-exceeds-slot`, `would-cut-unit`, `budget-exceeded`,
 * `range-cuts-unit`, `estimator-inconsistent`, `no-gain`), the orchestrator's (`summarizer`: no summary verified
 * within the attempts; `tool-pair`; `empty`; `no-gain`), or `nothing-selectable` (no whole causal unit before the
 * newest turn).
 */
export type RefusalCode =
  | 'unit-exceeds-slot'
  | 'would-cut-unit'
  | 'budget-exceeded'
  | 'range-cuts-unit'
  | 'estimator-inconsistent'
  | 'no-gain'
  | 'summarizer'
  | 'tool-pair'
  | 'empty'
  | 'nothing-selectable'

/**
 * What the policy did about a refusal: `kept` the segment raw (`keep`, or a policy that could not act),
 * `raised-slot` (compacted at `raisedSlot`), `compacted-other` (compacted `otherRange` instead), `masked` (tool
 * outputs replaced by placeholders), `accepted-risk` (compacted into the slot, `lost` items not held verbatim).
 */
export type PolicyAction = 'kept' | 'raised-slot' | 'compacted-other' | 'masked' | 'accepted-risk'

/** Every decision is an event with its numbers; `type` is noun-verb. */
export type CompactorEvent =
  | (EventBase & {
      readonly type: 'compaction-start'
      readonly contextTokens: number
      readonly budget: number
      /** `highWaterMark × budget`, rounded down. */
      readonly threshold: number
      /** The selected segment. */
      readonly range: RuntimeRange
      /**
       * Present when the oldest `compactFraction` of the turns (this range) would, summarized into the slot, have
       * left the context at the mark: `range` is then that selection grown turn by turn.
       */
      readonly grownFrom?: RuntimeRange
      /**
       * Present (true) when even the largest selection allowed (up to the last turn, or to a newer user message),
       * summarized into the slot, leaves the context at the mark: it is compacted, and the result's signal says
       * what is left.
       */
      readonly largest?: boolean
    })
  | (EventBase & {
      readonly type: 'plan-end'
      readonly decision: 'compact' | 'split' | 'refuse'
      /** Floor of the planned segment (computed for the record even when the floor check is off). */
      readonly floor: number
      readonly slot: number
      /** The ranges each summary will replace (empty on a refusal). */
      readonly parts: ReadonlyArray<RuntimeRange>
      /** The planned segment. */
      readonly range: RuntimeRange
      /** Tokens of the planned segment. */
      readonly tokens: number
      /** One per entry of `parts`, in order: its range, floor and slot (empty on a refusal). */
      readonly plannedParts: readonly PlannedPart[]
      /** On a refusal: the planner's reason. */
      readonly reason?: RefusalCode
    })
  | (EventBase & {
      readonly type: 'summary-end'
      /** Index of the part in the last `plan-end`'s `parts` (0 for a single summary). */
      readonly part: number
      readonly range: RuntimeRange
      /** The slot the summary had to fit. */
      readonly slot: number
      /** Tokens of the summary. */
      readonly tokens: number
      /** Must-keep items of the part. */
      readonly items: number
      /** How many of them the summary holds verbatim. */
      readonly survived: number
      readonly attempts: number
      /**
       * The summary passed verification (every must-keep item verbatim, within the slot). False when verification
       * was off (`checks.verify: false`) or bypassed (`accept-risk`): `survived` is then only counted, not enforced.
       */
      readonly verified: boolean
    })
  | (EventBase & {
      readonly type: 'verify-error'
      readonly range: RuntimeRange
      readonly attempt: number
      /** Must-keep texts the attempt missed. */
      readonly missing: readonly string[]
      readonly problems: readonly string[]
    })
  | (EventBase & {
      readonly type: 'refusal'
      readonly signal: BudgetSignal
      /** Why: the planner's or the orchestrator's code. */
      readonly code: RefusalCode
      /** The refused segment's floor (= `signal.floor`). */
      readonly floor: number
      /** The slot it was refused at (= `signal.slot`). */
      readonly slot: number
      /** The policy's name (`raise-slot` for `{ kind: 'raise-slot' }`). */
      readonly policy: string
      /** What the policy did (the event follows the policy's own `plan-end` / `summary-end` events). */
      readonly action: PolicyAction
      /** `raised-slot`: the slot the segment was compacted at. */
      readonly raisedSlot?: number
      /** `compacted-other`: the range compacted instead. */
      readonly otherRange?: RuntimeRange
      /** `masked`: the input messages whose tool output was masked. */
      readonly masked?: readonly number[]
      /** `accepted-risk`: how many must-keep items the summary does not hold verbatim (listed in `compaction-end.lost`). */
      readonly lost?: number
    })
  | (EventBase & {
      readonly type: 'compaction-end'
      readonly kind: 'compacted' | 'split' | 'refused'
      readonly contextTokensBefore: number
      readonly contextTokensAfter: number
      /** accept-risk and unverified runs (`checks.verify: false`): every must-keep item the summaries do not hold verbatim. */
      readonly lost?: readonly EventItem[]
      /** other-segment only: the messages whose tool output was masked. */
      readonly masked?: readonly number[]
      /** The selection's messages were compacted (or refused) by an earlier call and its outcome was reused. */
      readonly replayed?: boolean
    })

/** The `type` of a {@link CompactorEvent}. */
export type CompactorEventType = CompactorEvent['type']

import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, ToolPair } from '../spec/transcript.js'

export type { MustKeepItem } from '../spec/summarizer.js'

/** `[start, end)`: half-open transcript message indices. */
export type MessageRange = readonly [start: number, end: number]

/**
 * What holds a causal unit together.
 *
 * `tool-pair`: a call and its result. `error-fix`: a failing result through what resolved it. `superseded-decision`:
 * a value set and later changed (a pin and its revert). `caller`: a range the caller marked. `message`: one message
 * on its own (the smallest thing a plan can place).
 */
export type UnitKind = 'message' | 'tool-pair' | 'error-fix' | 'superseded-decision' | 'caller'

/** A range of messages that must end up in one summary. */
export interface CausalUnit {
  readonly kind: UnitKind
  readonly range: MessageRange
  /** Why the unit exists, for people: `bash:npm test failed at 12`, a caller's label. */
  readonly label?: string
  /** For `error-fix`: the failing result and its tool key. */
  readonly failure?: { readonly message: number; readonly key: string }
  /** For `error-fix`: what closed it, a later success of the same tool key or an assistant turn without tool calls. */
  readonly resolution?: { readonly message: number; readonly by: 'success' | 'assistant-turn' }
}

/** What a {@link UnitLinkerV1} is given: the segment and its tool pairs (both ends inside the segment). */
export interface LinkInput {
  readonly messages: readonly Message[]
  /** Transcript index of `messages[0]`. */
  readonly offset: number
  /** Tool pairs with transcript indices, both ends inside the segment. */
  readonly pairs: readonly ToolPair[]
}

/** Links messages into causal units (the planner never cuts inside one). Ranges are transcript indices. */
export interface UnitLinkerV1 {
  readonly specificationVersion: 'v1'
  readonly name: string
  link(input: LinkInput): CausalUnit[]
}

/** A caller's own "keep these together" range, in transcript indices. */
export interface CallerUnit {
  readonly range: MessageRange
  readonly label?: string
}

/** A value the segment set: a version pin or a threshold/env assignment. */
export interface StateValue {
  /** `pin:<package>` (lower case), `image:<name>` (a container image) or `var:<name>`. */
  readonly key: string
  readonly kind: 'pin' | 'assignment'
  /** The value as written, quotes removed, pip operators kept: `==1.2.3`, `>=1.2,<2`, `^1.2`, `30s`. */
  readonly value: string
  /** The whole assignment as written: `requests==2.31.0`, `MAX_RETRIES=3`. */
  readonly text: string
  /** Transcript index of the message. */
  readonly message: number
  /** Offsets of `text` in the message's rendered text. */
  readonly start: number
  readonly end: number
  /** `current`: the segment's latest value for the key; `superseded`: a later different value replaced it. */
  readonly status: 'current' | 'superseded'
  /** For a superseded value: where the current value was set, and what it is. */
  readonly supersededBy?: { readonly message: number; readonly value: string }
  /**
   * What this mention does to the key: `set` makes the value current; `replaced` (the `Y` of `X instead of Y`,
   * `replace Y with X`, `switch from Y to X`, `Y -> X`) takes it out of force; `none` (a question, a negated clause)
   * changes nothing. Absent means `set`.
   */
  readonly effect?: StateEffect
}

/** What a mention of a value does to its key (see {@link StateValue.effect}). */
export type StateEffect = 'set' | 'replaced' | 'none'

/** A floor as the record states it: irreducible tokens plus the coherence margin. */
export interface FloorSummary {
  readonly irreducible: number
  readonly margin: number
  /** `irreducible + margin`: the number a slot is compared with. */
  readonly total: number
}

/** Why the guard could skip the floor: the record's conditions of validity, or `on` when none holds. */
export type GuardMode = 'on' | 'retrievable' | 'dead-region' | 'narrative-only' | 'unconstrained'

/** The whole segment fits the slot. */
export interface CompactPlan {
  readonly kind: 'compact'
  readonly range: MessageRange
  /** The segment's floor (authoritative: `estimator.estimate`). */
  readonly floor: FloorSummary
  /**
   * The slot the summary gets: the configured slot (unconstrained: at least the floor), capped at the budget
   * (`tokens - 1` by default), so the summary never costs more than the messages it replaces.
   */
  readonly slot: number
  /** The slot asked for, when the cap made `slot` smaller. */
  readonly requestedSlot?: number
  /** Tokens of the messages being replaced (`renderMessage` text, counted per message). */
  readonly tokens: number
  readonly guard: GuardMode
  /** What the summary must carry verbatim. With a guard other than `on`/`unconstrained` it is advisory. */
  readonly items: readonly MustKeepItem[]
  /** Values the segment changed (only keys with at least two different values). */
  readonly state: readonly StateValue[]
}

/** One summary of a split. */
export interface PlanPart {
  readonly range: MessageRange
  /** The part's floor total (authoritative), `<= slot`. */
  readonly floor: number
  /** The part's own slot: `min(configured slot, floor rounded up to slotRounding)`. */
  readonly slot: number
  readonly tokens: number
  readonly items: readonly MustKeepItem[]
  readonly state: readonly StateValue[]
}

/** The whole does not fit, but these parts each fit their own slot within the summary budget. */
export interface SplitPlan {
  readonly kind: 'split'
  readonly range: MessageRange
  readonly floor: FloorSummary
  /** The configured slot (every part's slot is at most this). */
  readonly slot: number
  readonly tokens: number
  readonly guard: 'on'
  /** The most the parts' slots may add up to. */
  readonly budget: number
  /** Sum of the parts' slots: what the summaries cost. */
  readonly summaryTokens: number
  /** `tokens - summaryTokens`. */
  readonly frees: number
  /**
   * `fewest-parts`: fewest summaries, then fewest summary tokens, then cuts at user turns. `fewest-tokens`: the
   * fewest-parts partition broke the budget, so this is the partition with the fewest summary tokens.
   */
  readonly optimal: 'fewest-parts' | 'fewest-tokens'
  readonly parts: readonly PlanPart[]
  readonly state: readonly StateValue[]
}

/** Why a plan refuses. */
export type RefusalReason =
  /** A unit's floor exceeds the slot and cutting it would not help (one of its messages alone exceeds the slot). */
  | 'unit-exceeds-slot'
  /** A unit's floor exceeds the slot; its messages would fit separately, but the unit must not be cut. */
  | 'would-cut-unit'
  /** Every part fits its slot, but no partition's summaries fit the summary budget. */
  | 'budget-exceeded'
  /** The segment's own boundary cuts a unit (a tool call inside, its result outside; a caller unit half inside). */
  | 'range-cuts-unit'
  /** The estimator's `estimate` disagrees with its own `extract` so that a planned part does not fit. */
  | 'estimator-inconsistent'
  /** The floor is not below the budget (default `tokens - 1`): no summary could cost less than the messages it replaces. */
  | 'no-gain'

/** A unit named in a refusal, with its largest items. */
export interface OffendingUnit {
  /** `part`: a part of the cheapest partition (budget refusals). */
  readonly kind: UnitKind | 'part'
  readonly range: MessageRange
  /** The unit's floor total. */
  readonly floor: number
  /** Its 5 largest items (by tokens, then first appearance). */
  readonly items: readonly FloorItem[]
  /** The units that overlap into this one, when there are several. */
  readonly members?: readonly CausalUnit[]
  readonly label?: string
}

/** Something the orchestrator can do instead, with numbers. */
export type RefusalOption =
  /** The smallest slot at which this segment gets a plan. */
  | { readonly kind: 'raise-slot'; readonly slot: number }
  /** The summary budget the cheapest partition needs. */
  | { readonly kind: 'raise-budget'; readonly budget: number }
  /** Compact this range instead (into `slot` tokens in all), freeing `frees` tokens. */
  | { readonly kind: 'compact-range'; readonly range: MessageRange; readonly slot: number; readonly frees: number; readonly reason: string }
  /** Compact anyway; `shortfall` floor tokens will not fit the slot. */
  | { readonly kind: 'accept-risk'; readonly shortfall: number }

/** Keep the segment uncompacted and tell the orchestrator why and what it can do. */
export interface Refusal {
  readonly kind: 'refuse'
  readonly reason: RefusalReason
  readonly range: MessageRange
  readonly floor: FloorSummary
  readonly slot: number
  readonly tokens: number
  readonly guard: 'on'
  /** The summary budget that applied. */
  readonly budget: number
  readonly units: readonly OffendingUnit[]
  readonly options: readonly RefusalOption[]
  readonly state: readonly StateValue[]
}

/** The planner's answer: data, never an exception. */
export type CompactionPlan = CompactPlan | SplitPlan | Refusal

/** What {@link planCompaction} plans over. */
export interface PlanSegment {
  /** The messages to compact. */
  readonly messages: readonly Message[]
  /**
   * Transcript index of `messages[0]`; every range in and out is a transcript index.
   * @default 0
   */
  readonly offset?: number
  /**
   * Tool pairs with transcript indices (e.g. `transcript.pairs`). Given, they also reveal pairs the segment boundary
   * cuts. Without them the segment is paired on its own with `pairToolCalls`.
   * @default pairToolCalls(messages), shifted by offset
   */
  readonly pairs?: readonly ToolPair[]
  /** Prices the segment's irreducible items. */
  readonly estimator: FloorEstimatorV1
  /** Counts the tokens of the messages being replaced. */
  readonly tokenizer: TokenizerV1
}

/** Options of {@link planCompaction}. */
export interface PlanOptions {
  /** The summary slot, in tokens: compact when `slot >= floor.total`. */
  readonly slot: number
  /**
   * Most tokens the summary, or the summaries of a split in all (sum of part slots), may cost; a compact plan's slot
   * is capped at it.
   * @default tokens - 1 (the compaction must free at least one token)
   */
  readonly budget?: number
  /**
   * Part slots are rounded up to a multiple of this (capped at `slot`), giving each summarizer call a round number
   * with a little headroom; `1` sizes slots to the floor exactly.
   * @default 100
   */
  readonly slotRounding?: number
  /** Ranges the caller wants kept in one summary, in transcript indices. */
  readonly units?: readonly CallerUnit[]
  /**
   * Linkers that add causal units; tool pairs are always units. Pass your own to replace the error-fix rule.
   * @default [createErrorFixLinker()]
   */
  readonly linkers?: readonly UnitLinkerV1[]
  /**
   * Keep a changed value and its change in one summary: a `superseded-decision` unit from the last message setting
   * the old value through the next setting a new one (mentions whose `effect` is not `set` link nothing). Off,
   * changed values are only marked.
   * @default true
   */
  readonly linkSuperseded?: boolean
  /**
   * Changes farther apart than this many messages are marked, not linked (a unit that long would only force
   * refusals; the marks already tell each part's summary which value is current).
   * @default 50
   */
  readonly supersededWindow?: number
  /**
   * Scan the segment for changed decisions: the plan's `state`, `status`/`key` on items from it, and the units
   * `linkSuperseded` adds. Off, no scan runs: `state` is empty and only errors a later success fixed and an earlier
   * summary's stale entries are marked superseded. For callers that show none of these (`floorguard check --json`
   * on a one-message segment, where no change can be linked), the scan being linear but not cheap.
   * @default true
   */
  readonly changedDecisions?: boolean
  /**
   * The raw transcript is kept elsewhere: the summary is a pointer plus a gist, no floor applies.
   * @default false
   */
  readonly retrievable?: boolean
  /**
   * The segment is narrative only (reasoning, exploration): a gist suffices, no floor applies.
   * @default false
   */
  readonly narrativeOnly?: boolean
  /**
   * The segment is a dead region, never re-read: no floor applies.
   * @default false
   */
  readonly deadRegion?: boolean
  /**
   * The summarizer has no fixed cap: it never has to refuse; the slot becomes at least the floor.
   * @default false
   */
  readonly unconstrained?: boolean
}

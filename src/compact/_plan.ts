import { describeRefusal } from '../plan/index.js'
import { planValidated } from '../plan/plan.js'
import type { CompactionPlan, FloorSummary, PlanOptions, PlanSegment, Refusal } from '../plan/types.js'
import type { MustKeepItem } from '../spec/summarizer.js'

/** Plans a segment: compact, split or refuse (the signature of `planCompaction`). */
export type CompactionPlanner = (segment: PlanSegment, options: PlanOptions) => CompactionPlan

/** One range to summarize into its own slot, with the items its summary must keep. Indices are transcript indices. */
export interface PlannedPart {
  readonly start: number
  readonly end: number
  readonly slot: number
  readonly items: readonly MustKeepItem[]
}

/** What the orchestrator needs from a plan. */
export type PlannedCompaction =
  | {
      readonly kind: 'compact' | 'split'
      readonly floor: FloorSummary
      readonly parts: readonly PlannedPart[]
      /** What the parts' slots may add up to (a split's summary budget; a compaction's one slot). */
      readonly budget: number
      /**
       * The slot asked for, when the plan gave a compaction less: a summary must cost less than the tokens it replaces.
       * @default undefined: the slot was not capped
       */
      readonly requestedSlot?: number
      /**
       * The tokens of a compaction's range, counted by the planning tokenizer.
       * @default undefined: a split
       */
      readonly tokens?: number
    }
  | { readonly kind: 'refuse'; readonly floor: FloorSummary; readonly reason: string; readonly refusal: Refusal }

/** Runs the planner (default `planCompaction`, on the transcript's messages already validated) and flattens its plan into parts. */
export function planParts(planner: CompactionPlanner | undefined, segment: PlanSegment, options: PlanOptions): PlannedCompaction {
  const plan = (planner ?? planValidated)(segment, options)
  switch (plan.kind) {
    case 'compact':
      return {
        kind: 'compact',
        floor: plan.floor,
        budget: plan.slot,
        parts: [{ start: plan.range[0], end: plan.range[1], slot: plan.slot, items: plan.items }],
        tokens: plan.tokens,
        ...(plan.requestedSlot === undefined ? {} : { requestedSlot: plan.requestedSlot }),
      }
    case 'split':
      return { kind: 'split', floor: plan.floor, budget: plan.budget, parts: plan.parts.map((part) => ({ start: part.range[0], end: part.range[1], slot: part.slot, items: part.items })) }
    case 'refuse':
      return { kind: 'refuse', floor: plan.floor, reason: describeRefusal(plan), refusal: plan }
  }
}

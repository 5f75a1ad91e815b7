import { planCompaction } from '../plan/index.js'
import type { FloorSummary } from '../plan/types.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import type { MessageSpan } from './region.js'

/** Options of {@link buildLedger}. */
export interface BuildLedgerOptions {
  /** The transcript's messages (the region's indices point into them). */
  readonly messages: readonly Message[]
  /** The messages the host is about to compact. */
  readonly region: MessageSpan
  /** Finds and prices the region's irreducible items. */
  readonly estimator: FloorEstimatorV1
  /** Counts the region's tokens. */
  readonly tokenizer: TokenizerV1
}

/** The verbatim state of a region: its items with their statuses, its floor and its size. */
export interface HookLedger {
  /** `[start, end)`: the region, in transcript indices. */
  readonly range: readonly [number, number]
  readonly floor: FloorSummary
  /** Tokens of the region's messages. */
  readonly tokens: number
  /** Distinct item texts in order of first appearance, each `current` or `superseded` as the planner marked it. */
  readonly items: readonly MustKeepItem[]
}

/**
 * Builds the ledger of a region = the planner's must-keep items for it (statuses and chain keys from the planner's
 * supersession rules: a reverted pin, a fixed error), its floor and its tokens.
 *
 * The planner runs with `unconstrained` (no slot applies: a hook does not choose the host's summary size) on the
 * region alone, so its tool pairs are paired inside it and a call whose result lies outside cannot refuse the plan.
 */
export function buildLedger(options: BuildLedgerOptions): HookLedger {
  const { start, end } = options.region
  const range = [start, end] as const
  if (end <= start) return { range, floor: { irreducible: 0, margin: 0, total: 0 }, tokens: 0, items: [] }
  const plan = planCompaction(
    { messages: options.messages.slice(start, end), offset: start, estimator: options.estimator, tokenizer: options.tokenizer },
    { slot: 1, unconstrained: true },
  )
  if (plan.kind === 'compact') return { range, floor: plan.floor, tokens: plan.tokens, items: plan.items }
  // Unreachable with the region paired on its own; kept so a planner change degrades to unmarked items, not a crash.
  const estimate = options.estimator.estimate(options.messages.slice(start, end), start)
  return { range, floor: plan.floor, tokens: plan.tokens, items: estimate.items.map((item) => ({ ...item, status: 'current' as const })) }
}

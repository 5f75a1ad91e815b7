import type { MustKeepItem } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { insertIntoStateBlock } from '../state-block/index.js'

/** Options of {@link repairSummary}. */
export interface RepairSummaryOptions {
  /** A non-empty summary that failed verification only because items are missing. */
  readonly summary: string
  /** The items to put back. */
  readonly missing: readonly MustKeepItem[]
  readonly slot: number
  readonly tokenizer: TokenizerV1
}

/** The outcome of a repair: the repaired text, or why it could not be repaired. */
export type RepairResult =
  | { readonly kind: 'repaired'; readonly summary: string; readonly tokens: number; readonly inserted: readonly MustKeepItem[] }
  | { readonly kind: 'unrepairable'; readonly reason: string }

/**
 * Repairs a summary: summary' = summary with the missing items inserted into its state block, if tokens(summary') ≤ slot.
 *
 * Never removes or rewrites anything the summarizer wrote; an empty summary is not repaired (the summarizer did not do
 * its job, and a state block alone is what the ledger summarizer is for).
 */
export function repairSummary(options: RepairSummaryOptions): RepairResult {
  const { summary, missing, slot, tokenizer } = options
  if (summary.trim().length === 0) return { kind: 'unrepairable', reason: 'summary is empty' }
  if (missing.length === 0) return { kind: 'repaired', summary, tokens: tokenizer.count(summary), inserted: [] }
  const repaired = insertIntoStateBlock(summary, missing)
  const tokens = tokenizer.count(repaired)
  if (tokens > slot) {
    return { kind: 'unrepairable', reason: `inserting ${missing.length} missing item(s) needs ${tokens} tokens, slot is ${slot}` }
  }
  return { kind: 'repaired', summary: repaired, tokens, inserted: missing }
}

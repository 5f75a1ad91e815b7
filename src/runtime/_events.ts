import { compactTranscript, createSummaryMessage, type CompactResult, type CompactTranscriptOptions } from '../compact/compact.js'
import { describeOption, describeRefusal } from '../plan/compaction-floor-error.js'
import { planCompaction } from '../plan/plan.js'
import type { CompactionPlan, MessageRange } from '../plan/types.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Transcript } from '../spec/transcript.js'
import { messageTokens } from '../transcript/render.js'
import type { BudgetSignal, CompactorEvent, EventItem, RuntimeRange } from './types.js'

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** An event before the emitter stamps its `call` and `time`. */
export type EventFields = DistributiveOmit<CompactorEvent, 'call' | 'time'>

/** Receives events as they happen. */
export type Emit = (event: EventFields) => void

/** The `plan-end` event of a plan: its decision, floor, slot and the ranges its summaries will replace. */
export function planEndEvent(plan: CompactionPlan): EventFields {
  const parts: RuntimeRange[] = plan.kind === 'compact' ? [plan.range] : plan.kind === 'split' ? plan.parts.map((part) => part.range) : []
  return { type: 'plan-end', decision: plan.kind, floor: plan.floor.total, slot: plan.slot, parts }
}

/** The must-keep items of each planned part, by its range's start. */
export function itemsByPart(plan: CompactionPlan | undefined): Map<number, readonly MustKeepItem[]> {
  const byStart = new Map<number, readonly MustKeepItem[]>()
  if (plan?.kind === 'compact') byStart.set(plan.range[0], plan.items)
  if (plan?.kind === 'split') for (const part of plan.parts) byStart.set(part.range[0], part.items)
  return byStart
}

/** Distinct-text items of `items` that `text` does not hold verbatim. */
export function lostItems(items: readonly MustKeepItem[] | readonly { kind: string; text: string }[], text: string): EventItem[] {
  const seen = new Set<string>()
  const lost: EventItem[] = []
  for (const item of items) {
    if (seen.has(item.text)) continue
    seen.add(item.text)
    if (!text.includes(item.text)) lost.push({ kind: item.kind, text: item.text })
  }
  return lost
}

/** Number of distinct item texts. */
export function distinctCount(items: readonly { text: string }[]): number {
  return new Set(items.map((item) => item.text)).size
}

/**
 * `compactTranscript` with events: `plan-end` as soon as the planner decides (the planner is wrapped), then per part
 * a `verify-error` for every attempt that did not verify as returned and a `summary-end` for every accepted summary
 * (its items and how many it holds verbatim, counted here from the plan's items). Returns the result and the plan.
 */
export async function compactWithEvents(
  transcript: Transcript,
  options: CompactTranscriptOptions,
  emit: Emit,
): Promise<{ result: CompactResult; plan: CompactionPlan | undefined }> {
  let plan: CompactionPlan | undefined
  const inner = options.planner ?? planCompaction
  const result = await compactTranscript(transcript, {
    ...options,
    planner: (segment, planOptions) => {
      plan = inner(segment, planOptions)
      emit(planEndEvent(plan))
      return plan
    },
  })
  const items = itemsByPart(plan)
  for (const part of result.verification.parts) {
    for (const attempt of part.attempts) {
      if (attempt.outcome === 'verified') continue
      emit({
        type: 'verify-error',
        range: part.range,
        attempt: attempt.attempt,
        missing: attempt.missing,
        problems: attempt.outcome === 'repaired' ? [...attempt.problems, 'repaired: the missing items were inserted and the summary verified'] : attempt.problems,
      })
    }
  }
  for (const summary of result.summaries) {
    const partItems = items.get(summary.range[0]) ?? []
    const total = distinctCount(partItems)
    emit({
      type: 'summary-end',
      range: summary.range,
      tokens: summary.tokens,
      items: total,
      survived: total - lostItems(partItems, summary.text).length,
      attempts: summary.attempts,
    })
  }
  return { result, plan }
}

/** Tokens of a range of per-message counts. */
export function rangeTokens(tokens: ArrayLike<number>, range: MessageRange): number {
  let sum = 0
  for (let index = range[0]; index < range[1]; index++) sum += tokens[index]!
  return sum
}

/**
 * One compaction of a whole transcript (`floorguard compact`) with the runtime's events, for `--log FILE`:
 * `compaction-start` (the transcript's tokens; `budget` and `threshold` 0: a one-shot compaction has no context
 * budget), the events of {@link compactWithEvents}, a `refusal` (policy `keep`: the file is left as it is) and
 * `compaction-end` with the tokens before and after. Every event has `call` 1 and `time` from `clock`.
 */
export async function compactLogged(
  transcript: Transcript,
  options: CompactTranscriptOptions & { readonly range: { readonly start: number; readonly end: number } },
  clock: () => number = () => performance.now(),
): Promise<{ result: CompactResult; events: CompactorEvent[] }> {
  const origin = clock()
  const events: CompactorEvent[] = []
  const emit: Emit = (fields) => events.push({ ...fields, call: 1, time: clock() - origin } as CompactorEvent)
  const tokenizer: TokenizerV1 = options.verifyTokenizer ?? options.tokenizer
  const tokens = transcript.messages.map((message) => messageTokens(message, tokenizer))
  const before = tokens.reduce((sum, count) => sum + count, 0)
  emit({ type: 'compaction-start', contextTokens: before, budget: 0, threshold: 0, range: [options.range.start, options.range.end] })
  const { result } = await compactWithEvents(transcript, options, emit)
  let after = before
  if (result.refusal) {
    const plan = result.refusal.plan
    const signal: BudgetSignal = {
      type: 'budget-infeasible',
      range: plan?.range ?? result.refusal.range,
      floor: result.floor.total,
      slot: options.slot,
      contextTokens: before,
      budget: 0,
      willOverflow: false,
      overflowBy: 0,
      options: plan ? plan.options.map(describeOption) : [],
      reason: plan ? describeRefusal(plan) : result.refusal.reason,
    }
    emit({ type: 'refusal', signal, policy: 'keep' })
  } else {
    for (const summary of result.summaries) {
      after -= rangeTokens(tokens, summary.range)
      after += messageTokens(createSummaryMessage(summary.text), tokenizer)
    }
  }
  emit({ type: 'compaction-end', kind: result.kind, contextTokensBefore: before, contextTokensAfter: after })
  return { result, events }
}

/** Events as JSON Lines: one event per line, a final line break. */
export function eventsJsonl(events: readonly CompactorEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('')
}

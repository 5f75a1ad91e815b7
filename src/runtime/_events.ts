import { compactTranscript, compactValidated, createSummaryMessage, type CompactResult, type CompactTranscriptOptions } from '../compact/compact.js'
import { describeOption, describeRefusal } from '../plan/compaction-floor-error.js'
import { planValidated } from '../plan/plan.js'
import type { CompactionPlan, MessageRange } from '../plan/types.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Transcript } from '../spec/transcript.js'
import { messageTokens } from '../transcript/render.js'
import type { BudgetSignal, CompactorEvent, EventItem, PlannedPart, RefusalCode, RuntimeRange } from './types.js'

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** An event before the emitter stamps its `call` and `time`. */
export type EventFields = DistributiveOmit<CompactorEvent, 'call' | 'time'>

/** Receives events as they happen. */
export type Emit = (event: EventFields) => void

/**
 * The `plan-end` event of a plan: its decision, floor, slot, segment and tokens, the ranges its summaries will
 * replace and, per part, its range, floor and slot (a compact plan is one part: the whole range at the plan's slot).
 */
export function planEndEvent(plan: CompactionPlan): EventFields {
  const plannedParts: PlannedPart[] =
    plan.kind === 'compact'
      ? [{ range: plan.range, floor: plan.floor.total, slot: plan.slot, tokens: plan.tokens, items: distinctCount(plan.items) }]
      : plan.kind === 'split'
        ? plan.parts.map((part) => ({ range: part.range, floor: part.floor, slot: part.slot, tokens: part.tokens, items: distinctCount(part.items) }))
        : []
  return {
    type: 'plan-end',
    decision: plan.kind,
    floor: plan.floor.total,
    slot: plan.slot,
    parts: plannedParts.map((part) => part.range),
    range: plan.range,
    tokens: plan.tokens,
    plannedParts,
    ...(plan.kind === 'refuse' ? { reason: plan.reason } : {}),
  }
}

/** The `plan-end` event of a plan made without the planner: the whole range as one summary at `slot`. */
export function wholePlanEndEvent(range: RuntimeRange, floor: number, slot: number, tokens: number, items: readonly { text: string }[]): EventFields {
  const part: PlannedPart = { range, floor, slot, tokens, items: distinctCount(items) }
  return { type: 'plan-end', decision: 'compact', floor, slot, parts: [range], range, tokens, plannedParts: [part] }
}

/** The refusal code of a refused `compactTranscript` result: the planner's reason, else the orchestrator's code. */
export function refusalCode(result: CompactResult): RefusalCode {
  const refusal = result.refusal!
  if (refusal.plan) return refusal.plan.reason
  return refusal.code === 'plan' ? 'no-gain' : refusal.code
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
  return withEvents(compactTranscript, transcript, options, emit)
}

/** {@link compactWithEvents} on messages already validated (the runtime validates each call's messages once). Internal. */
export async function compactValidatedWithEvents(
  transcript: Transcript,
  options: CompactTranscriptOptions,
  emit: Emit,
): Promise<{ result: CompactResult; plan: CompactionPlan | undefined }> {
  return withEvents(compactValidated, transcript, options, emit)
}

async function withEvents(
  compact: typeof compactTranscript,
  transcript: Transcript,
  options: CompactTranscriptOptions,
  emit: Emit,
): Promise<{ result: CompactResult; plan: CompactionPlan | undefined }> {
  let plan: CompactionPlan | undefined
  // The planner sees segments of the transcript `compact` has validated.
  const inner = options.planner ?? planValidated
  const result = await compact(transcript, {
    ...options,
    planner: (segment, planOptions) => {
      plan = inner(segment, planOptions)
      emit(planEndEvent(plan))
      return plan
    },
  })
  const items = itemsByPart(plan)
  const partIndex = new Map((plan?.kind === 'split' ? plan.parts.map((part) => part.range[0]) : plan?.kind === 'compact' ? [plan.range[0]] : []).map((start, index) => [start, index]))
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
      part: partIndex.get(summary.range[0]) ?? 0,
      range: summary.range,
      slot: summary.slot,
      tokens: summary.tokens,
      items: total,
      survived: total - lostItems(partItems, summary.text).length,
      attempts: summary.attempts,
      verified: true,
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
  events: CompactorEvent[] = [],
): Promise<{ result: CompactResult; events: CompactorEvent[] }> {
  const origin = clock()
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
    emit({ type: 'refusal', signal, code: refusalCode(result), floor: signal.floor, slot: signal.slot, policy: 'keep', action: 'kept' })
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

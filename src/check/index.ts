import { FloorguardError } from '../errors.js'
import type { FloorEstimate, FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { messageTokens } from '../transcript/render.js'
import { planValidated } from '../plan/plan.js'
import { validateTranscript } from '../transcript/_validate.js'
import type { CompactionPlan, PlanOptions } from '../plan/types.js'

/** A half-open range of message indices. */
export type MessageRange = readonly [start: number, end: number]

/** What `check` decided, before any summarizer runs (the planner's decision, summarized). */
export interface CheckDecision {
  readonly kind: 'compact' | 'split' | 'refuse'
  /** `slot-covers-floor`, `parts-fit-their-slots`, or the planner's refusal reason code. */
  readonly reason: string
  readonly message: string
}

/** Options of {@link checkTranscript}. */
export interface CheckOptions {
  readonly estimator: FloorEstimatorV1
  /** Counts the segment's tokens. */
  readonly tokenizer: TokenizerV1
  /**
   * The summary slot in tokens.
   * @default 2000
   */
  readonly slot?: number
  /**
   * Half-open message range `[start, end)`; either side may be omitted.
   * @default the whole transcript
   */
  readonly range?: { readonly start?: number; readonly end?: number }
  /** Planner options besides the slot (budget, units, conditions of validity). */
  readonly plan?: Omit<PlanOptions, 'slot'>
}

/** The segment a check looked at. */
export interface CheckSegment {
  readonly range: MessageRange
  readonly messages: number
  /** Sum of each message's rendered-text token count. */
  readonly tokens: number
  readonly toolCalls: number
  readonly toolResults: number
  /** Tool calls or results in the segment whose partner is missing from the whole transcript. */
  readonly unpaired: number
}

/** The result of a check: the segment, its floor and the decision. */
export interface CheckResult {
  readonly segment: CheckSegment
  readonly floor: FloorEstimate
  readonly slot: number
  readonly decision: CheckDecision
  /** The planner's full plan: parts for a split, units and options for a refusal. */
  readonly plan: CompactionPlan
}

/** Resolves a user range against a transcript length, or throws naming the flag. */
export function resolveRange(range: CheckOptions['range'], length: number): MessageRange {
  const start = range?.start ?? 0
  const end = range?.end ?? length
  if (start > length || end > length) {
    throw new FloorguardError('invalid-argument', `--range: expected indices within the transcript's ${length} messages, got ${start}:${end}`)
  }
  return [start, end]
}

/** Counts a segment's messages, tokens, tool calls, tool results and unpaired parts. */
export function describeSegment(transcript: Transcript, range: MessageRange, tokenizer: TokenizerV1): CheckSegment {
  const [start, end] = range
  const messages = transcript.messages.slice(start, end)
  let tokens = 0
  let toolCalls = 0
  let toolResults = 0
  for (const message of messages) {
    tokens += messageTokens(message, tokenizer)
    for (const part of message.parts) {
      if (part.type === 'tool-call') toolCalls++
      else if (part.type === 'tool-result') toolResults++
    }
  }
  const unpaired = transcript.unpaired.filter((part) => part.message >= start && part.message < end).length
  return { range, messages: messages.length, tokens, toolCalls, toolResults, unpaired }
}

/**
 * The record's precondition for one segment: compact when slot >= floor (irreducible + margin), else refuse.
 * (The planner refines refusals into splits where a partition fits.)
 */
export function decide(floor: { readonly irreducible: number; readonly margin: number; readonly total: number }, slot: number): CheckDecision {
  if (slot >= floor.total) {
    return { kind: 'compact', reason: 'slot-covers-floor', message: `slot ${slot} >= floor ${floor.total} (irreducible ${floor.irreducible} + margin ${floor.margin})` }
  }
  return {
    kind: 'refuse',
    reason: 'slot-below-floor',
    message: `slot ${slot} < floor ${floor.total} (irreducible ${floor.irreducible} + margin ${floor.margin}): keep the segment raw, split it, or raise the slot to ${floor.total}`,
  }
}

/** Summarizes a plan as a decision: kind, reason code and a sentence. */
export function decisionOf(plan: CompactionPlan): CheckDecision {
  const { floor, slot } = plan
  switch (plan.kind) {
    case 'compact':
      return { kind: 'compact', reason: 'slot-covers-floor', message: decide(floor, slot).message }
    case 'split':
      return {
        kind: 'split',
        reason: 'parts-fit-their-slots',
        message: `slot ${slot} < floor ${floor.total}: split into ${plan.parts.length} summaries of ${plan.parts.map((part) => part.slot).join(' + ')} tokens`,
      }
    case 'refuse':
      return { kind: 'refuse', reason: plan.reason, message: `slot ${slot}, floor ${floor.total} (irreducible ${floor.irreducible} + margin ${floor.margin}): ${plan.reason}` }
  }
}

/**
 * Estimates a transcript segment's floor and plans it: compact when the slot holds the floor, split into parts that
 * each fit their own slot, or refuse (the planner's decision; see `plan/`).
 */
export function checkTranscript(transcript: Transcript, options: CheckOptions): CheckResult {
  if (options === null || typeof options !== 'object') throw new FloorguardError('invalid-argument', `checkTranscript: options: expected an object { estimator, tokenizer }, got ${String(options)}`)
  if (options.estimator?.specificationVersion !== 'v1') throw new FloorguardError('invalid-argument', 'checkTranscript: options.estimator: expected a FloorEstimatorV1')
  if (options.tokenizer?.specificationVersion !== 'v1') throw new FloorguardError('invalid-argument', 'checkTranscript: options.tokenizer: expected a TokenizerV1')
  validateTranscript(transcript, 'checkTranscript')
  const slot = options.slot ?? 2000
  const range = resolveRange(options.range, transcript.messages.length)
  const messages: readonly Message[] = transcript.messages.slice(range[0], range[1])
  const floor = options.estimator.estimate(messages, range[0])
  const plan = planValidated(
    { messages, offset: range[0], pairs: transcript.pairs, estimator: reusingEstimate(options.estimator, messages, range[0], floor), tokenizer: options.tokenizer },
    { ...options.plan, slot },
  )
  return { segment: describeSegment(transcript, range, options.tokenizer), floor, slot, decision: decisionOf(plan), plan }
}

/**
 * `estimator`, answering the estimate of exactly `messages` at `offset` (the same messages, the planner slices its
 * own copy) with `floor`, the one already made: the planner's whole-segment estimate is the check's floor, and an
 * estimator without a cache (seed) would scan the whole segment again. Estimates are pure, so the answer is the same.
 */
function reusingEstimate(estimator: FloorEstimatorV1, messages: readonly Message[], offset: number, floor: FloorEstimate): FloorEstimatorV1 {
  const same = (others: readonly Message[], at: number) => at === offset && others.length === messages.length && others.every((message, index) => message === messages[index])
  return {
    specificationVersion: estimator.specificationVersion,
    name: estimator.name,
    tokenizer: estimator.tokenizer,
    marginRatio: estimator.marginRatio,
    extract: (message, index) => estimator.extract(message, index),
    estimate: (others, at = 0) => (same(others, at) ? floor : estimator.estimate(others, at)),
  }
}

/** The largest items first (ties in order of appearance), at most `limit`. */
export function largestItems(items: readonly FloorItem[], limit: number): FloorItem[] {
  if (!Number.isInteger(limit) || limit <= 0) {
    return items.map((item, index) => ({ item, index })).sort((a, b) => b.item.tokens - a.item.tokens || a.index - b.index).slice(0, limit).map(({ item }) => item)
  }
  // One pass keeping the largest `limit` (the report asks for 8 of up to 260,000): an item goes after every kept one
  // at least as large, so an earlier one wins a tie.
  const kept: FloorItem[] = []
  for (const item of items) {
    if (kept.length === limit && item.tokens <= kept[limit - 1]!.tokens) continue
    let at = kept.length
    while (at > 0 && kept[at - 1]!.tokens < item.tokens) at--
    kept.splice(at, 0, item)
    if (kept.length > limit) kept.pop()
  }
  return kept
}

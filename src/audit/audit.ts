/**
 * Audits the compactions already in a transcript: for each summary, what the segment it replaced held, what survived
 * verbatim, what the session used again, and what floorguard would have decided at the summary's size.
 */
import type { FloorEstimate, FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { planCompaction } from '../plan/plan.js'
import type { CompactionPlan } from '../plan/types.js'
import { messageTokens } from '../transcript/render.js'
import { argumentStrings } from './_arguments.js'
import { createTextSearch, type SearchPiece } from './_first-uses.js'
import { highWaterCuts } from './cuts.js'
import { replacedSegments, type ReplacedSegment } from './segments.js'
import { findSummaries, type SummaryPoint } from './summaries.js'
import type { AuditDecision, AuditOptions, CounterfactualReason, CutAudit, FileAudit, LostItem, SummaryAudit } from './types.js'

export { argumentStrings }

/** Item kinds whose loss alone makes a counterfactual. */
const COUNTERFACTUAL_KINDS: ReadonlyMap<string, CounterfactualReason> = new Map([
  ['constraint', 'constraint'],
  ['error', 'error'],
])

/**
 * referencePieces(messages, from, to, skip) = what the session said after a summary, as search pieces: the text parts
 * of user and assistant messages and the argument strings of tool calls in `[from, to)`, except the message or
 * messages `skip` (the summaries: floorguard writes its own as user text). Not tool results (a tool printing an item is not the session using it), not reasoning, not
 * summaries (a later summary repeating an item is not a use of it), not system text.
 */
export function* referencePieces(messages: readonly Message[], from: number, to: number, skip: number | ReadonlySet<number> = -1): Generator<SearchPiece> {
  for (let index = from; index < to; index++) {
    if (typeof skip === 'number' ? index === skip : skip.has(index)) continue
    const message = messages[index]!
    const spoken = message.role === 'user' || message.role === 'assistant'
    for (const part of message.parts) {
      if (part.type === 'text' && spoken) yield { text: part.text, message: index }
      else if (part.type === 'tool-call') for (const text of argumentStrings(part.arguments)) yield { text, message: index }
    }
  }
}

/** `estimator`, answering the estimate of exactly `messages` at `offset` with `floor` (the planner asks again). */
function reusing(estimator: FloorEstimatorV1, messages: readonly Message[], offset: number, floor: FloorEstimate): FloorEstimatorV1 {
  return {
    specificationVersion: estimator.specificationVersion,
    name: estimator.name,
    tokenizer: estimator.tokenizer,
    marginRatio: estimator.marginRatio,
    extract: (message, index) => estimator.extract(message, index),
    estimate: (others, at = 0) =>
      at === offset && others.length === messages.length && others.every((message, index) => message === messages[index]) ? floor : estimator.estimate(others, at),
  }
}

/** What floorguard's planner decided, as an audit reports it. */
export interface AuditDecisionFields {
  readonly decision: AuditDecision
  readonly parts?: number
  readonly reason?: string
}

/**
 * decisionAtSize(transcript, start, end, summaryTokens, options) = the planner's decision on messages `[start, end)`
 * at a summary's size: slot = `summaryTokens` (at least 1), the summaries of a split at most `splitBudgetRatio` (2)
 * times that in all. `floor`, when given, is the segment's estimate already made.
 */
export function decisionAtSize(
  transcript: Transcript,
  start: number,
  end: number,
  summaryTokens: number,
  options: Pick<AuditOptions, 'estimator' | 'tokenizer' | 'splitBudgetRatio'>,
  floor?: FloorEstimate,
): AuditDecisionFields & { plan: CompactionPlan } {
  const segment = transcript.messages.slice(start, end)
  const slot = Math.max(1, summaryTokens)
  const estimator = floor ? reusing(options.estimator, segment, start, floor) : options.estimator
  const plan = planCompaction(
    { messages: segment, offset: start, pairs: transcript.pairs, estimator, tokenizer: options.tokenizer },
    { slot, budget: Math.max(1, Math.floor((options.splitBudgetRatio ?? 2) * slot)) },
  )
  return { ...decisionFields(plan), plan }
}

function decisionFields(plan: CompactionPlan): { decision: AuditDecision; parts?: number; reason?: string } {
  if (plan.kind === 'split') return { decision: 'split', parts: plan.parts.length }
  if (plan.kind === 'refuse') return { decision: 'refuse', reason: plan.reason }
  return { decision: 'compact' }
}

function segmentTokens(messages: readonly Message[], start: number, end: number, options: AuditOptions): number {
  let tokens = 0
  for (let index = start; index < end; index++) tokens += messageTokens(messages[index]!, options.tokenizer)
  return tokens
}

/**
 * Audits one summary point against the segment it replaced and the session up to `futureEnd`: an item survived when
 * the summary or the history its compaction kept verbatim holds its text.
 */
function auditSummary(transcript: Transcript, point: SummaryPoint, segmentOf: ReplacedSegment, futureEnd: number, summaryAt: ReadonlySet<number>, options: AuditOptions): SummaryAudit {
  const { messages } = transcript
  const { start, end } = segmentOf
  const segment = messages.slice(start, end)
  const floor = options.estimator.estimate(segment, start)
  const items: readonly FloorItem[] = floor.items
  const search = createTextSearch(items.map((item) => item.text))
  const kept = search.firstUses([{ text: point.text, message: 0 }, ...(segmentOf.kept?.texts ?? []).map((text) => ({ text, message: 0 }))])
  const used = search.firstUses(referencePieces(messages, end, futureEnd, point.missing ? new Set([...summaryAt].filter((at) => at !== end)) : summaryAt))

  const lost: LostItem[] = []
  const lostKinds: Record<string, number> = {}
  const reasons = new Set<CounterfactualReason>()
  let futureReferenced = 0
  let futureLost = 0
  items.forEach((item, index) => {
    const usedAgainAt = used[index]! >= 0 ? used[index]! : null
    if (usedAgainAt !== null) futureReferenced++
    if (kept[index]! >= 0) return
    if (usedAgainAt !== null) futureLost++
    lost.push({ kind: item.kind, text: item.text, usedAgainAt })
    lostKinds[item.kind] = (lostKinds[item.kind] ?? 0) + 1
    const reason = COUNTERFACTUAL_KINDS.get(item.kind)
    if (reason) reasons.add(reason)
  })

  const tokens = segmentTokens(messages, start, end, options)
  const summaryTokens = point.text.length === 0 ? 0 : options.tokenizer.count(point.text)
  const { plan, ...decided } = decisionAtSize(transcript, start, end, summaryTokens, options, floor)
  // A current decision: the value in force at the end of a key the segment changed (the planner's changed state).
  const keptText = (text: string) => point.text.includes(text) || (segmentOf.kept?.texts.some((piece) => piece.includes(text)) ?? false)
  if (plan.state.some((value) => value.status === 'current' && !keptText(value.text))) reasons.add('current-decision')
  const counterfactualReasons = point.missing ? [] : (['constraint', 'error', 'current-decision'] as const).filter((reason) => reasons.has(reason))

  return {
    message: end,
    replaced: [start, end],
    items: items.length,
    survived: items.length - lost.length,
    // Without the summary's text nothing can be said to have survived or been lost for sure.
    survival: items.length === 0 || point.missing ? null : (items.length - lost.length) / items.length,
    futureReferenced,
    futureLost,
    lost,
    counterfactual: !point.missing && counterfactualReasons.length > 0,
    // floorguard's own summary over messages the file no longer holds: the empty segment here has no floor to report,
    // and a plan of it would be a verdict on nothing.
    floor: segmentOf.notInFile ? null : floor.total,
    summaryTokens,
    source: point.source,
    ...(point.line === undefined ? {} : { line: point.line }),
    ...(point.missing ? { summaryMissing: true as const } : {}),
    ...(segmentOf.notInFile ? { replacedNotInFile: segmentOf.notInFile } : {}),
    lostKinds,
    counterfactualReasons,
    tokens,
    ...(segmentOf.notInFile ? { decision: null } : decided),
  }
}

/** The compactions a compactor at `slot` and the high-water mark would have run, each planned at `slot`. */
function auditCuts(transcript: Transcript, options: AuditOptions): CutAudit[] {
  const { messages } = transcript
  const slot = options.slot ?? 2000
  const tokens = messages.map((message) => messageTokens(message, options.tokenizer))
  const cuts = highWaterCuts(messages, {
    tokens,
    pairs: transcript.pairs,
    slot,
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.highWaterMark === undefined ? {} : { highWaterMark: options.highWaterMark }),
    ...(options.compactFraction === undefined ? {} : { compactFraction: options.compactFraction }),
  })
  return cuts.map((cut) => {
    const segment = messages.slice(cut.start, cut.end)
    const plan = planCompaction({ messages: segment, offset: cut.start, pairs: transcript.pairs, estimator: options.estimator, tokenizer: options.tokenizer }, { slot })
    let segmentTokens = 0
    for (let index = cut.start; index < cut.end; index++) segmentTokens += tokens[index]!
    return { replaced: [cut.start, cut.end] as const, at: cut.at, tokens: segmentTokens, floor: plan.floor.total, ...decisionFields(plan) }
  })
}

/**
 * auditTranscript(transcript, options) = for each summary already in the transcript ({@link findSummaries}), the
 * segment it replaced ({@link replacedSegments}: from the previous summary, included, to this one, less what the
 * compaction kept; empty for floorguard's own summaries, whose replaced messages the file no longer holds), its items
 * (`options.estimator`), those the summary or the history its compaction kept held verbatim (exact substring), the lost ones the session used again before the next summary (first message of
 * use), the counterfactual verdict, and the planner's decision at the summary's size; for a transcript without
 * summaries, the high-water-mark compactions at `options.slot` and the planner's decision on each. Pure.
 */
export function auditTranscript(transcript: Transcript, options: AuditOptions): FileAudit {
  const { messages } = transcript
  const points = findSummaries(transcript)
  const segments = replacedSegments(transcript, points)
  // The session's use of a summary's items runs to the next compaction that replaced it: floorguard's own summaries
  // in between replaced only their range, and are no use of anything.
  const summaryAt = new Set(points.map((point) => point.message))
  let futureEnd = messages.length
  const ends: number[] = []
  for (let index = points.length - 1; index >= 0; index--) {
    ends[index] = futureEnd
    if (!segments[index]!.notInFile) futureEnd = points[index]!.message
  }
  const summaries = points.map((point, index) => auditSummary(transcript, point, segments[index]!, ends[index]!, summaryAt, options))
  const cuts = points.length === 0 ? auditCuts(transcript, options) : []
  return {
    file: options.file ?? '<transcript>',
    format: transcript.format,
    summaries,
    messages: messages.length,
    cuts,
    wouldCompact: cuts.filter((cut) => cut.decision === 'compact').length,
    wouldSplit: cuts.filter((cut) => cut.decision === 'split').length,
    wouldRefuse: cuts.filter((cut) => cut.decision === 'refuse').length,
    ...(transcript.warnings && transcript.warnings.length > 0 ? { warnings: transcript.warnings } : {}),
  }
}

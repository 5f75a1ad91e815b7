import { FloorguardError } from '../errors.js'
import type { PlanOptions, Refusal } from '../plan/types.js'
import type { FloorEstimatorV1, ItemKind } from '../spec/estimator.js'
import { groupMustKeepItems, type MustKeepItem, type SummarizeRequest, type SummarizeResult, type SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { backoffDelay, callSummarizer, timeoutMiddleware, wrapSummarizer } from '../summarize/middleware.js'
import { pairToolCalls, renderSegment } from '../transcript/render.js'
import { repairSummary } from '../verify/repair.js'
import { verifySummary, type ExtractedSpan, type SpanExtractor } from '../verify/verify.js'
import { planParts, type CompactionPlanner, type PlannedPart } from './_plan.js'

/** Options of {@link compactTranscript}. */
export interface CompactTranscriptOptions {
  /** Prices the segment's irreducible items. */
  readonly estimator: FloorEstimatorV1
  /** The real tokenizer every summary is verified with. */
  readonly tokenizer: TokenizerV1
  /** Tokens the summary of the whole range may take. */
  readonly slot: number
  /**
   * Half-open message range to compact.
   * @default the whole transcript
   */
  readonly range?: { readonly start?: number; readonly end?: number }
  /**
   * Most tokens the summaries of a split may cost in all (the planner's summary budget).
   * @default the planner's default: the range's tokens - 1
   */
  readonly budget?: number
  /**
   * Further planner options (caller units, slot rounding, linkers, validity conditions).
   * @default {}
   */
  readonly planOptions?: Omit<PlanOptions, 'slot' | 'budget'>
  /**
   * Writes the summaries.
   * @default createLedgerSummarizer()
   */
  readonly summarizer?: SummarizerV1
  /**
   * Decides compact / split / refuse and the must-keep items of each part.
   * @default the planner of `plan/`
   */
  readonly planner?: CompactionPlanner
  /**
   * Summarizer calls per part, including the first; a failed verification is retried with the missing items named.
   * @default 3
   */
  readonly attempts?: number
  /**
   * Milliseconds one summarizer call may take before it is aborted.
   * @default 120000
   */
  readonly timeoutMs?: number
  /**
   * Delay before the second call of a part; later delays double (capped at 8 s).
   * @default 250
   */
  readonly backoffMs?: number
  /**
   * Waits between attempts (tests pass a fake clock).
   * @default setTimeout-based
   */
  readonly sleep?: (ms: number) => Promise<void>
}

/** One verified summary and the range it replaced. */
export interface CompactSummary {
  /** Half-open transcript range `[start, end)` the summary replaced. */
  readonly range: readonly [number, number]
  readonly slot: number
  /** Tokens of `text` with the verifying tokenizer. */
  readonly tokens: number
  readonly text: string
  /** Attempts it took (1 = first call). */
  readonly attempts: number
  /** Whether missing items were inserted by the repair step. */
  readonly repaired: boolean
}

/** What happened to one summarizer call. */
export interface AttemptReport {
  readonly attempt: number
  /** `verified`/`repaired`: accepted; `rejected`: returned text that failed verification; `failed`: threw, timed out or failed. */
  readonly outcome: 'verified' | 'repaired' | 'rejected' | 'failed'
  readonly tokens?: number
  /** Must-keep texts missing from the text the summarizer returned. */
  readonly missing: readonly string[]
  readonly problems: readonly string[]
  /** Identifiers and numbers the returned text has that the segment never had. */
  readonly invented: readonly ExtractedSpan[]
}

/** Verification record of one part. */
export interface PartVerification {
  readonly range: readonly [number, number]
  readonly slot: number
  readonly items: number
  readonly ok: boolean
  readonly attempts: readonly AttemptReport[]
}

/** Verification record of a whole compaction. */
export interface CompactVerification {
  /** Every part's summary verified (false when refused before or during summarization). */
  readonly ok: boolean
  readonly tokenizer: string
  /** Text normalization applied before the substring check. */
  readonly normalization: 'none'
  readonly parts: readonly PartVerification[]
}

/** The floor of the range as the planner computed it. */
export interface CompactFloor {
  readonly estimator: string
  readonly tokenizer: string
  readonly irreducible: number
  readonly margin: number
  /** `irreducible + margin`. */
  readonly total: number
}

/** Why a compaction was refused; the transcript stays as it was. */
export interface CompactRefusal {
  /** `plan`: the planner refused (floor above slot, unsplittable); `summarizer`: no verified summary within the attempts; `tool-pair`: a part boundary would separate a tool call from its result; `empty`: nothing to compact. */
  readonly code: 'plan' | 'summarizer' | 'tool-pair' | 'empty'
  readonly reason: string
  /** The range the refusal is about. */
  readonly range: readonly [number, number]
  /** Must-keep texts the last attempt missed (summarizer refusals). */
  readonly missing?: readonly string[]
  /** The planner's refusal with its offending units and options (plan refusals). */
  readonly plan?: Refusal
}

/** The result of {@link compactTranscript}: data, never a throw, for every outcome the record expects. */
export interface CompactResult {
  /** `compacted`: one summary; `split`: several; `refused`: none, and the input is untouched. */
  readonly kind: 'compacted' | 'split' | 'refused'
  /** The new transcript (absent when refused). */
  readonly transcript?: Transcript
  /** Half-open range that was asked for. */
  readonly range: readonly [number, number]
  readonly floor: CompactFloor
  readonly summaries: readonly CompactSummary[]
  readonly refusal: CompactRefusal | null
  readonly verification: CompactVerification
}

/** Kinds the invented-state report looks for in a summary. */
const INVENTED_KINDS = new Set<ItemKind>(['identifier', 'path', 'url', 'number', 'version', 'env', 'constant', 'hash', 'uuid'])

/** The summary message that replaces a compacted range. No `source`: writers synthesize a native record. */
export function createSummaryMessage(text: string): Message {
  return { role: 'user', parts: [{ type: 'summary', text, source: 'floorguard' }] }
}

/**
 * Compacts a range of a transcript: estimate → plan → summarize → verify (→ repair → retry) → new transcript.
 *
 * Postcondition: either every returned summary contains every must-keep item of its part verbatim, is non-empty and
 * counts ≤ its slot with `options.tokenizer`, or the result is `refused` and carries no transcript. The input is never
 * modified. All parts must verify or the whole compaction is refused (no half-compacted transcripts).
 */
export async function compactTranscript(transcript: Transcript, options: CompactTranscriptOptions): Promise<CompactResult> {
  const { estimator, tokenizer, slot } = options
  const attempts = Math.max(1, options.attempts ?? 3)
  if (!Number.isInteger(slot) || slot < 0) throw new FloorguardError('invalid-argument', `slot: expected a non-negative integer, got ${slot}`)
  const total = transcript.messages.length
  const start = options.range?.start ?? 0
  const end = Math.min(options.range?.end ?? total, total)
  if (!Number.isInteger(start) || start < 0 || start > end) {
    throw new FloorguardError('invalid-argument', `range: expected 0 <= start <= end <= ${total}, got ${start}:${options.range?.end ?? ''}`)
  }
  const range = [start, end] as const
  const segment = transcript.messages.slice(start, end)
  const verificationBase = { tokenizer: tokenizer.name, normalization: 'none' as const }
  const floorOf = (summary: { irreducible: number; margin: number; total: number }): CompactFloor => ({
    estimator: estimator.name,
    tokenizer: tokenizer.name,
    irreducible: summary.irreducible,
    margin: summary.margin,
    total: summary.total,
  })
  const refuse = (floor: CompactFloor, refusal: CompactRefusal, parts: readonly PartVerification[] = []): CompactResult => ({
    kind: 'refused',
    range,
    floor,
    summaries: [],
    refusal,
    verification: { ...verificationBase, ok: false, parts },
  })

  if (segment.length === 0) {
    return refuse(floorOf({ irreducible: 0, margin: 0, total: 0 }), { code: 'empty', reason: `range ${start}:${end} holds no messages`, range })
  }

  const planned = planParts(
    options.planner,
    { messages: segment, offset: start, pairs: transcript.pairs, estimator, tokenizer },
    { ...options.planOptions, slot, ...(options.budget === undefined ? {} : { budget: options.budget }) },
  )
  const floor = floorOf(planned.floor)
  if (planned.kind === 'refuse') return refuse(floor, { code: 'plan', reason: planned.reason, range, plan: planned.refusal })

  const crossing = findCrossingPair(transcript, planned.parts)
  if (crossing) return refuse(floor, { code: 'tool-pair', reason: crossing.reason, range: crossing.range })

  const summarizer = wrapSummarizer({ summarizer: options.summarizer ?? createLedgerSummarizer(), middleware: timeoutMiddleware({ timeoutMs: options.timeoutMs ?? 120_000 }) })
  const extract: SpanExtractor = (text) =>
    estimator.extract({ role: 'assistant', parts: [{ type: 'text', text }] }, 0).filter((item) => INVENTED_KINDS.has(item.kind))
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))

  const summaries: CompactSummary[] = []
  const reports: PartVerification[] = []
  for (const part of planned.parts) {
    const outcome = await summarizePart(transcript.messages.slice(part.start, part.end), part, {
      summarizer,
      tokenizer,
      attempts,
      extract,
      sleep,
      backoffMs: options.backoffMs ?? 250,
    })
    reports.push(outcome.report)
    if (!outcome.summary) {
      const last = outcome.report.attempts.at(-1)
      return refuse(
        floor,
        {
          code: 'summarizer',
          reason: `no verified summary for messages ${part.start}:${part.end} after ${outcome.report.attempts.length} attempt(s): ${last?.problems.join('; ') || 'unknown failure'}`,
          range: [part.start, part.end],
          missing: last?.missing ?? [],
        },
        reports,
      )
    }
    summaries.push(outcome.summary)
  }

  return {
    kind: summaries.length === 1 ? 'compacted' : 'split',
    transcript: replaceRanges(transcript, summaries),
    range,
    floor,
    summaries,
    refusal: null,
    verification: { ...verificationBase, ok: true, parts: reports },
  }
}

interface PartContext {
  readonly summarizer: SummarizerV1
  readonly tokenizer: TokenizerV1
  readonly attempts: number
  readonly extract: SpanExtractor
  readonly sleep: (ms: number) => Promise<void>
  readonly backoffMs: number
}

async function summarizePart(
  messages: readonly Message[],
  part: PlannedPart,
  context: PartContext,
): Promise<{ summary?: CompactSummary; report: PartVerification }> {
  const { tokenizer } = context
  const groups = groupMustKeepItems(part.items)
  const items = groups.flatMap((group) => group.items)
  const segmentText = renderSegment(messages).text
  const reports: AttemptReport[] = []
  const report = (ok: boolean): PartVerification => ({ range: [part.start, part.end], slot: part.slot, items: items.length, ok, attempts: reports })
  let missing: MustKeepItem[] = []
  let feedback: string | undefined
  for (let attempt = 1; attempt <= context.attempts; attempt++) {
    if (attempt > 1) await context.sleep(backoffDelay(attempt - 1, { initialDelayMs: context.backoffMs }))
    const request: SummarizeRequest = {
      messages,
      offset: part.start,
      slot: part.slot,
      tokenizer,
      groups,
      attempt,
      missing,
      ...(feedback === undefined ? {} : { feedback }),
    }
    const result: SummarizeResult = await callSummarizer(context.summarizer, request)
    if (result.kind === 'failure') {
      reports.push({ attempt, outcome: 'failed', missing: [], problems: [result.reason], invented: [] })
      if (!result.retryable) break
      feedback = result.reason
      continue
    }
    const verification = verifySummary({ summary: result.text, items, slot: part.slot, tokenizer, segmentText, extract: context.extract })
    if (verification.ok) {
      reports.push({ attempt, outcome: 'verified', tokens: verification.tokens, missing: [], problems: [], invented: verification.invented })
      return { summary: { range: [part.start, part.end], slot: part.slot, tokens: verification.tokens, text: result.text, attempts: attempt, repaired: false }, report: report(true) }
    }
    const missingTexts = verification.missing.map((item) => item.text)
    if (!verification.empty && verification.withinSlot) {
      const repair = repairSummary({ summary: result.text, missing: verification.missing, slot: part.slot, tokenizer })
      if (repair.kind === 'repaired') {
        // Verify the repaired text from scratch: the repair is trusted no more than the summarizer.
        const again = verifySummary({ summary: repair.summary, items, slot: part.slot, tokenizer, segmentText, extract: context.extract })
        if (again.ok) {
          reports.push({ attempt, outcome: 'repaired', tokens: again.tokens, missing: missingTexts, problems: verification.problems, invented: again.invented })
          return { summary: { range: [part.start, part.end], slot: part.slot, tokens: again.tokens, text: repair.summary, attempts: attempt, repaired: true }, report: report(true) }
        }
      }
      reports.push({
        attempt,
        outcome: 'rejected',
        tokens: verification.tokens,
        missing: missingTexts,
        problems: [...verification.problems, repair.kind === 'unrepairable' ? `repair failed: ${repair.reason}` : 'repair failed verification'],
        invented: verification.invented,
      })
    } else {
      reports.push({ attempt, outcome: 'rejected', tokens: verification.tokens, missing: missingTexts, problems: [...verification.problems], invented: verification.invented })
    }
    missing = [...verification.missing]
    feedback = verification.problems.join('; ')
  }
  return { report: report(false) }
}

/** Finds a tool pair with exactly one end inside some part: compacting that part would orphan the other end. */
function findCrossingPair(transcript: Transcript, parts: readonly PlannedPart[]): { reason: string; range: readonly [number, number] } | undefined {
  for (const pair of transcript.pairs) {
    for (const part of parts) {
      const callInside = pair.call.message >= part.start && pair.call.message < part.end
      const resultInside = pair.result.message >= part.start && pair.result.message < part.end
      if (callInside !== resultInside) {
        return {
          reason: `messages ${part.start}:${part.end} would separate tool call ${JSON.stringify(pair.id)} (message ${pair.call.message}) from its result (message ${pair.result.message}): widen or move the range`,
          range: [part.start, part.end],
        }
      }
    }
  }
  return undefined
}

/** New transcript: each summarized range replaced by one summary message; every other message object kept as is. */
function replaceRanges(transcript: Transcript, summaries: readonly CompactSummary[]): Transcript {
  const ordered = [...summaries].sort((a, b) => a.range[0] - b.range[0])
  const messages: Message[] = []
  let cursor = 0
  for (const summary of ordered) {
    for (let index = cursor; index < summary.range[0]; index++) messages.push(transcript.messages[index]!)
    messages.push(createSummaryMessage(summary.text))
    cursor = summary.range[1]
  }
  for (let index = cursor; index < transcript.messages.length; index++) messages.push(transcript.messages[index]!)
  const { pairs, unpaired } = pairToolCalls(messages)
  return { ...transcript, messages, pairs, unpaired }
}

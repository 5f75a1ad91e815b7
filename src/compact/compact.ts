import { FloorguardError } from '../errors.js'
import type { PlanOptions, Refusal } from '../plan/types.js'
import type { FloorEstimatorV1, ItemKind } from '../spec/estimator.js'
import { groupMustKeepItems, type MustKeepItem, type SummarizeRequest, type SummarizeResult, type SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { backoffDelay, callSummarizer, timeoutMiddleware, wrapSummarizer } from '../summarize/middleware.js'
import { createTokenizer } from '../tokenize/index.js'
import { isTranscriptFormatName, getFormat } from '../transcript/registry.js'
import { messageTokens, pairToolCalls, renderMessage, renderSegment } from '../transcript/render.js'
import { validateTranscript } from '../transcript/_validate.js'
import { leadingSystemCount } from '../transcript/system-prefix.js'
import { repairSummary } from '../verify/repair.js'
import { verifySummary, type ExtractedSpan, type SpanExtractor } from '../verify/verify.js'
import { planParts, type CompactionPlanner, type PlannedPart } from './_plan.js'

/** Options of {@link compactTranscript}. */
export interface CompactTranscriptOptions {
  /** Prices the segment's irreducible items. */
  readonly estimator: FloorEstimatorV1
  /** The estimator's tokenizer, named in the floor; slots and the range's tokens are counted with `verifyTokenizer`. */
  readonly tokenizer: TokenizerV1
  /**
   * The real tokenizer every summary's slot is measured with, whatever `tokenizer` plans with: a summary an
   * approximate count puts at 1,938 of 2,000 tokens may be 3,739 real ones.
   * @default `tokenizer` when it is exact, else o200k_base
   */
  readonly verifyTokenizer?: TokenizerV1
  /**
   * Compact leading system messages too. By default a range never holds the system prompt: its start moves past
   * the transcript's leading system messages (an Anthropic request keeps its top-level `system`).
   * @default false
   */
  readonly includeSystem?: boolean
  /**
   * A summary replacing more than this many times its own tokens is flagged in its part's verification
   * (`warnings`), and gets a note naming the messages it replaced and their size when the note fits its slot: a
   * huge message with few items must not become a short summary that says nothing was left out.
   * @default 100
   */
  readonly maxCompressionRatio?: number
  /** Tokens the summary of the whole range may take. */
  readonly slot: number
  /**
   * Half-open message range to compact (leading system messages excluded unless `includeSystem`).
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
   * The caller's signal: once aborted, no summarizer call starts and the running one is aborted (each request carries
   * it); the compaction then refuses (`summarizer`), its input unchanged.
   */
  readonly abortSignal?: AbortSignal
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
  /** Tokens of the replaced messages with the verifying tokenizer (always more than `tokens`). */
  readonly replacedTokens: number
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
  /** Tokens of the replaced messages with the verifying tokenizer. */
  readonly replacedTokens?: number
  /** `replacedTokens / summary tokens` of the accepted summary. */
  readonly compression?: number
  /** What a reader should know about an accepted summary (a compression above `maxCompressionRatio`). */
  readonly warnings?: readonly string[]
}

/** Verification record of a whole compaction. */
export interface CompactVerification {
  /** Every part's summary verified (false when refused before or during summarization). */
  readonly ok: boolean
  /** The verifying tokenizer (`verifyTokenizer`): slots and `tokens` are counted with it. */
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
  /**
   * `plan`: the planner refused (floor above slot, unsplittable, no gain); `summarizer`: no verified summary within
   * the attempts; `tool-pair`: a part boundary would separate a tool call from its result; `empty`: nothing to
   * compact; `no-gain`: a verified summary counts at least as many real tokens as the messages it would replace.
   */
  readonly code: 'plan' | 'summarizer' | 'tool-pair' | 'empty' | 'no-gain'
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
  /** Half-open range that was compacted (or refused): the one asked for, leading system messages excluded. */
  readonly range: readonly [number, number]
  readonly floor: CompactFloor
  readonly summaries: readonly CompactSummary[]
  readonly refusal: CompactRefusal | null
  readonly verification: CompactVerification
}

/** Tokens of a summary as the transcript's format writes it (see `TranscriptFormatV1.summaryText`). */
function writtenTokens(summary: CompactSummary, format: string, tokenizer: TokenizerV1): number {
  const frame = isTranscriptFormatName(format) ? getFormat(format).summaryText : undefined
  return frame ? tokenizer.count(frame(summary.text)) : summary.tokens
}

/** Kinds the invented-state report looks for in a summary. */
const INVENTED_KINDS = new Set<ItemKind>(['identifier', 'path', 'url', 'number', 'version', 'env', 'constant', 'hash', 'uuid'])

/**
 * The range `compact` works on: `[max(start, leading system messages), end)`, the whole transcript by default; with
 * `includeSystem`, `[start, end)` as given. (The `check` and `plan` commands take this range by default too; given a
 * `--range`, they take it as given.)
 */
export function compactionRange(transcript: Transcript, range: { readonly start?: number; readonly end?: number } = {}, includeSystem = false): readonly [number, number] {
  const total = transcript.messages.length
  const end = Math.min(range.end ?? total, total)
  const asked = range.start ?? 0
  if (includeSystem) return [asked, end]
  // The system prompt is never compacted: the range starts after the transcript's leading system messages.
  return [Math.max(asked, Math.min(leadingSystemCount(transcript.messages), end)), end]
}

/** The summary message that replaces a compacted range. No `source`: writers synthesize a native record. */
export function createSummaryMessage(text: string): Message {
  return { role: 'user', parts: [{ type: 'summary', text, source: 'floorguard' }] }
}

/**
 * Compacts a range of a transcript: estimate → plan → summarize → verify (→ repair → retry) → new transcript.
 *
 * Postcondition: either every returned summary contains every must-keep item of its part verbatim, is non-empty,
 * counts ≤ its slot and < the tokens of the messages it replaces, both with the real `verifyTokenizer` (whatever
 * tokenizer planned), or the result is `refused` and carries no transcript. The system prompt (leading system
 * messages) is never in the range unless `includeSystem`. The input is never modified. All parts must verify or the
 * whole compaction is refused (no half-compacted transcripts).
 */
export async function compactTranscript(transcript: Transcript, options: CompactTranscriptOptions): Promise<CompactResult> {
  if (options === null || typeof options !== 'object') throw new FloorguardError('invalid-argument', `compactTranscript: options: expected an object { estimator, tokenizer, slot }, got ${String(options)}`)
  if (options.estimator?.specificationVersion !== 'v1') throw new FloorguardError('invalid-argument', 'compactTranscript: options.estimator: expected a FloorEstimatorV1')
  if (options.tokenizer?.specificationVersion !== 'v1') throw new FloorguardError('invalid-argument', 'compactTranscript: options.tokenizer: expected a TokenizerV1')
  validateTranscript(transcript, 'compactTranscript')
  return compactValidated(transcript, options)
}

/**
 * {@link compactTranscript} on a transcript already validated (the runtime validates its messages once per call and
 * compacts several ranges of them). Internal.
 */
export async function compactValidated(transcript: Transcript, options: CompactTranscriptOptions): Promise<CompactResult> {
  const { estimator, tokenizer, slot } = options
  const attempts = Math.max(1, options.attempts ?? 3)
  if (!Number.isInteger(slot) || slot < 0) throw new FloorguardError('invalid-argument', `slot: expected a non-negative integer, got ${slot}`)
  const maxCompressionRatio = options.maxCompressionRatio ?? 100
  if (!(maxCompressionRatio > 1)) throw new FloorguardError('invalid-argument', `maxCompressionRatio: expected a number above 1, got ${maxCompressionRatio}`)
  const total = transcript.messages.length
  const asked = options.range?.start ?? 0
  const end = Math.min(options.range?.end ?? total, total)
  if (!Number.isInteger(asked) || asked < 0 || asked > end) {
    throw new FloorguardError('invalid-argument', `range: expected 0 <= start <= end <= ${total}, got ${asked}:${options.range?.end ?? ''}`)
  }
  const range = compactionRange(transcript, { start: asked, end }, options.includeSystem ?? false)
  const start = range[0]
  const segment = transcript.messages.slice(start, end)
  const verifyTokenizer = options.verifyTokenizer ?? (tokenizer.exact ? tokenizer : await createTokenizer('o200k_base'))
  const verificationBase = { tokenizer: verifyTokenizer.name, normalization: 'none' as const }
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
    // The range's tokens (what a summary must stay below) are counted as the summaries are: with the real tokenizer.
    { messages: segment, offset: start, pairs: transcript.pairs, estimator, tokenizer: verifyTokenizer },
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
  const partContext: PartContext = { summarizer, tokenizer: verifyTokenizer, attempts, extract, sleep, backoffMs: options.backoffMs ?? 250, maxCompressionRatio, abortSignal: options.abortSignal }
  // A split gives each part its floor, rounded up: a summarizer whose own markup needs more (the ledger's state block
  // for a handful of items) gets what the configured slot and the budget's unspent tokens still allow.
  let unspent = planned.budget - planned.parts.reduce((sum, part) => sum + part.slot, 0)
  for (const part of planned.parts) {
    const messages = transcript.messages.slice(part.start, part.end)
    let outcome = await summarizePart(messages, part, partContext)
    // Twice the slot first, then all that is left: two more tries at most, since each may be model calls.
    const cap = Math.min(slot, part.slot + unspent)
    for (const larger of cap > part.slot ? [...new Set([Math.min(part.slot * 2, cap), cap])] : []) {
      if (outcome.summary) break
      const again = await summarizePart(messages, { ...part, slot: larger }, partContext)
      if (!again.summary) {
        // Every call counts in the refusal: the attempts at each slot, each problem saying its slot.
        outcome = { report: { ...again.report, attempts: [...atSlot(outcome.report, part.slot), ...atSlot(again.report, larger)] } }
        continue
      }
      unspent -= larger - part.slot
      const note = `slot raised from ${part.slot} to ${larger} tokens within the budget: at ${part.slot}, ${outcome.report.attempts.at(-1)?.problems.join('; ') || 'no verified summary'}`
      // The attempts at the planned slot stay in the report (a runtime reports each as a verify error).
      outcome = { summary: again.summary, report: { ...again.report, attempts: [...atSlot(outcome.report, part.slot), ...again.report.attempts], warnings: [...(again.report.warnings ?? []), note] } }
    }
    // The plan capped the slot below the one asked for, at the range's own size (a summary must cost less than what it
    // replaces). A summary that did not verify there is asked for once at the slot asked for: one that verifies says
    // the range is too small to gain anything (refused below as no-gain), not that the summarizer failed.
    if (!outcome.summary && planned.kind === 'compact' && planned.requestedSlot !== undefined && planned.tokens !== undefined && part.slot >= planned.tokens - 1) {
      const uncapped = await summarizePart(messages, { ...part, slot: planned.requestedSlot }, { ...partContext, attempts: 1 })
      if (uncapped.summary) {
        const note = `slot ${planned.requestedSlot} asked for: the plan capped it at ${part.slot}, where ${outcome.report.attempts.at(-1)?.problems.join('; ') || 'no summary verified'}`
        outcome = { summary: uncapped.summary, report: { ...uncapped.report, warnings: [...(uncapped.report.warnings ?? []), note] } }
      }
    }
    reports.push(outcome.report)
    if (!outcome.summary) {
      const last = outcome.report.attempts.at(-1)
      const problems = last?.problems.join('; ') || 'unknown failure'
      return refuse(
        floor,
        {
          code: 'summarizer',
          reason: `no verified summary for messages ${part.start}:${part.end} after ${outcome.report.attempts.length} attempt(s): ${problems}`,
          range: [part.start, part.end],
          missing: last?.missing ?? [],
        },
        reports,
      )
    }
    // A summary never costs more than what it replaces, counted with the real tokenizer (the plan may have priced
    // the range with an approximate one, and a summarizer may fill its slot), as its format writes it (framed).
    const written = writtenTokens(outcome.summary, transcript.format, verifyTokenizer)
    if (written >= outcome.summary.replacedTokens) {
      const reason = `the verified summary of messages ${part.start}:${part.end} counts ${written} tokens (${verifyTokenizer.name}${written === outcome.summary.tokens ? '' : `, as ${transcript.format} writes it`}), not less than the ${outcome.summary.replacedTokens} tokens of the messages it would replace: nothing to gain`
      // A part of a split whose summary would cost more than its messages (its markup over a few items) stays as it
      // is; the other parts are still summarized. Alone, it is a refusal.
      if (planned.kind === 'split') {
        reports[reports.length - 1] = { ...outcome.report, warnings: [...(outcome.report.warnings ?? []), `kept as it is: ${reason}`] }
        continue
      }
      return refuse(floor, { code: 'no-gain', reason, range: [part.start, part.end] }, reports)
    }
    summaries.push(outcome.summary)
  }

  if (summaries.length === 0) {
    const reason = `no part's verified summary counts fewer tokens than the messages it would replace: nothing to gain`
    return refuse(floor, { code: 'no-gain', reason, range }, reports)
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

/**
 * The attempts of `report`, each problem prefixed with the slot it was made at (`at slot 500: …`), those of an earlier
 * slot level already prefixed left as they are.
 */
function atSlot(report: PartVerification, slot: number): AttemptReport[] {
  return report.attempts.map((attempt) =>
    attempt.problems.some((problem) => problem.startsWith('at slot ')) ? attempt : { ...attempt, problems: attempt.problems.map((problem) => `at slot ${slot}: ${problem}`) },
  )
}

/** `: REASON` of an aborted signal whose reason is an Error or a string, else ''. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason
  return reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : ''
}

interface PartContext {
  readonly summarizer: SummarizerV1
  /** The verifying tokenizer. */
  readonly tokenizer: TokenizerV1
  readonly maxCompressionRatio: number
  readonly attempts: number
  readonly extract: SpanExtractor
  readonly sleep: (ms: number) => Promise<void>
  readonly backoffMs: number
  readonly abortSignal: AbortSignal | undefined
}

async function summarizePart(
  messages: readonly Message[],
  part: PlannedPart,
  context: PartContext,
): Promise<{ summary?: CompactSummary; report: PartVerification }> {
  const { tokenizer } = context
  const groups = groupMustKeepItems(part.items)
  const items = groups.flatMap((group) => group.items)
  // Spans the summary takes from the items (`limit=5`, as the estimator renders an argument the segment holds as
  // `"limit":5`) are not invented: the items' texts count as the segment's own.
  const segmentText = [renderSegment(messages).text, ...items.map((item) => item.text)].join('\n')
  const messageTokenCounts = messages.map((message) => messageTokens(message, tokenizer))
  const replacedTokens = messageTokenCounts.reduce((sum, count) => sum + count, 0)
  const reports: AttemptReport[] = []
  let accepted: { tokens: number; warnings: readonly string[] } | undefined
  const report = (ok: boolean): PartVerification => ({
    range: [part.start, part.end],
    slot: part.slot,
    items: items.length,
    ok,
    attempts: reports,
    replacedTokens,
    ...(accepted ? { compression: Math.round((replacedTokens / accepted.tokens) * 10) / 10, warnings: accepted.warnings } : {}),
  })
  const accept = (text: string, tokens: number, attempt: number, repaired: boolean): { summary: CompactSummary; report: PartVerification } => {
    const noted = noteOmission(text, tokens, messages, messageTokenCounts, part, items, context)
    accepted = { tokens: noted.tokens, warnings: noted.warnings }
    return {
      summary: { range: [part.start, part.end], slot: part.slot, tokens: noted.tokens, replacedTokens, text: noted.text, attempts: attempt, repaired },
      report: report(true),
    }
  }
  let missing: MustKeepItem[] = []
  let feedback: string | undefined
  for (let attempt = 1; attempt <= context.attempts; attempt++) {
    if (attempt > 1) await context.sleep(backoffDelay(attempt - 1, { initialDelayMs: context.backoffMs }))
    if (context.abortSignal?.aborted) {
      reports.push({ attempt, outcome: 'failed', missing: [], problems: [`aborted by the caller's signal${abortReason(context.abortSignal)}`], invented: [] })
      break
    }
    const request: SummarizeRequest = {
      messages,
      offset: part.start,
      slot: part.slot,
      tokenizer,
      groups,
      attempt,
      missing,
      ...(feedback === undefined ? {} : { feedback }),
      ...(context.abortSignal === undefined ? {} : { abortSignal: context.abortSignal }),
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
      return accept(result.text, verification.tokens, attempt, false)
    }
    const missingTexts = verification.missing.map((item) => item.text)
    if (!verification.empty && verification.withinSlot) {
      const repair = repairSummary({ summary: result.text, missing: verification.missing, slot: part.slot, tokenizer })
      if (repair.kind === 'repaired') {
        // Verify the repaired text from scratch: the repair is trusted no more than the summarizer.
        const again = verifySummary({ summary: repair.summary, items, slot: part.slot, tokenizer, segmentText, extract: context.extract })
        if (again.ok) {
          reports.push({ attempt, outcome: 'repaired', tokens: again.tokens, missing: missingTexts, problems: verification.problems, invented: again.invented })
          return accept(repair.summary, again.tokens, attempt, true)
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

/**
 * compression = replaced tokens / summary tokens; above `maxCompressionRatio` the summary is flagged, and a note
 * naming the replaced messages, their size and the largest of them is appended when the summary still verifies
 * with it (every item, within the slot). A summary of a huge message with few items then says what it left out.
 */
function noteOmission(
  text: string,
  tokens: number,
  messages: readonly Message[],
  messageTokenCounts: readonly number[],
  part: PlannedPart,
  items: readonly MustKeepItem[],
  context: PartContext,
): { text: string; tokens: number; warnings: readonly string[] } {
  const replaced = messageTokenCounts.reduce((sum, count) => sum + count, 0)
  if (replaced <= tokens * context.maxCompressionRatio) return { text, tokens, warnings: [] }
  let largest = 0
  for (let index = 1; index < messageTokenCounts.length; index++) if (messageTokenCounts[index]! > messageTokenCounts[largest]!) largest = index
  const characters = messages.reduce((sum, message) => sum + renderMessageLength(message), 0)
  const range = messages.length === 1 ? `message ${part.start}` : `messages ${part.start}-${part.end - 1}`
  const biggest = messages.length === 1 ? '' : `; the largest, message ${part.start + largest} (${messages[largest]!.role}), has ${messageTokenCounts[largest]} tokens`
  const note = `[floorguard: ${range} (${replaced} tokens, ${characters} characters${biggest}) replaced by this summary; their content beyond what it states was omitted]`
  const ratio = Math.round(replaced / tokens)
  const noted = `${text}\n\n${note}`
  const check = verifySummary({ summary: noted, items, slot: part.slot, tokenizer: context.tokenizer })
  if (check.ok) return { text: noted, tokens: check.tokens, warnings: [`compression ${ratio}x exceeds ${context.maxCompressionRatio}x: a note naming the omitted ${replaced} tokens was added`] }
  return { text, tokens, warnings: [`compression ${ratio}x exceeds ${context.maxCompressionRatio}x, and a note naming the omitted ${replaced} tokens does not fit the slot`] }
}

/** Characters of a message as rendered for counting. */
function renderMessageLength(message: Message): number {
  return renderMessage(message).text.length
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

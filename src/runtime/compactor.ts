import { createSummaryMessage, type CompactResult } from '../compact/compact.js'
import type { CompactionPlanner } from '../compact/_plan.js'
import { createEstimator } from '../estimate/index.js'
import { FloorguardError } from '../errors.js'
import { describeOption, describeRefusal } from '../plan/compaction-floor-error.js'
import { planValidated } from '../plan/plan.js'
import type { CompactionPlan, Refusal } from '../plan/types.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import { groupMustKeepItems, type MustKeepItem, type SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { callSummarizer } from '../summarize/middleware.js'
import { createTokenizer } from '../tokenize/index.js'
import { messageTokens, pairToolCalls } from '../transcript/render.js'
import { validateMessages } from '../transcript/_validate.js'
import { MessageCache } from './_cache.js'
import { compactValidatedWithEvents, distinctCount, lostItems, planEndEvent, rangeTokens, refusalCode, wholePlanEndEvent, type EventFields } from './_events.js'
import { findMaskable } from './_mask.js'
import { growSelection, selectSegment } from './_select.js'
import type {
  BudgetSignal,
  CompactionPolicy,
  Compactor,
  CompactorEvent,
  CompactorOptions,
  CompactorResult,
  CompactorStats,
  EventItem,
  LayoutEntry,
  MaybeCompactOptions,
  PolicyAction,
  RefusalCode,
  RuntimeRange,
} from './types.js'

/** The record's observed system: 128k budget, 85% high-water mark, oldest 40% of turns into a 2,000-token slot. */
export const RECORD_DEFAULTS = { budget: 128_000, highWaterMark: 0.85, compactFraction: 0.4, slot: 2_000, margin: 0.2 } as const

/** Options with defaults resolved, in one place. */
interface Settings {
  readonly budget: number
  readonly highWaterMark: number
  readonly threshold: number
  readonly compactFraction: number
  readonly slot: number
  readonly margin: number
  readonly summaryBudget: number | undefined
  readonly timeoutMs: number | undefined
  readonly attempts: number | undefined
  readonly policy: CompactionPolicy
  readonly floorCheck: boolean
  readonly verify: boolean
}

function invalid(field: string, expected: string, value: unknown): never {
  throw new FloorguardError('invalid-argument', `createCompactor: ${field}: expected ${expected}, got ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
}

function resolveSettings(options: CompactorOptions): Settings {
  if (options === null || typeof options !== 'object') invalid('options', 'an object', options)
  const budget = options.budget ?? RECORD_DEFAULTS.budget
  if (!Number.isInteger(budget) || budget <= 0) invalid('budget', 'a positive integer (tokens)', budget)
  const highWaterMark = options.highWaterMark ?? RECORD_DEFAULTS.highWaterMark
  if (!(highWaterMark > 0 && highWaterMark <= 1)) invalid('highWaterMark', 'a share of the budget in (0, 1]', highWaterMark)
  const compactFraction = options.compactFraction ?? RECORD_DEFAULTS.compactFraction
  if (!(compactFraction > 0 && compactFraction < 1)) invalid('compactFraction', 'a share of the turns in (0, 1)', compactFraction)
  const slot = options.slot ?? RECORD_DEFAULTS.slot
  if (!Number.isInteger(slot) || slot <= 0) invalid('slot', 'a positive integer (tokens)', slot)
  const margin = options.margin ?? RECORD_DEFAULTS.margin
  if (!(margin >= 0 && margin < 10)) invalid('margin', 'a ratio >= 0 (the record: 0.15..0.25)', margin)
  if (options.summaryBudget !== undefined && (!Number.isInteger(options.summaryBudget) || options.summaryBudget < 0)) invalid('summaryBudget', 'a non-negative integer', options.summaryBudget)
  if (options.timeoutMs !== undefined && (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0 || options.timeoutMs > 2 ** 31 - 1)) invalid('timeoutMs', 'a positive integer of milliseconds (at most 2147483647)', options.timeoutMs)
  if (options.attempts !== undefined && (!Number.isInteger(options.attempts) || options.attempts < 1)) invalid('attempts', 'a positive integer', options.attempts)
  const policy = options.policy ?? 'keep'
  const named = typeof policy === 'string' && ['keep', 'other-segment', 'accept-risk'].includes(policy)
  const raise = typeof policy === 'object' && policy !== null && policy.kind === 'raise-slot'
  if (!named && !raise) invalid('policy', `'keep', 'other-segment', 'accept-risk' or { kind: 'raise-slot', cap }`, policy)
  if (raise && (!Number.isInteger(policy.cap) || policy.cap < slot)) invalid('policy.cap', `an integer >= the slot ${slot}`, policy.cap)
  return {
    budget,
    highWaterMark,
    threshold: Math.floor(highWaterMark * budget),
    compactFraction,
    slot,
    margin,
    summaryBudget: options.summaryBudget,
    timeoutMs: options.timeoutMs,
    attempts: options.attempts,
    policy,
    floorCheck: options.checks?.floor ?? true,
    verify: options.checks?.verify ?? true,
  }
}

function policyName(policy: CompactionPolicy): string {
  return typeof policy === 'string' ? policy : policy.kind
}

/** A replaced range and the text of its summary. */
interface SummaryPart {
  readonly range: RuntimeRange
  readonly text: string
}

/** A refusal's code and what the policy did about it (the `refusal` event's own fields). */
interface RefusalFacts {
  readonly code: RefusalCode
  readonly action: PolicyAction
  readonly raisedSlot?: number
  readonly otherRange?: RuntimeRange
}

/** What one call decided, before it is turned into messages and layout. */
interface Outcome {
  readonly kind: CompactorResult['kind']
  readonly summaries: readonly SummaryPart[]
  readonly masks: ReadonlyArray<{ readonly index: number; readonly text: string }>
  /** Present exactly when the planner or the orchestrator refused (whatever the policy then did). */
  readonly signal?: Omit<BudgetSignal, 'willOverflow' | 'overflowBy'>
  /** With `signal`: why, and the policy's action. */
  readonly refusal?: RefusalFacts
  readonly lost?: readonly EventItem[]
}

/** Signal and facts of a refusal the policy answered with `action`. */
type Refused = Pick<Outcome, 'signal' | 'refusal'>

/** A compaction of a range remembered for a later call that sends the same messages again (see {@link Memo}). */
interface Memo {
  /** The canonical messages of the selected range. */
  readonly messages: readonly Message[]
  readonly start: number
  readonly outcome: Outcome
}

/** Remembered outcomes: a caller that resends the uncompacted history (ai 6's prepareStep) gets them again for free. */
const MEMO_SIZE = 8

/**
 * Creates an auto-compactor: `maybeCompact(messages)` compacts the oldest turns when the context reaches the
 * high-water mark, under the record's floor (plan → summarize → verify), and returns the context to send.
 *
 * Trigger: Σ tokens(message) ≥ ⌊highWaterMark × budget⌋. Selection: the oldest `compactFraction` of the turns after
 * the system prompt, moved to a cut that splits no causal unit (tool pair, error → fix); when context − selection +
 * slot would still reach the mark, grown turn by turn to the smallest selection that would not (never the last turn
 * nor a newer user message; the largest allowed, flagged, when none would). Then `compactTranscript`
 * (estimate → plan → summarize → verify); a refusal goes to the policy. Per-message tokens and items are cached by
 * message identity and validated by content, so a call that compacts nothing costs O(messages) reference
 * comparisons plus the new messages' counting. Never mutates its input.
 */
export function createCompactor(options: CompactorOptions = {}): Compactor {
  const settings = resolveSettings(options)
  const clock = options.clock ?? (() => performance.now())
  const origin = clock()
  let calls = 0
  let cache: MessageCache | undefined
  const stats: { calls: number; cachedMessages: number; computedMessages: number } = { calls: 0, cachedMessages: 0, computedMessages: 0 }
  const memos: Memo[] = []
  /** The last call that reached the mark: its canonical messages, selection and outcome. */
  let last: { readonly canonical: readonly Message[]; readonly range: RuntimeRange; readonly outcome: Outcome } | undefined
  let resources: Promise<{ tokenizer: TokenizerV1; estimator: FloorEstimatorV1; summarizer: SummarizerV1 }> | undefined

  function load(): Promise<{ tokenizer: TokenizerV1; estimator: FloorEstimatorV1; summarizer: SummarizerV1 }> {
    resources ??= (async () => {
      const tokenizer = typeof options.tokenizer === 'object' ? options.tokenizer : await createTokenizer(options.tokenizer ?? 'o200k_base')
      const estimator =
        typeof options.estimator === 'object' ? options.estimator : createEstimator({ name: options.estimator ?? 'full', tokenizer, marginRatio: settings.margin })
      return { tokenizer, estimator, summarizer: options.summarizer ?? createLedgerSummarizer() }
    })()
    return resources
  }

  async function maybeCompact(messages: readonly Message[], callOptions: MaybeCompactOptions = {}): Promise<CompactorResult> {
    // Every field of every message, once per call (a few reads per part, plus a walk of each tool call's arguments).
    validateMessages(messages, { caller: 'createCompactor', path: 'maybeCompact(messages)' })
    const call = ++calls
    stats.calls = calls
    const events: CompactorEvent[] = []
    const emit = (fields: EventFields): void => {
      const event = { ...fields, call, time: clock() - origin } as CompactorEvent
      events.push(event)
      options.onEvent?.(event)
    }
    const { tokenizer, estimator, summarizer } = await load()
    cache ??= new MessageCache(tokenizer)
    const read = cache.read(messages)
    stats.cachedMessages = cache.hits
    stats.computedMessages = cache.misses
    const before = read.total
    if (before < settings.threshold) return { kind: 'unchanged', messages, layout: keptLayout(messages.length), events }

    const canonical = read.canonical
    if (last && last.canonical.length === canonical.length && last.canonical.every((message, index) => message === canonical[index])) {
      // The very messages of the last call again (a refusal the caller has not acted on yet): its outcome, for O(n).
      emit({ type: 'compaction-start', contextTokens: before, budget: settings.budget, threshold: settings.threshold, range: last.range })
      return build(messages, read.tokens, tokenizer, last.outcome, before, settings, emit, events, true)
    }
    const { pairs, unpaired } = pairToolCalls(canonical)
    const selection = selectSegment(canonical, settings.compactFraction, pairs)
    // A selection that, summarized into the slot, would leave the context at the mark would make every later call
    // compact again (a summarizer call each, freeing a turn each): it grows until it would not, or as far as allowed.
    // With a mark at or below the slot no selection gets below it (a caller that picks the selection itself through
    // compactFraction sets the mark to 0, as the LangChain middleware with trigger/keep does): the fraction stands.
    const growth = selection.range && settings.threshold > settings.slot ? growSelection(canonical, pairs, selection.range, read.tokens, before + settings.slot - settings.threshold + 1) : undefined
    const range = growth?.range ?? selection.range
    emit({
      type: 'compaction-start',
      contextTokens: before,
      budget: settings.budget,
      threshold: settings.threshold,
      range: range ?? [0, 0],
      ...(growth?.grown ? { grownFrom: selection.range! } : {}),
      ...(growth?.largest ? { largest: true } : {}),
    })
    const finish = (outcome: Outcome, replayed = false): CompactorResult => {
      last = { canonical, range: range ?? [0, 0], outcome }
      return build(messages, read.tokens, tokenizer, outcome, before, settings, emit, events, replayed)
    }
    if (!range) {
      const signal = {
        type: 'budget-infeasible' as const,
        range: [0, 0] as const,
        floor: 0,
        slot: settings.slot,
        contextTokens: before,
        budget: settings.budget,
        options: ['raise the budget', 'start a new conversation with a hand-written summary'],
        reason: `no range of whole causal units lies before the newest turn (${selection.turns} turn(s) after the system prompt): nothing can be compacted`,
      }
      return finish({ kind: 'refused', summaries: [], masks: [], signal, refusal: { code: 'nothing-selectable', action: 'kept' } })
    }

    const memo = memos.find((entry) => entry.start === range[0] && sameMessages(entry.messages, canonical, range))
    if (memo) {
      // The same messages were compacted (or refused) before: the caller sent the uncompacted history again.
      return finish(memo.outcome, true)
    }

    const transcript: Transcript = { format: 'floorguard-runtime', messages: canonical, pairs, unpaired }
    const context: RunContext = { transcript, tokens: read.tokens, tokenizer, estimator, summarizer, settings, emit, before, localSummarizer: options.summarizer === undefined, abortSignal: callOptions.abortSignal }
    const outcome = await compactRange(context, range)
    const remembered: Memo = { messages: canonical.slice(range[0], range[1]), start: range[0], outcome }
    // Masks name indices outside the selection's own messages: such an outcome depends on the rest and is not kept.
    if (outcome.masks.length === 0) {
      memos.unshift(remembered)
      memos.length = Math.min(memos.length, MEMO_SIZE)
    }
    return finish(outcome)
  }

  return {
    maybeCompact,
    get stats(): CompactorStats {
      return { ...stats }
    },
  }
}

/** Everything one compaction needs. */
interface RunContext {
  readonly transcript: Transcript
  readonly tokens: Float64Array
  readonly tokenizer: TokenizerV1
  readonly estimator: FloorEstimatorV1
  readonly summarizer: SummarizerV1
  readonly settings: Settings
  readonly emit: (fields: EventFields) => void
  readonly before: number
  /** The summarizer is the built-in ledger (no backoff between attempts). */
  readonly localSummarizer: boolean
  /** The caller's signal for this call: once aborted, no summarizer call starts and a running one is aborted. */
  readonly abortSignal: AbortSignal | undefined
}

function keptLayout(count: number): LayoutEntry[] {
  const layout: LayoutEntry[] = new Array(count)
  for (let index = 0; index < count; index++) layout[index] = { kind: 'kept', index }
  return layout
}

function sameMessages(remembered: readonly Message[], canonical: readonly Message[], range: RuntimeRange): boolean {
  if (remembered.length !== range[1] - range[0]) return false
  for (let index = 0; index < remembered.length; index++) if (remembered[index] !== canonical[range[0] + index]) return false
  return true
}

/**
 * The `refusal` event of an outcome: the signal (overflow as if nothing else were done), the code, floor and slot,
 * and what the policy did. Emitted after the policy acted, before `compaction-end`.
 */
function emitRefusal(emit: (fields: EventFields) => void, outcome: Outcome, contextTokens: number, settings: Settings): void {
  const signal = outcome.signal!
  const facts = outcome.refusal ?? { code: 'no-gain', action: 'kept' }
  const overflowBy = Math.max(0, contextTokens - settings.budget)
  emit({
    type: 'refusal',
    signal: { ...signal, willOverflow: overflowBy > 0, overflowBy },
    code: facts.code,
    floor: signal.floor,
    slot: signal.slot,
    policy: policyName(settings.policy),
    action: facts.action,
    ...(facts.raisedSlot === undefined ? {} : { raisedSlot: facts.raisedSlot }),
    ...(facts.otherRange === undefined ? {} : { otherRange: facts.otherRange }),
    ...(outcome.masks.length > 0 ? { masked: outcome.masks.map((mask) => mask.index) } : {}),
    ...(facts.action === 'accepted-risk' && outcome.lost ? { lost: outcome.lost.length } : {}),
  })
}

/** The signal of a refused compaction: the planner's numbers and options, or the orchestrator's reason. */
function signalOf(result: CompactResult, slot: number, context: RunContext, extra: readonly string[] = []): Omit<BudgetSignal, 'willOverflow' | 'overflowBy'> {
  const refusal = result.refusal!
  const plan = refusal.plan
  return {
    type: 'budget-infeasible',
    range: plan?.range ?? refusal.range,
    floor: result.floor.total,
    slot,
    contextTokens: context.before,
    budget: context.settings.budget,
    options: [...(plan ? plan.options.map(describeOption) : ['split the range', 'raise the slot', 'use another summarizer']), ...extra],
    reason: plan ? describeRefusal(plan) : refusal.reason,
  }
}

/** Compacts `range` under the settings' checks and, on a refusal, applies the policy. */
async function compactRange(context: RunContext, range: RuntimeRange): Promise<Outcome> {
  const { settings } = context
  if (!settings.verify) return unverified(context, range, settings.slot)
  const attempt = settings.floorCheck ? await withRoom(context, range, settings.slot, true) : await guarded(context, range, settings.slot, fixedPlanner)
  if (attempt.result.kind !== 'refused') return success(attempt.result)
  const { result, plan } = attempt
  const refusal = result.refusal!
  const policy = settings.policy
  const raiseTo = plan?.kind === 'refuse' ? plan.options.find((option) => option.kind === 'raise-slot') : undefined
  const capNote = typeof policy === 'object' && raiseTo?.kind === 'raise-slot' && raiseTo.slot > policy.cap ? [`(policy raise-slot stops at its cap ${policy.cap})`] : []
  const signal = signalOf(result, settings.slot, context, capNote)
  const code = refusalCode(result)
  const keep: Outcome = { kind: 'refused', summaries: [], masks: [], signal, refusal: { code, action: 'kept' } }

  if (typeof policy === 'object') {
    if (raiseTo?.kind !== 'raise-slot' || raiseTo.slot > policy.cap || refusal.code !== 'plan') return keep
    let raisedSlot = raiseTo.slot
    let raised = await withRoom(context, range, raisedSlot)
    // The slot raised to the floor leaves no room for a summarizer's own markup (the ledger's block gives each of
    // many items its line): one more try with a quarter more, within the cap.
    const roomier = Math.min(policy.cap, Math.ceil(raisedSlot * 1.25))
    if (raised.result.kind === 'refused' && raised.result.refusal?.code === 'summarizer' && roomier > raisedSlot) {
      raisedSlot = roomier
      raised = await withRoom(context, range, raisedSlot)
    }
    return raised.result.kind === 'refused' ? keep : { ...success(raised.result), signal, refusal: { code, action: 'raised-slot', raisedSlot } }
  }
  if (policy === 'accept-risk') return acceptRisk(context, range, { signal, refusal: { code, action: 'kept' } })
  if (policy === 'other-segment') return otherSegment(context, range, plan, { signal, refusal: { code, action: 'kept' } })
  return keep
}

/** Whether a message is only earlier summaries (floorguard's or another tool's). */
function isSummaryMessage(message: Message): boolean {
  return message.parts.length > 0 && message.parts.every((part) => part.type === 'summary')
}

/**
 * The planner, except that a part of a split holding only earlier summaries is left out (kept as it is): it is
 * already a summary, and summarizing it alone again could not make it smaller. This is how a conversation whose
 * state outgrew one slot goes on: the old summary stays, the newer turns get a summary of their own.
 */
export function withoutSummaryParts(plan: CompactionPlan, messages: readonly Message[], offset: number): CompactionPlan {
  if (plan.kind !== 'split') return plan
  const parts = plan.parts.filter((part) => {
    for (let index = part.range[0]; index < part.range[1]; index++) if (!isSummaryMessage(messages[index - offset]!)) return true
    return false
  })
  if (parts.length === plan.parts.length || parts.length === 0) return plan
  const summaryTokens = parts.reduce((sum, part) => sum + part.slot, 0)
  const tokens = parts.reduce((sum, part) => sum + part.tokens, 0)
  return { ...plan, parts, summaryTokens, frees: tokens - summaryTokens }
}

/**
 * {@link withoutSummaryParts} over the planner; and when the planner refuses a range that opens with earlier
 * summaries (a summary verified within its slot can price above it once re-estimated with a margin, and its causal
 * unit then fits no slot), the range after the first of them, then after the second, … is planned instead, when it
 * holds a slot's worth of tokens that a summary can at least halve: the summaries left out stay as they are and the
 * rest gets its own, where a refusal would refuse every later call too and let the context grow without end.
 */
const keepingSummaries: CompactionPlanner = (segment, options) => {
  const offset = segment.offset ?? 0
  let plan = planValidated(segment, options)
  // One earlier summary left out at a time (each is a turn of its own), until what follows can be planned.
  for (let lead = 1; plan.kind === 'refuse' && lead < segment.messages.length && isSummaryMessage(segment.messages[lead - 1]!); lead++) {
    const rest = planValidated({ ...segment, messages: segment.messages.slice(lead), offset: offset + lead }, options)
    // Only a rest of a slot's worth of tokens at least, that a summary can at least halve: a message or two just after
    // the summaries would cost a summarizer call for little or nothing, and the refusal's options say more.
    if (rest.kind !== 'refuse' && rest.tokens >= options.slot && rest.floor.total * 2 <= rest.tokens) plan = rest
  }
  return withoutSummaryParts(plan, segment.messages, offset)
}

/** The planner when the floor check is off: the whole range into the slot, items marked but never a refusal. */
const fixedPlanner: CompactionPlanner = (segment, options) => {
  const open = planValidated(segment, { ...options, slot: Number.MAX_SAFE_INTEGER, budget: Number.MAX_SAFE_INTEGER, changedDecisions: true })
  const offset = segment.offset ?? 0
  // A segment whose boundary cuts a unit is refused even with room to spare: its items are still the estimate's.
  const items = open.kind === 'compact' ? open.items : segment.estimator.estimate(segment.messages, offset).items.map((item) => ({ ...item, status: 'current' as const }))
  return { kind: 'compact', range: [offset, offset + segment.messages.length], floor: open.floor, slot: options.slot, tokens: open.tokens, guard: 'on', items, state: [] }
}

/**
 * `range` compacted at `slot` under the full checks; a part's slot is its floor rounded up to 100 tokens, so when a
 * summarizer's state block needs more (many short items, each with its line) the range gets one more plan in which
 * every part may use the whole slot, and with `widen`, when a part that had the whole slot still missed, one more at
 * a wider margin ({@link MAX_RETRY_MARGIN}). Every path that compacts under the checks (the first try, `raise-slot`,
 * `other-segment`) goes through here.
 */
async function withRoom(context: RunContext, range: RuntimeRange, slot: number, widen = false): Promise<{ result: CompactResult; plan: CompactionPlan | undefined }> {
  const attempt = await guarded(context, range, slot, keepingSummaries)
  const blockMissed = (result: CompactResult): boolean => result.kind === 'refused' && result.refusal?.code === 'summarizer'
  if (!blockMissed(attempt.result)) return attempt
  const tight = attempt.result.verification.parts.some((part) => part.slot < slot)
  const roomier = tight ? await guarded(context, range, slot, keepingSummaries, slot) : attempt
  if (!widen || !blockMissed(roomier.result) || context.estimator.marginRatio >= MAX_RETRY_MARGIN) return roomier
  // On the first try (a policy's slot has its own retries), a part that had the whole slot and still missed (a
  // floor-sized part of many short items, each with its line): the range planned once more with a wider coherence
  // margin, so its parts are smaller and each block has room.
  return guarded({ ...context, estimator: widened(context.estimator, MAX_RETRY_MARGIN) }, range, slot, keepingSummaries, slot)
}

/** The coherence margin of the last plan {@link withRoom} tries: the record's 15–25% band, and 10 points more. */
const MAX_RETRY_MARGIN = 0.35

/** `estimator` with a wider margin: the same items, `margin = ⌈irreducible × ratio⌉`. */
function widened(estimator: FloorEstimatorV1, ratio: number): FloorEstimatorV1 {
  return {
    specificationVersion: estimator.specificationVersion,
    name: estimator.name,
    tokenizer: estimator.tokenizer,
    marginRatio: ratio,
    extract: (message, index) => estimator.extract(message, index),
    estimate(messages, offset) {
      const estimate = estimator.estimate(messages, offset)
      const margin = Math.ceil(estimate.irreducible * ratio)
      return { ...estimate, margin, total: estimate.irreducible + margin }
    },
  }
}

async function guarded(
  context: RunContext,
  range: RuntimeRange,
  slot: number,
  planner?: CompactionPlanner,
  slotRounding?: number,
): Promise<{ result: CompactResult; plan: CompactionPlan | undefined }> {
  return compactValidatedWithEvents(
    context.transcript,
    {
      estimator: context.estimator,
      tokenizer: context.tokenizer,
      slot,
      summarizer: context.summarizer,
      range: { start: range[0], end: range[1] },
      ...(context.settings.summaryBudget === undefined ? {} : { budget: context.settings.summaryBudget }),
      ...(context.settings.timeoutMs === undefined ? {} : { timeoutMs: context.settings.timeoutMs }),
      ...(context.settings.attempts === undefined ? {} : { attempts: context.settings.attempts }),
      ...(context.abortSignal === undefined ? {} : { abortSignal: context.abortSignal }),
      ...(planner ? { planner } : {}),
      ...(slotRounding === undefined ? {} : { planOptions: { slotRounding } }),
      // The built-in ledger is local: no backoff between its attempts (a remote summarizer keeps the default).
      ...(context.localSummarizer ? { sleep: async () => {} } : {}),
    },
    context.emit,
  )
}

function success(result: CompactResult): Outcome {
  return { kind: result.kind === 'split' ? 'split' : 'compacted', summaries: result.summaries.map((summary) => ({ range: summary.range, text: summary.text })), masks: [] }
}

/** The segment's items marked current/superseded by the planner, whatever the slot. */
function markedItems(context: RunContext, range: RuntimeRange): { items: readonly MustKeepItem[]; floor: number } {
  const plan = fixedPlanner(
    { messages: context.transcript.messages.slice(range[0], range[1]), offset: range[0], pairs: context.transcript.pairs, estimator: context.estimator, tokenizer: context.tokenizer },
    { slot: context.settings.slot },
  )
  return { items: plan.kind === 'compact' ? plan.items : [], floor: plan.floor.total }
}

/**
 * No verification (`checks.verify: false`): the planner's parts (floor on) or the whole range (floor off, the
 * record's naive compactor, whose summarizer gets no must-keep items), one summarizer call each, the text taken as
 * it comes. `compaction-end` lists what the summaries lost.
 */
async function unverified(context: RunContext, range: RuntimeRange, slot: number): Promise<Outcome> {
  const { settings, emit, transcript } = context
  const segment = transcript.messages.slice(range[0], range[1])
  let parts: Array<{ range: RuntimeRange; slot: number; items: readonly MustKeepItem[]; ask: boolean }>
  if (settings.floorCheck) {
    const plan = keepingSummaries(
      { messages: segment, offset: range[0], pairs: transcript.pairs, estimator: context.estimator, tokenizer: context.tokenizer },
      { slot, ...(settings.summaryBudget === undefined ? {} : { budget: settings.summaryBudget }) },
    )
    emit(planEndEvent(plan))
    if (plan.kind === 'refuse') {
      const signal: Omit<BudgetSignal, 'willOverflow' | 'overflowBy'> = {
        type: 'budget-infeasible' as const,
        range: plan.range,
        floor: plan.floor.total,
        slot,
        contextTokens: context.before,
        budget: settings.budget,
        options: plan.options.map(describeOption),
        reason: describeRefusal(plan),
      }
      return { kind: 'refused', summaries: [], masks: [], signal, refusal: { code: plan.reason, action: 'kept' } }
    }
    parts = plan.kind === 'compact' ? [{ range: plan.range, slot: plan.slot, items: plan.items, ask: true }] : plan.parts.map((part) => ({ range: part.range, slot: part.slot, items: part.items, ask: true }))
  } else {
    const marked = markedItems(context, range)
    emit(wholePlanEndEvent(range, marked.floor, slot, rangeTokens(context.tokens, range), marked.items))
    parts = [{ range, slot, items: marked.items, ask: false }]
  }
  const summaries: SummaryPart[] = []
  const lost: EventItem[] = []
  for (const [index, part] of parts.entries()) {
    const messages = transcript.messages.slice(part.range[0], part.range[1])
    const result = await callSummarizer(context.summarizer, {
      messages,
      offset: part.range[0],
      slot: part.slot,
      tokenizer: context.tokenizer,
      groups: part.ask ? groupMustKeepItems(part.items) : [],
      attempt: 1,
      missing: [],
    })
    if (result.kind === 'failure') {
      const signal = {
        type: 'budget-infeasible' as const,
        range: part.range,
        floor: 0,
        slot: part.slot,
        contextTokens: context.before,
        budget: settings.budget,
        options: ['use another summarizer', 'raise the slot'],
        reason: `the summarizer failed for messages ${part.range[0]}:${part.range[1]}: ${result.reason}`,
      }
      return { kind: 'refused', summaries: [], masks: [], signal, refusal: { code: 'summarizer', action: 'kept' } }
    }
    const partLost = lostItems(part.items, result.text)
    lost.push(...partLost)
    const total = distinctCount(part.items)
    emit({
      type: 'summary-end',
      part: index,
      range: part.range,
      slot: part.slot,
      tokens: context.tokenizer.count(result.text),
      items: total,
      survived: total - partLost.length,
      attempts: 1,
      verified: false,
    })
    summaries.push({ range: part.range, text: result.text })
  }
  return { kind: summaries.length === 1 ? 'compacted' : 'split', summaries, masks: [], lost }
}

/**
 * Policy `accept-risk`: the whole range into the configured slot anyway. The summarizer is asked for the items that
 * fit the slot (in the state block's order: constraints and errors first); when it fails, for half as many, down to
 * none. The summary is never longer than the slot; every item it does not hold verbatim is listed as lost.
 */
async function acceptRisk(context: RunContext, range: RuntimeRange, refused: Refused): Promise<Outcome> {
  const { settings, emit, tokenizer } = context
  const slot = settings.slot
  const { items, floor } = markedItems(context, range)
  const ordered = groupMustKeepItems(items).flatMap((group) => group.items)
  // Items whose tokens fill at most three quarters of the slot: the rest is the block's own lines and context.
  let budget = Math.floor(slot * 0.75)
  let take = 0
  while (take < ordered.length && ordered[take]!.tokens + 8 <= budget) budget -= ordered[take++]!.tokens + 8
  emit(wholePlanEndEvent(range, floor, slot, rangeTokens(context.tokens, range), items))
  const messages = context.transcript.messages.slice(range[0], range[1])
  for (let attempt = 1; attempt <= 6; attempt++) {
    const asked = ordered.slice(0, take)
    const result = await callSummarizer(context.summarizer, { messages, offset: range[0], slot, tokenizer, groups: groupMustKeepItems(asked), attempt, missing: [] })
    const tokens = result.kind === 'summary' ? tokenizer.count(result.text) : 0
    if (result.kind === 'summary' && result.text.trim() !== '' && tokens <= slot && tokens < rangeTokens(context.tokens, range)) {
      const lost = lostItems(ordered, result.text)
      const total = distinctCount(ordered)
      emit({ type: 'summary-end', part: 0, range, slot, tokens, items: total, survived: total - lost.length, attempts: attempt, verified: false })
      return { kind: 'compacted', summaries: [{ range, text: result.text }], masks: [], signal: refused.signal, refusal: { ...refused.refusal!, action: 'accepted-risk' }, lost }
    }
    emit({
      type: 'verify-error',
      range,
      attempt,
      missing: [],
      problems: [result.kind === 'failure' ? result.reason : `summary has ${tokens} tokens, slot is ${slot}`, `accept-risk: asking again with ${Math.floor(take / 2)} of ${ordered.length} items`],
    })
    if (take === 0) break
    take = Math.floor(take / 2)
  }
  return { kind: 'refused', summaries: [], masks: [], ...refused }
}

/**
 * Policy `other-segment`: the planner's `compact-range` options (most tokens freed first), each compacted under the
 * full checks; when none compacts, old read-only tool outputs in the selection are masked (see `_mask.ts`).
 */
async function otherSegment(
  context: RunContext,
  range: RuntimeRange,
  plan: CompactionPlan | undefined,
  refused: Refused,
): Promise<Outcome> {
  const ranges = plan?.kind === 'refuse' ? compactRanges(plan) : []
  for (const { range: other, slot } of ranges) {
    // A range of earlier summaries only cannot shrink: summarizing one again spends a call to free nothing.
    if (context.transcript.messages.slice(other[0], other[1]).every(isSummaryMessage)) continue
    // At the slot the option was priced with, so that it frees what it said (at the configured slot, the ledger's
    // gist would fill the difference).
    const attempt = await withRoom(context, other, Math.min(slot, context.settings.slot))
    if (attempt.result.kind !== 'refused') return { ...success(attempt.result), signal: refused.signal, refusal: { ...refused.refusal!, action: 'compacted-other', otherRange: other } }
  }
  const masks = findMaskable(context.transcript.messages, context.transcript.pairs, range[0], range[1], (message, index) =>
    index >= 0 ? context.tokens[index]! : messageTokens(message, context.tokenizer),
  )
  const action: PolicyAction = masks.length > 0 ? 'masked' : 'kept'
  return { kind: 'refused', summaries: [], masks: masks.map((mask) => ({ index: mask.index, text: mask.text })), signal: refused.signal, refusal: { ...refused.refusal!, action } }
}

/** The refusal's compact-range options, the one that frees most first. */
function compactRanges(plan: Refusal): Array<{ range: RuntimeRange; slot: number }> {
  return plan.options
    .flatMap((option) => (option.kind === 'compact-range' ? [option] : []))
    .sort((a, b) => b.frees - a.frees)
    .map((option) => ({ range: option.range, slot: option.slot }))
}

/** Messages, layout, the closing event and the signal of an outcome. */
function build(
  input: readonly Message[],
  tokens: Float64Array,
  tokenizer: TokenizerV1,
  outcome: Outcome,
  before: number,
  settings: Settings,
  emit: (fields: EventFields) => void,
  events: CompactorEvent[],
  replayed: boolean,
): CompactorResult {
  let messages: readonly Message[] = input
  let layout: LayoutEntry[]
  let after = before
  if (outcome.summaries.length === 0 && outcome.masks.length === 0) layout = keptLayout(input.length)
  else {
    const out: Message[] = []
    layout = []
    after = 0
    const summaryAt = new Map(outcome.summaries.map((summary) => [summary.range[0], summary]))
    const maskAt = new Map(outcome.masks.map((mask) => [mask.index, mask.text]))
    for (let index = 0; index < input.length; ) {
      const summary = summaryAt.get(index)
      if (summary) {
        const message = createSummaryMessage(summary.text)
        out.push(message)
        layout.push({ kind: 'summary', range: summary.range, text: summary.text })
        after += messageTokens(message, tokenizer)
        index = summary.range[1]
        continue
      }
      const mask = maskAt.get(index)
      if (mask !== undefined) {
        const message = { ...input[index]!, parts: input[index]!.parts.map((part) => (part.type === 'tool-result' ? { ...part, content: mask } : part)) }
        out.push(message)
        layout.push({ kind: 'masked', index, text: mask })
        after += messageTokens(message, tokenizer)
      } else {
        out.push(input[index]!)
        layout.push({ kind: 'kept', index })
        after += tokens[index]!
      }
      index++
    }
    messages = out
  }
  const kind = outcome.kind === 'unchanged' ? 'refused' : outcome.kind
  if (outcome.signal) emitRefusal(emit, outcome, before, settings)
  emit({
    type: 'compaction-end',
    kind,
    contextTokensBefore: before,
    contextTokensAfter: after,
    ...(outcome.lost ? { lost: outcome.lost } : {}),
    ...(outcome.masks.length > 0 ? { masked: outcome.masks.map((mask) => mask.index) } : {}),
    ...(replayed ? { replayed } : {}),
  })
  const overflowBy = Math.max(0, after - settings.budget)
  let signal: BudgetSignal | undefined
  if (outcome.signal) signal = { ...outcome.signal, contextTokens: before, willOverflow: overflowBy > 0, overflowBy }
  else if (overflowBy > 0 || (outcome.summaries.length > 0 && after >= settings.threshold)) {
    signal = {
      type: 'budget-infeasible',
      range: outcome.summaries[0]?.range ?? [0, 0],
      floor: 0,
      slot: settings.slot,
      contextTokens: before,
      budget: settings.budget,
      willOverflow: true,
      overflowBy,
      options: ['compact again with a larger compactFraction', 'raise the budget'],
      reason:
        overflowBy > 0
          ? `after compaction the context holds ${after} tokens, ${overflowBy} over the budget ${settings.budget}`
          : `after compaction the context holds ${after} tokens, still at or above the high-water mark ${settings.threshold}: the next call compacts again`,
    }
  }
  return { kind: outcome.kind, messages, layout, events: events.slice(), ...(signal ? { signal } : {}) }
}

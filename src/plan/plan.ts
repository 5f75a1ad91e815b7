import { FloorguardError } from '../errors.js'
import type { FloorEstimate, FloorItem } from '../spec/estimator.js'
import type { ToolPair } from '../spec/transcript.js'
import { messageTokens, pairToolCalls, renderMessage } from '../transcript/render.js'
import { validateMessages, validatePairs } from '../transcript/_validate.js'
import { entryKey, parseStateBlock } from '../state-block/index.js'
import type { Message } from '../spec/transcript.js'
import { fewestParts, fewestTokens, type Partition, type PartitionProblem } from './_partition.js'
import { CompactionFloorError } from './compaction-floor-error.js'
import { createErrorFixLinker, startsUserTurn } from './error-fix.js'
import { addSpan, firstOverlap, type SpanList } from './_span-list.js'
import { findSupersededState } from './superseded.js'
import type {
  CausalUnit,
  CompactionPlan,
  CompactPlan,
  FloorSummary,
  GuardMode,
  MessageRange,
  MustKeepItem,
  OffendingUnit,
  PlanOptions,
  PlanPart,
  PlanSegment,
  Refusal,
  RefusalOption,
  RefusalReason,
  SplitPlan,
  StateValue,
} from './types.js'

/** Options with defaults resolved, in one place. */
interface Settings {
  readonly slot: number
  readonly budget: number | undefined
  readonly slotRounding: number
}

/** Everything about the segment that does not depend on the slot, computed once per plan. */
interface Context {
  readonly segment: PlanSegment
  readonly offset: number
  readonly n: number
  readonly prefixTokens: Float64Array
  /** The messages' items as ids, made on first use (see {@link itemIds}): a plan that never splits never extracts. */
  readonly itemIds: { value?: ItemIds }
  /** `cutAllowed[c]`: a cut before local message `c` cuts no unit. */
  readonly cutAllowed: Uint8Array
  readonly units: readonly CausalUnit[]
  readonly crossing: readonly CausalUnit[]
  readonly state: readonly StateValue[]
  readonly stateByMessage: ReadonlyMap<number, SpanList<StateValue>>
  /** Messages holding a failure a later success of the same tool key resolved, with that key. */
  readonly resolvedErrors: ReadonlyMap<number, string>
  /** Entries an earlier summary's state block marks superseded, by message: they stay superseded when carried forward. */
  readonly carriedStale: ReadonlyMap<number, SpanList<{ readonly start: number; readonly end: number; readonly key: string }>>
  /** How the estimator rounds its margin (`ceil` unless its whole-segment estimate shows `floor`). */
  readonly marginRounding: 'ceil' | 'floor'
  readonly estimates: Map<string, FloorEstimate>
  /** Partition problems by their bounds, without the slot (a slot search asks for the same range at each step). */
  readonly problems: Map<string, Omit<PartitionProblem, 'slot'>>
}

/** Distinct item ids of message `i` are `ids[idStarts[i] .. idStarts[i + 1])`; `weights[id]` is the item's tokens. */
interface ItemIds {
  readonly idStarts: Int32Array
  readonly ids: Int32Array
  readonly weights: Float64Array
}

function fail(message: string): never {
  throw new FloorguardError('invalid-argument', `planCompaction: ${message}`)
}

function checkCount(value: unknown, field: string, minimum = 0): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    fail(`${field}: expected an integer >= ${minimum}, got ${typeof value === 'number' ? value : JSON.stringify(value) ?? String(value)}`)
  }
}

function resolveSettings(options: PlanOptions): Settings {
  if (options === null || typeof options !== 'object') fail(`options: expected an object with a slot, got ${String(options)}`)
  checkCount(options.slot, 'options.slot')
  if (options.budget !== undefined) checkCount(options.budget, 'options.budget')
  const slotRounding = options.slotRounding ?? 100
  checkCount(slotRounding, 'options.slotRounding', 1)
  return { slot: options.slot, budget: options.budget, slotRounding }
}

function summaryOf(estimate: FloorEstimate): FloorSummary {
  return { irreducible: estimate.irreducible, margin: estimate.margin, total: estimate.total }
}

function estimateRange(context: Context, from: number, to: number): FloorEstimate {
  const key = `${from}:${to}`
  let estimate = context.estimates.get(key)
  if (!estimate) {
    estimate = context.segment.estimator.estimate(context.segment.messages.slice(from, to), context.offset + from)
    context.estimates.set(key, estimate)
  }
  return estimate
}

function tokensOf(context: Context, from: number, to: number): number {
  return context.prefixTokens[to]! - context.prefixTokens[from]!
}

function rangeOf(context: Context, from: number, to: number): MessageRange {
  return [context.offset + from, context.offset + to]
}

/** A part's slot: its floor rounded up to `slotRounding` (at least one step), never above the configured slot. */
function partSlot(settings: Settings, floor: number): number {
  const step = settings.slotRounding
  return Math.min(settings.slot, Math.ceil(Math.max(floor, 1) / step) * step)
}

function markItems(context: Context, items: readonly FloorItem[]): MustKeepItem[] {
  return items.map((item) => {
    const state = firstOverlap(context.stateByMessage.get(item.message), item.start, item.end)
    if (state) return { ...item, status: state.status, key: state.key }
    const resolved = item.kind === 'error' ? context.resolvedErrors.get(item.message) : undefined
    if (resolved !== undefined) return { ...item, status: 'superseded', key: `error:${resolved}` }
    const carried = firstOverlap(context.carriedStale.get(item.message), item.start, item.end)
    if (carried) return { ...item, status: 'superseded', key: carried.key }
    return { ...item, status: 'current' }
  })
}

/**
 * The stale entries of earlier summaries' state blocks, by transcript message index, with their offsets in the
 * message's rendered text: a value a summary carried as superseded stays superseded in the next one.
 */
function findCarriedStale(messages: readonly Message[], offset: number): Map<number, SpanList<{ start: number; end: number; key: string }>> {
  const found = new Map<number, SpanList<{ start: number; end: number; key: string }>>()
  messages.forEach((message, index) => {
    const rendered = renderMessage(message)
    for (const span of rendered.spans) {
      const part = message.parts[span.part]!
      if ((part.type !== 'summary' && part.type !== 'text') || !part.text.includes('<floorguard-state v=')) continue
      const block = parseStateBlock(part.text)
      if (!block) continue
      for (const entry of block.entries) {
        if (entry.status !== 'superseded') continue
        const start = span.start + entry.start
        addSpan(found, offset + index, { start, end: start + entry.text.length, key: entryKey(entry) ?? `carried:${entry.text}` })
      }
    }
  })
  return found
}

function stateIn(context: Context, from: number, to: number): StateValue[] {
  const start = context.offset + from
  const end = context.offset + to
  return context.state.filter((entry) => entry.message >= start && entry.message < end)
}

/** The 5 largest items, ties in order of appearance: kept in one pass (a refusal of a 32 MB message sorted 260,000). */
function largestItems(items: readonly FloorItem[]): FloorItem[] {
  const kept: FloorItem[] = []
  for (const item of items) {
    // An item goes after every kept one at least as large (an earlier one wins a tie).
    if (kept.length === 5 && item.tokens <= kept[4]!.tokens) continue
    let at = kept.length
    while (at > 0 && kept[at - 1]!.tokens < item.tokens) at--
    kept.splice(at, 0, item)
    if (kept.length > 5) kept.pop()
  }
  return kept
}

function pairRange(pair: ToolPair): MessageRange {
  return [Math.min(pair.call.message, pair.result.message), Math.max(pair.call.message, pair.result.message) + 1]
}

function checkPairs(pairs: readonly ToolPair[]): void {
  pairs.forEach((pair, index) => {
    for (const end of ['call', 'result'] as const) {
      const place = (pair as Partial<ToolPair>)[end]
      if (!place || !Number.isInteger(place.message) || !Number.isInteger(place.part) || place.message < 0) {
        fail(`segment.pairs[${index}].${end}: expected { message, part } with integer indices`)
      }
    }
  })
}

function buildContext(segment: PlanSegment, options: PlanOptions): Context {
  if (segment === null || typeof segment !== 'object' || !Array.isArray(segment.messages)) fail('segment.messages: expected an array of messages')
  if (!segment.estimator || segment.estimator.specificationVersion !== 'v1') fail('segment.estimator: expected a FloorEstimatorV1')
  if (!segment.tokenizer || segment.tokenizer.specificationVersion !== 'v1') fail('segment.tokenizer: expected a TokenizerV1')
  const offset = segment.offset ?? 0
  checkCount(offset, 'segment.offset')
  const { messages, tokenizer } = segment
  const n = messages.length
  const segmentEnd = offset + n

  const prefixTokens = new Float64Array(n + 1)
  messages.forEach((message, index) => {
    prefixTokens[index + 1] = prefixTokens[index]! + messageTokens(message, tokenizer)
  })

  const pairs = segment.pairs
    ? (checkPairs(segment.pairs), segment.pairs)
    : pairToolCalls(messages).pairs.map((pair) => ({
        id: pair.id,
        call: { message: pair.call.message + offset, part: pair.call.part },
        result: { message: pair.result.message + offset, part: pair.result.part },
      }))

  const inside = (index: number) => index >= offset && index < segmentEnd
  const units: CausalUnit[] = []
  const crossing: CausalUnit[] = []
  const insidePairs: ToolPair[] = []
  for (const pair of pairs) {
    const range = pairRange(pair)
    const callInside = inside(pair.call.message)
    const resultInside = inside(pair.result.message)
    if (callInside && resultInside) {
      insidePairs.push(pair)
      if (range[1] - range[0] > 1) units.push({ kind: 'tool-pair', range, label: `tool call ${pair.id}` })
    } else if (callInside || resultInside) {
      crossing.push({ kind: 'tool-pair', range, label: `tool call ${pair.id}` })
    }
  }

  for (const linker of options.linkers ?? [createErrorFixLinker()]) {
    for (const unit of linker.link({ messages, offset, pairs: insidePairs })) {
      const [start, end] = unit.range
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < offset || end > segmentEnd || end <= start) {
        fail(`linker ${JSON.stringify(linker.name)} returned range [${start}, ${end}), expected a non-empty range inside the segment [${offset}, ${segmentEnd})`)
      }
      units.push(unit)
    }
  }

  const state = options.changedDecisions === false ? [] : findSupersededState(messages, offset)
  const stateByMessage = new Map<number, SpanList<StateValue>>()
  const previousOfKey = new Map<string, StateValue>()
  const linkSuperseded = options.linkSuperseded ?? true
  const window = options.supersededWindow ?? 50
  checkCount(window, 'options.supersededWindow')
  for (const entry of state) {
    addSpan(stateByMessage, entry.message, entry)
    // Only values put in force change a decision: a question or a negated mention links nothing.
    if ((entry.effect ?? 'set') !== 'set') continue
    const previous = previousOfKey.get(entry.key)
    previousOfKey.set(entry.key, entry)
    if (!linkSuperseded || !previous || previous.value === entry.value || entry.message === previous.message) continue
    if (entry.message - previous.message > window) continue
    units.push({
      kind: 'superseded-decision',
      range: [previous.message, entry.message + 1],
      label: `${entry.key} changed from ${previous.value} to ${entry.value}`,
    })
  }

  for (const [index, unit] of (options.units ?? []).entries()) {
    const range = unit?.range
    if (!Array.isArray(range) || range.length !== 2 || !Number.isInteger(range[0]) || !Number.isInteger(range[1]) || range[0] < 0 || range[1] <= range[0]) {
      fail(`options.units[${index}].range: expected [start, end) with integer indices, start < end`)
    }
    const caller: CausalUnit = { kind: 'caller', range: [range[0], range[1]], ...(unit.label === undefined ? {} : { label: unit.label }) }
    if (range[0] >= offset && range[1] <= segmentEnd) units.push(caller)
    else if (range[0] < segmentEnd && range[1] > offset) crossing.push(caller)
  }

  // A cut before message c is forbidden when some unit [s, e) has s < c < e (crossing units clipped to the segment).
  const forbidden = new Int32Array(n + 2)
  for (const unit of [...units, ...crossing]) {
    const start = Math.max(unit.range[0], offset) - offset
    const end = Math.min(unit.range[1], segmentEnd) - offset
    if (end - start < 2) continue
    forbidden[start + 1]!++
    forbidden[end]!--
  }
  const cutAllowed = new Uint8Array(n + 1)
  let open = 0
  for (let c = 0; c <= n; c++) {
    open += forbidden[c]!
    cutAllowed[c] = c === 0 || c === n || open === 0 ? 1 : 0
  }

  const resolvedErrors = new Map<number, string>()
  for (const unit of units) {
    if (unit.kind === 'error-fix' && unit.failure && unit.resolution?.by === 'success') resolvedErrors.set(unit.failure.message, unit.failure.key)
  }

  return {
    segment,
    offset,
    n,
    prefixTokens,
    itemIds: {},
    cutAllowed,
    units,
    crossing,
    state,
    stateByMessage,
    resolvedErrors,
    carriedStale: findCarriedStale(messages, offset),
    marginRounding: 'ceil',
    estimates: new Map(),
    problems: new Map(),
  }
}

/**
 * The messages' distinct items as ids (one id per distinct text, weighted by its tokens), from `estimator.extract`
 * on each message: made the first time the margin calibration or a split needs them, then kept.
 */
function itemIds(context: Context): ItemIds {
  if (context.itemIds.value) return context.itemIds.value
  const { messages, estimator } = context.segment
  const { n, offset } = context
  const idStarts = new Int32Array(n + 1)
  const idList: number[] = []
  const weightList: number[] = []
  const idOf = new Map<string, number>()
  const lastSeen = new Map<number, number>()
  messages.forEach((message, index) => {
    idStarts[index] = idList.length
    for (const item of estimator.extract(message, offset + index)) {
      let id = idOf.get(item.text)
      if (id === undefined) {
        id = weightList.length
        idOf.set(item.text, id)
        weightList.push(item.tokens)
      }
      if (lastSeen.get(id) === index) continue
      lastSeen.set(id, index)
      idList.push(id)
    }
  })
  idStarts[n] = idList.length
  context.itemIds.value = { idStarts, ids: Int32Array.from(idList), weights: Float64Array.from(weightList) }
  return context.itemIds.value
}

/** How many single messages {@link calibrateMargin} may ask the estimator about. */
const CALIBRATION_PROBES = 256

/**
 * Mirrors the estimator's margin rounding (floor instead of ceil) when its estimates show it: the whole segment's
 * first, then single messages with items, until one whose `irreducible × marginRatio` is not a whole number tells
 * ceil from floor (a whole number of a margin cannot, so one estimate is not always enough).
 */
function calibrateMargin(context: Context, whole: FloorEstimate): Context {
  const ratio = context.segment.estimator.marginRatio
  const tells = (estimate: FloorEstimate): 'ceil' | 'floor' | undefined => {
    const exact = estimate.irreducible * ratio
    if (Math.floor(exact) === Math.ceil(exact)) return undefined
    if (estimate.margin === Math.floor(exact)) return 'floor'
    return 'ceil'
  }
  let rounding = tells(whole)
  // With no margin at all (conservative) no estimate can tell.
  const silent = ratio === 0
  for (let index = 0, probes = 0; !silent && rounding === undefined && index < context.n && probes < CALIBRATION_PROBES; index++) {
    // A message's own estimate has items exactly when its extraction does (the estimate prices its distinct items).
    const estimate = estimateRange(context, index, index + 1)
    if (estimate.items.length === 0) continue
    probes++
    rounding = tells(estimate)
  }
  return rounding === 'floor' ? { ...context, marginRounding: 'floor' } : context
}

/** Block boundaries (allowed cuts) of the local range `[from, to)`. */
function blockBounds(context: Context, from: number, to: number): number[] {
  const bounds = [from]
  for (let c = from + 1; c < to; c++) if (context.cutAllowed[c]) bounds.push(c)
  bounds.push(to)
  return bounds
}

function buildProblem(context: Context, bounds: readonly number[], settings: Settings): PartitionProblem {
  const key = `${context.marginRounding} ${settings.slotRounding} ${bounds.join(',')}`
  let problem = context.problems.get(key)
  if (!problem) {
    problem = slotFreeProblem(context, bounds, settings)
    context.problems.set(key, problem)
  }
  return { ...problem, slot: settings.slot }
}

/** Everything of the partition problem over `bounds` but the slot (blocks, their distinct items, cut penalties). */
function slotFreeProblem(context: Context, bounds: readonly number[], settings: Settings): Omit<PartitionProblem, 'slot'> {
  const blocks = bounds.length - 1
  const { idStarts, ids, weights } = itemIds(context)
  const itemStarts = new Int32Array(blocks + 1)
  const blockIds: number[] = []
  const seen = new Int32Array(weights.length).fill(-1)
  for (let b = 0; b < blocks; b++) {
    itemStarts[b] = blockIds.length
    for (let k = idStarts[bounds[b]!]!; k < idStarts[bounds[b + 1]!]!; k++) {
      const id = ids[k]!
      if (seen[id] === b) continue
      seen[id] = b
      blockIds.push(id)
    }
  }
  itemStarts[blocks] = blockIds.length
  const cutPenalty = new Uint8Array(blocks + 1)
  for (let b = 1; b < blocks; b++) cutPenalty[b] = startsUserTurn(context.segment.messages[bounds[b]!]) ? 0 : 1
  return {
    blocks,
    itemStarts,
    itemIds: Int32Array.from(blockIds),
    weights,
    marginRatio: context.segment.estimator.marginRatio,
    marginRounding: context.marginRounding,
    slotRounding: settings.slotRounding,
    cutPenalty,
  }
}

/** The units lying inside a local range. */
function unitsWithin(context: Context, from: number, to: number): CausalUnit[] {
  const start = context.offset + from
  const end = context.offset + to
  return context.units.filter((unit) => unit.range[0] >= start && unit.range[1] <= end && unit.range[1] - unit.range[0] > 1)
}

function offendingBlock(context: Context, from: number, to: number): OffendingUnit {
  const estimate = estimateRange(context, from, to)
  const members = unitsWithin(context, from, to)
  const widest = members.reduce<CausalUnit | undefined>((chosen, unit) => (!chosen || unit.range[1] - unit.range[0] > chosen.range[1] - chosen.range[0] ? unit : chosen), undefined)
  return {
    kind: widest?.kind ?? 'message',
    range: rangeOf(context, from, to),
    floor: estimate.total,
    items: largestItems(estimate.items),
    ...(members.length > 1 ? { members } : {}),
    ...(widest?.label === undefined ? {} : { label: widest.label }),
  }
}

function summaryCost(plan: CompactPlan | SplitPlan, settings: Settings): number {
  return plan.kind === 'compact' ? partSlot(settings, plan.floor.total) : plan.summaryTokens
}

/** A `compact-range` option for the local range, when planning it frees tokens. */
function rangeOption(context: Context, from: number, to: number, settings: Settings, reason: string): RefusalOption | undefined {
  if (to <= from) return undefined
  const plan = decide(context, from, to, settings, false)
  if (plan.kind === 'refuse') return undefined
  const cost = summaryCost(plan, settings)
  const frees = plan.tokens - cost
  return frees > 0 ? { kind: 'compact-range', range: plan.range, slot: cost, frees, reason } : undefined
}

function bestOptions(options: Array<RefusalOption | undefined>, limit: number): RefusalOption[] {
  return options
    .filter((option): option is Extract<RefusalOption, { kind: 'compact-range' }> => option?.kind === 'compact-range')
    .sort((a, b) => b.frees - a.frees || a.range[0] - b.range[0])
    .slice(0, limit)
}

/**
 * A slot at which the local range gets a plan, searched between `failing` (known to refuse) and `candidate`: the
 * returned slot N is checked to plan and N - 1 to refuse (a binary search keeping both ends checked, so its answer
 * holds even where a larger slot does not always help, as part slots grow with it). Undefined when `candidate`
 * refuses too.
 */
function smallestWorkingSlot(context: Context, from: number, to: number, settings: Settings, failing: number, candidate: number): number | undefined {
  const works = (slot: number) => decide(context, from, to, { ...settings, slot }, false).kind !== 'refuse'
  if (candidate <= failing || !works(candidate)) return undefined
  let low = failing
  let high = candidate
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2)
    if (works(middle)) high = middle
    else low = middle
  }
  return high
}

function refusal(
  context: Context,
  from: number,
  to: number,
  settings: Settings,
  reason: RefusalReason,
  units: readonly OffendingUnit[],
  options: readonly RefusalOption[],
): Refusal {
  const whole = estimateRange(context, from, to)
  const tokens = tokensOf(context, from, to)
  return {
    kind: 'refuse',
    reason,
    range: rangeOf(context, from, to),
    floor: summaryOf(whole),
    slot: settings.slot,
    tokens,
    guard: 'on',
    budget: settings.budget ?? Math.max(0, tokens - 1),
    units,
    // Accepting the risk of nothing (a floor within the slot: the refusal is about a unit, a pair or the budget) is no
    // option: a re-test found "accept the risk explicitly (0 floor tokens will not fit)".
    options: options.filter((option) => option.kind !== 'accept-risk' || option.shortfall > 0),
    state: stateIn(context, from, to),
  }
}

function acceptRisk(whole: FloorEstimate, settings: Settings): RefusalOption {
  return { kind: 'accept-risk', shortfall: Math.max(0, whole.total - settings.slot) }
}

/** The partition's parts; `mark` false leaves their items and state empty (a probe reads only slots and floors). */
function toParts(context: Context, bounds: readonly number[], partition: Partition, settings: Settings, mark: boolean): { parts: PlanPart[]; misfit?: OffendingUnit } {
  const parts: PlanPart[] = []
  for (let index = 0; index + 1 < partition.cuts.length; index++) {
    const from = bounds[partition.cuts[index]!]!
    const to = bounds[partition.cuts[index + 1]!]!
    const estimate = estimateRange(context, from, to)
    if (estimate.total > settings.slot) return { parts, misfit: offendingBlock(context, from, to) }
    parts.push({
      range: rangeOf(context, from, to),
      floor: estimate.total,
      slot: partSlot(settings, estimate.total),
      tokens: tokensOf(context, from, to),
      items: mark ? markItems(context, estimate.items) : [],
      state: mark ? stateIn(context, from, to) : [],
    })
  }
  return { parts }
}

function splitPlan(context: Context, from: number, to: number, settings: Settings, parts: PlanPart[], optimal: SplitPlan['optimal']): SplitPlan {
  const tokens = tokensOf(context, from, to)
  const summaryTokens = parts.reduce((sum, part) => sum + part.slot, 0)
  return {
    kind: 'split',
    range: rangeOf(context, from, to),
    floor: summaryOf(estimateRange(context, from, to)),
    slot: settings.slot,
    tokens,
    guard: 'on',
    budget: settings.budget ?? Math.max(0, tokens - 1),
    summaryTokens,
    frees: tokens - summaryTokens,
    optimal,
    parts,
    state: stateIn(context, from, to),
  }
}

/**
 * The refusal when even the floor costs at least what the range holds: `no-gain`, a summary could not be smaller
 * than the messages it replaces. The one option: a budget as large as the floor (accepting a summary that saves
 * nothing).
 */
function noGain(context: Context, from: number, to: number, settings: Settings, maxSummary: number, withOptions: boolean): Refusal {
  const whole = estimateRange(context, from, to)
  const options: RefusalOption[] = withOptions ? [{ kind: 'raise-budget', budget: whole.total }] : []
  return { ...refusal(context, from, to, settings, 'no-gain', [], options), budget: maxSummary }
}

/**
 * The record's three-way decision for the local range `[from, to)`, whose ends are allowed cuts. Without options it
 * is a probe (a slot search or a range option reads its kind, range, tokens and slots): items are left unmarked and
 * state ungathered, which would otherwise cost a pass over every item at each step of the search.
 */
function decide(context: Context, from: number, to: number, settings: Settings, withOptions: boolean): CompactionPlan {
  const whole = estimateRange(context, from, to)
  const tokens = tokensOf(context, from, to)
  const maxSummary = settings.budget ?? tokens - 1
  if (whole.total <= settings.slot) {
    // A summary never costs more than what it replaces: the slot is capped at the budget, and a floor above it refuses.
    if (to > from && whole.total > maxSummary) return noGain(context, from, to, settings, maxSummary, withOptions)
    const slot = to > from ? Math.min(settings.slot, maxSummary) : settings.slot
    return {
      kind: 'compact',
      range: rangeOf(context, from, to),
      floor: summaryOf(whole),
      slot,
      tokens,
      guard: 'on',
      items: withOptions ? markItems(context, whole.items) : [],
      state: withOptions ? stateIn(context, from, to) : [],
      ...(slot < settings.slot ? { requestedSlot: settings.slot } : {}),
    }
  }
  const bounds = blockBounds(context, from, to)

  // Units that cannot fit on their own decide the refusal before any search.
  const oversized: Array<{ from: number; to: number; cuttable: boolean }> = []
  for (let b = 0; b + 1 < bounds.length; b++) {
    const start = bounds[b]!
    const end = bounds[b + 1]!
    if (estimateRange(context, start, end).total <= settings.slot) continue
    let cuttable = end - start > 1
    for (let index = start; cuttable && index < end; index++) if (estimateRange(context, index, index + 1).total > settings.slot) cuttable = false
    oversized.push({ from: start, to: end, cuttable })
  }
  if (oversized.length > 0) {
    const reason: RefusalReason = oversized.every((block) => block.cuttable) ? 'would-cut-unit' : 'unit-exceeds-slot'
    const units = oversized.map((block) => offendingBlock(context, block.from, block.to))
    if (!withOptions) return refusal(context, from, to, settings, reason, units, [])
    // At the largest unit's floor minus one that unit still does not fit: the search starts there.
    const lowest = Math.max(...units.map((unit) => unit.floor))
    const slot = smallestWorkingSlot(context, from, to, settings, lowest - 1, Math.max(whole.total, lowest))
    const options: RefusalOption[] = slot === undefined ? [] : [{ kind: 'raise-slot', slot }]
    const gaps: Array<RefusalOption | undefined> = []
    let cursor = from
    for (const block of oversized) {
      gaps.push(rangeOption(context, cursor, block.from, settings, cursor === from ? `the messages before the unit at ${context.offset + block.from}` : `the messages between the units`))
      cursor = block.to
    }
    gaps.push(rangeOption(context, cursor, to, settings, `the messages after the unit ending at ${context.offset + cursor}`))
    options.push(...bestOptions(gaps, 3), acceptRisk(whole, settings))
    return refusal(context, from, to, settings, reason, units, options)
  }

  const problem = buildProblem(context, bounds, settings)
  const fewest = fewestParts(problem)
  if (!fewest) return refusal(context, from, to, settings, 'estimator-inconsistent', [], withOptions ? [acceptRisk(whole, settings)] : [])
  const first = toParts(context, bounds, fewest, settings, withOptions)
  if (first.misfit) {
    const slot = withOptions ? smallestWorkingSlot(context, from, to, settings, settings.slot, Math.max(first.misfit.floor, whole.total)) : undefined
    const options: RefusalOption[] = withOptions ? [...(slot === undefined ? [] : [{ kind: 'raise-slot' as const, slot }]), acceptRisk(whole, settings)] : []
    return refusal(context, from, to, settings, 'estimator-inconsistent', [first.misfit], options)
  }
  const firstCost = first.parts.reduce((sum, part) => sum + part.slot, 0)
  if (firstCost <= maxSummary) return splitPlan(context, from, to, settings, first.parts, 'fewest-parts')

  // Every partition's summaries cost at least the segment's distinct items once: skip the search when that alone
  // is over, unless the refusal needs the cheapest cost for its raise-budget number.
  let cheapest = first.parts
  let cheapestCost = firstCost
  let modelIrreducible = 0
  for (const id of new Set(problem.itemIds)) modelIrreducible += problem.weights[id]!
  if (modelIrreducible <= maxSummary || withOptions) {
    const fewestToken = fewestTokens(problem)
    if (fewestToken) {
      const second = toParts(context, bounds, fewestToken, settings, withOptions)
      if (!second.misfit) {
        const secondCost = second.parts.reduce((sum, part) => sum + part.slot, 0)
        if (secondCost <= maxSummary) return splitPlan(context, from, to, settings, second.parts, 'fewest-tokens')
        if (secondCost < cheapestCost) {
          cheapest = second.parts
          cheapestCost = secondCost
        }
      }
    }
  }
  const units: OffendingUnit[] = [...cheapest]
    .sort((a, b) => b.floor - a.floor || a.range[0] - b.range[0])
    .slice(0, 3)
    .map((part) => ({ kind: 'part', range: part.range, floor: part.floor, items: largestItems(part.items) }))
  if (!withOptions) return refusal(context, from, to, settings, 'budget-exceeded', units, [])
  const options: RefusalOption[] = [{ kind: 'raise-budget', budget: cheapestCost }]
  const raised = smallestWorkingSlot(context, from, to, settings, settings.slot, whole.total)
  if (raised !== undefined) options.push({ kind: 'raise-slot', slot: raised })
  // The run of blocks where compaction frees the most (tokens minus floor: old tool outputs, long narrative).
  let bestGain = 0
  let bestRange: [number, number] | undefined
  let runStart = 0
  let runGain = 0
  for (let b = 0; b + 1 < bounds.length; b++) {
    const gain = tokensOf(context, bounds[b]!, bounds[b + 1]!) - estimateRange(context, bounds[b]!, bounds[b + 1]!).total
    if (runGain <= 0) {
      runStart = b
      runGain = 0
    }
    runGain += gain
    if (runGain > bestGain) {
      bestGain = runGain
      bestRange = [runStart, b + 1]
    }
  }
  if (bestRange && !(bestRange[0] === 0 && bestRange[1] === bounds.length - 1)) {
    const option = rangeOption(context, bounds[bestRange[0]]!, bounds[bestRange[1]]!, settings, 'the messages whose tokens most exceed their floor')
    if (option) options.push(option)
  }
  options.push(acceptRisk(whole, settings))
  return refusal(context, from, to, settings, 'budget-exceeded', units, options)
}

function guardOf(options: PlanOptions): GuardMode {
  if (options.retrievable) return 'retrievable'
  if (options.deadRegion) return 'dead-region'
  if (options.narrativeOnly) return 'narrative-only'
  if (options.unconstrained) return 'unconstrained'
  return 'on'
}

/**
 * Decides compact / split / refuse for a segment before any summarizer runs (the record's Decision Boundary).
 *
 * Meanings: `floor` = `estimator.estimate(messages).total` = irreducible + margin (the estimator's margin, by
 * default ceil(irreducible × 0.2)); segment `tokens` = the sum over messages of `tokenizer.count(renderMessage(m).text)`;
 * the floor of a range prices each distinct item text once.
 *
 * - **compact** when `slot >= floor.total`, into `min(slot, budget)` tokens (a summary never costs more than the
 *   messages it replaces; `requestedSlot` then keeps the configured slot), or **refuse** with `no-gain` when the
 *   floor itself exceeds the budget.
 * - **split** otherwise, when the segment can be cut between units into parts whose floors each fit the slot and
 *   whose part slots (`min(slot, floor rounded up to slotRounding)`) add up to at most the budget (default:
 *   `tokens - 1`, the compaction must free tokens). Among such partitions: fewest parts, then fewest summary
 *   tokens, then fewest cuts off user turns, then the earliest cuts (compared from the last cut back). The search
 *   is exact (checked against brute force) and runs in O(n·k) for n messages and parts of up to k units, or
 *   O(n·v) when part slots take v distinct values, whichever is cheaper. Reported part floors come from
 *   `estimator.estimate` on each part.
 * - **refuse** when a unit alone exceeds the slot (`unit-exceeds-slot`; `would-cut-unit` when its messages would
 *   fit separately), when no partition fits the budget (`budget-exceeded`), or when the segment's own boundary cuts
 *   a unit (`range-cuts-unit`). The refusal lists the units with their largest items and options with numbers; a `raise-slot` option names a slot
 *   N that plans while N - 1 refuses.
 *
 * Causal units: tool pairs (always), `linkers` (default: error → fix, see `createErrorFixLinker`), changed
 * decisions (`linkSuperseded`, within `supersededWindow`), and the caller's `units`. Changed decisions are marked
 * on every plan (`state`, and `status`/`key` on items). The record's conditions of validity (`retrievable`,
 * `deadRegion`, `narrativeOnly`, `unconstrained`) turn the floor off. Pure: no I/O; misuse throws.
 */
export function planCompaction(segment: PlanSegment, options: PlanOptions): CompactionPlan {
  if (segment === null || typeof segment !== 'object') fail('segment: expected { messages, estimator, tokenizer }')
  const place = { caller: 'planCompaction', path: 'segment.messages' }
  validateMessages(segment.messages, place)
  const offset = segment.offset ?? 0
  if (segment.pairs !== undefined && Number.isInteger(offset) && offset >= 0) validatePairs(segment.pairs, segment.messages, offset, 'segment.pairs', place)
  return planValidated(segment, options)
}

/**
 * {@link planCompaction} on messages already validated: the library's own callers (check, compact, the runtime)
 * validate the whole transcript once, up front, and plan its segments through this. Internal.
 */
export function planValidated(segment: PlanSegment, options: PlanOptions): CompactionPlan {
  const settings = resolveSettings(options)
  let context = buildContext(segment, options)
  const { n } = context
  const whole = estimateRange(context, 0, n)
  context = calibrateMargin(context, whole)

  if (context.crossing.length > 0) {
    const units = context.crossing.map((unit): OffendingUnit => {
      const from = Math.max(unit.range[0] - context.offset, 0)
      const to = Math.min(unit.range[1] - context.offset, n)
      const estimate = estimateRange(context, from, to)
      return { kind: unit.kind, range: unit.range, floor: estimate.total, items: largestItems(estimate.items), ...(unit.label === undefined ? {} : { label: unit.label }) }
    })
    // The largest range inside that cuts nothing: drop what the crossing units hold at either end.
    let from = 0
    let to = n
    for (const unit of context.crossing) {
      if (unit.range[0] < context.offset) from = Math.max(from, unit.range[1] - context.offset)
      if (unit.range[1] > context.offset + n) to = Math.min(to, unit.range[0] - context.offset)
    }
    while (from < n && !context.cutAllowed[from]) from++
    while (to > 0 && !context.cutAllowed[to]) to--
    const options: RefusalOption[] = []
    const inner = from < to && (from > 0 || to < n) ? rangeOption(context, from, to, settings, 'the largest range inside that cuts no unit') : undefined
    if (inner) options.push(inner)
    options.push(acceptRisk(whole, settings))
    return refusal(context, 0, n, settings, 'range-cuts-unit', units, options)
  }

  const guard = guardOf(options)
  if (guard !== 'on') {
    const tokens = tokensOf(context, 0, n)
    const maxSummary = settings.budget ?? tokens - 1
    const wanted = guard === 'unconstrained' ? Math.max(settings.slot, whole.total) : settings.slot
    // Without a floor to keep the summary still may not cost what it replaces; unconstrained still keeps the floor.
    const needed = guard === 'unconstrained' ? whole.total : 1
    if (n > 0 && needed > maxSummary) return noGain(context, 0, n, settings, maxSummary, true)
    const slot = n > 0 ? Math.min(wanted, maxSummary) : wanted
    return {
      kind: 'compact',
      range: rangeOf(context, 0, n),
      floor: summaryOf(whole),
      slot,
      tokens,
      guard,
      items: markItems(context, whole.items),
      state: stateIn(context, 0, n),
      ...(slot < wanted ? { requestedSlot: wanted } : {}),
    }
  }
  return decide(context, 0, n, settings, true)
}

/**
 * The throwing twin of {@link planCompaction}: returns a compact or split plan, throws {@link CompactionFloorError}
 * (message: slot, floor, irreducible, margin, reason, options) when the plan is a refusal.
 */
export function planCompactionOrThrow(segment: PlanSegment, options: PlanOptions): CompactPlan | SplitPlan {
  const plan = planCompaction(segment, options)
  if (plan.kind === 'refuse') throw new CompactionFloorError(plan)
  return plan
}

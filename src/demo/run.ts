/**
 * The demo's two arms: the same session, turn by turn, through two auto-compactors (`createCompactor`).
 *
 * - naive: the fixed slot, {@link createNaiveSummarizer}, `checks: { floor: false, verify: false }` (the record's
 *   failure);
 * - floorguard: the runtime's defaults (floor check, ledger summarizer, verification).
 *
 * Each turn's messages are appended to the arm's context and `maybeCompact` runs, as an agent loop does before its
 * next model call; a compaction replaces the context with the result. Every compaction is measured the same way in
 * both arms (the region's floor and items by one estimator, the items its summaries hold verbatim), and at the fate
 * turn each planted item's fate is read from the arm's context. Pure apart from the tokenizer's rank data, which the
 * caller may pass in.
 */
import { createEstimator } from '../estimate/index.js'
import { applyLayout, createCompactor } from '../runtime/index.js'
import type { CompactorEvent, RuntimeRange } from '../runtime/index.js'
import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import { parseStateBlock } from '../state-block/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { messageTokens, renderMessage } from '../transcript/render.js'
import { createNaiveSummarizer } from './naive-summarizer.js'
import { splitSentences } from '../summarize/ledger.js'
import { generateSession, turnOf, type DemoSession, type PlantedItem, type PlantedKind } from './session.js'

/** The arms, in the order they are printed. */
export const ARM_NAMES = ['naive', 'floorguard'] as const
/** An arm's name. */
export type ArmName = (typeof ARM_NAMES)[number]

/** The record's settings, which both arms share. */
export const DEMO_SETTINGS = { budget: 128_000, highWaterMark: 0.85, compactFraction: 0.4, slot: 2_000, margin: 0.2 } as const

/** The turn at which the planted items' fates are read (the record's turn 430). */
export const DEFAULT_FATE_TURN = 430

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /**
   * The session's seed.
   * @default DEFAULT_SEED (session.ts)
   */
  readonly seed?: number
  /**
   * The session's length in turns.
   * @default 600
   */
  readonly turns?: number
  /**
   * The turn at whose end the planted items' fates are read.
   * @default 430
   */
  readonly fateTurn?: number
  /**
   * Counts every token of both arms.
   * @default createTokenizer('o200k_base')
   */
  readonly tokenizer?: TokenizerV1
  /** Receives every runtime event of both arms, with its arm and the session turn it happened at. */
  readonly onEvent?: (event: ArmRuntimeEvent) => void
  /**
   * Milliseconds since some origin, for the events' `time` (the simulation never reads it).
   * @default () => 0
   */
  readonly clock?: () => number
}

/** A runtime event as the demo logs it. */
export type ArmRuntimeEvent = CompactorEvent & { readonly arm: ArmName; readonly turn: number }

/** Where a context message came from: a session message, or a summary of session turns. */
type Origin = { readonly kind: 'message'; readonly index: number } | { readonly kind: 'summary'; readonly turns: readonly [number, number]; readonly text: string }

/** One part of a compaction: the range a summary replaced and the summary's size. */
export interface EventPart {
  /** Session turns the part covers (first, last), summaries included by the turns they covered. */
  readonly turns: readonly [number, number]
  /** Tokens of the part's summary. */
  readonly tokens: number
  /** The part's own floor by the demo's estimator (what its summary had to hold). */
  readonly floor: number
}

/** One compaction (or refusal) of one arm. */
export interface ArmEvent {
  /** The session turn after which it happened. */
  readonly turn: number
  /** Context indices of the selected region. */
  readonly range: RuntimeRange
  /** Session turns the region covers (first, last). */
  readonly turns: readonly [number, number]
  /** Earlier summaries inside the region. */
  readonly summariesInRegion: number
  /** Messages of the region the runtime kept as they were (an earlier summary that could not shrink further). */
  readonly keptInRegion: number
  /** Tokens of the region. */
  readonly regionTokens: number
  /** The region's floor by the demo's estimator (`full`, margin 0.2): irreducible + margin. */
  readonly floor: number
  /** The runtime's decision (`compact` when the floor check is off). */
  readonly decision: 'compact' | 'split' | 'refuse'
  /** The slot the whole region was asked to fit. */
  readonly slot: number
  /** One entry per summary written (none on a refusal). */
  readonly parts: readonly EventPart[]
  /** The region's distinct items by the demo's estimator (N). */
  readonly items: number
  /**
   * How many of them the region's stand-ins hold verbatim (n): its new summaries and any of its messages the runtime
   * kept (an earlier summary it could not shrink). On a refusal, all of them (the region stays raw).
   */
  readonly verbatim: number
  readonly contextTokensBefore: number
  readonly contextTokensAfter: number
}

/** What became of a planted item in an arm's context at the fate turn. */
export type Fate =
  /** still in a raw message (never compacted) */
  | 'raw'
  /** compacted, and a summary holds it verbatim (a pin: with its reverted value, which is marked current) */
  | 'kept'
  /** compacted, and no summary holds it verbatim */
  | 'lost'
  /** a pin: a summary holds the stale pin but not as superseded by its current value */
  | 'stale'

/** One arm's run. */
export interface ArmRun {
  readonly name: ArmName
  readonly events: readonly ArmEvent[]
  /** Fate of each planted item at the fate turn, in the session's planted order. */
  readonly fates: readonly Fate[]
  /**
   * For each planted item, the first sentence of the prose that told of it, when a summary at the fate turn holds that
   * sentence (what a narrative summary keeps instead of the item); else undefined.
   */
  readonly echoes: readonly (string | undefined)[]
  /** The arm's context at the end of the fate turn (what the agent would see at that turn). */
  readonly contextAtFate: readonly Message[]
  /** Tokens of the context at the end of the session. */
  readonly finalContextTokens: number
  /** Largest context at the end of any turn (after compaction). */
  readonly peakContextTokens: number
}

/** The demo's result. */
export interface DemoResult {
  readonly session: DemoSession
  readonly fateTurn: number
  readonly tokenizer: string
  /** Tokens of the whole session, uncompacted. */
  readonly sessionTokens: number
  readonly arms: { readonly naive: ArmRun; readonly floorguard: ArmRun }
}

/** runDemo(options) = the session through both arms, with every compaction measured and the fates at the fate turn. */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const session = generateSession({ ...(options.seed === undefined ? {} : { seed: options.seed }), ...(options.turns === undefined ? {} : { turns: options.turns }) })
  // A session shorter than the fate turn is read at its end.
  const fateTurn = Math.min(options.fateTurn ?? DEFAULT_FATE_TURN, session.turnStarts.length)
  const tokenizer = options.tokenizer ?? (await createTokenizer('o200k_base'))
  // Measurements use estimators of their own, fresh for each estimate: what the demo measures never depends on what it
  // measured before, and never shares a cache with the arms' runtimes (each of which creates its own).
  const estimator = (): FloorEstimatorV1 => createEstimator({ name: 'full', tokenizer, marginRatio: DEMO_SETTINGS.margin })
  let sessionTokens = 0
  for (const message of session.messages) sessionTokens += messageTokens(message, tokenizer)
  const run = (name: ArmName): Promise<ArmRun> => runArm({ name, session, fateTurn, tokenizer, estimator, options })
  const naive = await run('naive')
  const floorguard = await run('floorguard')
  return { session, fateTurn, tokenizer: tokenizer.name, sessionTokens, arms: { naive, floorguard } }
}

interface ArmContext {
  readonly name: ArmName
  readonly session: DemoSession
  readonly fateTurn: number
  readonly tokenizer: TokenizerV1
  /** A fresh measuring estimator. */
  readonly estimator: () => FloorEstimatorV1
  readonly options: DemoOptions
}

async function runArm({ name, session, fateTurn, tokenizer, estimator, options }: ArmContext): Promise<ArmRun> {
  let turn = 0
  const compactor = createCompactor({
    ...DEMO_SETTINGS,
    tokenizer,
    estimator: 'full',
    clock: options.clock ?? (() => 0),
    ...(name === 'naive' ? { summarizer: createNaiveSummarizer(), checks: { floor: false, verify: false } } : {}),
    ...(options.onEvent ? { onEvent: (event: CompactorEvent) => options.onEvent!({ ...event, arm: name, turn }) } : {}),
  })
  let context: Message[] = [session.messages[0]!]
  let origins: Origin[] = [{ kind: 'message', index: 0 }]
  const events: ArmEvent[] = []
  let contextAtFate: readonly Message[] = []
  let peak = 0
  let tokens = messageTokens(context[0]!, tokenizer)
  const starts = session.turnStarts
  for (turn = 1; turn <= starts.length; turn++) {
    const end = turn < starts.length ? starts[turn]! : session.messages.length
    for (let index = starts[turn - 1]!; index < end; index++) {
      context.push(session.messages[index]!)
      origins.push({ kind: 'message', index })
    }
    for (let index = starts[turn - 1]!; index < end; index++) tokens += messageTokens(session.messages[index]!, tokenizer)
    const result = await compactor.maybeCompact(context)
    const start = result.events.find((event) => event.type === 'compaction-start')
    if (start) {
      const regionMessages = context.slice(start.range[0], start.range[1])
      const regionOrigins = origins.slice(start.range[0], start.range[1])
      const nextOrigins = applyLayout(origins, result.layout, (text, range): Origin => ({ kind: 'summary', turns: turnsOf(session, origins.slice(range[0], range[1])), text }))
      const summaries = result.layout.flatMap((entry) => (entry.kind === 'summary' ? [entry] : []))
      // What stands for the region afterwards: its new summaries and the messages of it the runtime kept as they were
      // (an earlier summary that could not shrink further).
      const [from, to] = start.range
      const standIns = result.layout.flatMap((entry) =>
        entry.kind === 'summary' ? [entry.text] : entry.kind === 'kept' && entry.index >= from && entry.index < to ? [renderMessage(context[entry.index]!).text] : [],
      )
      events.push(measure({ session, turn, result, start, context, regionMessages, regionOrigins, summaries, standIns, estimator, tokenizer, origins }))
      context = [...result.messages]
      origins = nextOrigins
      tokens = 0
      for (const message of context) tokens += messageTokens(message, tokenizer)
    }
    peak = Math.max(peak, tokens)
    if (turn === fateTurn) contextAtFate = context.slice()
  }
  const fates = session.planted.map((item) => fateOf(item, contextAtFate, session))
  const echoes = session.planted.map((item) => echoOf(item, contextAtFate, session))
  return { name, events, fates, echoes, contextAtFate, finalContextTokens: tokens, peakContextTokens: peak }
}

interface Measure {
  readonly session: DemoSession
  readonly turn: number
  readonly result: Awaited<ReturnType<ReturnType<typeof createCompactor>['maybeCompact']>>
  readonly start: Extract<CompactorEvent, { type: 'compaction-start' }>
  /** The context the call was given (the indices of `start` and of the summaries' ranges refer to it). */
  readonly context: readonly Message[]
  readonly regionMessages: readonly Message[]
  readonly regionOrigins: readonly Origin[]
  readonly summaries: ReadonlyArray<{ readonly range: RuntimeRange; readonly text: string }>
  readonly standIns: readonly string[]
  /** A fresh measuring estimator per estimate. */
  readonly estimator: () => FloorEstimatorV1
  readonly tokenizer: TokenizerV1
  readonly origins: readonly Origin[]
}

function measure({ session, turn, result, start, context, regionMessages, regionOrigins, summaries, standIns, estimator, tokenizer, origins }: Measure): ArmEvent {
  const estimate = estimator().estimate(regionMessages, start.range[0])
  const plan = result.events.find((event) => event.type === 'plan-end')
  const end = result.events.find((event) => event.type === 'compaction-end')
  const verbatim = summaries.length === 0 ? estimate.items.length : countVerbatim(estimate.items, standIns)
  let regionTokens = 0
  for (const message of regionMessages) regionTokens += messageTokens(message, tokenizer)
  return {
    turn,
    range: start.range,
    turns: turnsOf(session, regionOrigins),
    summariesInRegion: regionOrigins.filter((origin) => origin.kind === 'summary').length,
    keptInRegion: summaries.length === 0 ? 0 : standIns.length - summaries.length,
    regionTokens,
    floor: estimate.total,
    decision: plan?.decision ?? (result.kind === 'refused' ? 'refuse' : 'compact'),
    slot: plan?.slot ?? DEMO_SETTINGS.slot,
    parts: summaries.map((summary) => ({
      turns: turnsOf(session, origins.slice(summary.range[0], summary.range[1])),
      tokens: tokenizer.count(summary.text),
      floor: estimator().estimate(context.slice(summary.range[0], summary.range[1]), summary.range[0]).total,
    })),
    items: estimate.items.length,
    verbatim,
    contextTokensBefore: start.contextTokens,
    contextTokensAfter: end?.contextTokensAfter ?? start.contextTokens,
  }
}

function countVerbatim(items: readonly FloorItem[], texts: readonly string[]): number {
  let kept = 0
  for (const item of items) if (texts.some((text) => text.includes(item.text))) kept++
  return kept
}

/** The first and last session turn a run of context messages covers. */
function turnsOf(session: DemoSession, origins: readonly Origin[]): readonly [number, number] {
  let first = Number.POSITIVE_INFINITY
  let last = 0
  for (const origin of origins) {
    const [a, b] = origin.kind === 'summary' ? origin.turns : [turnOf(session, origin.index), turnOf(session, origin.index)]
    first = Math.min(first, a)
    last = Math.max(last, b)
  }
  return [first === Number.POSITIVE_INFINITY ? 0 : first, last]
}

/** The fate of a planted item in `context` (see {@link Fate}). */
export function fateOf(item: PlantedItem, context: readonly Message[], session: DemoSession): Fate {
  const source = session.messages[item.message]
  if (source && context.includes(source)) return 'raw'
  const summaries = context.flatMap((message) => message.parts.flatMap((part) => (part.type === 'summary' ? [part.text] : [])))
  const held = summaries.some((text) => text.includes(item.text))
  if (item.kind !== 'version-pin' || !item.current) return held ? 'kept' : 'lost'
  if (!held) return 'lost'
  return pinIsSuperseded(summaries, item.text, item.current.text) ? 'kept' : 'stale'
}

/** The first sentence of the prose that told of `item`, when a summary in `context` holds it. */
function echoOf(item: PlantedItem, context: readonly Message[], session: DemoSession): string | undefined {
  const prose = session.messages[item.narration]?.parts.find((part) => part.type === 'text')
  const sentence = prose?.type === 'text' ? splitSentences(prose.text)[0] : undefined
  if (!sentence) return undefined
  const held = context.some((message) => message.parts.some((part) => part.type === 'summary' && part.text.includes(sentence)))
  return held ? sentence : undefined
}

/**
 * Whether the summaries present `pin` as replaced by `current`: in a state block, `current` is an entry marked current
 * and no entry that is exactly the pin is marked current; in prose, `current` is mentioned after the pin's last
 * mention.
 */
function pinIsSuperseded(summaries: readonly string[], pin: string, current: string): boolean {
  const entries = summaries.flatMap((text) => parseStateBlock(text)?.entries ?? [])
  if (entries.length > 0) {
    const bare = (text: string): string => text.replace(/^`|`$/g, '')
    const currentMarked = entries.some((entry) => entry.status === 'current' && entry.text.includes(current))
    const pinCurrent = entries.some((entry) => entry.status === 'current' && bare(entry.text) === pin)
    return currentMarked && !pinCurrent
  }
  const joined = summaries.join('\n')
  return joined.lastIndexOf(current) > joined.lastIndexOf(pin)
}

/** The planted kinds' labels as the record names them. */
export const PLANTED_LABELS: Readonly<Record<PlantedKind, string>> = {
  constraint: '(a) constraint, exact regex',
  error: '(b) tool error, errno + path',
  'version-pin': '(c) version pin, reverted',
}

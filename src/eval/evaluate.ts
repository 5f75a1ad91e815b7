/**
 * The eval of one transcript: its cuts, every arm on each cut, and each cut's numbers. Pure apart from the
 * summarizer's own timers: transcripts, tokenizer and estimator come in, numbers come out.
 */
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Transcript } from '../spec/transcript.js'
import { messageTokens, renderSegment } from '../transcript/render.js'
import { type ArmName, type ArmSummary, dropArm, floorguardArm, maskArm, naiveArm, vendorArm } from './arms.js'
import { type Cut, realCuts, syntheticCuts } from './cuts.js'
import { goldItems, goldItemsOfText } from './gold/index.js'
import {
  containmentMatch, distinctGold, futureReferenced, invented, keptItems, referenceText, renderPlain, withoutMarkup, type DistinctGold,
} from './metrics.js'
import type { PlantedItem } from './scenarios.js'

/** Where an input comes from. */
export type InputSet = 'generator' | 'fixtures' | 'corpus'

/** One transcript to evaluate. */
export interface EvalInput {
  /** A name for tables (a file path relative to its folder, or a scenario name). */
  readonly name: string
  readonly set: InputSet
  readonly transcript: Transcript
  /** Generator sessions: what was planted. */
  readonly planted?: readonly PlantedItem[]
  /** Generator sessions without planted state. */
  readonly narrativeOnly?: boolean
}

/** Options of {@link evaluateInput}; the defaults are the record's settings. */
export interface EvaluateOptions {
  readonly tokenizer: TokenizerV1
  /** The estimator B3 plans with and whose precision/recall is measured (`full`). */
  readonly estimator: FloorEstimatorV1
  /**
   * Summary slot of synthetic cuts (B2 and B3).
   * @default 2000
   */
  readonly slot?: number
  /**
   * Context budget of synthetic cuts.
   * @default 128000
   */
  readonly budget?: number
  /** @default 0.85 */
  readonly highWaterMark?: number
  /** @default 0.4 */
  readonly compactFraction?: number
}

/** One arm's numbers on one cut. */
export interface ArmCutResult {
  readonly tokens: number
  /** Segment tokens / summary tokens; null for an empty summary. */
  readonly compression: number | null
  readonly outcome: ArmSummary['outcome']
  readonly parts: number
  readonly refusal?: string
  /** B3: the segment's floor as the planner computed it. */
  readonly floor?: number
  /** Distinct gold texts of the segment kept verbatim (all, and those occurring outside tool output). */
  readonly kept: number
  readonly keptOutside: number
  /** Future-referenced gold texts kept verbatim. */
  readonly futureKept: number
  /** Distinct identifier texts of the summary found nowhere in the segment. */
  readonly invented: number
  /** Generator cuts: planted texts of the segment kept verbatim. */
  readonly plantedKept?: number
}

/** Counts of (kind, source) pairs. */
export type Tally = Record<string, number>

/** One cut's numbers. Counts only: no text of the transcript. */
export interface CutResult {
  readonly input: string
  readonly set: InputSet
  readonly kind: Cut['kind']
  readonly start: number
  readonly end: number
  readonly at: number
  readonly futureEnd: number
  readonly narrativeOnly: boolean
  readonly segmentTokens: number
  /** Distinct gold texts of the segment, and those occurring outside tool output. */
  readonly gold: number
  readonly goldOutside: number
  /** Distinct gold texts of the segment used again in `[at, futureEnd)`. */
  readonly future: number
  /** Future-referenced gold by kind and by source (of its first occurrence in the segment). */
  readonly futureByKind: Tally
  readonly futureBySource: Tally
  /** Future-referenced gold texts B3 lost, by kind, by source, and by `kind/source`. */
  readonly missesByKind: Tally
  readonly missesBySource: Tally
  readonly missesByKindSource: Tally
  readonly arms: Partial<Record<ArmName, ArmCutResult>>
  /** `full` against gold on the segment: distinct texts, matched when one contains the other. */
  readonly estimator: {
    readonly full: number
    readonly fullMatched: number
    readonly gold: number
    readonly goldMatched: number
    /** Gold texts with an occurrence outside tool output (what `full` reads as state; see ARCHITECTURE.md), and matched. */
    readonly goldOutside: number
    readonly goldOutsideMatched: number
    /** Per `full` kind: [items, matched]. */
    readonly fullByKind: Record<string, [number, number]>
    /** Per gold kind: [items, matched]. */
    readonly goldByKind: Record<string, [number, number]>
  }
  /** Generator cuts: planted texts of the segment, by kind: [planted, found by full, found by gold, kept by B3]. */
  readonly planted?: Record<string, [number, number, number, number]>
}

/** A future-referenced gold text B3 lost (kept in memory for `--show-misses`, never written to results). */
export interface Miss {
  readonly input: string
  readonly cut: string
  readonly kind: string
  readonly source: string
  readonly text: string
}

/** cutsOf(transcript) = its real compaction points and its synthetic cuts at the record's settings. */
export function cutsOf(transcript: Transcript, options: EvaluateOptions): Cut[] {
  const tokens = transcript.messages.map((message) => messageTokens(message, options.tokenizer))
  return [
    ...realCuts(transcript.messages),
    ...syntheticCuts(transcript.messages, {
      tokens,
      pairs: transcript.pairs,
      slot: options.slot ?? 2000,
      budget: options.budget ?? 128_000,
      highWaterMark: options.highWaterMark ?? 0.85,
      compactFraction: options.compactFraction ?? 0.4,
    }),
  ]
}

/** evaluateInput(input) = every cut of the transcript with every arm's numbers, and B3's lost future references. */
export async function evaluateInput(input: EvalInput, options: EvaluateOptions): Promise<{ cuts: CutResult[]; misses: Miss[] }> {
  const cuts: CutResult[] = []
  const misses: Miss[] = []
  for (const cut of cutsOf(input.transcript, options)) {
    const result = await evaluateCut(input, cut, options)
    cuts.push(result.cut)
    misses.push(...result.misses)
  }
  return { cuts, misses }
}

async function evaluateCut(input: EvalInput, cut: Cut, options: EvaluateOptions): Promise<{ cut: CutResult; misses: Miss[] }> {
  const { tokenizer, estimator } = options
  const messages = input.transcript.messages
  const segment = messages.slice(cut.start, cut.end)
  let segmentTokens = 0
  for (const message of segment) segmentTokens += messageTokens(message, tokenizer)

  const gold = distinctGold(goldItems(segment, cut.start))
  const outside = gold.filter((item) => item.outsideToolOutput)
  const future = futureReferenced(gold, referenceText(messages.slice(cut.at, cut.futureEnd)))
  // Invented identifiers are looked for in both renderings (tool calls as JSON and with raw arguments).
  const segmentText = `${renderPlain(segment)}\u0000${renderSegment(segment).text}`
  const planted = (input.planted ?? []).filter((item) => item.message >= cut.start && item.message < cut.end)

  const summaries: Partial<Record<ArmName, ArmSummary>> = {}
  summaries.B0 = dropArm()
  summaries.B1 = maskArm(segment, tokenizer)
  const vendorTokens = cut.vendor ? tokenizer.count(cut.vendor.text) : undefined
  const slot = vendorTokens ?? options.slot ?? 2000
  summaries.B2 = naiveArm(segment, tokenizer, slot)
  summaries.B3 = await floorguardArm(input.transcript, cut.start, cut.end, {
    estimator,
    tokenizer,
    slot,
    // Real cuts: the vendor's slot, and at most twice the vendor's tokens in all (the bound, enforced by the planner).
    ...(vendorTokens === undefined ? {} : { budget: 2 * vendorTokens }),
    segmentTokens,
  })
  if (cut.vendor) summaries.vendor = vendorArm(cut.vendor.text, tokenizer)

  const arms: Partial<Record<ArmName, ArmCutResult>> = {}
  for (const [name, summary] of Object.entries(summaries) as Array<[ArmName, ArmSummary]>) {
    arms[name] = {
      tokens: summary.tokens,
      compression: summary.tokens === 0 ? null : segmentTokens / summary.tokens,
      outcome: summary.outcome,
      parts: summary.parts,
      ...(summary.refusal === undefined ? {} : { refusal: summary.refusal }),
      ...(summary.floor === undefined ? {} : { floor: summary.floor }),
      kept: keptItems(gold, summary.text).length,
      keptOutside: keptItems(outside, summary.text).length,
      futureKept: keptItems(future, summary.text).length,
      invented: summary.text === '' ? 0 : invented(goldItemsOfText(withoutMarkup(summary.text), 'summary'), segmentText).length,
      ...(input.planted ? { plantedKept: keptItems(planted, summary.text).length } : {}),
    }
  }

  const b3 = summaries.B3!.text
  const lost = future.filter((item) => !b3.includes(item.text))
  const name = `${input.name}#${cut.kind}:${cut.start}-${cut.end}`
  const result: CutResult = {
    input: input.name,
    set: input.set,
    kind: cut.kind,
    start: cut.start,
    end: cut.end,
    at: cut.at,
    futureEnd: cut.futureEnd,
    narrativeOnly: input.narrativeOnly ?? false,
    segmentTokens,
    gold: gold.length,
    goldOutside: outside.length,
    future: future.length,
    futureByKind: tally(future, (item) => item.kind),
    futureBySource: tally(future, (item) => item.source),
    missesByKind: tally(lost, (item) => item.kind),
    missesBySource: tally(lost, (item) => item.source),
    missesByKindSource: tally(lost, (item) => `${item.kind}/${item.source}`),
    arms,
    estimator: estimatorMatch(estimator, segment, cut.start, gold),
    ...(input.planted ? { planted: plantedTally(planted, estimator, segment, cut.start, gold, b3) } : {}),
  }
  return { cut: result, misses: lost.map((item) => ({ input: input.name, cut: name, kind: item.kind, source: item.source, text: item.text })) }
}

function tally<T>(items: readonly T[], key: (item: T) => string): Tally {
  const out: Tally = {}
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1
  return out
}

function estimatorMatch(estimator: FloorEstimatorV1, segment: Transcript['messages'], offset: number, gold: readonly DistinctGold[]): CutResult['estimator'] {
  const fullItems = distinctByText(estimator.estimate(segment, offset).items)
  const match = containmentMatch(
    fullItems.map((item) => item.text),
    gold.map((item) => item.text),
  )
  const fullByKind: Record<string, [number, number]> = {}
  fullItems.forEach((item, index) => {
    const entry = (fullByKind[item.kind] ??= [0, 0])
    entry[0]++
    if (match.a[index]) entry[1]++
  })
  const goldByKind: Record<string, [number, number]> = {}
  gold.forEach((item, index) => {
    const entry = (goldByKind[item.kind] ??= [0, 0])
    entry[0]++
    if (match.b[index]) entry[1]++
  })
  return {
    full: fullItems.length,
    fullMatched: match.a.filter(Boolean).length,
    gold: gold.length,
    goldMatched: match.b.filter(Boolean).length,
    goldOutside: gold.filter((item) => item.outsideToolOutput).length,
    goldOutsideMatched: gold.filter((item, index) => item.outsideToolOutput && match.b[index]).length,
    fullByKind,
    goldByKind,
  }
}

function distinctByText<T extends { readonly text: string }>(items: readonly T[]): T[] {
  const seen = new Set<string>()
  return items.filter((item) => !seen.has(item.text) && (seen.add(item.text), true))
}

function plantedTally(
  planted: readonly PlantedItem[],
  estimator: FloorEstimatorV1,
  segment: Transcript['messages'],
  offset: number,
  gold: readonly DistinctGold[],
  b3: string,
): Record<string, [number, number, number, number]> {
  const fullTexts = distinctByText(estimator.estimate(segment, offset).items).map((item) => item.text)
  const goldTexts = gold.map((item) => item.text)
  const out: Record<string, [number, number, number, number]> = {}
  for (const item of planted) {
    const entry = (out[item.kind] ??= [0, 0, 0, 0])
    entry[0]++
    if (fullTexts.some((text) => text.includes(item.text))) entry[1]++
    if (goldTexts.some((text) => text.includes(item.text))) entry[2]++
    if (b3.includes(item.text)) entry[3]++
  }
  return out
}

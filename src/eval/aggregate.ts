/**
 * Aggregates the eval's cuts: per group of cuts (`real:corpus`, `synthetic:generator`, …) and arm, the shares,
 * tokens and rates over cuts with their medians, p95 and bootstrap intervals; `full` against gold; B3's losses.
 */
import { ARMS, type ArmName } from './arms.js'
import type { ArmCutResult, CutResult, Tally } from './evaluate.js'
import { aggregate, share, type Aggregate } from './metrics.js'

/** One arm over a group of cuts. */
export interface ArmAggregate {
  readonly cuts: number
  readonly refused: number
  /** Refusals by code (`plan`, `summarizer`, `no-gain`, …). */
  readonly refusalsByCode: Tally
  readonly split: number
  /** refused / cuts, split / cuts. */
  readonly refusalRate: number | null
  readonly splitRate: number | null
  /** Per-cut share of the segment's distinct gold texts kept verbatim. */
  readonly goldKept: Aggregate
  /** The same for gold texts that occur outside tool output. */
  readonly goldKeptOutside: Aggregate
  /** Per-cut future-reference recall (cuts with at least one future-referenced item). */
  readonly futureRecall: Aggregate
  /** Σ kept / Σ future-referenced over the group. */
  readonly futurePooled: { readonly kept: number; readonly total: number; readonly share: number | null }
  /** B3 over the cuts it did not refuse (a refusal keeps everything raw, so it must not count as a win). */
  readonly accepted?: {
    readonly cuts: number
    readonly goldKept: Aggregate
    readonly goldKeptOutside: Aggregate
    readonly futureRecall: Aggregate
    readonly futurePooled: { readonly kept: number; readonly total: number; readonly share: number | null }
    readonly tokens: Aggregate
    readonly compression: Aggregate
  }
  readonly tokens: Aggregate
  readonly compression: Aggregate
  /** Invented identifiers: the total, and per cut. */
  readonly invented: { readonly total: number; readonly perCut: Aggregate }
  /** Generator cuts: Σ planted kept / Σ planted. */
  readonly planted?: { readonly kept: number; readonly total: number; readonly share: number | null }
  /** Real cuts: per-cut arm tokens / vendor tokens. */
  readonly tokensVsVendor?: Aggregate
}

/** `full` against gold over a group of cuts (pooled counts). */
export interface EstimatorAggregate {
  readonly cuts: number
  readonly full: number
  readonly fullMatched: number
  readonly precision: number | null
  readonly gold: number
  readonly goldMatched: number
  readonly recall: number | null
  /** Recall of the gold texts with an occurrence outside tool output (pooled). */
  readonly recallOutsideToolOutput: number | null
  /** Per `full` kind: items, matched, precision. */
  readonly precisionByKind: Record<string, { readonly items: number; readonly matched: number; readonly precision: number | null }>
  /** Per gold kind: items, matched, recall. */
  readonly recallByKind: Record<string, { readonly items: number; readonly matched: number; readonly recall: number | null }>
}

/** B3's lost future references over a group: counts by kind, by source and by `kind/source`. */
export interface MissAggregate {
  readonly future: number
  readonly lost: number
  readonly byKind: Tally
  readonly bySource: Tally
  readonly byKindSource: Tally
  readonly futureByKind: Tally
  readonly futureBySource: Tally
}

/** groupOf(cut) = `kind:set`, e.g. `real:corpus`, `synthetic:generator`. */
export function groupOf(cut: CutResult): string {
  return `${cut.kind}:${cut.set}`
}

/** The groups present, in table order. */
export function groupsOf(cuts: readonly CutResult[]): string[] {
  const order = ['real:corpus', 'real:fixtures', 'real:generator', 'synthetic:corpus', 'synthetic:generator', 'synthetic:fixtures']
  const present = new Set(cuts.map(groupOf))
  return order.filter((group) => present.has(group))
}

/** aggregateArms(cuts) = per group, per arm that ran on its cuts, an {@link ArmAggregate}. */
export function aggregateArms(cuts: readonly CutResult[], seed: number): Record<string, Partial<Record<ArmName, ArmAggregate>>> {
  const out: Record<string, Partial<Record<ArmName, ArmAggregate>>> = {}
  for (const group of groupsOf(cuts)) {
    const inGroup = cuts.filter((cut) => groupOf(cut) === group)
    const arms: Partial<Record<ArmName, ArmAggregate>> = {}
    for (const arm of ARMS) {
      const ran = inGroup.filter((cut) => cut.arms[arm] !== undefined)
      if (ran.length > 0) arms[arm] = aggregateArm(ran, arm, seed)
    }
    out[group] = arms
  }
  return out
}

/** aggregateArm(cuts, arm) = the arm's numbers over cuts it ran on. */
export function aggregateArm(cuts: readonly CutResult[], arm: ArmName, seed: number): ArmAggregate {
  const options = { seed }
  const results = cuts.map((cut) => ({ cut, arm: cut.arms[arm]! }))
  const refused = results.filter(({ arm: result }) => result.outcome === 'refused').length
  const split = results.filter(({ arm: result }) => result.outcome === 'split').length
  const withFuture = results.filter(({ cut }) => cut.future > 0)
  let kept = 0
  let total = 0
  for (const { cut, arm: result } of withFuture) {
    kept += result.futureKept
    total += cut.future
  }
  let plantedKept = 0
  let plantedTotal = 0
  for (const { cut, arm: result } of results) {
    if (result.plantedKept === undefined || !cut.planted) continue
    plantedKept += result.plantedKept
    for (const entry of Object.values(cut.planted)) plantedTotal += entry[0]
  }
  const hasPlanted = results.some(({ arm: result }) => result.plantedKept !== undefined)
  const hasVendor = results.some(({ cut }) => cut.arms.vendor !== undefined)
  return {
    cuts: results.length,
    refused,
    refusalsByCode: Object.fromEntries(
      [...new Set(results.flatMap(({ arm: result }) => (result.outcome === 'refused' ? [result.refusal ?? 'unknown'] : [])))]
        .sort()
        .map((code) => [code, results.filter(({ arm: result }) => result.outcome === 'refused' && (result.refusal ?? 'unknown') === code).length]),
    ),
    split,
    refusalRate: share(refused, results.length),
    splitRate: share(split, results.length),
    goldKept: aggregate(results.map(({ cut, arm: result }) => share(result.kept, cut.gold)), options),
    goldKeptOutside: aggregate(results.map(({ cut, arm: result }) => share(result.keptOutside, cut.goldOutside)), options),
    futureRecall: aggregate(withFuture.map(({ cut, arm: result }) => share(result.futureKept, cut.future)), options),
    futurePooled: { kept, total, share: share(kept, total) },
    ...(arm === 'B3' ? { accepted: acceptedOnly(results.filter(({ arm: result }) => result.outcome !== 'refused'), seed) } : {}),
    tokens: aggregate(results.map(({ arm: result }) => result.tokens), options),
    compression: aggregate(results.map(({ arm: result }) => result.compression), options),
    invented: {
      total: results.reduce((sum, { arm: result }) => sum + result.invented, 0),
      perCut: aggregate(results.map(({ arm: result }) => result.invented), options),
    },
    ...(hasPlanted ? { planted: { kept: plantedKept, total: plantedTotal, share: share(plantedKept, plantedTotal) } } : {}),
    ...(hasVendor
      ? { tokensVsVendor: aggregate(results.map(({ cut, arm: result }) => (cut.arms.vendor ? share(result.tokens, cut.arms.vendor.tokens) : null)), options) }
      : {}),
  }
}

function acceptedOnly(results: ReadonlyArray<{ cut: CutResult; arm: ArmCutResult }>, seed: number): NonNullable<ArmAggregate['accepted']> {
  const options = { seed }
  const withFuture = results.filter(({ cut }) => cut.future > 0)
  let kept = 0
  let total = 0
  for (const { cut, arm } of withFuture) {
    kept += arm.futureKept
    total += cut.future
  }
  return {
    cuts: results.length,
    goldKept: aggregate(results.map(({ cut, arm }) => share(arm.kept, cut.gold)), options),
    goldKeptOutside: aggregate(results.map(({ cut, arm }) => share(arm.keptOutside, cut.goldOutside)), options),
    futureRecall: aggregate(withFuture.map(({ cut, arm }) => share(arm.futureKept, cut.future)), options),
    futurePooled: { kept, total, share: share(kept, total) },
    tokens: aggregate(results.map(({ arm }) => arm.tokens), options),
    compression: aggregate(results.map(({ arm }) => arm.compression), options),
  }
}

/** aggregateEstimator(cuts) = per group, `full` against gold with pooled counts. */
export function aggregateEstimator(cuts: readonly CutResult[]): Record<string, EstimatorAggregate> {
  const out: Record<string, EstimatorAggregate> = {}
  for (const group of groupsOf(cuts)) {
    const inGroup = cuts.filter((cut) => groupOf(cut) === group)
    let full = 0
    let fullMatched = 0
    let gold = 0
    let goldMatched = 0
    let goldOutside = 0
    let goldOutsideMatched = 0
    const fullByKind: Record<string, [number, number]> = {}
    const goldByKind: Record<string, [number, number]> = {}
    for (const cut of inGroup) {
      full += cut.estimator.full
      fullMatched += cut.estimator.fullMatched
      gold += cut.estimator.gold
      goldMatched += cut.estimator.goldMatched
      goldOutside += cut.estimator.goldOutside
      goldOutsideMatched += cut.estimator.goldOutsideMatched
      addPairs(fullByKind, cut.estimator.fullByKind)
      addPairs(goldByKind, cut.estimator.goldByKind)
    }
    out[group] = {
      cuts: inGroup.length,
      full,
      fullMatched,
      precision: share(fullMatched, full),
      gold,
      goldMatched,
      recall: share(goldMatched, gold),
      recallOutsideToolOutput: share(goldOutsideMatched, goldOutside),
      precisionByKind: Object.fromEntries(sortedEntries(fullByKind).map(([kind, [items, matched]]) => [kind, { items, matched, precision: share(matched, items) }])),
      recallByKind: Object.fromEntries(sortedEntries(goldByKind).map(([kind, [items, matched]]) => [kind, { items, matched, recall: share(matched, items) }])),
    }
  }
  return out
}

/** aggregateMisses(cuts) = per group, B3's lost future references by kind and source. */
export function aggregateMisses(cuts: readonly CutResult[]): Record<string, MissAggregate> {
  const out: Record<string, MissAggregate> = {}
  for (const group of groupsOf(cuts)) {
    const inGroup = cuts.filter((cut) => groupOf(cut) === group)
    const sum = (pick: (cut: CutResult) => Tally): Tally => {
      const total: Tally = {}
      for (const cut of inGroup) for (const [key, count] of Object.entries(pick(cut))) total[key] = (total[key] ?? 0) + count
      return Object.fromEntries(Object.entries(total).sort(([a], [b]) => a.localeCompare(b)))
    }
    const byKind = sum((cut) => cut.missesByKind)
    out[group] = {
      future: inGroup.reduce((total, cut) => total + cut.future, 0),
      lost: Object.values(byKind).reduce((total, count) => total + count, 0),
      byKind,
      bySource: sum((cut) => cut.missesBySource),
      byKindSource: sum((cut) => cut.missesByKindSource),
      futureByKind: sum((cut) => cut.futureByKind),
      futureBySource: sum((cut) => cut.futureBySource),
    }
  }
  return out
}

/** aggregatePlanted(cuts) = per planted kind over generator cuts: planted, found by full, found by gold, kept by B3. */
export function aggregatePlanted(cuts: readonly CutResult[]): Record<string, { planted: number; full: number; gold: number; b3: number }> {
  const totals: Record<string, [number, number, number, number]> = {}
  for (const cut of cuts) {
    if (!cut.planted) continue
    for (const [kind, counts] of Object.entries(cut.planted)) {
      const entry = (totals[kind] ??= [0, 0, 0, 0])
      for (let index = 0; index < 4; index++) entry[index]! += counts[index]!
    }
  }
  return Object.fromEntries(Object.entries(totals).map(([kind, [planted, full, gold, b3]]) => [kind, { planted, full, gold, b3 }]))
}

function addPairs(into: Record<string, [number, number]>, from: Record<string, [number, number]>): void {
  for (const [kind, [items, matched]] of Object.entries(from)) {
    const entry = (into[kind] ??= [0, 0])
    entry[0] += items
    entry[1] += matched
  }
}

function sortedEntries<T>(record: Record<string, T>): Array<[string, T]> {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b))
}

/**
 * The eval's Markdown tables: data in, text out. No timing and nothing random, so a run prints the same text again.
 */
import type { ArmAggregate, EstimatorAggregate, MissAggregate } from './aggregate.js'
import { ARMS, type ArmName } from './arms.js'
import type { CutResult, Tally } from './evaluate.js'
import type { LabelledCounts, LabelledResult } from './labelled.js'
import type { Aggregate } from './metrics.js'

/** percent(0.1234) = `12.3%`; null = `—`. */
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${(100 * value).toFixed(1)}%`
}

/** number with at most `digits` decimals; null = `—`. */
export function fixed(value: number | null | undefined, digits = 0): string {
  return value === null || value === undefined ? '—' : value.toFixed(digits)
}

/** meanWithInterval(aggregate) = `62.1% [55.0–69.3]`, the mean and its bootstrap interval. */
export function meanWithInterval(aggregate: Aggregate): string {
  if (aggregate.mean === null) return '—'
  const ci = aggregate.ci ? ` [${(100 * aggregate.ci[0]).toFixed(1)}–${(100 * aggregate.ci[1]).toFixed(1)}]` : ''
  return `${percent(aggregate.mean)}${ci}`
}

/** markdownTable(header, rows) = a GitHub-flavoured Markdown table. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

const ARM_LABEL: Record<ArmName, string> = {
  B0: 'B0 drop',
  B1: 'B1 mask tool output',
  B2: 'B2 naive fixed slot',
  B3: 'B3 floorguard',
  vendor: 'vendor',
}

/** armTable(groups) = one row per group and arm: refusals, splits, survival, future recall, tokens, invented. */
export function armTable(groups: Record<string, Partial<Record<ArmName, ArmAggregate>>>, options: { planted?: boolean } = {}): string {
  const header = [
    'cuts', 'arm', 'n', 'refused', 'split', 'gold kept', 'gold kept (not tool output)', 'future-ref recall', 'min', 'pooled',
    'summary tokens median (p95)', 'compression median', 'invented ids',
    ...(options.planted ? ['planted kept'] : []),
  ]
  const rows: string[][] = []
  for (const [group, arms] of Object.entries(groups)) {
    for (const arm of ARMS) {
      const a = arms[arm]
      if (!a) continue
      rows.push([
        group, ARM_LABEL[arm], String(a.cuts), `${a.refused} (${percent(a.refusalRate)})${a.refused > 0 ? `: ${tallyLine(a.refusalsByCode)}` : ''}`, `${a.split} (${percent(a.splitRate)})`,
        meanWithInterval(a.goldKept), meanWithInterval(a.goldKeptOutside),
        `${meanWithInterval(a.futureRecall)}${a.futureRecall.n < a.cuts ? ` (n=${a.futureRecall.n})` : ''}`,
        percent(a.futureRecall.min), `${percent(a.futurePooled.share)} (${a.futurePooled.kept}/${a.futurePooled.total})`,
        `${fixed(a.tokens.median)} (${fixed(a.tokens.p95)})`, fixed(a.compression.median, 1), String(a.invented.total),
        ...(options.planted ? [a.planted ? `${percent(a.planted.share)} (${a.planted.kept}/${a.planted.total})` : '—'] : []),
      ])
      if (arm === 'B3' && a.accepted && a.refused > 0) {
        const b = a.accepted
        rows.push([
          group, 'B3, accepted cuts only', String(b.cuts), '—', '—', meanWithInterval(b.goldKept), meanWithInterval(b.goldKeptOutside),
          `${meanWithInterval(b.futureRecall)}${b.futureRecall.n < b.cuts ? ` (n=${b.futureRecall.n})` : ''}`, percent(b.futureRecall.min),
          `${percent(b.futurePooled.share)} (${b.futurePooled.kept}/${b.futurePooled.total})`, `${fixed(b.tokens.median)} (${fixed(b.tokens.p95)})`,
          fixed(b.compression.median, 1), '—', ...(options.planted ? ['—'] : []),
        ])
      }
    }
  }
  return markdownTable(header, rows)
}

/** realCutTable(cuts) = one row per real compaction point: B3 against the vendor. */
export function realCutTable(cuts: readonly CutResult[]): string {
  const header = [
    'input', 'segment', 'segment tokens', 'gold', 'future-referenced', 'B3 floor', 'B3 outcome', 'B3 recall', 'vendor recall', 'B3 tokens', 'vendor tokens',
    'B3 / vendor',
  ]
  const rows = cuts
    .filter((cut) => cut.kind === 'real')
    .map((cut) => {
      const b3 = cut.arms.B3!
      const vendor = cut.arms.vendor
      const recall = (kept: number | undefined) => (cut.future === 0 || kept === undefined ? '—' : `${percent(kept / cut.future)} (${kept}/${cut.future})`)
      return [
        cut.input, `${cut.start}–${cut.end}`, String(cut.segmentTokens), String(cut.gold), String(cut.future), fixed(b3.floor),
        `${b3.outcome}${b3.outcome === 'split' ? ` ×${b3.parts}` : ''}${b3.refusal ? ` (${b3.refusal})` : ''}`,
        recall(b3.futureKept), recall(vendor?.futureKept), String(b3.tokens), vendor ? String(vendor.tokens) : '—',
        vendor ? fixed(b3.tokens / vendor.tokens, 2) : '—',
      ]
    })
  return markdownTable(header, rows)
}

/** estimatorTable(groups) = `full` against gold per group, then per kind. */
export function estimatorTable(groups: Record<string, EstimatorAggregate>): string {
  const overall = markdownTable(
    ['cuts', 'segments', 'full items', 'precision vs gold', 'gold items', 'recall vs gold', 'recall vs gold outside tool output'],
    Object.entries(groups).map(([group, e]) => [group, String(e.cuts), String(e.full), percent(e.precision), String(e.gold), percent(e.recall), percent(e.recallOutsideToolOutput)]),
  )
  const perKindRows: string[][] = []
  for (const [group, e] of Object.entries(groups)) {
    for (const [kind, k] of Object.entries(e.precisionByKind)) perKindRows.push([group, `full: ${kind}`, String(k.items), `precision ${percent(k.precision)}`])
    for (const [kind, k] of Object.entries(e.recallByKind)) perKindRows.push([group, `gold: ${kind}`, String(k.items), `recall ${percent(k.recall)}`])
  }
  return `${overall}\n\n${markdownTable(['cuts', 'kind', 'items', 'share matched'], perKindRows)}`
}

/** Sources in the order the miss table prints them. */
const SOURCES = ['user', 'assistant', 'tool-call', 'tool-result', 'summary', 'system'] as const

/** missTable(misses) = B3's lost future references: kinds as rows, sources of the item as columns (counts only). */
export function missTable(misses: MissAggregate): string {
  const kinds = Object.keys(misses.futureByKind).sort()
  const rows = kinds.map((kind) => [
    kind,
    ...SOURCES.map((source) => cell(misses.byKindSource[`${kind}/${source}`])),
    `${misses.byKind[kind] ?? 0} of ${misses.futureByKind[kind] ?? 0}`,
  ])
  rows.push(['all', ...SOURCES.map((source) => `${misses.bySource[source] ?? 0} of ${misses.futureBySource[source] ?? 0}`), `${misses.lost} of ${misses.future}`])
  return markdownTable(['kind \\ source', ...SOURCES, 'lost of future-referenced'], rows)
}

function cell(count: number | undefined): string {
  return count === undefined || count === 0 ? '·' : String(count)
}

/** plantedTable(planted) = per planted kind: how many, and the shares full finds, gold finds and B3 keeps verbatim. */
export function plantedTable(planted: Record<string, { planted: number; full: number; gold: number; b3: number }>, order: readonly string[]): string {
  const rows = order
    .filter((kind) => planted[kind])
    .map((kind) => {
      const p = planted[kind]!
      return [kind, String(p.planted), percent(p.full / p.planted), percent(p.gold / p.planted), percent(p.b3 / p.planted)]
    })
  let total = { planted: 0, full: 0, gold: 0, b3: 0 }
  for (const p of Object.values(planted)) total = { planted: total.planted + p.planted, full: total.full + p.full, gold: total.gold + p.gold, b3: total.b3 + p.b3 }
  rows.push(['all', String(total.planted), percent(total.full / total.planted), percent(total.gold / total.planted), percent(total.b3 / total.planted)])
  return markdownTable(['planted kind', 'planted in a segment', 'found by full', 'found by gold', 'kept by B3'], rows)
}

/** tallyLine(tally) = `a 3, b 1` (for one-line summaries). */
export function tallyLine(tally: Tally): string {
  return Object.entries(tally)
    .sort(([, a], [, b]) => b - a)
    .map(([key, count]) => `${key} ${count}`)
    .join(', ')
}

/** labelledTable(sample) = precision of `full` and gold on the labelled sample, overall and per kind of each extractor. */
export function labelledTable(sample: { readonly full: LabelledResult; readonly gold: LabelledResult }): string {
  const row = (extractor: string, kind: string, counts: LabelledCounts): string[] => [
    extractor, kind, String(counts.labelled), String(counts.state), String(counts.notState), percent(counts.precision), String(counts.unlabelled),
  ]
  const rows: string[][] = []
  for (const [extractor, result] of [['full', sample.full], ['gold', sample.gold]] as const) {
    rows.push(row(extractor, 'all', result))
    for (const [kind, counts] of Object.entries(result.byKind)) rows.push(row(extractor, kind, counts))
  }
  return markdownTable(['extractor', 'kind', 'labelled', 'state', 'not state', 'precision', 'not labelled'], rows)
}

import type { CheckResult } from '../check/index.js'
import { largestItems } from '../check/index.js'
import { clip } from './_text.js'

/** Header facts a report shows besides the check result. */
export interface ReportContext {
  readonly file: string
  readonly format: string
  readonly tokenizer: string
  readonly estimator: string
  /** A line printed under the segment's (the text report only). */
  readonly note?: string
}

/** The `check --json` document (version 1). */
export function checkJson(result: CheckResult, context: ReportContext, extraDecision: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    file: context.file,
    format: context.format,
    tokenizer: context.tokenizer,
    estimator: context.estimator,
    segment: { ...result.segment, range: [...result.segment.range] },
    floor: { irreducible: result.floor.irreducible, margin: result.floor.margin, total: result.floor.total },
    slot: result.slot,
    decision: { ...result.decision, ...extraDecision },
    items: result.floor.items.map(({ kind, text, tokens, message, start, end }) => ({ kind, text, tokens, message, start, end })),
  }
}


/** Renders a check result as a readable report: segment, floor by kind, the largest items, the decision. */
export function renderCheckReport(result: CheckResult, context: ReportContext, decisionLines: readonly string[] = []): string {
  const { segment, floor } = result
  const lines: string[] = []
  lines.push(`floorguard check ${context.file}`)
  lines.push(
    `  format ${context.format} · tokenizer ${context.tokenizer} · estimator ${context.estimator}`,
    `  segment messages ${segment.range[0]}–${segment.range[1]} (${segment.messages} messages, ${segment.tokens} tokens, ${segment.toolCalls} tool calls, ${segment.toolResults} results, ${segment.unpaired} unpaired)`,
    ...(context.note ? [`  ${context.note}`] : []),
    '',
    `floor ${floor.total} tokens = irreducible ${floor.irreducible} + margin ${floor.margin}   (slot ${result.slot})`,
  )
  const byKind = new Map<string, { count: number; tokens: number }>()
  for (const item of floor.items) {
    const entry = byKind.get(item.kind) ?? { count: 0, tokens: 0 }
    entry.count++
    entry.tokens += item.tokens
    byKind.set(item.kind, entry)
  }
  const kinds = [...byKind.entries()].sort((a, b) => b[1].tokens - a[1].tokens || a[0].localeCompare(b[0]))
  if (kinds.length > 0) {
    lines.push('', 'by kind:')
    for (const [kind, entry] of kinds) lines.push(`  ${kind.padEnd(14)} ${String(entry.tokens).padStart(7)} tokens  ${String(entry.count).padStart(5)} items`)
    lines.push('', 'largest items:')
    for (const item of largestItems(floor.items, 8)) {
      lines.push(`  ${String(item.tokens).padStart(5)}  #${String(item.message).padEnd(5)} ${item.kind.padEnd(13)} ${clip(item.text, 72)}`)
    }
  } else {
    lines.push('', 'no irreducible items: the segment is narrative, a gist suffices')
  }
  lines.push('', `decision: ${result.decision.kind.toUpperCase()} — ${result.decision.message}`, ...decisionLines.map((line) => (line.trim() === '' ? '' : `  ${line}`)))
  return `${lines.join('\n')}\n`
}

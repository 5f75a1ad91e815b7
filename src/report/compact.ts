import type { CompactResult } from '../compact/compact.js'

/** Where the compaction read from and wrote to, for reports. */
export interface CompactReportContext {
  readonly file: string
  readonly format: string
  readonly summarizer: string
  /** The output path, or null when nothing was written. */
  readonly output: string | null
}

/**
 * The `--json` document: `{version: 1, kind, floor, summaries: [{range, slot, tokens, replacedTokens, text}], refusal,
 * verification}` plus `file`, `format`, `summarizer`, `range` and `output`. `verification.parts[]` carry
 * `replacedTokens`, `compression` and `warnings` for accepted summaries.
 */
export function compactJson(result: CompactResult, context: CompactReportContext): Record<string, unknown> {
  return {
    version: 1,
    kind: result.kind,
    file: context.file,
    format: context.format,
    summarizer: context.summarizer,
    range: [...result.range],
    output: context.output,
    floor: result.floor,
    summaries: result.summaries.map((summary) => ({
      range: [...summary.range],
      slot: summary.slot,
      tokens: summary.tokens,
      replacedTokens: summary.replacedTokens,
      text: summary.text,
      attempts: summary.attempts,
      repaired: summary.repaired,
    })),
    refusal: result.refusal,
    verification: result.verification,
  }
}

/** The human report: one line for the outcome, then one per summary (range, tokens/slot, attempts, invented state). */
export function renderCompactReport(result: CompactResult, context: CompactReportContext): string {
  const lines: string[] = []
  const head = `floorguard compact ${context.file} (${context.format}, messages ${result.range[0]}:${result.range[1]}, summarizer ${context.summarizer})`
  lines.push(head, `  floor ${result.floor.total} tokens = irreducible ${result.floor.irreducible} + margin ${result.floor.margin} (${result.floor.estimator}, ${result.floor.tokenizer})`)
  if (result.kind === 'refused') {
    lines.push(`refused: ${result.refusal?.reason ?? 'unknown reason'}`)
    if (result.refusal?.missing && result.refusal.missing.length > 0) {
      lines.push(`  missing verbatim: ${result.refusal.missing.slice(0, 8).map((text) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)).join(', ')}`)
    }
    lines.push('  the transcript was left as it was; nothing was written')
    return `${lines.join('\n')}\n`
  }
  lines.push(
    `${result.kind} into ${result.summaries.length} verified summar${result.summaries.length === 1 ? 'y' : 'ies'} (${result.verification.tokenizer})${context.output ? `, written to ${context.output}` : ''}`,
  )
  result.summaries.forEach((summary, index) => {
    const part = result.verification.parts[index]
    const invented = part?.attempts.at(-1)?.invented ?? []
    lines.push(
      `  messages ${summary.range[0]}:${summary.range[1]} (${summary.replacedTokens} tokens) → ${summary.tokens}/${summary.slot} tokens, ${part?.items ?? 0} items verbatim, attempt ${summary.attempts}${summary.repaired ? ' (repaired)' : ''}`,
    )
    for (const warning of part?.warnings ?? []) lines.push(`    warning: ${warning}`)
    if (invented.length > 0) lines.push(`    not in the segment (invented?): ${invented.slice(0, 8).map((span) => `${span.kind} ${JSON.stringify(span.text)}`).join(', ')}`)
  })
  return `${lines.join('\n')}\n`
}

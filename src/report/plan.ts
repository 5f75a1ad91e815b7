import { describeOption, describeRefusal } from '../plan/compaction-floor-error.js'
import type { CompactionPlan, CompactPlan, StateValue } from '../plan/types.js'
import { clip } from './_text.js'

/**
 * The decision of a plan as `check --json` reports it: `kind`, and for a split `parts: [{ range, floor, slot }]`,
 * for a refusal `reason`, `units: [{ kind, range, floor, items }]` and `options`; plus a one-line `message`.
 */
export function planDecisionJson(plan: CompactionPlan): Record<string, unknown> {
  switch (plan.kind) {
    case 'compact':
      return {
        kind: 'compact',
        guard: plan.guard,
        range: [...plan.range],
        slot: plan.slot,
        ...(plan.requestedSlot === undefined ? {} : { requestedSlot: plan.requestedSlot }),
        message: `slot ${plan.slot} >= floor ${plan.floor.total} (irreducible ${plan.floor.irreducible} + margin ${plan.floor.margin})${capNote(plan)}${plan.guard === 'on' ? '' : `; guard off: ${plan.guard}`}`,
      }
    case 'split':
      return {
        kind: 'split',
        parts: plan.parts.map((part) => ({ range: [...part.range], floor: part.floor, slot: part.slot })),
        summaryTokens: plan.summaryTokens,
        budget: plan.budget,
        frees: plan.frees,
        optimal: plan.optimal,
        message: `slot ${plan.slot} < floor ${plan.floor.total}: ${plan.parts.length} summaries of ${plan.parts.map((part) => part.slot).join(' + ')} tokens, freeing ${plan.frees}`,
      }
    case 'refuse':
      return {
        kind: 'refuse',
        reason: plan.reason,
        units: plan.units.map((unit) => ({
          kind: unit.kind,
          range: [...unit.range],
          floor: unit.floor,
          ...(unit.label === undefined ? {} : { label: unit.label }),
          items: unit.items.map(({ kind, text, tokens, message }) => ({ kind, text, tokens, message })),
        })),
        options: plan.options.map((option) => (option.kind === 'compact-range' ? { ...option, range: [...option.range] } : { ...option })),
        budget: plan.budget,
        message: describeRefusal(plan),
      }
  }
}


/** `; slot 4000 capped at 3397, the segment's tokens - 1` when the plan's slot was capped at the budget. */
function capNote(plan: CompactPlan): string {
  return plan.requestedSlot === undefined ? '' : ` (slot ${plan.requestedSlot} capped at ${plan.slot}: a summary must cost less than the ${plan.tokens} tokens it replaces)`
}

/** One line per changed key (at most 20), its first values and always its current one. */
function describeState(state: readonly StateValue[]): string[] {
  const byKey = new Map<string, StateValue[]>()
  for (const entry of state) {
    let list = byKey.get(entry.key)
    if (!list) byKey.set(entry.key, (list = []))
    list.push(entry)
  }
  const show = (entry: StateValue) => `${clip(entry.value, 30)} (#${entry.message}${entry.status === 'current' ? ', current' : ''})`
  const lines = [...byKey].slice(0, 20).map(([key, entries]) => {
    const shown = entries.length <= 6 ? entries.map(show) : [...entries.slice(0, 4).map(show), `… ${entries.length - 5} more`, show(entries.at(-1)!)]
    return `  ${key}: ${shown.join(' → ')}`
  })
  if (byKey.size > 20) lines.push(`  … and ${byKey.size - 20} more keys`)
  return lines
}

/** The plan as report lines: floor, decision, parts or refusal units and options, and the changed decisions. */
export function describePlan(plan: CompactionPlan): string[] {
  const lines = [`floor ${plan.floor.total} tokens = irreducible ${plan.floor.irreducible} + margin ${plan.floor.margin}   (slot ${plan.slot}, ${plan.tokens} tokens in the segment)`, '']
  if (plan.kind === 'compact') {
    lines.push(`decision: COMPACT messages ${plan.range[0]}–${plan.range[1]} into ${plan.slot} tokens${capNote(plan)}${plan.guard === 'on' ? '' : ` (guard off: ${plan.guard})`}`)
  } else if (plan.kind === 'split') {
    lines.push(`decision: SPLIT into ${plan.parts.length} summaries, ${plan.summaryTokens} tokens in all (budget ${plan.budget}), freeing ${plan.frees}`)
    plan.parts.forEach((part, index) => {
      const superseded = part.items.filter((item) => item.status === 'superseded').length
      lines.push(
        `  part ${String(index + 1).padEnd(3)} messages ${`${part.range[0]}–${part.range[1]}`.padEnd(11)} floor ${String(part.floor).padStart(6)}  slot ${String(part.slot).padStart(6)}  ${part.items.length} items${superseded ? `, ${superseded} superseded` : ''}`,
      )
    })
    if (plan.optimal === 'fewest-tokens') lines.push('  (the fewest-parts split broke the budget; this is the split with the fewest summary tokens)')
  } else {
    lines.push(`decision: REFUSE (${plan.reason}): keep messages ${plan.range[0]}–${plan.range[1]} uncompacted`)
    for (const unit of plan.units) {
      lines.push(`  ${unit.kind} messages ${unit.range[0]}–${unit.range[1]}: floor ${unit.floor}${unit.label ? ` (${unit.label})` : ''}`)
      for (const item of unit.items) lines.push(`    ${String(item.tokens).padStart(5)}  #${String(item.message).padEnd(5)} ${item.kind.padEnd(13)} ${clip(item.text, 64)}`)
    }
    lines.push('', 'options:', ...plan.options.map((option) => `  ${describeOption(option)}`))
  }
  if (plan.state.length > 0) lines.push('', 'changed decisions (the summary must present the current value as current):', ...describeState(plan.state))
  return lines
}

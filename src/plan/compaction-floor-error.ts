import { FloorguardError } from '../errors.js'
import type { Refusal, RefusalOption } from './types.js'

/** One refusal option as a sentence: `raise the slot to 1370`. */
export function describeOption(option: RefusalOption): string {
  switch (option.kind) {
    case 'raise-slot':
      return `raise the slot to ${option.slot}`
    case 'raise-budget':
      return `raise the summary budget to ${option.budget}`
    case 'compact-range':
      return `compact ${option.range[0]}:${option.range[1]} instead (${option.reason}; frees ${option.frees} tokens)`
    case 'accept-risk':
      return `accept the risk explicitly (${option.shortfall} floor tokens will not fit)`
  }
}

/**
 * One line for people: `slot 2000 < floor 2340 (irreducible 1950, margin 390) for messages 0:60: would-cut-unit …`.
 */
export function describeRefusal(refusal: Refusal): string {
  const { floor, slot, range } = refusal
  const head = `slot ${slot} ${slot < floor.total ? '<' : '>='} floor ${floor.total} (irreducible ${floor.irreducible}, margin ${floor.margin}) for messages ${range[0]}:${range[1]}`
  const units = refusal.units
    .slice(0, 3)
    .map((unit) => `${unit.kind} ${unit.range[0]}:${unit.range[1]} (floor ${unit.floor}${unit.items[0] ? `, largest ${JSON.stringify(unit.items[0].text.slice(0, 40))}` : ''})`)
    .join(', ')
  const why =
    refusal.reason === 'budget-exceeded'
      ? `no split fits the summary budget ${refusal.budget}`
      : refusal.reason === 'range-cuts-unit'
        ? `the range cuts ${units}`
        : refusal.reason === 'no-gain'
          ? `a summary keeping the floor would cost at least ${floor.total} tokens, not less than the ${refusal.tokens} tokens it replaces (budget ${refusal.budget})`
          : refusal.reason === 'estimator-inconsistent'
            ? `the estimator's estimate disagrees with its extract for ${units}`
            : `${units} ${refusal.units.length === 1 ? 'does' : 'do'} not fit${refusal.reason === 'would-cut-unit' ? ' without cutting a causal unit' : ''}`
  const options = refusal.options.map(describeOption).join('; or ')
  return `${head}: refusing to compact (${refusal.reason}): ${why}${options ? `. Options: ${options}` : ''}. Do not shorten the summary.`
}

/**
 * Thrown by `planCompactionOrThrow` when the plan is a refusal: the message states slot, floor, irreducible and
 * margin, and `refusal` carries the whole refusal (reason, units, options) for an orchestrator.
 */
export class CompactionFloorError extends FloorguardError {
  readonly refusal: Refusal

  constructor(refusal: Refusal) {
    super('compaction-floor', describeRefusal(refusal))
    this.name = 'FloorguardCompactionFloorError'
    this.refusal = refusal
  }
}

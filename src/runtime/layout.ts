import type { LayoutEntry, RuntimeRange } from './types.js'

/**
 * Rebuilds a caller's own message list from a result's layout: out[i] = original[index] for a kept entry,
 * summary(text, range) for a summary, masked(original[index], text, index) for a masked tool output.
 *
 * Without `masked`, a masked entry keeps the original message: nothing is lost, only less is saved. Adapters pass
 * their native messages (in the order they gave `maybeCompact` their normalized copies) and get native messages back.
 */
export function applyLayout<T>(
  original: readonly T[],
  layout: readonly LayoutEntry[],
  summary: (text: string, range: RuntimeRange) => T,
  masked?: (original: T, text: string, index: number) => T,
): T[] {
  return layout.map((entry) => {
    switch (entry.kind) {
      case 'kept':
        return atIndex(original, entry.index)
      case 'summary':
        return summary(entry.text, entry.range)
      case 'masked':
        return masked ? masked(atIndex(original, entry.index), entry.text, entry.index) : atIndex(original, entry.index)
    }
  })
}

function atIndex<T>(original: readonly T[], index: number): T {
  if (!Number.isInteger(index) || index < 0 || index >= original.length) {
    throw new RangeError(`applyLayout: the layout names message ${index}, but the original list has ${original.length}; pass the list given to maybeCompact`)
  }
  return original[index]!
}

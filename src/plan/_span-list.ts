// Per-message lists of character spans (changed-decision mentions, a carried state block's stale entries) and the
// lookup the planner makes for each item it marks.

/** One message's spans in their order, and whether they are sorted and disjoint (what the scanners produce). */
export interface SpanList<T extends { readonly start: number; readonly end: number }> {
  readonly list: T[]
  ordered: boolean
}

/** Appends `span` to message `message`'s list in `lists`, keeping track of whether the list is still sorted and disjoint. */
export function addSpan<T extends { readonly start: number; readonly end: number }>(lists: Map<number, SpanList<T>>, message: number, span: T): void {
  const entry = lists.get(message)
  if (!entry) {
    lists.set(message, { list: [span], ordered: span.start <= span.end })
    return
  }
  const last = entry.list[entry.list.length - 1]!
  if (entry.ordered && !(last.end <= span.start && span.start <= span.end)) entry.ordered = false
  entry.list.push(span)
}

/**
 * The first span of `spans` in its order that overlaps `[start, end)`. Sorted and disjoint spans have ascending
 * ends, so the first whose end lies past `start` is the only candidate: a binary search, not a scan per item (a
 * one-message segment holds thousands of both).
 */
export function firstOverlap<T extends { readonly start: number; readonly end: number }>(spans: SpanList<T> | undefined, start: number, end: number): T | undefined {
  if (!spans) return undefined
  const { list } = spans
  if (!spans.ordered) return list.find((span) => span.start < end && start < span.end)
  let low = 0
  let high = list.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (list[middle]!.end > start) high = middle
    else low = middle + 1
  }
  const found = list[low]
  return found !== undefined && found.start < end ? found : undefined
}


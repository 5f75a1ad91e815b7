/**
 * Plain checks the adapter tests share, written without any floorguard code (oracles never import what they check).
 */

/** A deep copy that keeps binary data comparable, to show an input was not mutated. */
export function snapshot(value: unknown): string {
  const seen = new WeakSet<object>()
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner instanceof Uint8Array) return Array.from(inner)
    if (typeof inner === 'object' && inner !== null) {
      if (seen.has(inner)) return '[cycle]'
      seen.add(inner)
    }
    return inner
  })
}

/**
 * Tool call ids that lost their partner: every result must follow its call, and every call must have its result
 * (the last assistant message's calls excepted when `openTail`).
 */
export function brokenPairs(sequence: ReadonlyArray<{ calls: readonly string[]; results: readonly string[] }>): string[] {
  const called = new Set<string>()
  const answered = new Set<string>()
  const broken: string[] = []
  for (const step of sequence) {
    for (const id of step.results) {
      if (!called.has(id)) broken.push(`result ${id} without its call`)
      answered.add(id)
    }
    for (const id of step.calls) called.add(id)
  }
  for (const id of called) if (!answered.has(id)) broken.push(`call ${id} without its result`)
  return broken
}

/**
 * Where the eval compacts a transcript: every real compaction point, and synthetic cuts at the record's settings.
 */
import type { Message, ToolPair } from '../spec/transcript.js'

/** One compaction the arms are run on. */
export interface Cut {
  /** `real`: a compactor's own summary is in the transcript; `synthetic`: the record's high-water mark (or the oldest 40%). */
  readonly kind: 'real' | 'synthetic'
  /** Segment `[start, end)`: the messages the compaction replaces. */
  readonly start: number
  readonly end: number
  /** The message at which the compaction runs: future references are searched in `[at, futureEnd)`. */
  readonly at: number
  readonly futureEnd: number
  /** Real cuts: the compactor's own summary of the segment (the summary parts of message `end`). */
  readonly vendor?: { readonly source: string; readonly text: string }
}

/** hasSummary(message) = the message holds a `summary` part. */
export function hasSummary(message: Message): boolean {
  return message.parts.some((part) => part.type === 'summary')
}

/**
 * realCuts(messages) = one cut per message k holding a summary part: segment `[previous summary or 0, k)`, the
 * compaction runs at k, future references in `[k, next summary or the end)`; the vendor summary is k's summary text.
 */
export function realCuts(messages: readonly Message[]): Cut[] {
  const points: number[] = []
  messages.forEach((message, index) => {
    if (hasSummary(message)) points.push(index)
  })
  return points.map((end, index) => {
    const summaries = messages[end]!.parts.flatMap((part) => (part.type === 'summary' ? [part] : []))
    return {
      kind: 'real' as const,
      start: index === 0 ? 0 : points[index - 1]!,
      end,
      at: end,
      futureEnd: points[index + 1] ?? messages.length,
      vendor: { source: summaries[0]!.source, text: summaries.map((part) => part.text).join('\n\n') },
    }
  })
}

/**
 * cutAllowed(n, pairs)[b] = no tool pair has its call before b and its result at or after b (cutting at b, the
 * boundary between messages b-1 and b, keeps every call with its result), for b in [0, n].
 */
export function cutAllowed(n: number, pairs: readonly ToolPair[]): boolean[] {
  // Difference array over boundaries: a pair forbids the boundaries call+1 … result.
  const delta = new Array<number>(n + 2).fill(0)
  for (const pair of pairs) {
    const from = pair.call.message + 1
    const to = pair.result.message
    if (from > to) continue
    delta[from]! += 1
    delta[to + 1]! -= 1
  }
  const allowed: boolean[] = []
  let open = 0
  for (let b = 0; b <= n; b++) {
    open += delta[b]!
    allowed.push(open === 0)
  }
  return allowed
}

/** Options of {@link syntheticCuts}; the defaults are the record's observed system. */
export interface SyntheticCutOptions {
  /** Tokens of each message (same length as the messages). */
  readonly tokens: readonly number[]
  /** Tool pairs of the transcript (a boundary never separates a call from its result). */
  readonly pairs: readonly ToolPair[]
  /**
   * Context budget in tokens.
   * @default 128000
   */
  readonly budget?: number
  /**
   * Share of the budget at which a compaction runs.
   * @default 0.85
   */
  readonly highWaterMark?: number
  /**
   * Share of the live (non-system) messages compacted, oldest first.
   * @default 0.4
   */
  readonly compactFraction?: number
  /**
   * Tokens the summary takes in the running context after a compaction.
   * @default 2000
   */
  readonly slot?: number
}

/**
 * syntheticCuts(messages, options) = the record's compactions: walking the messages, whenever the running context
 * (leading system messages + the last summary's slot + the live messages) would pass highWaterMark × budget with the
 * next message i, the oldest compactFraction of the live messages `[live, i)` is compacted, its end moved to the
 * nearest boundary that cuts no tool pair (forward first, never past i). A compactor's own summary in the transcript
 * starts a new window (the context after a real compaction is that summary). A transcript with no such point gets
 * one cut at the oldest compactFraction of its non-system messages, run right after the segment. Future references
 * of a cut run to the next cut's compaction point, or the end.
 */
export function syntheticCuts(messages: readonly Message[], options: SyntheticCutOptions): Cut[] {
  const n = messages.length
  const { tokens } = options
  if (tokens.length !== n) throw new RangeError(`syntheticCuts: ${tokens.length} token counts for ${n} messages`)
  const limit = (options.highWaterMark ?? 0.85) * (options.budget ?? 128_000)
  const fraction = options.compactFraction ?? 0.4
  const slot = options.slot ?? 2000
  const allowed = cutAllowed(n, options.pairs)

  let first = 0
  let system = 0
  while (first < n && messages[first]!.role === 'system') system += tokens[first++]!
  const points: Array<{ start: number; end: number; at: number }> = []
  let live = first
  let carry = 0
  let running = 0
  for (let index = first; index < n; index++) {
    if (hasSummary(messages[index]!)) {
      live = index
      carry = 0
      running = tokens[index]!
      continue
    }
    if (index > live && system + carry + running + tokens[index]! > limit) {
      const end = boundary(allowed, live + Math.round(fraction * (index - live)), live, index)
      if (end !== undefined) {
        points.push({ start: live, end, at: index })
        for (let k = live; k < end; k++) running -= tokens[k]!
        live = end
        carry = slot
      }
    }
    running += tokens[index]!
  }
  if (points.length === 0 && n - first >= 2) {
    const end = boundary(allowed, first + Math.round(fraction * (n - first)), first, n)
    if (end !== undefined) points.push({ start: first, end, at: end })
  }
  return points.map((point, index) => ({ kind: 'synthetic' as const, ...point, futureEnd: points[index + 1]?.at ?? n }))
}

/** The allowed boundary nearest `target` inside `(low, high]`, looking forward first; undefined when there is none. */
function boundary(allowed: readonly boolean[], target: number, low: number, high: number): number | undefined {
  const clamped = Math.min(Math.max(target, low + 1), high)
  for (let b = clamped; b <= high; b++) if (allowed[b]) return b
  for (let b = clamped - 1; b > low; b--) if (allowed[b]) return b
  return undefined
}

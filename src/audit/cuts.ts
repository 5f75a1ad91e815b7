/**
 * Where an auto-compactor with the record's settings would have compacted a transcript that holds no summary.
 */
import type { Message, ToolPair } from '../spec/transcript.js'

/** One compaction the auto-compactor would run. */
export interface HighWaterCut {
  /** `[start, end)`: the messages replaced. */
  readonly start: number
  readonly end: number
  /** The message whose arrival would pass the high-water mark. */
  readonly at: number
}

/** Options of {@link highWaterCuts}; the defaults are the compaction-floor record's observed system. */
export interface HighWaterCutOptions {
  /** Tokens of each message (same length as the messages). */
  readonly tokens: readonly number[]
  /** Tool pairs (a cut never separates a call from its result). */
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
 * allowedBoundaries(n, pairs)[b] = no tool pair has its call before boundary b and its result at or after it, for b
 * in [0, n] (boundary b sits between messages b-1 and b).
 */
export function allowedBoundaries(n: number, pairs: readonly ToolPair[]): Uint8Array {
  const delta = new Int32Array(n + 2)
  for (const pair of pairs) {
    const from = pair.call.message + 1
    const to = pair.result.message
    if (from > to || to > n) continue
    delta[from]! += 1
    delta[to + 1]! -= 1
  }
  const allowed = new Uint8Array(n + 1)
  let open = 0
  for (let boundary = 0; boundary <= n; boundary++) {
    open += delta[boundary]!
    allowed[boundary] = open === 0 ? 1 : 0
  }
  return allowed
}

/**
 * highWaterCuts(messages, options) = walking the messages, whenever the running context (leading system messages +
 * the last summary's slot + the live messages) would pass highWaterMark × budget with the next message i, the oldest
 * compactFraction of the live messages `[live, i)` is compacted, its end moved to the nearest boundary that cuts no
 * tool pair (forward first, never past i). A transcript that never reaches the mark gets no cut: it never needed one.
 */
export function highWaterCuts(messages: readonly Message[], options: HighWaterCutOptions): HighWaterCut[] {
  const n = messages.length
  const { tokens } = options
  if (tokens.length !== n) throw new RangeError(`highWaterCuts: ${tokens.length} token counts for ${n} messages`)
  const limit = (options.highWaterMark ?? 0.85) * (options.budget ?? 128_000)
  const fraction = options.compactFraction ?? 0.4
  const slot = options.slot ?? 2000
  const allowed = allowedBoundaries(n, options.pairs)

  let first = 0
  let system = 0
  while (first < n && messages[first]!.role === 'system') system += tokens[first++]!
  const cuts: HighWaterCut[] = []
  let live = first
  let carry = 0
  let running = 0
  for (let index = first; index < n; index++) {
    if (index > live && system + carry + running + tokens[index]! > limit) {
      const end = nearestBoundary(allowed, live + Math.round(fraction * (index - live)), live, index)
      if (end !== undefined) {
        cuts.push({ start: live, end, at: index })
        for (let k = live; k < end; k++) running -= tokens[k]!
        live = end
        carry = slot
      }
    }
    running += tokens[index]!
  }
  return cuts
}

/** The allowed boundary nearest `target` inside `(low, high]`, forward first; undefined when there is none. */
function nearestBoundary(allowed: Uint8Array, target: number, low: number, high: number): number | undefined {
  const clamped = Math.min(Math.max(target, low + 1), high)
  for (let boundary = clamped; boundary <= high; boundary++) if (allowed[boundary]) return boundary
  for (let boundary = clamped - 1; boundary > low; boundary--) if (allowed[boundary]) return boundary
  return undefined
}

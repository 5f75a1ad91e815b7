/**
 * The eval's arithmetic: which gold items a summary keeps, which ones a later turn uses, invented identifiers,
 * containment matching of two item lists, and aggregates over cuts (mean, quantiles, seeded bootstrap intervals).
 * Pure: data in, numbers out.
 */
import type { Message } from '../spec/transcript.js'
import { createRandom } from '../_random.js'
import { argumentStrings } from '../audit/_arguments.js'
import type { GoldItem, GoldKind, GoldSource } from './gold/index.js'

/** A gold text of a segment, once: its first occurrence, and whether any occurrence lies outside tool output. */
export interface DistinctGold {
  readonly kind: GoldKind
  readonly text: string
  readonly message: number
  readonly source: GoldSource
  /** Some occurrence's source is not `tool-result`. */
  readonly outsideToolOutput: boolean
}

/** distinctGold(items) = one entry per distinct text, at its first occurrence, in order. */
export function distinctGold(items: readonly GoldItem[]): DistinctGold[] {
  const byText = new Map<string, { first: GoldItem; outside: boolean }>()
  for (const item of items) {
    const entry = byText.get(item.text)
    if (entry) entry.outside ||= item.source !== 'tool-result'
    else byText.set(item.text, { first: item, outside: item.source !== 'tool-result' })
  }
  return [...byText.values()].map(({ first, outside }) => ({
    kind: first.kind,
    text: first.text,
    message: first.message,
    source: first.source,
    outsideToolOutput: outside,
  }))
}

/** The string leaves of a tool call's arguments, as the audit reads them (re-exported for the eval's callers). */
export { argumentStrings }

/** Separates pieces of a haystack so no match spans two of them. */
const SEPARATOR = '\u0000'

/**
 * referenceText(messages) = what later turns say, joined by NUL: user and assistant text parts and the string
 * arguments of tool calls. Not tool results, not reasoning, not summaries (a later summary repeating an item is
 * not a use of it), not system text.
 */
export function referenceText(messages: readonly Message[]): string {
  const pieces: string[] = []
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'text' && (message.role === 'user' || message.role === 'assistant')) pieces.push(part.text)
      else if (part.type === 'tool-call') pieces.push(...argumentStrings(part.arguments))
    }
  }
  return pieces.join(SEPARATOR)
}

/** Options of {@link renderPlain}. */
export interface RenderPlainOptions {
  /** Replaces every tool result's content (observation masking). */
  readonly maskToolOutput?: string
}

/**
 * renderPlain(messages) = the messages as a reader sees them: each part's text, a tool call as its name and its
 * string arguments raw, one per line (so a heredoc keeps its line breaks), messages separated by a blank line.
 */
export function renderPlain(messages: readonly Message[], options: RenderPlainOptions = {}): string {
  return messages
    .map((message) =>
      message.parts
        .map((part) => {
          switch (part.type) {
            case 'text':
            case 'reasoning':
            case 'summary':
              return part.text
            case 'tool-call':
              return [part.name, ...argumentStrings(part.arguments)].join('\n')
            case 'tool-result':
              return options.maskToolOutput ?? part.content
          }
        })
        .join('\n'),
    )
    .join('\n\n')
}

/** Share kept, or null when there is nothing to keep. */
export function share(kept: number, total: number): number | null {
  return total === 0 ? null : kept / total
}

/** kept(items, summary) = the items whose text occurs verbatim in the summary. */
export function keptItems<T extends { readonly text: string }>(items: readonly T[], summary: string): T[] {
  return items.filter((item) => summary.includes(item.text))
}

/** futureReferenced(items, later) = the items whose text occurs verbatim in `later` (see {@link referenceText}). */
export function futureReferenced<T extends { readonly text: string }>(items: readonly T[], later: string): T[] {
  return items.filter((item) => item.text.length > 0 && later.includes(item.text))
}

/** Gold kinds that name something (an identifier or a value): what a summary can invent. */
export const IDENTIFIER_KINDS: ReadonlySet<GoldKind> = new Set<GoldKind>(['path', 'url', 'id', 'version', 'setting'])

/**
 * invented(summaryItems, segmentText) = distinct identifier texts of the summary that occur nowhere in the segment;
 * a setting counts only when its value does not occur either (`learning_rate: 3e-4` for the segment's `lr=3e-4` is a
 * rewording, not an invention).
 */
export function invented(summaryItems: ReadonlyArray<{ readonly kind: GoldKind; readonly text: string }>, segmentText: string): string[] {
  const out = new Set<string>()
  for (const item of summaryItems) {
    if (!IDENTIFIER_KINDS.has(item.kind)) continue
    const probe = item.kind === 'setting' ? settingValue(item.text) : item.text
    if (!segmentText.includes(probe)) out.add(item.text)
  }
  return [...out]
}

/** settingValue(`key: "v"`) = `v`: what follows the first `=`, `:` or space, without surrounding quotes. */
export function settingValue(text: string): string {
  const at = text.search(/[=: ]/)
  const value = (at < 0 ? text : text.slice(at + 1)).trim()
  return value.replace(/^["']|["']$/g, '') || text
}

/** withoutMarkup(summary) = the summary without lines that are only a tag (`<floorguard-state v="2" …>`, `</…>`). */
export function withoutMarkup(summary: string): string {
  return summary
    .split('\n')
    .filter((line) => !/^<\/?[A-Za-z][\w-]*(?:\s+[\w-]+="[^"\n]*")*\s*>$/.test(line.trim()))
    .join('\n')
}

/**
 * containmentMatch(a, b) = for each text of a, whether some text of b contains it or is contained in it; and the
 * same for b. Each direction is one substring search per text over the other list joined (O(total length) per text).
 */
export function containmentMatch(a: readonly string[], b: readonly string[]): { a: boolean[]; b: boolean[] } {
  const matchedA = a.map(() => false)
  const matchedB = b.map(() => false)
  markContainers(a, b, matchedA, matchedB)
  markContainers(b, a, matchedB, matchedA)
  return { a: matchedA, b: matchedB }
}

/** For each needle found inside a haystack text: the needle matches, and so does every haystack text holding it. */
function markContainers(needles: readonly string[], haystacks: readonly string[], needleMatched: boolean[], haystackMatched: boolean[]): void {
  if (haystacks.length === 0) return
  const starts: number[] = []
  let offset = 0
  for (const text of haystacks) {
    starts.push(offset)
    offset += text.length + 1
  }
  const joined = haystacks.join(SEPARATOR)
  needles.forEach((needle, index) => {
    if (needle.length === 0) return
    for (let at = joined.indexOf(needle); at >= 0; at = joined.indexOf(needle, at + 1)) {
      const owner = ownerOf(starts, at)
      if (at + needle.length > starts[owner]! + haystacks[owner]!.length) continue
      needleMatched[index] = true
      haystackMatched[owner] = true
    }
  })
}

/** Index of the last start <= position (binary search). */
function ownerOf(starts: readonly number[], position: number): number {
  let low = 0
  let high = starts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (starts[middle]! <= position) low = middle
    else high = middle - 1
  }
  return low
}

// --- aggregates ------------------------------------------------------------------------------------------------

/** mean(values) = Σ values / n, or null for none. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null
  let sum = 0
  for (const value of values) sum += value
  return sum / values.length
}

/**
 * quantile(values, q) = the q-quantile with linear interpolation between order statistics (h = (n-1)q, Hyndman-Fan
 * type 7, the default of R and NumPy), or null for none.
 */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null
  const sorted = values.slice().sort((x, y) => x - y)
  const h = (sorted.length - 1) * q
  const low = Math.floor(h)
  const high = Math.min(low + 1, sorted.length - 1)
  return sorted[low]! + (h - low) * (sorted[high]! - sorted[low]!)
}

/** Options of {@link bootstrapMean}. */
export interface BootstrapOptions {
  readonly seed: number
  /**
   * Resamples drawn.
   * @default 2000
   */
  readonly resamples?: number
  /**
   * Coverage of the interval.
   * @default 0.95
   */
  readonly level?: number
}

/**
 * bootstrapMean(values) = the percentile interval of the mean: `resamples` resamples of n values drawn with
 * replacement (seeded), the (1-level)/2 and (1+level)/2 quantiles of their means; null for no values.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions): [number, number] | null {
  if (values.length === 0) return null
  const random = createRandom(options.seed)
  const resamples = options.resamples ?? 2000
  const level = options.level ?? 0.95
  const means: number[] = []
  for (let r = 0; r < resamples; r++) {
    let sum = 0
    for (let k = 0; k < values.length; k++) sum += values[Math.floor(random.next() * values.length)]!
    means.push(sum / values.length)
  }
  return [quantile(means, (1 - level) / 2)!, quantile(means, (1 + level) / 2)!]
}

/** Aggregate of one metric over cuts. */
export interface Aggregate {
  /** Cuts where the metric is defined. */
  readonly n: number
  readonly mean: number | null
  readonly median: number | null
  readonly p95: number | null
  readonly min: number | null
  readonly max: number | null
  /** Bootstrap 95% interval of the mean. */
  readonly ci: [number, number] | null
}

/** aggregate(values) = n, mean, median, p95, min, max and the bootstrap interval of the mean; nulls are skipped. */
export function aggregate(values: ReadonlyArray<number | null>, options: BootstrapOptions): Aggregate {
  const defined = values.filter((value): value is number => value !== null && Number.isFinite(value))
  return {
    n: defined.length,
    mean: mean(defined),
    median: quantile(defined, 0.5),
    p95: quantile(defined, 0.95),
    min: defined.length === 0 ? null : Math.min(...defined),
    max: defined.length === 0 ? null : Math.max(...defined),
    ci: bootstrapMean(defined, options),
  }
}

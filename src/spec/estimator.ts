import type { Message } from './transcript.js'

/** What kind of irreducible content an item is. */
export type ItemKind =
  | 'error'
  | 'constraint'
  | 'quoted'
  | 'regex'
  | 'version'
  | 'path'
  | 'url'
  | 'env'
  | 'constant'
  | 'hash'
  | 'uuid'
  | 'number'
  | 'tool-argument'
  | 'identifier'

/** One irreducible span of a segment. Offsets are UTF-16 indices into the message's rendered text. */
export interface FloorItem {
  readonly kind: ItemKind
  /**
   * The exact text that must survive: its span as printed (terminal escape sequences removed), so usually
   * `rendered.slice(start, end)`, and that without its escapes when the span holds some.
   */
  readonly text: string
  /** Tokens it costs with the estimator's tokenizer (or heuristic). */
  readonly tokens: number
  /** Index of the message in the transcript. */
  readonly message: number
  /** Start offset (inclusive) in the rendered text of that message. */
  readonly start: number
  /** End offset (exclusive). */
  readonly end: number
}

/** The floor of a segment: its irreducible tokens plus the coherence margin. */
export interface FloorEstimate {
  readonly estimator: string
  readonly tokenizer: string
  readonly irreducible: number
  readonly margin: number
  /** `irreducible + margin`. */
  readonly total: number
  /** Distinct items, in order of first appearance, each priced once. */
  readonly items: readonly FloorItem[]
}

/** Estimator contract: prices the irreducible content of messages. */
export interface FloorEstimatorV1 {
  readonly specificationVersion: 'v1'
  /** Registry name: `seed`, `full`, `conservative`, or a third party's. */
  readonly name: string
  /** Tokenizer name used for pricing. */
  readonly tokenizer: string
  /** Margin ratio applied by {@link FloorEstimatorV1.estimate}. */
  readonly marginRatio: number
  /**
   * Items of one message, priced: each distinct text once (its first occurrence), not deduplicated across messages.
   * `index` is the message's index in the transcript and is copied into each item.
   */
  extract(message: Message, index: number): FloorItem[]
  /**
   * Floor of a segment. `offset` is the transcript index of `messages[0]` (default 0).
   * Each distinct item text is counted once per segment.
   */
  estimate(messages: readonly Message[], offset?: number): FloorEstimate
}

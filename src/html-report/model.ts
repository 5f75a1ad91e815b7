import type { CutAudit, SummaryAudit } from '../audit/types.js'

/**
 * The HTML report's data model: what `buildSessionReport` derives from a transcript and `renderReportPage` draws.
 * Plain JSON values only (the page embeds them and its script reads them back).
 */

/** An irreducible item as the page lists and highlights it. Offsets index the message's rendered text. */
export interface ReportItem {
  readonly kind: string
  /** The item's text, cut to the report's item cap (`clipped` then holds how many characters were cut). */
  readonly text: string
  readonly clipped?: number
  readonly tokens: number
  readonly message: number
  readonly start: number
  readonly end: number
}

/** A place a lost item was used again after its summary: offsets in the message's rendered text. */
export interface ReportReuse {
  readonly message: number
  readonly start: number
  readonly end: number
  /** Index of the compaction in {@link SessionReport.compactions} and of the item in its `lost`. */
  readonly compaction: number
  readonly lost: number
}

/** One message of the timeline and the message list. */
export interface ReportMessage {
  readonly index: number
  readonly role: string
  /** Tokens of the message's rendered text. */
  readonly tokens: number
  /** Tokens of the message's own items (each distinct text of the message once). */
  readonly irreducible: number
  /** Tokens since the last compaction point (its summary included), this message included: the running context. */
  readonly context: number
  /** Distinct item tokens since the last compaction point, this message included: the running irreducible. */
  readonly floor: number
  /** The rendered text, cut to the session's per-message cap. */
  readonly text: string
  /** Characters of the rendered text not shown (0 when whole). */
  readonly omitted: number
  /** The compactor, when the message holds a summary (a compaction point). */
  readonly summary?: string
  /** 1-based line of the message in the file, when the format records it. */
  readonly line?: number
}

/** What an audit says about one existing summary: `floorguard audit`'s fields, lost items used again first. */
export type ReportAudit = Omit<SummaryAudit, 'message' | 'replaced' | 'source' | 'line'> & {
  /** Lost items not listed (beyond the page's cap). */
  readonly lostOmitted: number
}

/** A compaction point: a message holding a summary, the segment it replaced, and its audit when one ran. */
export interface ReportCompaction {
  readonly message: number
  readonly source: string
  /** `[start, end)`: from the previous summary (included) to this one. */
  readonly replaced: readonly [number, number]
  readonly summaryTokens: number
  /** The log marks a compaction here but holds no summary text. */
  readonly missing?: true
  readonly audit?: ReportAudit
}

/** One unit or part row of a plan, with its largest items. */
export interface ReportPlanRow {
  readonly kind: string
  readonly range: readonly [number, number]
  readonly floor: number
  readonly slot?: number
  readonly tokens?: number
  readonly itemCount?: number
  readonly label?: string
  readonly items: ReadonlyArray<{ readonly kind: string; readonly text: string; readonly tokens: number; readonly message: number }>
}

/** The planner's decision for the region a compactor would compact next. */
export interface ReportPlan {
  readonly kind: 'compact' | 'split' | 'refuse'
  readonly range: readonly [number, number]
  readonly floor: { readonly irreducible: number; readonly margin: number; readonly total: number }
  readonly slot: number
  /** Tokens of the region. */
  readonly tokens: number
  /** One line: the decision with its numbers. */
  readonly message: string
  /** Split: its parts. Refuse: the offending units. */
  readonly rows: readonly ReportPlanRow[]
  /** Refuse: the options, as sentences. */
  readonly options: readonly string[]
  /** Changed decisions: one line per key (first values → current). */
  readonly state: readonly string[]
}

/** Everything the page shows about one transcript. */
export interface SessionReport {
  /** Anchor prefix, unique in the page (`s0`, `s1`, …). */
  readonly id: string
  readonly file: string
  readonly format: string
  readonly messageCount: number
  readonly tokens: number
  readonly tokenizer: string
  readonly estimator: string
  readonly slot: number
  /** Context budget of the timeline's high-water line. */
  readonly budget: number
  /** Share of the budget at which a compactor runs. */
  readonly highWaterMark: number
  readonly messages: readonly ReportMessage[]
  readonly items: readonly ReportItem[]
  /** Items not listed (beyond the item cap). */
  readonly itemsOmitted: number
  /**
   * The whole transcript's distinct irreducible items and their tokens, as `floorguard check` counts them (`items`
   * lists every span, an item found in several messages once per message).
   */
  readonly irreducible: { readonly items: number; readonly tokens: number }
  readonly reuses: readonly ReportReuse[]
  readonly compactions: readonly ReportCompaction[]
  /** Where a compactor at the slot and high-water mark would have run (an audit of a transcript without summaries). */
  readonly cuts: readonly CutAudit[]
  /** Null for an empty transcript. */
  readonly plan: ReportPlan | null
  /** Why the plan covers its range: `next compaction` (since the last summary) or `first high-water cut`. */
  readonly planScope: 'next-compaction' | 'first-cut'
  /** The per-message text cap that applied. */
  readonly messageChars: number
  readonly warnings: readonly string[]
}

/** A file of a directory that could not be read. */
export interface SkippedFile {
  readonly file: string
  readonly reason: string
}

/** A whole page: one or more sessions (a directory gets an overview table). */
export interface ReportDocument {
  readonly title: string
  /** `floorguard 0.1.0`. */
  readonly generator: string
  readonly sessions: readonly SessionReport[]
  readonly skipped: readonly SkippedFile[]
  /** Whether to show the overview table (a directory), even for one session. */
  readonly overview: boolean
}

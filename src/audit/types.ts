/**
 * The shapes `floorguard audit` produces (`--json` prints an {@link AuditReport}). Every key the issue names is here
 * with its meaning; the keys marked "extra" are ours, allowed beside them.
 */
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'

/** What floorguard's planner decides for a segment at a given slot. */
export type AuditDecision = 'compact' | 'split' | 'refuse'

/** Why a summary's loss counts as a counterfactual: the kinds of lost state that make it one. */
export type CounterfactualReason = 'constraint' | 'error' | 'current-decision'

/** One irreducible item of a segment that its summary did not keep verbatim. */
export interface LostItem {
  /** The item's kind (`ItemKind` of the `full` estimator: `path`, `error`, `constraint`, …). */
  readonly kind: string
  /** Its exact text. */
  readonly text: string
  /**
   * Index of the first message after the summary whose user text, assistant text or tool-call input holds the text
   * verbatim (up to the next summary), or null when the session never used it again.
   */
  readonly usedAgainAt: number | null
}

/** What one summary already in a transcript kept of the segment it replaced. */
export interface SummaryAudit {
  /** Index of the message holding the summary. */
  readonly message: number
  /**
   * `[start, end)`: the segment it replaced, from the previous summary (included) or 0 to this one (excluded), less
   * what the compaction kept at its start (the leading system messages, the history a Codex `compacted` record keeps);
   * empty (`start = end`) for a summary floorguard wrote over messages the file no longer holds (`replacedNotInFile`).
   */
  readonly replaced: readonly [number, number]
  /** Distinct irreducible items of the segment (the `full` estimator's). */
  readonly items: number
  /** Items whose exact text is a substring of the summary. */
  readonly survived: number
  /** `survived / items`, or null when the segment had no items or the summary is missing. */
  readonly survival: number | null
  /** Items of the segment the session used again after the summary (kept or not). */
  readonly futureReferenced: number
  /** Of those, the items the summary did not keep: state the session needed and the summary had dropped. */
  readonly futureLost: number
  /** The items the summary did not keep, in order of first appearance. */
  readonly lost: readonly LostItem[]
  /** True when a constraint, an error or a current decision of the segment was lost (false when the summary is missing: unknown). */
  readonly counterfactual: boolean
  /** The segment's floor (irreducible + margin) in tokens; null when the segment is not in the file (`replacedNotInFile`). */
  readonly floor: number | null
  /** Tokens of the summary text (0 when the log holds a compaction marker but not its summary). */
  readonly summaryTokens: number
  /** Extra: which compactor wrote it (`claude-code`, `codex`, `gemini-cli`, `opencode`, `floorguard`, …). */
  readonly source: string
  /** Extra: 1-based line of the summary in the file, when the format has lines. */
  readonly line?: number
  /**
   * Extra: the log marks a compaction here but holds no readable summary (a Claude Code `compact_boundary` without
   * its continuation, a Codex `compacted` item with an empty message, an encrypted Responses API compaction): every
   * item counts as not kept, `survival` is null, the verdict false, and the totals leave it out.
   */
  readonly summaryMissing?: true
  /**
   * Extra: the summary is a floorguard state block, which compact writes in place of the messages it replaced: those
   * are not in this file (the messages around it are ones compact kept). `range` and `tokens` are what the block's
   * opening line names (`range="a-b"`: indices of the transcript it was written into), null when it names none.
   * Nothing is audited (no items, survival null, verdict false, `floor` and `decision` null) and the totals leave it out.
   */
  readonly replacedNotInFile?: { readonly range: readonly [number, number] | null; readonly tokens: number | null }
  /** Extra: lost items per kind. */
  readonly lostKinds: Readonly<Record<string, number>>
  /** Extra: which kinds of lost state made the verdict (empty when `counterfactual` is false). */
  readonly counterfactualReasons: readonly CounterfactualReason[]
  /** Extra: tokens of the replaced segment. */
  readonly tokens: number
  /**
   * Extra: floorguard's planner at this summary's size (slot = summaryTokens, summaries in all at most 2×); null when
   * the segment is not in the file (`replacedNotInFile`): there is nothing to plan.
   */
  readonly decision: AuditDecision | null
  /** Extra: parts of a split decision. */
  readonly parts?: number
  /** Extra: the planner's refusal reason. */
  readonly reason?: string
  /**
   * Extra, records of floorguard's hooks only: the host transcript the hook read and the tokenizer and estimator it
   * counted with, and `futureUse`: `transcript` when the record was matched to its summary in that transcript (future
   * use is then found there as for any summary), else why future use is unknown (0 and null above).
   */
  readonly hook?: { readonly transcript: string | null; readonly tokenizer: string; readonly estimator: string; readonly futureUse: string }
}

/** Where a compactor at `--slot` and the high-water mark would have run, for a transcript without summaries. */
export interface CutAudit {
  /** `[start, end)`: the messages that compaction would replace. */
  readonly replaced: readonly [number, number]
  /** The message at which the context crossed the high-water mark. */
  readonly at: number
  /** Tokens of the replaced messages. */
  readonly tokens: number
  /** The segment's floor (irreducible + margin). */
  readonly floor: number
  /** The planner's decision at `--slot`. */
  readonly decision: AuditDecision
  readonly parts?: number
  readonly reason?: string
}

/** The audit of one file. */
export interface FileAudit {
  /** The path as given (or as found walking a directory). */
  readonly file: string
  /** The transcript format read, or `floorguard-audit` for a hooks' `audit.jsonl`. */
  readonly format: string
  /** The summaries found, in transcript order. */
  readonly summaries: readonly SummaryAudit[]
  /** Extra: messages in the transcript (records in an audit log). */
  readonly messages: number
  /** Extra: for a transcript without summaries, the compactions a compactor at `--slot` would have run. */
  readonly cuts: readonly CutAudit[]
  /** Extra: how many of `cuts` the planner would compact whole, split, or refuse. */
  readonly wouldCompact: number
  readonly wouldSplit: number
  readonly wouldRefuse: number
  /** Extra: bytes read (set by the CLI). */
  readonly bytes?: number
  /** Extra: reader warnings (lenient reading), one line each. */
  readonly warnings?: readonly string[]
}

/** A file that could not be audited: one line naming it and what was expected. */
export interface FailedFile {
  readonly file: string
  readonly error: string
}

/** A file a directory walk did not read as a transcript, and why (one line). */
export interface SkippedFile {
  readonly file: string
  readonly reason: string
}

/** Sums over every audited file. */
export interface AuditTotals {
  /** Files audited (not counting failed or skipped ones). */
  readonly files: number
  /** Files that could not be read (see `failed`). */
  readonly failed: number
  /** Files a directory walk skipped as not transcripts (by name, or no format detected). */
  readonly skipped: number
  readonly bytes: number
  readonly summaries: number
  /** Summaries whose text the log lacks or encrypts (`summaryMissing`), left out of the sums below. */
  readonly summariesMissing: number
  /** Summaries floorguard wrote over messages their file no longer holds (`replacedNotInFile`), left out likewise. */
  readonly replacedNotInFile: number
  readonly items: number
  readonly survived: number
  /** `survived / items` pooled over all summaries, or null with no items. */
  readonly survival: number | null
  /** Items used again after their summary, over all summaries (kept or not). */
  readonly futureReferenced: number
  /** Of those, the items their summary had lost. */
  readonly futureLost: number
  /** `futureLost / futureReferenced`, or null when nothing was used again. */
  readonly futureLostShare: number | null
  /** Summaries with a counterfactual verdict. */
  readonly counterfactual: number
  readonly cuts: number
  readonly wouldCompact: number
  readonly wouldSplit: number
  readonly wouldRefuse: number
}

/** What `floorguard audit --json` prints. */
export interface AuditReport {
  readonly version: 1
  readonly files: readonly FileAudit[]
  readonly totals: AuditTotals
  /** Extra: files that could not be audited. */
  readonly failed: readonly FailedFile[]
  /** Extra: files a directory walk did not read as transcripts, in walk order, each with the reason. */
  readonly skipped: readonly SkippedFile[]
}

/** Options of {@link auditTranscript}; the defaults are the compaction-floor record's observed system. */
export interface AuditOptions {
  /** Finds the irreducible items (the CLI uses `full`). */
  readonly estimator: FloorEstimatorV1
  /** Counts summary and segment tokens. */
  readonly tokenizer: TokenizerV1
  /**
   * Name of the file, copied into the result.
   * @default '<transcript>'
   */
  readonly file?: string
  /**
   * The summary slot of the counterfactual compactor, for transcripts without summaries.
   * @default 2000
   */
  readonly slot?: number
  /**
   * Context budget in tokens (transcripts without summaries).
   * @default 128000
   */
  readonly budget?: number
  /**
   * Share of the budget at which a compaction runs.
   * @default 0.85
   */
  readonly highWaterMark?: number
  /**
   * Share of the live messages a compaction replaces, oldest first.
   * @default 0.4
   */
  readonly compactFraction?: number
  /**
   * The summaries of a split may cost at most this many times the real summary's tokens in all.
   * @default 2
   */
  readonly splitBudgetRatio?: number
}

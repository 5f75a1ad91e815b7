import type { ItemKind } from '../spec/estimator.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { parseStateBlock, stripGistSpeakers, stripStateMarkup } from '../state-block/index.js'

/** A span some extractor found in a text: what kind it is and its exact text. */
export interface ExtractedSpan {
  readonly kind: ItemKind
  readonly text: string
}

/** Finds identifiers, paths, numbers, versions… in a text (an estimator's extraction, applied to a summary). */
export type SpanExtractor = (text: string) => readonly ExtractedSpan[]

/** Options of {@link verifySummary}. */
export interface VerifySummaryOptions {
  /** The summary to check. */
  readonly summary: string
  /** Items that must appear in it verbatim. */
  readonly items: readonly MustKeepItem[]
  /** Most tokens the summary may count. */
  readonly slot: number
  /** The real tokenizer the slot is measured with. */
  readonly tokenizer: TokenizerV1
  /**
   * The segment's rendered text; with `extract`, spans of the summary absent from it are reported as invented.
   * @default undefined (no invented-state report)
   */
  readonly segmentText?: string
  /**
   * Extraction used for the invented-state report.
   * @default undefined (no invented-state report)
   */
  readonly extract?: SpanExtractor
}

/** The verdict on one summary: the record's postcondition, made strict. */
export interface SummaryVerification {
  /** Non-empty, within the slot, every item present verbatim, and every item's status (current or superseded) kept. */
  readonly ok: boolean
  readonly tokens: number
  readonly slot: number
  /** Empty or whitespace only. */
  readonly empty: boolean
  readonly withinSlot: boolean
  /** Items whose exact text is not a substring of the summary. */
  readonly missing: readonly MustKeepItem[]
  /** Spans of the summary that the segment never had (reported, not a failure: narrative may count things). */
  readonly invented: readonly ExtractedSpan[]
  /** Superseded items the summary does not mark superseded in its state block (a stale value presented as current). */
  readonly staleAsCurrent: readonly MustKeepItem[]
  /** Current items the state block marks superseded only (a value in force presented as stale). */
  readonly currentAsStale: readonly MustKeepItem[]
  /** One line per failed condition, empty when `ok`. */
  readonly problems: readonly string[]
}

/**
 * Verifies a summary: ok = non-empty ∧ tokens ≤ slot ∧ every item's text is an exact substring ∧ every item's status
 * is kept (a superseded item is marked superseded in the state block, a current one is not marked superseded only).
 *
 * No normalization of any kind (no whitespace folding, no CRLF→LF, no Unicode normalization): an item survives only
 * if its exact UTF-16 sequence does, because a paraphrase that differs by one character is a different regex or path.
 * Statuses are read from the state block's line contexts, never from item text, so transcript text cannot forge one.
 */
export function verifySummary(options: VerifySummaryOptions): SummaryVerification {
  const { summary, slot, tokenizer } = options
  const empty = summary.trim().length === 0
  const tokens = tokenizer.count(summary)
  const withinSlot = tokens <= slot
  const missing: MustKeepItem[] = []
  const seen = new Set<string>()
  for (const item of options.items) {
    if (seen.has(item.text)) continue
    seen.add(item.text)
    if (!summary.includes(item.text)) missing.push(item)
  }
  const { staleAsCurrent, currentAsStale } = checkStatuses(summary, options.items, new Set(missing.map((item) => item.text)))
  const problems: string[] = []
  if (empty) problems.push('summary is empty')
  if (!withinSlot) problems.push(`summary has ${tokens} tokens (${tokenizer.name}), slot is ${slot}`)
  if (missing.length > 0) {
    problems.push(`${missing.length} must-keep item(s) missing verbatim: ${missing.slice(0, 5).map((item) => `${item.kind} ${JSON.stringify(clip(item.text))}`).join(', ')}${missing.length > 5 ? ', …' : ''}`)
  }
  if (staleAsCurrent.length > 0) {
    problems.push(`${staleAsCurrent.length} superseded item(s) not marked superseded in the state block: ${staleAsCurrent.slice(0, 5).map((item) => JSON.stringify(clip(item.text))).join(', ')}${staleAsCurrent.length > 5 ? ', …' : ''}`)
  }
  if (currentAsStale.length > 0) {
    problems.push(`${currentAsStale.length} current item(s) marked superseded in the state block: ${currentAsStale.slice(0, 5).map((item) => JSON.stringify(clip(item.text))).join(', ')}${currentAsStale.length > 5 ? ', …' : ''}`)
  }
  const lifting = liftingSentences(summary, options.items, options.segmentText)
  if (lifting.length > 0) problems.push(`the summary says state that is current no longer holds: ${lifting.slice(0, 3).map((sentence) => JSON.stringify(clip(sentence))).join(', ')}`)
  return {
    ok: problems.length === 0,
    tokens,
    slot,
    empty,
    withinSlot,
    missing,
    invented: options.extract && options.segmentText !== undefined ? findInventedState(summary, options.segmentText, options.extract) : [],
    staleAsCurrent,
    currentAsStale,
    problems,
  }
}

/**
 * Spans extracted from the summary (state-block markup and the gist lines' `speaker: ` removed) whose text does not
 * occur in the segment text.
 */
export function findInventedState(summary: string, segmentText: string, extract: SpanExtractor): ExtractedSpan[] {
  const invented: ExtractedSpan[] = []
  const seen = new Set<string>()
  for (const span of extract(stripGistSpeakers(stripStateMarkup(summary)))) {
    if (seen.has(span.text)) continue
    seen.add(span.text)
    if (!segmentText.includes(span.text)) invented.push({ kind: span.kind, text: span.text })
  }
  return invented
}

/**
 * Items whose status the summary does not keep. A superseded item needs a state-block entry marked superseded and none
 * marked current; a current item must not be marked superseded unless it is also listed as current. Items missing
 * verbatim are reported as missing, not here.
 */
function checkStatuses(summary: string, items: readonly MustKeepItem[], missing: ReadonlySet<string>): { staleAsCurrent: MustKeepItem[]; currentAsStale: MustKeepItem[] } {
  const block = parseStateBlock(summary)
  const current = new Set<string>()
  const superseded = new Set<string>()
  // Entries that present their text as in force with no word against it: an item that is one needs no line scan.
  const plainlyCurrent = new Set<string>()
  const staleWords = STALE_WORDS.test(summary)
  if (block) {
    for (const entry of block.entries) {
      ;(entry.status === 'current' ? current : superseded).add(entry.text)
      if (entry.status === 'current' && (!staleWords || (!STALE_WORDS.test(entry.context) && !STALE_WORDS.test(entry.section)))) plainlyCurrent.add(entry.text)
    }
  }
  const staleAsCurrent: MustKeepItem[] = []
  const currentAsStale: MustKeepItem[] = []
  const seen = new Set<string>()
  let lines: readonly PresentedLine[] | undefined
  for (const item of items) {
    if (seen.has(item.text) || missing.has(item.text)) continue
    seen.add(item.text)
    if (item.status === 'superseded') {
      if (!superseded.has(item.text) || current.has(item.text)) staleAsCurrent.push(item)
    } else if (superseded.has(item.text) && !current.has(item.text)) currentAsStale.push(item)
    // Only a summary holding a word against a value can present one as out of force; a plain current entry is not.
    else if (staleWords && !plainlyCurrent.has(item.text) && onlyPresentedStale(item.text, (lines ??= presentedLines(summary)))) currentAsStale.push(item)
  }
  return { staleAsCurrent, currentAsStale }
}

/**
 * Words that say a value is out of force wherever a summary writes them before it on its line (a context field
 * `[user #1; superseded]`, a mark `(superseded) TEXT`, `~~TEXT~~`) or in the heading it stands under
 * (`## superseded constraints`): a reader takes the value for stale, whatever the block's bracket says.
 */
const STALE_WORDS = /\b(?:superseded|stale|obsolete|outdated|lifted|revoked|rescinded|no longer)\b|~~/i

/** A line of a summary with whether its heading (the last `#` line above it) says its values are out of force. */
interface PresentedLine {
  readonly text: string
  readonly staleHeading: boolean
}

function presentedLines(summary: string): PresentedLine[] {
  let staleHeading = false
  return summary.split('\n').map((text) => {
    if (text.startsWith('#')) staleHeading = STALE_WORDS.test(text)
    return { text, staleHeading }
  })
}

/**
 * Whether every line holding `text` presents it as out of force (see {@link STALE_WORDS}); false when no line holds it
 * whole (a multi-line text is checked by the block's bracket only).
 */
function onlyPresentedStale(text: string, lines: readonly PresentedLine[]): boolean {
  let held = false
  for (const line of lines) {
    const at = line.text.indexOf(text)
    if (at === -1) continue
    held = true
    if (!line.staleHeading && !STALE_WORDS.test(line.text.slice(0, at))) return false
  }
  return held
}

/**
 * A sentence that says the state a summary carries no longer holds (`All constraints were lifted.`, `the rules above
 * no longer apply`): a state noun in the plural and a word of lifting in one sentence. Linear: alternations of words.
 */
const STATE_NOUNS = /\b(?:constraints|rules|requirements|restrictions|instructions|decisions|pins|limits|settings)\b/i
const LIFTING = /\b(?:lifted|removed|dropped|revoked|rescinded|withdrawn|void|obsolete|superseded|no longer (?:apply|applies|hold|holds|in force|valid|relevant|matter)|can be ignored|(?:ignore|disregard) (?:all|the|any|every))\b/i

/**
 * The summary's sentences that say its current state no longer holds (see {@link LIFTING}), when some item is current;
 * a sentence the segment itself holds (a user who lifted a rule, quoted in the gist) is history, not the summary's claim.
 */
function liftingSentences(summary: string, items: readonly MustKeepItem[], segmentText: string | undefined): string[] {
  if (!items.some((item) => item.status !== 'superseded')) return []
  const found: string[] = []
  for (const piece of stripGistSpeakers(summary).split(/[.!?\n]+/)) {
    const sentence = piece.trim()
    if (STATE_NOUNS.test(sentence) && LIFTING.test(sentence) && !segmentText?.includes(sentence)) found.push(sentence)
  }
  return found
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

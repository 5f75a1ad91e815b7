/**
 * Reads the `audit.jsonl` that floorguard's hooks write (one `AuditRecord` a line, see `hooks/audit.ts`) as audits
 * of the host's summaries: the hook already counted what each summary kept, so no transcript is needed.
 */
import { decide } from '../check/index.js'
import { InvalidInputError } from '../errors.js'
import { cutAuditText } from '../hooks/audit.js'
import { buildLedger } from '../hooks/ledger.js'
import { lastBoundary } from '../hooks/region.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Transcript } from '../spec/transcript.js'
import { createTextSearch } from './_first-uses.js'
import { decisionAtSize, referencePieces } from './audit.js'
import { findSummaries } from './summaries.js'
import type { CounterfactualReason, FileAudit, LostItem, SummaryAudit } from './types.js'

/** The format name an audit log reports. */
export const AUDIT_LOG_FORMAT = 'floorguard-audit'

const EXPECTED = 'a floorguard audit record (an object with v 1, host, range [a, b], floor.total, items, kept and lost)'

function isRecordShape(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const record = value as Record<string, unknown>
  return record['v'] === 1 && typeof record['host'] === 'string' && Array.isArray(record['range']) && 'floor' in record && 'kept' in record
}

/**
 * isAuditLogHead(head) = the first non-empty line of `head` is a whole JSON object shaped like a hooks' audit record
 * (`v: 1`, `host`, `range`, `floor`, `kept`). Transcript formats never have all five.
 */
export function isAuditLogHead(head: string): boolean {
  const start = head.search(/\S/)
  if (start === -1) return false
  const newline = head.indexOf('\n', start)
  if (newline === -1) return false
  try {
    return isRecordShape(JSON.parse(head.slice(start, newline)))
  } catch {
    return false
  }
}

/** Options of {@link auditLogRecords}. */
export interface AuditLogOptions {
  /** The file's name, for the result and for error messages. */
  readonly file: string
}

function count(value: unknown, file: string, line: number, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidInputError(`expected a non-negative integer, got ${JSON.stringify(value) ?? String(value)}`, { file, line, field })
  }
  return value
}

function recordAudit(record: Record<string, unknown>, index: number, file: string, line: number): SummaryAudit {
  const range = record['range'] as unknown[]
  if (range.length !== 2) throw new InvalidInputError(`expected [start, end], got ${JSON.stringify(range)}`, { file, line, field: '/range' })
  const start = count(range[0], file, line, '/range/0')
  const end = count(range[1], file, line, '/range/1')
  const floorField = record['floor']
  const floor = count(floorField !== null && typeof floorField === 'object' ? (floorField as Record<string, unknown>)['total'] : undefined, file, line, '/floor/total')
  const items = count(record['items'], file, line, '/items')
  const keptField = record['kept']
  const kept = keptField === null ? null : count(keptField, file, line, '/kept')
  const summaryTokens = record['summaryTokens'] === null || record['summaryTokens'] === undefined ? 0 : count(record['summaryTokens'], file, line, '/summaryTokens')
  const tokens = record['tokens'] === undefined ? 0 : count(record['tokens'], file, line, '/tokens')
  const lostField = record['lost']
  if (!Array.isArray(lostField)) throw new InvalidInputError(`expected an array of {kind, text}, got ${JSON.stringify(lostField) ?? 'nothing'}`, { file, line, field: '/lost' })
  const lost: LostItem[] = []
  const lostKinds: Record<string, number> = {}
  const reasons = new Set<CounterfactualReason>()
  lostField.forEach((entry, position) => {
    const item = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>) : {}
    if (typeof item['kind'] !== 'string' || typeof item['text'] !== 'string') {
      throw new InvalidInputError('expected {"kind": string, "text": string}', { file, line, field: `/lost/${position}` })
    }
    lost.push({ kind: item['kind'], text: item['text'], usedAgainAt: null })
    lostKinds[item['kind']] = (lostKinds[item['kind']] ?? 0) + 1
    if (item['kind'] === 'constraint' || item['kind'] === 'error') reasons.add(item['kind'])
  })
  const floorNames = floorField !== null && typeof floorField === 'object' ? (floorField as Record<string, unknown>) : {}
  const transcript = typeof record['transcript'] === 'string' ? record['transcript'] : null
  const hook = {
    transcript,
    tokenizer: typeof floorNames['tokenizer'] === 'string' ? floorNames['tokenizer'] : 'o200k_base',
    estimator: typeof floorNames['estimator'] === 'string' ? floorNames['estimator'] : 'full',
    futureUse: transcript === null ? 'the record names no transcript' : 'the transcript was not read',
  }
  const survived = kept ?? 0
  const precondition = decide({ irreducible: 0, margin: 0, total: floor }, summaryTokens)
  // Without the summary (kept null) nothing is known to be lost: no verdict, no survival.
  const counterfactualReasons = kept === null ? [] : (['constraint', 'error'] as const).filter((reason) => reasons.has(reason))
  return {
    message: index,
    replaced: [start, end],
    items,
    survived,
    survival: items === 0 || kept === null ? null : survived / items,
    futureReferenced: 0,
    futureLost: 0,
    lost,
    counterfactual: counterfactualReasons.length > 0,
    floor,
    summaryTokens,
    source: `floorguard-hook:${String(record['host'])}`,
    line,
    ...(kept === null ? { summaryMissing: true as const } : {}),
    lostKinds,
    counterfactualReasons,
    tokens,
    // The record's precondition, in check's words: without the messages no split can be planned.
    decision: precondition.kind === 'compact' ? 'compact' : 'refuse',
    ...(precondition.kind === 'compact' ? {} : { reason: precondition.reason }),
    hook,
  }
}

/** Options of {@link withTranscriptFutureUse}: the tokenizer and estimator the hook counted with (by name). */
export interface TranscriptFutureUseOptions {
  readonly tokenizer: TokenizerV1
  readonly estimator: FloorEstimatorV1
}

/** The texts a record lists as lost for `items` and a summary: not in it verbatim, cut as the hook cuts them. */
function recordedLost(items: ReadonlyArray<{ text: string }>, summary: string): string[] {
  const lost: string[] = []
  for (const item of items) if (!summary.includes(item.text)) lost.push(cutAuditText(item.text))
  return lost
}

/**
 * withTranscriptFutureUse(summary, transcript, options) = a hook record's audit with future use found in the host
 * transcript it names, when the transcript allows: the record is matched to the one summary in the transcript whose
 * tokens equal the record's `summaryTokens` and whose ledger, rebuilt as the hook builds it (the messages after the
 * previous summary, `buildLedger`), has the record's item count and exactly its lost texts. Then every item's first
 * use after the summary (up to the next one) is found as for any summary, and the decision is the planner's on that
 * region at the summary's size ({@link decisionAtSize}). Otherwise `hook.futureUse` says why not and
 * the numbers stay unknown (0 and null): no summary in the transcript matches (the hook read a truncated tail, a
 * different estimator version, another session), several do, or the record has no summary.
 */
export function withTranscriptFutureUse(summary: SummaryAudit, transcript: Transcript, options: TranscriptFutureUseOptions): SummaryAudit {
  const hook = summary.hook
  if (!hook) return summary
  const unknown = (why: string): SummaryAudit => ({ ...summary, hook: { ...hook, futureUse: why } })
  if (summary.summaryMissing) return unknown('the record holds no summary')
  if (options.tokenizer.name !== hook.tokenizer || options.estimator.name !== hook.estimator) return unknown(`the record was counted with ${hook.tokenizer} and ${hook.estimator}`)
  const { messages } = transcript
  const points = findSummaries(transcript)
  const recorded = summary.lost.map((item) => item.text)
  const matches: Array<{ at: number; start: number; items: ReadonlyArray<{ text: string }> }> = []
  for (const point of points) {
    if (point.missing || options.tokenizer.count(point.text) !== summary.summaryTokens) continue
    const start = lastBoundary(messages, point.message) + 1
    const ledger = buildLedger({ messages, region: { start, end: point.message }, estimator: options.estimator, tokenizer: options.tokenizer })
    if (ledger.items.length !== summary.items) continue
    const lost = recordedLost(ledger.items, point.text)
    if (lost.length === recorded.length && lost.every((text, index) => text === recorded[index])) matches.push({ at: point.message, start, items: ledger.items })
  }
  if (matches.length === 0) return unknown('no summary in the transcript matches the record')
  if (matches.length > 1) return unknown(`${matches.length} summaries in the transcript match the record`)
  const { at, items, start } = matches[0]!
  const next = points.find((point) => point.message > at)?.message ?? messages.length
  const used = createTextSearch(items.map((item) => item.text)).firstUses(referencePieces(messages, at, next, at))
  const kept = createTextSearch(items.map((item) => item.text)).firstUses([{ text: points.find((point) => point.message === at)!.text, message: 0 }])
  let futureReferenced = 0
  let futureLost = 0
  const lost: LostItem[] = []
  items.forEach((item, index) => {
    const usedAgainAt = used[index]! >= 0 ? used[index]! : null
    if (usedAgainAt !== null) futureReferenced++
    if (kept[index]! >= 0) return
    if (usedAgainAt !== null) futureLost++
    const recordedItem = summary.lost[lost.length]!
    lost.push({ ...recordedItem, usedAgainAt })
  })
  // With the region's messages at hand, floorguard's decision is the planner's, as for any summary (the record alone
  // allows only the floor against the summary's size).
  const { decision, parts, reason } = decisionAtSize(transcript, start, at, summary.summaryTokens, options)
  const { parts: _parts, reason: _reason, ...rest } = summary
  return {
    ...rest,
    futureReferenced,
    futureLost,
    lost,
    decision,
    ...(parts === undefined ? {} : { parts }),
    ...(reason === undefined ? {} : { reason }),
    hook: { ...hook, futureUse: 'transcript' },
  }
}

/**
 * auditLogRecords(text, options) = one summary audit per record of a hooks' `audit.jsonl` (blank lines skipped):
 * items, kept and lost as the hook counted them (texts cut at 300 characters there), `message` the record's index,
 * `replaced` its range (indices of the region the hook read). Future use is not known from the record alone:
 * `futureReferenced` and `futureLost` are 0 and every `usedAgainAt` null until {@link withTranscriptFutureUse} finds
 * it in the transcript the record names (`hook.transcript`). The decision is check's precondition on the summary's
 * tokens and the floor only (`compact`, or `refuse` with reason `slot-below-floor`: without the messages no split can
 * be planned) until {@link withTranscriptFutureUse} plans the matched region. A line that is not such
 * a record throws an InvalidInputError naming the file, the line and what was expected.
 */
export function auditLogRecords(text: string, options: AuditLogOptions): FileAudit {
  const { file } = options
  const summaries: SummaryAudit[] = []
  let line = 0
  let cursor = 0
  while (cursor <= text.length) {
    const newline = text.indexOf('\n', cursor)
    const raw = text.slice(cursor, newline === -1 ? text.length : newline)
    cursor = newline === -1 ? text.length + 1 : newline + 1
    line++
    if (raw.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      throw new InvalidInputError(`expected ${EXPECTED}, got a line that is not JSON`, { file, line })
    }
    if (!isRecordShape(value)) throw new InvalidInputError(`expected ${EXPECTED}`, { file, line })
    summaries.push(recordAudit(value, summaries.length, file, line))
  }
  return { file, format: AUDIT_LOG_FORMAT, summaries, messages: summaries.length, cuts: [], wouldCompact: 0, wouldSplit: 0, wouldRefuse: 0 }
}

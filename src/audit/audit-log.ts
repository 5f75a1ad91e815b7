/**
 * Reads the `audit.jsonl` that floorguard's hooks write (one `AuditRecord` a line, see `hooks/audit.ts`) as audits
 * of the host's summaries: the hook already counted what each summary kept, so no transcript is needed.
 */
import { InvalidInputError } from '../errors.js'
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
  const survived = kept ?? 0
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
    decision: summaryTokens >= floor ? 'compact' : 'refuse',
    ...(summaryTokens >= floor ? {} : { reason: 'slot-below-floor' }),
  }
}

/**
 * auditLogRecords(text, options) = one summary audit per record of a hooks' `audit.jsonl` (blank lines skipped):
 * items, kept and lost as the hook counted them (texts cut at 300 characters there), `message` the record's index,
 * `replaced` its range (indices of the region the hook read). Future use is not known (the transcript is not read):
 * `futureReferenced` and `futureLost` are 0 and every `usedAgainAt` null. The decision compares the summary's tokens
 * with the floor only (`compact` or `refuse`: without the messages no split can be planned). A line that is not such
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

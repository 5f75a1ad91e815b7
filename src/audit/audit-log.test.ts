import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import { buildAuditRecord, countKept } from '../hooks/audit.js'
import type { StoredItem } from '../hooks/types.js'
import { auditLogRecords, isAuditLogHead } from './audit-log.js'
import { auditTotals } from './totals.js'

const items = [
  { kind: 'constraint', text: 'Never push to main.' },
  { kind: 'path', text: 'src/app.ts' },
  { kind: 'error', text: 'OSError: [Errno 28] No space left on device' },
] as unknown as StoredItem[]

function record(summary: string | undefined, summaryTokens: number | undefined) {
  return buildAuditRecord({
    payload: { host: 'claude-code', sessionId: 's1', event: 'PostCompact' },
    time: '2026-12-03T00:00:00Z',
    ledger: { range: [0, 40], floor: { irreducible: 900, margin: 180, total: 1080, estimator: 'full', tokenizer: 'o200k_base' }, tokens: 50000, items, shown: 3, file: '/tmp/ledger.json' },
    count: summary === undefined ? undefined : countKept(items, summary),
    summaryTokens,
  })
}

describe('auditLogRecords', () => {
  it("reads the hooks' records as summary audits: kept, lost by kind, the verdict, floor against summary tokens", () => {
    const text = `${JSON.stringify(record('Fixed src/app.ts.', 2000))}\n\n${JSON.stringify(record(undefined, undefined))}\n`
    expect(isAuditLogHead(text)).toBe(true)
    const audit = auditLogRecords(text, { file: 'audit.jsonl' })
    expect(audit.format).toBe('floorguard-audit')
    expect(audit.summaries).toHaveLength(2)
    const [first, second] = audit.summaries
    expect(first).toMatchObject({ message: 0, line: 1, replaced: [0, 40], items: 3, survived: 1, floor: 1080, summaryTokens: 2000, decision: 'compact', counterfactual: true })
    expect(first!.lost.map((item) => [item.kind, item.usedAgainAt])).toEqual([['constraint', null], ['error', null]])
    expect(first!.counterfactualReasons).toEqual(['constraint', 'error'])
    expect(second).toMatchObject({ message: 1, line: 3, survived: 0, survival: null, summaryTokens: 0, summaryMissing: true, counterfactual: false, decision: 'refuse' })
    // The totals pool the first record only; the second is counted apart.
    expect(auditTotals([audit])).toMatchObject({ summaries: 2, summariesMissing: 1, items: 3, survived: 1, survival: 1 / 3, counterfactual: 1 })
  })

  it('a line that is not a record: one error naming the file, the line and what was expected', () => {
    const text = `${JSON.stringify(record('x', 10))}\n{"v":1,"host":"codex"}\n`
    let caught: unknown
    try {
      auditLogRecords(text, { file: 'audit.jsonl' })
    } catch (error) {
      caught = error
    }
    expect(FloorguardError.is(caught)).toBe(true)
    expect((caught as Error).message).toMatch(/^audit\.jsonl:2: expected a floorguard audit record/)
    expect(isAuditLogHead('{"type":"user","message":{}}\n')).toBe(false)
  })
})

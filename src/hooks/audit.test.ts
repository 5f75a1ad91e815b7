import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AUDIT_TEXT_LIMIT, buildAuditRecord, countKept, describeVerification } from './audit.js'

/** The oracle: an item is kept when sliding a window of its length over the summary finds it (no indexOf/includes). */
function keptByScan(text: string, summary: string): boolean {
  for (let start = 0; start + text.length <= summary.length; start++) {
    let same = true
    for (let offset = 0; offset < text.length && same; offset++) same = summary.charCodeAt(start + offset) === text.charCodeAt(offset)
    if (same) return true
  }
  return false
}

describe('countKept', () => {
  it('counts the items whose exact text is in the summary, and lists the others in order', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[ab.\n]{1,4}$/), { maxLength: 12 }), fc.stringMatching(/^[ab.\n ]{0,30}$/), (texts, summary) => {
        const items = texts.map((text, index) => ({ kind: index % 2 ? 'path' : 'error', text }))
        const { kept, lost } = countKept(items, summary)
        const expectedLost = items.filter((item) => !keptByScan(item.text, summary))
        expect(lost).toEqual(expectedLost)
        expect(kept).toBe(items.length - expectedLost.length)
      }),
    )
  })

  it('does not normalize: case, spacing and quotes must match', () => {
    expect(countKept([{ kind: 'error', text: 'OSError: [Errno 28]' }], 'oserror: [errno 28]').kept).toBe(0)
    expect(countKept([{ kind: 'path', text: "'/a b'" }], '"/a b"').kept).toBe(0)
  })
})

describe('buildAuditRecord', () => {
  const ledger = {
    trigger: 'auto',
    transcript: '/t/s.jsonl',
    range: [4, 40] as const,
    floor: { irreducible: 900, margin: 180, total: 1080, estimator: 'full', tokenizer: 'o200k_base' },
    tokens: 52_000,
    items: [
      { kind: 'error', text: 'E1', status: 'current' as const, message: 5 },
      { kind: 'path', text: '/a', status: 'current' as const, message: 6 },
      { kind: 'path', text: 'x'.repeat(AUDIT_TEXT_LIMIT + 50), status: 'current' as const, message: 7 },
    ],
    shown: 2,
    file: '/state/ledger.md',
  }

  it('records the session, floor, counts and the lost items with their kinds', () => {
    const count = countKept(ledger.items, 'summary mentions E1 only')
    const record = buildAuditRecord({ payload: { host: 'claude-code', sessionId: 's1', event: 'PostCompact' }, time: '2026-12-02T10:00:00.000Z', ledger, count, summaryTokens: 3100 })
    expect(record).toMatchObject({ v: 1, session: 's1', host: 'claude-code', trigger: 'auto', floor: { total: 1080 }, tokens: 52_000, summaryTokens: 3100, items: 3, kept: 1 })
    expect(record.lostKinds).toEqual({ path: 2 })
    expect(record.lost[0]).toEqual({ kind: 'path', text: '/a' })
    expect(record.lost[1]!.text.length).toBe(AUDIT_TEXT_LIMIT)
    expect(record.lost[1]!.cut).toBe(true)
    expect(record.putBack).toEqual({ shown: 2, file: '/state/ledger.md', at: null })
  })

  it('says kept: null (and why) when there was no summary to check', () => {
    const record = buildAuditRecord({ payload: { host: 'gemini', sessionId: 's', event: 'BeforeAgent' }, time: 't', ledger, count: undefined, summaryTokens: undefined, note: 'the session log holds no summary of this compaction' })
    expect(record).toMatchObject({ kept: null, summaryTokens: null, lost: [], note: 'the session log holds no summary of this compaction' })
  })
})

describe('describeVerification', () => {
  it('is the one line the issue asks for', () => {
    expect(describeVerification({ total: 87, kept: 12, putBack: true, inFile: 0 })).toBe('floorguard: the summary kept 12 of 87 state items verbatim; all 87 were put back')
    expect(describeVerification({ total: 87, kept: 12, putBack: false, inFile: 20 })).toBe(
      'floorguard: the summary kept 12 of 87 state items verbatim; all 87 go back into context when the session resumes (20 of them in the ledger file)',
    )
    expect(describeVerification({ total: 3, kept: undefined, putBack: true, inFile: 0, note: 'the summary is encrypted (a server-side compaction)' })).toBe(
      'floorguard: the summary is encrypted (a server-side compaction); all 3 state items were put back',
    )
    expect(describeVerification({ total: 0, kept: 0, putBack: true, inFile: 0 })).toBe('floorguard: the compacted messages held no state items to keep')
  })
})

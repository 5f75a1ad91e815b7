import { beforeAll, describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import { FloorguardError } from '../errors.js'
import { buildAuditRecord, countKept } from '../hooks/audit.js'
import { buildLedger } from '../hooks/ledger.js'
import type { StoredItem } from '../hooks/types.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { auditLogRecords, isAuditLogHead, withTranscriptFutureUse } from './audit-log.js'
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

// Future use of a hook record, found in the transcript it names (issue 14: "future reference … for every summary").
describe('withTranscriptFutureUse', () => {
  const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
  const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] })
  const summaryMessage = (text: string): Message => ({ role: 'user', parts: [{ type: 'summary', text, source: 'claude-code' }] })
  const transcriptOf = (messages: Message[]): Transcript => ({ format: 'claude-code', messages, pairs: [], unpaired: [] })

  const FIRST = 'Summary: we fixed src/app.ts.'
  const SECOND = 'Summary: later work.'
  // 0-3 compacted into 4; 5-6 after it; 7 the next summary; 8 after that.
  const session = [
    user('Fix src/app.ts. Never push to main.'),
    assistant('The run failed: OSError: [Errno 28] No space left on device'),
    user('Pin numpy==1.26.4 please.'),
    assistant('Pinned numpy==1.26.4 and edited src/app.ts.'),
    summaryMessage(FIRST),
    user('Is numpy==1.26.4 still pinned? Look at src/app.ts again.'),
    assistant('Yes.'),
    summaryMessage(SECOND),
    user('Remember: Never push to main.'),
  ]

  let tools: { tokenizer: TokenizerV1; estimator: FloorEstimatorV1 }
  beforeAll(async () => {
    const tokenizer = await createTokenizer('o200k_base')
    tools = { tokenizer, estimator: createEstimator({ name: 'full', tokenizer }) }
  })

  /** The record the hooks write for the compaction that put `summary` at `at` (their own functions, as hook.ts calls them). */
  function hookRecord(messages: readonly Message[], at: number, summary: string, transcript: string | undefined = '/home/dev/.claude/projects/p/s.jsonl') {
    const ledger = buildLedger({ messages: messages.slice(0, at), region: { start: 0, end: at }, estimator: tools.estimator, tokenizer: tools.tokenizer })
    const stored = ledger.items.map((item) => ({ kind: item.kind, text: item.text, status: item.status, message: item.message })) as unknown as StoredItem[]
    const record = buildAuditRecord({
      payload: { host: 'claude-code', sessionId: 's', event: 'PostCompact' },
      time: '2026-12-03T00:00:00Z',
      ledger: { ...(transcript ? { transcript } : {}), range: ledger.range, floor: { ...ledger.floor, estimator: 'full', tokenizer: 'o200k_base' }, tokens: ledger.tokens, items: stored, shown: 0, file: '/tmp/ledger.md' },
      count: countKept(stored, summary),
      summaryTokens: undefined,
    })
    return `${JSON.stringify({ ...record, summaryTokens: tools.tokenizer.count(summary) })}\n`
  }

  it('matched to its summary: every item’s first use after it, up to the next summary, as for any summary', () => {
    const [audit] = auditLogRecords(hookRecord(session, 4, FIRST), { file: 'audit.jsonl' }).summaries
    expect(audit).toMatchObject({ futureReferenced: 0, futureLost: 0, hook: { futureUse: 'the transcript was not read' } })
    const found = withTranscriptFutureUse(audit!, transcriptOf(session), tools)
    expect(found.hook?.futureUse).toBe('transcript')
    const used = new Map(found.lost.map((item) => [item.text, item.usedAgainAt]))
    // Used again at 5 (before the next summary at 7); the constraint comes back only at 8, after it: not counted.
    expect(used.get('numpy==1.26.4')).toBe(5)
    expect(used.get('Never push to main.')).toBeNull()
    expect([...used.entries()].find(([text]) => text.includes('No space left on device'))?.[1]).toBeNull()
    // src/app.ts was kept (the summary names it) and used again at 5: referenced, not lost.
    expect(used.has('src/app.ts')).toBe(false)
    expect(found.futureLost).toBe(1)
    expect(found.futureReferenced).toBe(2)
    // What the record said is kept as it was.
    expect(found.lost.map((item) => item.text)).toEqual(audit!.lost.map((item) => item.text))
    const { decision: _before, reason: _beforeReason, parts: _beforeParts, ...recorded } = audit!
    const { decision: _after, reason: _afterReason, parts: _afterParts, ...matched } = found
    expect({ ...matched, lost: [], futureReferenced: 0, futureLost: 0, hook: undefined }).toEqual({ ...recorded, lost: [], hook: undefined })
  })

  it("decides as for any summary once matched: the planner's decision and reason at the summary's size, not the record's precondition", () => {
    const [audit] = auditLogRecords(hookRecord(session, 4, FIRST), { file: 'audit.jsonl' }).summaries
    // The record alone: the summary is below the floor, and without the messages no split can be planned.
    expect(audit).toMatchObject({ decision: 'refuse', reason: 'slot-below-floor' })
    const found = withTranscriptFutureUse(audit!, transcriptOf(session), tools)
    // The planner's refusal reasons, as README lists them (plan JSON `decision.reason`, the refusal event's `code`).
    const plannerReasons = ['unit-exceeds-slot', 'would-cut-unit', 'budget-exceeded', 'range-cuts-unit', 'estimator-inconsistent', 'no-gain']
    if (found.decision === 'refuse') expect(plannerReasons).toContain(found.reason)
    else expect(found.reason).toBeUndefined()
    expect(found.decision === 'split').toBe(found.parts !== undefined)
  })

  it('matches a record whose lost texts were cut to the record\'s limit (a re-test: one long command kept it unmatched)', () => {
    const long = `OSError: [Errno 2] No such file or directory: '/srv/${'data/'.repeat(80)}upload.bin'`
    const withLong = session.map((message, index) => (index === 1 ? assistant(`The run failed: ${long}`) : message))
    const [audit] = auditLogRecords(hookRecord(withLong, 4, FIRST), { file: 'audit.jsonl' }).summaries
    expect(audit!.lost.some((item) => item.text.endsWith('…') && item.text.length === 300)).toBe(true)
    expect(withTranscriptFutureUse(audit!, transcriptOf(withLong), tools).hook?.futureUse).toBe('transcript')
  })

  it('no summary in the transcript matches (another text, another session): future use stays unknown, and says why', () => {
    const [audit] = auditLogRecords(hookRecord(session, 4, FIRST), { file: 'audit.jsonl' }).summaries
    const other = session.map((message, index) => (index === 4 ? summaryMessage('Summary: we fixed src/app.ts and pinned numpy==1.26.4.') : message))
    const found = withTranscriptFutureUse(audit!, transcriptOf(other), tools)
    expect(found).toMatchObject({ futureReferenced: 0, futureLost: 0, hook: { futureUse: 'no summary in the transcript matches the record' } })
    expect(found.lost.every((item) => item.usedAgainAt === null)).toBe(true)
    // The same summary text after other messages: its tokens match, its ledger does not (another session's, with
    // as many items as the record but another pin); and after messages with other items entirely.
    const pinned = session.map((message, index) => (index === 2 || index === 3 ? { ...message, parts: message.parts.map((part) => (part.type === 'text' ? { ...part, text: part.text.replace('numpy==1.26.4', 'numpy==1.26.5') } : part)) } : message))
    expect(withTranscriptFutureUse(audit!, transcriptOf(pinned), tools).hook?.futureUse).toBe('no summary in the transcript matches the record')
    const elsewhere = [user('Deploy to staging. Never push to main.'), assistant('Done: https://staging.example.com/api/v2'), user('Thanks.'), assistant('Ok.'), ...session.slice(4)]
    expect(withTranscriptFutureUse(audit!, transcriptOf(elsewhere), tools).hook?.futureUse).toBe('no summary in the transcript matches the record')
  })
})

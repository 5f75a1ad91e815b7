import { describe, expect, test } from 'vitest'
import type { CompactResult } from '../compact/compact.js'
import { compactJson, renderCompactReport } from './compact.js'

const result: CompactResult = {
  kind: 'compacted',
  range: [1, 3],
  floor: { estimator: 'full', tokenizer: 'approx', irreducible: 10, margin: 2, total: 12 },
  summaries: [{ range: [1, 3], slot: 200, tokens: 40, replacedTokens: 9000, text: 'MAX_RETRIES=3', attempts: 1, repaired: false }],
  refusal: null,
  verification: {
    ok: true,
    tokenizer: 'o200k_base',
    normalization: 'none',
    parts: [
      {
        range: [1, 3],
        slot: 200,
        items: 1,
        ok: true,
        attempts: [{ attempt: 1, outcome: 'verified', tokens: 40, missing: [], problems: [], invented: [] }],
        replacedTokens: 9000,
        compression: 225,
        warnings: ['compression 225x exceeds 100x: a note naming the omitted 9000 tokens was added'],
      },
    ],
  },
}
const context = { file: 'log.json', format: 'openai', summarizer: 'ledger', output: 'out.json' }

describe('compact report', () => {
  test('names the verifying tokenizer, the tokens each summary replaced and its warnings', () => {
    const text = renderCompactReport(result, context)
    expect(text).toContain('compacted into 1 verified summary (o200k_base), written to out.json')
    expect(text).toContain('  messages 1:3 (9000 tokens) → 40/200 tokens, 1 items verbatim, attempt 1')
    expect(text).toContain('    warning: compression 225x exceeds 100x: a note naming the omitted 9000 tokens was added')
  })

  test('the JSON adds replacedTokens to each summary and keeps the parts\' compression and warnings', () => {
    const json = JSON.parse(JSON.stringify(compactJson(result, context)))
    expect(json).toMatchObject({ version: 1, kind: 'compacted', summaries: [{ range: [1, 3], slot: 200, tokens: 40, replacedTokens: 9000 }] })
    expect(json.verification.parts[0]).toMatchObject({ replacedTokens: 9000, compression: 225, warnings: [expect.stringContaining('225x')] })
  })
})

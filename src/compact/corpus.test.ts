import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { compactTranscript } from './compact.js'

// The real transcripts live beside the repository (never inside it): <repo>/../shared/corpus/real.
const corpus = fileURLToPath(new URL('../../../shared/corpus/real/', import.meta.url))
const present = existsSync(corpus)
if (!present) console.log(`[floorguard] skipping the real-corpus compaction test: ${corpus} is absent`)

function corpusFiles(): string[] {
  return readdirSync(corpus, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => readdirSync(join(corpus, entry.name)).map((name) => join(corpus, entry.name, name)))
}

describe.skipIf(!present)('ledger compaction of real transcripts', () => {
  it('every accepted summary keeps 100% of its items verbatim within its slot; everything else is refused', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const estimator = createEstimator({ name: 'full', tokenizer })
    const totals = { windows: 0, compacted: 0, split: 0, refused: 0, ledgerFailures: 0, items: 0, kept: 0, flagged: 0 }
    const refusals: Record<string, number> = {}
    for (const file of corpusFiles()) {
      const transcript = await readTranscript(sourceFromString(file, readFileSync(file, 'utf8')), { format: 'auto', lenient: true }).catch(() => undefined)
      if (!transcript) continue
      // Three windows per file: start, middle, end; 40 messages each, a 2000-token slot as in the record.
      const n = transcript.messages.length
      for (const start of [0, Math.floor(n / 2), Math.max(0, n - 40)]) {
        const result = await compactTranscript(transcript, { estimator, tokenizer, slot: 2000, range: { start, end: Math.min(n, start + 40) }, attempts: 1 })
        totals.windows++
        totals[result.kind]++
        for (const summary of result.summaries) {
          const items = estimator.estimate(transcript.messages.slice(summary.range[0], summary.range[1]), summary.range[0]).items
          totals.items += items.length
          totals.kept += items.filter((item) => summary.text.includes(item.text)).length
          expect(tokenizer.count(summary.text)).toBeLessThanOrEqual(summary.slot)
          // A summary never costs more than what it replaces.
          expect(summary.tokens).toBeLessThan(summary.replacedTokens)
        }
        totals.flagged += result.verification.parts.filter((part) => (part.warnings ?? []).length > 0).length
        if (result.kind === 'refused') {
          expect(result.transcript).toBeUndefined()
          if (result.refusal?.code === 'summarizer') totals.ledgerFailures++
          const why = result.refusal?.plan?.reason ?? result.refusal?.code ?? 'unknown'
          refusals[why] = (refusals[why] ?? 0) + 1
        }
      }
    }
    console.log(`[floorguard] real corpus: ${JSON.stringify(totals)}, refusals ${JSON.stringify(refusals)}`)
    expect(totals.windows).toBeGreaterThan(0)
    expect(totals.kept).toBe(totals.items)
  })
})

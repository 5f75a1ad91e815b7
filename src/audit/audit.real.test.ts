import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { auditTranscript } from './audit.js'

// The real transcripts live beside the repository (never inside it): <repo>/../shared/corpus/real.
const folder = fileURLToPath(new URL('../../../shared/corpus/real/claude-code-engram-sjonas50/', import.meta.url))
const present = existsSync(folder)
if (!present) console.log(`[floorguard] skipping the real Claude Code audit test: ${folder} is absent`)

// SOURCES.md of the corpus: each session holds three of Claude Code's own summaries, user text records
// #347, #816, #1062 (session 1) and #314, #685, #1031 (session 2), counted from 0: lines 348, 817, … of the file.
const SESSIONS = [
  { name: 'diffusion-session1-3f0a6f23.transcript.jsonl', lines: [348, 817, 1063] },
  { name: 'diffusion-session2-e7151f41.transcript.jsonl', lines: [315, 686, 1032] },
]

describe.skipIf(!present)('audit of the two real Claude Code sessions', () => {
  it('finds exactly their six compactions, each a Claude Code summary that lost state', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const estimator = createEstimator({ name: 'full', tokenizer })
    for (const session of SESSIONS) {
      const file = join(folder, session.name)
      const text = readFileSync(file, 'utf8')
      const transcript = await readTranscript(sourceFromString(file, text), { format: 'auto' })
      const audit = auditTranscript(transcript, { estimator, tokenizer, file })
      expect(audit.format).toBe('claude-code')
      expect(audit.summaries.map((summary) => summary.line)).toEqual(session.lines)
      const lines = text.split('\n')
      for (const summary of audit.summaries) {
        expect(summary.source).toBe('claude-code')
        expect(JSON.parse(lines[summary.line! - 1]!).content.text.startsWith('This session is being continued')).toBe(true)
        expect(summary.items).toBeGreaterThan(100)
        expect(summary.survived).toBeLessThan(summary.items)
        expect(summary.futureLost).toBeLessThanOrEqual(summary.futureReferenced)
        console.log(
          `[floorguard] ${session.name} line ${summary.line}: message ${summary.message}, replaced ${summary.replaced.join('-')}, items ${summary.items}, survived ${summary.survived} (${((summary.survival ?? 0) * 100).toFixed(1)}%), future ${summary.futureReferenced}, future lost ${summary.futureLost}, counterfactual ${summary.counterfactual} [${summary.counterfactualReasons.join(', ')}], floor ${summary.floor}, summary ${summary.summaryTokens} tokens, decision ${summary.decision}${summary.parts ? ` (${summary.parts} parts)` : ''}${summary.reason ? ` (${summary.reason})` : ''}`,
        )
      }
      expect(audit.cuts).toEqual([])
    }
  })
})

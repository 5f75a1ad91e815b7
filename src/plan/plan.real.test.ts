import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, test } from 'vitest'
import { sourceFromFile } from '../cli/source.js'
import { createEstimator } from '../estimate/index.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { FormatSource } from '../spec/format.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript } from '../transcript/read.js'
import { createErrorFixLinker, startsUserTurn } from './error-fix.js'
import { planCompaction } from './plan.js'
import type { SplitPlan } from './types.js'

const fixture = new URL('../../examples/turn-412-record.openai.json', import.meta.url)
const corpus = fileURLToPath(new URL('../../../shared/corpus/real/', import.meta.url))

function stringSource(name: string, text: string): FormatSource {
  return {
    name,
    head: text.slice(0, 64 * 1024),
    text: async () => text,
    async *lines() {
      const lines = text.split('\n')
      for (const [index, line] of lines.entries()) yield { line: index + 1, text: line, last: index === lines.length - 1 }
    },
  }
}

let tokenizer: TokenizerV1
let estimator: FloorEstimatorV1
let record: Transcript

beforeAll(async () => {
  tokenizer = await createTokenizer('o200k_base')
  estimator = createEstimator({ name: 'full', tokenizer })
  record = await readTranscript(stringSource('turn-412-record.openai.json', readFileSync(fixture, 'utf8')), { format: 'auto' })
})

describe('the worked example (record, turn 412) with the full estimator and o200k_base', () => {
  test('floor 2,288 against a 2,000-token slot becomes two 1,400-token slots', () => {
    const plan = planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: 2000 }) as SplitPlan
    expect(plan.kind).toBe('split')
    expect(plan.floor).toEqual({ irreducible: 1906, margin: 382, total: 2288 })
    expect(plan.parts.map((part) => [part.range, part.floor, part.slot])).toEqual([
      [[0, 18], 1388, 1400],
      [[18, 27], 1365, 1400],
    ])
    expect(plan.summaryTokens).toBe(2800)
    expect(plan.frees).toBeGreaterThan(0)
  })

  test('the regex, the errno and the reverted pin are must-keep items of the parts, the pin marked superseded', () => {
    const plan = planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: 2000 }) as SplitPlan
    const first = plan.parts[0]!.items
    expect(first.some((item) => item.text.includes('`^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$`'))).toBe(true)
    expect(first.some((item) => item.text.includes('[Errno 28] No space left on device'))).toBe(true)
    expect(first.find((item) => item.text === 'fsspec==2024.6.1')).toMatchObject({ status: 'superseded', key: 'pin:fsspec' })
    expect(first.find((item) => item.text === 'fsspec>=2023.1,<2024.3')).toMatchObject({ status: 'current', key: 'pin:fsspec' })
    expect(plan.parts[1]!.items.some((item) => item.text.includes('[Errno 28] No space left on device'))).toBe(true)
  })

  test('one token of slot short of the floor still splits; a slot below the largest part refuses with numbers', () => {
    expect(planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: 2277 }).kind).toBe('split')
    expect(planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: 2288 }).kind).toBe('compact')
    const refusal = planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: 600 })
    expect(refusal.kind).toBe('refuse')
    if (refusal.kind !== 'refuse') return
    expect(['unit-exceeds-slot', 'would-cut-unit']).toContain(refusal.reason)
    const raise = refusal.options.find((option) => option.kind === 'raise-slot')
    expect(raise?.kind === 'raise-slot' && planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: raise.slot }).kind).not.toBe('refuse')
    expect(raise?.kind === 'raise-slot' && planCompaction({ messages: record.messages, pairs: record.pairs, estimator, tokenizer }, { slot: raise.slot - 1 }).kind).toBe('refuse')
  })
})

const corpusFiles = existsSync(corpus)
  ? readdirSync(corpus, { recursive: true, encoding: 'utf8' })
      .filter((path) => /\.(jsonl|traj|md)$/.test(path) && !path.endsWith('SOURCES.md'))
      .map((path) => `${corpus}${path}`)
  : []
if (corpusFiles.length === 0) console.log(`plan.real.test.ts: skipping real-transcript plans, ${corpus} is absent`)

describe.skipIf(corpusFiles.length === 0)('plans over the real corpus (read from shared/, never copied)', () => {
  test.each(corpusFiles.map((path) => [path.slice(corpus.length), path]))('%s: plans are well-formed at several slots', async (_name, path) => {
    const transcript = await readTranscript(await sourceFromFile(path), { format: 'auto', keepSource: false })
    const whole = estimator.estimate(transcript.messages)
    for (const share of [1, 0.5, 0.2, 0.05]) {
      const slot = Math.floor(whole.total * share)
      // How long a plan takes is the benchmark's business (`npm run bench`), not a test's.
      const plan = planCompaction({ messages: transcript.messages, pairs: transcript.pairs, estimator, tokenizer }, { slot })
      expect(plan.floor.total).toBe(whole.total)
      if (share === 1) expect(plan.kind).toBe('compact')
      if (plan.kind === 'split') {
        expect(plan.parts[0]!.range[0]).toBe(0)
        expect(plan.parts.at(-1)!.range[1]).toBe(transcript.messages.length)
        for (const part of plan.parts) expect(part.floor).toBeLessThanOrEqual(part.slot)
      }
      if (plan.kind === 'refuse') expect(plan.options.length).toBeGreaterThan(0)
    }
  })
})

describe.skipIf(corpusFiles.length === 0)('error→fix units over the real corpus', () => {
  test('every unit ends at its fix (or the report right after it) and crosses no user turn; the largest is logged', async () => {
    let largest = { size: 0, where: '' }
    let count = 0
    for (const path of corpusFiles) {
      const transcript = await readTranscript(await sourceFromFile(path), { format: 'auto', keepSource: false, lenient: true }).catch(() => undefined)
      if (!transcript) continue
      const { messages } = transcript
      for (const unit of createErrorFixLinker().link({ messages, offset: 0, pairs: transcript.pairs })) {
        count++
        const [start, end] = unit.range
        const closing = unit.resolution!.message
        const report = messages[closing + 1]
        const reportFollows = unit.resolution!.by === 'success' && report?.role === 'assistant' && !report.parts.some((part) => part.type === 'tool-call')
        expect(end, unit.label).toBe(closing + (reportFollows ? 2 : 1))
        for (let index = start + 1; index < end; index++) expect(startsUserTurn(messages[index]), `${unit.label}: user turn at ${index}`).toBe(false)
        if (end - start > largest.size) largest = { size: end - start, where: `${path.slice(corpus.length)} ${start}:${end} (${unit.label})` }
      }
    }
    console.log(`plan.real.test.ts: ${count} error→fix units in the corpus, the largest ${largest.size} messages: ${largest.where}`)
    expect(count).toBeGreaterThan(0)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createTokenizer } from '../tokenize/index.js'
import type { Message } from '../spec/transcript.js'
import { conformanceItems, conformanceMessages, createSummarizeRequest, mustKeepItems, testSummarizer } from '../test-utils/summarizer.js'
import { verifySummary } from '../verify/verify.js'
import { createLedgerSummarizer, splitSentences } from './ledger.js'
import { parseStateBlock, renderFlatStateBlock, renderStateBlock, STATE_BLOCK_OPEN } from './state-block.js'

const tokenizer = await createTokenizer('o200k_base')

testSummarizer({ name: 'ledger', createSummarizer: () => createLedgerSummarizer(), createTokenizer: () => tokenizer, failsBelowFloor: true })

describe('ledger summarizer', () => {
  const messages = conformanceMessages()
  const items = conformanceItems(messages, tokenizer)

  it('puts the state block first, grouped by kind, stale pins marked', async () => {
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: 2000, tokenizer }))
    expect(result.kind).toBe('summary')
    if (result.kind !== 'summary') return
    expect(result.text.startsWith(`${STATE_BLOCK_OPEN}\n## constraint\nnever write outside src/\n## error\n`)).toBe(true)
    expect(result.text).toContain('## version\n* lodash@4.17.21\n(superseded) lodash@4.17.20\n')
    const block = parseStateBlock(result.text)
    expect(block?.entries.map((entry) => entry.text).sort()).toEqual(items.map((item) => item.text).sort())
    expect(block?.entries.find((entry) => entry.text === 'lodash@4.17.20')?.status).toBe('superseded')
  })

  it('fills the rest of the slot with extractive sentences, user turns first', async () => {
    const request = createSummarizeRequest({ messages, items, slot: 2000, tokenizer })
    const result = await createLedgerSummarizer().summarize(request)
    if (result.kind !== 'summary') throw new Error(result.reason)
    const gist = result.text.slice(parseStateBlock(result.text)!.end)
    expect(gist).toContain('user: The limit is exactly 4096 bytes.')
    expect(gist).toContain('assistant: Done.')
    // Extractive: every gist line is `role: ` plus a sentence of the segment.
    const segmentText = messages.map((message) => message.parts.map((part) => ('text' in part ? part.text : 'content' in part ? part.content : '')).join('\n')).join('\n')
    for (const line of gist.split('\n').filter((line) => line !== '')) {
      expect(segmentText).toContain(line.slice(line.indexOf(': ') + 2))
    }
  })

  it('with a tight slot keeps the user turn over the tool output', async () => {
    const block = (await createLedgerSummarizer({ gist: false }).summarize(createSummarizeRequest({ messages, items, slot: 2000, tokenizer })))
    if (block.kind !== 'summary') throw new Error('no block')
    const slot = tokenizer.count(block.text) + 30
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot, tokenizer }))
    if (result.kind !== 'summary') throw new Error(result.reason)
    expect(tokenizer.count(result.text)).toBeLessThanOrEqual(slot)
    expect(result.text).toContain('user: ')
    expect(result.text).not.toContain('tool: ENOENT')
  })

  it('fails (never truncates) when the state block alone exceeds the slot', async () => {
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: 20, tokenizer }))
    expect(result).toMatchObject({ kind: 'failure', retryable: false })
    if (result.kind === 'failure') expect(result.reason).toMatch(/state block needs \d+ tokens .*slot is 20/)
  })

  it('property: any segment and slot → a verified summary, or a failure exactly when neither block layout fits', async () => {
    const word = fc.stringMatching(/^[a-zA-Z0-9_./:"'@-]{1,12}$/)
    const sentence = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => `${words.join(' ')}.`)
    const text = fc.array(sentence, { minLength: 1, maxLength: 5 }).map((sentences) => sentences.join(' '))
    const message = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const), text })
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 400 }), fc.nat(), async (specs, slot, seed) => {
        const segment: Message[] = specs.map((spec) =>
          spec.role === 'tool'
            ? { role: 'tool', parts: [{ type: 'tool-result', callId: 'x', content: spec.text, isError: false }] }
            : { role: spec.role, parts: [{ type: 'text', text: spec.text }] },
        )
        // Items: some words of the segment, chosen by the seed.
        const words = specs.flatMap((spec) => spec.text.split(/[ .]+/).filter((w) => w.length > 2))
        const picked = [...new Set(words.filter((_, index) => (index + seed) % 3 === 0))]
        const items = mustKeepItems(segment, picked.map((w, index) => ({ kind: index % 2 ? 'identifier' : 'number', text: w, status: index % 4 === 3 ? 'superseded' : 'current' })), tokenizer)
        const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages: segment, items, slot, tokenizer }))
        const groups = createSummarizeRequest({ messages: segment, items, slot, tokenizer }).groups
        const smallest = Math.min(tokenizer.count(renderStateBlock(groups)), tokenizer.count(renderFlatStateBlock(groups)))
        if (smallest > slot) return result.kind === 'failure' && !result.retryable
        return result.kind === 'summary' && verifySummary({ summary: result.text, items, slot, tokenizer }).ok
      }),
      { numRuns: 60 },
    )
  })
})

describe('splitSentences', () => {
  it('splits at line breaks and sentence ends, keeping decimals and paths whole', () => {
    expect(splitSentences('Use v1.2.3 now. Is src/a.ts ok?\nYes!  Done')).toEqual(['Use v1.2.3 now.', 'Is src/a.ts ok?', 'Yes!', 'Done'])
  })
  it('is linear on long inputs', () => {
    const text = 'a. '.repeat(200_000)
    const started = performance.now()
    expect(splitSentences(text)).toHaveLength(200_000)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})

describe('ledger flat layout', () => {
  it('falls back to one heading when a heading per kind does not fit, and still keeps every item', async () => {
    const messages = conformanceMessages()
    const items = conformanceItems(messages, tokenizer)
    const grouped = await createLedgerSummarizer({ gist: false }).summarize(createSummarizeRequest({ messages, items, slot: 100_000, tokenizer }))
    if (grouped.kind !== 'summary') throw new Error('no block')
    const slot = tokenizer.count(grouped.text) - 1
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot, tokenizer }))
    expect(result.kind).toBe('summary')
    if (result.kind !== 'summary') return
    expect(result.text.startsWith(`${STATE_BLOCK_OPEN}\n## state\n`)).toBe(true)
    expect(verifySummary({ summary: result.text, items, slot, tokenizer }).ok).toBe(true)
    expect(parseStateBlock(result.text)?.entries.find((entry) => entry.text === 'lodash@4.17.20')?.status).toBe('superseded')
  })
})

import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { splitSentences } from '../summarize/ledger.js'
import { createNaiveSummarizer, naiveSummary } from './naive-summarizer.js'

const words = (text: string): number => text.split(/\s+/).filter((word) => word.length > 0).length

const segment: Message[] = [
  { role: 'user', parts: [{ type: 'text', text: 'Uploads fail on worker-b. Validate paths against `^/a/[a-z]+$` exactly. Do not loosen it.' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'text', text: 'Reproducing the failure first. Then I will read the storage module.' },
      { type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: 'python -m worker --once' } },
    ],
  },
  { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: "OSError: [Errno 18] Invalid cross-device link: '/a/b'", isError: true }] },
  { role: 'assistant', parts: [{ type: 'text', text: 'The move between filesystems fails. I will copy instead of renaming.' }] },
]

describe('naiveSummary', () => {
  it('never keeps tool output, even when the slot has room for everything', () => {
    const text = naiveSummary(segment, words, 10_000)
    expect(text).not.toContain('Errno 18')
    expect(text).toContain('(ran Bash)')
    expect(text).toContain('Do not loosen it.')
  })

  it('under length pressure keeps first sentences: the narrative, not the regex', () => {
    const full = naiveSummary(segment, words, 10_000)
    const text = naiveSummary(segment, words, words(full) - 8)
    expect(words(text)).toBeLessThanOrEqual(words(full) - 8)
    expect(text).toContain('Uploads fail on worker-b.')
    expect(text).not.toContain('^/a/[a-z]+$')
  })

  it('fits any slot, dropping assistant lines before user lines', () => {
    for (let slot = 1; slot <= 60; slot++) {
      const text = naiveSummary(segment, words, slot)
      expect(words(text)).toBeLessThanOrEqual(Math.max(slot, words('Summary of the earlier conversation:')))
    }
    const tight = naiveSummary(segment, words, 12)
    expect(tight).toContain('User: Uploads fail on worker-b.')
    expect(tight).not.toContain('Assistant:')
  })

  it('is deterministic', () => {
    expect(naiveSummary(segment, words, 20)).toBe(naiveSummary(segment, words, 20))
  })

  it('as a SummarizerV1: ignores the must-keep items it is given and stays within the real slot', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const summarizer = createNaiveSummarizer()
    const result = await summarizer.summarize({
      messages: segment,
      offset: 1,
      slot: 25,
      tokenizer,
      groups: [{ kind: 'regex', items: [{ kind: 'regex', text: '^/a/[a-z]+$', tokens: 6, message: 1, start: 0, end: 11, status: 'current' }] }],
      attempt: 1,
      missing: [],
    })
    expect(result.kind).toBe('summary')
    if (result.kind !== 'summary') return
    expect(tokenizer.count(result.text)).toBeLessThanOrEqual(25)
    expect(result.text).not.toContain('^/a/[a-z]+$')
  })
})

describe('splitSentences', () => {
  it('ends a sentence at . ! ? before white space or at a line break, not inside a literal', () => {
    expect(splitSentences('One. Two! Three? Four')).toEqual(['One.', 'Two!', 'Three?', 'Four'])
    expect(splitSentences('Match `^a\\.bin$` exactly. Next')).toEqual(['Match `^a\\.bin$` exactly.', 'Next'])
    expect(splitSentences('line one\nline two.')).toEqual(['line one', 'line two.'])
    expect(splitSentences('  ')).toEqual([])
  })
})

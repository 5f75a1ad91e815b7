import { describe, expect, test } from 'vitest'
import { auditTranscript } from '../audit/audit.js'
import { createEstimator } from '../estimate/index.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { pairToolCalls, renderMessage } from '../transcript/render.js'
import { injectionSession } from './__fixtures__/session.js'
import { buildSessionReport } from './build.js'

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer })

function transcriptOf(messages: Message[]): Transcript {
  return { format: 'openai', messages, ...pairToolCalls(messages) }
}

describe('buildSessionReport', () => {
  test('each item is the exact text at its offsets in its message; running sums restart at the summary', () => {
    const transcript = injectionSession()
    const report = buildSessionReport(transcript, { file: 'x', estimator, tokenizer })
    expect(report.items.length).toBeGreaterThan(10)
    // A tool argument's offsets span its JSON string in the rendered call (quotes, escapes); every other item is verbatim.
    for (const item of report.items) {
      const slice = renderMessage(transcript.messages[item.message]!).text.slice(item.start, item.end)
      expect(item.kind === 'tool-argument' ? JSON.parse(slice) : slice).toBe(item.text)
    }
    // The oracle: the sums written out plainly, restarting at message 20 (the summary).
    let context = 0
    let floor = 0
    let seen = new Set<string>()
    report.messages.forEach((message, index) => {
      if (index === 20) {
        context = 0
        floor = 0
        seen = new Set()
      }
      context += tokenizer.count(renderMessage(transcript.messages[index]!).text)
      for (const item of estimator.extract(transcript.messages[index]!, index)) {
        if (!seen.has(item.text)) floor += item.tokens
        seen.add(item.text)
      }
      expect([message.context, message.floor]).toEqual([context, floor])
    })
    expect(report.compactions).toMatchObject([{ message: 20, source: 'claude-code', replaced: [0, 20] }])
    expect(report.plan).toMatchObject({ range: [20, 37] })
    expect(report.planScope).toBe('next-compaction')
  })

  test('without summaries, the plan covers the first high-water cut of the audit', () => {
    const messages: Message[] = Array.from({ length: 30 }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      parts: [{ type: 'text', text: `step ${index}: edit src/mod_${index}.py and keep RETRIES_${index}=3. ${'words of narrative '.repeat(60)}` }],
    }))
    const transcript = transcriptOf(messages)
    const audit = auditTranscript(transcript, { estimator, tokenizer, budget: 4000, highWaterMark: 0.5 })
    expect(audit.cuts.length).toBeGreaterThan(0)
    const report = buildSessionReport(transcript, { file: 'x', estimator, tokenizer, audit, budget: 4000, highWaterMark: 0.5 })
    expect(report.planScope).toBe('first-cut')
    expect(report.plan?.range).toEqual([...audit.cuts[0]!.replaced])
    expect(report.cuts).toHaveLength(audit.cuts.length)
  })

  test('caps: message text (never splitting a surrogate pair), the item list and item texts', () => {
    const long = `${'a'.repeat(199)}😀${'b'.repeat(500)} /srv/app/one.py /srv/app/two.py /srv/app/three.py`
    const transcript = transcriptOf([{ role: 'user', parts: [{ type: 'text', text: long }] }])
    const report = buildSessionReport(transcript, { file: 'x', estimator, tokenizer, maxMessageChars: 200, maxItems: 2, maxItemChars: 8 })
    const [message] = report.messages
    expect(message!.text).toBe('a'.repeat(199))
    expect(message!.omitted).toBe(long.length - 199)
    expect(report.items).toHaveLength(2)
    expect(report.itemsOmitted).toBe(1)
    expect(report.items[0]).toMatchObject({ text: '/srv/app', clipped: '/srv/app/one.py'.length - 8 })
  })

  test('an empty transcript has no plan and no items', () => {
    const report = buildSessionReport(transcriptOf([]), { file: 'x', estimator, tokenizer })
    expect(report).toMatchObject({ plan: null, items: [], messages: [], compactions: [], messageCount: 0 })
  })
})

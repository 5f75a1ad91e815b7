import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { claudeAgentEventsFormat } from './claude-agent-events.js'

const text = readFileSync(new URL('./__fixtures__/claude-agent-events/session-events.jsonl', import.meta.url), 'utf8')
const read = (name: string, input = text) => claudeAgentEventsFormat.read(sourceFromString(name, input))

testTranscriptFormat({
  format: claudeAgentEventsFormat,
  fixtures: [{ name: 'session-events.jsonl', text, expect: { messages: 9, toolCalls: 4, toolResults: 3, unpaired: 1 } }],
})

describe('claude-agent-events mapping', () => {
  it('groups one model request into one assistant message and results into tool messages', async () => {
    const transcript = await read('session-events.jsonl')
    expect(transcript.messages.map((message) => [message.role, message.provenance])).toEqual([
      ['user', { line: 2 }],
      ['assistant', { line: 5, endLine: 7 }],
      ['tool', { line: 9, endLine: 10 }],
      ['assistant', { line: 12 }],
      ['tool', { line: 14 }],
      ['assistant', { line: 16 }],
      ['user', { line: 18 }],
      ['assistant', { line: 20, endLine: 21 }],
      // The write call in the last request has no result: the interrupt ends the run.
      ['user', { line: 24 }],
    ])
    expect(transcript.messages[1]!.parts).toEqual([
      { type: 'text', text: "I'll fetch the paper and search for artifacts." },
      { type: 'tool-call', id: 'sevt_01FixFetch', name: 'web_fetch', arguments: { url: 'https://dl.acm.org/doi/10.1145/3544548.3581433' } },
      { type: 'tool-call', id: 'sevt_01FixSearch', name: 'web_search', arguments: { query: 'Point of no Undo github' } },
    ])
  })

  it('renders result blocks as text with placeholders for search results and documents', async () => {
    const transcript = await read('session-events.jsonl')
    expect(transcript.messages[2]!.parts).toEqual([
      { type: 'tool-result', callId: 'sevt_01FixFetch', content: 'Web fetch error: url_not_accessible', isError: true },
      {
        type: 'tool-result',
        callId: 'sevt_01FixSearch',
        content: '[search result: BeatRossmy/PunishableAI (https://github.com/BeatRossmy/PunishableAI)]\n[document: Point of no Undo (PDF)]',
        isError: false,
      },
    ])
  })

  it('turns the outcome, the grader feedback and the interrupt into user text, and counts markers', async () => {
    const transcript = await read('session-events.jsonl')
    const texts = transcript.messages.filter((message) => message.role === 'user').map((message) => (message.parts[0] as { text: string }).text)
    expect(texts).toEqual([
      'Audit the reproducibility of https://doi.org/10.1145/3544548.3581433 and write REPRODUCIBILITY.md.\n\n1. At least five unwritten decisions are enumerated.\n2. Every component is marked reproduced / partial / blocked.',
      '[outcome evaluation: needs_revision]\nCriterion 1 is missing: only three unwritten decisions are listed.',
      '[interrupt]',
    ])
    expect(transcript.envelope).toEqual({
      skipped: { 'session.status_running': 1, 'span.model_request_start': 4, 'agent.thinking': 1, 'span.model_request_end': 4, 'session.status_idle': 1 },
    })
  })

  it('names the line and field of a malformed event', async () => {
    await expect(read('bad.jsonl', '{"role":"agent","kind":"tool_use","raw":{"type":"agent.tool_use","id":"sevt_1"}}\n')).rejects.toThrow(
      'bad.jsonl:1: /raw/name: expected a string, got nothing (the field is missing)',
    )
    await expect(read('bad.jsonl', '{"role":"agent","kind":"x"}\n')).rejects.toThrow('bad.jsonl:1: /raw: expected the raw event object, got nothing (the field is missing)')
  })
})

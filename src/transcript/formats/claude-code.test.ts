import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { CLAUDE_CODE_SUMMARY_PREFIX, claudeCodeFormat, createClaudeCodeFormat } from './claude-code.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/claude-code/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => claudeCodeFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: claudeCodeFormat,
  fixtures: [
    { name: 'native-session.jsonl', text: fixture('native-session.jsonl'), expect: { messages: 7, toolCalls: 3, toolResults: 2, unpaired: 1 } },
    { name: 'engram-session.jsonl', text: fixture('engram-session.jsonl'), expect: { messages: 10, toolCalls: 4, toolResults: 3, unpaired: 1 } },
    { name: 'subagent.jsonl', text: fixture('subagent.jsonl'), expect: { messages: 4, toolCalls: 1, toolResults: 1, unpaired: 0 } },
  ],
})

describe('claude-code native records', () => {
  it('regroups the records of one API message by message.id and merges consecutive tool results', async () => {
    const transcript = await read('native-session.jsonl')
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'user', 'assistant'])
    const turn = transcript.messages[1]!
    expect(turn.parts.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call', 'tool-call'])
    expect(turn.provenance).toEqual({ line: 4, endLine: 7 })
    expect(turn.source).toHaveLength(4)
    expect(transcript.messages[2]!.parts).toEqual([
      {
        type: 'tool-result',
        callId: 'toolu_01Bash',
        content: 'Exit code 1\nFAIL test/webhooks.test.ts > rejects tampered body\nError: No signatures found matching the expected signature for payload (tolerance 300s)',
        isError: true,
      },
      { type: 'tool-result', callId: 'toolu_01Read', content: "     1→import Stripe from 'stripe'\n     2→export const TOLERANCE_SECONDS = 300\n[image]", isError: false },
    ])
  })

  it('reads the continuation summary as a summary part, and keeps compaction metadata and skip counts', async () => {
    const transcript = await read('native-session.jsonl')
    const summary = transcript.messages[4]!
    expect(summary.parts).toHaveLength(1)
    expect(summary.parts[0]).toMatchObject({ type: 'summary', source: 'claude-code' })
    expect((summary.parts[0] as { text: string }).text.startsWith(CLAUDE_CODE_SUMMARY_PREFIX)).toBe(true)
    expect(transcript.messages[5]!.parts).toEqual([
      { type: 'text', text: 'Here is the screenshot of the dashboard error.' },
      { type: 'text', text: '[image]' },
    ])
    expect(transcript.envelope).toEqual({
      compactions: [{ line: 13, trigger: 'auto', preTokens: 155312 }],
      skipped: { summary: 1, 'file-history-snapshot': 1, sidechain: 2, 'system:compact_boundary': 1, 'redacted_thinking': 1, 'system:api_error': 1 },
    })
    expect(transcript.unpaired).toEqual([{ kind: 'call', id: 'toolu_01Edit', message: 6, part: 1 }])
  })

  it('reads a subagent file (every record a sidechain) whole', async () => {
    const transcript = await read('subagent.jsonl')
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(transcript.envelope).toBeUndefined()
  })

  it('names the record, field and expectation for a bad record', async () => {
    await expect(read('bad.jsonl', '{"type":"user","uuid":"u1","message":{"role":"user","content":7}}\n')).rejects.toThrow(
      'bad.jsonl:1: /message/content: expected a string or an array of content blocks, got number 7',
    )
    await expect(read('bad.jsonl', '{"type":"assistant","uuid":"u1","message":{"content":[{"type":"tool_use","name":"Bash"}]}}\n')).rejects.toThrow(
      'bad.jsonl:1: /message/content/0/id: expected a string, got nothing (the field is missing)',
    )
    await expect(read('bad.jsonl', '{"uuid":"u1"}\n')).rejects.toThrow('bad.jsonl:1: expected a Claude Code record object (a "type" string, or an Engram record with "role" and "content"), got an object with keys uuid (a malformed line; --lenient')
  })
})

describe('claude-code Engram records', () => {
  it('regroups consecutive same-role lines into one message per turn, a summary always alone', async () => {
    const transcript = await read('engram-session.jsonl')
    expect(transcript.messages.map((message) => [message.role, message.provenance])).toEqual([
      ['user', { line: 1 }],
      ['assistant', { line: 2, endLine: 5 }],
      ['tool', { line: 6, endLine: 7 }],
      ['assistant', { line: 8, endLine: 9 }],
      ['user', { line: 10 }],
      ['user', { line: 11 }],
      ['user', { line: 12, endLine: 13 }],
      ['assistant', { line: 14 }],
      ['tool', { line: 15 }],
      ['assistant', { line: 16 }],
    ])
    expect(transcript.messages[5]!.parts[0]).toMatchObject({ type: 'summary', source: 'claude-code' })
    // Parallel results arrive out of order; pairing is by id.
    expect(transcript.pairs.map((pair) => pair.id)).toEqual(['toolu_02Pod', 'toolu_02Cfg', 'toolu_02Pip'])
  })

  it('rejects an unknown role with the line and the roles it expects', async () => {
    await expect(read('bad.jsonl', '{"timestamp":"t","role":"bot","content":{"type":"text","text":"x"}}\n')).rejects.toThrow(
      'bad.jsonl:1: /role: expected "user", "assistant" or "tool", got the string "bot"',
    )
  })

  it('makes one message per maximal same-role run and keeps every block (property)', async () => {
    const record = fc.oneof(
      fc.record({ role: fc.constant('user'), content: fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 8 }) }) }),
      fc.record({ role: fc.constant('assistant'), content: fc.record({ type: fc.constantFrom('text', 'thinking'), text: fc.string({ maxLength: 8 }) }) }),
      fc.record({
        role: fc.constant('tool'),
        content: fc.record({ type: fc.constant('tool_result'), tool_id: fc.constantFrom('t1', 't2'), output: fc.string({ maxLength: 8 }), is_error: fc.boolean() }),
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 20 }), async (records) => {
        const text = records.map((entry) => JSON.stringify({ timestamp: '2026-03-10T02:22:01.000Z', ...entry })).join('\n') + '\n'
        const transcript = await claudeCodeFormat.read(sourceFromString('p.jsonl', text))
        const runs = records.filter((entry, index) => index === 0 || records[index - 1]!.role !== entry.role).length
        expect(transcript.messages).toHaveLength(runs)
        expect(transcript.messages.reduce((total, message) => total + message.parts.length, 0)).toBe(records.length)
        const streamed: Message[] = []
        for await (const message of claudeCodeFormat.stream!(sourceFromString('p.jsonl', text))) streamed.push(message)
        expect(streamed).toEqual(transcript.messages)
      }),
      { numRuns: 60 },
    )
  })
})

describe('claude-code append', () => {
  it('appends native records (a summary flagged isCompactSummary) that extend the log without rewriting it', async () => {
    let id = 0
    const format = createClaudeCodeFormat({ now: () => new Date('2026-03-09T04:00:00.000Z'), randomId: () => `uuid-${++id}` })
    const summary: Message = { role: 'user', parts: [{ type: 'summary', text: 'Summary: keep ^/v1/hooks/[a-z]+$ exactly.', source: 'floorguard' }] }
    const reply: Message = { role: 'assistant', parts: [{ type: 'text', text: 'Continuing.' }] }
    const appended = format.append!([summary, reply])
    expect(appended.split('\n').slice(0, 2).map((line) => JSON.parse(line))).toEqual([
      {
        parentUuid: null,
        isSidechain: false,
        type: 'user',
        message: { role: 'user', content: 'Summary: keep ^/v1/hooks/[a-z]+$ exactly.' },
        isCompactSummary: true,
        uuid: 'uuid-1',
        timestamp: '2026-03-09T04:00:00.000Z',
      },
      {
        parentUuid: 'uuid-1',
        isSidechain: false,
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Continuing.' }] },
        uuid: 'uuid-2',
        timestamp: '2026-03-09T04:00:00.000Z',
      },
    ])
    const log = fixture('native-session.jsonl')
    const extended = await read('extended.jsonl', log + appended)
    expect(extended.messages.slice(-2).map((message) => message.parts)).toEqual([
      [{ type: 'summary', text: 'Summary: keep ^/v1/hooks/[a-z]+$ exactly.', source: 'claude-code' }],
      [{ type: 'text', text: 'Continuing.' }],
    ])
  })
})

describe('claude-code: lines of no known shape', () => {
  it('fail naming --lenient, and are skipped and reported under it', async () => {
    // A black-box re-test: a valid JSON line of the wrong shape was fatal even with --lenient.
    const good = (uuid: string, text: string) => JSON.stringify({ type: 'user', uuid, parentUuid: null, isSidechain: false, message: { role: 'user', content: text } })
    const text = [good('u1', 'first'), '{"foo":1}', '42', good('u2', 'second')].join('\n') + '\n'
    await expect(claudeCodeFormat.read(sourceFromString('s.jsonl', text))).rejects.toThrow(/^s\.jsonl:2: expected a Claude Code record object .*, got an object with keys foo \(a malformed line; --lenient skips such lines/)
    const transcript = await claudeCodeFormat.read(sourceFromString('s.jsonl', text), { lenient: true })
    expect(transcript.messages.map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : part.type)).join())).toEqual(['first', 'second'])
    expect(transcript.warnings).toEqual([expect.stringMatching(/^s\.jsonl:2: expected a Claude Code record object .*: line skipped$/), expect.stringMatching(/^s\.jsonl:3: expected a Claude Code record object .*, got number 42: line skipped$/)])
    // An Engram log keeps its records under --lenient too; a file with no record of a known shape is no log.
    const engram = ['{"foo":1}', fixture('engram-session.jsonl').split('\n')[0]!].join('\n')
    expect((await claudeCodeFormat.read(sourceFromString('e.jsonl', engram), { lenient: true })).messages).toHaveLength(1)
    await expect(claudeCodeFormat.read(sourceFromString('n.jsonl', '{"foo":1}\n{"type":7}\n'), { lenient: true })).rejects.toThrow(/^n\.jsonl: expected a JSONL log, got no readable record \(2 lines skipped\)$/)
  })
})

import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { readTranscript } from '../read.js'
import { sourceFromString } from '../source.js'
import { writeCompacted } from '../write-compacted.js'
import { withSummaries } from '../__fixtures__/with-summaries.js'
import { CLAUDE_CODE_SUMMARY_PREFIX, claudeCodeFormat, createClaudeCodeFormat, detectClaudeCode } from './claude-code.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/claude-code/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => claudeCodeFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: claudeCodeFormat,
  fixtures: [
    { name: 'native-session.jsonl', text: fixture('native-session.jsonl'), expect: { messages: 7, toolCalls: 3, toolResults: 2, unpaired: 1 } },
    { name: 'engram-session.jsonl', text: fixture('engram-session.jsonl'), expect: { messages: 10, toolCalls: 4, toolResults: 3, unpaired: 1 } },
    { name: 'subagent.jsonl', text: fixture('subagent.jsonl'), expect: { messages: 4, toolCalls: 1, toolResults: 1, unpaired: 0 } },
    { name: 'modern-session.jsonl', text: fixture('modern-session.jsonl'), expect: { messages: 8, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    { name: 'resumed-after-compaction.jsonl', text: fixture('resumed-after-compaction.jsonl'), expect: { messages: 9, toolCalls: 0, toolResults: 0, unpaired: 0 } },
    { name: 'file-attachment.jsonl', text: fixture('file-attachment.jsonl'), expect: { messages: 4, toolCalls: 0, toolResults: 0, unpaired: 0 } },
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

describe('claude-code: records of a known shape that cannot be read', () => {
  it('fail naming --lenient, and are skipped and reported under it (a misspelt key, a tool input nested too deep)', async () => {
    // A black-box re-test: a real fixture's `"contenst"` and a tool input nested past 512 levels were fatal even with --lenient.
    const record = (uuid: string, parent: string | null, message: Record<string, unknown>, type = 'user') => JSON.stringify({ type, uuid, parentUuid: parent, isSidechain: false, message })
    let deep: unknown = 'x'
    for (let level = 0; level < 600; level++) deep = { a: deep }
    const text = [
      record('u1', null, { role: 'user', content: 'first' }),
      record('u2', 'u1', { role: 'user', contenst: 'typo' }),
      record('a1', 'u1', { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: deep }] }, 'assistant'),
      record('u3', 'a1', { role: 'user', content: 'second' }),
    ].join('\n') + '\n'
    await expect(claudeCodeFormat.read(sourceFromString('r.jsonl', text))).rejects.toThrow(/^r\.jsonl:2: \/message\/content: expected .*\(a record floorguard cannot read; --lenient skips such lines and reports them\)$/)
    const transcript = await claudeCodeFormat.read(sourceFromString('r.jsonl', text), { lenient: true })
    expect(transcript.messages.map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : part.type)).join())).toEqual(['first', 'second'])
    expect(transcript.warnings).toEqual([
      expect.stringMatching(/^r\.jsonl:2: \/message\/content: expected .*: line skipped$/),
      expect.stringMatching(/^r\.jsonl:3: expected JSON nested at most 512 levels deep, got deeper nesting: line skipped$/),
    ])
    expect((transcript.envelope as Record<string, unknown> | undefined)?.['skipped']).toMatchObject({ unreadable: 2 })
  })
})

type Row = Record<string, unknown>

/** The records of a JSONL text, one per non-blank line. */
const rows = (text: string): Row[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row)


/** Compacts `ranges` of a fixture (one summary text per range, `Summary of a:b.`) with fixed ids and clock. */
async function compactFixture(name: string, ranges: ReadonlyArray<readonly [number, number]>, text = fixture(name)): Promise<{ transcript: Transcript; output: string; summaries: string[] }> {
  const transcript = await claudeCodeFormat.read(sourceFromString(name, text))
  const summaries = ranges.map((range) => ({ range, text: `Summary of ${range[0]}:${range[1]}.` }))
  let id = 0
  const output = writeCompacted({
    input: Buffer.from(text, 'utf8'),
    transcript,
    compacted: withSummaries(transcript, summaries),
    summaries,
    now: () => new Date('2026-06-05T00:00:00.000Z'),
    randomId: () => `new-${++id}`,
  }).toString('utf8')
  return { transcript, output, summaries: summaries.map((summary) => summary.text) }
}

/**
 * The chain a resume loads (an oracle written apart from the writer): from the last user or assistant record of the
 * thread (the main thread, or the sidechain when every record is one), `parentUuid` up to a root. `missing` names a
 * parent the file does not hold; `cycle` is set when the walk comes back to a record.
 */
function chainFromLast(records: readonly Row[]): { readonly chain: Row[]; readonly missing?: string; readonly cycle?: true } {
  const messages = records.filter((record) => record['type'] === 'user' || record['type'] === 'assistant')
  const sidechain = messages.every((record) => record['isSidechain'] === true)
  const last = [...messages].reverse().find((record) => (record['isSidechain'] === true) === sidechain)!
  const byUuid = new Map<string, Row>()
  for (const record of records) if (typeof record['uuid'] === 'string') byUuid.set(record['uuid'], record)
  const chain: Row[] = []
  const seen = new Set<unknown>()
  for (let record: Row | undefined = last; record !== undefined; ) {
    if (seen.has(record['uuid'])) return { chain, cycle: true }
    seen.add(record['uuid'])
    chain.push(record)
    const parent = record['parentUuid']
    if (parent === null || parent === undefined) break
    record = byUuid.get(parent as string)
    if (record === undefined) return { chain, missing: String(parent) }
  }
  return { chain }
}

const summaryTexts = (records: readonly Row[]): string[] =>
  records.flatMap((record) => {
    const content = (record['message'] as { content?: unknown } | undefined)?.content
    return record['isCompactSummary'] === true && typeof content === 'string' && content.startsWith('Summary of ') ? [content] : []
  })

const boundaries = (records: readonly Row[]): Row[] => records.filter((record) => record['type'] === 'system' && record['subtype'] === 'compact_boundary')

describe('claude-code: logs of newer Claude Code versions', () => {
  // A black-box re-test: 2.1.97 to 2.1.212 logs open with permission-mode, last-prompt, mode, ai-title or attachment
  // records, and auto-detection scored the first record only, against a list of known types: no format claimed them.
  const heads = [
    { type: 'permission-mode', permissionMode: 'default', sessionId: 'sess-1' },
    { type: 'last-prompt', lastPrompt: 'fix it', leafUuid: 'u-0014', sessionId: 'sess-1' },
    { type: 'mode', mode: 'normal', sessionId: 'sess-1' },
    { type: 'ai-title', aiTitle: 'Fix the webhook', sessionId: 'sess-1' },
    { type: 'attachment', parentUuid: null, uuid: 'att-1', sessionId: 'sess-1', isSidechain: false, attachment: { type: 'todo_reminder', content: [] } },
    { type: 'a-record-type-of-a-later-version', sessionId: 'sess-1', payload: { anything: true } },
  ]

  it.each(heads.map((head) => [head.type, head] as const))('detects a log that opens with a %s record, and reads past it', async (type, head) => {
    const text = `${JSON.stringify(head)}\n${fixture('native-session.jsonl')}`
    expect(detectClaudeCode(text)).toBeGreaterThanOrEqual(0.9)
    const transcript = await readTranscript(sourceFromString('new.jsonl', text))
    expect(transcript.format).toBe('claude-code')
    expect(transcript.messages.map((message) => message.parts)).toEqual((await read('native-session.jsonl')).messages.map((message) => message.parts))
    expect((transcript.envelope as { skipped: Record<string, number> }).skipped[type]).toBe(1)
  })

  it('detects from several head records, and claims no head with a record of no Claude Code key', () => {
    const lines = fixture('modern-session.jsonl').split('\n')
    // Eight records of non-message types before the first message.
    const head = [lines[0], lines[1], lines[0], lines[12], lines[13], lines[1], lines[2], lines[0], ...lines.slice(3)].join('\n')
    expect(detectClaudeCode(head)).toBeGreaterThanOrEqual(0.9)
    expect(detectClaudeCode(`{"type":"event","id":1}\n${fixture('native-session.jsonl')}`)).toBe(0)
    expect(detectClaudeCode('{"type":"permission-mode","permissionMode":"default"}\n{"type":"message","text":"hi"}\n')).toBe(0)
  })

  it('detects the compacted copy again when a kept attachment becomes its first line', async () => {
    // A re-test: compact moved an attachment record (kept among the range's lines) to line 1 of its output.
    const text = fixture('modern-session.jsonl').split('\n').slice(3).join('\n')
    const { output } = await compactFixture('start.jsonl', [[0, 2]], text)
    expect((JSON.parse(output.split('\n')[0]!) as Row)['type']).toBe('attachment')
    expect((await readTranscript(sourceFromString('out.jsonl', output))).format).toBe('claude-code')
  })
})

describe('claude-code: records in parent order', () => {
  it('pairs parallel calls whose results the file holds before the calls, with each line in one message', async () => {
    // A re-test: Claude Code wrote a parallel call's result two lines before the call (the parentUuid chain right),
    // and reading in file order left real pairs unpaired (10 in one log, 20 in another).
    const transcript = await read('modern-session.jsonl')
    expect(transcript.unpaired).toEqual([])
    expect(transcript.pairs.map((pair) => [pair.id, pair.call.message, pair.result.message])).toEqual([
      ['toolu_01Read', 1, 2],
      ['toolu_01Test', 3, 4],
    ])
    expect(transcript.messages.map((message) => [message.role, message.provenance])).toEqual([
      ['user', { line: 4 }],
      ['assistant', { line: 6, endLine: 7 }],
      ['tool', { line: 9 }],
      // The same API message as lines 6-7, apart: line 8 (another message) lies between.
      ['assistant', { line: 10 }],
      ['tool', { line: 8 }],
      // The turn_duration record at line 11 times the reply at line 12: it joins the reply's span.
      ['assistant', { line: 11, endLine: 12 }],
      ['user', { line: 15 }],
      ['assistant', { line: 16 }],
    ])
  })

  it('reads a chain written in any order as the chain, with disjoint message spans (property)', async () => {
    // A chain of turns: prompt, thinking and call (records of one API message), result, reply, and a system record
    // after the reply that the next prompt hangs under (Claude Code's turn_duration). The oracle is the chain itself.
    const turns = 3
    const chain: Row[] = []
    const expected: string[] = []
    let parent: string | null = null
    const push = (record: Row, part?: string): void => {
      const uuid = `r-${chain.length}`
      chain.push({ parentUuid: parent, isSidechain: false, sessionId: 's', ...record, uuid })
      if (part !== undefined) expected.push(part)
      parent = uuid
    }
    for (let turn = 0; turn < turns; turn++) {
      push({ type: 'user', message: { role: 'user', content: `prompt ${turn}` } }, `user:prompt ${turn}`)
      push({ type: 'assistant', message: { id: `msg-${turn}-a`, role: 'assistant', content: [{ type: 'thinking', thinking: `think ${turn}` }] } }, `assistant:reasoning`)
      push({ type: 'assistant', message: { id: `msg-${turn}-a`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu-${turn}`, name: 'Bash', input: { command: `ls ${turn}` } }] } }, `assistant:call toolu-${turn}`)
      push({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu-${turn}`, content: `out ${turn}` }] } }, `tool:result toolu-${turn}`)
      push({ type: 'assistant', message: { id: `msg-${turn}-b`, role: 'assistant', content: [{ type: 'text', text: `reply ${turn}` }] } }, `assistant:reply ${turn}`)
      push({ type: 'system', subtype: 'turn_duration', durationMs: 10 })
    }
    const describe = (message: Message): string[] =>
      message.parts.map(
        (part) => `${message.role}:${part.type === 'text' ? part.text : part.type === 'tool-call' ? `call ${part.id}` : part.type === 'tool-result' ? `result ${part.callId}` : part.type}`,
      )
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(chain, { minLength: chain.length, maxLength: chain.length }), async (order) => {
        const text = order.map((record) => JSON.stringify(record)).join('\n') + '\n'
        const transcript = await claudeCodeFormat.read(sourceFromString('p.jsonl', text))
        expect(transcript.messages.flatMap(describe)).toEqual(expected)
        expect(transcript.unpaired).toEqual([])
        // Each message covers the lines of its records, and no two messages' spans overlap.
        const lineOf = new Map(order.map((record, index) => [record['uuid'], index + 1]))
        const spans = transcript.messages.map((message) => [message.provenance!.line!, message.provenance!.endLine ?? message.provenance!.line!] as const)
        transcript.messages.forEach((message, index) => {
          for (const record of message.source as Row[]) {
            const line = lineOf.get(record['uuid'])!
            expect(line).toBeGreaterThanOrEqual(spans[index]![0])
            expect(line).toBeLessThanOrEqual(spans[index]![1])
          }
        })
        const sorted = [...spans].sort((a, b) => a[0] - b[0])
        for (let index = 1; index < sorted.length; index++) expect(sorted[index]![0]).toBeGreaterThan(sorted[index - 1]![1])
        const streamed: Message[] = []
        for await (const message of claudeCodeFormat.stream!(sourceFromString('p.jsonl', text))) streamed.push(message)
        expect(streamed).toEqual(transcript.messages)
      }),
      { numRuns: 150 },
    )
  })

  it('a split whose ranges interleave in the file writes each line once, on one chain', async () => {
    // Range 0:3 spans lines 4-9, which hold line 8 (the result of range 3:6's call).
    const { output } = await compactFixture('modern-session.jsonl', [
      [0, 3],
      [3, 6],
    ])
    const written = output.split('\n').filter((line) => line !== '')
    expect(new Set(written).size).toBe(written.length)
    const records = rows(output)
    const uuids = records.map((record) => record['uuid'])
    for (const removed of ['m-0001', 'm-0003', 'm-0004', 'm-0005', 'm-0006', 'm-0007', 'm-0008', 'm-0009']) expect(uuids).not.toContain(removed)
    const { chain, missing, cycle } = chainFromLast(records)
    expect({ missing, cycle }).toEqual({ missing: undefined, cycle: undefined })
    expect(summaryTexts(chain)).toEqual(['Summary of 3:6.', 'Summary of 0:3.'])
    expect(chain.at(-1)).toMatchObject({ type: 'system', subtype: 'compact_boundary', parentUuid: null })
    const again = await readTranscript(sourceFromString('out.jsonl', output))
    expect(again.messages.map((message) => message.parts.map((part) => part.type).join())).toEqual(['summary', 'summary', 'text', 'text'])
  })
})

describe('claude-code: where a summary hangs', () => {
  it('a range after the records of no message that open a session (attachments, under no message) starts the chain', async () => {
    // 2.1 logs open with attachment or hook-progress records the first prompt hangs under: the write roots the range at
    // its own boundary, as before, rather than under them.
    const records = rows(fixture('modern-session.jsonl'))
    const attachment = { ...records[4]!, parentUuid: null }
    const prompt = { ...records[3]!, parentUuid: 'm-0002' }
    const reordered = [records[0]!, records[1]!, records[2]!, attachment, prompt, { ...records[5]!, parentUuid: 'm-0001' }, ...records.slice(6)]
    const text = reordered.map((record) => JSON.stringify(record)).join('\n') + '\n'
    const { output } = await compactFixture('opens.jsonl', [[0, 3]], text)
    const { chain, missing } = chainFromLast(rows(output))
    expect(missing).toBeUndefined()
    expect(chain.at(-1)).toMatchObject({ subtype: 'compact_boundary', uuid: 'new-1', parentUuid: null })
    // Mid-log, a range hangs under the record its first record hangs under, of whatever type (here the reply's
    // turn_duration record, which the next prompt hangs under).
    const later = await compactFixture('opens.jsonl', [[6, 7]], text)
    expect(rows(later.output).find((record) => record['uuid'] === 'new-1')).toMatchObject({ isCompactSummary: true, parentUuid: 'm-0009' })
  })
})

describe("claude-code: compacting across the log's own compaction", () => {
  // The fixture: messages 0-3 before Claude Code's compaction (boundary at line 6), its summary (message 4), then 5-8.
  it('a split whose later part holds the log summary leaves the old boundary out: every summary on one chain', async () => {
    // A re-test: the kept old boundary sat between parts 3 and 4; walking up from the last record ended there, and
    // the first three summaries were unreachable.
    for (const ranges of [
      [[0, 4], [4, 7]], // the old boundary between the parts
      [[0, 3], [3, 7]], // the old boundary inside the second part's lines
      [[1, 4], [4, 9]], // a write that starts after the log's first message
    ] as const) {
      const { output, summaries } = await compactFixture('resumed-after-compaction.jsonl', ranges)
      const records = rows(output)
      const { chain, missing, cycle } = chainFromLast(records)
      expect({ missing, cycle }).toEqual({ missing: undefined, cycle: undefined })
      expect(summaryTexts(chain).reverse()).toEqual(summaries)
      // One boundary, the write's own, is the root; what preceded the write's first range stays out of the chain.
      expect(boundaries(records)).toHaveLength(1)
      expect(chain.at(-1)).toMatchObject({ subtype: 'compact_boundary', uuid: 'new-1' })
      expect(chain.map((record) => record['uuid'])).not.toContain('c-0001')
    }
  })

  it("a write's first range that holds the log summary continues under the log's boundary", async () => {
    // Messages 2:6 hold the pre-compaction messages 2-3 and the summary: what came before the boundary was already
    // out of the resumed context and stays out (hanging under message 1 would reload messages 0-1).
    const { output } = await compactFixture('resumed-after-compaction.jsonl', [[2, 6]])
    const records = rows(output)
    const { chain, missing } = chainFromLast(records)
    expect(missing).toBeUndefined()
    expect(chain.map((record) => record['uuid'])).toEqual(['c-0011', 'c-0010', 'c-0009', 'new-1', 'c-0005'])
    expect(boundaries(records).map((record) => record['uuid'])).toEqual(['c-0005'])
  })

  it('every summary of a write is on the chain from one root, whatever the legal ranges (property)', async () => {
    const names = ['resumed-after-compaction.jsonl', 'modern-session.jsonl', 'native-session.jsonl']
    const transcripts = new Map<string, Transcript>()
    for (const name of names) transcripts.set(name, await read(name))
    const arbitrary = fc.constantFrom(...names).chain((name) => {
      const count = transcripts.get(name)!.messages.length
      return fc.tuple(fc.constant(name), fc.uniqueArray(fc.integer({ min: 0, max: count }), { minLength: 2, maxLength: 5 }))
    })
    await fc.assert(
      fc.asyncProperty(arbitrary, async ([name, cuts]) => {
        const transcript = transcripts.get(name)!
        const sorted = [...cuts].sort((a, b) => a - b)
        const ranges = sorted.slice(1).map((end, index) => [sorted[index]!, end] as const)
        // Ranges never cut a tool pair (the planner's units) and end before the log's last message (a leaf stays).
        const legal = (cut: number): boolean => transcript.pairs.every((pair) => !(Math.min(pair.call.message, pair.result.message) < cut && cut <= Math.max(pair.call.message, pair.result.message)))
        fc.pre(sorted.every(legal) && sorted.at(-1)! < transcript.messages.length)
        const { output, summaries } = await compactFixture(name, ranges)
        const records = rows(output)
        const { chain, missing, cycle } = chainFromLast(records)
        expect({ missing, cycle }).toEqual({ missing: undefined, cycle: undefined })
        // Unless the ranges lie before a compaction the log keeps (compact warns then), all the write's summaries are on it.
        const logSummary = transcript.messages.findIndex((message) => message.parts.some((part) => part.type === 'summary'))
        const beforeKeptCompaction = logSummary >= 0 && sorted.at(-1)! <= logSummary
        if (!beforeKeptCompaction) expect(summaryTexts(chain).reverse()).toEqual(summaries)
        expect(records.filter((record) => typeof record['uuid'] === 'string' && record['uuid'].startsWith('new-') && record['subtype'] === 'compact_boundary').length).toBeLessThanOrEqual(1)
        // The copy reads back, each summary once.
        const again = await claudeCodeFormat.read(sourceFromString('out.jsonl', output))
        expect(again.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'summary' && part.text.startsWith('Summary of ') ? [part.text] : [])))).toEqual(summaries)
      }),
      { numRuns: 120 },
    )
  })
})

describe("claude-code: splitting a subagent's own file", () => {
  it('chains every part on the sidechain, the first under the one boundary', async () => {
    // A re-test: every record of a subagent's file is a sidechain's, the writer looked for a main-thread record
    // before each part, found none, and rooted each part at a boundary of its own: part 1 was unreachable.
    const { output, summaries } = await compactFixture('subagent.jsonl', [
      [0, 2],
      [2, 3],
    ])
    const records = rows(output)
    const { chain, missing } = chainFromLast(records)
    expect(missing).toBeUndefined()
    expect(summaryTexts(chain).reverse()).toEqual(summaries)
    expect(boundaries(records)).toHaveLength(1)
    expect(chain.every((record) => record['isSidechain'] === true)).toBe(true)
  })
})

describe('a record of no message inside a message\'s lines (a re-test: a last-prompt between two results was dropped)', () => {
  it('is kept, before the summary, when the message is compacted', async () => {
    const base = { sessionId: 's1', cwd: '/repo', version: '2.1.121', isSidechain: false, timestamp: '2026-06-01T00:00:00.000Z' }
    const lines = [
      { ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Read a.ts and b.ts.' } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.ts' } }] } },
      { ...base, type: 'assistant', uuid: 'a2', parentUuid: 'a1', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: 'b.ts' } }] } },
      { ...base, type: 'user', uuid: 'r1', parentUuid: 'a2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'export const a = 1' }] } },
      { type: 'last-prompt', sessionId: 's1', leafUuid: 'r1', lastPrompt: 'Read a.ts and b.ts.' },
      { ...base, type: 'user', uuid: 'r2', parentUuid: 'r1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'export const b = 2' }] } },
      { ...base, type: 'assistant', uuid: 'a3', parentUuid: 'r2', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'Both read.' }] } },
      { ...base, type: 'user', uuid: 'u2', parentUuid: 'a3', message: { role: 'user', content: 'Thanks.' } },
    ]
    const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`
    const { transcript, output } = await compactFixture('last-prompt.jsonl', [[0, 4]], text)
    // The two results are one message whose lines hold the last-prompt record.
    expect(transcript.messages[2]!.provenance).toMatchObject({ line: 4, endLine: 6 })
    const written = rows(output)
    expect(written.filter((record) => record['type'] === 'last-prompt')).toEqual([lines[4]])
    expect(written.some((record) => record['uuid'] === 'r1' || record['uuid'] === 'r2')).toBe(false)
    expect(chainFromLast(written).missing).toBeUndefined()
  })
})

describe('--format claude-code on another tool\'s JSONL (a re-test: 0 messages, exit 0, no word)', () => {
  it('is refused in one line naming the keys it lacks; a log of Claude Code records without messages still reads', async () => {
    const foreign = '{"type":"message","role":"user","text":"buy 2 BTC"}\n{"type":"message","role":"assistant","text":"done"}\n'
    await expect(claudeCodeFormat.read(sourceFromString('trades.jsonl', foreign))).rejects.toThrow(
      'trades.jsonl:1: expected Claude Code records (with uuid, parentUuid, sessionId, leafUuid, messageId), got 2 records with none of those keys',
    )
    const errorsOnly = '{"type":"system","subtype":"api_error","uuid":"x1","parentUuid":null,"sessionId":"s1"}\n'
    expect((await claudeCodeFormat.read(sourceFromString('errors.jsonl', errorsOnly))).messages).toEqual([])
  })
})

describe('claude-code: files the user attaches with @ (a re-test, I3: ~155 KB of attached .md files were not read)', () => {
  // What Claude Code puts in context for a text file attachment: its Read call and the line-numbered result.
  const shown = (path: string, lines: readonly string[]) =>
    `Called the Read tool with the following input: {"file_path":${JSON.stringify(path)}}\nResult of calling the Read tool:\n${lines.map((line, index) => `${index + 1}\t${line}`).join('\n')}`

  it('reads a file attachment as the prompt\'s text when it hangs under the prompt, as a user message of its own otherwise', async () => {
    const transcript = await read('file-attachment.jsonl')
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'user', 'assistant', 'user'])
    expect(transcript.messages[0]!.parts).toEqual([
      { type: 'text', text: 'Deploy per @docs/plan.md and @notes.md.' },
      { type: 'text', text: shown('/repo/docs/plan.md', ['# Plan', 'Port: 8443', 'Deadline: 2026-07-01']) },
    ])
    expect(transcript.messages[0]!.provenance).toEqual({ line: 2, endLine: 3 })
    // Under a record of no message (a tools delta), the second file is a message of its own.
    expect(transcript.messages[1]!.parts).toEqual([{ type: 'text', text: shown('/repo/notes.md', ['Keep the webhook secret in WEBHOOK_SECRET.']) }])
    expect(transcript.messages[1]!.provenance).toEqual({ line: 5 })
    expect((transcript.envelope as { skipped: Record<string, number> }).skipped).toMatchObject({ attachment: 2 })
  })

  it("leaves out a sidechain's file attachment and any attachment of another type", async () => {
    const records = rows(fixture('file-attachment.jsonl'))
    const sidechain = records.map((record) => (record['uuid'] === 'att-3' ? { ...record, isSidechain: true } : record))
    const other = records.map((record) => (record['uuid'] === 'att-1' ? { ...record, attachment: { type: 'directory', path: '/repo/docs', content: 'plan.md' } } : record))
    const text = (list: readonly Row[]) => `${list.map((record) => JSON.stringify(record)).join('\n')}\n`
    const withoutNotes = await read('side.jsonl', text(sidechain))
    expect(withoutNotes.messages.map((message) => message.parts.length)).toEqual([2, 1, 1])
    expect(JSON.stringify(withoutNotes.messages)).not.toContain('WEBHOOK_SECRET')
    const withoutPlan = await read('dir.jsonl', text(other))
    expect(withoutPlan.messages[0]!.parts).toEqual([{ type: 'text', text: 'Deploy per @docs/plan.md and @notes.md.' }])
  })

  it('compacting the prompt drops its attachments with it, and the chain from the last record stays whole', async () => {
    const { output } = await compactFixture('file-attachment.jsonl', [[0, 2]])
    const written = rows(output)
    expect(written.some((record) => record['uuid'] === 'att-1' || record['uuid'] === 'att-3' || record['uuid'] === 'u-1')).toBe(false)
    expect(written.some((record) => record['uuid'] === 'att-0')).toBe(true)
    expect(summaryTexts(written)).toEqual(['Summary of 0:2.'])
    expect(chainFromLast(written).missing).toBeUndefined()
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../spec/transcript.js'
import { claudeCodeFormat } from './formats/claude-code.js'
import { codexFormat } from './formats/codex.js'
import { writeTranscript } from './read.js'
import { getFormat } from './registry.js'
import { geminiCliFormat } from './formats/gemini-cli.js'
import { sourceFromString } from './source.js'
import { type CompactedRange, writeCompacted } from './write-compacted.js'
import { withSummaries } from './__fixtures__/with-summaries.js'

const fixture = (path: string): Buffer => readFileSync(new URL(`./formats/__fixtures__/${path}`, import.meta.url))
type Row = Record<string, unknown>

/** The records of a JSONL text, one per non-blank line. */
const rows = (text: string): Row[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row)

let counter = 0
const ids = (): string => `new-${++counter}`
const clock = (): Date => new Date('2026-05-01T12:00:00.000Z')


async function compactLog(format: typeof claudeCodeFormat, input: Buffer, summaries: readonly CompactedRange[]): Promise<{ transcript: Transcript; output: Buffer }> {
  const transcript = await format.read(sourceFromString('session.jsonl', input.toString('utf8')))
  const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries, now: clock, randomId: ids })
  return { transcript, output }
}

/**
 * Walks `parentUuid` from the last main-thread record, as a resume does (independent of the writer: a plain map of
 * uuid to record). Returns the uuids visited, root last; a reference to a missing uuid ends the walk with `missing:`.
 */
function walkFromLast(records: readonly Row[]): string[] {
  const byUuid = new Map(records.filter((record) => typeof record.uuid === 'string').map((record) => [record.uuid as string, record]))
  const last = [...records].reverse().find((record) => typeof record.uuid === 'string' && record.isSidechain !== true)!
  const path: string[] = []
  for (let record: Row | undefined = last; record; ) {
    path.push(record.uuid as string)
    if (path.length > records.length) throw new Error('parentUuid cycle')
    const parent = record.parentUuid
    if (parent === null || parent === undefined) break
    record = byUuid.get(parent as string)
    if (!record) path.push(`missing:${String(parent)}`)
  }
  return path
}

describe('writeCompacted on a Claude Code session', () => {
  it('reads back a range whose sidechain records stay before the summary: the main thread is the summary, not them', async () => {
    // A black-box re-test: after a full-range compaction the file's first message record was a kept sidechain
    // record, the reader took the file for a subagent's own, and the summary and every kept message were lost.
    const input = fixture('claude-code/native-session.jsonl')
    const original = await claudeCodeFormat.read(sourceFromString('session.jsonl', input.toString('utf8')))
    const whole = original.messages.length
    for (const end of [whole, 4]) {
      const { transcript, output } = await compactLog(claudeCodeFormat, input, [{ range: [0, end], text: 'Everything so far.' }])
      const again = await claudeCodeFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
      const content = (messages: readonly Message[]) => messages.map(({ role, parts }) => ({ role, parts }))
      expect(again.messages[0]!.parts).toEqual([{ type: 'summary', text: 'Everything so far.', source: 'claude-code' }])
      expect(content(again.messages.slice(1))).toEqual(content(transcript.messages.slice(end)))
      // The sidechain records are still in the file, still sidechains.
      expect(rows(output.toString('utf8')).filter((record) => record.isSidechain === true)).toHaveLength(rows(input.toString('utf8')).filter((record) => record.isSidechain === true).length)
    }
  })

  it('reads a subagent\'s own file (every message record a sidechain) whole', async () => {
    const input = fixture('claude-code/native-session.jsonl')
    const sidechains = rows(input.toString('utf8')).filter((record) => record.isSidechain === true || record.type === 'summary')
    const transcript = await claudeCodeFormat.read(sourceFromString('agent.jsonl', sidechains.map((record) => JSON.stringify(record)).join('\n')))
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
  })

  it('writes a range that starts the log as Claude Code compacts: a compact_boundary, then an isCompactSummary record a resume reaches', async () => {
    // Issue 11: the summary record had parentUuid null and no session fields, and the first kept record still pointed
    // at a removed record, so the walk from the last record never reached the summary.
    const input = fixture('claude-code/native-session.jsonl')
    const { transcript, output } = await compactLog(claudeCodeFormat, input, [{ range: [0, 3], text: 'Webhook fix so far: tolerance 300s.', replacedTokens: 812 }])
    const before = rows(input.toString('utf8'))
    const after = rows(output.toString('utf8'))
    const boundary = after.find((record) => record.subtype === 'compact_boundary' && record.uuid !== 'u-0009')!
    const summary = after.find((record) => record.parentUuid === boundary.uuid)!
    const session = before.find((record) => record.uuid === 'u-0004')!
    expect(boundary).toMatchObject({
      type: 'system',
      parentUuid: null,
      logicalParentUuid: null,
      content: 'Conversation compacted',
      compactMetadata: { trigger: 'manual', preTokens: 812 },
      sessionId: session.sessionId,
      cwd: session.cwd,
      version: session.version,
      gitBranch: session.gitBranch,
    })
    expect(summary).toMatchObject({ type: 'user', isCompactSummary: true, sessionId: session.sessionId, message: { role: 'user', content: 'Webhook fix so far: tolerance 300s.' } })
    // Stamped with the last replaced record's instant, so the file stays in time order.
    const lastReplaced = before.find((record) => record.uuid === 'u-0007')!
    expect([boundary.timestamp, summary.timestamp]).toEqual([lastReplaced.timestamp, lastReplaced.timestamp])
    expect(walkFromLast(after).filter((uuid) => uuid.startsWith('missing:'))).toEqual([])
    // The first kept record after the range (u-0008) pointed at a removed record; walking from it, as a resume from
    // there would, reaches the new summary and then its boundary, the root.
    const upToNew = walkFromLast(after.slice(0, after.findIndex((record) => record.uuid === 'u-0008') + 1))
    expect(upToNew).toEqual(['u-0008', summary.uuid, boundary.uuid])
    const again = await claudeCodeFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages[0]!.parts[0]).toEqual({ type: 'summary', text: 'Webhook fix so far: tolerance 300s.', source: 'claude-code' })
    expect(again.messages).toHaveLength(transcript.messages.length - 3 + 1)
  })

  it('chains a range after kept records under them, with no boundary: a resume keeps what came before the range', async () => {
    // A black-box re-test: every range got a boundary (a new root), so a resume, which reloads only what follows the
    // last boundary, lost the records kept before a range in the middle of the log.
    const input = fixture('claude-code/native-session.jsonl')
    const { transcript, output } = await compactLog(claudeCodeFormat, input, [{ range: [1, 3], text: 'Webhook fix so far: tolerance 300s.' }])
    const after = rows(output.toString('utf8'))
    expect(after.filter((record) => record.subtype === 'compact_boundary').map((record) => record.uuid)).toEqual(['u-0009'])
    const summary = after.find((record) => record.isCompactSummary === true && (record.message as Row).content === 'Webhook fix so far: tolerance 300s.')!
    expect(summary).toMatchObject({ type: 'user', parentUuid: 'u-0001', sessionId: rows(input.toString('utf8')).find((record) => record.uuid === 'u-0004')!.sessionId })
    const upToNew = walkFromLast(after.slice(0, after.findIndex((record) => record.uuid === 'u-0008') + 1))
    expect(upToNew).toEqual(['u-0008', summary.uuid, 'u-0001'])
    const again = await claudeCodeFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages.map((message) => message.parts.map((part) => part.type).join('+'))).toEqual(['text', 'summary', 'text', 'summary', 'text+text', 'text+tool-call'])
    expect(transcript.messages).toHaveLength(7)
  })

  it('gives a split one root: a resume from the record kept after the parts reaches every part\'s summary', async () => {
    // A black-box re-test: each part got its own boundary, so only the last part's summary was reloaded on resume.
    const input = fixture('claude-code/native-session.jsonl')
    const { output } = await compactLog(claudeCodeFormat, input, [
      { range: [0, 2], text: 'First part.' },
      { range: [2, 3], text: 'Second part.' },
    ])
    const after = rows(output.toString('utf8'))
    const known = new Set(after.map((record) => record.uuid))
    for (const record of after) if (typeof record.parentUuid === 'string') expect(known.has(record.parentUuid), `parent of ${String(record.uuid)}`).toBe(true)
    const main = after.filter((record) => typeof record.uuid === 'string' && record.isSidechain !== true)
    const boundaries = main.filter((record) => record.subtype === 'compact_boundary')
    expect(main.filter((record) => record.parentUuid === null)).toEqual(boundaries)
    // Ours, then the compaction already in the log.
    expect(boundaries.map((record) => record.uuid === 'u-0009')).toEqual([false, true])
    const summaryOf = (text: string) => after.find((record) => record.isCompactSummary === true && (record.message as Row).content === text)!.uuid
    const upToKept = walkFromLast(after.slice(0, after.findIndex((record) => record.uuid === 'u-0008') + 1))
    expect(upToKept).toEqual(['u-0008', summaryOf('Second part.'), summaryOf('First part.'), boundaries[0]!.uuid])
  })

  it('writes its records with the log\'s own line ends (a CRLF log stays CRLF)', async () => {
    // A black-box re-test: the boundary and summary lines of a CRLF log were written with LF only.
    const input = Buffer.from(fixture('claude-code/native-session.jsonl').toString('utf8').replace(/\r?\n/g, '\r\n'))
    for (const range of [[0, 3], [1, 3]] as const) {
      const { output } = await compactLog(claudeCodeFormat, input, [{ range, text: 'Summary.' }])
      const text = output.toString('utf8')
      expect(text.split('\r\n').filter((line) => line.includes('\n'))).toEqual([])
      expect(text).toContain('"isCompactSummary":true')
      expect(text.endsWith('\r\n')).toBe(true)
    }
  })

  it('keeps every line outside the ranges byte for byte (invalid UTF-8 too), relinking only parent ids', async () => {
    const lines = fixture('claude-code/native-session.jsonl').toString('latin1').split('\n')
    // Line 16 (a kept assistant record) gets bytes that are not UTF-8 inside its text.
    lines[15] = lines[15]!.replace('"text":"', '"text":"\xff\xfe ')
    const input = Buffer.from(lines.join('\n'), 'latin1')
    const { output } = await compactLog(claudeCodeFormat, input, [{ range: [1, 3], text: 'Summary.' }])
    const outputLines = output.toString('latin1').split('\n')
    for (const line of [...lines.slice(0, 3), lines[10]!, ...lines.slice(12)]) expect(outputLines).toContain(line)
    expect(outputLines.join('\n')).toContain('\xff\xfe ')
    // Records that pointed at a removed record (the subagent's first, line 10, and the first kept main record, line
    // 12): only their parent id changed.
    for (const index of [9, 11]) {
      const uuid = /"uuid":"([^"]*)"/.exec(lines[index]!)![1]!
      const relinked = outputLines.find((line) => line.includes(`"uuid":"${uuid}"`))!
      expect(relinked).not.toBe(lines[index])
      expect(relinked.replace(/"parentUuid":"[^"]*"/, '')).toBe(lines[index]!.replace(/"parentUuid":"[^"]*"/, ''))
    }
  })
})

describe('writeCompacted keeps a malformed line --lenient skipped, wherever it stood (a re-test: 3 of 35 were dropped)', () => {
  const BROKEN = '{"type":"assistant","message":{"content":[{"type":"text","text":"cut short by a redact'
  for (const [name, format, file, after, range] of [
    // Inside message 1's lines (4–7) of the Claude Code session, and inside message 5's (12–14) of the Codex rollout.
    ['claude-code', claudeCodeFormat, 'claude-code/native-session.jsonl', 5, [1, 3]],
    ['codex', codexFormat, 'codex/rollout.jsonl', 12, [3, 8]],
  ] as const) {
    it(`${name}: inside a compacted message's lines and outside the range, byte for byte`, async () => {
      const lines = fixture(file).toString('utf8').split('\n')
      lines.splice(after, 0, BROKEN)
      lines.splice(1, 0, `${BROKEN} again`)
      const input = Buffer.from(lines.join('\n'))
      const transcript = await format.read(sourceFromString('session.jsonl', input.toString('utf8')), { lenient: true })
      expect(transcript.warnings?.length).toBe(2)
      const summaries = [{ range: range as readonly [number, number], text: 'Summary.' }]
      const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries, now: clock, randomId: ids }).toString('utf8').split('\n')
      expect(output.filter((line) => line === BROKEN)).toHaveLength(1)
      expect(output.filter((line) => line === `${BROKEN} again`)).toHaveLength(1)
      // Read again, leniently, it still skips exactly those two lines.
      const again = await format.read(sourceFromString('out.jsonl', output.join('\n')), { lenient: true })
      expect(again.warnings?.length).toBe(2)
    })
  }
})

describe('writeCompacted on an Engram log (Claude Code, flattened)', () => {
  it('writes the summary as one Engram record, so the file stays one format, and it reads back as a summary', async () => {
    // A black-box re-test found a native record (parentUuid, type, uuid) written into an Engram file.
    const input = fixture('claude-code/engram-session.jsonl')
    const { transcript, output } = await compactLog(claudeCodeFormat, input, [{ range: [0, 5], text: 'Config read; the pod has an A100.' }])
    const before = rows(input.toString('utf8'))
    const after = rows(output.toString('utf8'))
    // Every record has the Engram shape: the keys of the file's own records, plus the summary flag.
    const shape = (record: Row) => Object.keys(record).filter((key) => key !== 'isCompactSummary').sort().join(',')
    expect(new Set(after.map(shape))).toEqual(new Set(before.map(shape)))
    const added = after.filter((record) => record.isCompactSummary === true)
    expect(added).toEqual([{ timestamp: expect.any(String), role: 'user', content: { type: 'text', text: 'Config read; the pod has an A100.' }, isCompactSummary: true }])
    // Its timestamp is the last replaced record's, never later than a kept one.
    expect(String(added[0]!.timestamp) <= String(after[after.indexOf(added[0]!) + 1]!.timestamp)).toBe(true)
    const again = await claudeCodeFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages[0]!.parts).toEqual([{ type: 'summary', text: 'Config read; the pod has an A100.', source: 'claude-code' }])
    const content = (messages: readonly Message[]) => messages.map(({ role, parts }) => ({ role, parts }))
    expect(content(again.messages.slice(1))).toEqual(content(transcript.messages.slice(5)))
  })
})

describe('writeCompacted on other logs', () => {
  it('keeps Gemini CLI init and result events of a full-range compaction, outside the summary', async () => {
    // Issue 11: a full-range Gemini compaction dropped the `init` and `result` events between its messages.
    const input = fixture('gemini-cli/stream-json.jsonl')
    const transcript = await geminiCliFormat.read(sourceFromString('run.jsonl', input.toString('utf8')))
    const summaries = [{ range: [0, transcript.messages.length] as const, text: 'Everything so far.' }]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries })
    const events = (text: string): string[] =>
      text.split('\n').filter((line) => {
        const type = line.trim() === '' ? undefined : (JSON.parse(line) as Row).type
        return type !== 'message' && type !== 'tool_use' && type !== 'tool_result' && type !== undefined
      })
    expect(events(output.toString('utf8'))).toEqual(events(input.toString('utf8')))
    expect(events(input.toString('utf8')).length).toBeGreaterThanOrEqual(3)
    const again = await geminiCliFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages).toHaveLength(1)
    expect(again.messages[0]!.parts[0]).toMatchObject({ type: 'summary' })
    expect(again.envelope).toMatchObject({ sessions: ((transcript.envelope as Row).sessions as unknown[]).map(() => expect.anything()) })
  })

  it('compacts a whole Codex rollout as Codex does (compacted + context_compacted): its message events do not come back as messages', async () => {
    // A black-box re-test: with no message item left, the reader fell back on the events that copy the messages (kept
    // in the range as records that are no messages), so the copy read back longer than the input.
    const input = Buffer.from(fixture('codex/rollout.jsonl').toString('utf8').split('\n').slice(0, 15).join('\n') + '\n')
    const transcript = await codexFormat.read(sourceFromString('rollout.jsonl', input.toString('utf8')))
    expect(transcript.messages.length).toBeGreaterThan(3)
    const summaries = [{ range: [0, transcript.messages.length] as const, text: 'Rounding: ROUND_HALF_EVEN in src/totals.py.' }]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries, now: clock })
    const types = rows(output.toString('utf8')).map((record) => `${String(record.type)}:${String((record.payload as Row).type ?? '')}`)
    expect(types.slice(-2)).toEqual(['compacted:', 'event_msg:context_compacted'])
    const again = await codexFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages.map((message) => message.parts.map((part) => part.type).join('+'))).toEqual(['summary'])
  })

  it('writes the replacement history Codex resumes from: the items kept before the range, then the summary', async () => {
    // A black-box re-test: a `compacted` record without `replacement_history` is rebuilt on resume from the user
    // messages before it and the summary (codex-rs), so the assistant turns and tool calls kept before a range in the
    // middle of the log were lost to Codex.
    const input = Buffer.from(fixture('codex/rollout.jsonl').toString('utf8').split('\n').slice(0, 15).join('\n') + '\n')
    const transcript = await codexFormat.read(sourceFromString('rollout.jsonl', input.toString('utf8')))
    const end = transcript.messages.length
    const summaries = [
      { range: [2, 4] as const, text: 'First part.' },
      { range: [4, end] as const, text: 'Second part.' },
    ]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries, now: clock })
    const records = rows(output.toString('utf8'))
    const compactions = records.filter((record) => record.type === 'compacted')
    expect(compactions).toHaveLength(2)
    const summaryItem = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
    // The response items written before each compaction, in order (this log has no earlier compaction).
    const itemsBefore = (record: Row) => records.slice(0, records.indexOf(record)).filter((row) => row.type === 'response_item').map((row) => row.payload)
    const [first, second] = compactions as [Row, Row]
    expect((first.payload as Row).replacement_history).toEqual([...itemsBefore(first), summaryItem('First part.')])
    expect(itemsBefore(first).length).toBeGreaterThan(0)
    // The second starts from the first's history, not from the items the first replaced.
    expect((second.payload as Row).replacement_history).toEqual([...((first.payload as Row).replacement_history as unknown[]), summaryItem('Second part.')])
    const again = await codexFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages.slice(-2).map((message) => message.parts[0])).toMatchObject([{ type: 'summary', text: 'First part.' }, { type: 'summary', text: 'Second part.' }])
  })

  it('keeps reading the message events of an older rollout (events only) after a compacted range', async () => {
    const input = fixture('codex/legacy-events.jsonl')
    const transcript = await codexFormat.read(sourceFromString('rollout.jsonl', input.toString('utf8')))
    expect(transcript.messages.length).toBe(2)
    const summaries = [{ range: [0, 1] as const, text: 'Rename FOO_LIMIT.' }]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries, now: clock })
    expect(output.toString('utf8')).not.toContain('context_compacted')
    const again = await codexFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    const content = (messages: readonly Message[]) => messages.map(({ role, parts }) => ({ role, parts }))
    expect(again.messages).toHaveLength(2)
    expect(content(again.messages.slice(1))).toEqual(content(transcript.messages.slice(1)))
  })

  it('compacts an older Codex rollout (bare items): its session object and state markers stay, the summary reads back', async () => {
    const input = fixture('codex/legacy-bare.jsonl')
    const transcript = await codexFormat.read(sourceFromString('rollout.jsonl', input.toString('utf8')))
    const summaries = [{ range: [1, 6] as const, text: 'parseAmount returns NaN on "1,250.00".' }]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries, now: clock })
    const lines = output.toString('utf8').split('\n')
    const original = input.toString('utf8').split('\n')
    expect(lines.slice(0, 3)).toEqual(original.slice(0, 3))
    expect(lines.filter((line) => line === '{"record_type":"state"}')).toHaveLength(original.filter((line) => line === '{"record_type":"state"}').length)
    const again = await codexFormat.read(sourceFromString('out.jsonl', output.toString('utf8')))
    expect(again.messages.map((message) => message.parts.map((part) => part.type).join('+'))).toEqual(['text', 'summary', 'text'])
  })
})

describe('writeCompacted on message-array documents', () => {
  const harness = '{"role":"harness","content":"","extra":{"step":2}}'
  const documents = [
    ['openai', 'openai/chat-tools.json', fixture('openai/chat-tools.json')],
    ['openai', 'openai/agent-exit.json', fixture('openai/agent-exit.json')],
    ['anthropic', 'anthropic/tools.json', fixture('anthropic/tools.json')],
    ['ai-sdk', 'ai-sdk/v6-tools.json', fixture('ai-sdk/v6-tools.json')],
    ['openai-responses', 'openai-responses/input-items.json', fixture('openai-responses/input-items.json')],
    // Items of unknown roles between messages stay, after the summary of a range around them.
    ['openai', 'carried.json', Buffer.from(`[{"role":"user","content":"a"}, ${harness}, {"role":"assistant","content":"b"}, ${harness}, {"role":"user","content":"c"}]`)],
    ['openai-responses', 'carried-items.json', Buffer.from(`{"input": [{"role":"user","content":"a"},\n  ${harness},\n  {"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},\n  {"type":"function_call_output","call_id":"c1","output":"ok"},\n  ${harness}]}`)],
  ] as const

  it.each(documents)('%s %s: every compacted range gives what the writer writes, in the input\'s own bytes elsewhere', async (name, path, input) => {
    // Oracle: the format's writer on the compacted transcript (JSON-equal), for every range of every length.
    const format = getFormat(name)
    const transcript = await format.read(sourceFromString(path, input.toString('utf8')))
    const count = transcript.messages.length
    let spliced = 0
    for (let start = 0; start < count; start++) {
      for (let end = start + 1; end <= count; end++) {
        const summaries = [{ range: [start, end] as const, text: `Summary of ${start}:${end}.` }]
        const after = withSummaries(transcript, summaries)
        const output = writeCompacted({ input, transcript, compacted: after, summaries })
        expect(JSON.parse(output.toString('utf8')), `${start}:${end}`).toEqual(JSON.parse(writeTranscript(after)))
        // Spliced (not rewritten by the writer) whenever the range is a run of the array's items: the writer's
        // 2-space layout and the input's differ, so only a splice leaves a prefix of the input's own bytes.
        const written = Buffer.from(writeTranscript(after), 'utf8')
        if (!output.equals(written) && commonPrefix(input, output) > commonPrefix(input, written)) spliced++
        const pointers = transcript.messages.slice(start, end).map((message) => message.provenance?.pointer ?? '')
        if (pointers.every((pointer) => /\/\d+$/.test(pointer)) && new Set(pointers.map((pointer) => pointer.replace(/\/\d+$/, ''))).size === 1) {
          expect(output.equals(written), `${start}:${end} spliced`).toBe(false)
        }
      }
    }
    expect(spliced).toBeGreaterThan(0)
  })

  it('keeps bytes that are not UTF-8 outside the range, where the writer would write U+FFFD', async () => {
    // Issue 11: invalid UTF-8 outside the compacted range came out as U+FFFD.
    const text = fixture('openai/chat-tools.json').toString('latin1').replace('You are a release engineer.', 'You are a release \xe9ngineer.')
    const input = Buffer.from(text, 'latin1')
    const transcript = await getFormat('openai').read(sourceFromString('chat.json', input.toString('utf8')))
    const summaries = [{ range: [3, 6] as const, text: 'Tests pass after the bump.' }]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries })
    expect(output.includes(Buffer.from('release \xe9ngineer', 'latin1'))).toBe(true)
    expect(output.includes(Buffer.from('\uFFFD', 'utf8'))).toBe(false)
    // Everything up to the first replaced message is the input's own bytes, and so is everything after the last.
    const items = JSON.parse(input.toString('utf8')).messages as unknown[]
    const firstReplaced = input.indexOf(Buffer.from(JSON.stringify(items[3]).slice(0, 12)))
    expect(commonPrefix(input, output)).toBeGreaterThanOrEqual(firstReplaced - 8)
    const again = await getFormat('openai').read(sourceFromString('out.json', output.toString('utf8')))
    expect(again.messages.map((message) => message.parts[0]!.type)).toEqual(['text', 'text', 'tool-call', 'text'])
    expect(again.messages[3]!.parts[0]).toEqual({ type: 'text', text: 'Tests pass after the bump.' })
  })

  it('keeps a minified document minified', async () => {
    const input = Buffer.from('{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}')
    const transcript = await getFormat('openai').read(sourceFromString('chat.json', input.toString('utf8')))
    const summaries = [{ range: [0, 2] as const, text: 'S' }]
    const output = writeCompacted({ input, transcript, compacted: withSummaries(transcript, summaries), summaries })
    expect(output.toString('utf8')).toBe('{"model":"m","messages":[{"role":"user","content":"S"},{"role":"user","content":"c"}]}')
  })
})

/** How many leading bytes two buffers share. */
function commonPrefix(a: Buffer, b: Buffer): number {
  let index = 0
  while (index < a.length && index < b.length && a[index] === b[index]) index++
  return index
}

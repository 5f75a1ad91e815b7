import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { readTranscript } from '../read.js'
import { scoreFormats } from '../registry.js'
import { sourceFromString } from '../source.js'
import { type CompactedRange, writeCompacted } from '../write-compacted.js'
import { withSummaries } from '../__fixtures__/with-summaries.js'
import { codexFormat, createCodexFormat, EVENT_FALLBACK_LIMIT } from './codex.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/codex/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => codexFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: codexFormat,
  fixtures: [
    { name: 'rollout.jsonl', text: fixture('rollout.jsonl'), expect: { messages: 11, toolCalls: 4, toolResults: 3, unpaired: 1 } },
    { name: 'legacy-events.jsonl', text: fixture('legacy-events.jsonl'), expect: { messages: 2, toolCalls: 0, unpaired: 0 } },
    { name: 'legacy-bare.jsonl', text: fixture('legacy-bare.jsonl'), expect: { messages: 7, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('codex mapping', () => {
  it('reads an older rollout: a bare session object, bare response items, state markers', async () => {
    // Issue 11: rollouts from before `session_meta` (no {type, payload} wrapper) could not be read.
    const transcript = await read('legacy-bare.jsonl')
    expect(transcript.messages.map((message) => [message.role, message.parts.map((part) => part.type), message.provenance])).toEqual([
      ['user', ['text'], { line: 3 }],
      ['user', ['text'], { line: 4 }],
      ['assistant', ['reasoning', 'tool-call'], { line: 6, endLine: 7 }],
      ['tool', ['tool-result'], { line: 8 }],
      ['assistant', ['tool-call'], { line: 10 }],
      ['tool', ['tool-result'], { line: 11 }],
      ['assistant', ['text'], { line: 13 }],
    ])
    expect(transcript.messages[2]!.parts[1]).toEqual({
      type: 'tool-call',
      id: 'call_L1',
      name: 'shell',
      arguments: { command: ['bash', '-lc', "rg -n 'parseAmount' src"], workdir: '/home/ada/ledger' },
    })
    expect(transcript.pairs.map((pair) => pair.id)).toEqual(['call_L1', 'call_L2'])
    expect(transcript.envelope).toMatchObject({ session: { id: '6c1d0f4e-3b7a-4c52-9d2e-8a41f0b7c913', instructions: null }, skipped: { session: 1, state: 5 } })
    await expect(read('bad.jsonl', '{"id":"x","timestamp":"t","instructions":null}\n{"type":"function_call","name":"shell"}\n')).rejects.toThrow(
      /^bad\.jsonl:2: \/call_id: expected a string/,
    )
  })

  it('uses response items as the transcript, not the duplicate event messages', async () => {
    const transcript = await read('rollout.jsonl')
    expect(transcript.messages.map((message) => [message.role, message.parts.map((part) => part.type), message.provenance])).toEqual([
      ['system', ['text'], { line: 2 }],
      ['user', ['text'], { line: 3 }],
      ['user', ['text'], { line: 4 }],
      ['assistant', ['reasoning', 'tool-call'], { line: 8, endLine: 9 }],
      ['tool', ['tool-result'], { line: 10 }],
      ['assistant', ['text', 'tool-call'], { line: 12, endLine: 14 }],
      ['tool', ['tool-result'], { line: 15 }],
      ['user', ['summary'], { line: 16 }],
      ['assistant', ['tool-call'], { line: 18 }],
      ['tool', ['tool-result'], { line: 19 }],
      ['assistant', ['tool-call'], { line: 21 }],
    ])
    expect(transcript.messages[3]!.parts[1]).toEqual({
      type: 'tool-call',
      id: 'call_A1',
      name: 'shell',
      arguments: { command: ['bash', '-lc', "rg -n 'quantize' src"], workdir: '/home/ada/ledger' },
    })
    expect(transcript.messages[5]!.parts[1]).toMatchObject({ id: 'call_A2', name: 'apply_patch', arguments: expect.stringMatching(/^\*\*\* Begin Patch\n/) })
    expect(transcript.messages[8]!.parts[0]).toMatchObject({ id: 'call_A3', name: 'local_shell', arguments: { type: 'exec', command: ['pytest', '-q', 'tests/test_totals.py'] } })
    expect(transcript.messages[9]!.parts[0]).toMatchObject({ callId: 'call_A3', isError: true })
    expect(transcript.messages[7]!.parts[0]).toMatchObject({ type: 'summary', source: 'codex', text: expect.stringMatching(/^Summary: the user requires ROUND_HALF_EVEN/) })
    expect(transcript.unpaired).toEqual([{ kind: 'call', id: 'call_A4', message: 10, part: 0 }])
    expect(transcript.envelope).toMatchObject({
      session: { id: '019a2d7a-41c4-78b1-b7cc-a45d62a89cd5' },
      skipped: {
        session_meta: 1,
        'event_msg:user_message': 1,
        turn_context: 1,
        'event_msg:agent_reasoning': 1,
        'event_msg:token_count': 1,
        'event_msg:agent_message': 1,
        'event_msg:context_compacted': 1,
        'reasoning:encrypted': 1,
      },
    })
  })

  it('falls back to event messages only when a rollout has no response items', async () => {
    const transcript = await read('legacy-events.jsonl')
    expect(transcript.messages.map((message) => [message.role, message.parts])).toEqual([
      ['user', [{ type: 'text', text: 'Rename FOO_LIMIT to BAR_LIMIT everywhere.' }]],
      ['assistant', [{ type: 'text', text: 'Renamed FOO_LIMIT to BAR_LIMIT in 3 files.' }]],
    ])
    // Held-back event messages are dropped once a response item shows they are duplicates.
    const record = (type: string, payload: unknown) => JSON.stringify({ timestamp: 't', type, payload })
    const mixed = [
      record('event_msg', { type: 'user_message', message: 'hello' }),
      record('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] }),
      record('event_msg', { type: 'agent_message', message: 'hi' }),
      record('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }),
    ].join('\n')
    expect((await read('mixed.jsonl', `${mixed}\n`)).messages.map((message) => message.role)).toEqual(['user', 'assistant'])
  })

  it('bounds the held-back event messages of a long log without response items', async () => {
    const lines = Array.from({ length: EVENT_FALLBACK_LIMIT + 10 }, (_, index) =>
      JSON.stringify({ timestamp: 't', type: 'event_msg', payload: { type: index % 2 ? 'agent_message' : 'user_message', message: `m${index}` } }),
    )
    const transcript = await read('old.jsonl', `${lines.join('\n')}\n`)
    expect(transcript.messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(lines.map((_, index) => `m${index}`))
  })

  it("reads a shell output Codex wrapped as JSON ({output, metadata}) decoded, a non-zero exit code as an error", async () => {
    // A black-box re-test: older rollouts (and public parsers' fixtures) hold `{"output":"…","metadata":{"exit_code":1}}`
    // as the output string; read as written, its lines were one escaped line and no error line was found.
    const wrap = (output: string, metadata?: Record<string, unknown>) => JSON.stringify(metadata === undefined ? { output } : { output, metadata })
    const failing = 'E   sqlalchemy.exc.IntegrityError: null value in column "currency"\nFAILED tests/test_checkout.py::test_pay'
    const record = (payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-06-01T10:00:00.000Z', type: 'response_item', payload })
    const call = (id: string) => record({ type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","pytest -q"]}', call_id: id })
    const output = (id: string, text: string) => record({ type: 'function_call_output', call_id: id, output: text })
    const text = [
      record({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the tests.' }] }),
      call('c1'),
      output('c1', wrap(failing, { exit_code: 1, duration_seconds: 0.4 })),
      call('c2'),
      output('c2', wrap('12 passed', { exit_code: 0, duration_seconds: 0.4 })),
      call('c3'),
      output('c3', wrap('no metadata')),
      call('c4'),
      // Not the wrapper: another key beside `output`, or JSON the command printed, stays as written.
      output('c4', '{"output":"x","status":"ok"}'),
    ].join('\n')
    const transcript = await read('wrapped.jsonl', `${text}\n`)
    const results = transcript.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool-result')
    expect(results.map((part) => [part.content, part.isError])).toEqual([
      [failing, true],
      ['12 passed', false],
      ['no metadata', false],
      ['{"output":"x","status":"ok"}', false],
    ])
  })

  it('a response item that parses but cannot be read names --lenient, and --lenient skips and reports it', async () => {
    // The shared rule Claude Code's reader follows (transcript/formats/_log.ts, unreadableRecord): a call without its
    // name was fatal even with --lenient.
    const record = (payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-06-01T10:00:00.000Z', type: 'response_item', payload })
    const text = [
      record({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the tests.' }] }),
      record({ type: 'function_call', arguments: '{}', call_id: 'c1' }),
      record({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
    ].join('\n')
    await expect(read('u.jsonl', `${text}\n`)).rejects.toThrow(/^u\.jsonl:2: \/payload\/name: expected a string.*\(a record floorguard cannot read; --lenient skips such lines and reports them\)$/)
    const transcript = await codexFormat.read(sourceFromString('u.jsonl', `${text}\n`), { lenient: true })
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    expect(transcript.warnings).toEqual([expect.stringMatching(/^u\.jsonl:2: \/payload\/name: expected a string.*: line skipped$/)])
  })

  it('names the line and field of a malformed record', async () => {
    await expect(read('bad.jsonl', '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"robot","content":[]}}\n')).rejects.toThrow(
      'bad.jsonl:1: /payload/role: expected "user", "assistant", "developer" or "system", got the string "robot"',
    )
    await expect(read('bad.jsonl', '{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c"}}\n')).rejects.toThrow(
      'bad.jsonl:1: /payload/arguments: expected a string, got nothing (the field is missing)',
    )
    await expect(read('bad.jsonl', '{"timestamp":"t","type":"rollout","payload":{}}\n')).rejects.toThrow('bad.jsonl:1: /type: expected a rollout record type')
  })

  it('appends rollout records, a summary as a compacted record', async () => {
    const format = createCodexFormat({ now: () => new Date('2026-10-29T02:00:00.000Z') })
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'summary', text: 'Keep ROUND_HALF_EVEN, exactly 2 decimals.', source: 'floorguard' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_B1', name: 'shell', arguments: { command: ['pytest'] } }] },
    ]
    expect(format.append!(messages)).toBe(
      '{"timestamp":"2026-10-29T02:00:00.000Z","type":"compacted","payload":{"message":"Keep ROUND_HALF_EVEN, exactly 2 decimals."}}\n' +
        '{"timestamp":"2026-10-29T02:00:00.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"pytest\\"]}","call_id":"call_B1"}}\n',
    )
  })

  it("detects floorguard's own compacted copy of an older rollout: bare records and the wrapped compacted record it adds", async () => {
    // A black-box re-test: the copy mixed bare items with `{type, payload}` records, and detection wanted one or the other.
    const input = fixture('legacy-bare.jsonl')
    const transcript = await read('legacy-bare.jsonl', input)
    const written = compactRanges(input, transcript, [{ range: [0, 3], text: 'parseAmount returns NaN on "1,250.00".' }]).toString('utf8')
    expect(written.split('\n').slice(0, 4).map((line) => ('payload' in (JSON.parse(line) as object) ? 'wrapped' : 'bare'))).toEqual(['bare', 'bare', 'bare', 'wrapped'])
    const again = await readTranscript(sourceFromString('copy.jsonl', written))
    expect([again.format, again.messages.map((message) => message.parts.map((part) => part.type).join('+'))]).toEqual(['codex', ['summary', 'tool-result', 'tool-call', 'tool-result', 'text']])
    // Bare items alone stay unclaimed (another log's could look the same); a session object, a state marker or a
    // wrapped rollout record says Codex.
    const item = JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] })
    const wrapped = JSON.stringify({ timestamp: 't', type: 'event_msg', payload: { type: 'context_compacted' } })
    const best = (head: string) => scoreFormats(head).filter((score) => score.score > 0.5).map((score) => score.name)
    expect(best(`${item}\n${item}\n`)).not.toContain('codex')
    expect(best(`${item}\n${wrapped}\n${item}\n`)).toEqual(['codex'])
    expect(best(`{"record_type":"state"}\n${item}\n${wrapped}\n`)).toEqual(['codex'])
    expect(best(`${item}\n${wrapped}\n{"role":"user","content":"hi"}\n`)).not.toContain('codex')
  })

  describe('a range before a compaction the rollout already records', () => {
    // A black-box re-test: compacting messages 0:30 of a copy floorguard had compacted at 50:150 wrote a summary Codex
    // never loads, with no warning: the later `compacted` record, which Codex resumes from, still held messages 0-30.
    const at = (second: number) => `2026-05-01T10:00:${String(second).padStart(2, '0')}.000Z`
    const record = (second: number, type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: at(second), type, payload })
    const message = (role: string, text: string) => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] })
    const hidden = (id: string) => ({ type: 'reasoning', summary: [], content: null, encrypted_content: `gAAAA-${id}` })
    const call = (id: string, command: string) => ({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }), call_id: id })
    const output = (id: string, text: string) => ({ type: 'function_call_output', call_id: id, output: text })
    const items = [
      message('developer', 'Sandbox: workspace-write. Never run git push.'),
      message('user', 'Pin fsspec==2024.6.1 in requirements.txt.'),
      hidden('1'),
      call('call_1', "sed -i 's/^fsspec.*/fsspec==2024.6.1/' requirements.txt"),
      output('call_1', ''),
      hidden('2'),
      message('assistant', 'Pinned fsspec==2024.6.1.'),
      message('user', 'Run the tests.'),
      call('call_2', 'pytest -q'),
      output('call_2', '12 passed in 3.1s'),
      message('assistant', 'All 12 tests pass.'),
      message('user', 'Now bump the version to 1.4.0.'),
      message('assistant', 'Bumped to 1.4.0 in pyproject.toml.'),
    ]
    const input = [
      record(0, 'session_meta', { id: 'session-1', cwd: '/home/ada/app' }),
      ...items.slice(0, 7).map((item, index) => record(index + 1, 'response_item', item)),
      record(8, 'event_msg', { type: 'token_count', info: null }),
      ...items.slice(7).map((item, index) => record(index + 9, 'response_item', item)),
    ].join('\n') + '\n'

    /** Codex's resume as codex-rs replays a rollout (the re-test's codexresume.py), written again here. */
    const resume = (text: string): unknown[] => {
      let history: unknown[] = []
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue
        const row = JSON.parse(line) as { type: string; payload?: { message?: string; replacement_history?: unknown[] } }
        if (row.type === 'response_item') history.push(row.payload)
        else if (row.type === 'compacted') {
          history = Array.isArray(row.payload?.replacement_history)
            ? [...row.payload.replacement_history]
            : [...history.filter((item) => (item as { role?: string }).role === 'user'), message('user', row.payload?.message ?? '')]
        }
      }
      return history
    }
    /** `history` with the run of `run` (equal items, in a row) replaced by `summary`. */
    const replaceRun = (history: readonly unknown[], run: readonly unknown[], summary: string): unknown[] => {
      const keys = history.map((item) => JSON.stringify(item))
      const first = keys.indexOf(JSON.stringify(run[0]))
      expect(keys.slice(first, first + run.length)).toEqual(run.map((item) => JSON.stringify(item)))
      return [...history.slice(0, first), message('user', summary), ...history.slice(first + run.length)]
    }
    const compactWith = async (text: string, summaries: readonly CompactedRange[]) => {
      const warnings: string[] = []
      const transcript = await read('rollout.jsonl', text)
      const written = compactRanges(text, transcript, summaries, undefined, (warning) => warnings.push(warning)).toString('utf8')
      return { written, warnings, transcript }
    }

    it('rewrites the later replacement_history so that Codex resumes with the summary in place of the range', async () => {
      // Messages: 0 developer, 1 user, 2 call_1, 3 its output, 4 assistant, 5 user, 6 call_2, 7 output, 8 assistant, 9 user, 10 assistant.
      const first = await compactWith(input, [{ range: [5, 9], text: 'Tests: 12 passed.' }])
      expect(first.warnings).toEqual([])
      // Messages of the copy: 0 developer, 1 user, 2 call_1, 3 output, 4 assistant, 5 the summary, 6 user, 7 assistant.
      const second = await compactWith(first.written, [{ range: [1, 4], text: 'Pinned fsspec==2024.6.1.' }])
      expect(second.warnings).toEqual([])
      // The range's items, and the encrypted reasoning between them that the range kept, give way to the summary.
      expect(resume(second.written)).toEqual(replaceRun(resume(first.written), items.slice(1, 5), 'Pinned fsspec==2024.6.1.'))
      expect(JSON.stringify(resume(second.written))).not.toContain('call_1')
      // Every other line stays byte for byte: new are the range's compacted record and the later one rewritten.
      const changed = second.written.split('\n').filter((line) => !first.written.split('\n').includes(line))
      expect(changed.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['compacted', 'compacted'])
      expect((await read('again.jsonl', second.written)).messages.map((entry) => entry.parts.map((part) => part.type).join('+'))).toEqual(['text', 'summary', 'text', 'summary', 'text', 'text'])
    })

    it('rewrites it for every range of one write, before and after the compaction', async () => {
      const first = await compactWith(input, [{ range: [5, 9], text: 'Tests: 12 passed.' }])
      const second = await compactWith(first.written, [
        { range: [1, 4], text: 'Pinned fsspec==2024.6.1.' },
        { range: [6, 8], text: 'Version 1.4.0.' },
      ])
      expect(second.warnings).toEqual([])
      const expected = replaceRun(replaceRun(resume(first.written), items.slice(1, 5), 'Pinned fsspec==2024.6.1.'), items.slice(11, 13), 'Version 1.4.0.')
      expect(resume(second.written)).toEqual(expected)
    })

    it("warns when the later compaction is Codex's own (user messages only) and cannot be rewritten exactly", async () => {
      // Codex's own compaction keeps the user messages (some cut short) and its summary: the range's items are not
      // its history's beginning, so nothing can replace them exactly and Codex will not load the summary.
      const native = input.replace(
        /\n(?=.*"Run the tests\.")/,
        `\n${record(8, 'compacted', { message: 'Codex: fsspec pinned.', replacement_history: [items[1], message('user', 'Codex: fsspec pinned.')] })}\n`,
      )
      const { written, warnings } = await compactWith(native, [{ range: [1, 4], text: 'Pinned fsspec==2024.6.1.' }])
      expect(warnings).toEqual([
        "messages 1:4 lie before the log's own compaction at line 10, whose replacement_history floorguard cannot rewrite exactly (it does not begin with the log's history at the range's end); Codex resumes from its last compaction, so it will not load this summary",
      ])
      expect(written.split('\n')).toContain(native.split('\n')[9])
      // Without a replacement_history Codex rebuilds from the user messages before it, the summary among them: no warning.
      const legacy = native.replace(/,"replacement_history":\[[^\n]*\]\}\}/, '}}')
      expect(legacy).not.toContain('replacement_history')
      expect((await compactWith(legacy, [{ range: [1, 4], text: 'Pinned fsspec==2024.6.1.' }])).warnings).toEqual([])
    })
  })
})

/** The compacted copy of a rollout with each range replaced by its summary (what `compact` writes). */
function compactRanges(
  input: string,
  transcript: Awaited<ReturnType<typeof read>>,
  summaries: readonly CompactedRange[],
  now = () => new Date('2026-05-01T12:00:00.000Z'),
  onWarning?: (message: string) => void,
): Buffer {
  return writeCompacted({ input: Buffer.from(input), transcript, compacted: withSummaries(transcript, summaries), summaries, now, ...(onWarning ? { onWarning } : {}) })
}

import { describe, expect, it } from 'vitest'
import type { Transcript } from '../spec/transcript.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { isOpenCodeExportHead, readOpenCodeExport } from './opencode.js'
import { findSummaries } from './summaries.js'

const lines = (records: readonly unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`
const read = (name: string, text: string, format = 'auto'): Promise<Transcript> => readTranscript(sourceFromString(name, text), { format })

const CONTINUATION = 'This session is being continued from a previous conversation that ran out of context. Summary: fixed src/app.ts.'
const STATE_BLOCK = '<floorguard-state v="2" range="0-3" tokens="120">\n## paths and urls\n- [user #0] src/app.ts\n</floorguard-state>'

function native(type: 'user' | 'assistant', uuid: string, content: unknown, extra: Record<string, unknown> = {}) {
  return {
    parentUuid: null,
    isSidechain: false,
    sessionId: 'sess-1',
    type,
    uuid,
    timestamp: '2026-03-09T02:10:46.639Z',
    message: type === 'assistant' ? { id: `msg-${uuid}`, role: 'assistant', content } : { role: 'user', content },
    ...extra,
  }
}

const boundary = (uuid: string) => ({ parentUuid: null, isSidechain: false, sessionId: 'sess-1', type: 'system', subtype: 'compact_boundary', uuid, compactMetadata: { trigger: 'auto', preTokens: 160000 } })

describe('findSummaries', () => {
  it('Claude Code native: an isCompactSummary record after its compact_boundary is one compaction', async () => {
    const transcript = await read(
      'native.jsonl',
      lines([
        native('user', 'u1', 'Fix src/app.ts; never touch config/prod.yaml.'),
        native('assistant', 'a1', [{ type: 'text', text: 'Done with src/app.ts.' }]),
        boundary('b1'),
        native('user', 'u2', 'Summary without the usual first sentence: src/app.ts fixed.', { isCompactSummary: true }),
        native('user', 'u3', 'Now check config/prod.yaml is untouched.'),
      ]),
    )
    const points = findSummaries(transcript)
    expect(points).toHaveLength(1)
    expect(points[0]).toMatchObject({ message: 2, source: 'claude-code', line: 4 })
    expect(points[0]!.text).toContain('src/app.ts fixed')
    expect(points[0]!.missing).toBeUndefined()
  })

  it('Claude Code native: a compact_boundary without its summary is a compaction whose summary is missing', async () => {
    const transcript = await read(
      'native.jsonl',
      lines([native('user', 'u1', 'Fix src/app.ts.'), native('assistant', 'a1', [{ type: 'text', text: 'Fixed.' }]), boundary('b1'), native('user', 'u3', 'Next: src/db.ts.')]),
    )
    expect(findSummaries(transcript)).toEqual([{ message: 2, source: 'claude-code', text: '', line: 3, missing: true }])
  })

  it('Claude Code Engram: the continuation sentence marks the summary', async () => {
    const transcript = await read(
      'engram.jsonl',
      lines([
        { timestamp: '2026-03-09T02:10:00Z', role: 'user', content: { type: 'text', text: 'Fix src/app.ts.' } },
        { timestamp: '2026-03-09T02:11:00Z', role: 'assistant', content: { type: 'text', text: 'Fixed.' } },
        { timestamp: '2026-03-09T02:12:00Z', role: 'user', content: { type: 'text', text: CONTINUATION } },
        { timestamp: '2026-03-09T02:13:00Z', role: 'user', content: { type: 'text', text: 'Thanks, continue.' } },
      ]),
    )
    expect(transcript.format).toBe('claude-code')
    expect(findSummaries(transcript)).toEqual([{ message: 2, source: 'claude-code', text: CONTINUATION, line: 3 }])
  })

  it('Codex: a compacted item', async () => {
    const transcript = await read(
      'rollout.jsonl',
      lines([
        { timestamp: 't', type: 'session_meta', payload: { id: 's', cwd: '/tmp', cli_version: '0.46.0' } },
        { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix src/app.ts.' }] } },
        { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] } },
        { timestamp: 't', type: 'compacted', payload: { message: 'Summary: fixed src/app.ts.' } },
        { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Go on.' }] } },
      ]),
    )
    expect(transcript.format).toBe('codex')
    const points = findSummaries(transcript)
    expect(points.map((point) => [point.message, point.source, point.text])).toEqual([[2, 'codex', 'Summary: fixed src/app.ts.']])
  })

  it('Codex: a compacted item whose text is empty (the summary went to an encrypted history) is a compaction with its summary missing', async () => {
    const transcript = await read(
      'rollout.jsonl',
      lines([
        { timestamp: 't', type: 'session_meta', payload: { id: 's', cwd: '/tmp', cli_version: '0.46.0' } },
        { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix src/app.ts.' }] } },
        { timestamp: 't', type: 'compacted', payload: { message: '', replacement_history: [] } },
      ]),
    )
    expect(findSummaries(transcript)).toEqual([{ message: 1, source: 'codex', text: '', line: 3, missing: true }])
  })

  it('Gemini CLI: a user message holding a <state_snapshot>', async () => {
    const snapshot = '<state_snapshot>\n<key_knowledge>src/app.ts</key_knowledge>\n</state_snapshot>'
    const transcript = await read(
      'gemini.jsonl',
      lines([
        { type: 'init', timestamp: 't', session_id: 's', model: 'gemini-3-pro-preview' },
        { type: 'message', timestamp: 't', role: 'user', content: 'Fix src/app.ts.' },
        { type: 'message', timestamp: 't', role: 'assistant', content: 'Fixed.', delta: true },
        { type: 'message', timestamp: 't', role: 'user', content: snapshot },
        { type: 'message', timestamp: 't', role: 'user', content: 'Go on.' },
      ]),
    )
    expect(transcript.format).toBe('gemini-cli')
    expect(findSummaries(transcript).map((point) => [point.message, point.source, point.text])).toEqual([[2, 'gemini-cli', snapshot]])
  })

  it('OpenCode export: the assistant message with summary: true, not a user message whose summary is a diff', () => {
    const exported = JSON.stringify(
      {
        info: { id: 'ses_abc', title: 't' },
        messages: [
          { info: { id: 'msg_1', role: 'user', summary: { diffs: [] } }, parts: [{ type: 'text', text: 'Fix src/app.ts.' }] },
          {
            info: { id: 'msg_2', role: 'assistant', mode: 'build' },
            parts: [
              { type: 'text', text: 'Reading.' },
              { type: 'tool', callID: 'c1', tool: 'read', state: { status: 'completed', input: { filePath: 'src/app.ts' }, output: 'x = 1' } },
            ],
          },
          { info: { id: 'msg_3', role: 'user', agent: 'compaction' }, parts: [{ type: 'compaction', auto: true }] },
          { info: { id: 'msg_4', role: 'assistant', mode: 'compaction', summary: true }, parts: [{ type: 'text', text: 'Summary: read src/app.ts.' }] },
          { info: { id: 'msg_5', role: 'user' }, parts: [{ type: 'text', text: 'Go on.' }] },
        ],
      },
      null,
      2,
    )
    expect(isOpenCodeExportHead(exported)).toBe(true)
    const transcript = readOpenCodeExport(exported, 'ses_abc.json')
    expect(transcript.pairs).toHaveLength(1)
    expect(findSummaries(transcript).map((point) => [point.message, point.source, point.text])).toEqual([[3, 'opencode', 'Summary: read src/app.ts.']])
  })

  it("floorguard's own: a state block written as plain text, or inside a host's summary; a hook injection is not one", async () => {
    const injection = `floorguard kept a ledger of the compacted messages.\nAll 1 items are below; the same ledger is in /tmp/l.json.\n${STATE_BLOCK}`
    const transcript = await read(
      'chat.json',
      JSON.stringify([
        { role: 'user', content: 'Fix src/app.ts.' },
        { role: 'assistant', content: `Quoting the format: ${STATE_BLOCK}` },
        { role: 'assistant', content: STATE_BLOCK },
        { role: 'user', content: STATE_BLOCK },
        { role: 'user', content: injection },
        { role: 'user', content: 'Go on.' },
      ]),
      'openai',
    )
    expect(findSummaries(transcript).map((point) => [point.message, point.source])).toEqual([[3, 'floorguard']])
    const claude = await read('native.jsonl', lines([native('user', 'u1', 'Fix src/app.ts.'), native('user', 'u2', `Summary.\n${STATE_BLOCK}`, { isCompactSummary: true })]))
    expect(findSummaries(claude).map((point) => [point.message, point.source])).toEqual([[1, 'floorguard']])
  })
})

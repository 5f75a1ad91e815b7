import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { createGeminiCliFormat, geminiCliFormat, outputReportsError } from './gemini-cli.js'

const text = readFileSync(new URL('./__fixtures__/gemini-cli/stream-json.jsonl', import.meta.url), 'utf8')
const read = (name: string, input = text) => geminiCliFormat.read(sourceFromString(name, input))

testTranscriptFormat({
  format: geminiCliFormat,
  fixtures: [{ name: 'stream-json.jsonl', text, expect: { messages: 10, toolCalls: 5, toolResults: 4, unpaired: 1 } }],
})

describe('gemini-cli mapping', () => {
  it('joins assistant deltas and keeps the turn’s tool calls in the same message', async () => {
    const transcript = await read('stream-json.jsonl')
    expect(transcript.messages.map((message) => [message.role, message.parts.map((part) => part.type)])).toEqual([
      ['user', ['text']],
      ['assistant', ['text', 'tool-call', 'tool-call']],
      ['tool', ['tool-result', 'tool-result']],
      ['assistant', ['text', 'tool-call']],
      ['tool', ['tool-result']],
      ['assistant', ['tool-call']],
      ['tool', ['tool-result']],
      ['assistant', ['text']],
      ['user', ['summary']],
      ['assistant', ['text', 'tool-call']],
    ])
    expect(transcript.messages[1]!.parts[0]).toEqual({ type: 'text', text: "I'll read the Figma file first." })
    expect(transcript.messages[1]!.provenance).toEqual({ line: 3, endLine: 6 })
  })

  it('marks errors reported by status or inside a success output, keeping the text', async () => {
    const transcript = await read('stream-json.jsonl')
    expect(transcript.messages[2]!.parts).toEqual([
      {
        type: 'tool-result',
        callId: 'get_figma_file-1769753902937-93a094e09022e',
        content: '{"status":"error","error":"Figma API error: 429 - Rate limit exceeded"}',
        isError: true,
      },
      { type: 'tool-result', callId: 'read_file-1769753903000-ce71e946f3def', content: 'File not found: /work/manifest.json', isError: true },
    ])
    expect(transcript.messages[4]!.parts[0]).toMatchObject({ isError: false })
    expect(transcript.messages[6]!.parts[0]).toEqual({ type: 'tool-result', callId: 'write_file-1769753920000-39be024f94e31', content: '', isError: false })
    expect(outputReportsError('  {"status": "error"}')).toBe(true)
    expect(outputReportsError('{"status":"success","note":"status error"}')).toBe(false)
    expect(outputReportsError('{"status":"error"')).toBe(false)
  })

  it('reads a <state_snapshot> as a summary and keeps sessions and stats in the envelope', async () => {
    const transcript = await read('stream-json.jsonl')
    expect(transcript.messages[8]!.parts[0]).toMatchObject({ type: 'summary', source: 'gemini-cli' })
    expect(transcript.envelope).toEqual({
      sessions: [
        { line: 1, sessionId: '6727b31e-11a1-4351-b526-77ba7b90da09', model: 'gemini-3-pro-preview' },
        { line: 16, sessionId: '65b8f8e4-6941-4eba-b2b8-a3f492435908', model: 'gemini-3-pro-preview' },
      ],
      results: [
        { line: 15, status: 'success', stats: { total_tokens: 21641, input_tokens: 21520, output_tokens: 121, cached: 13798, input: 7722, duration_ms: 28053, tool_calls: 4 } },
      ],
      skipped: { init: 2, result: 1 },
    })
  })

  it('names the line and field of a malformed event', async () => {
    await expect(read('bad.jsonl', '{"type":"message","role":"model","content":"x"}\n')).rejects.toThrow(
      'bad.jsonl:1: /role: expected "user" or "assistant", got the string "model"',
    )
    await expect(read('bad.jsonl', '{"type":"tool_use","tool_name":"x","parameters":{}}\n')).rejects.toThrow('bad.jsonl:1: /tool_id: expected a string, got nothing (the field is missing)')
  })

  it('appends stream-json events, a summary as a <state_snapshot> message', async () => {
    const format = createGeminiCliFormat({ now: () => new Date('2026-01-31T00:00:00.000Z') })
    const messages: Message[] = [{ role: 'user', parts: [{ type: 'summary', text: 'Primary colour #2F1893 exactly.', source: 'floorguard' }] }]
    const appended = format.append!(messages)
    expect(appended).toBe(
      '{"type":"message","timestamp":"2026-01-31T00:00:00.000Z","role":"user","content":"<state_snapshot>\\nPrimary colour #2F1893 exactly.\\n</state_snapshot>"}\n',
    )
    const extended = await read('extended.jsonl', text + appended)
    expect(extended.messages.at(-1)!.parts[0]).toMatchObject({ type: 'summary', source: 'gemini-cli' })
  })
})

describe('--format gemini-cli on another tool’s JSONL (a re-test: a Claude Code log read as 0 messages, exit 0)', () => {
  it('is refused in one line naming what the file looks like; a file of stream-json events still reads', async () => {
    const claudeCode = [
      JSON.stringify({ parentUuid: null, sessionId: 's', type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1' }),
      JSON.stringify({ parentUuid: 'u1', sessionId: 's', type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, uuid: 'u2' }),
    ].join('\n')
    await expect(read('s1.jsonl', claudeCode)).rejects.toThrow(
      's1.jsonl:1: expected Gemini CLI stream-json events (type init, message, tool_use, tool_result, error or result), got none in 2 records (the file looks like a Claude Code session log?)',
    )
    const own = await read('own.jsonl', `${JSON.stringify({ type: 'init', session_id: 'x', model: 'm' })}\n${JSON.stringify({ type: 'unknown-event' })}\n`)
    expect(own.messages).toEqual([])
  })
})

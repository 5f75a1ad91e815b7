import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { ENCRYPTED_COMPACTION, openaiResponsesFormat } from './openai-responses.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/openai-responses/${name}`, import.meta.url), 'utf8')
const read = (text: string, name = 'items.json'): Promise<Transcript> => openaiResponsesFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: openaiResponsesFormat,
  // function_call_output has no error flag: a synthesized failed result cannot say it failed.
  toolErrors: false,
  fixtures: [
    { name: 'input-items.json', text: fixture('input-items.json'), expect: { messages: 8, toolCalls: 3, toolResults: 3, unpaired: 0 } },
    { name: 'response-output.json', text: fixture('response-output.json'), expect: { messages: 1, toolCalls: 2, toolResults: 1, unpaired: 1 } },
    { name: 'bare-shell.json', text: fixture('bare-shell.json'), expect: { messages: 8, toolCalls: 3, toolResults: 3, unpaired: 0 } },
  ],
})

describe('openai-responses format', () => {
  it('groups one assistant turn and one run of outputs into one message each', async () => {
    const transcript = await read(fixture('input-items.json'))
    expect(transcript.messages.map((message) => message.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool', 'user'])
    expect(transcript.messages[3]!.parts).toEqual([
      { type: 'reasoning', text: 'Dry-run first, then apply.' },
      { type: 'tool-call', id: 'call_dryrun_01', name: 'run_sql', arguments: { file: 'migrate_v47.sql', dry_run: true } },
    ])
    expect(transcript.messages[3]!.provenance).toEqual({ pointer: '/input/3' })
    expect(transcript.messages[3]!.source).toHaveLength(2)
    expect(transcript.messages[6]!.parts).toEqual([
      { type: 'tool-result', callId: 'call_apply_01', content: 'ERROR 40P01: deadlock detected on relation orders', isError: false },
      { type: 'tool-result', callId: 'call_notify_01', content: 'posted', isError: false },
    ])
  })

  it('reads a compaction item as a summary part', async () => {
    const transcript = await read(fixture('input-items.json'))
    expect(transcript.messages[1]!.parts).toEqual([{ type: 'summary', text: ENCRYPTED_COMPACTION, source: 'openai-responses' }])
    const readable = await read('[{"type":"compaction","id":"c1","encrypted_content":"x","summary":[{"type":"summary_text","text":"User wants v47 on staging."}]}]')
    expect(readable.messages[0]!.parts).toEqual([{ type: 'summary', text: 'User wants v47 on staging.', source: 'openai-responses' }])
  })

  it('pairs hosted tools inside the turn and shell outputs by call id', async () => {
    const output = await read(fixture('response-output.json'))
    expect(output.messages[0]!.parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call', 'tool-result', 'text', 'tool-call'])
    expect(output.messages[0]!.parts[0]).toEqual({ type: 'reasoning', text: '[encrypted reasoning]' })
    expect(output.unpaired).toEqual([{ kind: 'call', id: 'call_ticket_9', message: 0, part: 4 }])
    const shell = await read(fixture('bare-shell.json'))
    expect(shell.messages[2]!.parts[0]).toMatchObject({ id: 'call_sh_1', name: 'local_shell', arguments: { command: ['node', '--version'] } })
    expect(shell.messages[3]!.parts[0]).toEqual({ type: 'tool-result', callId: 'call_sh_1', content: 'v20.19.2\n', isError: false })
    expect(shell.messages[6]!.parts[1]).toEqual({ type: 'tool-result', callId: 'mcp_7', name: 'create_issue', content: '403 Resource not accessible by integration', isError: true })
    expect(shell.messages[7]!.parts).toEqual([{ type: 'text', text: '[item reference: msg_prev_0042]' }])
  })

  it('reads a string input', async () => {
    const transcript = await read('{"model":"gpt-5","input":"Summarize RFC 9110 in one line."}')
    expect(transcript.messages).toHaveLength(1)
    expect(transcript.messages[0]!.parts).toEqual([{ type: 'text', text: 'Summarize RFC 9110 in one line.' }])
    const written = openaiResponsesFormat.write!(transcript)
    expect(JSON.parse(written)).toEqual({ model: 'gpt-5', input: 'Summarize RFC 9110 in one line.' })
  })

  it('names the field on bad input', async () => {
    await expect(read('[{"type":"function_call","name":"f","arguments":"{}"}]')).rejects.toThrow('items.json: /0/call_id: expected a string, got undefined')
    await expect(read('[{"type":"telepathy"}]')).rejects.toThrow('items.json: /0/type: expected an item type of message, function_call')
    await expect(read('{"input":[{"role":null,"content":"x"}]}')).rejects.toThrow('items.json: /input/0/role: expected one of user, assistant, system, developer, got null')
    await expect(read('{"output":7}')).rejects.toThrow('items.json: /output: expected an array of output items, got number')
  })

  it('writes unchanged items exactly and a new summary as an input text message', async () => {
    const transcript = await read(fixture('input-items.json'))
    const summary: Message = { role: 'user', parts: [{ type: 'summary', text: 'Dry run of v47 passed.', source: 'floorguard' }] }
    const written = JSON.parse(openaiResponsesFormat.write!({ ...transcript, messages: [transcript.messages[0]!, summary, ...transcript.messages.slice(5)] }))
    const original = JSON.parse(fixture('input-items.json'))
    expect(written.model).toBe('gpt-5')
    expect(written.input).toEqual([
      original.input[0],
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Dry run of v47 passed.' }] },
      ...original.input.slice(6),
    ])
  })
})

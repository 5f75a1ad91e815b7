import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { openaiFormat } from './openai.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/openai/${name}`, import.meta.url), 'utf8')
const read = (text: string, name = 'chat.json'): Promise<Transcript> => openaiFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: openaiFormat,
  fixtures: [
    { name: 'chat-tools.json', text: fixture('chat-tools.json'), expect: { messages: 6, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    { name: 'content-parts.json', text: fixture('content-parts.json'), expect: { messages: 6, toolCalls: 0, toolResults: 0, unpaired: 0 } },
    { name: 'legacy-function.json', text: fixture('legacy-function.json'), expect: { messages: 8, toolCalls: 3, toolResults: 3, unpaired: 2 } },
    { name: 'agent-exit.json', text: fixture('agent-exit.json'), expect: { messages: 7, toolCalls: 0, toolResults: 0, unpaired: 0 } },
  ],
})

describe('openai format', () => {
  it('maps roles, names, content parts and reasoning', async () => {
    const transcript = await read(fixture('content-parts.json'))
    expect(transcript.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'assistant'])
    expect(transcript.messages[1]!.name).toBe('dana')
    expect(transcript.messages[1]!.parts).toEqual([
      { type: 'text', text: 'What does this dashboard show? The export is attached.' },
      { type: 'text', text: '[image]' },
      { type: 'text', text: '[file: latency-2026-11.csv]' },
      { type: 'text', text: '[audio]' },
    ])
    expect(transcript.messages[2]!.parts[0]).toEqual({ type: 'reasoning', text: 'The chart is p99 latency by service; checkout spikes at 14:05 UTC.' })
    expect(transcript.messages[4]!.parts).toEqual([{ type: 'text', text: "I can't share personal addresses." }])
    expect(transcript.messages[5]!.parts).toEqual([{ type: 'text', text: '' }, { type: 'text', text: "I can't help with that request." }])
    expect(transcript.messages[3]!.provenance).toEqual({ pointer: '/3' })
  })

  it('parses tool-call arguments and joins multi-part tool results', async () => {
    const transcript = await read(fixture('chat-tools.json'))
    expect(transcript.messages[2]!.parts[1]).toEqual({ type: 'tool-call', id: 'call_7Qb2x9UkAq2', name: 'run_shell', arguments: { command: 'pytest tests/test_client.py -q' } })
    expect(transcript.messages[4]!.parts[0]).toMatchObject({
      type: 'tool-result',
      callId: 'call_7Qb2x9UkAq2',
      content: 'FAILED tests/test_client.py::test_retry - AssertionError: expected 3 retries, got 2\n1 failed, 14 passed in 2.31s',
      isError: false,
    })
    expect(transcript.messages[1]!.provenance).toEqual({ pointer: '/messages/1' })
    expect(transcript.envelope).toMatchObject({ kind: 'object', key: 'messages' })
  })

  it('pairs legacy function_call by name with synthetic stable ids, keeping broken arguments raw', async () => {
    const transcript = await read(fixture('legacy-function.json'))
    expect(transcript.messages[2]!.parts[0]).toEqual({ type: 'tool-call', id: 'function_call:/2', name: 'get_weather', arguments: { city: 'Oslo', unit: 'celsius' } })
    expect(transcript.messages[4]!.parts[0]).toMatchObject({ id: 'function_call:/4', arguments: '{"city": "Bergen"' })
    expect(transcript.messages[3]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'function_call:/2', name: 'get_weather' })
    expect(transcript.messages[5]!.parts[0]).toMatchObject({ callId: 'function_call:/4' })
    expect(transcript.pairs.map((pair) => pair.id)).toEqual(['function_call:/2', 'function_call:/4'])
    expect(transcript.unpaired).toEqual([
      { kind: 'result', id: 'function:/6', message: 6, part: 0 },
      { kind: 'call', id: 'call_bergen_2', message: 7, part: 1 },
    ])
  })

  it('names the field and the expectation on a wrong type', async () => {
    const bad = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 42 }] })
    await expect(read(bad)).rejects.toThrow('chat.json: /messages/1/content: expected a string, null or an array of content parts, got number')
    await expect(read('[{"role":false,"content":"x"}]')).rejects.toThrow(
      'chat.json: /0/role: expected one of system, developer, user, assistant, tool, function, got boolean',
    )
    await expect(read('[{"role":"tool","content":"x"}]')).rejects.toThrow('chat.json: /0/tool_call_id: expected a string, got undefined')
    await expect(read('[{"role":"user","content":[{"type":"video"}]}]')).rejects.toThrow('/0/content/0/type: expected a content part type of')
    await expect(read('{"model":"x"}')).rejects.toThrow('chat.json: /: expected an array of Chat Completions messages')
  })

  it('refuses a message without content (another API\'s message) instead of reading it as empty', async () => {
    // A black-box re-test: Gemini-style `{role: "user", parts: [...]}` messages read as 0 tokens, with exit 0.
    await expect(read('[{"role":"user","parts":[{"text":"Fix the parser."}]}]')).rejects.toThrow('chat.json: /0/content: expected a string or an array of content parts, got undefined')
    await expect(read('[{"role":"user","content":"hi"},{"role":"assistant"}]')).rejects.toThrow('/1/content: expected a string or an array of content parts (or `tool_calls`), got undefined')
    // What the API allows stays: an assistant turn of tool calls alone, a null content, a refusal.
    const calls = await read('[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"a.txt"},{"role":"assistant","content":null,"refusal":"No."},{"role":"user","content":null}]')
    expect(calls.messages.map((message) => message.parts.map((part) => part.type).join('+'))).toEqual(['tool-call', 'tool-result', 'text', 'text'])
  })

  it('refuses an AI SDK UIMessage (v4: content beside parts and toolInvocations) instead of dropping its tool calls, and reads `"name": null` as no name', async () => {
    const ui = JSON.stringify([
      { id: 'm1', role: 'user', content: 'Remind me tomorrow', parts: [{ type: 'text', text: 'Remind me tomorrow' }] },
      {
        id: 'm2',
        role: 'assistant',
        content: '',
        toolInvocations: [{ state: 'result', toolCallId: 'call_kM1', toolName: 'scheduleTask', args: { when: '2025-03-19T00:00:00.000Z' }, result: 'ok' }],
        parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'call_kM1', toolName: 'scheduleTask' } }],
      },
    ])
    await expect(read(ui)).rejects.toThrow('chat.json: /0/parts: expected a message without `parts` or `toolInvocations` (this is an AI SDK UIMessage: convert it with convertToModelMessages')
    for (const format of ['anthropic', 'ai-sdk'] as const) {
      const { getFormat } = await import('../registry.js')
      await expect(getFormat(format).read(sourceFromString('chat.json', ui))).rejects.toThrow('this is an AI SDK UIMessage')
    }
    const named = await read('[{"role":"user","name":null,"content":"hi"},{"role":"assistant","name":null,"content":"hello","tool_calls":null}]')
    expect(named.messages.map((message) => message.name)).toEqual([undefined, undefined])
  })

  it('reports a syntax error with line and column', async () => {
    await expect(read('[\n  {"role": "user",\n   "content": "hi"\n  ,}\n]')).rejects.toThrow(/^chat\.json:4:4: expected/)
  })

  it('writes unchanged records exactly and synthesizes new and edited messages', async () => {
    const transcript = await read(fixture('chat-tools.json'))
    const summary: Message = { role: 'user', parts: [{ type: 'summary', text: 'Earlier: pin is api-client==4.1.9.', source: 'floorguard' }] }
    const edited: Message = { ...transcript.messages[3]!, parts: [{ type: 'tool-result', callId: 'call_7Qb2x9UkAq1', content: '[trimmed]', isError: false }] }
    const written = JSON.parse(
      openaiFormat.write!({ ...transcript, messages: [transcript.messages[0]!, summary, transcript.messages[2]!, edited, ...transcript.messages.slice(4)] }),
    )
    const original = JSON.parse(fixture('chat-tools.json'))
    expect(written.model).toBe('gpt-4o-2024-08-06')
    expect(written.messages[0]).toEqual(original.messages[0])
    expect(written.messages[1]).toEqual({ role: 'user', content: 'Earlier: pin is api-client==4.1.9.' })
    expect(written.messages[2]).toEqual(original.messages[2])
    expect(written.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_7Qb2x9UkAq1', content: '[trimmed]' })
    expect(written.messages.slice(4)).toEqual(original.messages.slice(4))
  })

  it('synthesizes an assistant turn with reasoning, text and tool calls', () => {
    const written = JSON.parse(
      openaiFormat.write!({
        format: 'openai',
        pairs: [],
        unpaired: [],
        messages: [
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'think' },
              { type: 'tool-call', id: 'c1', name: 'ls', arguments: { path: '.' } },
              { type: 'tool-call', id: 'c2', name: 'raw', arguments: 'not json' },
            ],
          },
          { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'a\nb', isError: true }] },
        ],
      }),
    )
    expect(written).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'think',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } },
          { id: 'c2', type: 'function', function: { name: 'raw', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a\nb' },
    ])
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { detectFormat } from '../registry.js'
import { sourceFromString } from '../source.js'
import { langChainFormat } from './langchain.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/langchain/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => langChainFormat.read(sourceFromString(name, text))
const shape = (messages: ReadonlyArray<{ role: string; parts: ReadonlyArray<{ type: string }> }>) =>
  messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)

testTranscriptFormat({
  format: langChainFormat,
  fixtures: [
    // Python messages_to_dict / FileChatMessageHistory: system, human, ai+call, result, ai+call, failing result, ai.
    { name: 'file-history.json', text: fixture('file-history.json'), expect: { messages: 7, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    // LangChain.js toDict under `messages`: a tool_use block, a legacy function_call, a chat message, a RemoveMessage.
    { name: 'stored-messages.json', text: fixture('stored-messages.json'), expect: { messages: 6, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('langchain stored messages', () => {
  it('reads roles, tool calls from tool_calls (not again from additional_kwargs), results by tool_call_id, status error', async () => {
    const transcript = await read('file-history.json')
    expect(shape(transcript.messages)).toEqual(['system:text', 'user:text', 'assistant:tool-call', 'tool:tool-result', 'assistant:text+tool-call', 'tool:tool-result', 'assistant:text'])
    expect(transcript.messages[2]!.parts).toEqual([{ type: 'tool-call', id: 'call_pin_1', name: 'read_file', arguments: { path: 'requirements.txt' } }])
    expect(transcript.messages[5]!.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'call_test_2',
      name: 'terminal',
      content: 'FAILED tests/test_client.py::test_retry - AssertionError: expected 3 retries, got 2',
      isError: true,
    })
    expect(transcript.pairs).toHaveLength(2)
  })

  it('reads thinking and tool_use blocks, a legacy function call and its answer, a chat role, and keeps a RemoveMessage aside', async () => {
    const transcript = await read('stored-messages.json')
    expect(shape(transcript.messages)).toEqual(['user:text', 'assistant:reasoning+tool-call', 'tool:tool-result', 'assistant:tool-call', 'tool:tool-result', 'assistant:text'])
    expect(transcript.messages[1]!.parts[1]).toEqual({ type: 'tool-call', id: 'toolu_01', name: 'get_weather', arguments: { city: 'Oslo' } })
    expect(transcript.messages[2]!.parts[0]).toMatchObject({ callId: 'toolu_01', content: '-3 C, light snow', isError: false })
    expect(transcript.messages[3]!.parts).toEqual([{ type: 'tool-call', id: 'function-call-3', name: 'convert', arguments: { celsius: -3 } }])
    expect(transcript.messages[4]!.parts).toEqual([{ type: 'tool-result', callId: 'function-call-3', name: 'convert', content: '26.6 F', isError: false }])
    expect(transcript.messages[5]!.provenance).toEqual({ pointer: '/messages/5' })
  })

  it('is detected without claiming a chat array, and a bad field is named', async () => {
    // G2/G3: these files got "JSON that no format claims".
    expect(detectFormat(fixture('file-history.json'), 'h.json').name).toBe('langchain')
    expect(detectFormat(fixture('stored-messages.json'), 's.json').name).toBe('langchain')
    expect(langChainFormat.detect('[{"role": "user", "content": "hi"}]')).toBe(0)
    expect(langChainFormat.detect('[{"type": "message", "role": "user", "content": "hi"}]')).toBe(0)
    // Unknown types among known ones (a re-test: a second entry of an unknown type hid the file): detected when at
    // least half the whole entries are known; never when most are not.
    expect(langChainFormat.detect('[{"type": "human", "data": {"content": "hi"}}, {"type": "banana", "data": {}}]')).toBeGreaterThan(0.5)
    expect(langChainFormat.detect('[{"type": "human", "data": {"content": "hi"}}, {"type": "banana", "data": {}}, {"type": "kiwi", "data": {}}]')).toBe(0)
    expect(langChainFormat.detect('[{"type": "banana", "data": {}}]')).toBe(0)
    // A head cut inside the second item still says what the first one is.
    expect(langChainFormat.detect('[{"type": "human", "data": {"content": "hi"}}, {"type": "ai", "da')).toBe(0.95)
    // A first message longer than the head: its type and the start of its data are enough.
    expect(langChainFormat.detect(`[{"type": "system", "data": {"content": "${'x'.repeat(70_000)}`.slice(0, 65_536))).toBe(0.95)
    expect(langChainFormat.detect('[{"type": "system", "da')).toBe(0)
    const broken = fixture('file-history.json').replace('"tool_call_id": "call_pin_1"', '"tool_call_id": 7')
    await expect(read('b.json', broken)).rejects.toThrow(/^b\.json: \/3\/data\/tool_call_id: expected the id of the call this result answers, got number 7$/)
  })
})

describe('entries of a type langchain does not read (a re-test: LangGraph\'s RemoveMessage dropped without a word)', () => {
  const text = JSON.stringify([
    { type: 'human', data: { content: 'who am I?' } },
    { type: 'remove', data: { id: 'msg-7' } },
    { type: 'ai', data: { content: 'A user.' } },
    { type: 'banana', data: { content: 'peel' } },
  ])

  it('keeps each in the envelope as it was, with one warning each, and reads the rest', async () => {
    const transcript = await read('h.json', text)
    expect(shape(transcript.messages)).toEqual(['user:text', 'assistant:text'])
    expect(transcript.warnings).toEqual([
      expect.stringMatching(/^h\.json: \/1: .*RemoveMessage.*kept as it is/),
      expect.stringMatching(/^h\.json: \/3: type "banana" is not .*kept as it is/),
    ])
    expect(transcript.envelope).toEqual({
      carried: [
        { pointer: '/1', after: '/0', item: { type: 'remove', data: { id: 'msg-7' } } },
        { pointer: '/3', after: '/2', item: { type: 'banana', data: { content: 'peel' } } },
      ],
    })
  })

  it('is read under auto-detection', async () => {
    expect(detectFormat(text, 'h.json').name).toBe('langchain')
  })
})

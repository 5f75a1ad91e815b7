import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { scoreFormats } from '../registry.js'
import { anthropicFormat } from './anthropic.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/anthropic/${name}`, import.meta.url), 'utf8')
const read = (text: string, name = 'request.json'): Promise<Transcript> => anthropicFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: anthropicFormat,
  fixtures: [
    { name: 'tools.json', text: fixture('tools.json'), expect: { messages: 7, toolCalls: 3, toolResults: 3, unpaired: 0 } },
    { name: 'bare-mixed.json', text: fixture('bare-mixed.json'), expect: { messages: 4, toolCalls: 3, toolResults: 2, unpaired: 1 } },
    { name: 'system-blocks.json', text: fixture('system-blocks.json'), expect: { messages: 3, toolCalls: 0, toolResults: 0, unpaired: 0 } },
  ],
})

describe('anthropic format', () => {
  it('reads the top-level system, thinking, tool use and tool results', async () => {
    const transcript = await read(fixture('tools.json'))
    expect(transcript.messages[0]).toMatchObject({ role: 'system', provenance: { pointer: '/system' } })
    expect(transcript.messages[2]!.parts.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call', 'tool-call'])
    expect(transcript.messages[2]!.parts[2]).toEqual({
      type: 'tool-call',
      id: 'toolu_01A9fTq3',
      name: 'bash',
      arguments: { command: 'kubectl describe pod ingest-28811 -n data | tail -n 20' },
    })
    // All blocks are tool results: normalized role `tool`, native record still `user`.
    expect(transcript.messages[3]!.role).toBe('tool')
    expect((transcript.messages[3]!.source as { role: string }).role).toBe('user')
    expect(transcript.messages[3]!.parts[1]).toEqual({ type: 'tool-result', callId: 'toolu_01A9fTq4', content: 'resources:\n  limits:\n    memory: 512Mi\n[image]', isError: false })
    expect(transcript.messages[5]!.parts[0]).toMatchObject({ isError: true, content: '<tool_use_error>File is read-only: deploy/ingest/job.yaml</tool_use_error>' })
  })

  it('keeps role user when tool results come with text, and maps server tools and documents', async () => {
    const transcript = await read(fixture('bare-mixed.json'))
    expect(transcript.messages[0]!.parts[0]).toEqual({ type: 'text', text: '[document: RFC-0042 Retry budget]' })
    expect(transcript.messages[1]!.parts[0]).toEqual({ type: 'reasoning', text: '[redacted thinking]' })
    expect(transcript.messages[1]!.parts[2]).toEqual({
      type: 'tool-result',
      callId: 'srvtoolu_01WYG3',
      content: 'Transports - HTTPX\nhttps://www.python-httpx.org/advanced/transports/',
      isError: false,
    })
    expect(transcript.messages[2]!.role).toBe('user')
    expect(transcript.unpaired).toEqual([{ kind: 'call', id: 'toolu_01Gr6', message: 3, part: 1 }])
  })

  it('flags server tool error content objects', async () => {
    const text = JSON.stringify([
      { role: 'assistant', content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'x' } }, { type: 'web_search_tool_result', tool_use_id: 's1', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } }] },
    ])
    const transcript = await read(text)
    expect(transcript.messages[0]!.parts[1]).toMatchObject({ isError: true, content: '{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}' })
  })

  it('reads a server-side compaction block as the summary it is, and detects the request by it', async () => {
    // A black-box re-test: a real request holding the API's `compaction` block was refused by every format.
    const request = {
      model: 'claude-sonnet-4-5',
      context_management: { edits: [{ type: 'compact_20260112' }] },
      messages: [
        { role: 'user', content: 'The quick brown fox. Now say hello.' },
        { role: 'assistant', content: [{ type: 'compaction', content: 'The user asked for a greeting after filler text.' }, { type: 'text', text: 'Hello!' }] },
        { role: 'user', content: 'Again.' },
      ],
    }
    const text = JSON.stringify(request)
    expect(scoreFormats(text)[0]).toMatchObject({ name: 'anthropic' })
    const transcript = await read(text)
    expect(transcript.messages[1]!.parts).toEqual([
      { type: 'summary', text: 'The user asked for a greeting after filler text.', source: 'anthropic' },
      { type: 'text', text: 'Hello!' },
    ])
    const none = await read(JSON.stringify({ messages: [{ role: 'assistant', content: [{ type: 'compaction', content: null }] }] }))
    expect(none.messages[0]!.parts).toEqual([{ type: 'summary', text: '[compaction]', source: 'anthropic' }])
  })

  it('names the field on bad input', async () => {
    await expect(read('{"messages":[{"role":7,"content":"x"}]}')).rejects.toThrow(
      'request.json: /messages/0/role: expected role "user", "assistant" or "system", got number',
    )
    await expect(read('[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]')).rejects.toThrow('request.json: /0/content/0/tool_use_id: expected a string, got undefined')
    await expect(read('[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]}]')).rejects.toThrow('/0/content/0/is_error: expected a boolean, got "yes"')
    await expect(read('[{"role":"user","content":[{"type":"hologram"}]}]')).rejects.toThrow('/0/content/0/type: expected a content block type of text, image')
  })

  it('writes the system back, moves a later system message into a user message, and synthesizes new ones', async () => {
    const transcript = await read(fixture('tools.json'))
    const summary: Message = { role: 'system', parts: [{ type: 'summary', text: 'Summary so far: OOMKilled at 512Mi.', source: 'floorguard' }] }
    const messages = [transcript.messages[0]!, transcript.messages[1]!, summary, ...transcript.messages.slice(4)]
    const written = JSON.parse(anthropicFormat.write!({ ...transcript, messages }))
    const original = JSON.parse(fixture('tools.json'))
    expect(written.system).toBe(original.system)
    expect(written.max_tokens).toBe(8192)
    expect(written.messages).toEqual([
      original.messages[0],
      { role: 'user', content: [{ type: 'text', text: 'Summary so far: OOMKilled at 512Mi.' }] },
      ...original.messages.slice(3),
    ])
  })

  it('adds an envelope when a bare array gains a system prompt', () => {
    const written = JSON.parse(
      anthropicFormat.write!({
        format: 'anthropic',
        pairs: [],
        unpaired: [],
        envelope: { kind: 'array' },
        messages: [
          { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'tool', parts: [{ type: 'tool-result', callId: 't1', content: 'boom', isError: true }] },
        ],
      }),
    )
    expect(written).toEqual({ system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true }] }] })
  })
})

describe('a system message inside `messages` (a re-test: real requests the API answered were claimed by ai-sdk or refused)', () => {
  // A hand-made request in the shape of the re-test's cassettes: top-level `system` and `max_tokens`, and a
  // `{"role": "system"}` message of text blocks partway through `messages`.
  const request = {
    max_tokens: 4096,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Review `def add(a, b)`.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looks fine.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Again.' }] },
      { role: 'system', content: [{ type: 'text', text: 'From now on, every suggestion must include type annotations.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'def add(a: int, b: int) -> int' }] },
    ],
    model: 'claude-x',
    system: 'You are a code reviewer.',
  }
  const withTools = {
    max_tokens: 1024,
    system: 'Use the tool.',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] },
      { role: 'system', content: [{ type: 'text', text: 'Answer in French from now on.' }] },
    ],
  }

  it('is detected as anthropic, by it alone', () => {
    for (const document of [request, withTools, { ...request, messages: request.messages.slice(3) }]) {
      const scores = scoreFormats(JSON.stringify(document, null, 2))
      expect(scores[0]!.name, JSON.stringify(scores)).toBe('anthropic')
      expect(scores.filter((score) => score.score > 0.5).map((score) => score.name)).toEqual(['anthropic'])
    }
  })

  it('reads the message as a system message in its place, without a warning, and writes it back exactly', async () => {
    const text = JSON.stringify(request, null, 2)
    const transcript = await read(text)
    expect(transcript.warnings).toBeUndefined()
    expect(transcript.messages.map((message) => [message.role, message.provenance])).toEqual([
      ['system', { pointer: '/system' }],
      ['user', { pointer: '/messages/0' }],
      ['assistant', { pointer: '/messages/1' }],
      ['user', { pointer: '/messages/2' }],
      ['system', { pointer: '/messages/3' }],
      ['assistant', { pointer: '/messages/4' }],
    ])
    expect(transcript.messages[4]!.parts).toEqual([{ type: 'text', text: 'From now on, every suggestion must include type annotations.' }])
    expect(JSON.parse(anthropicFormat.write!(transcript))).toEqual(request)
    // Opening the array, it is still written where it was, not folded into the top-level `system`.
    const first = { messages: request.messages.slice(3) }
    expect(JSON.parse(anthropicFormat.write!(await read(JSON.stringify(first))))).toEqual(first)
  })
})

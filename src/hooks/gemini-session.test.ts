import { describe, expect, it } from 'vitest'
import { FACTS, geminiSessionDocument, geminiSessionJsonl, geminiSnapshotLine } from './__fixtures__/logs.js'
import { readGeminiSession } from './gemini-session.js'

describe('readGeminiSession', () => {
  it('reads the JSON document and the JSONL form of one session into the same messages', () => {
    const document = readGeminiSession(geminiSessionDocument())
    const jsonl = readGeminiSession(geminiSessionJsonl())
    const content = (messages: typeof document.messages) => messages.map(({ role, parts }) => ({ role, parts }))
    expect(content(jsonl.messages)).toEqual(content(document.messages))
    expect(document.skipped).toBe(0)
  })

  it('maps gemini turns to an assistant message (thoughts, text, calls) and a tool message of their results', () => {
    const { messages } = readGeminiSession(geminiSessionDocument({ turns: 0 }))
    const call = messages.find((message) => message.parts.some((part) => part.type === 'tool-call' && part.arguments && (part.arguments as { command?: string }).command === FACTS.command))!
    expect(call.role).toBe('assistant')
    expect(call.parts.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call'])
    const result = messages[messages.indexOf(call) + 1]!
    expect(result.role).toBe('tool')
    expect(result.parts[0]).toMatchObject({ type: 'tool-result', callId: 'call_0a', isError: true })
    expect((result.parts[0] as { content: string }).content).toContain(FACTS.error)
  })

  it('reads a <state_snapshot> user message as a summary part and skips the CLI notices', () => {
    const { messages } = readGeminiSession(geminiSessionJsonl() + geminiSnapshotLine('later state'))
    const last = messages.at(-1)!
    expect(last.parts[0]).toMatchObject({ type: 'summary', source: 'gemini-cli' })
    expect(messages.some((message) => message.parts.some((part) => part.type === 'text' && part.text === 'Compressing chat history.'))).toBe(false)
  })

  it('skips a partial last line and counts it', () => {
    const text = geminiSessionJsonl()
    const cut = `${text}{"id":"m99","type":"user","content":[{"text":"half`
    const read = readGeminiSession(cut)
    expect(read.skipped).toBe(1)
    expect(read.messages).toEqual(readGeminiSession(text).messages)
  })

  it('drops the rewound message and what followed it', () => {
    const lines = [
      JSON.stringify({ id: 'a', type: 'user', content: 'first' }),
      JSON.stringify({ id: 'b', type: 'user', content: 'second' }),
      JSON.stringify({ id: 'c', type: 'gemini', content: 'reply' }),
      JSON.stringify({ $rewindTo: 'b' }),
      JSON.stringify({ id: 'd', type: 'user', content: 'edited second' }),
    ]
    const { messages } = readGeminiSession(lines.join('\n'))
    expect(messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['first', 'edited second'])
  })
})

import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { claudeCodeLog, codexRollout, FACTS, geminiSessionDocument, OLD_PATH } from './__fixtures__/logs.js'
import { readGeminiSession } from './gemini-session.js'
import { fromLineBoundary, lastBoundary, latestSummary, pendingRegion } from './region.js'

async function read(text: string, format: string): Promise<readonly Message[]> {
  return (await readTranscript(sourceFromString('log', text), { format, lenient: true, keepSource: false })).messages
}

function texts(messages: readonly Message[]): string {
  return messages.map((message) => message.parts.map((part) => ('text' in part ? part.text : 'content' in part ? part.content : JSON.stringify(part))).join('\n')).join('\n')
}

describe('pendingRegion', () => {
  it.each([
    ['claude-code', () => read(claudeCodeLog(), 'claude-code')],
    ['codex', () => read(codexRollout(), 'codex')],
    ['gemini session', async () => readGeminiSession(geminiSessionDocument()).messages],
  ])('%s: starts after the last summary, so the state before the boundary is left out', async (_name, load) => {
    const messages = await load()
    const region = pendingRegion(messages)
    const boundary = messages[region.start - 1]!
    expect(boundary.parts.some((part) => part.type === 'summary')).toBe(true)
    const inside = texts(messages.slice(region.start, region.end))
    expect(inside).toContain(FACTS.constraint)
    expect(inside).not.toContain(OLD_PATH)
    expect(region.end).toBe(messages.length)
  })

  it('is the whole log when no compaction happened yet', async () => {
    const messages = await read(claudeCodeLog({ boundary: false }), 'claude-code')
    expect(lastBoundary(messages)).toBe(-1)
    expect(pendingRegion(messages)).toEqual({ start: 0, end: messages.length })
  })

  it('takes the last of several boundaries', () => {
    const summary = (text: string): Message => ({ role: 'user', parts: [{ type: 'summary', text, source: 'claude-code' }] })
    const text = (value: string): Message => ({ role: 'user', parts: [{ type: 'text', text: value }] })
    const messages = [text('a'), summary('one'), text('b'), summary('two'), text('c'), text('d')]
    expect(pendingRegion(messages)).toEqual({ start: 4, end: 6 })
    expect(latestSummary(messages)).toEqual({ index: 3, text: 'two', source: 'claude-code' })
    expect(latestSummary(messages, 4)).toBeUndefined()
    expect(lastBoundary(messages, 3)).toBe(1)
  })
})

describe('fromLineBoundary', () => {
  it('drops the partial first line of a read from inside a file, and nothing of a read from its start', () => {
    expect(fromLineBoundary('ial"}\n{"a":1}\n', true)).toBe('{"a":1}\n')
    expect(fromLineBoundary('{"a":1}\n', false)).toBe('{"a":1}\n')
    expect(fromLineBoundary('no line break at all', true)).toBe('')
  })
})

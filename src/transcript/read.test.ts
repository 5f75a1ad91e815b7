import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import type { Message } from '../spec/transcript.js'
import { appendMessages, readTranscript, sliceTranscript, writeTranscript } from './read.js'
import { HEAD_LENGTH, sourceFromString } from './source.js'

const fixture = (path: string): string => readFileSync(new URL(`./formats/__fixtures__/${path}`, import.meta.url), 'utf8')
const corpusRoot = new URL('../../../shared/corpus/real/', import.meta.url)
const corpusPresent = existsSync(corpusRoot)
if (!corpusPresent) console.log(`[floorguard] skipping real-corpus auto-read tests: ${corpusRoot.pathname} is absent`)

describe('readTranscript', () => {
  it('detects the format by default and reads with it', async () => {
    const transcript = await readTranscript(sourceFromString('chat-tools.json', fixture('openai/chat-tools.json')))
    expect(transcript.format).toBe('openai')
    expect(transcript.messages).toHaveLength(6)
    const anthropic = await readTranscript(sourceFromString('tools.json', fixture('anthropic/tools.json')), { format: 'auto', keepSource: false })
    expect(anthropic.format).toBe('anthropic')
    expect(anthropic.messages.every((message) => message.source === undefined)).toBe(true)
  })

  it('uses a named format and rejects unknown names with the list', async () => {
    const transcript = await readTranscript(sourceFromString('plain.json', '[{"role":"user","content":"hi"}]'), { format: 'ai-sdk' })
    expect(transcript.format).toBe('ai-sdk')
    await expect(readTranscript(sourceFromString('x', ''), { format: 'langgraph' })).rejects.toThrow(/unknown transcript format "langgraph": expected auto or one of openai/)
  })

  it('looks past a 64 KiB head that held nothing distinctive', async () => {
    const text = JSON.stringify([
      { role: 'system', content: `Style guide: ${'keep paths verbatim. '.repeat(5000)}` },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'a.ts' } }] },
    ])
    expect(text.length).toBeGreaterThan(HEAD_LENGTH)
    const transcript = await readTranscript(sourceFromString('long.json', text))
    expect(transcript.format).toBe('ai-sdk')
    expect(transcript.pairs).toHaveLength(1)
  })

  it('keeps a message range and pairs again inside it', async () => {
    const source = sourceFromString('chat-tools.json', fixture('openai/chat-tools.json'))
    const whole = await readTranscript(source)
    const sliced = await readTranscript(source, { range: { start: 2, end: 4 } })
    expect(sliced.messages).toEqual(whole.messages.slice(2, 4))
    expect(sliced.pairs).toEqual([{ id: 'call_7Qb2x9UkAq1', call: { message: 0, part: 0 }, result: { message: 1, part: 0 } }])
    expect(sliced.unpaired).toEqual([{ kind: 'call', id: 'call_7Qb2x9UkAq2', message: 0, part: 1 }])
    expect(sliceTranscript(whole, { start: 4, end: 99 }).messages).toHaveLength(2)
    expect(sliceTranscript(whole, {}).messages).toHaveLength(6)
    expect(() => sliceTranscript(whole, { start: 7 })).toThrow('range: expected a start from 0 to 6 (the transcript has 6 messages), got 7')
    expect(() => sliceTranscript(whole, { start: 3, end: 2 })).toThrow(FloorguardError)
  })

  it('refuses empty input in every format with one line', async () => {
    for (const format of ['auto', 'text', 'claude-code', 'openai', 'aider']) {
      for (const text of ['', '\n  \n', '\uFEFF']) {
        await expect(readTranscript(sourceFromString('empty.jsonl', text), { format }), `${format} ${JSON.stringify(text)}`).rejects.toThrow(
          /^empty\.jsonl: expected a transcript, got empty input \(nothing but whitespace\)$/,
        )
      }
    }
    // `[]` is not empty: a transcript with no messages.
    expect((await readTranscript(sourceFromString('none.json', '[]'))).messages).toEqual([])
  })

  it('passes lenient through to log readers', async () => {
    const log = `${fixture('claude-code/engram-session.jsonl').trimEnd()}\n{"timestamp":"2026-03-09T02:10:46.639Z","role":"user","conte`
    await expect(readTranscript(sourceFromString('live.jsonl', log))).rejects.toThrow(/^live\.jsonl:\d+:\d+: .*truncated/)
    const lenient = await readTranscript(sourceFromString('live.jsonl', log), { lenient: true })
    expect(lenient.warnings?.length).toBe(1)
  })

  describe.skipIf(!corpusPresent)('real corpus (auto)', () => {
    const files = corpusPresent
      ? readdirSync(corpusRoot, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .flatMap((entry) => readdirSync(new URL(`${entry.name}/`, corpusRoot)).map((file) => `${entry.name}/${file}`))
      : []
    it.each(files)('reads %s with --format auto', async (path) => {
      const transcript = await readTranscript(sourceFromString(path, readFileSync(new URL(path, corpusRoot), 'utf8')), { keepSource: false })
      expect(transcript.messages.length).toBeGreaterThan(0)
    })
  })
})

describe('writeTranscript and appendMessages', () => {
  it('writes a message-array transcript back in its own format', async () => {
    const text = fixture('ai-sdk/v6-tools.json')
    const transcript = await readTranscript(sourceFromString('v6-tools.json', text))
    expect(JSON.parse(writeTranscript(transcript))).toEqual(JSON.parse(text))
  })

  it('refuses to rewrite a log, pointing at appendMessages', async () => {
    const transcript = await readTranscript(sourceFromString('s.jsonl', fixture('claude-code/engram-session.jsonl')))
    expect(() => writeTranscript(transcript)).toThrow('format claude-code cannot be rewritten (logs are append-only); append new messages with appendMessages')
  })

  it('appends to logs and refuses formats without an append-only writer', () => {
    const messages: Message[] = [{ role: 'user', parts: [{ type: 'summary', text: 'Summary so far.', source: 'floorguard' }] }]
    expect(appendMessages({ format: 'claude-code', messages })).toContain('Summary so far.')
    expect(() => appendMessages({ format: 'openai', messages })).toThrow('format openai has no append-only writer; rewrite the document with writeTranscript')
    expect(() => appendMessages({ format: 'nope', messages })).toThrow(/unknown transcript format/)
  })
})

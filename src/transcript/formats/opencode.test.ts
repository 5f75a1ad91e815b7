import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { readTranscript } from '../read.js'
import { detectFormat } from '../registry.js'
import { sourceFromString } from '../source.js'
import { openCodeFormat } from './opencode.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/opencode/${name}`, import.meta.url), 'utf8')

testTranscriptFormat({
  format: openCodeFormat,
  fixtures: [
    // user; assistant reasoning + two calls; their results; assistant text; (the compaction request has no text) summary; user.
    { name: 'export.json', text: fixture('export.json'), expect: { messages: 6, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    // G1: `opencode export SESSION > FILE` captures "Exporting session: ses_…" before the JSON.
    { name: 'export-preamble.json', text: fixture('export-preamble.json'), expect: { messages: 3, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('opencode export', () => {
  it('reads messages, tool results after their calls, and the compaction as a summary', async () => {
    const transcript = await readTranscript(sourceFromString('export.json', fixture('export.json')))
    expect(transcript.format).toBe('opencode')
    expect(transcript.messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)).toEqual([
      'user:text',
      'assistant:reasoning+tool-call+tool-call',
      'tool:tool-result+tool-result',
      'assistant:text',
      'user:summary',
      'user:text',
    ])
    expect(transcript.messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'call_upload_1', isError: true, content: "OSError: [Errno 28] No space left on device: '/var/tmp/upload.bin'" })
    expect(transcript.messages[4]).toMatchObject({ provenance: { pointer: '/messages/4' }, parts: [{ type: 'summary', source: 'opencode', text: expect.stringMatching(/^The user asked to fix the upload service\./) }] })
  })

  it('is detected after the "Exporting session:" line, and never claims a message array', () => {
    // G1: with the line, the file was read as plain text and its compaction went unseen.
    expect(detectFormat(fixture('export-preamble.json'), 'f.json').name).toBe('opencode')
    expect(detectFormat(fixture('export.json'), 'f.json').name).toBe('opencode')
    expect(openCodeFormat.detect('[{"role": "user", "content": "ses_1 messages"}]')).toBe(0)
    expect(openCodeFormat.detect('Exporting session: ses_1\nnot json')).toBe(0)
  })

  it('names the file’s own line in a syntax error after the preamble', async () => {
    const text = fixture('export-preamble.json').replace('"role": "user"', '"role": "user",,')
    const line = text.slice(0, text.indexOf(',,')).split('\n').length
    await expect(openCodeFormat.read(sourceFromString('p.json', text))).rejects.toThrow(new RegExp(`^p\\.json:${line}:\\d+: expected valid JSON`))
  })

  it('a bad shape names the field', async () => {
    const text = fixture('export.json').replace('"role": "assistant", "mode": "build", "agent": "build", "finish": "stop"', '"role": "robot", "mode": "build", "agent": "build", "finish": "stop"')
    await expect(openCodeFormat.read(sourceFromString('s.json', text))).rejects.toThrow(/^s\.json: \/messages\/2\/info\/role: expected "user" or "assistant"$/)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { textFormat } from './text.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/text/${name}`, import.meta.url), 'utf8')

testTranscriptFormat({
  format: textFormat,
  detects: false,
  fixtures: [
    { name: 'notes.txt', text: fixture('notes.txt'), expect: { messages: 1, toolCalls: 0, toolResults: 0, unpaired: 0 } },
    { name: 'crlf.txt', text: fixture('crlf.txt'), expect: { messages: 1 } },
  ],
})

describe('text format', () => {
  it('is the whole input, untranslated, as one user text part', async () => {
    const text = fixture('crlf.txt')
    const transcript = await textFormat.read(sourceFromString('crlf.txt', text))
    expect(transcript.messages).toEqual([{ role: 'user', parts: [{ type: 'text', text }], provenance: { line: 1, endLine: 4 }, source: text }])
    expect(transcript.messages[0]!.parts[0]).toMatchObject({ text: expect.stringContaining('\r\n') })
  })

  it('keeps any string exactly (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), async (text) => {
        const transcript = await textFormat.read(sourceFromString('x.txt', text), { keepSource: false })
        expect(transcript.messages).toHaveLength(1)
        expect(transcript.messages[0]!.parts).toEqual([{ type: 'text', text }])
        const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
        expect(transcript.messages[0]!.provenance).toEqual({ line: 1, endLine: Math.max(1, lines) })
      }),
      { numRuns: 100 },
    )
  })
})

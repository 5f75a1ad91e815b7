import { describe, expect, it } from 'vitest'
import type { Transcript } from '../spec/transcript.js'
import { validateTranscript } from './_validate.js'

const messages = [
  { role: 'user', parts: [{ type: 'text', text: 'run it' }] },
  { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: { command: 'ls' } }] },
  { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'a.txt', isError: false }] },
]
const pair = { id: 'c1', call: { message: 1, part: 0 }, result: { message: 2, part: 0 } }
const transcript = (fields: Partial<Record<keyof Transcript, unknown>>) => ({ format: 'test', messages, pairs: [pair], unpaired: [], ...fields }) as unknown

describe('validateTranscript', () => {
  it('accepts pairs and unpaired parts that point into the transcript', () => {
    expect(() => validateTranscript(transcript({}), 'checkTranscript')).not.toThrow()
  })

  it('refuses a pair or unpaired entry that points past the last message (a re-test, I2: it was read as a range cut)', () => {
    const past = { ...pair, result: { message: 99, part: 0 } }
    expect(() => validateTranscript(transcript({ pairs: [past] }), 'checkTranscript')).toThrow(
      'checkTranscript: transcript.pairs[0].result: expected a tool-result part of id "c1" at transcript.messages[99].parts[0], got no such message (the transcript has 3)',
    )
    const callPast = { ...pair, call: { message: 3, part: 0 } }
    expect(() => validateTranscript(transcript({ pairs: [pair, callPast] }), 'planCompaction')).toThrow(/^planCompaction: transcript\.pairs\[1\]\.call: expected a tool-call part of id "c1" at transcript\.messages\[3\]/)
    const unpaired = [{ kind: 'call', id: 'c9', message: 3, part: 0 }]
    expect(() => validateTranscript(transcript({ unpaired }), 'checkTranscript')).toThrow(
      'checkTranscript: transcript.unpaired[0].message: expected the index of one of the 3 messages, got 3',
    )
  })
})

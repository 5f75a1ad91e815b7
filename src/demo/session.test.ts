import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { startsTurn as runtimeStartsTurn } from '../runtime/_select.js'
import type { Message } from '../spec/transcript.js'
import { generateSession } from './session.js'

/** The oracle's own rendering of a message: every part's text, tool-call arguments as JSON. */
function textOf(message: Message): string {
  return message.parts
    .map((part) => (part.type === 'tool-call' ? JSON.stringify(part.arguments) : part.type === 'tool-result' ? part.content : part.text))
    .join('\n')
}

function digest(messages: readonly Message[]): string {
  return createHash('sha256').update(JSON.stringify(messages)).digest('hex')
}

describe('generateSession', () => {
  it('is deterministic: the same seed gives the same bytes, another seed other bytes', () => {
    const first = generateSession()
    const again = generateSession()
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages))
    expect(again.planted).toEqual(first.planted)
    expect(digest(generateSession({ seed: 7 }).messages)).not.toBe(digest(first.messages))
  })

  it('has exactly the asked number of turns, counted as the runtime counts them', () => {
    for (const turns of [600, 450, 1]) {
      const session = generateSession({ turns })
      let counted = 0
      for (let index = 1; index < session.messages.length; index++) if (index === 1 || runtimeStartsTurn(session.messages, index)) counted++
      expect(counted).toBe(turns)
      expect(session.turnStarts).toHaveLength(turns)
    }
  })

  it('plants the three items verbatim, in order, the pin reverted to a later current value', () => {
    const session = generateSession()
    expect(session.planted.map((item) => item.kind)).toEqual(['constraint', 'error', 'version-pin'])
    const [regex, error, pin] = session.planted
    expect(textOf(session.messages[regex!.message]!)).toContain('`^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$`')
    expect(session.messages[regex!.message]!.role).toBe('user')
    const errorMessage = session.messages[error!.message]!
    expect(errorMessage.role).toBe('tool')
    expect(textOf(errorMessage)).toContain("OSError: [Errno 18] Invalid cross-device link: '/srv/ingest/staging/batch_0007.0000.part' -> '/var/tmp/uploads/batch_0007.bin'")
    expect(textOf(session.messages[pin!.message]!)).toContain('pydantic==1.10.13')
    expect(pin!.current!.message).toBeGreaterThan(pin!.message)
    expect(textOf(session.messages[pin!.current!.message]!)).toContain('pydantic==2.8.2')
    // After the revert nothing presents the stale pin again.
    for (let index = pin!.current!.message + 1; index < session.messages.length; index++) {
      expect(textOf(session.messages[index]!).includes('pydantic==1.10.13') && !textOf(session.messages[index]!).includes('2.8.2')).toBe(false)
    }
  })

  it('returns to the planted rule after the first compaction (the region stays in the causal future)', () => {
    const session = generateSession()
    const later = session.messages.findIndex((message, index) => index > 400 && message.role === 'user' && textOf(message).includes('the rule I gave you'))
    expect(later).toBeGreaterThan(0)
  })

  it('any seed: deterministic, increasing turn starts, tool calls paired with their results', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const session = generateSession({ seed, turns: 200 })
        expect(digest(generateSession({ seed, turns: 200 }).messages)).toBe(digest(session.messages))
        for (let index = 1; index < session.turnStarts.length; index++) expect(session.turnStarts[index]!).toBeGreaterThan(session.turnStarts[index - 1]!)
        const calls = new Set<string>()
        for (const message of session.messages) {
          for (const part of message.parts) {
            if (part.type === 'tool-call') calls.add(part.id)
            if (part.type === 'tool-result') expect(calls.has(part.callId)).toBe(true)
          }
        }
      }),
      { numRuns: 8 },
    )
  })

  it('rejects a non-positive or fractional length', () => {
    expect(() => generateSession({ turns: 0 })).toThrow(RangeError)
    expect(() => generateSession({ turns: 2.5 })).toThrow(RangeError)
  })
})

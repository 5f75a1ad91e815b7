import { describe, expect, it } from 'vitest'
import type { Message, ToolPair } from '../spec/transcript.js'
import { cutAllowed, realCuts, syntheticCuts } from './cuts.js'

const text = (index: number): Message => ({ role: index % 2 === 0 ? 'user' : 'assistant', parts: [{ type: 'text', text: `message ${index}` }] })
const summary = (body: string): Message => ({ role: 'user', parts: [{ type: 'summary', text: body, source: 'claude-code' }] })
const pair = (call: number, result: number): ToolPair => ({ id: `c${call}`, call: { message: call, part: 0 }, result: { message: result, part: 0 } })

describe('realCuts', () => {
  it('a summary part at message k gives the segment [previous summary or 0, k), run at k, future up to the next summary', () => {
    const messages = Array.from({ length: 10 }, (_, index) => text(index))
    messages[3] = summary('first summary')
    messages[7] = summary('second summary')
    expect(realCuts(messages)).toEqual([
      { kind: 'real', start: 0, end: 3, at: 3, futureEnd: 7, vendor: { source: 'claude-code', text: 'first summary' } },
      { kind: 'real', start: 3, end: 7, at: 7, futureEnd: 10, vendor: { source: 'claude-code', text: 'second summary' } },
    ])
  })

  it('a transcript without summaries has no real cut', () => {
    expect(realCuts([text(0), text(1)])).toEqual([])
  })
})

describe('cutAllowed', () => {
  it('agrees with the plain definition: b is allowed when no pair has call < b <= result', () => {
    const pairs = [pair(1, 2), pair(4, 7), pair(5, 6), pair(9, 9)]
    const n = 11
    const plain = Array.from({ length: n + 1 }, (_, b) => !pairs.some((p) => p.call.message < b && b <= p.result.message))
    expect(cutAllowed(n, pairs)).toEqual(plain)
    expect(plain.filter((allowed) => !allowed).length).toBe(4) // 2, 5, 6, 7 (hand-counted)
  })
})

describe('syntheticCuts', () => {
  it('cuts the oldest 40% whenever the running context would pass the high-water mark (hand-computed)', () => {
    // Limit 0.5 × 100 = 50 tokens, 10 tokens a message, slot 5; "running" is the live messages' tokens.
    // i=5: 0 + 50 + 10 > 50 → [0, round(0.4 × 5) = 2); running 30, then 40.
    // i=6: 5 + 40 + 10 > 50 → [2, 2 + round(0.4 × 4) = 4); running 20, then 30.
    // i=7: 5 + 30 + 10 = 45, no cut; running 40.
    // i=8: 5 + 40 + 10 > 50 → [4, 4 + round(0.4 × 4) = 6); running 20, then 30. i=9: 45, no cut.
    // Future references run to the next cut's point (6, 8) and, for the last, to the end (10).
    const messages = Array.from({ length: 10 }, (_, index) => text(index))
    const cuts = syntheticCuts(messages, { tokens: messages.map(() => 10), pairs: [], budget: 100, highWaterMark: 0.5, slot: 5 })
    expect(cuts.map((cut) => [cut.start, cut.end, cut.at, cut.futureEnd])).toEqual([
      [0, 2, 5, 6],
      [2, 4, 6, 8],
      [4, 6, 8, 10],
    ])
    expect(cuts.every((cut) => cut.kind === 'synthetic' && cut.vendor === undefined)).toBe(true)
  })

  it('moves the boundary forward past a tool result, and keeps leading system messages out of every segment', () => {
    const messages = Array.from({ length: 8 }, (_, index) => text(index))
    messages[0] = { role: 'system', parts: [{ type: 'text', text: 'be brief' }] }
    // Limit 50; the system message costs 10, so the first cut runs at i=5 (10 + 40 + 10 > 50) on live [1, 5):
    // target 1 + round(1.6) = 3, but the pair (2, 3) forbids 3 → 4.
    const cuts = syntheticCuts(messages, { tokens: messages.map(() => 10), pairs: [pair(2, 3)], budget: 100, highWaterMark: 0.5, slot: 0 })
    expect(cuts[0]).toMatchObject({ start: 1, end: 4, at: 5 })
    expect(cuts.every((cut) => cut.start >= 1)).toBe(true)
  })

  it('a short transcript gets one cut at the oldest 40% of its non-system messages, run right after it', () => {
    const messages = Array.from({ length: 6 }, (_, index) => text(index))
    const cuts = syntheticCuts(messages, { tokens: messages.map(() => 1), pairs: [] })
    expect(cuts).toEqual([{ kind: 'synthetic', start: 0, end: 2, at: 2, futureEnd: 6 }])
  })

  it('a compactor summary in the transcript starts a new window', () => {
    // Limit 50, slot 0. Message 4 is a summary: the window restarts there with its 10 tokens; 5-8 bring it to 50, so
    // i=9 passes the mark: [4, 4 + round(0.4 × 5) = 6); running 30, then 40, 50 at i=10; i=11 passes: [6, 6 + 2 = 8).
    // Without the restart the first cut would run at i=5 on [0, 2).
    const messages = Array.from({ length: 12 }, (_, index) => text(index))
    messages[4] = summary('earlier work')
    const cuts = syntheticCuts(messages, { tokens: messages.map(() => 10), pairs: [], budget: 100, highWaterMark: 0.5, slot: 0 })
    expect(cuts.map((cut) => [cut.start, cut.end, cut.at, cut.futureEnd])).toEqual([
      [4, 6, 9, 11],
      [6, 8, 11, 12],
    ])
  })
})

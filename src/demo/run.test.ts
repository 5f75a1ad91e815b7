import { beforeAll, describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { runDemo, type DemoResult } from './run.js'

// The oracle: the record's three items written out again (never imported from the generator), and plain substring
// checks on the messages each arm would send at turn 430.
const REGEX = '^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$'
const ERROR = "OSError: [Errno 18] Invalid cross-device link: '/srv/ingest/staging/batch_0007.0000.part' -> '/var/tmp/uploads/batch_0007.bin'"
const PIN = 'pydantic==1.10.13'
const REVERTED = 'pydantic==2.8.2'

function summaryTexts(context: readonly Message[]): string[] {
  return context.flatMap((message) => message.parts.flatMap((part) => (part.type === 'summary' ? [part.text] : [])))
}

function rawTexts(context: readonly Message[]): string[] {
  return context.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : part.type === 'tool-result' ? [part.content] : part.type === 'tool-call' ? [JSON.stringify(part.arguments)] : [])),
  )
}

/** What the oracle sees of the three items in a context: held verbatim, and the pin's status line by line. */
function oracle(context: readonly Message[]) {
  const summaries = summaryTexts(context).join('\n')
  const lines = summaries.split('\n')
  return {
    regex: summaries.includes(REGEX),
    error: summaries.includes(ERROR),
    pin: summaries.includes(PIN),
    reverted: summaries.includes(REVERTED),
    // A state block marks a stale value `superseded` in its bracket; a current one is bare or marked `current`.
    pinMarkedSuperseded: lines.some((line) => line.includes('superseded') && line.includes(PIN)),
    revertMarkedCurrent: lines.some((line) => line.includes(REVERTED) && !line.includes('superseded')),
    pinMarkedCurrent: lines.some((line) => line.includes(PIN) && !line.includes('superseded')),
    raw: rawTexts(context).some((text) => text.includes(REGEX) || text.includes(ERROR) || text.includes(PIN)),
  }
}

let result: DemoResult

beforeAll(async () => {
  result = await runDemo()
}, 120_000)

describe('runDemo (default seed)', () => {
  it('compacts first at turn 412, over a region that holds the three items, with the same floor and N in both arms', () => {
    const naive = result.arms.naive.events[0]!
    const floorguard = result.arms.floorguard.events[0]!
    expect(naive.turn).toBe(412)
    expect(floorguard.turn).toBe(412)
    expect(floorguard.range).toEqual(naive.range)
    // At the first compaction the context is the session itself, so the range indexes session messages.
    const [, end] = naive.range
    for (const item of result.session.planted) {
      expect(item.message).toBeLessThan(end)
      if (item.current) expect(item.current.message).toBeLessThan(end)
    }
    expect(floorguard.items).toBe(naive.items)
    expect(floorguard.floor).toBe(naive.floor)
    // The record: a floor near 2,340 tokens, above the 2,000-token slot.
    expect(floorguard.floor).toBeGreaterThan(2_000)
    expect(floorguard.floor).toBeLessThan(2_700)
  })

  it('naive: the fixed slot is accepted unchecked and most items are lost', () => {
    const event = result.arms.naive.events[0]!
    expect(event.decision).toBe('compact')
    expect(event.parts).toHaveLength(1)
    expect(event.parts[0]!.tokens).toBeLessThanOrEqual(2_000)
    expect(event.verbatim).toBeLessThan(event.items / 2)
  })

  it('floorguard: the 2,000 slot is not accepted for that region; it is split into parts that fit, every item verbatim', () => {
    const event = result.arms.floorguard.events[0]!
    expect(event.decision).toBe('split')
    expect(event.parts.length).toBeGreaterThanOrEqual(2)
    for (const part of event.parts) expect(part.tokens).toBeLessThanOrEqual(2_000)
    expect(event.verbatim).toBe(event.items)
  })

  it('at turn 430 the naive arm has lost at least one item or presents the stale pin as current (oracle)', () => {
    const seen = oracle(result.arms.naive.contextAtFate)
    expect(seen.raw).toBe(false)
    const lostOne = !seen.regex || !seen.error || !seen.pin
    const staleCurrent = seen.pin && (seen.pinMarkedCurrent || !seen.revertMarkedCurrent)
    expect(lostOne || staleCurrent).toBe(true)
  })

  it('at turn 430 the floorguard arm holds all three verbatim, the pin superseded by its current revert (oracle)', () => {
    const seen = oracle(result.arms.floorguard.contextAtFate)
    expect(seen.raw).toBe(false)
    expect(seen).toMatchObject({ regex: true, error: true, pin: true, reverted: true, pinMarkedSuperseded: true, revertMarkedCurrent: true, pinMarkedCurrent: false })
  })

  it("the demo's own fates agree with the oracle", () => {
    const naive = oracle(result.arms.naive.contextAtFate)
    expect(result.arms.naive.fates).toEqual([naive.regex ? 'kept' : 'lost', naive.error ? 'kept' : 'lost', naive.pin ? (naive.pinMarkedCurrent || !naive.revertMarkedCurrent ? 'stale' : 'kept') : 'lost'])
    expect(result.arms.floorguard.fates).toEqual(['kept', 'kept', 'kept'])
  })

  it('never lets either context past the budget', () => {
    for (const arm of [result.arms.naive, result.arms.floorguard]) expect(arm.peakContextTokens).toBeLessThanOrEqual(128_000)
  })
})

describe('runDemo (a short session)', () => {
  it('reads the fates at the last turn when the session ends before turn 430, and compacts nothing below the mark', async () => {
    const short = await runDemo({ turns: 120 })
    expect(short.fateTurn).toBe(120)
    expect(short.arms.naive.events).toEqual([])
    expect(short.arms.floorguard.fates).toEqual(['raw', 'raw', 'raw'])
  }, 60_000)
})

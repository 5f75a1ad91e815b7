import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addSpan, firstOverlap, type SpanList } from './_span-list.js'

interface Span {
  readonly start: number
  readonly end: number
  readonly id: number
}

/** The oracle: the first span in list order that overlaps [start, end), by a scan. */
function firstByScan(spans: readonly Span[], start: number, end: number): Span | undefined {
  for (const span of spans) if (span.start < end && start < span.end) return span
  return undefined
}

function build(spans: readonly Span[]): SpanList<Span> | undefined {
  const lists = new Map<number, SpanList<Span>>()
  for (const span of spans) addSpan(lists, 7, span)
  return lists.get(7)
}

const span = fc.tuple(fc.nat(60), fc.nat(12)).map(([start, length]) => ({ start, end: start + length }))
/** Sorted, disjoint spans (some empty), as the scanners produce them. */
const disjoint = fc.array(fc.tuple(fc.nat(6), fc.nat(8)), { maxLength: 30 }).map((gaps) => {
  let at = 0
  return gaps.map(([gap, length], id) => {
    const start = at + gap
    at = start + length
    return { start, end: at, id }
  })
})
const anyOrder = fc.array(span, { maxLength: 30 }).map((spans) => spans.map((entry, id) => ({ ...entry, id })))

describe('firstOverlap', () => {
  it('finds what a scan finds, for sorted disjoint lists (binary search) and any other list (scan)', () => {
    fc.assert(
      fc.property(fc.oneof(disjoint, anyOrder), fc.array(span, { minLength: 1, maxLength: 20 }), (spans, items) => {
        const list = build(spans)
        for (const item of items) expect(firstOverlap(list, item.start, item.end)?.id).toBe(firstByScan(spans, item.start, item.end)?.id)
      }),
      { numRuns: 500 },
    )
  })

  it('marks a list ordered only while each span starts at or after the previous one ends', () => {
    expect(build([{ start: 0, end: 3, id: 0 }, { start: 3, end: 3, id: 1 }, { start: 3, end: 9, id: 2 }])?.ordered).toBe(true)
    expect(build([{ start: 0, end: 4, id: 0 }, { start: 3, end: 9, id: 1 }])?.ordered).toBe(false)
    expect(build([{ start: 5, end: 9, id: 0 }, { start: 0, end: 2, id: 1 }])?.ordered).toBe(false)
  })

  it('a message without spans has no overlap', () => {
    expect(firstOverlap(undefined, 0, 10)).toBeUndefined()
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonPieces, PIECE_UNITS } from './_json-pieces.js'

const item = (index: number) => ({ kind: 'path', text: `src/file-${index}.ts "q" \\ ✓`, tokens: index % 7, message: index >> 3, start: index, end: index + 9 })

describe('jsonPieces', () => {
  it('joins to JSON.stringify on a check document with a large items array', () => {
    const document = { version: 1, file: 'x', segment: { range: [0, 1] }, skipped: undefined, decision: { kind: 'refuse', units: [{ items: Array.from({ length: 300 }, (_, i) => item(i)) }] }, items: Array.from({ length: 5000 }, (_, i) => item(i)) }
    const pieces = [...jsonPieces(document)]
    expect(pieces.length).toBeGreaterThan(5)
    expect(pieces.join('')).toBe(JSON.stringify(document))
    for (const piece of pieces.slice(0, -1)) expect(piece.length).toBeLessThan(2 * PIECE_UNITS)
  })

  it('keeps what JSON.stringify leaves out or turns into null, and toJSON', () => {
    const big = Array.from({ length: 600 }, (_, i) => (i % 50 === 0 ? undefined : i % 51 === 0 ? () => 1 : i % 97 === 0 ? new Date(i) : { i, gone: undefined, f: () => 2, nested: i % 300 === 0 ? Array.from({ length: 400 }, () => [undefined, null, Symbol('s')]) : null }))
    // A hole in a large array.
    delete (big as unknown[])[7]
    const document = { a: undefined, f: () => 0, list: big, dated: { toJSON: () => ({ list: big }) }, gone: { toJSON: () => undefined } }
    expect([...jsonPieces(document)].join('')).toBe(JSON.stringify(document))
    expect([...jsonPieces(big)].join('')).toBe(JSON.stringify(big))
    expect([...jsonPieces(undefined)]).toEqual([])
    expect([...jsonPieces(() => 1)]).toEqual([])
    expect([...jsonPieces('x')]).toEqual([JSON.stringify('x')])
  })

  it('joins to JSON.stringify on any JSON-like value, large arrays included', () => {
    const leaf = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined))
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.array(leaf, { minLength: 250, maxLength: 400 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node
    fc.assert(fc.property(value, (input) => {
      const expected = JSON.stringify(input)
      expect([...jsonPieces(input)].join('')).toBe(expected === undefined ? '' : expected)
    }), { numRuns: 100 })
  })
})

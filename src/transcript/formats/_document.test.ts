import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_STRING_LENGTH, expectString, jsonEqual, parseArguments, pointerTo, stringifyArguments } from './_document.js'

const context = { file: 'big.json', keepSource: true }

describe('document helpers', () => {
  it('refuses a single string over 64 MiB with the field named', () => {
    const huge = 'x'.repeat(MAX_STRING_LENGTH + 1)
    expect(() => expectString(context, huge, '/messages/0/content')).toThrow('big.json: /messages/0/content: expected a string of at most 64 MiB, got 65 MiB')
    expect(expectString(context, 'ok', '/a')).toBe('ok')
  })

  it('escapes JSON pointer tokens', () => {
    expect(pointerTo('/messages', 'a/b~c')).toBe('/messages/a~1b~0c')
  })

  it('round-trips tool-call arguments through their string form (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 30 })), (text) => {
        const parsed = parseArguments(context, text, '/a')
        expect(parseArguments(context, stringifyArguments(parsed), '/a')).toEqual(parsed)
      }),
      { numRuns: 300 },
    )
  })

  it('compares JSON values ignoring key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        expect(jsonEqual(a, JSON.parse(JSON.stringify(a)))).toBe(true)
        expect(jsonEqual(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b) || jsonEqual(b, a))
      }),
      { numRuns: 300 },
    )
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true)
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(jsonEqual([1, 2], [2, 1])).toBe(false)
  })
})

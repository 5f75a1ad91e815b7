import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sameContent } from './_equal.js'

describe('sameContent', () => {
  it('holds between a value and its deep copy, and for equal bytes, URLs and dates', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => sameContent(value, structuredClone(value))))
    expect(sameContent({ data: new Uint8Array([1, 2, 3]), url: new URL('https://a.example/x'), at: new Date(5) }, { data: new Uint8Array([1, 2, 3]), url: new URL('https://a.example/x'), at: new Date(5) })).toBe(true)
    expect(sameContent({ a: 1, b: undefined }, { a: 1 })).toBe(true)
  })

  it('fails on any changed leaf, extra key, reordered array or different bytes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.string(), (value, extra) => {
        const [first] = Object.keys(value)
        const changed = { ...value, [first!]: { changed: value[first!] } }
        return !sameContent(value, changed) && (Object.hasOwn(value, extra) || !sameContent(value, { ...value, [extra]: 0 }))
      }),
    )
    expect(sameContent([1, 2], [2, 1])).toBe(false)
    expect(sameContent(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false)
    expect(sameContent({ a: [1] }, { a: { 0: 1 } })).toBe(false)
    expect(sameContent('1', 1)).toBe(false)
  })
})

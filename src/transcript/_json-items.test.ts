import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arrayItemSpans } from './_json-items.js'

describe('arrayItemSpans', () => {
  it('finds each item of the root array or of a root key, whatever the layout (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }), fc.constantFrom(undefined, 1, 2, '\t'), fc.boolean(), (items, indent, wrapped) => {
        const document = wrapped ? { before: { messages: 'not this one' }, messages: items, after: [1] } : items
        const bytes = Buffer.from(`\uFEFF${JSON.stringify(document, null, indent)}\n`, 'utf8')
        const spans = arrayItemSpans(bytes, wrapped ? 'messages' : undefined)!
        // Oracle: each span parses on its own to its item.
        expect(spans.map((span) => JSON.parse(bytes.subarray(span.start, span.end).toString('utf8')))).toEqual(JSON.parse(JSON.stringify(items)))
      }),
      { numRuns: 300 },
    )
  })

  it('steps over bytes that are not UTF-8 inside strings, and answers undefined for other shapes', () => {
    // 0xff is no UTF-8; the escaped quote and the bracket after it are inside the string.
    const escaped = Buffer.concat([Buffer.from('[{"content": "a'), Buffer.from([0xff, 0x5c, 0x22, 0x5d]), Buffer.from('"}, 2]')])
    expect(arrayItemSpans(escaped, undefined)!.map((span) => escaped.subarray(span.start, span.end).toString('latin1'))).toEqual([
      '{"content": "a\xff\\"]"}',
      '2',
    ])
    expect(arrayItemSpans(Buffer.from('{"input": []}'), 'messages')).toBeUndefined()
    expect(arrayItemSpans(Buffer.from('[1, 2]'), 'messages')).toBeUndefined()
    expect(arrayItemSpans(Buffer.from('  [ ]  '), undefined)).toEqual([])
  })
})

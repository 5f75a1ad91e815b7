import { describe, expect, it } from 'vitest'
import { applyLayout } from './layout.js'
import type { LayoutEntry } from './types.js'

describe('applyLayout', () => {
  const original = [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }, { id: 'e' }]
  const layout: LayoutEntry[] = [
    { kind: 'kept', index: 0 },
    { kind: 'summary', range: [1, 3], text: 'S' },
    { kind: 'masked', index: 3, text: '[elided]' },
    { kind: 'kept', index: 4 },
  ]

  it('keeps the caller objects, builds summaries and masked copies with the callbacks', () => {
    const out = applyLayout(original, layout, (text, range) => ({ id: `summary ${text} ${range[0]}-${range[1]}` }), (message, text, index) => ({ id: `${message.id} ${text} ${index}` }))
    expect(out.map((entry) => entry.id)).toEqual(['a', 'summary S 1-3', 'd [elided] 3', 'e'])
    expect(out[0]).toBe(original[0])
    expect(out[3]).toBe(original[4])
  })

  it('without a masked callback, a masked entry keeps the original (nothing lost, less saved)', () => {
    const out = applyLayout(original, layout, (text) => ({ id: text }))
    expect(out[2]).toBe(original[3])
  })

  it('a layout naming a message the list does not have is misuse', () => {
    expect(() => applyLayout(original.slice(0, 2), layout, (text) => ({ id: text }))).toThrow(/names message 3, but the original list has 2/)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MustKeepItem } from '../spec/summarizer.js'
import { groupMustKeepItems } from '../spec/summarizer.js'
import { insertIntoStateBlock, parseStateBlock, renderStateBlock, stripStateMarkup, STATE_BLOCK_CLOSE, STATE_BLOCK_OPEN } from './state-block.js'

const item = (kind: MustKeepItem['kind'], text: string, status: MustKeepItem['status'] = 'current'): MustKeepItem => ({ kind, text, status, tokens: 1, message: 0, start: 0, end: text.length })

describe('state block', () => {
  it('packs short items, writes others bare, prefixes markup look-alikes and multi-line items', () => {
    const block = renderStateBlock(
      groupMustKeepItems([item('path', 'src/a.ts'), item('path', 'src/b.ts'), item('error', 'E1\nE2'), item('error', 'disk full'), item('version', 'x@1', 'superseded'), item('quoted', '# not a heading'), item('quoted', '</floorguard-state>')]),
    )
    expect(block).toBe(
      `${STATE_BLOCK_OPEN}\n## error\n-2 E1\nE2\ndisk full\n## quoted\n- # not a heading\n- </floorguard-state>\n## version\n(superseded) x@1\n## path\n* src/a.ts src/b.ts\n${STATE_BLOCK_CLOSE}`,
    )
  })

  it('property: parse(render(items)) gives back every item, status and kind, whatever the texts hold', () => {
    const hostile = fc.constantFrom('\n', '- ', '## ', '* ', ' ', STATE_BLOCK_CLOSE, STATE_BLOCK_OPEN, '-3 ', '(superseded) ', '\r', 'x', '')
    const text = fc.array(fc.oneof(hostile, fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''))
    const spec = fc.record({ kind: fc.constantFrom('path' as const, 'error' as const, 'number' as const), text, superseded: fc.boolean() })
    fc.assert(
      fc.property(fc.uniqueArray(spec, { selector: (s) => s.text, maxLength: 8 }), fc.string({ maxLength: 20 }), (specs, narrative) => {
        const items = specs.filter((s) => !s.text.startsWith('(superseded) ')).map((s) => item(s.kind, s.text, s.superseded ? 'superseded' : 'current'))
        const summary = `${renderStateBlock(groupMustKeepItems(items))}\n\n${narrative}`
        const block = parseStateBlock(summary)
        expect(block).toBeDefined()
        expect(block!.start).toBe(0)
        const parsed = block!.entries.map((entry) => `${entry.kind}|${entry.status}|${entry.text}`).sort()
        expect(parsed).toEqual(items.map((i) => `${i.kind}|${i.status}|${i.text}`).sort())
      }),
      { numRuns: 200 },
    )
  })

  it('finds a block after leading prose and rejects malformed ones', () => {
    expect(parseStateBlock(`Intro\n${STATE_BLOCK_OPEN}\n## path\n- a/b\n\n* c d\n${STATE_BLOCK_CLOSE}`)?.entries).toEqual([
      { kind: 'path', text: 'a/b', status: 'current' },
      { kind: 'path', text: 'c', status: 'current' },
      { kind: 'path', text: 'd', status: 'current' },
    ])
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\n## path\n- a/b`)).toBeUndefined()
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\nstray before any heading\n${STATE_BLOCK_CLOSE}`)).toBeUndefined()
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\n## error\n-3 only one line\n${STATE_BLOCK_CLOSE}`)).toBeUndefined()
    expect(parseStateBlock('no block here')).toBeUndefined()
  })

  it('inserts missing items into their group, or adds a block at the start', () => {
    const summary = `${renderStateBlock(groupMustKeepItems([item('path', 'a/b')]))}\n\nThe agent edited files.`
    const repaired = insertIntoStateBlock(summary, [item('path', 'c/d'), item('number', '42')])
    expect(repaired).toBe(`${STATE_BLOCK_OPEN}\n## path\n* a/b c/d\n## number\n* 42\n${STATE_BLOCK_CLOSE}\n\nThe agent edited files.`)
    expect(insertIntoStateBlock('Just prose.', [item('number', '42')])).toBe(`${STATE_BLOCK_OPEN}\n## number\n* 42\n${STATE_BLOCK_CLOSE}\n\nJust prose.`)
  })

  it('strips markup so the block syntax is not scanned as content', () => {
    const summary = `${renderStateBlock(groupMustKeepItems([item('path', 'a/b'), item('number', '7', 'superseded')]))}\nrest`
    expect(stripStateMarkup(summary)).toBe('a/b\n7\nrest')
    expect(stripStateMarkup('no block')).toBe('no block')
  })
})

/** The gold extractor on small texts whose state is known by hand. */
import { describe, expect, it } from 'vitest'
import { goldItems, goldItemsOfText } from './index.js'

const texts = (text: string, source: Parameters<typeof goldItemsOfText>[1] = 'assistant') => goldItemsOfText(text, source).map((item) => item.text)

describe('goldItemsOfText', () => {
  it('finds a URL and a pin', () => {
    expect(texts('see https://example.com/a and install anthropic>=0.40.0')).toEqual(expect.arrayContaining(['https://example.com/a', 'anthropic>=0.40.0']))
  })
})

describe('goldItems', () => {
  it('keeps a Bash command whole and skips reasoning', () => {
    const items = goldItems([
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'see /etc/hosts' }, { type: 'tool-call', id: 't', name: 'Bash', arguments: { command: "ssh host << 'EOF'\npython train.py --max_steps 3000\nEOF" } }] },
    ], 5)
    expect(items.find((item) => item.kind === 'command')).toEqual({ kind: 'command', text: "ssh host << 'EOF'\npython train.py --max_steps 3000\nEOF", message: 5, source: 'tool-call' })
    expect(items.some((item) => item.text === '/etc/hosts')).toBe(false)
  })
})

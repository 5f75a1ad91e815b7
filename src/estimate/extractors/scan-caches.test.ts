import { describe, expect, it } from 'vitest'
import { ScanCaches, scanText } from './scan-text.js'

// Text that fills both caches: candidate words (paths, versions, hashes) and repeated lines of 12 units or more.
const TEXT = Array.from({ length: 40 }, (_, line) => `run src/mod_${line}.py with numpy==1.${line}.0 at a3f9c2e1b${line}\nTraceback (most recent call last):`).join('\n')

const spansOf = (caches: ScanCaches, text = TEXT) => scanText(text, 0, text.length, { mode: 'instruction', caches }).toArray()

describe('ScanCaches', () => {
  it('belong to one owner: scanning with one set leaves another set untouched', () => {
    const first = new ScanCaches()
    const second = new ScanCaches()
    spansOf(second)
    const words = second.words.slots.slice()
    const lines = second.lines.slots.slice()
    const generations = [second.words.generation, second.lines.generation]
    spansOf(first)
    spansOf(first, TEXT.replaceAll('mod_', 'other_'))
    expect(first.words.slots.some((value) => value !== 0)).toBe(true)
    expect(first.lines.slots.some((value) => value !== 0)).toBe(true)
    expect(second.words.slots).toEqual(words)
    expect(second.lines.slots).toEqual(lines)
    expect([second.words.generation, second.lines.generation]).toEqual(generations)
  })

  it('start over alone when their generation counter wraps, and find the same spans after', () => {
    const wrapping = new ScanCaches()
    const other = new ScanCaches()
    const expected = spansOf(other)
    const otherWords = other.words.slots.slice()
    spansOf(wrapping)
    wrapping.words.generation = 0x7fffffff
    wrapping.lines.generation = 0x7fffffff
    expect(spansOf(wrapping)).toEqual(expected)
    expect([wrapping.words.generation, wrapping.lines.generation]).toEqual([1, 1])
    expect(other.words.slots).toEqual(otherWords)
    expect(spansOf(other)).toEqual(expected)
  })
})

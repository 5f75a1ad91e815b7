import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HEAD_LENGTH, headOf, sourceFromString } from './source.js'

async function lines(text: string): Promise<Array<{ line: number; text: string; last: boolean }>> {
  const collected: Array<{ line: number; text: string; last: boolean }> = []
  for await (const line of sourceFromString('x', text).lines()) collected.push(line)
  return collected
}

describe('sourceFromString', () => {
  it('splits lines, drops \\r before \\n, and ends with the segment after the last newline', async () => {
    expect(await lines('a\r\nb\n')).toEqual([
      { line: 1, text: 'a', last: false },
      { line: 2, text: 'b', last: false },
      { line: 3, text: '', last: true },
    ])
    expect(await lines('a\nb')).toEqual([
      { line: 1, text: 'a', last: false },
      { line: 2, text: 'b', last: true },
    ])
    expect(await lines('')).toEqual([{ line: 1, text: '', last: true }])
  })

  it('rejoins to the input and numbers lines from 1 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r', ' '), maxLength: 60 }), async (text) => {
        const result = await lines(text)
        expect(result.map((line) => line.line)).toEqual(result.map((_, index) => index + 1))
        expect(result.filter((line) => line.last)).toHaveLength(1)
        expect(result.at(-1)!.last).toBe(true)
        expect(result.map((line) => line.text).join('\n')).toBe(text.replace(/\r(?=\n)/g, ''))
      }),
      { numRuns: 200 },
    )
  })

  it('gives the whole text and a 64 KiB head that never splits a surrogate pair', async () => {
    const text = `${'a'.repeat(HEAD_LENGTH - 1)}😀tail`
    const source = sourceFromString('emoji.txt', text)
    expect(await source.text()).toBe(text)
    expect(source.head).toBe('a'.repeat(HEAD_LENGTH - 1))
    expect(headOf('short')).toBe('short')
    expect(headOf('b'.repeat(HEAD_LENGTH + 10))).toHaveLength(HEAD_LENGTH)
  })
})

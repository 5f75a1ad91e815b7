import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import { HEAD_BYTES, sourceFromFile, sourceFromStdin, splitLines } from './source.js'

const dir = mkdtempSync(join(tmpdir(), 'floorguard-source-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function collect(lines: AsyncIterable<{ line: number; text: string; last: boolean }>) {
  const out: Array<{ line: number; text: string; last: boolean }> = []
  for await (const entry of lines) out.push(entry)
  return out
}

/** What splitting on `\n` means here: every segment, a trailing `\r` dropped, a leading BOM dropped. */
function expected(text: string) {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const segments = body.split('\n')
  return segments.map((segment, index) => ({
    line: index + 1,
    text: segment.endsWith('\r') ? segment.slice(0, -1) : segment,
    last: index === segments.length - 1,
  }))
}

function chunked(buffer: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (buffer.length + 1)))].sort((a, b) => a - b)
  const chunks: Buffer[] = []
  let start = 0
  for (const point of points) {
    chunks.push(buffer.subarray(start, point))
    start = point
  }
  chunks.push(buffer.subarray(start))
  return chunks
}

describe('splitLines', () => {
  it('splits any text the way split("\\n") does, however the bytes are chunked (property)', async () => {
    const line = fc.array(fc.constantFrom('a', 'z', '{', '"', ':', ',', '\r', ' ', 'é', '😀', '\t'), { maxLength: 12 }).map((chars) => chars.join(''))
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 12 }), fc.boolean(), fc.boolean(), fc.array(fc.nat(400), { maxLength: 8 }), async (lines, bom, trailing, cuts) => {
        const text = (bom ? '\uFEFF' : '') + lines.join('\n') + (trailing ? '\n' : '')
        const chunks = chunked(Buffer.from(text, 'utf8'), cuts)
        expect(await collect(splitLines(chunks, 'x.jsonl'))).toEqual(expected(text))
      }),
      { numRuns: 150 },
    )
  })

  it('marks only an unterminated final line as a non-empty last line', async () => {
    expect((await collect(splitLines([Buffer.from('a\nb\n')], 'f'))).at(-1)).toEqual({ line: 3, text: '', last: true })
    expect((await collect(splitLines([Buffer.from('a\nb')], 'f'))).at(-1)).toEqual({ line: 2, text: 'b', last: true })
  })

  it('refuses a line longer than the limit with file:line, even across chunks', async () => {
    const chunks = [Buffer.from('ok\n'), Buffer.from('x'.repeat(40)), Buffer.from('x'.repeat(40))]
    await expect(collect(splitLines(chunks, 'big.jsonl', 64))).rejects.toThrow(/^big\.jsonl:2: expected a line of at most 64 B characters/)
  })
})

describe('sourceFromFile', () => {
  it('reads head, lines and text, stripping a BOM and CRs', async () => {
    const path = join(dir, 'crlf.jsonl')
    writeFileSync(path, '\uFEFF{"a":1}\r\n{"b":2}\r\n')
    const source = await sourceFromFile(path)
    expect(source.name).toBe(path)
    expect(source.head).toBe('{"a":1}\r\n{"b":2}\r\n')
    expect(await source.text()).toBe('{"a":1}\r\n{"b":2}\r\n')
    expect((await collect(source.lines())).map((entry) => entry.text)).toEqual(['{"a":1}', '{"b":2}', ''])
    // lines() can be called again: each call streams the file afresh.
    expect((await collect(source.lines())).length).toBe(3)
  })

  it('cuts the head at 64 KiB without splitting a multi-byte character', async () => {
    const path = join(dir, 'long.txt')
    writeFileSync(path, `${'a'.repeat(HEAD_BYTES - 1)}é${'b'.repeat(10)}`)
    const source = await sourceFromFile(path)
    expect(source.head.length).toBeGreaterThanOrEqual(HEAD_BYTES - 1)
    expect(source.head).not.toContain('\uFFFD')
  })

  it.skipIf(!existsSync('/proc/self/status'))('reads a file whose size says 0 but holds bytes (a kernel file) to its end', async () => {
    // A black-box re-test: `check /proc/self/status` said "got empty input": the head was read by the stat size.
    const source = await sourceFromFile('/proc/self/status')
    expect(source.head).toMatch(/^Name:\t/)
    expect(await source.text()).toMatch(/^Name:\t[^]*\nPid:\t\d+/)
  })

  it('refuses a document larger than maxTextBytes, and a missing file, with the path', async () => {
    const path = join(dir, 'doc.json')
    writeFileSync(path, `[${'1,'.repeat(100)}1]`)
    const source = await sourceFromFile(path, { maxTextBytes: 50 })
    await expect(source.text()).rejects.toThrow(new RegExp(`^${path}: expected a document of at most 50 B`))
    await expect(sourceFromFile(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: expected a readable file, got no such file \(ENOENT\)/)
    await expect(sourceFromFile(dir)).rejects.toThrow(/expected a regular file, got a directory/)
  })
})

describe('sourceFromStdin', () => {
  it('buffers the head and streams the rest once', async () => {
    const body = `${'{"n":1}\n'.repeat(20_000)}`
    const source = await sourceFromStdin(Readable.from([Buffer.from(body.slice(0, 1000)), Buffer.from(body.slice(1000))]))
    expect(source.name).toBe('<stdin>')
    expect(source.head.length).toBeGreaterThanOrEqual(HEAD_BYTES)
    const lines = await collect(source.lines())
    expect(lines.length).toBe(20_001)
    expect(lines[19_999]).toEqual({ line: 20_000, text: '{"n":1}', last: false })
    await expect(source.text()).rejects.toSatisfy((error: unknown) => FloorguardError.is(error) && /read only once/.test((error as Error).message))
  })

  it('reads a short input whole as text', async () => {
    const source = await sourceFromStdin(Readable.from(['\uFEFF[1, 2]']), { name: '-' })
    expect(source.head).toBe('[1, 2]')
    expect(await source.text()).toBe('[1, 2]')
  })
})

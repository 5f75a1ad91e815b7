import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJson } from './json.js'
import { scanJsonPrefix, scanJsonlHead } from './_json-prefix.js'

/** JSON.parse's value with plain prototypes, for comparing against the scanner's null-prototype objects. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('scanJsonPrefix', () => {
  it('reads any whole JSON text to the value JSON.parse gives (property)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 5 }), fc.boolean(), (json, pretty) => {
        const text = pretty ? JSON.stringify(JSON.parse(json), null, 2) : json
        const scanned = scanJsonPrefix(text)
        expect(scanned.errorOffset).toBeUndefined()
        expect(scanned.complete).toBe(true)
        expect(plain(scanned.value)).toEqual(JSON.parse(text))
      }),
      { numRuns: 300 },
    )
  })

  it('never reports an error inside a prefix of valid JSON, and never claims a cut one complete (property)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 5 }), fc.nat(), (json, at) => {
        const text = JSON.stringify(JSON.parse(json), null, 1)
        const cut = at % (text.length + 1)
        const scanned = scanJsonPrefix(text.slice(0, cut))
        expect(scanned.errorOffset).toBeUndefined()
        if (text.slice(cut).trim() !== '' && !/^[\d.eE+-]+$/.test(text.slice(0, cut).trim())) expect(scanned.complete).toBe(false)
      }),
      { numRuns: 300 },
    )
  })

  it('finds an error wherever JSON.parse rejects a text that is no JSON prefix (property)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), fc.nat(), fc.constantFrom('}', ']', ',', ':', 'x', '"'), (json, at, char) => {
        const position = at % (json.length + 1)
        const text = json.slice(0, position) + char + json.slice(position)
        const scanned = scanJsonPrefix(text)
        let parses = true
        try {
          JSON.parse(text)
        } catch {
          parses = false
        }
        if (parses) expect(scanned.complete).toBe(true)
        if (scanned.errorOffset !== undefined) {
          expect(parses).toBe(false)
          expect(scanned.errorOffset).toBeLessThanOrEqual(text.length)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('closes what a cut left open and marks the value that was cut', () => {
    const scanned = scanJsonPrefix('[{"role":"user","content":"hel')
    expect(plain(scanned.value)).toEqual([{ role: 'user', content: 'hel' }])
    expect(scanned.complete).toBe(false)
    const item = (scanned.value as object[])[0]!
    expect(scanned.cut).toEqual({ container: item, key: 'content' })
    expect(scanJsonPrefix('{"a":[1,2').cut?.key).toBe(1)
    expect(plain(scanJsonPrefix('{"a":tr').value)).toEqual({})
    expect(plain(scanJsonPrefix('"abc\\u00').value)).toBe('abc')
  })

  it('accepts numbers that overflow to Infinity, as JSON.parse does (regression: fast-check seed -12999650)', () => {
    expect(scanJsonPrefix('[1.00000,76571084901e+301]').complete).toBe(true)
    expect(scanJsonPrefix('1e999').complete).toBe(true)
  })

  it('is iterative: deep nesting does not overflow the stack', () => {
    const scanned = scanJsonPrefix(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)
    expect(scanned.complete).toBe(true)
  })

  it('treats __proto__ as data', () => {
    const scanned = scanJsonPrefix('{"__proto__":{"polluted":true}}')
    expect(Object.keys(scanned.value as object)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('scanJsonlHead', () => {
  it('reads the first records, the last one possibly cut, and marks non-JSON lines', () => {
    const records = scanJsonlHead('{"type":"a"}\n\nnot json\n{"type":"b","x":"cu', 8)
    expect(records).toHaveLength(3)
    expect(plain(records[0])).toEqual({ type: 'a' })
    expect(records[1]).toBeUndefined()
    expect(plain(records[2])).toEqual({ type: 'b', x: 'cu' })
  })
})

describe('parseJson error locations', () => {
  it('locates errors V8 reports without a position', () => {
    expect(() => parseJson('[\n  1,\n  }\n]', 'f.json')).toThrow(/^f\.json:3:3: expected valid JSON, got "\}/)
    expect(() => parseJson('}', 'f.json')).toThrow(/^f\.json:1:1: /)
  })

  it('names JSON lines as such when a document was expected', () => {
    // A black-box re-test: a JSONL file whose first record was over the 64 KiB head was auto-detected as a document
    // format, and the error said only "expected valid JSON" at 2:1.
    expect(() => parseJson('{"a":1}\n{"a":2}\n', 'f.jsonl')).toThrow(/^f\.jsonl:2:1: expected one JSON document, got a second JSON value here: JSON lines/)
    // Not for a broken value that happens to start a line.
    expect(() => parseJson('[1,\n{"b":2}\n{"c":3}]\n', 'f.json')).toThrow(/^f\.json:3:1: expected valid JSON/)
  })
})

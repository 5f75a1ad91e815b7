import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { splitLines } from '../cli/source.js'
import type { FormatSource } from '../spec/format.js'
import { headRecords, readJsonl } from './_jsonl.js'
import { sourceFromString } from './source.js'

/** A source with the CLI's line semantics (a final newline yields an empty last line). */
function source(text: string, name = 'log.jsonl'): FormatSource {
  return { name, head: text.slice(0, 65536), text: async () => text, lines: () => splitLines([Buffer.from(text)], name) }
}

async function records(text: string, lenient = false, from: (text: string) => FormatSource = source) {
  const warnings: string[] = []
  const out: Array<{ line: number; value: unknown }> = []
  for await (const record of readJsonl(from(text), { lenient, onWarning: (warning) => warnings.push(warning) })) out.push(record)
  return { out, warnings }
}

describe('readJsonl', () => {
  it('yields every record with its line, skipping blank lines (property)', async () => {
    const value = fc.jsonValue({ maxDepth: 3 })
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(value, fc.constant('blank')), { maxLength: 10 }), async (entries) => {
        const text = entries.map((entry) => (entry === 'blank' ? '  ' : JSON.stringify(entry))).join('\n') + '\n'
        const { out } = await records(text)
        const expected = entries.flatMap((entry, index) => (entry === 'blank' ? [] : [{ line: index + 1, value: JSON.parse(JSON.stringify(entry)) }]))
        expect(out).toEqual(expected)
      }),
      { numRuns: 100 },
    )
  })

  it('reports a truncated last line with file:line:column, and skips it only when lenient', async () => {
    const text = '{"a":1}\n{"b":[1,2'
    await expect(records(text)).rejects.toThrow(
      /^log\.jsonl:2:\d+: expected a complete JSON record, got a truncated line \(the log may still be written; --lenient skips it\)$/,
    )
    const { out, warnings } = await records(text, true)
    expect(out).toEqual([{ line: 1, value: { a: 1 } }])
    expect(warnings).toEqual([expect.stringMatching(/^log\.jsonl:2:\d+: expected a complete JSON record/)])
  })

  it('fails on a malformed line anywhere with file:line:column and a hint at --lenient', async () => {
    await expect(records('{"a":1}\n{"b":\n{"c":3}\n')).rejects.toThrow(
      /^log\.jsonl:2:\d+: expected [^\n]*\(a malformed line; --lenient skips such lines and reports them\)$/,
    )
    // A bad last line that did end with a newline is a syntax error, not a truncation.
    await expect(records('{"a":1}\n{"b":\n')).rejects.toThrow(/^log\.jsonl:2:\d+: expected more JSON/)
  })

  it('skips every malformed line when lenient, reporting each with its line', async () => {
    // Issue 11: one corrupt line in the middle of a long log made the whole log unusable.
    const lines = Array.from({ length: 1050 }, (_, index) => JSON.stringify({ n: index + 1 }))
    lines[499] = '{"n":500,"text":"cut\u0000\u0000\u0000'
    lines[799] = 'garbage'
    const { out, warnings } = await records(`${lines.join('\n')}\n`, true)
    expect(out.map((record) => record.line)).toEqual(Array.from({ length: 1050 }, (_, index) => index + 1).filter((line) => line !== 500 && line !== 800))
    expect(out.every((record) => (record.value as { n: number }).n === record.line)).toBe(true)
    expect(warnings).toEqual([expect.stringMatching(/^log\.jsonl:500:\d+: expected .*: line skipped$/), expect.stringMatching(/^log\.jsonl:800:1: expected .*: line skipped$/)])
  })

  it('with a record kind, takes a line that parses to no object for a malformed one: failed naming --lenient, or skipped', async () => {
    // A black-box re-test: `42`, `[]` in a Claude Code log were fatal even with --lenient, and the error never said so.
    const text = ['{"n":1}', '42', '[]', '"x"', 'null', '{"n":6}'].join('\n') + '\n'
    const read = async (lenient: boolean) => {
      const warnings: string[] = []
      const out: unknown[] = []
      for await (const record of readJsonl(source(text), { lenient, record: { expected: 'a log record object' }, onWarning: (warning) => warnings.push(warning) })) out.push(record.value)
      return { out, warnings }
    }
    await expect(read(false)).rejects.toThrow(/^log\.jsonl:2: expected a log record object, got number 42 \(a malformed line; --lenient skips such lines and reports them\)$/)
    const { out, warnings } = await read(true)
    expect(out).toEqual([{ n: 1 }, { n: 6 }])
    expect(warnings).toEqual([
      'log.jsonl:2: expected a log record object, got number 42: line skipped',
      'log.jsonl:3: expected a log record object, got an array: line skipped',
      'log.jsonl:4: expected a log record object, got string "x": line skipped',
      'log.jsonl:5: expected a log record object, got null: line skipped',
    ])
    // Without a record kind, any JSON value is a record.
    expect((await records(text)).out).toHaveLength(6)
  })

  it('yields a valid last record that has no trailing newline (a log still being written keeps its newest record)', async () => {
    for (const [lenient, from] of [false, true].flatMap((lenient) => [[lenient, source] as const, [lenient, (text: string) => sourceFromString('log.jsonl', text)] as const])) {
      const { out, warnings } = await records('{"a":1}\n{"b":2}', lenient, from)
      expect(out).toEqual([
        { line: 1, value: { a: 1 } },
        { line: 2, value: { b: 2 } },
      ])
      expect(warnings).toEqual([])
    }
  })
})

describe('headRecords', () => {
  it('parses complete lines of a head and marks unparsable ones', () => {
    expect(headRecords('{"a":1}\nnope\n{"b":2}\n{"cut":')).toEqual([{ a: 1 }, undefined, { b: 2 }])
    expect(headRecords('{"whole":true}')).toEqual([{ whole: true }])
    expect(headRecords('{"cut":')).toEqual([])
  })
})

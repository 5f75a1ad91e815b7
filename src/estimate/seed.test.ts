import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import type { Message } from '../spec/transcript.js'
import { renderMessage, renderSegment } from '../transcript/render.js'
import { classOf, codePointLength, DIGIT, lowerAsciiAt, WORD } from './_python-classes.js'
import { LOWER_SPECIALS, PYTHON_UNICODE_VERSION } from './_python-unicode.js'
import { createSeedEstimator, SEED_CUES, type SeedSpan, seedEstimateText } from './seed.js'

// Texts dense in what the patterns branch on, so the properties see many matches.
const unit = fc.constantFrom(
  ...'aeEmustnvrlwyxcdoMUSTAZ_.-/ 19\n\t'.split(''),
  'é', '٣', '𝟘', '𝐀', '😀', '\u0301', '\u212A', 'İ', '\u00a0', '\ud800',
)
const dense = fc.string({ unit, maxLength: 80 })
const denseWithQuotes = fc.string({ unit: fc.oneof(unit, fc.constantFrom('"', "'")), maxLength: 80 })

const byPattern = (spans: readonly SeedSpan[], pattern: SeedSpan['pattern']) =>
  spans.filter((span) => span.pattern === pattern)

describe('seedEstimateText', () => {
  it('prices the record examples the way seed_floor.py does', () => {
    // Hand-derived from the four patterns; seed-parity.test.ts checks the same against Python.
    const result = seedEstimateText('Error ENOENT: open "src/app.ts" failed; you MUST pin lodash@4.17.21')
    expect(result.spans.map((span) => [span.pattern, span.text, span.tokens])).toEqual([
      ['quoted', '"src/app.ts"', 3],
      ['number', '4.17', 1],
      ['number', '21', 1],
      ['path', 'src/app.ts', 2],
      ['constant', 'ENOENT', 1],
      ['constant', 'MUST', 1],
      ['cue', 'must', 8],
    ])
    expect(result.irreducible).toBe(17)
    expect(result.margin).toBe(3)
  })

  it('backtracks the number groups like the regex: a failed exponent or fraction falls back', () => {
    const numbers = (text: string) => byPattern(seedEstimateText(text).spans, 'number').map((span) => span.text)
    expect(numbers('1.5x 2e5 3e5x 4.5e 6.7e-8 9E9 1.2.3')).toEqual(['1', '2e5', '4', '6.7e-8', '1.2', '3'])
    expect(numbers('1.5e5.5 1e+ 1e-5x')).toEqual(['1.5e5', '5'])
    expect(numbers('٣٤ 𝟘𝟙.𝟚 ½ ²')).toEqual(['٣٤', '𝟘𝟙.𝟚'])
  })

  it('gives a cue the offsets of its first occurrence in the original text', () => {
    const text = 'İİ \u212Ax Do\u00a0not, DO NOT'
    const cue = byPattern(seedEstimateText(text).spans, 'cue')
    expect(cue).toEqual([{ pattern: 'cue', text: 'do not', start: text.indexOf('DO NOT'), end: text.length, tokens: 8 }])
  })

  it('rejects a margin ratio that is not a finite number >= 0', () => {
    expect(() => seedEstimateText('x', -0.1)).toThrow(FloorguardError)
    expect(() => seedEstimateText('x', Number.NaN)).toThrow(/marginRatio: expected a finite number >= 0/)
    expect(() => createSeedEstimator({ marginRatio: Number.POSITIVE_INFINITY })).toThrow(FloorguardError)
  })

  it('sums the span tokens into irreducible and truncates the margin', () => {
    fc.assert(
      fc.property(denseWithQuotes, fc.double({ min: 0, max: 1, noNaN: true }), (text, ratio) => {
        const result = seedEstimateText(text, ratio)
        expect(result.irreducible).toBe(result.spans.reduce((sum, span) => sum + span.tokens, 0))
        expect(result.margin).toBe(Math.trunc(result.irreducible * ratio))
      }),
      { numRuns: 200 },
    )
  })

  it('returns each span at its offsets, priced at max(1, code points // 4), texts distinct', () => {
    fc.assert(
      fc.property(denseWithQuotes, (text) => {
        const { spans } = seedEstimateText(text)
        const patternSpans = spans.filter((span) => span.pattern !== 'cue')
        for (const span of patternSpans) {
          expect(text.slice(span.start, span.end)).toBe(span.text)
          expect(span.tokens).toBe(Math.max(1, Math.floor([...span.text].length / 4)))
        }
        expect(new Set(patternSpans.map((span) => span.text)).size).toBe(patternSpans.length)
        const lowered = text.toLowerCase()
        for (const span of byPattern(spans, 'cue')) {
          // ASCII cue letters lowercase alike in JS and Python; the check only needs the matched slice.
          expect(lowered.slice(span.start, span.end)).toBe(span.text)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('never overlaps two spans of one pattern, and lists them by position', () => {
    fc.assert(
      fc.property(denseWithQuotes, (text) => {
        const { spans } = seedEstimateText(text)
        for (const pattern of ['quoted', 'number', 'path', 'constant'] as const) {
          const list = byPattern(spans, pattern)
          for (let index = 1; index < list.length; index++) {
            expect(list[index - 1]!.end).toBeLessThanOrEqual(list[index]!.start)
          }
        }
        const order = spans.map((span) => ['quoted', 'number', 'path', 'constant', 'cue'].indexOf(span.pattern))
        expect(order).toEqual([...order].sort((a, b) => a - b))
      }),
      { numRuns: 200 },
    )
  })

  it('is deterministic', () => {
    fc.assert(
      fc.property(denseWithQuotes, (text) => {
        expect(seedEstimateText(text)).toEqual(seedEstimateText(text))
      }),
      { numRuns: 100 },
    )
  })

  it('doubling a quote-free text around a newline adds no span and no token', () => {
    // A newline is outside every pattern and every cue and is a non-word character like the text's
    // ends, so each copy matches exactly what the text alone matches; dedup then keeps one of each.
    fc.assert(
      fc.property(dense, (text) => {
        const single = seedEstimateText(text)
        const doubled = seedEstimateText(`${text}\n${text}`)
        expect(doubled.spans.map((span) => [span.pattern, span.text])).toEqual(
          single.spans.map((span) => [span.pattern, span.text]),
        )
        expect(doubled.irreducible).toBe(single.irreducible)
      }),
      { numRuns: 200 },
    )
  })

  it('doubling around a space can only add the `do not` cue', () => {
    fc.assert(
      fc.property(dense, (text) => {
        const single = seedEstimateText(text).spans.map((span) => `${span.pattern}:${span.text}`)
        const doubled = seedEstimateText(`${text} ${text}`).spans.map((span) => `${span.pattern}:${span.text}`)
        const added = doubled.filter((key) => !single.includes(key))
        expect(single.every((key) => doubled.includes(key))).toBe(true)
        expect(added.every((key) => key === 'cue:do not')).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})

describe('Python character tables', () => {
  it('classify ASCII and a few known code points as Python 3.11 does', () => {
    expect(PYTHON_UNICODE_VERSION).toBe('14.0.0')
    const word = (text: string) => (classOf(text.codePointAt(0)!) & WORD) !== 0
    const digit = (text: string) => (classOf(text.codePointAt(0)!) & DIGIT) !== 0
    expect([...'az09_é'].every(word)).toBe(true)
    expect(['-', '.', '/', ' ', '\u0301', '\u00a0', '😀', '\ud800'].some(word)).toBe(false)
    expect(['½', 'Ⅻ', '²', '𝐀'].every(word)).toBe(true)
    expect(['٣', '५', '𝟘', '０'].every(digit)).toBe(true)
    expect(['½', 'Ⅻ', '²', 'a'].some(digit)).toBe(false)
  })

  it('lower U+212A and U+0130 the way the cue scanner needs', () => {
    expect(LOWER_SPECIALS).toEqual({ 0x130: 'i\u0307', 0x212a: 'k' })
    expect(lowerAsciiAt('\u212A', 0)).toBe(0x6b)
    expect(lowerAsciiAt('İ', 0)).toBe(0)
    expect(lowerAsciiAt('Q', 0)).toBe(0x71)
  })

  it('counts code points like Python len, lone surrogates included', () => {
    const text = 'a😀\ud800b\udc00𝟘'
    expect(codePointLength(text, 0, text.length)).toBe(6)
    expect(codePointLength(text, 1, 3)).toBe(1)
  })
})

const text = (value: string): Message['parts'][number] => ({ type: 'text', text: value })

describe('createSeedEstimator', () => {
  const estimator = createSeedEstimator()

  it('is a v1 estimator named seed, priced at chars/4', () => {
    expect(estimator).toMatchObject({ specificationVersion: 'v1', name: 'seed', tokenizer: 'chars/4', marginRatio: 0.2 })
    expect(createSeedEstimator({ marginRatio: 0.15 }).marginRatio).toBe(0.15)
  })

  it('scores a one-message segment exactly as seedEstimateText scores its text', () => {
    const message: Message = { role: 'user', parts: [text('You MUST keep "a/b.ts" at 1.2.3')] }
    const reference = seedEstimateText('You MUST keep "a/b.ts" at 1.2.3', 0.25)
    const estimate = createSeedEstimator({ marginRatio: 0.25 }).estimate([message])
    expect(estimate).toMatchObject({
      estimator: 'seed',
      tokenizer: 'chars/4',
      irreducible: reference.irreducible,
      margin: reference.margin,
      total: reference.irreducible + reference.margin,
    })
  })

  it('maps items to their message and to offsets in its rendered text, in order of appearance', () => {
    const messages: Message[] = [
      { role: 'user', parts: [text('never touch /etc/hosts')] },
      { role: 'assistant', parts: [text('ok'), { type: 'tool-call', id: 'c1', name: 'read', arguments: { path: 'a/b' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'ENOENT 2', isError: true }] },
    ]
    const estimate = estimator.estimate(messages, 10)
    expect(estimate.items.map((item) => [item.kind, item.text, item.message])).toEqual([
      ['constraint', 'never', 10],
      ['path', 'etc/hosts', 10],
      ['quoted', '"path"', 11],
      ['quoted', '"a/b"', 11],
      ['path', 'a/b', 11],
      ['constant', 'ENOENT', 12],
      ['number', '2', 12],
    ])
    for (const item of estimate.items) {
      const rendered = renderMessage(messages[item.message - 10]!).text
      expect(rendered.slice(item.start, item.end)).toBe(item.text)
    }
  })

  it('keeps a quote that runs into the next message relative to the message it starts in', () => {
    const messages: Message[] = [
      { role: 'user', parts: [text('say "hi')] },
      { role: 'assistant', parts: [text('there" ok')] },
    ]
    const [item] = estimator.estimate(messages).items
    const { text: segment } = renderSegment(messages)
    expect(item).toMatchObject({ kind: 'quoted', message: 0, start: 4, end: 4 + '"hi\n\nthere"'.length })
    expect(segment.slice(item!.start, item!.end)).toBe('"hi\n\nthere"')
    expect(item!.end).toBeGreaterThan(renderMessage(messages[0]!).text.length)
  })

  it('extracts one message on its own, with the given index', () => {
    // `v2.0` would give the number `0` only: no `\b` between `v` and `2`.
    const message: Message = { role: 'user', parts: [text('ONLY use 2.0 in src/x')] }
    const items = estimator.extract(message, 7)
    expect(items.map((item) => [item.kind, item.text, item.message, item.start])).toEqual([
      ['constant', 'ONLY', 7, 0],
      ['constraint', 'only', 7, 0],
      ['number', '2.0', 7, 9],
      ['path', 'src/x', 7, 16],
    ])
  })

  it('counts each distinct text once per segment and totals irreducible + margin', () => {
    fc.assert(
      fc.property(fc.array(denseWithQuotes, { minLength: 1, maxLength: 5 }), (texts) => {
        const messages: Message[] = texts.map((value) => ({ role: 'user', parts: [text(value)] }))
        const estimate = estimator.estimate(messages)
        const { text: segment, starts } = renderSegment(messages)
        expect(estimate.irreducible).toBe(seedEstimateText(segment).irreducible)
        expect(estimate.total).toBe(estimate.irreducible + estimate.margin)
        expect(estimate.irreducible).toBe(estimate.items.reduce((sum, item) => sum + item.tokens, 0))
        for (const item of estimate.items) {
          const base = starts[item.message]!
          const slice = segment.slice(base + item.start, base + item.end)
          expect(item.kind === 'constraint' ? slice.toLowerCase() : slice).toBe(item.text)
          expect(item.start).toBeGreaterThanOrEqual(0)
          expect(item.start).toBeLessThan(renderMessage(messages[item.message]!).text.length)
        }
      }),
      { numRuns: 100 },
    )
  })
})

it('lists every cue the reference lists', () => {
  expect(SEED_CUES).toEqual(['must', 'never', 'always', 'exactly', 'only', 'do not'])
})

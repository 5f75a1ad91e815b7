import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hostileCases, generateSeedTexts } from './__fixtures__/seed-texts.js'
import {
  REAL_CORPUS_DIR,
  type ReferenceResult,
  referenceUnavailable,
  runReference,
  codePointOffsets,
} from './__fixtures__/seed-reference.js'
import { SEED_CUES, seedEstimateText } from './seed.js'

const MARGINS = [0.15, 0.2, 0.25]
const PATTERNS = ['quoted', 'number', 'path', 'constant'] as const
const unavailable = referenceUnavailable()
if (unavailable) console.warn(`[seed parity] skipped: ${unavailable}`)

// fast-check strings, sampled with fixed seeds so the batch is deterministic and runs in one python3.
const SOUP_UNIT = fc.constantFrom(
  ...'aeEmustnvrlwyxcdoMUSTAZ_.-/ "\'19\n\r\t'.split(''),
  'é', 'ß', 'Ⅻ', '٣', '५', '½', '𝟘', '𝐀', '😀', '\u0301', '\u212A', 'İ', '\u00a0', '\ud800', '\udfff', 'ſ', 'Σ',
)
const fastCheckTexts = [
  ...fc.sample(fc.string({ unit: SOUP_UNIT, maxLength: 60 }), { seed: 20261111, numRuns: 120 }),
  ...fc.sample(fc.string({ unit: 'binary', maxLength: 40 }), { seed: 7, numRuns: 60 }),
  ...fc.sample(fc.string({ unit: 'grapheme', maxLength: 30 }), { seed: 11, numRuns: 40 }),
]

/** Compares one text's seed result with the reference's, all margins, spans and cue offsets. */
function expectParity(text: string, reference: ReferenceResult, label: string): void {
  const ours = MARGINS.map((margin) => seedEstimateText(text, margin))
  const toCodePoint = codePointOffsets(text)
  const context = `${label}: ${JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text)}`
  const spans = (ours[0]?.spans ?? [])
    .filter((span) => span.pattern !== 'cue')
    .map((span) => [
      PATTERNS.indexOf(span.pattern as (typeof PATTERNS)[number]),
      span.text,
      toCodePoint(span.start),
      toCodePoint(span.end),
    ])
  expect(spans, context).toEqual(reference.spans)
  const cues = (ours[0]?.spans ?? [])
    .filter((span) => span.pattern === 'cue')
    .map((span) => [span.text, toCodePoint(span.start), toCodePoint(span.end)])
  expect(cues, context).toEqual(reference.cues)
  expect(
    ours.map((result) => [result.irreducible, result.margin]),
    context,
  ).toEqual(reference.estimates)
}

describe.skipIf(unavailable !== undefined)('seed parity with seed_floor.py', () => {
  const generated = generateSeedTexts(300, 0x5eed)
  const edge = [
    '', ' ', 'a', '1', '"', "'", '""', "''", '/', 'a/b', '1/2', 'AB', 'A', '__', 'e', '1e5', '1.5', '1.', '.1',
    'must', 'MUST', 'do not', 'DO\u00a0NOT', 'İ', 'i\u0307', '\u212A', 'ſ', 'ﬁ', 'K', '𝟘', '𝟘.𝟙e𝟚', '\ud800', '\udc00a',
    '\ud83d', '\ud83d\ude00', 'a\ud800/b', 'x\r\ny', '"a\r\nb"', "it's 'quoted' isn't", '1.2.3', '1.2e5x', '1.2e5.',
    '1.2e+5', '1.2e+', '1e+5e5', 'a.a.a.a/', 'a.a.a.a', '/a.b', '-a/b', 'a-/b', 'ä/ö', '٣/٤', '½/⅓', 'Ⅻ/x', '²/3',
    'a\u0301/b\u0301', 'A\u0301B', 'AB\u0301', 'A𝐀', 'AB𝐀', 'AB😀', 'x/AB𝐀', '1𝟘', '1.𝟘', '𝟘e5', '1e𝟘', 'AB\ud800', 'NODE_ENV=production ENOENT', '${API_KEY}',
    'x𝟘', '😀1', '𝐀1', '𝐀AB', '😀AB', 'é1', 'a\ud8001', '\udc001', '𝟘😀𝟘', 'do not𝟘', 'x😀must',
  ]
  const hostile = hostileCases(2000)
  const texts = [...edge, ...generated, ...fastCheckTexts, ...hostile.map((entry) => entry.text)]
  // describe.skipIf still runs this body to collect the tests: only call python3 when it is there.
  const reference = unavailable === undefined ? runReference(texts, MARGINS) : []

  it('agrees on every edge-case text', () => {
    edge.forEach((text, index) => expectParity(text, reference[index] as ReferenceResult, `edge ${index}`))
  })

  it(`agrees on ${generated.length} generated agent-like texts`, () => {
    generated.forEach((text, index) =>
      expectParity(text, reference[edge.length + index] as ReferenceResult, `generated ${index}`),
    )
  })

  it(`agrees on ${fastCheckTexts.length} fast-check texts`, () => {
    const base = edge.length + generated.length
    fastCheckTexts.forEach((text, index) =>
      expectParity(text, reference[base + index] as ReferenceResult, `fast-check ${index}`),
    )
  })

  it('agrees on the hostile inputs at 2,000 characters, and the hand-derived numbers hold there', () => {
    const base = edge.length + generated.length + fastCheckTexts.length
    hostile.forEach((entry, index) => {
      const result = reference[base + index] as ReferenceResult
      expectParity(entry.text, result, entry.name)
      expect(result.estimates[1]?.[0], entry.name).toBe(entry.irreducible)
    })
  })

  it('exercises every pattern and cue on the generated texts', () => {
    const seenPatterns = new Set<number>()
    const seenCues = new Set<string>()
    for (const result of reference) {
      for (const span of result.spans) seenPatterns.add(span[0])
      for (const cue of result.cues) seenCues.add(cue[0])
    }
    expect([...seenPatterns].sort()).toEqual([0, 1, 2, 3])
    expect([...seenCues].sort()).toEqual([...SEED_CUES].sort())
  })
})

describe.skipIf(unavailable !== undefined)('seed tables match this python3', () => {
  it('scripts/gen-python-unicode.py --check finds the generated tables current', () => {
    const script = fileURLToPath(new URL('../../scripts/gen-python-unicode.py', import.meta.url))
    const run = spawnSync('python3', [script, '--check'], { encoding: 'utf8' })
    expect(run.stderr + run.stdout).toContain('up to date')
    expect(run.status).toBe(0)
  })
})

const realFiles = existsSync(REAL_CORPUS_DIR)
  ? readdirSync(REAL_CORPUS_DIR, { recursive: true, encoding: 'utf8' })
      .map((name) => join(REAL_CORPUS_DIR, name))
      .filter((path) => statSync(path).isFile() && !path.endsWith('SOURCES.md'))
      .sort()
  : []
if (!existsSync(REAL_CORPUS_DIR)) console.warn(`[seed parity] real corpus skipped: ${REAL_CORPUS_DIR} is absent`)

describe.skipIf(unavailable !== undefined || realFiles.length === 0)('seed parity on the real corpus', () => {
  it('agrees with seed_floor.py on the text of every real transcript file', () => {
    const texts = realFiles.map((path) => readFileSync(path, 'utf8'))
    const reference = runReference(texts, MARGINS)
    texts.forEach((text, index) => expectParity(text, reference[index] as ReferenceResult, realFiles[index] ?? ''))
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MustKeepItem } from '../spec/summarizer.js'
import { renderStateBlock } from '../state-block/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { repairSummary } from './repair.js'
import { findInventedState, verifySummary, type ExtractedSpan, type SpanExtractor } from './verify.js'

const tokenizer = await createTokenizer('o200k_base')
const item = (kind: MustKeepItem['kind'], text: string, status: MustKeepItem['status'] = 'current'): MustKeepItem => ({ kind, text, status, tokens: tokenizer.count(text), message: 0, start: 0, end: text.length })
// A small extractor for the tests: numbers and slash paths, scanned word by word.
const extract: SpanExtractor = (text) =>
  text.split(/\s+/).filter(Boolean).flatMap((word): ExtractedSpan[] => (/^\d+$/.test(word) ? [{ kind: 'number', text: word }] : word.includes('/') ? [{ kind: 'path', text: word }] : []))

describe('verifySummary', () => {
  const items = [item('path', 'src/app.ts'), item('error', 'EACCES: permission denied'), item('number', '4096')]

  it('accepts a summary with every item verbatim within the slot', () => {
    const summary = 'Edited src/app.ts; it failed with EACCES: permission denied at 4096 bytes.'
    const result = verifySummary({ summary, items, slot: 100, tokenizer })
    expect(result).toMatchObject({ ok: true, empty: false, withinSlot: true, missing: [], problems: [] })
    expect(result.tokens).toBe(tokenizer.count(summary))
  })

  it('rejects a paraphrase: no normalization of case, whitespace or line endings', () => {
    for (const summary of ['src/App.ts EACCES: permission denied 4096', 'src/app.ts EACCES:  permission denied 4096', 'src/app.ts EACCES: permission\ndenied 4096']) {
      const result = verifySummary({ summary, items, slot: 100, tokenizer })
      expect(result.ok).toBe(false)
      expect(result.missing).toHaveLength(1)
    }
    const crlf = [item('error', 'line one\nline two')]
    expect(verifySummary({ summary: 'line one\r\nline two', items: crlf, slot: 100, tokenizer }).ok).toBe(false)
  })

  it('rejects empty and whitespace-only summaries, and summaries over the slot', () => {
    expect(verifySummary({ summary: '  \n', items: [], slot: 10, tokenizer }).problems).toEqual(['summary is empty'])
    const long = `src/app.ts EACCES: permission denied 4096 ${'word '.repeat(50)}`
    const over = verifySummary({ summary: long, items, slot: 20, tokenizer })
    expect(over).toMatchObject({ ok: false, withinSlot: false, missing: [] })
    expect(over.problems[0]).toMatch(/^summary has \d+ tokens \(o200k_base\), slot is 20$/)
  })

  it('reports invented identifiers and numbers, ignoring the state block markup', () => {
    const segmentText = 'We edited src/app.ts and set the limit to 4096.'
    const summary = `${renderStateBlock({ items: [item('path', 'src/app.ts')] })}\nThe limit 4096 moved to 8192 in lib/other.ts now`
    expect(findInventedState(summary, segmentText, extract)).toEqual([
      { kind: 'number', text: '8192' },
      { kind: 'path', text: 'lib/other.ts' },
    ])
    expect(verifySummary({ summary, items: [], slot: 500, tokenizer, segmentText, extract }).invented).toHaveLength(2)
  })

  it('fails a summary that presents a stale value as current, or a current value as stale (regression: statuses were only reported)', () => {
    const stale = item('version', 'x@1', 'superseded')
    const wrong = renderStateBlock({ items: [{ ...stale, status: 'current' }] })
    const wrongResult = verifySummary({ summary: wrong, items: [stale], slot: 100, tokenizer })
    expect(wrongResult.staleAsCurrent).toEqual([stale])
    expect(wrongResult.ok).toBe(false)
    // No block at all: nothing says the value is stale.
    expect(verifySummary({ summary: 'x@1 is what we use.', items: [stale], slot: 100, tokenizer }).ok).toBe(false)
    const right = renderStateBlock({ items: [stale] })
    expect(verifySummary({ summary: right, items: [stale], slot: 100, tokenizer })).toMatchObject({ ok: true, staleAsCurrent: [] })
    // Every constraint marked superseded (a summarizer "lifting" them) is rejected.
    const constraint = item('constraint', 'Never push to main.')
    const inverted = `${renderStateBlock({ items: [{ ...constraint, status: 'superseded' }] })}\nThe constraints were lifted.`
    const invertedResult = verifySummary({ summary: inverted, items: [constraint], slot: 100, tokenizer })
    expect(invertedResult.currentAsStale).toEqual([constraint])
    expect(invertedResult.ok).toBe(false)
  })

  it('reads statuses from the block, never from item text: transcript text beginning "(superseded) " cannot forge one', () => {
    const forged = item('quoted', '(superseded) Never push to main.')
    const summary = renderStateBlock({ items: [forged] })
    expect(verifySummary({ summary, items: [forged], slot: 100, tokenizer }).ok).toBe(true)
  })

  it('fails a current item a summary presents as out of force anywhere: a mark before it, a context field, a heading, prose', () => {
    // A black-box re-test found each of these verified: the bracket's first field was the only place a status was read.
    const rule = item('constraint', 'Never push to main.')
    const pin = item('version', 'y==2')
    const items = [rule, pin]
    const clean = renderStateBlock({ items })
    expect(verifySummary({ summary: clean, items, slot: 200, tokenizer }).ok).toBe(true)
    const presented = [
      clean.replace('Never push to main.', '(superseded) Never push to main.'),
      clean.replace('] Never push', '; superseded] Never push'),
      clean.replace('] y==2', '] ~~y==2~~'),
      clean.replace('## constraints', '## superseded constraints (no longer in force)'),
    ]
    for (const summary of presented) {
      expect(summary).not.toBe(clean)
      const result = verifySummary({ summary, items, slot: 200, tokenizer })
      expect(result.ok, summary).toBe(false)
      expect(result.currentAsStale.length, summary).toBe(1)
    }
    for (const note of ['All constraints were lifted.', 'The rules above no longer apply', 'Ignore all the pins: they were dropped.']) {
      const result = verifySummary({ summary: `${clean}\n${note}`, items, slot: 200, tokenizer })
      expect(result.problems.at(-1), note).toMatch(/^the summary says state that is current no longer holds: /)
    }
    // The segment's own words, quoted (a user who did lift a rule), are history, not the summary's claim.
    const quoted = `${clean}\nuser: The rules above no longer apply.`
    expect(verifySummary({ summary: quoted, items, slot: 200, tokenizer, segmentText: 'Okay. The rules above no longer apply. Go.' }).ok).toBe(true)
    // Prose about one value that did change, with nothing current said to be lifted, passes.
    expect(verifySummary({ summary: `${clean}\nThe pin moved from y==1 to y==2 after the build broke.`, items, slot: 200, tokenizer }).ok).toBe(true)
  })

  it('property: ok ⇔ non-empty ∧ tokens ≤ slot ∧ every item is a substring', () => {
    const piece = fc.constantFrom('src/a.ts', '4096', 'E1', ' ', '\n', 'and', 'x')
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }).map((p) => p.join('')), fc.subarray(['src/a.ts', '4096', 'E1']), fc.integer({ min: 0, max: 12 }), (summary, texts, slot) => {
        const result = verifySummary({ summary, items: texts.map((text) => item('identifier', text)), slot, tokenizer })
        const expected = summary.trim() !== '' && tokenizer.count(summary) <= slot && texts.every((text) => summary.includes(text))
        return result.ok === expected && result.missing.every((m) => !summary.includes(m.text))
      }),
      { numRuns: 300 },
    )
  })
})

describe('repairSummary', () => {
  const items = [item('path', 'src/app.ts'), item('number', '4096')]

  it('inserts missing items into the state block when they fit, and the result verifies', () => {
    const summary = `${renderStateBlock({ items: [items[0]!] })}\nThe agent edited the file.`
    const repair = repairSummary({ summary, missing: [items[1]!], slot: 100, tokenizer })
    expect(repair.kind).toBe('repaired')
    if (repair.kind !== 'repaired') return
    expect(verifySummary({ summary: repair.summary, items, slot: 100, tokenizer }).ok).toBe(true)
    expect(repair.summary.endsWith('\nThe agent edited the file.')).toBe(true)
  })

  it('adds a block to a summary that has none', () => {
    const repair = repairSummary({ summary: 'The agent edited the file.', missing: items, slot: 100, tokenizer })
    expect(repair.kind === 'repaired' && verifySummary({ summary: repair.summary, items, slot: 100, tokenizer }).ok).toBe(true)
  })

  it('refuses to repair when the items do not fit, or the summary is empty', () => {
    expect(repairSummary({ summary: 'The agent edited the file.', missing: items, slot: 8, tokenizer })).toMatchObject({ kind: 'unrepairable' })
    expect(repairSummary({ summary: ' ', missing: items, slot: 100, tokenizer })).toEqual({ kind: 'unrepairable', reason: 'summary is empty' })
  })
})

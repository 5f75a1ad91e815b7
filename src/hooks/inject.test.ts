import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ItemKind } from '../spec/estimator.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { parseStateBlock } from '../state-block/index.js'
import { renderInjection, renderKeepInstructions } from './inject.js'

// The priority order the issue asks for, written out plainly (not imported): constraints, decisions and pins
// (versions, and any value of a decision chain), errors, tool calls, literals, paths and urls, identifiers and values;
// superseded items after all current ones.
const SECTION_ORDER = ['constraints', 'decisions and pins', 'errors', 'tool calls', 'literals', 'paths and urls', 'identifiers and values']

function expectedRank(item: { kind: string; key?: string; status: string }): number {
  if (item.status === 'superseded') return 7
  if (item.kind === 'constraint') return 0
  if (item.kind === 'version' || item.key !== undefined) return 1
  if (item.kind === 'error') return 2
  if (item.kind === 'tool-argument') return 3
  if (item.kind === 'regex' || item.kind === 'quoted') return 4
  if (item.kind === 'path' || item.kind === 'url') return 5
  return 6
}

const KINDS: ItemKind[] = ['constraint', 'version', 'error', 'tool-argument', 'quoted', 'regex', 'path', 'url', 'identifier', 'number', 'hash', 'env']

const itemArbitrary = fc.record({
  kind: fc.constantFrom(...KINDS),
  text: fc.oneof(
    fc.stringMatching(/^[a-z0-9_./=-]{1,60}$/),
    fc.tuple(fc.stringMatching(/^[a-z0-9_./=-]{1,30}$/), fc.stringMatching(/^[a-z0-9_./=-]{1,30}$/)).map(([a, b]) => `${a}\n${b}`),
    fc.stringMatching(/^[a-z ]{200,400}$/).map((text) => `x${text}x`),
  ),
  superseded: fc.boolean(),
  keyed: fc.boolean(),
  message: fc.nat({ max: 30 }),
})

function toItems(raw: Array<{ kind: ItemKind; text: string; superseded: boolean; keyed: boolean; message: number }>): MustKeepItem[] {
  const seen = new Set<string>()
  const items: MustKeepItem[] = []
  for (const entry of raw) {
    if (seen.has(entry.text)) continue
    seen.add(entry.text)
    items.push({
      kind: entry.kind,
      text: entry.text,
      tokens: 1,
      message: entry.message,
      start: 0,
      end: entry.text.length,
      status: entry.superseded ? 'superseded' : 'current',
      ...(entry.keyed && entry.kind === 'version' ? { key: `pin:${entry.text.slice(0, 5)}` } : {}),
    })
  }
  return items
}

const FILE = '/state/sessions/claude-code/s/ledger.md'

describe('renderInjection', () => {
  it('fits the cap, quotes every shown item verbatim in priority order, and says how many are in the file', () => {
    fc.assert(
      fc.property(fc.array(itemArbitrary, { maxLength: 80 }), fc.integer({ min: 200, max: 5000 }), (raw, cap) => {
        const items = toItems(raw)
        const injection = renderInjection({ items, messages: [], cap, file: FILE, host: 'Claude Code', trigger: 'auto' })
        expect(injection.text.length).toBeLessThanOrEqual(cap)
        expect(injection.total).toBe(items.length)
        expect(injection.full).toContain(FILE)
        for (const item of items) expect(injection.full).toContain(item.text)
        const block = parseStateBlock(injection.text)
        if (!block) {
          // Not even the sentences fit: the text is the file's path, cut to the cap.
          expect(injection.shown).toBe(0)
          return
        }
        const shownTexts = block.entries.map((entry) => entry.text)
        expect(shownTexts.length).toBe(injection.shown)
        const shown = items.filter((item) => shownTexts.includes(item.text))
        expect(shown.length).toBe(injection.shown)
        const omitted = items.filter((item) => !shownTexts.includes(item.text))
        // Nothing left out ranks below anything shown.
        const worstShown = Math.max(-1, ...shown.map(expectedRank))
        const bestOmitted = Math.min(8, ...omitted.map(expectedRank))
        expect(worstShown).toBeLessThanOrEqual(bestOmitted)
        // Sections in the order.
        const sections = [...new Set(block.entries.map((entry) => entry.section))]
        expect(sections).toEqual(SECTION_ORDER.filter((section) => sections.includes(section)))
        if (items.length > 0) {
          expect(injection.text).toContain(
            injection.shown === items.length ? `All ${items.length} items are below; the same ledger is in ${FILE}.` : `${injection.shown} of the ${items.length} items are below, highest priority first; all ${items.length} are in ${FILE}.`,
          )
        }
      }),
      { numRuns: 150 },
    )
  })

  it('shows everything with full context when it fits, and names who said each item', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Never deploy on Fridays.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: 'make deploy' } }] },
    ]
    const items: MustKeepItem[] = [
      { kind: 'constraint', text: 'Never deploy on Fridays.', tokens: 6, message: 0, start: 0, end: 24, status: 'current' },
      { kind: 'tool-argument', text: 'make deploy', tokens: 2, message: 1, start: 13, end: 24, status: 'current' },
    ]
    const injection = renderInjection({ items, messages, cap: 9500, file: FILE, host: 'Claude Code' })
    expect(injection).toMatchObject({ shown: 2, total: 2, detail: 'full' })
    expect(injection.text).toContain('- [user #0] Never deploy on Fridays.')
    expect(injection.text.startsWith('[floorguard] State ledger of this Claude Code session: 2 items')).toBe(true)
  })

  it('states facts, gives no orders: no imperative verbs aimed at the model', () => {
    const items = toItems([{ kind: 'path', text: '/srv/a', superseded: false, keyed: false, message: 0 }])
    const { text } = renderInjection({ items, messages: [], cap: 9500, file: FILE, host: 'Codex CLI' })
    const prose = text.slice(0, text.indexOf('<floorguard-state'))
    expect(prose).not.toMatch(/\b(you must|must|always|never|ignore|do not|don't|follow|obey|remember)\b/i)
  })

  it('falls back to the path alone when the cap leaves no room for the sentences', () => {
    const items = toItems([{ kind: 'path', text: '/srv/a', superseded: false, keyed: false, message: 0 }])
    const injection = renderInjection({ items, messages: [], cap: 200, file: FILE, host: 'Claude Code' })
    expect(injection.shown).toBe(0)
    expect(injection.text.length).toBeLessThanOrEqual(200)
    expect(injection.text).toContain(FILE)
  })
})

describe('renderKeepInstructions', () => {
  it('asks the summarizer to copy a block of the highest-priority items, within the cap', () => {
    const items = toItems([
      { kind: 'identifier', text: 'job_42', superseded: false, keyed: false, message: 0 },
      { kind: 'constraint', text: 'Keep p95 under 200 ms.', superseded: false, keyed: false, message: 0 },
    ])
    const text = renderKeepInstructions({ items, messages: [], cap: 400 })
    expect(text.length).toBeLessThanOrEqual(400)
    expect(parseStateBlock(text)!.entries.map((entry) => entry.text)).toEqual(['Keep p95 under 200 ms.', 'job_42'])
    expect(renderKeepInstructions({ items: [], messages: [], cap: 400 })).toBe('')
  })
})

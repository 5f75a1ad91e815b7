import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { firstUses } from './_first-uses.js'
import { auditTranscript } from './audit.js'

let tokenizer: TokenizerV1
let estimator: FloorEstimatorV1
beforeAll(async () => {
  tokenizer = await createTokenizer('o200k_base')
  estimator = createEstimator({ name: 'full', tokenizer })
})

/** Builds a transcript from messages, pairing tool calls with results by id (fixtures are well formed). */
function transcriptOf(messages: Message[]): Transcript {
  const calls = new Map<string, { message: number; part: number }>()
  const pairs: Array<Transcript['pairs'][number]> = []
  messages.forEach((message, index) =>
    message.parts.forEach((part, position) => {
      if (part.type === 'tool-call') calls.set(part.id, { message: index, part: position })
      if (part.type === 'tool-result' && calls.has(part.callId)) pairs.push({ id: part.callId, call: calls.get(part.callId)!, result: { message: index, part: position } })
    }),
  )
  return { format: 'test', messages, pairs, unpaired: [] }
}

// Things `full` finds: paths, versions, errors, constraints; mixed into prose.
const VOCABULARY = [
  'src/app.ts',
  'src/db/pool.py',
  'config/prod.yaml',
  'numpy==1.26.4',
  'torch>=2.3',
  'https://example.com/api/v2',
  'Never push to main.',
  'ModuleNotFoundError: No module named yaml',
  'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
  '--max_steps 3000',
]

const word = fc.constantFrom(...VOCABULARY, 'then', 'look', 'at', 'it')
const sentence = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(' '))

/** One generated message: user or assistant text, a tool call with its result, reasoning, or a summary. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), text: sentence }),
  fc.record({ kind: fc.constant('assistant' as const), text: sentence }),
  fc.record({ kind: fc.constant('reasoning' as const), text: sentence }),
  fc.record({ kind: fc.constant('tool' as const), text: sentence, output: sentence }),
  fc.record({ kind: fc.constant('summary' as const), text: sentence }),
)

function build(steps: ReadonlyArray<{ kind: string; text: string; output?: string }>): Message[] {
  const messages: Message[] = []
  steps.forEach((entry, index) => {
    if (entry.kind === 'user') messages.push({ role: 'user', parts: [{ type: 'text', text: entry.text }] })
    else if (entry.kind === 'assistant') messages.push({ role: 'assistant', parts: [{ type: 'text', text: entry.text }] })
    else if (entry.kind === 'reasoning') messages.push({ role: 'assistant', parts: [{ type: 'reasoning', text: entry.text }] })
    else if (entry.kind === 'summary') messages.push({ role: 'user', parts: [{ type: 'summary', text: entry.text, source: 'test' }] })
    else {
      messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id: `c${index}`, name: 'Bash', arguments: { command: entry.text } }] })
      messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: `c${index}`, content: entry.output ?? '', isError: false }] })
    }
  })
  return messages
}

/**
 * The oracle, written plainly: summaries are messages with a summary part; a segment runs from the previous one
 * (included) to this one; an item survived when the summary text includes it; it was used again at the first later
 * message, before the next summary, whose user/assistant text part or tool-call argument value includes it.
 */
function oracle(messages: readonly Message[]) {
  const points: number[] = []
  messages.forEach((message, index) => {
    if (message.parts.some((part) => part.type === 'summary')) points.push(index)
  })
  return points.map((end, index) => {
    const start = index === 0 ? 0 : points[index - 1]!
    const next = points[index + 1] ?? messages.length
    const summary = messages[end]!.parts.map((part) => (part.type === 'summary' ? part.text : '')).join('\n\n')
    const items = estimator.estimate(messages.slice(start, end), start).items
    const usedAt = (text: string): number | null => {
      for (let m = end + 1; m < next; m++) {
        const message = messages[m]!
        for (const part of message.parts) {
          if (part.type === 'text' && (message.role === 'user' || message.role === 'assistant') && part.text.includes(text)) return m
          if (part.type === 'tool-call' && Object.values(part.arguments as Record<string, string>).some((value) => value.includes(text))) return m
        }
      }
      return null
    }
    const lost = items.filter((item) => !summary.includes(item.text)).map((item) => ({ kind: item.kind, text: item.text, usedAgainAt: usedAt(item.text) }))
    return {
      message: end,
      replaced: [start, end],
      items: items.length,
      survived: items.length - lost.length,
      futureReferenced: items.filter((item) => usedAt(item.text) !== null).length,
      futureLost: lost.filter((item) => item.usedAgainAt !== null).length,
      lost,
    }
  })
}

describe('auditTranscript', () => {
  it('survival and future reference agree with a plain oracle on generated sessions', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => {
        const messages = build(steps)
        const audit = auditTranscript(transcriptOf(messages), { estimator, tokenizer })
        const got = audit.summaries.map((summary) => ({
          message: summary.message,
          replaced: [...summary.replaced],
          items: summary.items,
          survived: summary.survived,
          futureReferenced: summary.futureReferenced,
          futureLost: summary.futureLost,
          lost: summary.lost.map((item) => ({ ...item })),
        }))
        expect(got).toEqual(oracle(messages))
        for (const summary of audit.summaries) expect(summary.survival).toBe(summary.items === 0 ? null : summary.survived / summary.items)
      }),
      { numRuns: 150, seed: 14 },
    )
  })

  it('a session that lost a constraint and used it again: the verdict, the place of use and the planner at the summary size', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Never push to main. Fix src/app.ts and pin numpy==1.26.4.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: 'pytest tests/test_app.py' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'ModuleNotFoundError: No module named yaml', isError: true }] },
      { role: 'user', parts: [{ type: 'summary', text: 'We are fixing src/app.ts.', source: 'claude-code' }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'x', content: 'numpy==1.26.4 printed by a tool is not a use', isError: false }] },
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'Never push to main. (thinking is not a use)' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Remember: Never push to main.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'Bash', arguments: { command: 'pip install numpy==1.26.4' } }] },
    ]
    const [summary] = auditTranscript(transcriptOf(messages), { estimator, tokenizer }).summaries
    expect(summary).toBeDefined()
    expect(summary!.replaced).toEqual([0, 3])
    const byText = new Map(summary!.lost.map((item) => [item.text, item]))
    expect(byText.get('Never push to main.')).toMatchObject({ kind: 'constraint', usedAgainAt: 6 })
    expect(byText.get('numpy==1.26.4')?.usedAgainAt).toBe(7)
    expect(byText.has('src/app.ts')).toBe(false)
    expect(summary!.counterfactual).toBe(true)
    expect(summary!.counterfactualReasons).toContain('constraint')
    expect(summary!.counterfactualReasons).toContain('error')
    expect(summary!.summaryTokens).toBe(tokenizer.count('We are fixing src/app.ts.'))
    expect(summary!.floor).toBe(estimator.estimate(messages.slice(0, 3), 0).total)
    // A summary far smaller than the floor: floorguard would not have compacted this segment into it whole.
    expect(summary!.decision).not.toBe('compact')
  })

  it('a summary that kept everything is no counterfactual and the planner compacts at its size', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Fix src/app.ts.' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Looking at src/app.ts now, it is long enough to be worth summarizing in one line.' }] },
      { role: 'user', parts: [{ type: 'summary', text: 'Working on src/app.ts; nothing else is state. '.repeat(8), source: 'codex' }] },
    ]
    const [summary] = auditTranscript(transcriptOf(messages), { estimator, tokenizer }).summaries
    expect(summary).toMatchObject({ survived: summary!.items, survival: 1, counterfactual: false, counterfactualReasons: [], lost: [] })
    expect(summary!.items).toBeGreaterThan(0)
  })

  it('without summaries: compactions at the high-water mark, each planned at the slot', () => {
    const big = (index: number) => `step ${index}: edited src/module${index}.ts and ran make test-${index}. ${'word '.repeat(3000)}`
    const messages: Message[] = Array.from({ length: 60 }, (_, index) => ({ role: index % 2 === 0 ? ('user' as const) : ('assistant' as const), parts: [{ type: 'text' as const, text: big(index) }] }))
    const audit = auditTranscript(transcriptOf(messages), { estimator, tokenizer, slot: 50 })
    expect(audit.summaries).toEqual([])
    expect(audit.cuts.length).toBeGreaterThan(0)
    for (const cut of audit.cuts) expect(cut.floor).toBeGreaterThan(50)
    expect(audit.wouldSplit + audit.wouldRefuse).toBe(audit.cuts.length)
    const small = auditTranscript(transcriptOf(messages.slice(0, 2)), { estimator, tokenizer })
    expect(small.cuts).toEqual([])
  })
})

describe('firstUses', () => {
  it('agrees with indexOf over every piece, on a small alphabet that makes texts overlap', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 6 })
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 30 }), { maxLength: 6 }), (texts, pieces) => {
        const expected = texts.map((needle) => {
          if (needle.length === 0) return -1
          const found = pieces.findIndex((piece) => piece.indexOf(needle) !== -1)
          return found === -1 ? -1 : found * 10
        })
        expect([...firstUses(texts, pieces.map((piece, index) => ({ text: piece, message: index * 10 })))]).toEqual(expected)
      }),
      { numRuns: 400, seed: 7 },
    )
  })

  it('agrees with indexOf for texts sharing long prefixes', () => {
    const head = 'ab'.repeat(16)
    const tail = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 5 })
    const text = fc.oneof(tail, tail.map((rest) => head + rest), tail.map((rest) => `c${head}${rest}`))
    const piece = fc.array(fc.oneof(tail, fc.constant(head)), { maxLength: 6 }).map((chunks) => chunks.join(''))
    fc.assert(
      fc.property(fc.array(text, { maxLength: 10 }), fc.array(piece, { maxLength: 5 }), (texts, pieces) => {
        const expected = texts.map((needle) => (needle.length === 0 ? -1 : pieces.findIndex((haystack) => haystack.indexOf(needle) !== -1)))
        expect([...firstUses(texts, pieces.map((haystack, index) => ({ text: haystack, message: index })))]).toEqual(expected)
      }),
      { numRuns: 400, seed: 11 },
    )
  })
})

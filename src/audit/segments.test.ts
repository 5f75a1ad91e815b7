import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { auditTranscript } from './audit.js'
import { openingStateBlock, replacedSegments } from './segments.js'
import { findSummaries } from './summaries.js'

let tokenizer: TokenizerV1
let estimator: FloorEstimatorV1
beforeAll(async () => {
  tokenizer = await createTokenizer('o200k_base')
  estimator = createEstimator({ name: 'full', tokenizer })
})

const transcriptOf = (messages: Message[]): Transcript => ({ format: 'test', messages, pairs: [], unpaired: [] })
const text = (role: Message['role'], value: string): Message => ({ role, parts: [{ type: 'text', text: value }] })
const block = (range?: string) => `<floorguard-state v="2"${range === undefined ? '' : ` range="${range}" tokens="9"`}>\n## state\n- src/app.ts\n</floorguard-state>`

describe('openingStateBlock', () => {
  it('reads the range and tokens of the opening line, null when named badly or not at all', () => {
    expect(openingStateBlock(`${block('12-40')}\n\ngist`)).toEqual({ range: [12, 40], tokens: 9 })
    expect(openingStateBlock(`\n  ${block()}`)).toEqual({ range: null, tokens: null })
    expect(openingStateBlock('<floorguard-state v="2" range="40-12" tokens="x">\n</floorguard-state>')).toEqual({ range: null, tokens: null })
    expect(openingStateBlock('<floorguard-state v="1">\n</floorguard-state>')).toEqual({ range: null, tokens: null })
    // A host's summary that quotes a block further down was not written by floorguard.
    expect(openingStateBlock(`This session is being continued.\n${block('0-3')}`)).toBeUndefined()
  })
})

/**
 * A session as compactors write it, with what each summary replaced known by construction: `say` appends a message;
 * `host` appends a host summary that replaces every live message since the previous host summary (included), the
 * system prompt aside; `floorguard` rewrites a live range into 1 to 3 state blocks (a split), the blocks naming their
 * parts' ranges (or none, the flat layout), as compact does.
 */
type Step = { kind: 'say' } | { kind: 'host' } | { kind: 'floorguard'; from: number; length: number; parts: number; ranged: boolean }
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'say' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'host' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('floorguard' as const), from: fc.nat(50), length: fc.nat(50), parts: fc.integer({ min: 1, max: 3 }), ranged: fc.boolean() }) },
)

function simulate(system: number, steps: readonly Step[]) {
  const file: Array<{ id: number; message: Message }> = []
  const truth = new Map<number, { kind: 'host'; replaced: number[] } | { kind: 'floorguard' }>()
  let next = 0
  const add = (message: Message) => ({ id: next++, message })
  for (let index = 0; index < system; index++) file.push(add(text('system', `Never push to main ${index}.`)))
  let lastHost = -1
  for (const entry of steps) {
    if (entry.kind === 'say') file.push(add(text(next % 2 === 0 ? 'user' : 'assistant', `edit src/file${next}.ts`)))
    else if (entry.kind === 'host') {
      const start = lastHost >= 0 ? lastHost : system
      const summary = add({ role: 'user', parts: [{ type: 'summary', text: `host summary ${next}`, source: 'host' }] })
      truth.set(summary.id, { kind: 'host', replaced: file.slice(start).map((item) => item.id) })
      lastHost = file.length
      file.push(summary)
    } else {
      const low = Math.max(system, lastHost + 1)
      if (file.length <= low) continue
      const from = low + (entry.from % (file.length - low))
      const to = from + 1 + (entry.length % (file.length - from))
      const parts = Math.min(entry.parts, to - from)
      const blocks = Array.from({ length: parts }, (_, part) => {
        const start = from + Math.floor(((to - from) * part) / parts)
        const end = from + Math.floor(((to - from) * (part + 1)) / parts)
        const item = add(text('user', block(entry.ranged ? `${start}-${end}` : undefined)))
        truth.set(item.id, { kind: 'floorguard' })
        return item
      })
      file.splice(from, to - from, ...blocks)
    }
  }
  return { file, truth }
}

describe('replacedSegments', () => {
  it('agrees with what each compaction replaced by construction: floorguard split parts are siblings over nothing of the file, a host summary replaced the live messages since the previous one, never the system prompt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), fc.array(step, { maxLength: 40 }), (system, steps) => {
        const { file, truth } = simulate(system, steps)
        const transcript = transcriptOf(file.map((item) => item.message))
        const points = findSummaries(transcript)
        expect(points.map((point) => file[point.message]!.id)).toEqual(file.filter((item) => truth.has(item.id)).map((item) => item.id))
        replacedSegments(transcript, points).forEach((segment, index) => {
          const expected = truth.get(file[points[index]!.message]!.id)!
          if (expected.kind === 'floorguard') {
            expect(segment.notInFile).toBeDefined()
            expect(segment.start).toBe(segment.end)
          } else {
            expect(segment.notInFile).toBeUndefined()
            expect(file.slice(segment.start, segment.end).map((item) => item.id)).toEqual(expected.replaced)
          }
        })
      }),
      { numRuns: 300 },
    )
  })

  it('a block whose range ends before it (a host summary that opens with a copied block) is audited over its range as any summary', () => {
    const messages = [text('user', 'edit src/a.ts'), text('assistant', 'done'), text('user', block('0-2'))]
    expect(replacedSegments(transcriptOf(messages), findSummaries(transcriptOf(messages)))).toEqual([{ start: 0, end: 2 }])
  })
})

const rollout = (records: readonly unknown[]) => `${records.map((record) => JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', ...(record as object) })).join('\n')}\n`
const item = (role: string, value: string) => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: value }] })
const response = (payload: unknown) => ({ type: 'response_item', payload })

describe('auditTranscript: what a compaction kept is not what it replaced', () => {
  it('Codex keeps the user messages in replacement_history: their items survived; the tool error it dropped did not', async () => {
    const constraint = 'Never push to main.'
    const error = 'ModuleNotFoundError: No module named yaml'
    const transcript = await readTranscript(
      sourceFromString(
        'rollout.jsonl',
        rollout([
          { type: 'session_meta', payload: { id: 's', cwd: '/tmp' } },
          response(item('developer', 'You are Codex.')),
          response(item('user', 'Fix src/app.py.')),
          response({ type: 'function_call', name: 'shell', call_id: 'c1', arguments: JSON.stringify({ command: ['pytest', 'tests/test_app.py'] }) }),
          response({ type: 'function_call_output', call_id: 'c1', output: error }),
          response(item('user', constraint)),
          response(item('assistant', 'Fixed src/app.py.')),
          {
            type: 'compacted',
            payload: { message: 'Fixed src/app.py.', replacement_history: [item('developer', 'You are Codex.'), item('user', 'Fix src/app.py.'), item('user', constraint), item('user', 'Fixed src/app.py.')] },
          },
          response(item('user', 'Run pytest tests/test_app.py again.')),
        ]),
      ),
      { format: 'codex' },
    )
    const [summary] = auditTranscript(transcript, { estimator, tokenizer }).summaries
    // The system prompt and the kept user message open the segment: it starts at the tool call. The constraint's
    // user message, kept too, lies inside it: its item survived.
    expect(summary!.replaced).toEqual([2, 6])
    expect(summary!.lost.map((lost) => lost.text)).toContain(error)
    expect(summary!.lost.map((lost) => lost.text)).not.toContain(constraint)
    expect(summary!.counterfactualReasons).toEqual(['error'])
  })

  it('Codex: a compaction whose replacement_history keeps the previous summary is its sibling, not its successor', async () => {
    const first = 'Part one: pinned numpy==1.26.4 in requirements.txt.'
    const transcript = await readTranscript(
      sourceFromString(
        'rollout.jsonl',
        rollout([
          { type: 'compacted', payload: { message: first, replacement_history: [item('user', first)] } },
          { type: 'event_msg', payload: { type: 'context_compacted' } },
          { type: 'compacted', payload: { message: 'Part two: renamed FOO_LIMIT.', replacement_history: [item('user', first), item('user', 'Part two: renamed FOO_LIMIT.')] } },
          { type: 'event_msg', payload: { type: 'context_compacted' } },
          response(item('user', 'Go on.')),
        ]),
      ),
      { format: 'codex' },
    )
    const summaries = auditTranscript(transcript, { estimator, tokenizer }).summaries
    expect(summaries.map((summary) => summary.replaced)).toEqual([
      [0, 0],
      [1, 1],
    ])
    expect(summaries[1]!.lost).toEqual([])
  })

  it("floorguard's own summary after a kept system prompt replaced nothing of the file (a re-test: the system prompt's constraint was reported lost)", () => {
    const messages = [
      text('system', 'Never push to main. Always run the tests with --max_steps 3000.'),
      text('user', `${block('1-7')}\n\nuser: fix src/app.ts`),
      text('user', 'Now run the tests with --max_steps 3000.'),
    ]
    const [summary] = auditTranscript(transcriptOf(messages), { estimator, tokenizer }).summaries
    expect(summary).toMatchObject({ replaced: [1, 1], items: 0, lost: [], counterfactual: false, replacedNotInFile: { range: [1, 7], tokens: 9 } })
  })

  it("floorguard's own summary over messages not in the file has no floor and no decision (a re-test, I4: floor 0, decision compact)", () => {
    const messages = [text('user', 'Edit src/app.ts.'), text('user', `${block('1-7')}\n\nuser: fix src/app.ts`), text('user', 'Run the tests.')]
    const [summary] = auditTranscript(transcriptOf(messages), { estimator, tokenizer }).summaries
    expect(summary!.replacedNotInFile).toEqual({ range: [1, 7], tokens: 9 })
    const json = JSON.parse(JSON.stringify(summary)) as Record<string, unknown>
    expect(json).toMatchObject({ floor: null, decision: null })
    expect('parts' in json || 'reason' in json).toBe(false)
  })

  it("a host's summary keeps the system prompt: its constraint is not part of what the summary replaced", () => {
    const messages: Message[] = [
      text('system', 'Never push to main.'),
      text('user', 'Edit src/app.ts.'),
      { role: 'user', parts: [{ type: 'summary', text: 'Edited src/app.ts.', source: 'host' }] },
    ]
    const [summary] = auditTranscript(transcriptOf(messages), { estimator, tokenizer }).summaries
    expect(summary!.replaced).toEqual([1, 2])
    expect(summary!.counterfactual).toBe(false)
  })

  it("uses after a host summary run past floorguard's own summaries, which are no use of anything", () => {
    const messages: Message[] = [
      text('user', 'Edit src/app.ts.'),
      { role: 'user', parts: [{ type: 'summary', text: 'Done.', source: 'host' }] },
      text('user', block('2-4')),
      text('user', 'Open src/app.ts again.'),
    ]
    const [host, own] = auditTranscript(transcriptOf(messages), { estimator, tokenizer }).summaries
    expect(host!.lost).toEqual([{ kind: 'path', text: 'src/app.ts', usedAgainAt: 3 }])
    expect(own!.replacedNotInFile).toBeDefined()
  })
})

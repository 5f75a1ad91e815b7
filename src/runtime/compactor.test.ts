import { describe, expect, it } from 'vitest'
import type { SummarizeRequest, SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import { codingSession, PLANTED } from './__fixtures__/session.js'
import { createCompactor } from './compactor.js'
import type { CompactorEvent, CompactorResult, LayoutEntry } from './types.js'

/** One token per character: context sizes below are plain arithmetic on the texts. */
const chars: TokenizerV1 = { specificationVersion: 'v1', name: 'chars', exact: true, count: (text) => text.length }

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] })
const system = (text: string): Message => ({ role: 'system', parts: [{ type: 'text', text }] })
const callMessage = (id: string, name: string, args: unknown): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id, name, arguments: args }] })
const resultMessage = (id: string, content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content, isError }] })

const prose = (n: number) => 'we talked about the layout of the page and how it reads on a phone. '.repeat(n)

/** Plain walk of a layout: every input index it covers, in order (summary ranges expanded). */
function covered(layout: readonly LayoutEntry[]): number[] {
  const indices: number[] = []
  for (const entry of layout) {
    if (entry.kind === 'summary') for (let index = entry.range[0]; index < entry.range[1]; index++) indices.push(index)
    else indices.push(entry.index)
  }
  return indices
}

function summaryTexts(result: CompactorResult): string[] {
  return result.layout.flatMap((entry) => (entry.kind === 'summary' ? [entry.text] : []))
}

/** A summarizer that records its requests and delegates (or answers with a fixed text). */
function recording(answer?: (request: SummarizeRequest) => string): SummarizerV1 & { requests: SummarizeRequest[] } {
  const requests: SummarizeRequest[] = []
  return {
    specificationVersion: 'v1',
    name: 'recording',
    requests,
    async summarize(request) {
      requests.push(request)
      if (answer) return { kind: 'summary', text: answer(request) }
      const lines = request.groups.flatMap((group) => group.items.map((item) => `- [${item.status}] ${item.text}`))
      return { kind: 'summary', text: `<floorguard-state v="2">\n${lines.join('\n')}\n</floorguard-state>` }
    },
  }
}

describe('trigger', () => {
  const messages = [system('S'.repeat(50)), user(prose(2)), assistant(prose(2)), user(prose(2)), assistant(prose(2)), user('ok')]
  const total = messages.reduce((sum, message) => sum + (message.parts[0] as { text: string }).text.length, 0)

  it('below ⌊highWaterMark × budget⌋ returns the input array itself, no events, every message kept', async () => {
    // threshold = floor(0.5 × budget) = total + 1
    const compactor = createCompactor({ tokenizer: chars, budget: 2 * (total + 1), highWaterMark: 0.5 })
    const result = await compactor.maybeCompact(messages)
    expect(result.kind).toBe('unchanged')
    expect(result.messages).toBe(messages)
    expect(result.events).toEqual([])
    expect(covered(result.layout)).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('at the threshold it starts a compaction, with the context tokens, budget and threshold in the event', async () => {
    const compactor = createCompactor({ tokenizer: chars, budget: 2 * total, highWaterMark: 0.5, slot: 400 })
    const result = await compactor.maybeCompact(messages)
    const start = result.events.find((event) => event.type === 'compaction-start')
    expect(start).toMatchObject({ contextTokens: total, budget: 2 * total, threshold: total })
    expect(result.kind).not.toBe('unchanged')
  })
})

describe('selection', () => {
  it('takes the oldest 40% of the turns, never the system prompt', async () => {
    // 5 turns of [user, assistant]: ⌊0.4 × 5⌋ = 2 turns = messages 1..4.
    const messages = [system('You are terse.'), ...Array.from({ length: 5 }, (_, turn) => [user(`turn ${turn}. ${prose(3)}`), assistant(prose(3))]).flat()]
    const compactor = createCompactor({ tokenizer: chars, budget: 100, slot: 400 })
    const result = await compactor.maybeCompact(messages)
    expect(result.events[0]).toMatchObject({ type: 'compaction-start', range: [1, 5] })
    expect(result.layout[0]).toEqual({ kind: 'kept', index: 0 })
  })

  it('moves the end back so a tool call and its result, and an error and its fix, stay on one side', async () => {
    // Turns start at 1, 3 (assistant after a tool), 5, 7, 9…: the natural cut at 5 would split the npm test failure
    // (3-4) from its fix (5-6), an error-fix unit.
    const messages = [
      system('sys'),
      user(`run the tests. ${prose(2)}`),
      callMessage('a', 'bash', { command: 'npm test' }),
      resultMessage('a', 'FAIL src/x.test.ts\nExit code: 1', true),
      callMessage('b', 'bash', { command: 'npm test' }),
      resultMessage('b', 'PASS src/x.test.ts\nExit code: 0'),
      assistant(`fixed. ${prose(2)}`),
      user(`next. ${prose(2)}`),
      assistant(prose(2)),
      user(`more. ${prose(2)}`),
      assistant(prose(2)),
      user('and more'),
      assistant(prose(2)),
    ]
    const compactor = createCompactor({ tokenizer: chars, budget: 100, slot: 2000, compactFraction: 0.4 })
    const result = await compactor.maybeCompact(messages)
    const start = result.events.find((event) => event.type === 'compaction-start')!
    if (start.type !== 'compaction-start') throw new Error('unreachable')
    const [from, to] = start.range
    expect(from).toBe(1)
    // The failing call (2) and the fixing result (5) are on the same side of the cut.
    expect(to <= 2 || to >= 6).toBe(true)
  })
})

describe('incremental cache', () => {
  it('a call after one new message computes one message; a call with nothing new computes none', async () => {
    const session = codingSession({ turns: 20 })
    const compactor = createCompactor({ budget: 1_000_000 })
    await compactor.maybeCompact(session.slice(0, 40))
    expect(compactor.stats.computedMessages).toBe(40)
    await compactor.maybeCompact(session.slice(0, 41))
    expect(compactor.stats).toMatchObject({ calls: 2, computedMessages: 1, cachedMessages: 40 })
    await compactor.maybeCompact(session.slice(0, 41))
    expect(compactor.stats).toMatchObject({ computedMessages: 0, cachedMessages: 41 })
  })

  it('a message mutated in place is counted and extracted again (its new content reaches the summary)', async () => {
    const messages = [system('sys'), user(`first. ${prose(3)}`), assistant(prose(3)), user(`second. ${prose(3)}`), assistant(prose(3)), user('third'), assistant('ok')]
    const compactor = createCompactor({ tokenizer: chars, budget: 100_000, slot: 600 })
    expect((await compactor.maybeCompact(messages)).kind).toBe('unchanged')
    // A caller that edits a message object in place (streaming into it): the cache must notice.
    const edited = messages[2] as unknown as { parts: Array<{ type: 'text'; text: string }> }
    edited.parts[0]!.text = `Saved the key to /srv/app/keys/deploy_ed25519.pub for later. ${prose(1300)}`
    const result = await compactor.maybeCompact(messages)
    expect(compactor.stats.computedMessages).toBe(1)
    expect(result.kind).toBe('compacted')
    expect(summaryTexts(result).join('\n')).toContain('/srv/app/keys/deploy_ed25519.pub')
  })

  it('a message whose parts array was replaced is recomputed', async () => {
    const messages = [user('a'), assistant('b')]
    const compactor = createCompactor({ tokenizer: chars, budget: 1000 })
    await compactor.maybeCompact(messages)
    ;(messages[1] as { parts: unknown }).parts = [{ type: 'text', text: 'c'.repeat(900) }]
    const result = await compactor.maybeCompact(messages)
    expect(compactor.stats.computedMessages).toBe(1)
    expect(result.events[0]).toMatchObject({ type: 'compaction-start', contextTokens: 901 })
  })
})

/** A segment whose one user message holds more constraint sentences than a 300-token slot can take. */
function overFloor(): Message[] {
  const rules = Array.from({ length: 40 }, (_, index) => `Never write to /srv/data/shard_${index}/index_${index * 7}.bin without the lock file lock_${index}.pid.`).join(' ')
  return [system('sys'), user(rules), assistant(prose(40)), user(`next ${prose(40)}`), assistant(prose(40)), user(`more ${prose(40)}`), assistant(prose(40)), user('go')]
}

describe('policies', () => {
  it('keep: the segment stays raw, a typed signal with the numbers, and whether the context overflows anyway', async () => {
    const messages = overFloor()
    const events: CompactorEvent[] = []
    const compactor = createCompactor({ budget: 2_000, slot: 300, onEvent: (event) => events.push(event) })
    const result = await compactor.maybeCompact(messages)
    expect(result.kind).toBe('refused')
    expect(result.messages).toBe(messages)
    const signal = result.signal!
    expect(signal.type).toBe('budget-infeasible')
    expect(signal.floor).toBeGreaterThan(signal.slot)
    expect(signal.slot).toBe(300)
    const start = events.find((event) => event.type === 'compaction-start')!
    if (start.type !== 'compaction-start') throw new Error('unreachable')
    expect(signal.contextTokens).toBe(start.contextTokens)
    expect(signal.willOverflow).toBe(start.contextTokens > 2_000)
    expect(signal.overflowBy).toBe(Math.max(0, start.contextTokens - 2_000))
    expect(signal.options.some((option) => /raise the slot to \d+/.test(option))).toBe(true)
    expect(events.map((event) => event.type)).toEqual(['compaction-start', 'plan-end', 'refusal', 'compaction-end'])
    expect(events.find((event) => event.type === 'refusal')).toMatchObject({ policy: 'keep' })
  })

  it('raise-slot: the smallest slot that plans, when within the cap; never past it', async () => {
    const messages = overFloor()
    const refused = await createCompactor({ budget: 2_000, slot: 300 }).maybeCompact(messages)
    const needed = Number(/raise the slot to (\d+)/.exec(refused.signal!.options.join(' '))![1])
    const within = await createCompactor({ budget: 2_000, slot: 300, policy: { kind: 'raise-slot', cap: needed } }).maybeCompact(messages)
    expect(within.kind === 'compacted' || within.kind === 'split').toBe(true)
    const plans = within.events.filter((event) => event.type === 'plan-end')
    expect(plans.at(-1)).toMatchObject({ slot: needed })
    const below = await createCompactor({ budget: 2_000, slot: 300, policy: { kind: 'raise-slot', cap: needed - 1 } }).maybeCompact(messages)
    expect(below.kind).toBe('refused')
    expect(below.messages).toBe(messages)
    expect(below.signal!.options.join(' ')).toContain(`cap ${needed - 1}`)
  })

  it('accept-risk: compacts into the slot anyway, and compaction-end lists exactly the items the summary lost', async () => {
    const messages = overFloor()
    const result = await createCompactor({ budget: 2_000, slot: 300, policy: 'accept-risk' }).maybeCompact(messages)
    expect(result.kind).toBe('compacted')
    const text = summaryTexts(result)[0] ?? ''
    const end = result.events.find((event) => event.type === 'compaction-end')!
    if (end.type !== 'compaction-end') throw new Error('unreachable')
    expect(end.lost!.length).toBeGreaterThan(0)
    for (const item of end.lost!) expect(text).not.toContain(item.text)
    // Every constraint sentence of the segment that the summary does not hold is listed (plain split, not the estimator).
    const sentences = (messages[1]!.parts[0] as { text: string }).text.match(/Never write[^.]*\.bin[^.]*\.pid\./g)!
    const lostTexts = new Set(end.lost!.map((item) => item.text))
    for (const sentence of sentences) expect(text.includes(sentence) || lostTexts.has(sentence)).toBe(true)
    expect(result.signal?.type).toBe('budget-infeasible')
  })

  /** A selection refused at slot 300 (its first message alone exceeds it), with tool outputs of every kind after it. */
  function withOutputs(): Message[] {
    const file = (n: number) => Array.from({ length: 60 }, (_, line) => `export const v${line} = ${n} * ${line} // the value of row ${line}`).join('\n')
    return [
      system('sys'),
      overFloor()[1]!,
      callMessage('r1', 'read_file', { path: 'src/a.ts' }), // 2
      resultMessage('r1', file(1)), // 3: read-only, never edited: masked
      callMessage('x', 'read_file', { path: 'src/c.ts' }), // 4
      resultMessage('x', `Error: ENOENT: no such file or directory, open 'src/c.ts'\n${file(3)}`, true), // 5: an error: kept
      callMessage('r2', 'read_file', { path: 'src/b.ts' }), // 6
      resultMessage('r2', file(2)), // 7: src/b.ts is edited at 12: kept
      callMessage('g', 'bash', { command: 'git log --oneline -n 40' }), // 8
      resultMessage('g', Array.from({ length: 40 }, (_, line) => `${(0xabc000 + line).toString(16)} commit number ${line} of the history`).join('\n')), // 9: masked
      callMessage('t', 'bash', { command: 'npm test' }), // 10
      resultMessage('t', `PASS ${prose(30)}`), // 11: a call with effects: kept
      callMessage('e', 'edit_file', { path: 'src/b.ts', old: 'v1', new: 'v2' }), // 12
      resultMessage('e', 'edited src/b.ts'), // 13
      assistant(prose(5)), user(`next ${prose(5)}`), assistant(prose(5)), user(`more ${prose(5)}`), assistant(prose(5)), user('go'),
    ]
  }

  it('other-segment: compacts the range the planner proposes instead, under the full checks', async () => {
    const messages = withOutputs()
    const result = await createCompactor({ budget: 2_000, slot: 300, compactFraction: 0.6, policy: 'other-segment' }).maybeCompact(messages)
    const proposed = /compact (\d+):(\d+) instead/.exec(result.signal!.options.join(' '))!
    expect(result.kind).toBe('compacted')
    expect(result.layout.find((entry) => entry.kind === 'summary')).toMatchObject({ range: [Number(proposed[1]), Number(proposed[2])] })
    expect(covered(result.layout)).toEqual(messages.map((_, index) => index))
    // It frees about what the option said: compacted at the slot the option was priced with, not filled to the
    // configured slot by the gist (a re-test: an option freeing 416 tokens freed 19).
    const frees = Number(/frees (\d+) tokens/.exec(result.signal!.options.join(' '))![1])
    const freed = result.events.find((event) => event.type === 'compaction-end')
    if (freed?.type !== 'compaction-end') throw new Error('no compaction-end')
    expect(freed.contextTokensBefore - freed.contextTokensAfter).toBeGreaterThanOrEqual(frees)
  })

  it('other-segment: else masks old read-only outputs, never an error, a read of a file edited later, or a call with effects', async () => {
    const messages = withOutputs()
    const before = JSON.stringify(messages)
    // A summarizer that never produces a summary: no range can be compacted, so masking is what is left.
    const result = await createCompactor({ budget: 2_000, slot: 300, compactFraction: 0.6, policy: 'other-segment', summarizer: recording(() => '') }).maybeCompact(messages)
    // Every output of the selection is a candidate: 3, 5, 7, 9, 11 and 13 lie inside it.
    expect(result.events[0]).toMatchObject({ type: 'compaction-start', range: [1, 14] })
    const masked = result.layout.filter((entry) => entry.kind === 'masked').map((entry) => (entry.kind === 'masked' ? entry.index : -1))
    expect(masked).toEqual([3, 9])
    expect(result.kind).toBe('refused')
    expect(covered(result.layout)).toEqual(messages.map((_, index) => index))
    const placeholder = result.layout.find((entry) => entry.kind === 'masked')!
    if (placeholder.kind !== 'masked') throw new Error('unreachable')
    expect(placeholder.text).toContain('read_file src/a.ts')
    const maskedMessage = result.messages[result.layout.indexOf(placeholder)]!
    expect(maskedMessage.parts[0]).toMatchObject({ type: 'tool-result', callId: 'r1', content: placeholder.text })
    expect(result.events.find((event) => event.type === 'compaction-end')).toMatchObject({ kind: 'refused', masked: [3, 9] })
    expect(JSON.stringify(messages)).toBe(before)
  })
})

describe('overflow', () => {
  it('a compaction that still leaves the context over the budget returns a signal saying by how much', async () => {
    // The newest turn alone is bigger than the budget: compaction helps, but not enough.
    const messages = [system('sys'), user(`first ${prose(10)}`), assistant(prose(10)), user(`second ${prose(10)}`), assistant(prose(10)), user(`third ${prose(10)}`), assistant('x'.repeat(3_000))]
    const result = await createCompactor({ tokenizer: chars, budget: 2_000, slot: 400 }).maybeCompact(messages)
    expect(result.kind).toBe('compacted')
    const end = result.events.at(-1)!
    if (end.type !== 'compaction-end') throw new Error('unreachable')
    const after = result.messages.reduce((sum, message) => sum + message.parts.reduce((inner, part) => inner + (part.type === 'text' || part.type === 'summary' ? part.text.length : 0), 0) + message.parts.length - 1, 0)
    expect(end.contextTokensAfter).toBe(after)
    expect(result.signal).toMatchObject({ type: 'budget-infeasible', willOverflow: true, overflowBy: after - 2_000 })
  })

  it('nothing to select (one message over the budget): refused, and the signal says the context overflows by its excess', async () => {
    const messages = [user('y'.repeat(2_500))]
    const result = await createCompactor({ tokenizer: chars, budget: 2_000 }).maybeCompact(messages)
    expect(result.kind).toBe('refused')
    expect(result.messages).toBe(messages)
    expect(result.signal).toMatchObject({ willOverflow: true, overflowBy: 500, contextTokens: 2_500 })
    expect(result.events.map((event) => event.type)).toEqual(['compaction-start', 'refusal', 'compaction-end'])
  })
})

describe('checks off: the record naive compactor', () => {
  it('fixed slot, no floor, no verification: the summarizer gets no items and its text is taken as it comes', async () => {
    const messages = overFloor()
    const summarizer = recording(() => 'The user set some rules about files and we discussed the page layout.')
    const result = await createCompactor({ budget: 2_000, slot: 300, summarizer, checks: { floor: false, verify: false } }).maybeCompact(messages)
    expect(result.kind).toBe('compacted')
    expect(summarizer.requests).toHaveLength(1)
    expect(summarizer.requests[0]!.slot).toBe(300)
    expect(summarizer.requests[0]!.groups).toEqual([])
    expect(summaryTexts(result)).toEqual(['The user set some rules about files and we discussed the page layout.'])
    const summaryEnd = result.events.find((event) => event.type === 'summary-end')!
    if (summaryEnd.type !== 'summary-end') throw new Error('unreachable')
    expect(summaryEnd.survived).toBe(0)
    expect(summaryEnd.items).toBeGreaterThanOrEqual(40)
    const plan = result.events.find((event) => event.type === 'plan-end')
    expect(plan).toMatchObject({ decision: 'compact', slot: 300 })
  })

  it('with the checks on, the same summary fails verification, and only a repaired one holding every rule is used', async () => {
    const messages = overFloor()
    const summarizer = recording(() => 'The user set some rules about files and we discussed the page layout.')
    const result = await createCompactor({ budget: 2_000, slot: 20_000, summarizer }).maybeCompact(messages)
    const errors = result.events.filter((event) => event.type === 'verify-error')
    expect(errors.length).toBeGreaterThan(0)
    const text = summaryTexts(result).join('\n')
    const sentences = (messages[1]!.parts[0] as { text: string }).text.match(/Never write[^.]*\.bin[^.]*\.pid\./g)!
    expect(sentences).toHaveLength(40)
    if (result.kind === 'refused') expect(text).toBe('')
    else for (const sentence of sentences) expect(text).toContain(sentence)
  })
})

describe('events', () => {
  it('noun-verb names in order, call numbers, an injected clock, and result.events = what onEvent got in that call', async () => {
    let now = 1000
    const seen: CompactorEvent[] = []
    const session = codingSession({ turns: 40 })
    const compactor = createCompactor({ budget: 4_000, slot: 800, clock: () => (now += 5), onEvent: (event) => seen.push(event) })
    let context: readonly Message[] = []
    let compacted: CompactorResult | undefined
    for (const message of session) {
      const result = await compactor.maybeCompact([...context, message])
      context = result.messages
      if (result.kind === 'compacted' && !compacted) {
        compacted = result
        expect(seen.slice(-result.events.length)).toEqual(result.events)
      }
    }
    expect(compacted).toBeDefined()
    const types = compacted!.events.map((event) => event.type)
    expect(types).toEqual(['compaction-start', 'plan-end', 'summary-end', 'compaction-end'])
    const names = new Set(seen.map((event) => event.type))
    for (const name of names) expect(['compaction-start', 'plan-end', 'summary-end', 'verify-error', 'refusal', 'compaction-end']).toContain(name)
    const calls = new Set(compacted!.events.map((event) => event.call))
    expect(calls.size).toBe(1)
    for (const event of compacted!.events) expect(event.time % 5).toBe(0)
    const end = compacted!.events.at(-1)!
    if (end.type !== 'compaction-end') throw new Error('unreachable')
    expect(end.contextTokensAfter).toBeLessThan(end.contextTokensBefore)
  })
})

describe('earlier summaries', () => {
  it('compacting twice: the first summary current items survive the second, stale ones stay stale', async () => {
    const session = codingSession({ turns: 80, seed: 3 })
    const compactor = createCompactor({ budget: 6_000, slot: 1_200 })
    let context: readonly Message[] = []
    const summaries: string[] = []
    for (const message of session) {
      const result = await compactor.maybeCompact([...context, message])
      context = result.messages
      summaries.push(...summaryTexts(result))
      if (summaries.length >= 2) break
    }
    expect(summaries.length).toBeGreaterThanOrEqual(2)
    const second = summaries[1]!
    const lineOf = (text: string) => second.split('\n').find((line) => line.endsWith(text))
    // The planted state, set in the first window, carried into the second summary by the first.
    expect(lineOf(`"${PLANTED.regex}" exactly.`)).toBeDefined()
    expect(lineOf(PLANTED.currentPin)).toBeDefined()
    expect(lineOf(PLANTED.currentPin)).not.toMatch(/\[superseded/)
    expect(lineOf(PLANTED.stalePin)).toMatch(/\[superseded/)
    expect(second).toContain(PLANTED.errno)
  })

  it('another tool summary at the head is compacted with its state carried', async () => {
    const vendor: Message = { role: 'user', parts: [{ type: 'summary', source: 'claude-code', text: 'Earlier: the deploy key lives at /srv/app/keys/deploy_ed25519.pub and MAX_RETRIES=7 was agreed.' }] }
    const messages = [system('sys'), vendor, ...Array.from({ length: 4 }, (_, turn) => [user(`turn ${turn}. ${prose(20)}`), assistant(prose(20))]).flat(), user('go')]
    const result = await createCompactor({ budget: 2_000, slot: 600 }).maybeCompact(messages)
    expect(result.kind).toBe('compacted')
    const text = summaryTexts(result).join('\n')
    expect(text).toContain('/srv/app/keys/deploy_ed25519.pub')
    expect(text).toContain('MAX_RETRIES=7')
  })
})

describe('an earlier summary whose floor is now above the slot (a re-test: every later call refused)', () => {
  it('keeps the summary as it is and compacts the newer turns, call after call', async () => {
    const paths = Array.from({ length: 40 }, (_, index) => `/srv/app/module_${index}/config_${index}.yaml`).join(', ')
    const earlier: Message = { role: 'user', parts: [{ type: 'summary', source: 'claude-code', text: `Earlier: the services read ${paths}.` }] }
    const compactor = createCompactor({ budget: 2_000, slot: 400 })
    let context: readonly Message[] = [system('sys'), earlier]
    let compacted = 0
    let refusedInARow = 0
    for (let turn = 0; turn < 30; turn++) {
      const result = await compactor.maybeCompact([...context, user(`turn ${turn}: keep PORT=80${turn % 10} for now. ${prose(6)}`), assistant(prose(6))])
      // A refusal waits for a slot's worth of newer turns, never for good.
      refusedInARow = result.kind === 'refused' ? refusedInARow + 1 : 0
      expect(refusedInARow, `turn ${turn}`).toBeLessThan(3)
      if (result.kind === 'compacted' || result.kind === 'split') {
        compacted++
        // The earlier summary is kept as it is, right after the system prompt.
        expect(result.messages[1]).toBe(earlier)
      }
      context = result.messages
    }
    expect(compacted).toBeGreaterThan(5)
  })
})

describe('a state block larger than its part slot', () => {
  // The ledger's tightest block misses a small part's slot by a few tokens a few times in this session (4 times at
  // slot 600; which calls depends on every summary written before them). compactTranscript first gives the part
  // more of the slot within the budget; the runtime's one more plan with the whole slot per part comes after that.
  it('recovers instead of refusing the compaction: a larger part slot, or one more plan (300 turns, slot 600)', async () => {
    const compactor = createCompactor({ budget: 12_000, slot: 600 })
    let context: readonly Message[] = []
    let recovered = 0
    for (const message of codingSession({ turns: 300 })) {
      const result = await compactor.maybeCompact([...context, message])
      expect(result.kind).not.toBe('refused')
      const types = result.events.map((event) => event.type)
      const error = types.indexOf('verify-error')
      if (error !== -1) {
        recovered++
        expect(types.at(-1)).toBe('compaction-end')
        const plans = result.events.filter((event) => event.type === 'plan-end')
        if (types.indexOf('plan-end', error) !== -1) expect(plans).toHaveLength(2)
        else {
          const planned = plans[0]!.type === 'plan-end' && plans[0]!.decision === 'split' ? plans[0] : undefined
          expect(planned).toBeDefined()
          // A summary got more than its part's planned slot, never more than the configured one.
          const slots = result.events.flatMap((event) => (event.type === 'summary-end' ? [event.slot] : []))
          expect(Math.max(...slots)).toBeLessThanOrEqual(600)
        }
      }
      context = result.messages
    }
    expect(recovered).toBeGreaterThan(0)
  })
})

describe('a state block larger than its part slot, under a policy', () => {
  // A black-box re-test: a plan at the raised slot split, a small part's rounded slot was a few tokens short of its
  // block, and `raise-slot` kept the segment where more room per part fits. Two calls of this session take that path
  // (which ones depends on every summary written before them).
  it('raise-slot recovers with more room than the floor when a block needs it (200 turns, slot 300, budget 6,000)', async () => {
    const compactor = createCompactor({ budget: 6_000, slot: 300, policy: { kind: 'raise-slot', cap: 5_000 } })
    let context: readonly Message[] = []
    let raised = 0
    let roomier = 0
    for (const message of codingSession({ turns: 200 })) {
      const result = await compactor.maybeCompact([...context, message])
      const refusal = result.events.find((event) => event.type === 'refusal')
      if (refusal?.type === 'refusal' && refusal.action === 'raised-slot') {
        raised++
        expect(result.kind === 'compacted' || result.kind === 'split').toBe(true)
        // The floor the plan asked for, then a quarter more when the summarizer's block did not fit it.
        const floorSlot = Number(/raise the slot to (\d+)/.exec(refusal.signal.options.join(' '))?.[1])
        // Only a block that missed the floor slot itself asks for more (a split part's own retry at twice its part slot,
        // "at slot 200: …", is compact's, inside the raised slot).
        if (result.events.some((event) => event.type === 'verify-error' && event.problems.some((problem) => problem.includes('state block needs') && problem.includes(`the slot is ${floorSlot}:`)))) {
          roomier++
          expect(refusal.raisedSlot).toBeGreaterThan(floorSlot)
          expect(refusal.raisedSlot).toBeLessThanOrEqual(Math.ceil(floorSlot * 1.25))
        }
      }
      context = result.messages
    }
    expect(raised).toBeGreaterThan(0)
    expect(roomier).toBeGreaterThan(0)
  })
})

describe('replay', () => {
  it('a caller that sends the uncompacted history again gets the same summary without a summarizer call', async () => {
    const messages = [system('sys'), ...Array.from({ length: 5 }, (_, turn) => [user(`turn ${turn}: keep /srv/app/t${turn}.yaml. ${prose(14)}`), assistant(prose(14))]).flat(), user('go')]
    const summarizer = recording()
    const compactor = createCompactor({ budget: 2_000, slot: 500, summarizer })
    const first = await compactor.maybeCompact(messages)
    expect(first.kind).toBe('compacted')
    const again = await compactor.maybeCompact([...messages, assistant('more')])
    expect(summarizer.requests).toHaveLength(1)
    expect(summaryTexts(again)).toEqual(summaryTexts(first))
    expect(again.events.at(-1)).toMatchObject({ type: 'compaction-end', replayed: true })
  })
})

describe('options', () => {
  it('a malformed message is refused naming its index and field, never a TypeError from inside', async () => {
    // A black-box re-test: `[1, 2]`, `[{}]` and `[{ role: 'user' }]` threw "Cannot read properties of undefined".
    const compactor = createCompactor({ budget: 2_000 })
    await expect(compactor.maybeCompact([1, 2] as unknown as Message[])).rejects.toThrow(/^createCompactor: maybeCompact\(messages\)\[0\]: expected a message object, got 1$/)
    await expect(compactor.maybeCompact([user('ok'), {}] as unknown as Message[])).rejects.toThrow(/maybeCompact\(messages\)\[1\]\.role: expected "system", "user", "assistant" or "tool", got undefined$/)
    await expect(compactor.maybeCompact([{ role: 'user' }] as unknown as Message[])).rejects.toThrow(/\[0\]\.parts: expected an array of parts, got undefined$/)
    await expect(compactor.maybeCompact([{ role: 'bogus', parts: [] }] as unknown as Message[])).rejects.toThrow(/\[0\]\.role: expected/)
    await expect(compactor.maybeCompact([{ role: 'user', parts: [{ text: 'x' }] }] as unknown as Message[])).rejects.toThrow(/\[0\]\.parts\[0\]\.type: expected "text", "reasoning", "tool-call", "tool-result" or "summary", got undefined$/)
  })

  it('misuse throws one line naming the field', () => {
    expect(() => createCompactor({ budget: -1 })).toThrow(/budget: expected a positive integer/)
    expect(() => createCompactor({ highWaterMark: 1.5 })).toThrow(/highWaterMark/)
    expect(() => createCompactor({ compactFraction: 1 })).toThrow(/compactFraction/)
    expect(() => createCompactor({ policy: { kind: 'raise-slot', cap: 10 } })).toThrow(/policy.cap/)
    expect(() => createCompactor({ policy: 'drop' as never })).toThrow(/policy/)
  })
})

describe('a summarizer that hangs (a re-test: an agent call stalled 361 s, its abort signal ignored)', () => {
  const hanging = (): SummarizerV1 & { signals: Array<AbortSignal | undefined> } => {
    const signals: Array<AbortSignal | undefined> = []
    return {
      specificationVersion: 'v1',
      name: 'hangs',
      signals,
      summarize(request) {
        signals.push(request.abortSignal)
        // Never answers on its own; settles only when its request is aborted.
        return new Promise((_, reject) => request.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))
      },
    }
  }
  const messages = [system('sys'), ...Array.from({ length: 5 }, (_, turn) => [user(`turn ${turn}: keep /srv/app/t${turn}.yaml. ${prose(14)}`), assistant(prose(14))]).flat(), user('go')]

  it('is given up after the compactor\'s timeoutMs and attempts, and the messages come back as they were', async () => {
    const summarizer = hanging()
    const started = performance.now()
    const result = await createCompactor({ budget: 2_000, slot: 500, summarizer, timeoutMs: 40, attempts: 2 }).maybeCompact(messages)
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(result.kind).toBe('refused')
    expect(result.messages).toBe(messages)
    expect(summarizer.signals.length).toBeGreaterThanOrEqual(2)
  })

  it('stops when the caller\'s signal aborts: the running call is aborted and no other starts', async () => {
    const summarizer = hanging()
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('user pressed stop')), 30)
    const started = performance.now()
    const result = await createCompactor({ budget: 2_000, slot: 500, summarizer }).maybeCompact(messages, { abortSignal: controller.signal })
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(result.kind).toBe('refused')
    expect(summarizer.signals).toHaveLength(1)
    expect(summarizer.signals[0]!.aborted).toBe(true)
  })

  it('stops when the caller\'s signal aborts even if the summarizer ignores its own (a re-test: it waited for the timeout)', async () => {
    const deaf: SummarizerV1 = { specificationVersion: 'v1', name: 'deaf', summarize: () => new Promise(() => {}) }
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    const started = performance.now()
    const result = await createCompactor({ budget: 2_000, slot: 500, summarizer: deaf, timeoutMs: 600_000 }).maybeCompact(messages, { abortSignal: controller.signal })
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(result.kind).toBe('refused')
    expect(result.messages).toBe(messages)
  })

  it('refuses bad settings in one line', () => {
    expect(() => createCompactor({ timeoutMs: 0 })).toThrow('createCompactor: timeoutMs: expected a positive integer of milliseconds')
    expect(() => createCompactor({ attempts: 0 })).toThrow('createCompactor: attempts: expected a positive integer')
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { createLedgerSummarizer } from '../summarize/ledger.js'
import { createCompactor } from './compactor.js'
import type { CompactionPolicy, CompactorResult, LayoutEntry } from './types.js'

// The oracles below use only the generator's own bookkeeping and plain string work: no estimator, planner, state-block
// parser or anything else the runtime uses.

interface Planted {
  readonly text: string
  /** Index of the session message that holds it. */
  readonly message: number
}

interface Session {
  readonly messages: Message[]
  readonly planted: Planted[]
  /** Each message that puts a pin in force, with the value: the latest one in a summary's messages is current. */
  readonly pinSets: Array<{ readonly message: number; readonly value: string }>
  /** [failing call message, fixing result message] of each error and its fix. */
  readonly episodes: Array<readonly [number, number]>
}

const FILLER = 'We went over the layout once more and agreed on the wording of the page before the next step. '

type Turn =
  | { readonly kind: 'chat'; readonly size: number }
  | { readonly kind: 'read'; readonly size: number; readonly file: number }
  | { readonly kind: 'fail-fix'; readonly errno: number }
  | { readonly kind: 'rule'; readonly id: number }
  | { readonly kind: 'pin'; readonly minor: number }
  | { readonly kind: 'revert'; readonly minor: number }

const turnArbitrary: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ kind: fc.constant('chat' as const), size: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('read' as const), size: fc.integer({ min: 5, max: 60 }), file: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('fail-fix' as const), errno: fc.integer({ min: 1, max: 99 }) }),
  fc.record({ kind: fc.constant('rule' as const), id: fc.integer({ min: 0, max: 999 }) }),
  fc.record({ kind: fc.constant('pin' as const), minor: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('revert' as const), minor: fc.integer({ min: 10, max: 19 }) }),
)

/** Builds a session from turns, recording every planted item and every error → fix episode. */
function buildSession(turns: readonly Turn[]): Session {
  const messages: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }] }]
  const planted: Planted[] = []
  const pinSets: Array<{ message: number; value: string }> = []
  const episodes: Array<readonly [number, number]> = []
  const text = (role: 'user' | 'assistant', value: string): Message => ({ role, parts: [{ type: 'text', text: value }] })
  let pin: string | undefined
  turns.forEach((turn, number) => {
    const id = `t${number}`
    switch (turn.kind) {
      case 'chat':
        messages.push(text('user', `Turn ${number}. ${FILLER.repeat(turn.size)}`), text('assistant', FILLER.repeat(turn.size)))
        break
      case 'read':
        messages.push(text('user', `Look at file ${turn.file}.`))
        messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id, name: 'read_file', arguments: { path: `src/f${turn.file}.ts` } }] })
        messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content: `export const x = 1 // ${FILLER}\n`.repeat(turn.size), isError: false }] })
        messages.push(text('assistant', 'Read it.'))
        break
      case 'fail-fix': {
        const error = `OSError: [Errno ${turn.errno}] No space left on device: '/var/tmp/upload_${number}.bin'`
        messages.push(text('user', `Upload batch ${number}.`))
        const failing = messages.length
        messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id: `${id}a`, name: 'bash', arguments: { command: 'python upload.py' } }] })
        messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: `${id}a`, content: `Traceback (most recent call last):\n${error}`, isError: true }] })
        messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id: `${id}b`, name: 'bash', arguments: { command: 'python upload.py' } }] })
        messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: `${id}b`, content: 'uploaded 3 files', isError: false }] })
        episodes.push([failing, messages.length - 1])
        messages.push(text('assistant', 'Uploaded after freeing space.'))
        planted.push({ text: error, message: failing + 1 })
        break
      }
      case 'rule': {
        const regex = `^/srv/app/r${turn.id}_[a-z]+\\.ya?ml$`
        planted.push({ text: regex, message: messages.length })
        messages.push(text('user', `Validate every upload path against the regex "${regex}" exactly.`), text('assistant', 'Understood.'))
        break
      }
      case 'pin': {
        const value = `fsspec==2024.6.${turn.minor}`
        planted.push({ text: value, message: messages.length })
        pinSets.push({ message: messages.length, value })
        messages.push(text('user', `Pin ${value} for now.`), text('assistant', 'Pinned.'))
        pin = value
        break
      }
      case 'revert': {
        if (!pin) break
        const value = `fsspec==2024.7.${turn.minor}`
        if (value === pin) break
        planted.push({ text: value, message: messages.length }, { text: pin, message: messages.length })
        pinSets.push({ message: messages.length, value })
        messages.push(text('user', `Actually use ${value} instead of ${pin}.`), text('assistant', 'Switched.'))
        pin = value
        break
      }
    }
  })
  messages.push({ role: 'user', parts: [{ type: 'text', text: 'Carry on.' }] })
  return { messages, planted, pinSets, episodes }
}

/** The text of a message as a plain join of its parts (the oracle's own reading). */
function plainText(message: Message): string {
  return message.parts
    .map((part) => {
      switch (part.type) {
        case 'tool-call':
          return JSON.stringify(part.arguments)
        case 'tool-result':
          return part.content
        default:
          return part.text
      }
    })
    .join('\n')
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/** The input indices each layout entry covers, in order. */
function coverage(layout: readonly LayoutEntry[]): number[] {
  return layout.flatMap((entry) => (entry.kind === 'summary' ? Array.from({ length: entry.range[1] - entry.range[0] }, (_, k) => entry.range[0] + k) : [entry.index]))
}

/** The lines of a summary that end with `text` (a state block puts the item's exact text at the end of its line). */
function linesEndingWith(summary: string, text: string): string[] {
  return summary.split('\n').filter((line) => line.endsWith(text))
}

/** The lines of a summary's first state block (plain line walk). */
function blockOf(summary: string): string {
  const lines = summary.split('\n')
  const open = lines.findIndex((line) => line.startsWith('<floorguard-state'))
  const close = lines.indexOf('</floorguard-state>')
  return open === -1 || close === -1 ? '' : lines.slice(open + 1, close).join('\n')
}

/**
 * Checks the record's invariants on one result. `origins(i)` = the session messages input message `i` stands for
 * (itself, or everything an earlier summary replaced), from the oracle's own bookkeeping of earlier layouts.
 */
function checkResult(
  input: readonly Message[],
  result: CompactorResult,
  session: Session,
  origins: (index: number) => readonly number[],
  policy: CompactionPolicy,
): void {
  // Every input message covered exactly once, in order; kept ones are the caller's own objects.
  expect(coverage(result.layout)).toEqual(input.map((_, index) => index))
  expect(result.messages).toHaveLength(result.layout.length)
  result.layout.forEach((entry, position) => {
    const message = result.messages[position]!
    if (entry.kind === 'kept') expect(message).toBe(input[entry.index])
    else expect(plainText(message)).toBe(entry.text)
  })
  const end = result.events.find((event) => event.type === 'compaction-end')
  const lost = new Set(end?.type === 'compaction-end' ? (end.lost ?? []).map((item) => item.text) : [])
  if (policy !== 'accept-risk') expect(lost.size).toBe(0)
  for (const entry of result.layout) {
    if (entry.kind !== 'summary') continue
    const covered = new Set<number>()
    for (let index = entry.range[0]; index < entry.range[1]; index++) for (const origin of origins(index)) covered.add(origin)
    for (const item of session.planted) {
      if (!covered.has(item.message)) continue
      // No summary lost an item, unless the caller accepted the risk, and then the item is listed as lost.
      if (!entry.text.includes(item.text)) {
        expect(policy).toBe('accept-risk')
        expect(lost.has(item.text)).toBe(true)
      }
    }
    // No stale value presented as current: of the pins the summary replaced, only the one set last is current.
    const sets = session.pinSets.filter((set) => covered.has(set.message))
    if (sets.length === 0 || !entry.text.includes('<floorguard-state')) continue
    const current = sets.reduce((latest, set) => (set.message > latest.message ? set : latest)).value
    const pins = new Set(session.planted.filter((item) => covered.has(item.message) && item.text.startsWith('fsspec==')).map((item) => item.text))
    const block = blockOf(entry.text)
    for (const pin of pins) {
      const lines = linesEndingWith(block, pin)
      if (pin === current) for (const line of lines) expect(line).not.toMatch(/^-\d* \[superseded/)
      else {
        for (const line of lines) expect(line).toMatch(/^-\d* \[superseded/)
        // Nor does the gist quote an earlier block's line that called it current.
        for (const line of linesEndingWith(entry.text, pin)) expect(line).not.toMatch(/\[current/)
      }
    }
  }
  // No causal unit cut: a call and its result, an error and its fix, are in one summary or in none.
  const rangeOf = (index: number) => result.layout.findIndex((entry) => entry.kind === 'summary' && entry.range[0] <= index && index < entry.range[1])
  const calls = new Map<string, number>()
  input.forEach((message, index) => {
    for (const part of message.parts) {
      if (part.type === 'tool-call') calls.set(part.id, index)
      if (part.type === 'tool-result' && calls.has(part.callId)) expect(rangeOf(index)).toBe(rangeOf(calls.get(part.callId)!))
    }
  })
  const position = new Map<number, number>()
  input.forEach((_, index) => {
    const from = origins(index)
    if (from.length === 1) position.set(from[0]!, index)
  })
  for (const [failing, fixed] of session.episodes) {
    const a = position.get(failing)
    const b = position.get(fixed)
    if (a !== undefined && b !== undefined) expect(rangeOf(a)).toBe(rangeOf(b))
  }
}

/**
 * An untrusted summarizer: the ledger, except that its first attempt at each part drops every line naming a planted
 * item (the failure the record describes). Verification must catch it; without verification items would be lost.
 */
function flakySummarizer(): SummarizerV1 {
  const ledger = createLedgerSummarizer()
  return {
    specificationVersion: 'v1',
    name: 'flaky',
    async summarize(request) {
      const result = await ledger.summarize(request)
      if (result.kind !== 'summary' || request.attempt > 1) return result
      return { kind: 'summary', text: result.text.split('\n').filter((line) => !/fsspec|Errno|regex|srv\/app/.test(line)).join('\n') }
    },
  }
}

const policyArbitrary: fc.Arbitrary<CompactionPolicy> = fc.oneof(
  fc.constant('keep' as const),
  fc.constant('other-segment' as const),
  fc.constant('accept-risk' as const),
  fc.integer({ min: 0, max: 3000 }).map((extra) => ({ kind: 'raise-slot' as const, cap: 1200 + extra })),
)

describe('the record invariants through the runtime', () => {
  it('one call: coverage, no lost or stale item (accept-risk lists its losses), no cut unit, input untouched', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArbitrary, { minLength: 3, maxLength: 24 }),
        fc.integer({ min: 300, max: 1200 }),
        fc.integer({ min: 1, max: 6 }).map((tenths) => tenths / 10),
        policyArbitrary,
        fc.boolean(),
        async (turns, slot, fraction, policy, flaky) => {
          const session = buildSession(turns)
          const snapshot = JSON.stringify(session.messages)
          const input = deepFreeze(session.messages)
          const compactor = createCompactor({ budget: 1_000, highWaterMark: 0.5, slot, compactFraction: fraction, policy, ...(flaky ? { summarizer: flakySummarizer() } : {}) })
          const result = await compactor.maybeCompact(input)
          expect(JSON.stringify(input)).toBe(snapshot)
          checkResult(input, result, session, (index) => [index], policy)
        },
      ),
      { numRuns: 60, seed: 12 },
    )
  })

  it('growing turn by turn, re-compacting earlier summaries: the same invariants at every call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnArbitrary, { minLength: 10, maxLength: 40 }), fc.integer({ min: 400, max: 1500 }), async (turns, slot) => {
        const session = buildSession(turns)
        const input = deepFreeze(session.messages)
        const compactor = createCompactor({ budget: 2_500, slot })
        let context: readonly Message[] = []
        // The session messages each context message stands for: itself, or what the summary replaced.
        const origins = new Map<Message, readonly number[]>(input.map((message, index) => [message, [index]]))
        for (const message of input) {
          const next = [...context, message]
          const result = await compactor.maybeCompact(next)
          checkResult(next, result, session, (index) => origins.get(next[index]!) ?? [], 'keep')
          result.layout.forEach((entry, position) => {
            const out = result.messages[position]!
            if (entry.kind === 'summary') origins.set(out, next.slice(entry.range[0], entry.range[1]).flatMap((replaced) => origins.get(replaced) ?? []))
            else if (entry.kind === 'masked') origins.set(out, origins.get(next[entry.index]!) ?? [])
          })
          context = result.messages
        }
        // Whatever was compacted, every planted item still reads verbatim somewhere in the context.
        const all = context.map(plainText).join('\n')
        for (const item of session.planted) expect(all).toContain(item.text)
      }),
      { numRuns: 15, seed: 7 },
    )
  })
})

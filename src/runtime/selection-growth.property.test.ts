import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import { createCompactor } from './compactor.js'
import type { CompactorEvent } from './types.js'

// Regression (re-tester C, session 11): at budget 8000 / slot 1500 the oldest compactFraction of the turns, summarized,
// left ~6.9k tokens, over the 6.8k mark, so every later call compacted again (a summarizer call each). The selection
// now grows to the smallest that gets below the mark, or to the largest allowed, flagged.

/** One token per character: the oracle's arithmetic is on the texts' lengths. */
const chars: TokenizerV1 = { specificationVersion: 'v1', name: 'chars', exact: true, count: (text) => text.length }

const WORDS = ['layout', 'module', 'reads', 'the', 'settings', 'page', 'value', 'copy', 'worker', 'note', 'table', 'list']
const prose = (seed: number, length: number): string => {
  let text = ''
  for (let index = 0; text.length < length; index++) text += `${WORDS[(seed + index * 7) % WORDS.length]} `
  return text.trim()
}

type Turn = { kind: 'user'; length: number } | { kind: 'step'; say: number; output: number }

/** A conversation: the system prompt, then user messages and agent steps (call, result), no failure anywhere. */
function conversation(turns: readonly Turn[]): Message[] {
  const messages: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }] }]
  turns.forEach((turn, index) => {
    if (turn.kind === 'user') {
      messages.push({ role: 'user', parts: [{ type: 'text', text: prose(index, turn.length) }] })
      return
    }
    const id = `call_${index}`
    messages.push({ role: 'assistant', parts: [...(turn.say > 0 ? [{ type: 'text' as const, text: prose(index + 3, turn.say) }] : []), { type: 'tool-call', id, name: 'read_file', arguments: { path: `f${index}` } }] })
    messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content: prose(index + 5, turn.output), isError: false }] })
  })
  return messages
}

/** A message's characters as the runtime renders it (parts joined by a line break; a call as name(arguments)). */
function length(message: Message): number {
  let total = 0
  message.parts.forEach((part, index) => {
    if (index > 0) total += 1
    if (part.type === 'tool-call') total += `${part.name}(${JSON.stringify(part.arguments)})`.length
    else if (part.type === 'tool-result') total += part.content.length
    else total += part.text.length
  })
  return total
}

/** The end the rule picks, computed plainly: tool pairs are the only units (no failure in these conversations). */
function expectedEnd(messages: readonly Message[], start: number, base: number, need: number): { end: number; largest: boolean } {
  const n = messages.length
  const startsTurn = (index: number): boolean => {
    const message = messages[index]!
    if (message.role === 'user' && message.parts.some((part) => part.type !== 'tool-result')) return true
    return message.role === 'assistant' && messages[index - 1]?.role === 'tool'
  }
  const callAt = new Map<string, number>()
  messages.forEach((message, index) => message.parts.forEach((part) => part.type === 'tool-call' && callAt.set(part.id, index)))
  const inside = new Uint8Array(n + 1)
  messages.forEach((message, index) =>
    message.parts.forEach((part) => {
      if (part.type !== 'tool-result') return
      for (let cut = callAt.get(part.callId)! + 1; cut <= index; cut++) inside[cut] = 1
    }),
  )
  const turnStarts = [] as number[]
  for (let index = start + 1; index < n; index++) if (startsTurn(index)) turnStarts.push(index)
  let limit = turnStarts.length > 0 ? turnStarts.at(-1)! : n - 1
  for (let index = n - 1; index > base; index--) {
    if (messages[index]!.role === 'user') {
      limit = Math.min(limit, index)
      break
    }
  }
  const tokens = (end: number): number => messages.slice(start, end).reduce((sum, message) => sum + length(message), 0)
  if (tokens(base) >= need) return { end: base, largest: false }
  let best = base
  const candidates = turnStarts.length > 0 ? turnStarts : Array.from({ length: n - 1 - base }, (_, offset) => base + 1 + offset)
  for (const candidate of candidates) {
    if (candidate <= base || candidate > limit) continue
    let cut = candidate
    while (cut > best && inside[cut]) cut--
    if (cut <= best) continue
    best = cut
    if (tokens(best) >= need) return { end: best, largest: false }
  }
  return { end: best, largest: true }
}

const turn: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), length: fc.integer({ min: 10, max: 600 }) }),
  fc.record({ kind: fc.constant('step' as const), say: fc.integer({ min: 0, max: 200 }), output: fc.integer({ min: 20, max: 3000 }) }),
)

describe('selection growth (property)', () => {
  it('after a compaction of the whole selection the context is below the mark, or the selection was the largest allowed; the selection is the smallest that gets there', async () => {
    const seen = { compacted: 0, grown: 0, largest: 0 }
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 3, maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }).map((tenths) => tenths / 10),
        fc.integer({ min: 1000, max: 40000 }),
        fc.integer({ min: 200, max: 3000 }),
        async (turns, compactFraction, budget, slot) => {
          const messages = conversation(turns)
          const events: CompactorEvent[] = []
          const compactor = createCompactor({ tokenizer: chars, budget, slot, compactFraction, onEvent: (event) => events.push(event) })
          const result = await compactor.maybeCompact(messages)
          const start = events.find((event) => event.type === 'compaction-start')
          if (!start || start.type !== 'compaction-start' || start.range[1] === 0) return
          const context = messages.reduce((sum, message) => sum + length(message), 0)
          expect(start.contextTokens).toBe(context)
          const base = start.grownFrom?.[1] ?? start.range[1]
          // A mark at or below the slot: no selection gets below it, the fraction's selection stands.
          const expected = start.threshold > slot ? expectedEnd(messages, 1, base, context + slot - start.threshold + 1) : { end: base, largest: false }
          expect(start.range[1]).toBe(expected.end)
          expect(start.largest === true).toBe(expected.largest)
          if (start.grownFrom) seen.grown++
          if (start.largest) seen.largest++
          const summaries = result.layout.filter((entry) => entry.kind === 'summary')
          if (result.kind !== 'compacted' || summaries.length !== 1 || summaries[0]!.kind !== 'summary' || summaries[0]!.range[1] !== start.range[1]) return
          seen.compacted++
          const after = result.messages.reduce((sum, message) => sum + length(message), 0)
          if (!start.largest && start.threshold > slot) expect(after).toBeLessThan(start.threshold)
          if (after >= start.threshold) expect(result.signal?.reason).toMatch(/high-water mark|over the budget/)
        },
      ),
      { numRuns: 120, seed: 11 },
    )
    // Not vacuous: selections grew, some to the largest allowed, and whole selections were compacted.
    expect(seen.compacted).toBeGreaterThan(10)
    expect(seen.grown).toBeGreaterThan(5)
    expect(seen.largest).toBeGreaterThan(0)
  }, 120_000)
})

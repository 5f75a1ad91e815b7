import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'
import { allowedCuts, selectSegment, systemEnd } from './_select.js'

/** An agent loop: one user message, then many steps (call, result), failures fixed a few steps later or never. */
function agentLoop(steps: ReadonlyArray<{ failing: boolean; command: number; report: boolean; user: boolean }>): Message[] {
  const messages: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'sys' }] }, { role: 'user', parts: [{ type: 'text', text: 'go' }] }]
  steps.forEach((step, index) => {
    if (step.user) messages.push({ role: 'user', parts: [{ type: 'text', text: `next ${index}` }] })
    const id = `c${index}`
    messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id, name: 'bash', arguments: { command: `make target${step.command}` } }] })
    messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content: step.failing ? 'error: build failed\nExit code: 2' : 'ok', isError: step.failing }] })
    if (step.report) messages.push({ role: 'assistant', parts: [{ type: 'text', text: 'Looked at it.' }] })
  })
  return messages
}

/** Whole-list reference: the same rule, with the units linked over every message. */
function reference(messages: readonly Message[], fraction: number, end: number): number | undefined {
  const cuts = allowedCuts(messages, pairToolCalls(messages).pairs)
  const start = systemEnd(messages)
  let back = end
  while (back > start && !cuts[back]) back--
  if (back > start) return back
  let forward = end
  while (forward < messages.length && !cuts[forward]) forward++
  void fraction
  return forward < messages.length ? forward : undefined
}

describe('selectSegment', () => {
  it('links units in a window around the end and agrees with linking the whole list (long agent loops)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ failing: fc.boolean(), command: fc.integer({ min: 0, max: 3 }), report: fc.boolean(), user: fc.integer({ min: 0, max: 30 }).map((value) => value === 0) }), { minLength: 50, maxLength: 700 }),
        fc.integer({ min: 1, max: 9 }).map((tenths) => tenths / 10),
        (steps, fraction) => {
          const messages = agentLoop(steps)
          const selection = selectSegment(messages, fraction, pairToolCalls(messages).pairs)
          // The natural end before the move: the turn where the window starts its search (recomputed plainly).
          const turnStarts: number[] = []
          for (let index = 1; index < messages.length; index++) {
            const message = messages[index]!
            if (index === 1 || (message.role === 'user') || (message.role === 'assistant' && messages[index - 1]!.role === 'tool')) turnStarts.push(index)
          }
          const k = Math.min(turnStarts.length - 1, Math.max(1, Math.floor(fraction * turnStarts.length)))
          const natural = turnStarts.length >= 2 ? turnStarts[k]! : 1 + Math.max(1, Math.floor(fraction * (messages.length - 1)))
          const expected = natural >= messages.length ? undefined : reference(messages, fraction, natural)
          expect(selection.range?.[1]).toBe(expected)
          if (selection.range) expect(selection.range[0]).toBe(1)
        },
      ),
      { numRuns: 150, seed: 3 },
    )
  })
})

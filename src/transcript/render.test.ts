import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { pairToolCalls, renderPart, stableJson } from './render.js'

const call = (id: string, tag: string): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id, name: 'run', arguments: { tag } }] })
const result = (id: string, tag: string): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content: tag, isError: false }] })

/** The tag a pair's call carries and the tag its result carries: they must be the same for every pair. */
function pairedTags(messages: readonly Message[]): Array<[string, string]> {
  return pairToolCalls(messages).pairs.map((pair) => {
    const callPart = messages[pair.call.message]!.parts[pair.call.part] as { arguments: { tag: string } }
    const resultPart = messages[pair.result.message]!.parts[pair.result.part] as { content: string }
    return [callPart.arguments.tag, resultPart.content]
  })
}

/** The same calls with each id's answered ones moved before its unanswered ones (slots of an id kept). */
function answeredFirst<T extends { id: string; answered: boolean }>(calls: readonly T[]): T[] {
  const flags = new Map<string, boolean[]>()
  for (const item of calls) flags.set(item.id, [...(flags.get(item.id) ?? []), item.answered])
  for (const list of flags.values()) list.sort((a, b) => Number(b) - Number(a))
  return calls.map((item) => ({ ...item, answered: flags.get(item.id)!.shift()! }))
}

describe('pairToolCalls', () => {
  it('pairs each result with its own call when ids repeat across turns', () => {
    // Issue 11: tool calls with duplicate ids paired the wrong way went unnoticed. Agents that number calls per
    // turn reuse `call_1`; each result answers the call of its own turn.
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'first' }] },
      call('call_1', 'turn 1'),
      result('call_1', 'turn 1'),
      { role: 'user', parts: [{ type: 'text', text: 'second' }] },
      call('call_1', 'turn 2'),
      result('call_1', 'turn 2'),
    ]
    const { pairs, unpaired } = pairToolCalls(messages)
    expect(pairs).toEqual([
      { id: 'call_1', call: { message: 1, part: 0 }, result: { message: 2, part: 0 } },
      { id: 'call_1', call: { message: 4, part: 0 }, result: { message: 5, part: 0 } },
    ])
    expect(unpaired).toEqual([])
  })

  it('pairs a result of a reused id with the call of its own turn, not an older unanswered one', () => {
    // An interrupted turn leaves `call_1` unanswered; the next turn calls `call_1` again and gets its result.
    const messages: Message[] = [call('call_1', 'interrupted'), { role: 'user', parts: [{ type: 'text', text: 'go on' }] }, call('call_1', 'answered'), result('call_1', 'answered')]
    expect(pairedTags(messages)).toEqual([['answered', 'answered']])
    expect(pairToolCalls(messages).unpaired).toEqual([{ kind: 'call', id: 'call_1', message: 0, part: 0 }])
  })

  it('pairs every result with the call it answers, ids repeating within and across turns (property)', () => {
    // Oracle: each call carries a hidden tag and its result the same tag. A turn is one assistant message of calls
    // whose ids come from a pool of two (so they repeat, even within a turn), then results for some of them in
    // any order, results of one id in the order of its calls. Unanswered calls stay unanswered; within a turn,
    // calls of one id are indistinguishable, so its unanswered ones are its last ones there.
    const turn = fc.record({
      calls: fc.array(fc.record({ id: fc.constantFrom('call_1', 'call_2'), answered: fc.boolean() }), { minLength: 1, maxLength: 4 }),
      keys: fc.array(fc.nat({ max: 9 }), { minLength: 4, maxLength: 4 }),
    })
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 6 }), fc.boolean(), (turns, orphanResult) => {
        const messages: Message[] = orphanResult ? [result('call_1', 'orphan')] : []
        let answered = 0
        let calls = 0
        turns.forEach((generated, turnIndex) => {
          const entry = { ...generated, calls: answeredFirst(generated.calls) }
          const tags = entry.calls.map((_, index) => `turn ${turnIndex} call ${index}`)
          messages.push({ role: 'assistant', parts: entry.calls.map((item, index) => ({ type: 'tool-call', id: item.id, name: 'run', arguments: { tag: tags[index]! } })) })
          calls += entry.calls.length
          const due = entry.calls.flatMap((item, index) => (item.answered ? [{ id: item.id, index }] : []))
          answered += due.length
          // Shuffle by the generated keys, then give each id's slots its results in call order.
          const order = due.map((item, position) => ({ ...item, key: entry.keys[position] ?? 0 })).sort((a, b) => a.key - b.key)
          const queues = new Map<string, number[]>()
          for (const item of due) queues.set(item.id, [...(queues.get(item.id) ?? []), item.index])
          for (const slot of order) messages.push(result(slot.id, tags[queues.get(slot.id)!.shift()!]!))
        })
        const { pairs, unpaired } = pairToolCalls(messages)
        for (const [callTag, resultTag] of pairedTags(messages)) expect(callTag).toBe(resultTag)
        for (const pair of pairs) expect(pair.call.message).toBeLessThan(pair.result.message)
        expect(pairs.length).toBe(answered)
        expect(unpaired.length).toBe(calls - answered + (orphanResult ? 1 : 0))
      }),
      { numRuns: 500 },
    )
  })
})

// A re-test: cyclic, BigInt, throwing-getter and 5,000-deep tool arguments reached JSON.stringify through stableJson
// and escaped as a TypeError or RangeError from every entry point.
describe('stableJson', () => {
  it('writes JSON values as JSON.stringify does, undefined as null', () => {
    expect(stableJson({ b: [1, 'x', null, undefined], a: { c: true } })).toBe('{"b":[1,"x",null,null],"a":{"c":true}}')
    expect(stableJson(undefined)).toBe('null')
    expect(renderPart({ type: 'tool-call', id: 'c', name: 'run', arguments: { n: 1 } })).toBe('run({"n":1})')
  })

  it('refuses what JSON.stringify cannot write with FloorguardError invalid-argument, never a TypeError or RangeError', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    let deep: unknown = 1
    for (let level = 0; level < 100_000; level++) deep = [deep]
    const values: Array<[unknown, RegExp]> = [
      [cyclic, /circular/],
      [{ n: 10n }, /BigInt/],
      [{ get x() { throw new Error('getter boom') } }, /getter boom/],
      [deep, /nesting too deep/],
    ]
    for (const [value, reason] of values) {
      let thrown: unknown
      try {
        stableJson(value)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toMatchObject({ name: 'FloorguardError', code: 'invalid-argument', message: expect.stringMatching(reason) })
    }
  })
})

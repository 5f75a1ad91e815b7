import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { generateScenarios, PLANTED_KINDS, type PlantedSource } from './scenarios.js'

const options = { seed: 11, sessions: 4, narrativeOnly: 1, minMessages: 150, maxMessages: 220 }

/** The texts of a message where an item of `source` lives: written out here, not taken from the eval. */
function textsOf(message: Message, source: PlantedSource): string[] {
  const out: string[] = []
  const strings = (value: unknown): void => {
    if (typeof value === 'string') out.push(value)
    else if (Array.isArray(value)) value.forEach(strings)
    else if (value && typeof value === 'object') Object.values(value).forEach(strings)
  }
  for (const part of message.parts) {
    if (source === 'tool-result' && part.type === 'tool-result') out.push(part.content)
    if (source === 'tool-call' && part.type === 'tool-call') strings(part.arguments)
    if ((source === 'user' || source === 'assistant') && part.type === 'text' && message.role === source) out.push(part.text)
  }
  return out
}

describe('generateScenarios', () => {
  const scenarios = generateScenarios(options)

  it('is deterministic for a seed and differs for another seed', () => {
    expect(generateScenarios(options)).toEqual(scenarios)
    expect(JSON.stringify(generateScenarios({ ...options, seed: 12 }))).not.toBe(JSON.stringify(scenarios))
  })

  it('makes the sessions asked for, within the length bounds (one episode of overshoot)', () => {
    expect(scenarios.map((scenario) => scenario.narrativeOnly)).toEqual([false, false, false, false, true])
    for (const scenario of scenarios) {
      expect(scenario.transcript.messages.length).toBeGreaterThanOrEqual(150)
      expect(scenario.transcript.messages.length).toBeLessThanOrEqual(220 + 4)
    }
  })

  it('plants every kind, and every planted text is where it says', () => {
    const kinds = new Set(scenarios.flatMap((scenario) => scenario.planted.map((item) => item.kind)))
    expect([...kinds].sort()).toEqual([...PLANTED_KINDS].sort())
    for (const scenario of scenarios) {
      for (const item of scenario.planted) {
        const message = scenario.transcript.messages[item.message]!
        expect(textsOf(message, item.source).some((text) => text.includes(item.text)), `${scenario.name} ${item.kind} ${item.text}`).toBe(true)
      }
    }
  })

  it('plants every kind in every session with planted state', () => {
    for (const scenario of scenarios.filter((s) => !s.narrativeOnly)) {
      const kinds = new Set(scenario.planted.map((item) => item.kind))
      // version-change comes 30 to 200 messages after its pin, so a short session may end first.
      for (const kind of PLANTED_KINDS.filter((k) => k !== 'version-change')) expect(kinds.has(kind), `${scenario.name} ${kind}`).toBe(true)
    }
  })

  it('uses some planted texts again later, verbatim, in user text, assistant text or a tool-call input', () => {
    let reuses = 0
    for (const scenario of scenarios) {
      for (const item of scenario.planted) {
        for (const at of item.reused) {
          reuses++
          expect(at).toBeGreaterThan(item.message)
          const message = scenario.transcript.messages[at]!
          const found = (['user', 'assistant', 'tool-call'] as const).some((source) => textsOf(message, source).some((text) => text.includes(item.text)))
          expect(found, `${scenario.name} ${item.kind} reused at ${at}`).toBe(true)
        }
      }
    }
    expect(reuses).toBeGreaterThan(10)
  })

  it('narrative-only sessions plant nothing and call no tool; every tool call of the others has its result', () => {
    for (const scenario of scenarios) {
      if (scenario.narrativeOnly) {
        expect(scenario.planted).toEqual([])
        expect(scenario.transcript.messages.every((message) => message.parts.every((part) => part.type === 'text'))).toBe(true)
      }
      expect(scenario.transcript.unpaired).toEqual([])
    }
  })
})

import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { createCompactor } from './compactor.js'
import type { CompactorResult } from './types.js'

// Regression (re-tester C, session 11): in an agent loop every compaction summarized the previous summary again, and
// the ledger's gist wrote each of its lines under the summary message's role in front of its own speaker (`user:
// user: …(×20)… tool: 9  export const value_1_8 = …`), the step-1 text ranked above every newer turn's.

const SPEAKERS = ['user', 'assistant', 'system', 'tool']
const CLOSE = '</floorguard-state>'

/** A tool output of `step`: 60 numbered lines of ordinary code (no failure, no decision word). */
function toolOutput(step: number): string {
  const lines: string[] = []
  for (let line = 0; line < 60; line++) lines.push(`${String(line + 1).padStart(4)}  export const value_${step}_${line} = computeThing(${line}, "src/m${step % 5}.ts") // filler line of ordinary code`)
  return lines.join('\n')
}

/** The step's messages: every fifth step the user asks for something new, then one read_file call and its output. */
function stepMessages(step: number): Message[] {
  const messages: Message[] = []
  if (step % 5 === 0) messages.push({ role: 'user', parts: [{ type: 'text', text: `Now look at module m${step} and report its exports.` }] })
  messages.push({ role: 'assistant', parts: [{ type: 'text', text: `Step ${step}: reading the next file.` }, { type: 'tool-call', id: `call_${step}`, name: 'read_file', arguments: { path: `f${step}` } }] })
  messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: `call_${step}`, content: toolOutput(step), isError: false }] })
  return messages
}

/** The gist: what follows the state block, one line each. */
function gistLines(summary: string): string[] {
  const close = summary.indexOf(CLOSE)
  return summary.slice(close < 0 ? 0 : close + CLOSE.length).split('\n').filter((line) => line.trim() !== '')
}

/** The speaker a gist line opens with and the sentence after it (read plainly: one `word: ` among the four). */
function speakerOf(line: string): { speaker: string; sentence: string } | undefined {
  const colon = line.indexOf(': ')
  return colon > 0 && SPEAKERS.includes(line.slice(0, colon)) ? { speaker: line.slice(0, colon), sentence: line.slice(colon + 2) } : undefined
}

describe('re-compaction in an agent loop (the ledger over its own earlier summaries)', () => {
  it('never stacks speakers, keeps the newest user turn, and ranks an earlier gist below the newer turns of its kind', async () => {
    const compactor = createCompactor({ budget: 8000, slot: 1500 })
    let context: readonly Message[] = [
      { role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Fix the failing upload test. Never change the public API of src/upload/handler.ts.' }] },
    ]
    let previousGist: string[] = []
    let compactions = 0
    let requoted = 0
    for (let step = 1; step <= 30; step++) {
      context = [...context, ...stepMessages(step)]
      const input = context
      const result: CompactorResult = await compactor.maybeCompact(input)
      context = result.messages
      const summary = result.layout.find((entry) => entry.kind === 'summary')
      if (!summary || summary.kind !== 'summary') continue
      compactions++
      const gist = gistLines(summary.text)
      for (const line of gist) {
        const first = speakerOf(line)
        expect(first, `a gist line without its speaker: ${line}`).toBeDefined()
        expect(speakerOf(first!.sentence), `stacked speakers at step ${step}: ${line.slice(0, 80)}`).toBeUndefined()
      }
      // The range's own messages (not an earlier summary): their user sentences, assistant texts, tool output lines.
      const own = input.slice(summary.range[0], summary.range[1]).filter((message) => message.parts.every((part) => part.type !== 'summary'))
      const userTexts = own.filter((message) => message.role === 'user').map((message) => (message.parts[0] as { text: string }).text)
      const newestUser = userTexts.at(-1)
      if (newestUser !== undefined) for (const sentence of newestUser.split(/(?<=\.) /)) expect(gist).toContain(`user: ${sentence}`)
      const ownLines = (speaker: string): string[] =>
        own.flatMap((message) =>
          message.parts.flatMap((part) => {
            if (speaker === 'tool' && part.type === 'tool-result') return part.content.split('\n').map((line) => `tool: ${line.trim()}`)
            if (speaker === 'assistant' && message.role === 'assistant' && part.type === 'text') return [`assistant: ${part.text}`]
            return []
          }),
        )
      // An earlier gist's line of a kind is chosen only once every line of that kind from the newer turns is.
      for (const speaker of ['assistant', 'tool']) {
        const old = gist.filter((line) => line.startsWith(`${speaker}: `) && previousGist.includes(line) && !ownLines(speaker).includes(line))
        requoted += old.length
        if (old.length > 0) for (const line of ownLines(speaker)) expect(gist, `step ${step}: ${old[0]} re-quoted before ${line}`).toContain(line)
      }
      previousGist = gist
    }
    expect(compactions).toBeGreaterThanOrEqual(3)
    // The loop did re-quote earlier gists (the ranking rule above was exercised, not vacuous).
    expect(requoted).toBeGreaterThan(0)
  })
})

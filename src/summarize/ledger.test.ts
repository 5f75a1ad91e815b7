import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createTokenizer } from '../tokenize/index.js'
import type { Message } from '../spec/transcript.js'
import { conformanceItems, conformanceMessages, createSummarizeRequest, mustKeepItems, testSummarizer } from '../test-utils/summarizer.js'
import { verifySummary } from '../verify/verify.js'
import { renderMessage } from '../transcript/render.js'
import { createLedgerSummarizer, splitSentences } from './ledger.js'
import { parseStateBlock, renderStateBlock, STATE_BLOCK_OPEN } from '../state-block/index.js'
import { flattenMustKeepGroups } from '../spec/summarizer.js'

const tokenizer = await createTokenizer('o200k_base')


testSummarizer({ name: 'ledger', createSummarizer: () => createLedgerSummarizer(), createTokenizer: () => tokenizer, failsBelowFloor: true })

describe('ledger summarizer', () => {
  const messages = conformanceMessages()
  const items = conformanceItems(messages, tokenizer)

  it('puts the state block first: one line per item with who said it, constraints first, stale pins marked', async () => {
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: 2000, tokenizer }))
    expect(result.kind).toBe('summary')
    if (result.kind !== 'summary') return
    expect(result.text.split('\n').slice(1, 3)).toEqual(['## constraints', '- [user #0] never write outside src/'])
    expect(result.text.startsWith(STATE_BLOCK_OPEN.slice(0, -1))).toBe(true)
    const block = parseStateBlock(result.text)
    expect(block?.entries.map((entry) => entry.text).sort()).toEqual(items.map((item) => item.text).sort())
    expect(block?.entries.find((entry) => entry.text === 'lodash@4.17.20')?.status).toBe('superseded')
    expect(block?.entries.find((entry) => entry.text === 'lodash@4.17.21')?.status).toBe('current')
    // One item per line: no line of the block but packed ones holds two items.
    expect(result.text.slice(0, block!.end).split('\n').filter((line) => line.startsWith('* '))).toEqual([])
    expect(verifySummary({ summary: result.text, items, slot: 2000, tokenizer }).ok).toBe(true)
  })

  // Narrative after the conformance turns, so the segment costs more than its state block and a gist has room.
  const padded: Message[] = [...messages, { role: 'assistant', parts: [{ type: 'text', text: Array.from({ length: 40 }, (_, index) => `We went over part ${'abcdefghij'[index % 10]} of the design again and it reads well now.`).join(' ') }] }]

  it('fills the rest of the slot with extractive sentences, user turns first', async () => {
    const request = createSummarizeRequest({ messages: padded, items, slot: 2000, tokenizer })
    const result = await createLedgerSummarizer().summarize(request)
    if (result.kind !== 'summary') throw new Error(result.reason)
    const gist = result.text.slice(parseStateBlock(result.text)!.end)
    expect(gist).toContain('user: The limit is exactly 4096 bytes.')
    expect(gist).toContain('assistant: Done.')
    // Extractive: every gist line is `role: ` plus a sentence of the segment.
    const segmentText = padded.map((message) => message.parts.map((part) => ('text' in part ? part.text : 'content' in part ? part.content : '')).join('\n')).join('\n')
    for (const line of gist.split('\n').filter((line) => line !== '')) {
      expect(segmentText).toContain(line.slice(line.indexOf(': ') + 2).replace(/ \[…\]$/, ''))
    }
  })

  it('with a tight slot keeps the user turn over the tool output', async () => {
    const block = (await createLedgerSummarizer({ gist: false }).summarize(createSummarizeRequest({ messages: padded, items, slot: 2000, tokenizer })))
    if (block.kind !== 'summary') throw new Error('no block')
    const slot = tokenizer.count(block.text) + 30
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages: padded, items, slot, tokenizer }))
    if (result.kind !== 'summary') throw new Error(result.reason)
    expect(tokenizer.count(result.text)).toBeLessThanOrEqual(slot)
    expect(result.text).toContain('user: ')
    expect(result.text).not.toContain('tool: ENOENT')
  })

  it('fails (never truncates) when the state block alone exceeds the slot', async () => {
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: 20, tokenizer }))
    expect(result).toMatchObject({ kind: 'failure', retryable: false })
    if (result.kind === 'failure') expect(result.reason).toMatch(/state block needs \d+ tokens .*slot is 20/)
  })

  it('property: any segment and slot → a verified summary, or a failure exactly when neither block layout fits', async () => {
    const word = fc.stringMatching(/^[a-zA-Z0-9_./:"'@-]{1,12}$/)
    const sentence = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => `${words.join(' ')}.`)
    const text = fc.array(sentence, { minLength: 1, maxLength: 5 }).map((sentences) => sentences.join(' '))
    const message = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const), text })
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 400 }), fc.nat(), async (specs, slot, seed) => {
        const segment: Message[] = specs.map((spec) =>
          spec.role === 'tool'
            ? { role: 'tool', parts: [{ type: 'tool-result', callId: 'x', content: spec.text, isError: false }] }
            : { role: spec.role, parts: [{ type: 'text', text: spec.text }] },
        )
        // Items: some words of the segment, chosen by the seed.
        const words = specs.flatMap((spec) => spec.text.split(/[ .]+/).filter((w) => w.length > 2))
        const picked = [...new Set(words.filter((_, index) => (index + seed) % 3 === 0))]
        const items = mustKeepItems(segment, picked.map((w, index) => ({ kind: index % 2 ? 'identifier' : 'number', text: w, status: index % 4 === 3 ? 'superseded' : 'current' })), tokenizer)
        const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages: segment, items, slot, tokenizer }))
        const groups = createSummarizeRequest({ messages: segment, items, slot, tokenizer }).groups
        const smallest = tokenizer.count(renderStateBlock({ items: flattenMustKeepGroups(groups), detail: 'flat' }))
        if (smallest > slot) return result.kind === 'failure' && !result.retryable
        return result.kind === 'summary' && verifySummary({ summary: result.text, items, slot, tokenizer }).ok
      }),
      { numRuns: 60 },
    )
  })
})

describe('ledger gist: long user turns', () => {
  it('keeps a user turn longer than the room cut and marked, never silently dropped (regression: it fell out of the gist)', async () => {
    const long = `Please migrate the billing module ${'and keep every invoice field stable '.repeat(120)}before Friday.`
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: long }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Working on it now.' }] },
    ]
    for (const slot of [120, 400]) {
      const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items: [], slot, tokenizer }))
      if (result.kind !== 'summary') throw new Error(result.reason)
      expect(tokenizer.count(result.text)).toBeLessThanOrEqual(slot)
      const line = result.text.split('\n').find((candidate) => candidate.startsWith('user: '))
      expect(line).toBeDefined()
      expect(line!.endsWith(' […]')).toBe(true)
      expect(long.startsWith(line!.slice('user: '.length, -' […]'.length))).toBe(true)
    }
  })

  it('chooses every user sentence before the last assistant turn\'s, the last user message first (regression: a pending question fell out)', async () => {
    const said = (role: 'user' | 'assistant', text: string): Message => ({ role, parts: [{ type: 'text', text }] })
    const answer = Array.from({ length: 40 }, (_, index) => `Bubble sort step ${index} decided to swap the pair because it was out of order.`).join(' ')
    const messages: Message[] = [
      said('user', 'Explain the common sorting algorithms.'),
      said('assistant', answer),
      said('user', 'Thanks. Which of those sorting algorithms are stable?'),
      said('assistant', answer.replaceAll('Bubble', 'Insertion')),
    ]
    for (const slot of [60, 90, 400]) {
      const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items: [], slot, tokenizer }))
      if (result.kind !== 'summary') throw new Error(result.reason)
      expect(result.text, `slot ${slot}`).toContain('user: Which of those sorting algorithms are stable?')
      if (slot >= 90) expect(result.text, `slot ${slot}`).toContain('user: Explain the common sorting algorithms.')
    }
  })

  it("puts the user's own words before what a harness wrote into their turn (a re-test: IDE and task notices crowded out the task)", async () => {
    const said = (role: 'user' | 'assistant', text: string): Message => ({ role, parts: [{ type: 'text', text }] })
    const notice = (index: number) => `<ide_opened_file>The user opened the file /repo/notes${index}.md in the IDE. This may or may not be related to the current task.</ide_opened_file>`
    const answer = Array.from({ length: 30 }, (_, index) => `Step ${index} of the plugin was written and it works.`).join(' ')
    const messages: Message[] = [
      said('user', `${notice(1)}\nssh into slate and uninstall all cloud related services.`),
      said('assistant', answer),
      said('user', `Name the command /session-share:publish.\n${notice(2)}`),
      said('assistant', answer.replaceAll('plugin', 'command')),
      // The last user turn holds only a harness notice: the pending request is the one before it.
      said('user', '<task-notification><summary>Background command finished with exit code 0.</summary></task-notification>'),
    ]
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items: [], slot: 70, tokenizer }))
    if (result.kind !== 'summary') throw new Error(result.reason)
    expect(result.text).toContain('user: ssh into slate and uninstall all cloud related services.')
    expect(result.text).toContain('user: Name the command /session-share:publish.')
    expect(result.text).not.toContain('user: <')
    // With room to spare the notice may come too, under the harness's name, not the user's.
    const roomy = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages: [said('user', `${notice(1)}\nFix the login flow. ${'Keep the session cookie. '.repeat(20)}`)], items: [], slot: 400, tokenizer }))
    if (roomy.kind !== 'summary') throw new Error(roomy.reason)
    expect(roomy.text).toContain('system: <ide_opened_file>The user opened the file /repo/notes1.md in the IDE.')
  })

  it('says on its opening line which messages it replaced and how many tokens they had', async () => {
    const messages = conformanceMessages()
    const items = conformanceItems(messages, tokenizer)
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: 2000, tokenizer }))
    if (result.kind !== 'summary') throw new Error(result.reason)
    const tokens = messages.reduce((sum, message) => sum + tokenizer.count(message.parts.map((part) => ('text' in part ? part.text : 'content' in part ? part.content : `${part.name}(${JSON.stringify(part.arguments)})`)).join('\n')), 0)
    expect(result.text.split('\n', 1)[0]).toBe(`<floorguard-state v="2" range="0-${messages.length}" tokens="${tokens}">`)
  })
})

describe('ledger gist: never past what it replaces', () => {
  it('stops filling below the tokens of the segment it replaces, however large the slot (regression: 463 tokens for a 270-token range)', async () => {
    const messages: Message[] = [...conformanceMessages(), { role: 'assistant', parts: [{ type: 'text', text: 'We went over the design again and it reads well now. '.repeat(60) }] }]
    const items = conformanceItems(conformanceMessages(), tokenizer)
    const replaced = messages.reduce((sum, message) => sum + tokenizer.count(renderMessage(message).text), 0)
    const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: replaced * 4, tokenizer }))
    if (result.kind !== 'summary') throw new Error(result.reason)
    expect(tokenizer.count(result.text)).toBeLessThan(replaced)
  })
})

describe('splitSentences', () => {
  it('splits at line breaks and sentence ends, keeping decimals and paths whole', () => {
    expect(splitSentences('Use v1.2.3 now. Is src/a.ts ok?\nYes!  Done')).toEqual(['Use v1.2.3 now.', 'Is src/a.ts ok?', 'Yes!', 'Done'])
  })
  it('splits a long input into every sentence (its speed is measured by npm run bench, not here)', () => {
    expect(splitSentences('a. '.repeat(200_000))).toHaveLength(200_000)
  })
})

describe('ledger layouts', () => {
  it('drops context, then packs short items, before it would fail, and still keeps every item and status', async () => {
    const messages = conformanceMessages()
    const items = conformanceItems(messages, tokenizer)
    const full = await createLedgerSummarizer({ gist: false }).summarize(createSummarizeRequest({ messages, items, slot: 100_000, tokenizer }))
    if (full.kind !== 'summary') throw new Error('no block')
    expect(full.text).toContain('[user #0]')
    for (const [slot, expected] of [[tokenizer.count(full.text) - 1, /\[user\] /], [tokenizer.count(full.text) - 1, /^(?![\s\S]*#\d)/]] as const) {
      const result = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot, tokenizer }))
      if (result.kind !== 'summary') throw new Error(result.reason)
      expect(result.text.slice(0, parseStateBlock(result.text)!.end)).toMatch(expected)
      expect(verifySummary({ summary: result.text, items, slot, tokenizer }).ok).toBe(true)
    }
    const minimal = tokenizer.count(renderStateBlock({ items: flattenMustKeepGroups(createSummarizeRequest({ messages, items, slot: 1, tokenizer }).groups), detail: 'flat' }))
    const tight = await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: minimal, tokenizer }))
    if (tight.kind !== 'summary') throw new Error(tight.reason)
    expect(tight.text).toMatch(/\n\* /)
    expect(verifySummary({ summary: tight.text, items, slot: minimal, tokenizer }).ok).toBe(true)
    expect(await createLedgerSummarizer().summarize(createSummarizeRequest({ messages, items, slot: minimal - 1, tokenizer }))).toMatchObject({ kind: 'failure', retryable: false })
  })
})

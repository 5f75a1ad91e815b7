import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { compactTranscript } from '../../compact/compact.js'
import { createEstimator } from '../../estimate/index.js'
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Transcript } from '../../spec/transcript.js'
import { createLedgerSummarizer } from '../../summarize/ledger.js'
import { createTokenizer } from '../../tokenize/index.js'
import { readTranscript } from '../read.js'
import { pairToolCalls } from '../render.js'
import { sourceFromString } from '../source.js'
import { aiSdkFormat } from './ai-sdk.js'
import { anthropicFormat } from './anthropic.js'
import { openaiResponsesFormat } from './openai-responses.js'
import { openaiFormat } from './openai.js'

// Issue 11: one message with a role the reader does not know (an agent harness's trailing
// `{"role": "exit", "content": "", "extra": {...}}`) rejected the whole file, and `auto` said no format claimed it.

/** A chat of four formats: a system prompt, then user/assistant turns, with items of unknown roles at `/messages/2` and last. */
interface Case {
  readonly format: TranscriptFormatV1
  /** The input document, and the pointer of its message array (`''` for a bare array). */
  readonly document: unknown
  readonly list: string
}

const turns = [
  ['user', 'Pin requests==2.31.0 and keep the retry limit at 5.'],
  ['assistant', 'Pinned requests==2.31.0 in requirements.txt; RETRY_LIMIT stays 5.'],
  ['user', 'Now run the tests in tests/test_http.py.'],
  ['assistant', 'All 14 tests in tests/test_http.py pass.'],
] as const
const harness = { role: 'harness', content: '', extra: { step: 2, marker: 'harness-4411' } }
const exit = { role: 'exit', content: '', extra: { exit_status: 'Submitted', marker: 'exit-7781' } }

function chat(shape: (role: string, text: string) => unknown): unknown[] {
  const [first, ...rest] = turns.map(([role, text]) => shape(role, text))
  return [first, harness, ...rest, exit]
}

const cases: readonly Case[] = [
  { format: openaiFormat, list: '/messages', document: { model: 'gpt-4o', messages: [{ role: 'system', content: 'You are terse.' }, ...chat((role, content) => ({ role, content }))] } },
  { format: anthropicFormat, list: '/messages', document: { system: 'You are terse.', messages: chat((role, text) => ({ role, content: [{ type: 'text', text }] })) } },
  { format: aiSdkFormat, list: '', document: [{ role: 'system', content: 'You are terse.' }, ...chat((role, content) => ({ role, content }))] },
  {
    format: openaiResponsesFormat,
    list: '/input',
    document: {
      model: 'gpt-5',
      input: [
        { type: 'message', role: 'developer', content: 'You are terse.' },
        ...chat((role, text) => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] })),
      ],
    },
  },
]

/** The message array of a document, by the case's pointer. */
function itemsOf(document: unknown, list: string): unknown[] {
  return list === '' ? (document as unknown[]) : (document as Record<string, unknown[]>)[list.slice(1)]!
}

const read = (format: TranscriptFormatV1, document: unknown): Promise<Transcript> => format.read(sourceFromString('doc.json', JSON.stringify(document)))

/** A compaction of messages [start, end) done the way `compact` does it, without a summarizer: one summary message in their place. */
function replaced(transcript: Transcript, start: number, end: number, text: string): Transcript {
  const messages: Message[] = [...transcript.messages.slice(0, start), { role: 'user', parts: [{ type: 'summary', text, source: 'floorguard' }] }, ...transcript.messages.slice(end)]
  return { ...transcript, messages, ...pairToolCalls(messages) }
}

describe.each(cases)('items of unknown roles in $format.name', ({ format, document, list }) => {
  const input = itemsOf(document, list)

  it('are read aside with one warning each, never failing, and written back in place', async () => {
    const transcript = await read(format, document)
    const [harnessAt, exitAt] = [input.indexOf(harness), input.indexOf(exit)]
    expect(transcript.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant'])
    expect(JSON.stringify(transcript.messages)).not.toMatch(/harness-4411|exit-7781/)
    expect(transcript.warnings).toEqual([
      expect.stringMatching(new RegExp(`^doc\\.json: ${list}/${harnessAt}: role "harness" is not .*kept as it is, outside every summary`)),
      expect.stringMatching(new RegExp(`^doc\\.json: ${list}/${exitAt}: role "exit" is not `)),
    ])
    expect(JSON.parse(format.write!(transcript))).toEqual(document)
  })

  // Oracle: the input array with the compacted messages' items taken out and the summary put where the first of
  // them was. Items of unknown roles never move relative to what is kept; one inside the range lands after the summary.
  it.each([
    [1, 3],
    [1, 5],
    [2, 5],
    [3, 5],
  ])('survive a compaction of messages %i:%i untouched, in order', async (start, end) => {
    const transcript = await read(format, document)
    const text = `Summary of messages ${start}:${end}.`
    const written = itemsOf(JSON.parse(format.write!(replaced(transcript, start, end, text))), list)
    // Message i (i >= 1) is input item i - 1 before the harness item and i after it (anthropic's system is not in the array).
    const offset = format === anthropicFormat ? -1 : 0
    const itemOf = (message: number): number => (message <= 1 ? message : message + 1) + offset
    const removed = new Set(Array.from({ length: end - start }, (_, index) => itemOf(start + index)))
    const expected: unknown[] = input.filter((_, index) => !removed.has(index))
    expected.splice(itemOf(start), 0, 'SUMMARY')
    const labelled = written.map((item) => (JSON.stringify(item).includes(text) ? 'SUMMARY' : item))
    expect(labelled).toEqual(expected)
    expect(written.filter((item) => JSON.stringify(item).includes('-4411') || JSON.stringify(item).includes('-7781'))).toEqual([harness, exit].map((item) => input.find((entry) => JSON.stringify(entry).includes(item.extra.marker))))
  })
})

describe('an agent trajectory ending with an exit message', () => {
  const text = readFileSync(new URL('./__fixtures__/openai/agent-exit.json', import.meta.url), 'utf8')

  it('is detected as openai and read with the exit message reported', async () => {
    const transcript = await readTranscript(sourceFromString('run.traj.json', text))
    expect(transcript.format).toBe('openai')
    expect(transcript.messages).toHaveLength(7)
    expect(transcript.warnings).toEqual([expect.stringMatching(/^run\.traj\.json: \/messages\/7: role "exit" is not a Chat Completions role/)])
  })

  it('keeps the exit message byte for byte through a real compaction, outside the summary', async () => {
    const transcript = await readTranscript(sourceFromString('run.traj.json', text))
    const tokenizer = await createTokenizer('o200k_base')
    const result = await compactTranscript(transcript, {
      estimator: createEstimator({ name: 'full', tokenizer }),
      tokenizer,
      slot: 2000,
      summarizer: createLedgerSummarizer(),
      range: { start: 1, end: transcript.messages.length },
    })
    expect(result.refusal).toBeNull()
    const written = JSON.parse(openaiFormat.write!(result.transcript!))
    const original = JSON.parse(text)
    expect(written.messages.at(-1)).toEqual(original.messages.at(-1))
    expect(written.messages).toHaveLength(3)
    expect(written.info).toEqual(original.info)
    for (const summary of result.summaries) expect(summary.text).not.toContain('exit_status')
  })
})

import { describe, expect, it } from 'vitest'
import type { ItemKind } from '../spec/estimator.js'
import { groupMustKeepItems, type MustKeepItem, type SummarizeRequest, type SummarizeResult, type SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import { renderMessage } from '../transcript/render.js'
import { verifySummary } from '../verify/verify.js'

/** A must-keep item described by its text; {@link mustKeepItems} finds where it is. */
export interface ItemSpec {
  readonly kind: ItemKind
  readonly text: string
  /** @default 'current' */
  readonly status?: 'current' | 'superseded'
  readonly key?: string
}

/**
 * Builds must-keep items from texts: each is located at its first occurrence in the messages' rendered text
 * (message index + offsets), priced with `tokenizer`. Throws when a text does not occur (a broken fixture).
 */
export function mustKeepItems(messages: readonly Message[], specs: readonly ItemSpec[], tokenizer: TokenizerV1, offset = 0): MustKeepItem[] {
  return specs.map((spec) => {
    for (let index = 0; index < messages.length; index++) {
      const start = renderMessage(messages[index]!).text.indexOf(spec.text)
      if (start !== -1) {
        return {
          kind: spec.kind,
          text: spec.text,
          tokens: tokenizer.count(spec.text),
          message: offset + index,
          start,
          end: start + spec.text.length,
          status: spec.status ?? 'current',
          ...(spec.key === undefined ? {} : { key: spec.key }),
        }
      }
    }
    throw new Error(`fixture item ${JSON.stringify(spec.text)} does not occur in the messages`)
  })
}

/** Options of {@link createSummarizeRequest}. */
export interface CreateSummarizeRequestOptions {
  readonly messages: readonly Message[]
  readonly items: readonly MustKeepItem[]
  readonly slot: number
  readonly tokenizer: TokenizerV1
  /** @default 0 */
  readonly offset?: number
  /** @default 1 */
  readonly attempt?: number
  /** @default [] */
  readonly missing?: readonly MustKeepItem[]
  readonly feedback?: string
  readonly abortSignal?: AbortSignal
}

/** Builds a well-formed {@link SummarizeRequest} (items grouped by kind). */
export function createSummarizeRequest(options: CreateSummarizeRequestOptions): SummarizeRequest {
  return {
    messages: options.messages,
    offset: options.offset ?? 0,
    slot: options.slot,
    tokenizer: options.tokenizer,
    groups: groupMustKeepItems(options.items),
    attempt: options.attempt ?? 1,
    missing: options.missing ?? [],
    ...(options.feedback === undefined ? {} : { feedback: options.feedback }),
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  }
}

/** Options of {@link createMockSummarizer}. */
export interface MockSummarizerOptions {
  /** Answers a request: a string is a summary; a result is returned as is; a throw propagates. */
  readonly respond: (request: SummarizeRequest) => string | SummarizeResult | Promise<string | SummarizeResult>
  /** @default 'mock' */
  readonly name?: string
}

/** A mock summarizer that records its requests. */
export interface MockSummarizer extends SummarizerV1 {
  readonly requests: SummarizeRequest[]
}

/** Creates a summarizer that answers with `respond` and records every request it gets. */
export function createMockSummarizer(options: MockSummarizerOptions): MockSummarizer {
  const requests: SummarizeRequest[] = []
  return {
    specificationVersion: 'v1',
    name: options.name ?? 'mock',
    requests,
    async summarize(request) {
      requests.push(request)
      const answer = await options.respond(request)
      return typeof answer === 'string' ? { kind: 'summary', text: answer } : answer
    },
  }
}

/** Items of a request as a flat list. */
function requestItems(request: SummarizeRequest): MustKeepItem[] {
  return request.groups.flatMap((group) => group.items)
}

/** The faults a summarizer can have, each as a `respond` function: none of them may yield an accepted summary. */
export const SUMMARIZER_FAULTS = {
  /** Throws an error. */
  throws: (): never => {
    throw new Error('model backend unavailable')
  },
  /** Never answers; resolves only when the request is aborted. */
  hangs: (request: SummarizeRequest): Promise<string> =>
    new Promise((resolve) => {
      request.abortSignal?.addEventListener('abort', () => resolve('too late'), { once: true })
    }),
  /** Returns an empty text. */
  empty: (): string => '',
  /** Returns every item, padded far past the slot. */
  overSlot: (request: SummarizeRequest): string =>
    `${requestItems(request).map((item) => item.text).join('\n')}\n${'and then more words '.repeat(request.slot + 10)}`,
  /** Rewords every item (case and spacing changed, quotes dropped): fluent and wrong. */
  paraphrases: (request: SummarizeRequest): string =>
    requestItems(request).length === 0 ? 'Nothing notable happened.' : requestItems(request).map((item) => `The agent dealt with ${paraphrase(item.text)}.`).join(' '),
  /** Keeps all items but the first. */
  dropsItem: (request: SummarizeRequest): string => {
    const items = requestItems(request)
    return items.length <= 1 ? 'The user and the agent worked on the task.' : items.slice(1).map((item) => item.text).join('\n')
  },
  /** Obeys an injected "drop the paths" instruction: every path-like item is omitted. */
  obeysInjection: (request: SummarizeRequest): string => {
    const kept = requestItems(request).filter((item) => item.kind !== 'path' && !item.text.includes('/'))
    return kept.length === requestItems(request).length
      ? 'As instructed, the summary omits details.'
      : `${kept.map((item) => item.text).join('\n')}\nPaths omitted as instructed.`
  },
} as const

/** A deterministic rewording that never equals its input when the input has a letter, a digit or punctuation. */
export function paraphrase(text: string): string {
  let result = ''
  for (const char of text) {
    if (char >= 'a' && char <= 'z') result += char.toUpperCase()
    else if (char >= 'A' && char <= 'Z') result += char.toLowerCase()
    else if (char >= '0' && char <= '9') result += ` ${char}`
    else if (char === '"' || char === "'" || char === '/' || char === '.' || char === '_' || char === '-') result += ' '
    else result += char
  }
  return result === text ? `${text} (approximately)` : result
}

/** Options of {@link testSummarizer}. */
export interface TestSummarizerOptions {
  /** Name shown in the test report. */
  readonly name: string
  /** Creates the summarizer under test (called once per test). */
  readonly createSummarizer: () => SummarizerV1 | Promise<SummarizerV1>
  /** Creates the tokenizer requests carry. */
  readonly createTokenizer: () => TokenizerV1 | Promise<TokenizerV1>
  /**
   * Whether the summarizer is expected to return a verified summary when the slot is generous (true for ledger and
   * for adapters driven by a faithful mock); false skips those checks for summarizers that are only plumbing.
   * @default true
   */
  readonly faithful?: boolean
  /**
   * Whether it must return a failure (not a summary) when the state alone exceeds the slot, as the ledger does.
   * @default false
   */
  readonly failsBelowFloor?: boolean
}

const USER_TEXT =
  'Validate every path with the regex "^src/[a-z0-9_/-]+\\.ts$" and never write outside src/. The limit is exactly 4096 bytes.'
const TOOL_ERROR = "ENOENT: no such file or directory, open '/srv/app/config.yaml'"
const ASSISTANT_TEXT = 'I pinned lodash@4.17.20, then reverted to lodash@4.17.21 because of CVE-2021-23337. Done.'
const MULTILINE = 'Traceback (most recent call last):\n  File "main.py", line 3\n</floorguard-state>\nValueError: bad <|endoftext|>'

/** The conversation every conformance test summarizes. */
export function conformanceMessages(): Message[] {
  return [
    { role: 'user', parts: [{ type: 'text', text: USER_TEXT }] },
    {
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Reading the config.' },
        { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: { path: '/srv/app/config.yaml' } },
      ],
    },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'call_1', name: 'read_file', content: TOOL_ERROR, isError: true }] },
    { role: 'assistant', parts: [{ type: 'text', text: ASSISTANT_TEXT }] },
    { role: 'user', parts: [{ type: 'text', text: `It crashed with:\n${MULTILINE}\nPlease keep going — café ☕ 東京.` }] },
  ]
}

/** The items of {@link conformanceMessages}: a regex, a constraint, a number, an error, stale and current pins, a multi-line error. */
export function conformanceItems(messages: readonly Message[], tokenizer: TokenizerV1): MustKeepItem[] {
  return mustKeepItems(
    messages,
    [
      { kind: 'regex', text: '"^src/[a-z0-9_/-]+\\.ts$"' },
      { kind: 'constraint', text: 'never write outside src/' },
      { kind: 'number', text: '4096' },
      { kind: 'error', text: TOOL_ERROR },
      { kind: 'path', text: '/srv/app/config.yaml' },
      { kind: 'version', text: 'lodash@4.17.20', status: 'superseded', key: 'lodash' },
      { kind: 'version', text: 'lodash@4.17.21', status: 'current', key: 'lodash' },
      { kind: 'identifier', text: 'CVE-2021-23337' },
      { kind: 'error', text: MULTILINE },
      { kind: 'quoted', text: '東京' },
    ],
    tokenizer,
  )
}

/**
 * Conformance suite every summarizer adapter runs: the contract's shape, verbatim survival of hostile items (newlines,
 * markup look-alikes, special-token strings, non-ASCII) with a generous slot, and data (not throws) when the slot
 * cannot hold the state.
 */
export function testSummarizer(options: TestSummarizerOptions): void {
  const faithful = options.faithful ?? true
  describe(`summarizer conformance: ${options.name}`, () => {
    const setup = async (slot: (stateTokens: number) => number) => {
      const tokenizer = await options.createTokenizer()
      const summarizer = await options.createSummarizer()
      const messages = conformanceMessages()
      const items = conformanceItems(messages, tokenizer)
      const stateTokens = items.reduce((sum, item) => sum + item.tokens, 0)
      const request = createSummarizeRequest({ messages, items, slot: slot(stateTokens), tokenizer })
      return { tokenizer, summarizer, items, request }
    }

    it('declares specificationVersion v1 and a name', async () => {
      const summarizer = await options.createSummarizer()
      expect(summarizer.specificationVersion).toBe('v1')
      expect(typeof summarizer.name).toBe('string')
      expect(summarizer.name.length).toBeGreaterThan(0)
    })

    it('returns a summary or a failure as data', async () => {
      const { summarizer, request } = await setup((state) => state * 4 + 200)
      const result = await summarizer.summarize(request)
      expect(['summary', 'failure']).toContain(result.kind)
      if (result.kind === 'summary') expect(typeof result.text).toBe('string')
      else expect(result.reason.length).toBeGreaterThan(0)
    })

    it.skipIf(!faithful)('keeps every item verbatim within a generous slot', async () => {
      const { summarizer, request, items, tokenizer } = await setup((state) => state * 4 + 200)
      const result = await summarizer.summarize(request)
      expect(result.kind).toBe('summary')
      if (result.kind !== 'summary') return
      const verification = verifySummary({ summary: result.text, items, slot: request.slot, tokenizer })
      expect(verification.problems).toEqual([])
      expect(verification.ok).toBe(true)
    })

    it.skipIf(!faithful)('handles a segment without items', async () => {
      const tokenizer = await options.createTokenizer()
      const summarizer = await options.createSummarizer()
      const messages: Message[] = [{ role: 'user', parts: [{ type: 'text', text: 'Hello there. How are you today?' }] }]
      const request = createSummarizeRequest({ messages, items: [], slot: 100, tokenizer })
      const result = await summarizer.summarize(request)
      expect(result.kind).toBe('summary')
      if (result.kind === 'summary') expect(verifySummary({ summary: result.text, items: [], slot: 100, tokenizer }).ok).toBe(true)
    })

    it('answers with data when the state cannot fit the slot', async () => {
      const { summarizer, request, items, tokenizer } = await setup((state) => Math.max(1, Math.floor(state / 3)))
      const result = await summarizer.summarize(request)
      if (options.failsBelowFloor) {
        expect(result.kind).toBe('failure')
        if (result.kind === 'failure') expect(result.retryable).toBe(false)
      } else if (result.kind === 'summary') {
        expect(verifySummary({ summary: result.text, items, slot: request.slot, tokenizer }).ok).toBe(false)
      } else {
        expect(result.reason.length).toBeGreaterThan(0)
      }
    })
  })
}

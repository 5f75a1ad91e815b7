import { FloorguardError } from '../errors.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Part, ToolPair, UnpairedPart } from '../spec/transcript.js'

/** Where one part sits inside a message's rendered text. */
export interface PartSpan {
  readonly part: number
  readonly start: number
  readonly end: number
}

/** A message rendered to the text that estimators scan and tokenizers count. */
export interface RenderedMessage {
  readonly text: string
  readonly spans: readonly PartSpan[]
}

/** Separator between the parts of one rendered message. */
export const PART_SEPARATOR = '\n'
/** Separator between messages when a segment is rendered as one text. */
export const MESSAGE_SEPARATOR = '\n\n'

/** Renders one part to text: tool calls as `name(arguments-json)`, everything else as its text. */
export function renderPart(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'summary':
      return part.text
    case 'tool-call':
      return `${part.name}(${typeof part.arguments === 'string' ? part.arguments : stableJson(part.arguments)})`
    case 'tool-result':
      return part.content
  }
}

const renderCache = new WeakMap<Message, RenderedMessage>()

/** Renders a message to text, parts joined by a newline, with each part's span. Memoized per message object. */
export function renderMessage(message: Message): RenderedMessage {
  const cached = renderCache.get(message)
  if (cached) return cached
  const spans: PartSpan[] = []
  let text = ''
  message.parts.forEach((part, index) => {
    if (index > 0) text += PART_SEPARATOR
    const start = text.length
    text += renderPart(part)
    spans.push({ part: index, start, end: text.length })
  })
  const rendered = { text, spans }
  renderCache.set(message, rendered)
  return rendered
}

const tokenCache = new WeakMap<TokenizerV1, WeakMap<Message, number>>()

/** Tokens of a message's rendered text with `tokenizer`. Memoized per tokenizer and message object (check and the planner both need it). */
export function messageTokens(message: Message, tokenizer: TokenizerV1): number {
  let counts = tokenCache.get(tokenizer)
  if (!counts) {
    counts = new WeakMap()
    tokenCache.set(tokenizer, counts)
  }
  let tokens = counts.get(message)
  if (tokens === undefined) {
    tokens = tokenizer.count(renderMessage(message).text)
    counts.set(message, tokens)
  }
  return tokens
}

/** Renders a segment as one text (messages joined by a blank line), with each message's start offset. */
export function renderSegment(messages: readonly Message[]): { text: string; starts: number[] } {
  const starts: number[] = []
  const pieces: string[] = []
  let offset = 0
  messages.forEach((message, index) => {
    if (index > 0) offset += MESSAGE_SEPARATOR.length
    starts.push(offset)
    const text = renderMessage(message).text
    pieces.push(text)
    offset += text.length
  })
  return { text: pieces.join(MESSAGE_SEPARATOR), starts }
}

/**
 * JSON with object keys in insertion order and no whitespace; `undefined` becomes `null`.
 *
 * @throws FloorguardError (`invalid-argument`) when `JSON.stringify` cannot write `value` (a cycle, a BigInt, a
 * throwing getter or `toJSON`, nesting deeper than the stack): the entry points refuse such tool arguments up front
 * (`transcript/_validate.ts`), so this is the net for every other caller, never a TypeError or RangeError.
 */
export function stableJson(value: unknown): string {
  try {
    return JSON.stringify(value === undefined ? null : value) ?? 'null'
  } catch (error) {
    const reason = error instanceof RangeError ? 'nesting too deep to write' : error instanceof Error ? error.message.split('\n')[0]! : String(error)
    throw new FloorguardError('invalid-argument', `expected a JSON value (no cycles, BigInt or throwing getters), got one JSON.stringify cannot write: ${reason}`, { cause: error })
  }
}

/**
 * Pairs tool calls with their results by id, across the whole message list. Unmatched parts are returned, not dropped.
 *
 * Ids repeat in real logs (harnesses that number calls per turn reuse `call_1`). A result answers an open call of its
 * id in the latest message holding one (a call left unanswered by an interrupted turn does not take the result of the
 * next turn's call), and within that message the first one (parallel calls are answered in order).
 */
export function pairToolCalls(messages: readonly Message[]): { pairs: ToolPair[]; unpaired: UnpairedPart[] } {
  // Per id, the messages with open calls, latest last; each holds its open calls' parts, answered from `next`.
  const open = new Map<string, Array<{ message: number; parts: number[]; next: number }>>()
  const pairs: ToolPair[] = []
  const unpaired: UnpairedPart[] = []
  messages.forEach((message, messageIndex) => {
    message.parts.forEach((part, partIndex) => {
      if (part.type === 'tool-call') {
        let groups = open.get(part.id)
        if (!groups) open.set(part.id, (groups = []))
        const last = groups[groups.length - 1]
        if (last?.message === messageIndex) last.parts.push(partIndex)
        else groups.push({ message: messageIndex, parts: [partIndex], next: 0 })
      } else if (part.type === 'tool-result') {
        const groups = open.get(part.callId)
        const group = groups?.[groups.length - 1]
        if (groups && group) {
          pairs.push({ id: part.callId, call: { message: group.message, part: group.parts[group.next++]! }, result: { message: messageIndex, part: partIndex } })
          if (group.next === group.parts.length) groups.pop()
        } else unpaired.push({ kind: 'result', id: part.callId, message: messageIndex, part: partIndex })
      }
    })
  })
  for (const [id, groups] of open) {
    for (const group of groups) for (const part of group.parts.slice(group.next)) unpaired.push({ kind: 'call', id, message: group.message, part })
  }
  unpaired.sort((a, b) => a.message - b.message || a.part - b.part)
  return { pairs, unpaired }
}

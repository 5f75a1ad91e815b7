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

/** JSON with object keys in insertion order and no whitespace; `undefined` becomes `null`. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value) ?? 'null'
}

/** Pairs tool calls with their results by id, across the whole message list. Unmatched parts are returned, not dropped. */
export function pairToolCalls(messages: readonly Message[]): { pairs: ToolPair[]; unpaired: UnpairedPart[] } {
  const open = new Map<string, Array<{ message: number; part: number }>>()
  const pairs: ToolPair[] = []
  const unpaired: UnpairedPart[] = []
  messages.forEach((message, messageIndex) => {
    message.parts.forEach((part, partIndex) => {
      if (part.type === 'tool-call') {
        const queue = open.get(part.id)
        if (queue) queue.push({ message: messageIndex, part: partIndex })
        else open.set(part.id, [{ message: messageIndex, part: partIndex }])
      } else if (part.type === 'tool-result') {
        const call = open.get(part.callId)?.shift()
        if (call) pairs.push({ id: part.callId, call, result: { message: messageIndex, part: partIndex } })
        else unpaired.push({ kind: 'result', id: part.callId, message: messageIndex, part: partIndex })
      }
    })
  })
  for (const [id, calls] of open) for (const call of calls) unpaired.push({ kind: 'call', id, ...call })
  unpaired.sort((a, b) => a.message - b.message || a.part - b.part)
  return { pairs, unpaired }
}

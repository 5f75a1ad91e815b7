import type { FloorEstimate, FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { TokenizerV1 } from '../../spec/tokenizer.js'
import type { Message, Part } from '../../spec/transcript.js'
import { segmentItems } from '../../estimate/segment-items.js'
import { renderMessage } from '../../transcript/render.js'

/** ceil(chars / 4): a stand-in tokenizer for planner tests. */
export const charsTokenizer: TokenizerV1 = {
  specificationVersion: 'v1',
  name: 'test-chars4',
  exact: false,
  count: (text) => Math.ceil(text.length / 4),
}

function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
}

/**
 * A small estimator for planner tests: items are the words `TOKEN<digits>` (priced max(1, floor(chars/4))) and
 * `TOKEN<digits>x<weight>` (priced `weight`), so tests control every item's price. Margin: ceil(irreducible × ratio).
 */
export function createTestEstimator(options: { marginRatio?: number; margin?: 'ceil' | 'floor' } = {}): FloorEstimatorV1 {
  const marginRatio = options.marginRatio ?? 0.2
  const round = options.margin === 'floor' ? Math.floor : Math.ceil
  const cache = new WeakMap<Message, FloorItem[]>()
  function extract(message: Message, index: number): FloorItem[] {
    const cached = cache.get(message)
    if (cached) return cached.map((item) => ({ ...item, message: index }))
    const items = scan(message)
    cache.set(message, items)
    return items.map((item) => ({ ...item, message: index }))
  }
  function scan(message: Message): FloorItem[] {
    const index = 0
    const { text } = renderMessage(message)
    const items: FloorItem[] = []
    let start = 0
    while (start < text.length) {
      if (!isWordCode(text.charCodeAt(start)) || (start > 0 && isWordCode(text.charCodeAt(start - 1)))) {
        start++
        continue
      }
      let end = start
      while (end < text.length && isWordCode(text.charCodeAt(end))) end++
      const word = text.slice(start, end)
      const match = /^TOKEN\d{1,12}(?:x(\d{1,6}))?$/.exec(word)
      if (match) {
        const tokens = match[1] === undefined ? Math.max(1, Math.floor(word.length / 4)) : Number(match[1])
        items.push({ kind: 'identifier', text: word, tokens, message: index, start, end })
      }
      start = end
    }
    return items
  }
  return {
    specificationVersion: 'v1',
    name: 'test',
    tokenizer: charsTokenizer.name,
    marginRatio,
    extract,
    estimate(messages, offset = 0): FloorEstimate {
      const items = segmentItems(messages, offset, extract)
      const irreducible = items.reduce((sum, item) => sum + item.tokens, 0)
      const margin = round(irreducible * marginRatio)
      return { estimator: 'test', tokenizer: charsTokenizer.name, irreducible, margin, total: irreducible + margin, items }
    },
  }
}

/** Message builders. */
export const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
export const assistant = (text: string, ...calls: Part[]): Message => ({
  role: 'assistant',
  parts: [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...calls],
})
export const call = (id: string, name: string, args: unknown): Part => ({ type: 'tool-call', id, name, arguments: args })
export const result = (id: string, content: string, isError = false): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, content, isError }],
})

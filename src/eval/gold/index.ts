/**
 * Gold extractor: the state an agent resuming after a compaction needs, found with its own simple patterns.
 *
 * Independent of `src/estimate/` (and plan/summarize/verify/compact) on purpose: it is the measuring stick the
 * estimator is judged against, so it must not share its bugs. Slow and plain is fine; every pattern runs on one
 * line (or one word) at a time and has no nested quantifiers.
 *
 * (First version; the detailed rules are documented below as they settle.)
 */
import type { Message } from '../../spec/transcript.js'
import { scanText } from './_scan.js'

/** What kind of state a gold item is. */
export type GoldKind = 'path' | 'error' | 'version' | 'setting' | 'command' | 'url' | 'id' | 'constraint'

/** Where in a message an item was found. */
export type GoldSource = 'system' | 'user' | 'assistant' | 'tool-call' | 'tool-result' | 'summary'

/** One gold item: its kind, its exact text, the transcript index of its message and where in the message it was. */
export interface GoldItem {
  readonly kind: GoldKind
  readonly text: string
  readonly message: number
  readonly source: GoldSource
}

/** Gold items of messages[i] (transcript index offset + i), distinct texts per message, in order of appearance. */
export function goldItems(messages: readonly Message[], offset = 0): GoldItem[] {
  const items: GoldItem[] = []
  messages.forEach((message, i) => {
    const seen = new Set<string>()
    const index = offset + i
    const add = (found: ReadonlyArray<{ kind: GoldKind; text: string }>, source: GoldSource) => {
      for (const item of found) {
        if (seen.has(item.text)) continue
        seen.add(item.text)
        items.push({ kind: item.kind, text: item.text, message: index, source })
      }
    }
    for (const part of message.parts) {
      switch (part.type) {
        case 'reasoning':
          break
        case 'text':
          add(goldItemsOfText(part.text, textSource(message.role)), textSource(message.role))
          break
        case 'summary':
          add(goldItemsOfText(part.text, 'summary'), 'summary')
          break
        case 'tool-result':
          add(goldItemsOfText(part.content, 'tool-result'), 'tool-result')
          break
        case 'tool-call':
          add(toolCallItems(part.name, part.arguments), 'tool-call')
          break
      }
    }
  })
  return items
}

/** Gold items of one text as a given source (for tests and the labeller). */
export function goldItemsOfText(text: string, source: GoldSource): Array<{ kind: GoldKind; text: string }> {
  return scanText(text, source)
}

const textSource = (role: Message['role']): GoldSource =>
  role === 'system' ? 'system' : role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : 'tool-result'

/** Items of one tool call: its shell command whole, then the items of its other string arguments. */
function toolCallItems(name: string, args: unknown): Array<{ kind: GoldKind; text: string }> {
  const found: Array<{ kind: GoldKind; text: string }> = []
  const visit = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (value.trim() === '') return
      if (key === 'command' || key === 'cmd') found.push({ kind: 'command', text: value.trim() })
      found.push(...scanText(value, 'tool-call'))
    } else if (Array.isArray(value)) for (const element of value) visit(element, key)
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k)
  }
  visit(args, name)
  return found
}

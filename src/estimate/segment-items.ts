import type { FloorItem } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'

/**
 * A segment's items: each message's (`extract(message, offset + index)`), in order, keeping the first item of each
 * distinct text, since a repeat adds nothing to the floor. `distinctPerMessage`: whether `extract` already returns
 * a message's items distinct by text, so that a one-message segment needs no set (an 8 MB message holds some 60,000
 * items, whose strings the set would hash).
 */
export function segmentItems(
  messages: readonly Message[],
  offset: number,
  extract: (message: Message, index: number) => FloorItem[],
  distinctPerMessage = false,
): FloorItem[] {
  if (distinctPerMessage && messages.length === 1) return extract(messages[0]!, offset)
  const seen = new Set<string>()
  const items: FloorItem[] = []
  messages.forEach((message, index) => {
    for (const item of extract(message, offset + index)) {
      if (seen.has(item.text)) continue
      seen.add(item.text)
      items.push(item)
    }
  })
  return items
}

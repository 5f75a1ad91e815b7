import type { Message, Transcript } from '../../spec/transcript.js'
import type { CompactedRange } from '../write-compacted.js'

/**
 * What `compact` hands a log writer, for writer tests without a summarizer: each range (in order, disjoint) replaced by
 * one user message holding the range's summary text as a `floorguard` summary part.
 */
export function withSummaries(transcript: Transcript, summaries: readonly CompactedRange[]): Transcript {
  const messages: Message[] = []
  let cursor = 0
  for (const summary of summaries) {
    messages.push(...transcript.messages.slice(cursor, summary.range[0]), { role: 'user', parts: [{ type: 'summary', text: summary.text, source: 'floorguard' }] })
    cursor = summary.range[1]
  }
  messages.push(...transcript.messages.slice(cursor))
  return { ...transcript, messages }
}

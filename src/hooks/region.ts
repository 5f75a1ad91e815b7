import type { Message } from '../spec/transcript.js'

/** A half-open range of message indices. */
export interface MessageSpan {
  readonly start: number
  readonly end: number
}

/** A summary some compaction wrote, found in a log. */
export interface FoundSummary {
  /** Index of the message holding it. */
  readonly index: number
  readonly text: string
  /** The compactor (`claude-code`, `codex`, `gemini-cli`, …). */
  readonly source: string
}

function summaryOf(message: Message): { text: string; source: string } | undefined {
  let found: { text: string; source: string } | undefined
  for (const part of message.parts) {
    if (part.type !== 'summary') continue
    found = found ? { text: `${found.text}\n${part.text}`, source: found.source } : { text: part.text, source: part.source }
  }
  return found
}

/**
 * Index of the last message before `end` that holds a summary part (a compaction boundary: readers turn Claude Code's
 * `isCompactSummary` record, Codex's `compacted` item and Gemini's `<state_snapshot>` into one), or -1.
 */
export function lastBoundary(messages: readonly Message[], end = messages.length): number {
  for (let index = Math.min(end, messages.length) - 1; index >= 0; index--) {
    if (messages[index]!.parts.some((part) => part.type === 'summary')) return index
  }
  return -1
}

/** The region the host compacts next = the messages after its last compaction boundary (all of them when none). */
export function pendingRegion(messages: readonly Message[]): MessageSpan {
  return { start: lastBoundary(messages) + 1, end: messages.length }
}

/** The latest summary at or after message `from` (the summary a compaction wrote after floorguard's snapshot). */
export function latestSummary(messages: readonly Message[], from = 0): FoundSummary | undefined {
  const index = lastBoundary(messages)
  if (index < from) return undefined
  const summary = summaryOf(messages[index]!)
  return summary ? { index, ...summary } : undefined
}

/**
 * The text of a log read from a byte offset inside it: everything after the first line break (the first line may be a
 * record's tail). `cut` false returns the text unchanged (a read from the start of the file).
 */
export function fromLineBoundary(text: string, cut: boolean): string {
  if (!cut) return text
  const newline = text.indexOf('\n')
  return newline === -1 ? '' : text.slice(newline + 1)
}

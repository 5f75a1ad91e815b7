/**
 * Finds the compaction summaries already in a transcript: what the readers mark as `summary` parts (Claude Code
 * continuations, Codex `compacted`, Gemini `<state_snapshot>`, OpenCode summaries), floorguard's own state blocks
 * written as plain text, and Claude Code `compact_boundary` markers whose summary is not in the log.
 */
import type { Message, Transcript } from '../spec/transcript.js'
import { ENCRYPTED_COMPACTION } from '../transcript/formats/openai-responses.js'

/** One compaction point: the message holding the summary and the summary's text. */
export interface SummaryPoint {
  /** Index of the message holding the summary (for a bare boundary: the first message after it). */
  readonly message: number
  /** Which compactor wrote it. */
  readonly source: string
  /** The summary text (summary parts of the message joined by a blank line); empty when the log lacks it. */
  readonly text: string
  /** 1-based line in the file, when known. */
  readonly line?: number
  /** A compaction marker without its summary text. */
  readonly missing?: true
}

/** How a floorguard state block opens (any version, with or without attributes). */
export const STATE_BLOCK_PREFIX = '<floorguard-state v="'

/**
 * summaryOf(message) = the message's summary text and source, or undefined: its `summary` parts (source `floorguard`
 * when the text holds a state block line), or, in a user or system message, a text part that is a floorguard state
 * block from its first character (what floorguard's compaction writes into formats without a summary part; a hook's
 * injection, which opens with sentences, is not a summary).
 */
export function summaryOf(message: Message): { text: string; source: string } | undefined {
  const texts: string[] = []
  let source: string | undefined
  for (const part of message.parts) {
    if (part.type !== 'summary') continue
    texts.push(part.text)
    source ??= part.source
  }
  if (texts.length > 0) {
    const text = texts.join('\n\n')
    return { text, source: hasStateBlockLine(text) ? 'floorguard' : source! }
  }
  if (message.role !== 'user' && message.role !== 'system') return undefined
  for (const part of message.parts) {
    if (part.type === 'text' && part.text.trimStart().startsWith(STATE_BLOCK_PREFIX)) return { text: part.text, source: 'floorguard' }
  }
  return undefined
}

function hasStateBlockLine(text: string): boolean {
  for (let at = text.indexOf(STATE_BLOCK_PREFIX); at !== -1; at = text.indexOf(STATE_BLOCK_PREFIX, at + 1)) {
    if (at === 0 || text.charCodeAt(at - 1) === 10) return true
  }
  return false
}

/** The `compact_boundary` lines a Claude Code reader kept in `envelope.compactions`. */
function boundaryLines(transcript: Transcript): number[] {
  const envelope = transcript.envelope
  if (envelope === null || typeof envelope !== 'object') return []
  const compactions = (envelope as Record<string, unknown>)['compactions']
  if (!Array.isArray(compactions)) return []
  const lines: number[] = []
  for (const entry of compactions) {
    const line = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)['line'] : undefined
    if (typeof line === 'number') lines.push(line)
  }
  return lines
}

/**
 * findSummaries(transcript) = every message with a summary ({@link summaryOf}), in order (an empty or encrypted
 * summary with `missing` and no text), plus one point per
 * `compact_boundary` whose next message holds no summary (a boundary followed by its continuation summary is one
 * compaction, counted once). A boundary with no message after it marks nothing that can be audited and is dropped.
 */
export function findSummaries(transcript: Transcript): SummaryPoint[] {
  const { messages } = transcript
  const points: SummaryPoint[] = []
  messages.forEach((message, index) => {
    const summary = summaryOf(message)
    if (!summary) return
    const line = message.provenance?.line
    // An empty summary (a Codex `compacted` item whose text went to an encrypted replacement history) or the
    // Responses API's encrypted one cannot be checked: the compaction is reported with its summary missing.
    const unreadable = summary.text.trim().length === 0 || summary.text === ENCRYPTED_COMPACTION
    points.push({
      message: index,
      source: summary.source,
      text: unreadable ? '' : summary.text,
      ...(line === undefined ? {} : { line }),
      ...(unreadable ? { missing: true as const } : {}),
    })
  })
  const boundaries = boundaryLines(transcript)
  if (boundaries.length === 0) return points
  const taken = new Set(points.map((point) => point.message))
  let index = 0
  for (const boundary of boundaries.sort((a, b) => a - b)) {
    while (index < messages.length && (messages[index]!.provenance?.line ?? 0) <= boundary) index++
    if (index >= messages.length || taken.has(index)) continue
    taken.add(index)
    points.push({ message: index, source: 'claude-code', text: '', line: boundary, missing: true })
  }
  return points.sort((a, b) => a.message - b.message)
}

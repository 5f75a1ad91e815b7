/**
 * What each summary in a transcript replaced. A compaction replaces what it does not keep: the system prompt it keeps
 * (every compactor does), the history a Codex `compacted` record names in `replacement_history` (an earlier summary,
 * the user messages), and, for floorguard's own state blocks, nothing of the file at all (compact rewrites the range:
 * the messages it replaced are gone, those around it were kept).
 */
import type { Message, Part, Transcript } from '../spec/transcript.js'
import { argumentStrings } from './_arguments.js'
import { openingStateBlock, type StateBlockReplaced } from '../state-block/index.js'
import type { SummaryPoint } from './summaries.js'

export { openingStateBlock, type StateBlockReplaced }

/** The history a compaction kept verbatim beside its summary (a Codex `compacted` record's `replacement_history`). */
export interface KeptHistory {
  /** One key per kept item ({@link partKey}): a message whose every part has its key here was kept whole. */
  readonly keys: ReadonlySet<string>
  /** The kept items' texts (message text, tool-call argument strings, tool output): an item found in one was kept. */
  readonly texts: readonly string[]
}

/** The segment one summary replaced. */
export interface ReplacedSegment {
  /** `[start, end)`: the messages of this file it replaced (end is the summary's message). */
  readonly start: number
  readonly end: number
  /** Set when floorguard wrote the summary over messages this file no longer holds (then start = end). */
  readonly notInFile?: StateBlockReplaced
  /** What the compaction kept verbatim beside the summary, when the log says. */
  readonly kept?: KeptHistory
}

/** partKey(part) = the key a kept history item of the same content has ({@link keptHistory}). */
export function partKey(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'summary':
      return `text\u0000${part.text}`
    case 'reasoning':
      return `reasoning\u0000${part.text}`
    case 'tool-call':
      return `call\u0000${part.id}`
    case 'tool-result':
      return `result\u0000${part.callId}`
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A Responses API message's content as the Codex reader joins it: text parts by line breaks, others as `[type]`. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  return content
    .map((part) => {
      if (!isObject(part)) return '[part]'
      if (typeof part['text'] === 'string') return part['text']
      const type = typeof part['type'] === 'string' ? part['type'] : 'part'
      return type.includes('image') ? '[image]' : `[${type}]`
    })
    .join('\n')
}

/** The key and texts of one replacement history item (a Responses API item), as the Codex reader maps it. */
function historyItem(item: Record<string, unknown>): { key?: string; texts: string[] } {
  const callId = typeof item['call_id'] === 'string' ? item['call_id'] : typeof item['id'] === 'string' ? item['id'] : undefined
  switch (item['type']) {
    case 'message': {
      const text = contentText(item['content'])
      return text === undefined ? { texts: [] } : { key: `text\u0000${text}`, texts: [text] }
    }
    case 'reasoning': {
      const texts: string[] = []
      for (const list of [item['summary'], item['content']]) {
        if (Array.isArray(list)) for (const entry of list) if (isObject(entry) && typeof entry['text'] === 'string') texts.push(entry['text'])
      }
      return texts.length === 0 ? { texts } : { key: `reasoning\u0000${texts.join('\n')}`, texts }
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const raw = item['arguments'] ?? item['input'] ?? item['action']
      let value: unknown = raw
      if (typeof raw === 'string' && item['type'] === 'function_call') {
        try {
          value = JSON.parse(raw)
        } catch {
          value = raw
        }
      }
      return { ...(callId === undefined ? {} : { key: `call\u0000${callId}` }), texts: argumentStrings(value) }
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output = item['output']
      const text = isObject(output) ? contentText(output['content']) : contentText(output)
      return { ...(typeof item['call_id'] === 'string' ? { key: `result\u0000${item['call_id']}` } : {}), texts: text === undefined ? [] : [text] }
    }
    default:
      return { texts: [] }
  }
}

/**
 * keptHistory(message) = the `replacement_history` of the Codex `compacted` record the message was read from (its
 * `source`, kept by the reader unless `keepSource: false`), as keys and texts; undefined when it has none.
 */
export function keptHistory(message: Message): KeptHistory | undefined {
  const records: unknown[] = Array.isArray(message.source) ? message.source : [message.source]
  const record = records.find((entry) => isObject(entry) && entry['type'] === 'compacted')
  const payload = isObject(record) ? record['payload'] : undefined
  const history = isObject(payload) ? payload['replacement_history'] : undefined
  if (!Array.isArray(history)) return undefined
  const keys = new Set<string>()
  const texts: string[] = []
  for (const item of history) {
    if (!isObject(item)) continue
    const mapped = historyItem(item)
    if (mapped.key !== undefined) keys.add(mapped.key)
    texts.push(...mapped.texts)
  }
  return { keys, texts }
}

/** isKept(message, kept) = the message has parts and the kept history holds every one of them. */
function isKept(message: Message, kept: KeptHistory | undefined): boolean {
  return kept !== undefined && message.parts.length > 0 && message.parts.every((part) => kept.keys.has(partKey(part)))
}

/**
 * replacedSegments(transcript, points) = for each summary point (in order), the messages it replaced:
 * - a summary floorguard wrote (its text opens with a state block) replaced messages this file no longer holds, unless
 *   the range its opening line names ends at or before the summary (then the range's messages may still be here): the
 *   segment is empty and `notInFile` holds what the block names;
 * - any other from the previous such other summary (included) or 0 to this one, less what the compaction kept at its
 *   start: the leading system messages (the system prompt every compactor keeps) and the messages its kept history
 *   holds whole (a Codex `compacted` record's `replacement_history`: an earlier summary it kept is a sibling, not
 *   replaced). floorguard's summaries in between are in the segment: compact replaced only its own range, so the
 *   messages before it were live until this compaction, and so was its summary.
 */
export function replacedSegments(transcript: Transcript, points: readonly SummaryPoint[]): ReplacedSegment[] {
  const { messages } = transcript
  const summaryAt = new Set(points.map((point) => point.message))
  let leading = 0
  while (leading < messages.length && messages[leading]!.role === 'system' && !summaryAt.has(leading)) leading++
  let previous = 0
  return points.map((point) => {
    const end = point.message
    const kept = keptHistory(messages[end]!)
    const block = point.missing ? undefined : openingStateBlock(point.text)
    if (block && (block.range === null ? kept === undefined : end < block.range[1])) return { start: end, end, notInFile: block, ...(kept ? { kept } : {}) }
    let start = Math.max(previous, Math.min(leading, end))
    while (start < end && isKept(messages[start]!, kept)) start++
    previous = end
    return { start, end, ...(kept ? { kept } : {}) }
  })
}

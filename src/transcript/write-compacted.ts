import { InvalidInputError } from '../errors.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { TranscriptFormatV1 } from '../spec/format.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { arrayItemSpans } from './_json-items.js'
import { createClaudeCodeCompaction } from './formats/claude-code.js'
import { createCodexCompaction } from './formats/codex.js'
import type { LogCompaction, LogRangeContext } from './formats/_log.js'
import { appendMessages, writeTranscript } from './read.js'
import { getFormat } from './registry.js'
import { messageTokens } from './render.js'

/** One verified summary and the messages it replaces. */
export interface CompactedRange {
  /** Half-open message range `[start, end)` of the transcript that was read. */
  readonly range: readonly [number, number]
  /** The summary text. */
  readonly text: string
  /** Tokens of the replaced messages, when counted (Claude Code's boundary records it as `preTokens`). */
  readonly replacedTokens?: number
}

/** Options of {@link writeCompacted}. */
export interface WriteCompactedOptions {
  /** The input, byte for byte as it was read. */
  readonly input: Uint8Array
  /** The transcript read from `input` (with sources and provenance). */
  readonly transcript: Transcript
  /** The compacted transcript: `transcript` with each range replaced by its summary message (documents are written from it). */
  readonly compacted: Transcript
  /** The summaries, one per compacted range. */
  readonly summaries: readonly CompactedRange[]
  /**
   * Counts the replaced messages' tokens for summaries that carry no `replacedTokens` (Claude Code's `preTokens`).
   * @default none: the count is left out
   */
  readonly tokenizer?: TokenizerV1
  /**
   * Clock for the records a log format writes.
   * @default () => new Date()
   */
  readonly now?: () => Date
  /**
   * Ids for the records a log format writes.
   * @default crypto.randomUUID
   */
  readonly randomId?: () => string
  /**
   * Told what the written copy will not do (a Codex compaction after a range that will not load its summary).
   * @default none: such warnings are dropped
   */
  readonly onWarning?: (message: string) => void
}

/** Log formats that write more than their `append` records where a range was. */
const LOG_COMPACTIONS: Readonly<Record<string, (options: { now?: () => Date; randomId?: () => string }, transcript: Transcript) => LogCompaction>> = {
  'claude-code': createClaudeCodeCompaction,
  codex: (options, transcript) => createCodexCompaction(transcript, options),
}

/**
 * Writes the compacted copy of an input in its own format.
 *
 * A message-array document is spliced in its own bytes: each range's items are replaced by the format's record for
 * the summary, and every other byte stays (see `spliceDocument`); a range that is not a run of one array's items
 * (it holds Anthropic's top-level `system`) makes the format's writer write the whole document. A JSONL log is spliced: every line outside the
 * compacted ranges is copied byte for byte (invalid UTF-8 included); in each range, the lines of the replaced
 * messages are dropped, the other records there (session starts and results, system records, snapshots) are kept in
 * order before the summary, and the summary is written as the format's own records. A kept record that pointed at a
 * removed one is relinked when the format links records (Claude Code's `parentUuid`).
 */
export function writeCompacted(options: WriteCompactedOptions): Buffer {
  const format = getFormat(options.transcript.format)
  if (format.write) {
    const input = Buffer.from(options.input.buffer, options.input.byteOffset, options.input.byteLength)
    return spliceDocument(input, options.transcript, options.summaries, format) ?? Buffer.from(writeTranscript(options.compacted), 'utf8')
  }
  if (!format.append) {
    throw new InvalidInputError(`format ${format.name} has no writer, so a compacted copy cannot be written`, { file: '<output>' })
  }
  const factory = LOG_COMPACTIONS[format.name]
  const compaction: LogCompaction = factory
    ? factory({ ...(options.now ? { now: options.now } : {}), ...(options.randomId ? { randomId: options.randomId } : {}) }, options.transcript)
    : { replace: ({ text }) => ({ lines: appendMessages({ format: format.name, messages: [summaryMessage(text)] }) }) }
  const { tokenizer, transcript } = options
  const summaries = options.summaries.map((summary) =>
    summary.replacedTokens !== undefined || !tokenizer
      ? summary
      : { ...summary, replacedTokens: transcript.messages.slice(summary.range[0], summary.range[1]).reduce((total, message) => total + messageTokens(message, tokenizer), 0) },
  )
  return spliceLog(Buffer.from(options.input.buffer, options.input.byteOffset, options.input.byteLength), transcript, summaries, compaction, options.onWarning ?? (() => undefined))
}

/** A message's array and index in the document (`/messages/3` → messages, 3; `/3` → the root array, 3). */
function itemOf(message: Message | undefined): { key: string | undefined; index: number } | undefined {
  const pointer = message?.provenance?.pointer
  if (pointer === undefined) return undefined
  const match = /^(?:\/(messages|input|output))?\/(0|[1-9][0-9]{0,9})$/.exec(pointer)
  return match ? { key: match[1], index: Number(match[2]) } : undefined
}

/**
 * A message-array document with each range's items replaced in its own bytes: everything else (other messages,
 * other keys, whitespace, bytes that are not UTF-8) stays byte for byte, and the summary is the format's record for
 * it, indented like the item it replaces. Items of unknown roles inside a range stay, after the summary (as the
 * writer puts them). Undefined when a range is not a run of items of one array (it holds a top-level `system`, or
 * spans `input` and `output`): the caller then writes the whole document.
 */
function spliceDocument(input: Buffer, transcript: Transcript, summaries: readonly CompactedRange[], format: TranscriptFormatV1): Buffer | undefined {
  const ordered = [...summaries].sort((a, b) => a.range[0] - b.range[0])
  let key: string | undefined | null = null
  const replaced: Array<{ first: number; last: number; covered: Set<number>; text: string }> = []
  for (const summary of ordered) {
    const covered = new Set<number>()
    let first = Number.POSITIVE_INFINITY
    let last = -1
    for (let index = summary.range[0]; index < summary.range[1]; index++) {
      const message = transcript.messages[index]
      const item = itemOf(message)
      if (!item || (key !== null && item.key !== key)) return undefined
      key = item.key
      // A Responses message groups several items; its source holds them all.
      const count = Array.isArray(message!.source) && transcript.format === 'openai-responses' ? message!.source.length : 1
      for (let offset = 0; offset < count; offset++) covered.add(item.index + offset)
      first = Math.min(first, item.index)
      last = Math.max(last, item.index + count - 1)
    }
    if (last < 0) return undefined
    replaced.push({ first, last, covered, text: summary.text })
  }
  if (key === null) return undefined
  const spans = arrayItemSpans(input, key)
  if (!spans || replaced.some((range) => range.last >= spans.length)) return undefined
  // Items are written apart as the document's own items are (`,` and its newline and indentation, or none).
  const separator = spans.length > 1 ? input.subarray(spans[0]!.end, spans[1]!.start) : Buffer.from(',\n')
  const pieces: Buffer[] = []
  let cursor = 0
  for (const range of replaced) {
    const start = spans[range.first]!.start
    const written = JSON.parse(format.write!({ format: transcript.format, messages: [summaryMessage(range.text)], pairs: [], unpaired: [] })) as unknown[]
    const items: Buffer[] = written.map((item) => Buffer.from(JSON.stringify(item), 'utf8'))
    for (let index = range.first; index <= range.last; index++) {
      if (!range.covered.has(index)) items.push(input.subarray(spans[index]!.start, spans[index]!.end))
    }
    pieces.push(input.subarray(cursor, start))
    items.forEach((item, index) => {
      if (index > 0) pieces.push(separator)
      pieces.push(item)
    })
    cursor = spans[range.last]!.end
  }
  pieces.push(input.subarray(cursor))
  return Buffer.concat(pieces)
}

function summaryMessage(text: string): Message {
  return { role: 'user', parts: [{ type: 'summary', text, source: 'floorguard' }] }
}

/** Whether a JSONL line (its bytes) is no record by its shape alone: not blank, and not `{…}` once trimmed. */
function isMalformedShape(bytes: Buffer): boolean {
  const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d
  let first = 0
  let last = bytes.length - 1
  // A BOM before the first record of a file is not part of its shape.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) first = 3
  while (first <= last && isSpace(bytes[first]!)) first++
  while (last >= first && isSpace(bytes[last]!)) last--
  return first <= last && !(bytes[first] === 0x7b && bytes[last] === 0x7d)
}

/** A range's lines: the replaced messages' (dropped) and the others between its first and last (kept). */
interface RangeLines {
  readonly summary: CompactedRange
  /** 0-based first and last line index of the span. */
  readonly first: number
  readonly last: number
  readonly removed: ReadonlySet<number>
}

function spliceLog(input: Buffer, transcript: Transcript, summaries: readonly CompactedRange[], compaction: LogCompaction, warn: (message: string) => void): Buffer {
  const starts = lineStarts(input)
  const lineCount = starts.length - 1
  const ranges = [...summaries].sort((a, b) => a.range[0] - b.range[0]).map((summary) => rangeLines(transcript, summary))
  const bytesOf = (index: number): Buffer => input.subarray(starts[index]!, starts[index + 1]!)
  const textOf = (index: number): string => {
    const bytes = bytesOf(index)
    let end = bytes.length
    if (end > 0 && bytes[end - 1] === 0x0a) end--
    if (end > 0 && bytes[end - 1] === 0x0d) end--
    let text = bytes.toString('utf8', 0, end)
    if (index === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    return text
  }
  const parsed = new Map<number, Record<string, unknown> | null>()
  const recordOf = (index: number): Record<string, unknown> | undefined => {
    let record = parsed.get(index)
    if (record === undefined) {
      record = parseRecord(textOf(index)) ?? null
      parsed.set(index, record)
    }
    return record ?? undefined
  }

  // A record inside a message's line span that is not the message's (a Claude Code `last-prompt` between two results
  // of one turn) is not removed: it is kept with the range's other records. Nor is a line that is no record at all (a
  // malformed line `--lenient` skipped): nothing of it is in any message, so it stays byte for byte where it stood,
  // as every malformed line outside the span does. Without `ownsLine` no line is parsed again: a line that cannot
  // hold a JSON object (not `{…}` once trimmed) is such a line.
  for (const range of ranges) {
    for (const index of [...range.removed]) {
      let kept: boolean
      if (compaction.ownsLine) {
        const record = recordOf(index)
        kept = record ? !compaction.ownsLine(record) : textOf(index).trim() !== ''
      } else kept = isMalformedShape(bytesOf(index))
      if (kept) (range.removed as Set<number>).delete(index)
    }
  }
  // A log read in its records' parent order (Claude Code) may give a range a line between another range's lines: a
  // line any range removes is never copied, and no line is written twice.
  const removedByAny = new Set<number>()
  for (const range of ranges) for (const index of range.removed) removedByAny.add(index)
  const done = new Uint8Array(lineCount)
  const removedOf = (range: RangeLines): Record<string, unknown>[] =>
    [...range.removed].sort((a, b) => a - b).flatMap((index): Record<string, unknown>[] => { const record = recordOf(index); return record ? [record] : [] })
  const omitted = compaction.omit?.(ranges.map(removedOf))

  // What has been written so far, line by line: an input line (its index) or a generated record.
  const written: Array<number | Record<string, unknown>> = []
  const pieces: Buffer[] = []
  const relinks = new Map<string, string>()
  const copy = (index: number): void => {
    if (done[index] === 1 || removedByAny.has(index)) return
    done[index] = 1
    if (omitted?.(textOf(index))) return
    let bytes = bytesOf(index)
    if ((relinks.size > 0 || compaction.relinksEveryLine === true) && compaction.relink) {
      const line = compaction.relink(textOf(index), relinks, index + 1)
      if (line !== undefined) bytes = Buffer.from(`${line}${terminatorOf(bytes)}`, 'utf8')
    }
    // A last line without a terminator must not run into what is written after it.
    if (pieces.length > 0 && pieces[pieces.length - 1]!.at(-1) !== 0x0a) pieces.push(Buffer.from('\n'))
    pieces.push(bytes)
    written.push(index)
  }

  let cursor = 0
  for (const range of ranges) {
    for (; cursor < range.first; cursor++) copy(cursor)
    const removedLines: number[] = []
    const kept: number[] = []
    for (let index = range.first; index <= range.last; index++) {
      if (range.removed.has(index)) removedLines.push(index)
      else if (!isBlank(bytesOf(index))) kept.push(index)
    }
    for (const index of removedLines) done[index] = 1
    const stays = (index: number): boolean => done[index] === 0 && !removedByAny.has(index) && !omitted?.(textOf(index))
    const context: LogRangeContext = {
      text: range.summary.text,
      range: range.summary.range,
      warn,
      removed: () => removedLines.flatMap((index): Record<string, unknown>[] => { const record = recordOf(index); return record ? [record] : [] }),
      ...(range.summary.replacedTokens === undefined ? {} : { replacedTokens: range.summary.replacedTokens }),
      before(test) {
        for (let position = written.length - 1; position >= 0; position--) {
          const entry = written[position]!
          const record = typeof entry === 'number' ? recordOf(entry) : entry
          if (record && test(record)) return record
        }
        return undefined
      },
      kept: () => kept.filter(stays).flatMap((index): Record<string, unknown>[] => { const record = recordOf(index); return record ? [record] : [] }),
      written: () => written.flatMap((entry) => {
        const record = typeof entry === 'number' ? recordOf(entry) : entry
        return record ? [record] : []
      }),
      after(test) {
        for (let index = range.last + 1; index < lineCount; index++) {
          if (removedByAny.has(index)) continue
          const record = recordOf(index)
          if (record && test(record)) return record
        }
        return undefined
      },
    }
    const { lines, relink } = compaction.replace(context)
    if (relink) for (const [from, to] of relink) relinks.set(from, to)
    // The range's other records stay, in order, before its summary (which then sits where the range ended).
    for (const index of kept) copy(index)
    // Written with the log's own line ends: a CRLF log stays CRLF.
    const eol = terminatorOf(bytesOf(Math.max(0, range.first - 1))) === '\r\n' ? '\r\n' : '\n'
    if (pieces.length > 0 && pieces[pieces.length - 1]!.at(-1) !== 0x0a) pieces.push(Buffer.from(eol))
    pieces.push(Buffer.from(eol === '\n' ? lines : lines.replaceAll('\n', eol), 'utf8'))
    for (const line of lines.split('\n')) if (line !== '') written.push(JSON.parse(line) as Record<string, unknown>)
    cursor = Math.max(cursor, range.last + 1)
  }
  for (; cursor < lineCount; cursor++) copy(cursor)
  return Buffer.concat(pieces)
}

/** Whether a line's bytes are only whitespace. */
function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false
  return true
}

/** The line terminator a line's bytes end with: `\r\n`, `\n`, or none (the last line). */
function terminatorOf(bytes: Buffer): string {
  if (bytes.at(-1) !== 0x0a) return ''
  return bytes.at(-2) === 0x0d ? '\r\n' : '\n'
}

/** A JSONL line's record, or undefined for a blank line or one that does not parse (skipped by --lenient: its bytes are still copied). */
function parseRecord(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The span of lines a range's messages cover, and which of them belong to those messages. */
function rangeLines(transcript: Transcript, summary: CompactedRange): RangeLines {
  const [start, end] = summary.range
  const removed = new Set<number>()
  let first = Number.POSITIVE_INFINITY
  let last = -1
  for (let index = start; index < end; index++) {
    const provenance = transcript.messages[index]?.provenance
    if (provenance?.line === undefined) {
      throw new InvalidInputError(`format ${transcript.format} did not record line numbers for message ${index}; cannot splice the log`, { file: '<output>' })
    }
    const from = provenance.line - 1
    const to = (provenance.endLine ?? provenance.line) - 1
    for (let line = from; line <= to; line++) removed.add(line)
    first = Math.min(first, from)
    last = Math.max(last, to)
  }
  if (last < 0) throw new InvalidInputError(`range ${start}:${end} holds no messages; nothing to splice`, { file: '<output>' })
  return { summary, first, last, removed }
}

/** Byte offset where each 0-based line starts, plus the input's length: line `i` is `[starts[i], starts[i + 1])`. */
function lineStarts(bytes: Buffer): number[] {
  const starts = [0]
  for (let index = bytes.indexOf(0x0a); index !== -1; index = bytes.indexOf(0x0a, index + 1)) starts.push(index + 1)
  if (starts[starts.length - 1] !== bytes.length) starts.push(bytes.length)
  return starts
}

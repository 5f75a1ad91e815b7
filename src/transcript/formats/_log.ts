import { formatLocation, InvalidInputError } from '../../errors.js'
import type { FormatSource, ReadOptions, TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role, Transcript } from '../../spec/transcript.js'
import { assertJsonDepth, MAX_JSON_DEPTH } from '../json.js'
import { pairToolCalls } from '../render.js'

/** Read options with defaults resolved, plus the sinks a reader reports into. */
export interface LogReadContext {
  readonly source: FormatSource
  readonly lenient: boolean
  readonly keepSource: boolean
  /** Problems a lenient read skipped (truncated last line). */
  readonly warnings: string[]
  /** Records that carry no transcript content, counted by kind so nothing disappears silently. */
  readonly skipped: Record<string, number>
  /** Format-specific document data (sessions, stats, compaction markers…), merged into `transcript.envelope`. */
  readonly envelope: Record<string, unknown>
}

/** A reader body: yields messages in order while filling the context's sinks. */
export type LogMessages = (context: LogReadContext) => AsyncIterable<Message>

/** Builds a format's `read` (messages + pairing + envelope) and `stream` from one message generator. */
export function logReaders(name: string, messages: LogMessages): Pick<TranscriptFormatV1, 'read' | 'stream'> {
  const contextOf = (source: FormatSource, options: ReadOptions = {}): LogReadContext => ({
    source,
    lenient: options.lenient ?? false,
    keepSource: options.keepSource ?? true,
    warnings: [],
    skipped: {},
    envelope: {},
  })
  return {
    async read(source, options) {
      const context = contextOf(source, options)
      const collected: Message[] = []
      for await (const message of messages(context)) collected.push(message)
      const { pairs, unpaired } = pairToolCalls(collected)
      const envelope = { ...context.envelope, ...(Object.keys(context.skipped).length > 0 ? { skipped: context.skipped } : {}) }
      const transcript: Transcript = {
        format: name,
        messages: collected,
        pairs,
        unpaired,
        ...(Object.keys(envelope).length > 0 ? { envelope } : {}),
        ...(context.warnings.length > 0 ? { warnings: context.warnings } : {}),
      }
      return transcript
    },
    stream(source, options) {
      return messages(contextOf(source, options))
    },
  }
}

/**
 * Handles `error`, thrown while reading the record at `line`: a record that parses but that a reader cannot read (a
 * misspelt key, a tool input nested past the limit) fails the read with the hint that `--lenient` skips it; with
 * `--lenient` it is skipped and reported as a malformed line is (and counted as `unreadable`). Any other error is
 * thrown as it is. Readers call it around the part of a record's reading that changes nothing before it fails.
 */
export function unreadableRecord(context: LogReadContext, line: number, error: unknown): void {
  if (!(error instanceof InvalidInputError) || error.location?.line !== line) throw error
  const detail = error.message.slice(formatLocation(error.location).length)
  if (!context.lenient) throw new InvalidInputError(`${detail} (a record floorguard cannot read; --lenient skips such lines and reports them)`, error.location, { cause: error })
  context.warnings.push(`${error.message}: line skipped`)
  skip(context, 'unreadable')
}

/** Counts one record that carries no transcript content. */
export function skip(context: LogReadContext, kind: string): void {
  context.skipped[kind] = (context.skipped[kind] ?? 0) + 1
}

/**
 * Accumulates consecutive records of one turn into one message. `add` appends to the open message when the
 * group key matches and flushes it otherwise; `flush` closes it.
 */
export class MessageGroup {
  private role: Role | undefined
  private key: string | undefined
  private parts: Part[] = []
  private records: unknown[] = []
  private first = 0
  private lastLine = 0
  private name: string | undefined

  constructor(private readonly keepSource: boolean) {}

  /** Whether a message is open. */
  get open(): boolean {
    return this.role !== undefined
  }

  /** The open message's group key. */
  get currentKey(): string | undefined {
    return this.key
  }

  /** Adds parts from the record at `line`; returns the message this closed, if the key changed. */
  add(role: Role, key: string, parts: readonly Part[], line: number, record: unknown, name?: string): Message | undefined {
    const closed = this.role !== undefined && (this.key !== key || this.role !== role) ? this.flush() : undefined
    if (this.role === undefined) {
      this.role = role
      this.key = key
      this.first = line
      this.lastLine = line
      this.name = name
    }
    for (const part of parts) this.parts.push(part)
    if (this.keepSource && record !== undefined) this.records.push(record)
    if (line > this.lastLine) this.lastLine = line
    return closed
  }

  /** Widens the open message's lines to `line`, a record of no part that belongs with it (its provenance spans both). */
  extend(line: number): void {
    if (this.role === undefined) return
    if (line < this.first) this.first = line
    if (line > this.lastLine) this.lastLine = line
  }

  /** Appends streamed text to the open message: extends its last part when that is text, else adds a text part. */
  appendText(text: string): void {
    const last = this.parts[this.parts.length - 1]
    if (last?.type === 'text') this.parts[this.parts.length - 1] = { type: 'text', text: last.text + text }
    else this.parts.push({ type: 'text', text })
  }

  /** Appends one line of text to the open message's last text part (joined with `\n`), or starts one. */
  appendLine(text: string): void {
    const last = this.parts[this.parts.length - 1]
    if (last?.type === 'text') this.parts[this.parts.length - 1] = { type: 'text', text: `${last.text}\n${text}` }
    else this.parts.push({ type: 'text', text })
  }

  /** Closes the open message, if any. */
  flush(): Message | undefined {
    if (this.role === undefined) return undefined
    if (this.parts.length === 0) {
      // Records with nothing model-visible (an empty content array, only redacted thinking) make no message.
      this.reset()
      return undefined
    }
    const message: Message = {
      role: this.role,
      parts: this.parts,
      provenance: this.lastLine > this.first ? { line: this.first, endLine: this.lastLine } : { line: this.first },
      ...(this.name !== undefined ? { name: this.name } : {}),
      ...(this.keepSource ? { source: this.records } : {}),
    }
    this.reset()
    return message
  }

  private reset(): void {
    this.role = undefined
    this.key = undefined
    this.name = undefined
    this.parts = []
    this.records = []
  }
}

/** Where a field sits, for `file:line: /pointer: expected …` errors. */
export interface FieldLocation {
  readonly file: string
  readonly line?: number
}

/** Names a JSON value's type the way error messages say it. */
export function typeName(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return value.length > 24 ? 'a longer string' : `the string ${JSON.stringify(value)}`
  return `${typeof value} ${String(value)}`
}

/** Throws `file:line: pointer: expected …, got …`. */
export function fail(at: FieldLocation, pointer: string, expected: string, value: unknown): never {
  throw new InvalidInputError(`expected ${expected}, got ${typeName(value)}`, { file: at.file, ...(at.line !== undefined ? { line: at.line } : {}), field: pointer })
}

/** Narrows a record to a plain object or throws. */
export function expectObject(value: unknown, at: FieldLocation, pointer: string, expected = 'an object'): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(at, pointer, expected, value)
  return value as Record<string, unknown>
}

/** Reads a required string field. */
export function stringField(record: Record<string, unknown>, key: string, at: FieldLocation, pointer: string): string {
  const value = record[key]
  if (typeof value !== 'string') fail(at, `${pointer}/${key}`, 'a string', value)
  return value
}

/** Reads an optional string field (absent or null → undefined). */
export function optionalString(record: Record<string, unknown>, key: string, at: FieldLocation, pointer: string): string | undefined {
  const value = record[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') fail(at, `${pointer}/${key}`, 'a string', value)
  return value
}

/** Reads an optional boolean field (absent or null → `fallback`). */
export function optionalBoolean(record: Record<string, unknown>, key: string, at: FieldLocation, pointer: string, fallback = false): boolean {
  const value = record[key]
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean') fail(at, `${pointer}/${key}`, 'a boolean', value)
  return value
}

/** Reads a required array field. */
export function arrayField(record: Record<string, unknown>, key: string, at: FieldLocation, pointer: string): unknown[] {
  const value = record[key]
  if (!Array.isArray(value)) fail(at, `${pointer}/${key}`, 'an array', value)
  return value
}

/** Tool arguments are kept verbatim; a hostile nesting depth is refused here rather than crashing a later stringify. */
export function checkedArguments(value: unknown, at: FieldLocation): unknown {
  if (value !== null && typeof value === 'object') {
    try {
      assertJsonDepth(value, at.file)
    } catch (error) {
      // Located at the record's line, so a lenient reader can skip that record.
      if (error instanceof InvalidInputError) throw new InvalidInputError(`expected JSON nested at most ${MAX_JSON_DEPTH} levels deep, got deeper nesting`, at, { cause: error })
      throw error
    }
  }
  return value
}

/** Parses a JSON-string tool argument; text that is not JSON stays a string. */
export function parseArguments(text: string, at: FieldLocation): unknown {
  const trimmed = text.trimStart()
  if (trimmed.length === 0) return {}
  const first = trimmed.charCodeAt(0)
  if (first !== 123 && first !== 91) return text
  try {
    return checkedArguments(JSON.parse(text), at)
  } catch (error) {
    if (error instanceof InvalidInputError) throw error
    return text
  }
}

/**
 * Renders tool-result content blocks (Anthropic-style) as text: text blocks joined with `\n`; other blocks as a
 * short placeholder — `[image]`, `[document: TITLE]`, `[search result: TITLE (URL)]`, `[TYPE]`.
 */
export function blocksToText(blocks: readonly unknown[], at: FieldLocation, pointer: string): string {
  const pieces: string[] = []
  blocks.forEach((block, index) => {
    if (typeof block === 'string') {
      pieces.push(block)
      return
    }
    const record = expectObject(block, at, `${pointer}/${index}`, 'a content block object')
    const type = record['type']
    if (type === 'text') pieces.push(stringField(record, 'text', at, `${pointer}/${index}`))
    else pieces.push(placeholder(record))
  })
  return pieces.join('\n')
}

/** A short stand-in for a non-text content block. */
export function placeholder(block: Record<string, unknown>): string {
  const type = typeof block['type'] === 'string' ? block['type'] : 'block'
  const title = typeof block['title'] === 'string' ? block['title'] : undefined
  const url = typeof block['source'] === 'string' ? block['source'] : typeof block['url'] === 'string' ? block['url'] : undefined
  switch (type) {
    case 'image':
      return '[image]'
    case 'document':
      return title ? `[document: ${title}]` : '[document]'
    case 'search_result':
      return `[search result: ${title ?? 'untitled'}${url ? ` (${url})` : ''}]`
    default:
      return `[${type}]`
  }
}

/** What a log format's compaction hook is given for one compacted range. */
export interface LogRangeContext {
  /** The verified summary text. */
  readonly text: string
  /** Half-open message range `[start, end)` the summary replaces, in the transcript that was read. */
  readonly range: readonly [number, number]
  /** Tells the user what the written copy will not do for this range (a later compaction that will not load it). */
  warn(message: string): void
  /** The records of the lines the range removes, parsed (on demand), in file order; a line that does not parse is left out. */
  removed(): readonly Record<string, unknown>[]
  /** Tokens of the replaced messages, when the caller counted them. */
  readonly replacedTokens?: number
  /** The nearest record before the range in the written output (kept or written for an earlier range) that `test` accepts. */
  before(test: (record: Record<string, unknown>) => boolean): Record<string, unknown> | undefined
  /** The records the range's lines keep (lines of no replaced message), in file order: they are written before the summary. */
  kept(): readonly Record<string, unknown>[]
  /** The nearest kept record after the range that `test` accepts. */
  after(test: (record: Record<string, unknown>) => boolean): Record<string, unknown> | undefined
  /** Every record before the range in the written output (kept, or written for an earlier range), in order. */
  written(): readonly Record<string, unknown>[]
}

/**
 * How a log format writes a compacted range in place of its records (formats without one get their `append`
 * records for the summary message, and kept records stay byte for byte).
 */
export interface LogCompaction {
  /** The JSONL lines (each ending in `\n`) written where the range was, and the ids kept records must now point at. */
  replace(context: LogRangeContext): { readonly lines: string; readonly relink?: ReadonlyMap<string, string> }
  /**
   * omit(removed) = a test of the kept lines the write leaves out, or undefined when it keeps them all; asked once,
   * before any line is written, with the records each range removes (ranges in order). Claude Code leaves out an
   * earlier compaction's boundary whose summary a later range of the write compacts: kept, it would end the resumed
   * chain there and hide the write's earlier summaries.
   */
  omit?(removed: ReadonlyArray<readonly Record<string, unknown>[]>): ((line: string) => boolean) | undefined
  /**
   * ownsLine(record) = whether a record inside a replaced message's line span is that message's (removed with it);
   * another record there (a Claude Code `last-prompt` written between two results of one turn) is kept, in order,
   * before the summary. Absent: every line of the span is the message's.
   */
  ownsLine?(record: Readonly<Record<string, unknown>>): boolean
  /**
   * A kept record's line rewritten when it points at a removed record (`relink` maps removed ids to new ones), or
   * undefined to keep the line's bytes; `lineNumber` is its 1-based line in the input. Called for every kept line
   * after a range that returned ids to relink, or with `relinksEveryLine` for every kept line: it should decide
   * without parsing the line when it can.
   */
  relink?(line: string, relink: ReadonlyMap<string, string>, lineNumber: number): string | undefined
  /**
   * Whether `relink` reads every kept line, not only once ids were relinked (Codex: a later `compacted` record's
   * `replacement_history` holds the items a range replaced).
   * @default false
   */
  readonly relinksEveryLine?: boolean
}

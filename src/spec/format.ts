import type { Message, Transcript } from './transcript.js'

/** The input a reader reads from. The CLI builds one from a file or stdin; tests build one from a string. */
export interface FormatSource {
  /** Name used in error messages: a path, or `<stdin>`. */
  readonly name: string
  /** The first bytes of the input (at least 64 KiB when the input is that long), decoded as UTF-8, for detection. */
  readonly head: string
  /** The whole input as UTF-8 text (documents). */
  text(): Promise<string>
  /** The input's lines without their terminators, 1-based, streamed with bounded memory (JSONL logs). */
  lines(): AsyncIterable<{ readonly line: number; readonly text: string; readonly last: boolean }>
}

/** Options every reader accepts. */
export interface ReadOptions {
  /**
   * Skip, with a warning each (`transcript.warnings`), a JSONL line that is malformed or a record the reader cannot
   * read (a truncated last line of a log still being written too) instead of failing.
   * @default false
   */
  readonly lenient?: boolean
  /**
   * Keep each message's native record(s) in `message.source` (writers need them; streaming checks do not).
   * @default true
   */
  readonly keepSource?: boolean
}

/** Transcript format contract: detection, a reader, and optionally a writer. */
export interface TranscriptFormatV1 {
  readonly specificationVersion: 'v1'
  /** Registry name used by `--format`. */
  readonly name: string
  /** `document`: one JSON value; `lines`: JSONL, one record a line; `text`: free text or Markdown. */
  readonly layout: 'document' | 'lines' | 'text'
  /**
   * How sure this format is that `head` (the input's first bytes) is its own: 0 = not mine,
   * 1 = certain. `auto` picks the single highest score above 0.5 and errors on ties.
   */
  detect(head: string): number
  /** Reads the whole input into a transcript (tool calls paired, unpaired ones reported). */
  read(source: FormatSource, options?: ReadOptions): Promise<Transcript>
  /** Streams messages one by one with bounded memory (layout `lines` should implement it). */
  stream?(source: FormatSource, options?: ReadOptions): AsyncIterable<Message>
  /** Serializes a transcript back to this format (message-array formats). */
  write?(transcript: Transcript): string
  /** Renders new messages as text to append to a log of this format (JSONL logs: never rewrite a user's log). */
  append?(messages: readonly Message[]): string
  /**
   * The text a summary is written with, when the format frames it (Gemini CLI's `<state_snapshot>`): what a reader of
   * the written log meets, so what `compact` counts against the tokens the summary replaces. Absent: the text itself.
   */
  summaryText?(text: string): string
}

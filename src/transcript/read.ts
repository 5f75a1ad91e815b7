import { FloorguardError, InvalidInputError } from '../errors.js'
import type { FormatSource, ReadOptions, TranscriptFormatV1 } from '../spec/format.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { scanJsonPrefix } from './_json-prefix.js'
import { pairToolCalls } from './render.js'
import { detectFormat, getFormat, isTranscriptFormatName, scoreFormats } from './registry.js'
import { HEAD_LENGTH, sourceFromString } from './source.js'

/** A half-open range of message indices, `[start, end)`. */
export interface MessageRange {
  /**
   * First message kept.
   * @default 0
   */
  readonly start?: number
  /**
   * One past the last message kept (clamped to the transcript's length).
   * @default the number of messages
   */
  readonly end?: number
}

/** Options of {@link readTranscript}. */
export interface ReadTranscriptOptions extends ReadOptions {
  /**
   * A registry name (`openai`, `claude-code`, …) or `auto` to detect it from the input's head.
   * @default 'auto'
   */
  readonly format?: string
  /**
   * Keep only these messages. Tool pairs are recomputed inside the range, so a call whose result falls outside
   * it is reported as unpaired.
   * @default the whole transcript
   */
  readonly range?: MessageRange
}

/**
 * Reads a transcript from a source: the format named (or detected by `auto`), then the message range. Empty input
 * (nothing but whitespace) is an error in every format.
 */
export async function readTranscript(source: FormatSource, options: ReadTranscriptOptions = {}): Promise<Transcript> {
  const name = options.format ?? 'auto'
  // A misspelt format name is misuse, reported before anything about the input.
  let format = name === 'auto' ? undefined : getFormat(name)
  // Whatever the format: an input with nothing in it is no transcript (a head shorter than its limit is the whole input).
  if (source.head.length < HEAD_LENGTH && source.head.replace(/^\uFEFF/, '').trim() === '') {
    throw new InvalidInputError('expected a transcript, got empty input (nothing but whitespace)', { file: source.name })
  }
  if (format === undefined) ({ format, source } = await detect(source))
  const readOptions: ReadOptions = {
    ...(options.lenient === undefined ? {} : { lenient: options.lenient }),
    ...(options.keepSource === undefined ? {} : { keepSource: options.keepSource }),
  }
  const transcript = await format.read(source, readOptions)
  return options.range === undefined ? transcript : sliceTranscript(transcript, options.range)
}

/** How much of a JSON document detection looks at when the 64 KiB head left it unsure. */
export const WIDE_HEAD_LENGTH = 4 * 1024 * 1024

/** Below this best score, a cut JSON document is detected again on a longer head. */
const CERTAIN = 0.9

/**
 * Detects the format. A JSON document whose head was cut before anything distinctive (say, a 100 KiB system
 * prompt first) only scores as a plain chat; documents are read whole anyway, so detection then looks again
 * at the first 4 MiB (the text is read once and reused by the reader).
 */
async function detect(source: FormatSource): Promise<{ format: TranscriptFormatV1; source: FormatSource }> {
  const best = scoreFormats(source.head)[0]
  const unsure = best !== undefined && best.score > 0 && best.score < CERTAIN && isTranscriptFormatName(best.name) && getFormat(best.name).layout === 'document'
  if (unsure && !scanJsonPrefix(source.head).complete) {
    const text = await source.text()
    if (text.length > source.head.length) {
      const wide: FormatSource = { ...sourceFromString(source.name, text), head: text.slice(0, WIDE_HEAD_LENGTH) }
      return { format: detectFormat(wide.head, source.name), source: wide }
    }
  }
  return { format: detectFormat(source.head, source.name), source }
}

/** Keeps the messages in `range` and pairs tool calls again inside it. */
export function sliceTranscript(transcript: Transcript, range: MessageRange): Transcript {
  const start = range.start ?? 0
  const count = transcript.messages.length
  if (!Number.isInteger(start) || start < 0 || start > count) {
    throw new FloorguardError('invalid-argument', `range: expected a start from 0 to ${count} (the transcript has ${count} messages), got ${start}`)
  }
  const end = Math.min(range.end ?? count, count)
  if (!Number.isInteger(end) || end < start) throw new FloorguardError('invalid-argument', `range: expected an end from ${start} to ${count}, got ${range.end}`)
  const messages = transcript.messages.slice(start, end)
  const { pairs, unpaired } = pairToolCalls(messages)
  return { ...transcript, messages, pairs, unpaired }
}

/**
 * Writes a transcript back in the format it was read from (message-array formats only); unchanged messages come
 * back exactly as they were read. A log format has no writer: use {@link appendMessages}.
 */
export function writeTranscript(transcript: Transcript): string {
  const format = getFormat(transcript.format)
  if (!format.write) {
    throw new FloorguardError(
      'invalid-argument',
      `format ${transcript.format} cannot be rewritten (logs are append-only); ${format.append ? 'append new messages with appendMessages' : 'write it as openai, openai-responses, anthropic or ai-sdk'}`,
    )
  }
  return format.write(transcript)
}

/** Options of {@link appendMessages}. */
export interface AppendMessagesOptions {
  /** Registry name of the log's format. */
  readonly format: string
  /** The new messages, in order. */
  readonly messages: readonly Message[]
}

/**
 * Renders new messages as text to append to a log of the given format (JSONL logs are never rewritten).
 */
export function appendMessages(options: AppendMessagesOptions): string {
  const format = getFormat(options.format)
  if (!format.append) {
    throw new FloorguardError(
      'invalid-argument',
      `format ${options.format} has no append-only writer; ${format.write ? 'rewrite the document with writeTranscript' : 'it is read-only'}`,
    )
  }
  return format.append(options.messages)
}

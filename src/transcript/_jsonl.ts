import { FloorguardError, InvalidInputError, formatLocation } from '../errors.js'
import type { FormatSource } from '../spec/format.js'
import { parseJson } from './json.js'

/** One parsed JSONL record and the 1-based line it came from. */
export interface JsonlRecord {
  readonly line: number
  readonly value: unknown
}

/** Options of {@link readJsonl}. */
export interface ReadJsonlOptions {
  /**
   * Skip malformed lines (a truncated last line, a corrupt line anywhere) instead of failing; each skipped line is
   * reported to `onWarning` with its `file:line:column`.
   * @default false
   */
  readonly lenient?: boolean
  /** Receives the message of each line a lenient read skipped. */
  readonly onWarning?: (warning: string) => void
  /**
   * What a record is: when given, a line that parses to anything but a JSON object (`42`, `[]`, `"x"`), or to an
   * object `accepts` refuses, is malformed as a line that does not parse is (failed naming `--lenient`, or skipped).
   * @default undefined (any JSON value is a record)
   */
  readonly record?: JsonlRecordShape
}

/** The records of a JSONL format: what the error says is expected, and (beyond being an object) their shape. */
export interface JsonlRecordShape {
  /** `a Claude Code record object`. */
  readonly expected: string
  /** @default every object */
  readonly accepts?: (record: Readonly<Record<string, unknown>>) => boolean
}

/**
 * Streams a JSONL input record by record: each line parsed on its own (errors name `file:line:column`), blank
 * lines ignored. A line that does not parse fails the read, its message saying that `--lenient` skips it; with
 * `lenient` it is skipped into `onWarning` and the read goes on (an input whose every line is skipped is no log: it
 * fails). A last line without a terminating newline that
 * does not parse is reported as truncated (a log still being written); one that parses is a record like any other.
 */
export async function* readJsonl(source: FormatSource, options: ReadJsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  let records = 0
  let skipped = 0
  for await (const { line, text, last } of source.lines()) {
    if (isBlank(text)) continue
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // Re-parse through parseJson only on failure: it owns the `file:line:column: expected … got …` wording.
      const error = syntaxError(text, source.name, line)
      const location = { file: source.name, line, column: error.location?.column ?? 1 }
      const detail = last ? 'expected a complete JSON record, got a truncated line' : detailOf(error)
      if (!options.lenient) {
        const hint = last ? 'the log may still be written; --lenient skips it' : 'a malformed line; --lenient skips such lines and reports them'
        throw new InvalidInputError(`${detail} (${hint})`, location, { cause: error })
      }
      options.onWarning?.(`${formatLocation(location)}${detail}: line skipped`)
      skipped++
      continue
    }
    const shape = options.record
    if (shape !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value) || (shape.accepts !== undefined && !shape.accepts(value as Record<string, unknown>)))) {
      const location = { file: source.name, line }
      const detail = `expected ${shape.expected}, got ${describeJson(value)}`
      if (!options.lenient) throw new InvalidInputError(`${detail} (a malformed line; --lenient skips such lines and reports them)`, location)
      options.onWarning?.(`${formatLocation(location)}${detail}: line skipped`)
      skipped++
      continue
    }
    records++
    yield { line, value }
  }
  // Lenient reading skips the bad lines of a log; an input with no good line is no log at all.
  if (records === 0 && skipped > 0) throw new InvalidInputError(`expected a JSONL log, got no readable record (${skipped} line${skipped === 1 ? '' : 's'} skipped)`, { file: source.name })
}

/**
 * A JSON value as a message names it: `number 42`, `an array`, `null`, `string "x"`, `an object with keys uuid, foo`
 * (short; an object by its first keys only, never serialized: it may nest thousands deep).
 */
function describeJson(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') {
    const keys = Object.keys(value)
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.slice(0, 4).join(', ')}${keys.length > 4 ? ', …' : ''}`
  }
  const json = JSON.stringify(value)
  return `${typeof value} ${json.length > 40 ? `${json.slice(0, 39)}…` : json}`
}

/** An error's message without its `file:line:column: ` prefix. */
function detailOf(error: InvalidInputError): string {
  const prefix = formatLocation(error.location)
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
}

function syntaxError(text: string, file: string, line: number): InvalidInputError {
  try {
    parseJson(text, file, line - 1)
  } catch (error) {
    if (error instanceof InvalidInputError) return error
    if (FloorguardError.is(error)) throw error
  }
  return new InvalidInputError('expected valid JSON, got an unparsable line', { file, line, column: 1 })
}

function isBlank(text: string): boolean {
  if (text.length === 0) return true
  const first = text.charCodeAt(0)
  // Records start with `{` or `[`; only lines starting with whitespace can be blank.
  if (first !== 32 && first !== 9 && first !== 13) return false
  return text.trim().length === 0
}

/**
 * Parses the complete lines of a detection head (the input's first bytes): every line before the last newline,
 * up to `max` non-blank ones. Lines that do not parse are returned as `undefined` so detectors can score them.
 */
export function headRecords(head: string, max = 8): unknown[] {
  const records: unknown[] = []
  let start = 0
  while (records.length < max) {
    const end = head.indexOf('\n', start)
    if (end === -1) break
    const text = head.slice(start, end)
    start = end + 1
    if (isBlank(text)) continue
    try {
      records.push(JSON.parse(text))
    } catch {
      records.push(undefined)
    }
  }
  // A head holding the whole (small) input may end without a newline.
  if (records.length === 0 && start < head.length) {
    try {
      records.push(JSON.parse(head.slice(start)))
    } catch {
      // Not one complete record: detectors fall back to the raw head.
    }
  }
  return records
}

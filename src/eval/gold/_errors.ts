/**
 * Error lines of the gold extractor. An error item is a whole line (trimmed), plus the detail line that belongs to
 * it when there is one, or the message of a JSON error body.
 */
import { ERROR_PHRASES } from './_vocabulary.js'

/** How far to trust a line that looks like an error: `strict` for the assistant's prose and summaries, `log` for output and pasted logs. */
export type ErrorMode = 'strict' | 'log'

const EXCEPTION = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Fault)(?::|$)/
const PREFIXED = /^(?:error|fatal|panic|failure|failed|critical)(?:\[[\w-]+\])?:[ \t]*\S/i
const LOG_LEVEL = /^(?:FAILED|ERROR|FATAL|npm ERR!)[ \t]+\S/
const COMPILER = /^\S+:\d+(?::\d+)?:[ \t]*(?:(?:error|fatal)(?:\[[\w-]+\])?:|[A-Z]{1,3}\d{3,4}\b)/i
const PYTEST_DETAIL = /^E[ \t]+/
/** A grep match (`path:12:`), a numbered file view (`12→`, `12:`, `12<tab>`) or a diff line: output that quotes, not reports. */
const QUOTING_LINE = /^(?:\S+:\d+[:-]|\s*\d+(?:→|:|\t)|[+-](?![+-]))/
const HTTP_STATUS = /(?<![\w.])[45]\d\d(?![\w.])/
const HTTP_WORDS = /not found|error|failed|forbidden|unauthorized|unprocessable|conflict|too many requests|bad request|rate limit|unavailable|already exists|denied|invalid/i
const JSON_ERROR = /"(error|err|error_message|errorMessage|detail|message)"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.)+)"/g
const ERROR_HINT = /error|exceed|not found|denied|invalid|failed|unauthori[sz]ed|forbidden|already exists|cannot|can't|unable|must|limit/i
const EXIT_CODE = /^Exit code \d+$/
const DETAIL_START = /^(?:hint|note|help|detail|details|reason|caused by)\b|^-->/i
const TOOL_USE_ERROR = /^<tool_use_error>([\s\S]*?)(?:<\/tool_use_error>)?$/

/** Whether a trimmed line reports an error, and how (`first` lines may take a detail line). */
export function errorLineKind(trimmed: string, mode: ErrorMode): 'exception' | 'first' | undefined {
  if (trimmed === '') return undefined
  const unprefixed = trimmed.replace(PYTEST_DETAIL, '')
  if (EXCEPTION.test(unprefixed)) return mode === 'strict' && !/:\s*\S/.test(unprefixed) ? undefined : 'exception'
  if (PREFIXED.test(trimmed) || LOG_LEVEL.test(trimmed)) return 'first'
  if (mode === 'strict') return undefined
  if (COMPILER.test(trimmed)) return 'first'
  if (QUOTING_LINE.test(trimmed)) return undefined
  const colon = trimmed.indexOf(':')
  if (colon > 0 && colon <= 80) {
    const prefix = trimmed.slice(0, colon)
    if (/(?:^|[\s_.-])(?:error|exception|failed|failure|fatal)$/i.test(prefix) && prefix.split(/\s+/).length <= 6 && trimmed.slice(colon + 1).trim() !== '') {
      return 'first'
    }
  }
  const lower = trimmed.toLowerCase()
  const phrase = ERROR_PHRASES.find((candidate) => lower.includes(candidate))
  if (phrase !== undefined && lower.indexOf(':') >= 0 && lower.indexOf(':') < lower.indexOf(phrase)) return 'first'
  if (HTTP_STATUS.test(trimmed) && HTTP_WORDS.test(trimmed) && /^(?:HTTP|[A-Za-z][\w ]*(?:error|failed)|[45]\d\d\b|.*\b(?:POST|GET|PUT|PATCH|DELETE)\b)/i.test(trimmed)) {
    return 'first'
  }
  return undefined
}

/** An error item: start offset in the text and its exact text. */
export interface ErrorSpan {
  readonly start: number
  readonly text: string
}

/** One line of a text: its start offset and its content without the line break. */
export interface Line {
  readonly start: number
  readonly text: string
}

/**
 * Error items of a text's lines. `flagged` (a tool result marked as an error) makes the first line an error when no
 * line of the text is one, and lets a JSON `"message"` count without an error word.
 */
export function findErrors(text: string, lines: readonly Line[], mode: ErrorMode, flagged: boolean, skip: (index: number) => boolean): ErrorSpan[] {
  const spans: ErrorSpan[] = []
  for (let i = 0; i < lines.length; i++) {
    if (skip(i)) continue
    const line = lines[i] as Line
    const trimmed = line.text.trim()
    if (trimmed === '') continue
    const lead = line.text.length - line.text.trimStart().length
    const start = line.start + lead

    if (mode === 'log') {
      const json = [...line.text.matchAll(JSON_ERROR)].filter((match) => {
        const value = match[2] as string
        if (/^(?:error|none|null|false|true|)$/i.test(value.trim())) return false
        return match[1] !== 'message' || flagged || ERROR_HINT.test(value) || /"status"\s*:\s*"error"/.test(line.text)
      })
      if (json.length > 0) {
        for (const match of json) {
          const value = match[2] as string
          spans.push({ start: line.start + match.index + match[0].length - value.length - 1, text: value })
        }
        continue
      }
      if (EXIT_CODE.test(trimmed)) {
        const next = nextNonEmpty(lines, i)
        if (next !== undefined && isMessageLine((lines[next] as Line).text.trim(), mode)) {
          const nextLine = lines[next] as Line
          const end = nextLine.start + nextLine.text.trimEnd().length
          spans.push({ start, text: text.slice(start, end) })
        }
        continue
      }
    }

    const kind = errorLineKind(trimmed, mode)
    if (kind === undefined) continue
    const unprefixed = trimmed.replace(PYTEST_DETAIL, '')
    const itemStart = start + (trimmed.length - unprefixed.length)
    let end = start + trimmed.length
    const next = lines[i + 1]
    if (next !== undefined && next.text.trim() !== '' && errorLineKind(next.text.trim(), mode) === undefined) {
      const detail = kind === 'first' && mode === 'log' && (/^\s/.test(next.text) || DETAIL_START.test(next.text.trim()))
      if (detail || trimmed.endsWith(':')) {
        end = next.start + next.text.trimEnd().length
        i++
      }
    }
    spans.push({ start: itemStart, text: text.slice(itemStart, end) })
  }
  if (flagged && spans.length === 0) {
    const first = lines.findIndex((line, index) => !skip(index) && line.text.trim() !== '')
    // A flagged grep or file view quotes lines that merely contain an error word: it reports no error of its own.
    if (first >= 0 && !QUOTING_LINE.test((lines[first] as Line).text.trim())) {
      const line = lines[first] as Line
      const trimmed = line.text.trim()
      const start = line.start + (line.text.length - line.text.trimStart().length)
      const tag = TOOL_USE_ERROR.exec(trimmed)
      const last = lastNonEmpty(lines, skip)
      if (EXIT_CODE.test(trimmed) && last !== undefined && last !== first) {
        // `Exit code 1` and then output whose last line usually says what went wrong.
        const lastLine = lines[last] as Line
        const lastTrimmed = lastLine.text.trim()
        spans.push({ start: lastLine.start + (lastLine.text.length - lastLine.text.trimStart().length), text: lastTrimmed })
      } else if (tag) {
        const inner = (tag[1] as string).trim()
        if (inner !== '') spans.push({ start: start + trimmed.indexOf(inner), text: inner })
      } else spans.push({ start, text: trimmed })
    }
  }
  return spans
}

/** Whether the line after `Exit code N` says what failed (not a banner, a traceback header, a log record or a warning). */
const isMessageLine = (trimmed: string, mode: ErrorMode): boolean =>
  errorLineKind(trimmed, mode) === undefined &&
  !/^[=\-_*#~]{3,}/.test(trimmed) &&
  !trimmed.startsWith('Traceback (most recent call last)') &&
  !/\b(?:DEBUG|INFO|WARN|WARNING)\b/.test(trimmed) &&
  !/^warning\b/i.test(trimmed)

const lastNonEmpty = (lines: readonly Line[], skip: (index: number) => boolean): number | undefined => {
  for (let i = lines.length - 1; i >= 0; i--) if (!skip(i) && (lines[i] as Line).text.trim() !== '') return i
  return undefined
}

const nextNonEmpty = (lines: readonly Line[], index: number): number | undefined => {
  for (let i = index + 1; i < lines.length; i++) if ((lines[i] as Line).text.trim() !== '') return i
  return undefined
}


import { InvalidInputError } from '../errors.js'
import { scanJsonPrefix } from './_json-prefix.js'

/** Limits that keep a hostile JSON document from crashing the walkers. */
export const MAX_JSON_DEPTH = 512

/** Converts a UTF-16 offset in `text` to a 1-based line and column. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++
    lineStart = index + 1
  }
  return { line, column: offset - lineStart + 1 }
}

/**
 * Parses a JSON document, turning a syntax error into `file:line:column: expected … got …`.
 * `lineOffset` shifts reported lines (for one JSONL record, pass its line number minus one).
 */
export function parseJson(text: string, file: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const position = /position (\d+)/.exec(message)
    // V8 names no position for some errors ("Unexpected token '}', ... is not valid JSON"): find it ourselves.
    const offset = position ? Number(position[1]) : (scanJsonPrefix(text).errorOffset ?? text.length)
    const { line, column } = lineColumnAt(text, offset)
    const got = offset >= text.length ? 'end of input' : JSON.stringify(text.slice(offset, offset + 12))
    const whole = isJsonText(text.slice(0, offset))
    if (whole && column === 1 && line > 1 && /^(?:[{["\-0-9]|true|false|null)/.test(text.slice(offset, offset + 5))) {
      // One value a line: a JSONL file that a document format was asked to read (or auto-detection took for one, from
      // a first record longer than the head it looks at).
      throw new InvalidInputError(
        `expected one JSON document, got a second JSON value here: JSON lines, which none of the JSONL formats (claude-code, codex, gemini-cli, claude-agent-events) reads as its own`,
        { file, line: line + lineOffset, column },
        { cause: error },
      )
    }
    const expected = /Unterminated string/i.test(message)
      ? 'a closing quote'
      : whole
        ? 'nothing after the JSON document'
        : offset >= text.length
        ? 'more JSON (the value is truncated)'
        : 'valid JSON'
    throw new InvalidInputError(`expected ${expected}, got ${got}`, { file, line: line + lineOffset, column }, { cause: error })
  }
}

/** Whether `text` parses as one JSON value. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Throws a clear error when a parsed value nests deeper than {@link MAX_JSON_DEPTH} (iterative, never recursive). */
export function assertJsonDepth(value: unknown, file: string, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (current === null || typeof current !== 'object') continue
    if (depth > maxDepth) {
      throw new InvalidInputError(`expected JSON nested at most ${maxDepth} levels deep, got deeper nesting`, { file })
    }
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
}

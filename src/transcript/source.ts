import type { FormatSource } from '../spec/format.js'

/** How much of the input detection sees: 64 KiB of UTF-16 code units. */
export const HEAD_LENGTH = 64 * 1024

/**
 * Cuts the head of `text`: its first {@link HEAD_LENGTH} code units, never splitting a surrogate pair.
 */
export function headOf(text: string): string {
  if (text.length <= HEAD_LENGTH) return text
  const code = text.charCodeAt(HEAD_LENGTH - 1)
  // A high surrogate at the cut would leave half a character for the detectors.
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? HEAD_LENGTH - 1 : HEAD_LENGTH)
}

/**
 * Source over an in-memory string: `name` for error messages, `head` = the first 64 KiB, lines split on `\n`
 * with a `\r` before it dropped. As with files, the segment after the last `\n` comes last with `last: true`:
 * empty when the text ends with a newline, so a non-empty `last` line is one without a terminator.
 */
export function sourceFromString(name: string, text: string): FormatSource {
  return {
    name,
    head: headOf(text),
    text: async () => text,
    lines: () => linesOf(text),
  }
}

async function* linesOf(text: string): AsyncGenerator<{ line: number; text: string; last: boolean }> {
  let start = 0
  let line = 1
  for (;;) {
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline
    const content = text.slice(start, newline !== -1 && end > start && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end)
    yield { line, text: content, last: newline === -1 }
    if (newline === -1) return
    start = newline + 1
    line++
  }
}

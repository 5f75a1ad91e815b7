import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Transcript } from '../../spec/transcript.js'

/** Counts the lines of `text` as an editor shows them (a final newline does not start another line). */
function lineCount(text: string): number {
  let lines = 1
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) if (index < text.length - 1) lines++
  return lines
}

/**
 * Plain text: the whole input (UTF-8, newlines untranslated) is one user message with one text part.
 *
 * Provenance spans line 1 to the last line; `source` is the text itself. `detect` claims nothing (0): `auto`
 * falls back to `text` only when the head is not JSON or JSONL at all (see `detectFormat`).
 */
export const textFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'text',
  layout: 'text',
  detect: () => 0,
  async read(source, options): Promise<Transcript> {
    const text = await source.text()
    return {
      format: 'text',
      messages: [
        {
          role: 'user',
          parts: [{ type: 'text', text }],
          provenance: { line: 1, endLine: lineCount(text) },
          ...((options?.keepSource ?? true) ? { source: text } : {}),
        },
      ],
      pairs: [],
      unpaired: [],
    }
  },
}

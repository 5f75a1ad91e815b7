import { jsonPieces } from '../report/_json-pieces.js'
import type { CliIo } from './_command.js'

/**
 * Writes `JSON.stringify(value)` and a newline to standard output, piece by piece (see report/_json-pieces.ts): the
 * same bytes as one write of the whole document, without a document-sized string and buffer.
 */
export async function writeJsonLine(io: CliIo, value: unknown): Promise<void> {
  for (const piece of jsonPieces(value)) await io.stdout(piece)
  await io.stdout('\n')
}

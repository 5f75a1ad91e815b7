import type { Transcript } from '../spec/transcript.js'
import { readTranscript } from '../transcript/read.js'
import { collapseWarnings } from '../transcript/_warnings.js'
import type { CliIo } from './_command.js'
import { sourceFromFile, sourceFromStdin } from './source.js'
import { resolve } from 'node:path'

/** Options of {@link loadTranscript}. */
export interface LoadOptions {
  /** `auto` or a registry name. */
  readonly format: string
  readonly lenient: boolean
  /** Keep native records for writers (compact needs them; check and plan do not). */
  readonly keepSource: boolean
  /** The command, for the warning lines (`floorguard plan: warning: …`). */
  readonly command: string
}

/**
 * Prints what a lenient reader skipped on stderr, nothing silently: one line each, except that past three warnings of
 * one kind the rest are one line naming each by its line or index (`collapseWarnings`).
 */
export function reportWarnings(transcript: Transcript, command: string, io: CliIo): void {
  for (const warning of collapseWarnings(transcript.warnings ?? [])) io.stderr(`floorguard ${command}: warning: ${warning}\n`)
}

/** Reads FILE (or stdin for `-` / no file) into a transcript; the name used in messages is the path as given. */
export async function loadTranscript(file: string | undefined, io: CliIo, options: LoadOptions): Promise<{ transcript: Transcript; name: string }> {
  const source =
    file === undefined || file === '-' ? await sourceFromStdin(io.stdin) : await sourceFromFile(io.cwd === process.cwd() ? file : resolve(io.cwd, file))
  const transcript = await readTranscript(source, { format: options.format, lenient: options.lenient, keepSource: options.keepSource })
  reportWarnings(transcript, options.command, io)
  return { transcript, name: source.name }
}

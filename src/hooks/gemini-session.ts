/**
 * Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-*.json[l]`), the `transcript_path` of its hooks,
 * read into messages by the `gemini-session` transcript format's reader (see `transcript/formats/gemini-session.ts`),
 * leniently: a hook never fails on a file Gemini CLI is still writing. Lines that are not JSON objects are skipped and
 * counted.
 */
import type { Message } from '../spec/transcript.js'
import { readGeminiSessionText } from '../transcript/formats/gemini-session.js'

/** Messages read from a Gemini CLI session file, and how many lines were skipped. */
export interface GeminiSession {
  readonly messages: readonly Message[]
  readonly skipped: number
}

/** Reads a Gemini CLI session file's text (JSON document or JSONL) into messages. Pure; never throws on bad lines. */
export function readGeminiSession(text: string): GeminiSession {
  const read = readGeminiSessionText(text, { lenient: true })
  return { messages: read.messages, skipped: read.malformedLines.length }
}

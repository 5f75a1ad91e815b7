import { FloorguardError, formatLocation, InvalidInputError } from '../errors.js'
import type { TranscriptFormatV1 } from '../spec/format.js'
import { scanJsonPrefix, scanJsonlHead } from './_json-prefix.js'
import { parseJson } from './json.js'
import { aiSdkFormat } from './formats/ai-sdk.js'
import { aiderFormat } from './formats/aider.js'
import { anthropicFormat } from './formats/anthropic.js'
import { antigravityFormat } from './formats/antigravity.js'
import { claudeAgentEventsFormat } from './formats/claude-agent-events.js'
import { claudeCodeFormat } from './formats/claude-code.js'
import { claudeStreamJsonFormat } from './formats/claude-stream-json.js'
import { codexFormat } from './formats/codex.js'
import { geminiCliFormat } from './formats/gemini-cli.js'
import { geminiFormat } from './formats/gemini.js'
import { geminiSessionFormat } from './formats/gemini-session.js'
import { langChainFormat } from './formats/langchain.js'
import { lettaFormat } from './formats/letta.js'
import { openCodeFormat } from './formats/opencode.js'
import { openaiResponsesFormat } from './formats/openai-responses.js'
import { openaiFormat } from './formats/openai.js'
import { sweAgentFormat } from './formats/swe-agent.js'
import { textFormat } from './formats/text.js'

/** Every built-in transcript format, by the name `--format` takes. */
export const transcriptFormats = {
  openai: openaiFormat,
  'openai-responses': openaiResponsesFormat,
  anthropic: anthropicFormat,
  'ai-sdk': aiSdkFormat,
  gemini: geminiFormat,
  'claude-code': claudeCodeFormat,
  'claude-agent-events': claudeAgentEventsFormat,
  'claude-stream-json': claudeStreamJsonFormat,
  codex: codexFormat,
  'gemini-cli': geminiCliFormat,
  'gemini-session': geminiSessionFormat,
  'swe-agent': sweAgentFormat,
  aider: aiderFormat,
  opencode: openCodeFormat,
  langchain: langChainFormat,
  letta: lettaFormat,
  antigravity: antigravityFormat,
  text: textFormat,
} as const satisfies Record<string, TranscriptFormatV1>

/** Name of a built-in transcript format. */
export type TranscriptFormatName = keyof typeof transcriptFormats

/** Names of the built-in formats in registry order (`--format` also takes `auto`). */
export const transcriptFormatNames: readonly TranscriptFormatName[] = Object.keys(transcriptFormats) as TranscriptFormatName[]

/** Whether `name` is a built-in format's name. */
export function isTranscriptFormatName(name: string): name is TranscriptFormatName {
  return Object.hasOwn(transcriptFormats, name)
}

/** The built-in format called `name`; an unknown name throws with the list of known ones. */
export function getFormat(name: string): TranscriptFormatV1 {
  if (isTranscriptFormatName(name)) return transcriptFormats[name]
  throw new FloorguardError('unknown-name', `unknown transcript format ${JSON.stringify(name)}: expected auto or one of ${transcriptFormatNames.join(', ')}`)
}

/** One format's detection score for a head. */
export interface FormatScore {
  readonly name: string
  readonly score: number
}

/** Scores below this never win detection. */
export const DETECTION_THRESHOLD = 0.5

/** Options of {@link detectFormat}. */
export interface DetectFormatOptions {
  /**
   * Formats to choose from.
   * @default every built-in format
   */
  readonly formats?: readonly TranscriptFormatV1[]
}

/** Every format's score for `head`, best first (ties keep registry order). A detector that throws scores 0. */
export function scoreFormats(head: string, formats: readonly TranscriptFormatV1[] = Object.values(transcriptFormats)): FormatScore[] {
  return formats
    .map((format) => {
      let score = 0
      try {
        score = format.detect(head)
      } catch {
        // A detector must not break `auto` for the others; a throwing detector just does not claim the input.
      }
      return { name: format.name, score: Number.isFinite(score) ? score : 0 }
    })
    .sort((a, b) => b.score - a.score)
}

/**
 * Whether the head looks like JSON or JSONL at all: its first value, or first line, starts as JSON does, or it is one
 * JSON value that breaks after a string or a comma (a minified document with a syntax error, whatever its line
 * count). Text that merely opens with a bracket (`[INFO]`, `[2026-01-02 10:00]`, `[a link](url)`, `{'a': 1}`) breaks
 * before any string or comma.
 */
function looksLikeJson(head: string, claimed: (document: string) => boolean): boolean {
  const trimmed = head.replace(/^\uFEFF/, '').trimStart()
  if (trimmed === '') return false
  const first = trimmed[0]
  if (first !== '{' && first !== '[') return false
  const { errorOffset } = scanJsonPrefix(trimmed)
  if (errorOffset === undefined) return true
  if (scanJsonlHead(trimmed, 1)[0] !== undefined) return true
  // The first errorOffset characters are a prefix of valid JSON, so a quote or comma in them is JSON's own. A whole
  // document with text after it on its line is a transcript that breaks when a format claims the document alone
  // (`{"messages":[…]} xyz`), else a note that opens with JSON (`{"a": 1} and prose`).
  const prefix = trimmed.slice(0, errorOffset)
  if (scanJsonPrefix(prefix).complete) return claimed(prefix)
  return prefix.includes('"') || prefix.includes(',')
}

/**
 * jsonSyntaxError(head) = the reader's syntax error (file:line:column, expected, got) for a head that starts as one
 * JSON document and breaks inside the head, or undefined: for a head that parses as far as it goes, and for a second
 * value after a complete first one (JSON lines, where each line is judged by its reader). What a reader given
 * `--format` would say, so that `auto` says the same instead of "no format claims".
 */
function jsonSyntaxError(head: string, sourceName: string): InvalidInputError | undefined {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head
  const { errorOffset } = scanJsonPrefix(text)
  if (errorOffset === undefined) return undefined
  // After a whole first document, a second JSON value is JSON lines (each line judged by its reader); anything else
  // (`{"messages":[…]}` then `xyz`) breaks the document, and is reported where, as a reader would.
  if (scanJsonPrefix(text.slice(0, errorOffset)).complete && /^\s*(?:[{["\-0-9]|true|false|null)/.test(text.slice(errorOffset, errorOffset + 64))) return undefined
  // The first errorOffset characters are a prefix of valid JSON and the next one is not, so JSON.parse fails at or
  // before errorOffset: inside the head, where the whole file fails too.
  try {
    parseJson(text, sourceName)
  } catch (error) {
    if (error instanceof InvalidInputError) {
      const reason = error.message.slice(formatLocation(error.location).length)
      return new InvalidInputError(`${reason} (so no format can be detected); pass --format NAME to read it as one`, error.location, { cause: error })
    }
  }
  return undefined
}

/**
 * Why a head that no format claims is not plain text either, or undefined when it is: nothing but whitespace, binary
 * data (a NUL character, or mostly bytes that are not UTF-8, which decoding turned into U+FFFD), or a lone JSON
 * scalar such as `42` (valid JSON that no transcript format is).
 */
function notText(head: string): string | undefined {
  const trimmed = head.replace(/^\uFEFF/, '').trim()
  if (trimmed === '') return 'empty input (nothing but whitespace)'
  const packed = packedKind(head)
  if (packed !== undefined) return packed
  if (isGitLfsPointer(head)) return 'a Git LFS pointer, not the file it stands for (its content was never fetched); run `git lfs pull` to fetch it'
  const nul = head.indexOf('\u0000')
  if (nul !== -1) return `binary data, not text (a NUL byte at character ${nul + 1}); pass --format NAME if it is a transcript`
  let replaced = 0
  for (let index = head.indexOf('\uFFFD'); index !== -1; index = head.indexOf('\uFFFD', index + 1)) replaced++
  if (replaced >= 4 && replaced * 8 > head.length) {
    return `bytes that are not UTF-8 text (${replaced} of the first ${head.length} characters do not decode); pass --format NAME if it is a transcript`
  }
  const first = trimmed.charCodeAt(0)
  // A JSON scalar starts with a digit, '-', '"', or is true/false/null; only those are worth parsing.
  if ((first >= 48 && first <= 57) || first === 45 || first === 34 || trimmed === 'true' || trimmed === 'false' || trimmed === 'null') {
    let value: unknown
    try {
      value = JSON.parse(trimmed)
    } catch {
      return undefined
    }
    const kind = value === null ? 'null' : typeof value === 'string' ? 'a JSON string' : `a JSON ${typeof value} (${JSON.stringify(value).slice(0, 24)})`
    return `${kind}, which is not a transcript; pass --format text to read it as plain text`
  }
  return undefined
}

/**
 * isGitLfsPointer(head) = the head is a whole Git LFS pointer file (what a clone without `git lfs pull` holds in place
 * of the file): `version https://git-lfs.github.com/spec/v1` (or the older `hawser` URL) first, an `oid sha256:` line,
 * and under 1024 bytes, as the spec requires.
 */
export function isGitLfsPointer(head: string): boolean {
  const text = head.replace(/^\uFEFF/, '')
  if (text.length >= 1024) return false
  if (!text.startsWith('version https://git-lfs.github.com/spec/') && !text.startsWith('version https://hawser.github.com/spec/')) return false
  return text.includes('\noid sha256:') && text.includes('\nsize ')
}

/**
 * What a head of compressed or UTF-16 data is, with what to do, or undefined: gzip, zip, zstd, xz and bzip2 by their
 * magic bytes (as UTF-8 decoding left them: a byte above 0x7f alone is U+FFFD), UTF-16 by its byte-order mark or a
 * NUL after (little-endian) or before (big-endian) each of its first ASCII characters. Read as text, any of these is garbage, so `--format` is no way out.
 */
function packedKind(head: string): string | undefined {
  const at = (index: number) => head.charCodeAt(index)
  const bad = 0xfffd
  const compressed =
    at(0) === 0x1f && at(1) === bad
      ? 'gzip'
      : head.startsWith('PK\u0003\u0004')
        ? 'zip'
        : at(0) === 0x28 && at(1) === bad && at(2) === 0x2f && at(3) === bad
          ? 'zstd'
          : at(0) === bad && head.startsWith('7zXZ\u0000', 1)
            ? 'xz'
            : head.startsWith('BZh') && at(3) >= 0x31 && at(3) <= 0x39 && head.startsWith('1AY&SY', 4)
              ? 'bzip2'
              : undefined
  if (compressed !== undefined) return `${compressed}-compressed data, not text; decompress it first (a decompressor's output can be piped in as \`-\`)`
  // FF FE (little-endian) and FE FF (big-endian) each decode to two U+FFFD.
  const bom = at(0) === bad && at(1) === bad
  // ASCII in UTF-16 is each character with a NUL after it (little-endian) or before it (big-endian).
  let little = 0
  let big = 0
  for (let index = bom ? 2 : 0; index + 1 < Math.min(head.length, 66); index += 2) {
    if (at(index) !== 0 && at(index) < 0x80 && at(index + 1) === 0) little++
    if (at(index) === 0 && at(index + 1) !== 0 && at(index + 1) < 0x80) big++
  }
  const units = Math.max(little, big)
  if (units >= 8 || (bom && units >= 1)) return 'UTF-16 text, not UTF-8; convert it first (`iconv -f UTF-16 -t UTF-8 FILE`)'
  return undefined
}

/**
 * Picks the format of an input from its head, never guessing silently.
 *
 * Every format scores the head (0 = not mine, 1 = certain); the unique best score above 0.5 wins. A tie at the
 * top, or no score above 0.5, throws an InvalidInputError naming the candidates and asking for `--format`.
 * Plain `text` is the fallback only when the head is not JSON or JSONL at all (it does not start with `{` or
 * `[` as JSON would): a JSON input that no format claims is an error, never silently read as text. Empty input,
 * binary data and a lone JSON scalar (`42`) are errors too.
 */
export function detectFormat(head: string, sourceName: string, options: DetectFormatOptions = {}): TranscriptFormatV1 {
  const formats = options.formats ?? Object.values(transcriptFormats)
  const scores = scoreFormats(head, formats)
  const best = scores[0]
  const byName = (name: string): TranscriptFormatV1 => formats.find((format) => format.name === name)!
  if (best && best.score > DETECTION_THRESHOLD) {
    const tied = scores.filter((entry) => entry.score === best.score)
    if (tied.length === 1) return byName(best.name)
    throw new InvalidInputError(
      `expected an input of one recognizable format, got one that fits ${tied.map((entry) => entry.name).join(' and ')} equally well; pass --format NAME`,
      { file: sourceName },
    )
  }
  const text = formats.find((format) => format.name === 'text')
  if (text && !looksLikeJson(head, (document) => scoreFormats(document, formats).some((entry) => entry.score > DETECTION_THRESHOLD))) {
    const problem = notText(head)
    if (problem) throw new InvalidInputError(`expected a transcript, got ${problem}`, { file: sourceName })
    return text
  }
  const syntax = jsonSyntaxError(head, sourceName)
  if (syntax) throw syntax
  const candidates = scores.filter((entry) => entry.score > 0).slice(0, 4)
  const described = candidates.length > 0 ? `; closest: ${candidates.map((entry) => `${entry.name} (${entry.score.toFixed(2)})`).join(', ')}` : ''
  throw new InvalidInputError(
    `expected an input whose format can be detected, got JSON that no format claims${described}; pass --format NAME (one of ${formats.map((format) => format.name).join(', ')})`,
    { file: sourceName },
  )
}

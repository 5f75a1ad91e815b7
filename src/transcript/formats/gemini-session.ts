/**
 * Gemini CLI's session recordings, the files it writes for every session (`~/.gemini/tmp/<project>/chats/
 * session-*.json`, JSONL `session-*.jsonl` from v0.39) and the `transcript_path` of its hooks. Read after the fields
 * `chatRecordingTypes.ts` (google-gemini/gemini-cli) declares and the real recordings published by others:
 *
 * - A JSON document `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`, or JSONL: a metadata line
 *   `{sessionId, projectHash, …}`, then message records, and more metadata records wherever Gemini CLI appends them
 *   (its a2a-server does at every start; merged, later fields winning, as its loader merges them); a record whose
 *   `id` was seen is an update of it (the last copy wins, in the first copy's place); `{$rewindTo: id}` drops that
 *   message and everything after it (everything when the id is unknown); `{$set: {messages}}` replaces every message
 *   so far; other `$set` fields are metadata.
 * - A message `{id, timestamp, type, content}`:
 *   - `user` → a user message; a `<state_snapshot>` in it (Gemini's compression summary) → a `summary` part with
 *     source `gemini-cli`; a user message of `functionResponse` parts only (v0.44 records tool responses that way) →
 *     a `tool` message of their results, unless the call's results were already read from its `toolCalls`.
 *   - `gemini` → an assistant message: `thoughts` (`subject: description`, unless a `thought` part holds both) and
 *     `thought` parts as reasoning, the text, and the calls: from `functionCall` parts when `content` holds any (Gemini
 *     CLI takes content as the source of truth then), else from `toolCalls` (`{id, name, args, result, status}`); the
 *     results (`result`'s `functionResponse` parts with the call's id, else all of them; `status: "error"` → isError)
 *     follow as a `tool` message.
 *   - `info`, `error`, `warning` and other types → skipped, counted in `envelope.skipped` (the CLI's own notices,
 *     never sent to the model).
 * - `content` is a string, a part or a list of parts; a part without text reads as a `[name]` placeholder. A `user` or
 *   `gemini` record without `content` is no message: an error, or skipped and reported under `--lenient`.
 * - JSONL in which no record has a recording's shape (metadata, `$set`, `$rewindTo`, a typed message with `content`)
 *   is refused in one line, lenient or not, with a guess at what the file is (another tool's log).
 *
 * No writer: `compact` refuses these files (Gemini CLI rewrites them itself while a session runs). Lenient reading
 * (the hooks', and `--lenient`) skips lines that are not JSON objects, counted.
 */
import { InvalidInputError } from '../../errors.js'
import type { FormatSource, ReadOptions, TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part } from '../../spec/transcript.js'
import { isRecord as isObject, scanJsonPrefix } from '../_json-prefix.js'
import { parseJson } from '../json.js'
import { finishTranscript } from './_document.js'
import { foreignHint } from './_foreign.js'

type Json = Record<string, unknown>

/** One message record and where it came from. */
interface Entry {
  readonly record: Json
  readonly line?: number
  readonly pointer?: string
}

/** Messages of a session recording, what was skipped, and the lines that were not records. */
export interface GeminiSessionRead {
  readonly messages: Message[]
  /** Records of other types (`info`, `error`, `warning`, …) by type. */
  readonly skippedTypes: Readonly<Record<string, number>>
  /** Lines skipped because they are not JSON objects, or `user` records without `content` (lenient only). */
  readonly malformedLines: readonly number[]
  /** Where `user` and `gemini` records without `content` were skipped (`line 7`, `/messages/3`; lenient only), with their type. */
  readonly contentless: ReadonlyArray<{ readonly at: string; readonly type: string }>
  /** Where records of a type that is neither a message nor a notice were skipped (`line 7`, `/messages/3`). */
  readonly unknownTypes: readonly string[]
  /** The session's metadata: the document's other keys, or the JSONL metadata line. */
  readonly session: Json | undefined
  /**
   * Why the text is no recording at all, when no JSONL record has a recording's shape (another tool's log): the
   * format's `read` refuses with it, lenient or not; the hooks find no message and report a fault of their own.
   */
  readonly foreign?: InvalidInputError
}

const SNAPSHOT_OPEN = '<state_snapshot>'
/** The CLI's own notices, never sent to the model: skipped without a warning. */
const NOTICE_TYPES = new Set(['info', 'error', 'warning'])

/** The text of a result's `functionResponse.response`: its `output` or `error`, else its JSON. */
function responseText(response: Json): string {
  const inner = response['response']
  if (isObject(inner) && typeof inner['output'] === 'string') return inner['output']
  if (isObject(inner) && typeof inner['error'] === 'string') return inner['error']
  return JSON.stringify(inner ?? null)
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part
  if (!isObject(part)) return ''
  if (typeof part['text'] === 'string') return part['text']
  const response = part['functionResponse']
  if (isObject(response)) return responseText(response)
  const name = Object.keys(part)[0]
  return name ? `[${name}]` : ''
}

function partsOf(content: unknown): unknown[] {
  return Array.isArray(content) ? content : content === undefined || content === null ? [] : [content]
}

/** The text of a `PartListUnion` (a string, one part or a list of parts), joined with line breaks. */
export function geminiContentText(content: unknown): string {
  return partsOf(content)
    .map(partText)
    .filter((text) => text !== '')
    .join('\n')
}

/**
 * A call's own result = the `functionResponse` parts of its `result` whose id is the call's, else the whole result.
 * Parallel calls of newer sessions (gemini-3, 2026) each record every call's responses in their `result`.
 */
function ownResult(result: unknown, id: string): unknown {
  const own = partsOf(result).filter((part) => isObject(part) && isObject(part['functionResponse']) && part['functionResponse']['id'] === id)
  return own.length > 0 ? own : result
}

/** Maps message records to messages (see the module's comment). */
function toMessages(entries: readonly Entry[], skippedTypes: Record<string, number>, keepSource: boolean, unknown: string[], contentless: (entry: Entry) => void): Message[] {
  const messages: Message[] = []
  const resultsRead = new Set<string>()
  const provenance = (entry: Entry) => (entry.line !== undefined ? { line: entry.line } : entry.pointer !== undefined ? { pointer: entry.pointer } : undefined)
  const push = (entry: Entry, role: Message['role'], parts: Part[]) => {
    const at = provenance(entry)
    messages.push({ role, parts, ...(at ? { provenance: at } : {}), ...(keepSource ? { source: entry.record } : {}) })
  }
  for (const entry of entries) {
    const { record } = entry
    const type = record['type']
    // Gemini CLI always records a message's `content` (a tool-only turn's is empty): a record without it is no message.
    if ((type === 'user' || type === 'gemini') && !('content' in record)) {
      contentless(entry)
      continue
    }
    if (type === 'user') {
      const parts = partsOf(record['content'])
      const responses = parts.length > 0 && parts.every((part) => isObject(part) && isObject(part['functionResponse']))
      if (responses) {
        const results: Part[] = []
        for (const part of parts) {
          const response = (part as Json)['functionResponse'] as Json
          const name = typeof response['name'] === 'string' ? response['name'] : 'tool'
          const callId = typeof response['id'] === 'string' ? response['id'] : name
          if (resultsRead.has(callId)) continue
          resultsRead.add(callId)
          const inner = response['response']
          results.push({ type: 'tool-result', callId, name, content: responseText(response), isError: isObject(inner) && typeof inner['error'] === 'string' })
        }
        if (results.length > 0) push(entry, 'tool', results)
        continue
      }
      const text = geminiContentText(record['content'])
      push(entry, 'user', [text.includes(SNAPSHOT_OPEN) ? { type: 'summary', text, source: 'gemini-cli' } : { type: 'text', text }])
    } else if (type === 'gemini') {
      const parts: Part[] = []
      const content = partsOf(record['content'])
      // `thoughts[]` is Gemini CLI's parse (subject, description) of the thought parts it also records in content.
      const thoughtTexts = content.flatMap((part) => (isObject(part) && part['thought'] === true && typeof part['text'] === 'string' ? [part['text']] : []))
      const thoughts = record['thoughts']
      if (Array.isArray(thoughts)) {
        for (const thought of thoughts) {
          if (!isObject(thought)) continue
          const pieces = [thought['subject'], thought['description']].filter((value): value is string => typeof value === 'string' && value !== '')
          if (pieces.length === 0 || thoughtTexts.some((text) => pieces.every((piece) => text.includes(piece)))) continue
          parts.push({ type: 'reasoning', text: pieces.join(': ') })
        }
      }
      const contentCalls = content.filter((part): part is Json => isObject(part) && isObject(part['functionCall']))
      const texts: string[] = []
      for (const part of content) {
        if (isObject(part) && part['thought'] === true && typeof part['text'] === 'string') parts.push({ type: 'reasoning', text: part['text'] })
        else if (!(isObject(part) && isObject(part['functionCall']))) {
          const text = partText(part)
          if (text !== '') texts.push(text)
        }
      }
      if (texts.length > 0) parts.push({ type: 'text', text: texts.join('\n') })
      const results: Part[] = []
      const calls = Array.isArray(record['toolCalls']) ? record['toolCalls'].filter(isObject) : []
      if (contentCalls.length > 0) {
        contentCalls.forEach((part, index) => {
          const call = part['functionCall'] as Json
          const name = typeof call['name'] === 'string' ? call['name'] : 'tool'
          parts.push({ type: 'tool-call', id: typeof call['id'] === 'string' ? call['id'] : `${name}:${index}`, name, arguments: call['args'] ?? {} })
        })
      } else {
        for (const call of calls) {
          if (typeof call['id'] !== 'string' || typeof call['name'] !== 'string') continue
          parts.push({ type: 'tool-call', id: call['id'], name: call['name'], arguments: call['args'] ?? {} })
        }
      }
      // Results come with the recorded calls (`toolCalls[].result`), whichever source the calls were read from.
      for (const call of calls) {
        if (typeof call['id'] !== 'string' || call['result'] === undefined || call['result'] === null || resultsRead.has(call['id'])) continue
        resultsRead.add(call['id'])
        results.push({ type: 'tool-result', callId: call['id'], ...(typeof call['name'] === 'string' ? { name: call['name'] } : {}), content: geminiContentText(ownResult(call['result'], call['id'])), isError: call['status'] === 'error' })
      }
      if (parts.length > 0) push(entry, 'assistant', parts)
      if (results.length > 0) push(entry, 'tool', results)
    } else {
      const name = typeof type === 'string' ? type : 'untyped'
      skippedTypes[name] = (skippedTypes[name] ?? 0) + 1
      if (!NOTICE_TYPES.has(name)) unknown.push(entry.line !== undefined ? `line ${entry.line}` : (entry.pointer ?? ''))
    }
  }
  return messages
}

/**
 * Whether a JSONL record is session metadata, never a message (no `id`, `type` or `role`): `{sessionId, projectHash,
 * …}` anywhere (Gemini CLI's loader merges every such record, and its a2a-server appends one each time it starts), or
 * on the first line `{sessionId, …}` alone.
 */
function isMetadata(record: Json, first: boolean): boolean {
  if (typeof record['sessionId'] !== 'string' || typeof record['id'] === 'string' || 'type' in record || 'role' in record) return false
  return typeof record['projectHash'] === 'string' || (first && !('messages' in record))
}

/**
 * Reads a session recording's text (the JSON document or JSONL). Strict by default: a line that is not a JSON object,
 * or a document whose `messages` is not an array of objects, is an error naming the file and line or field; lenient,
 * such lines are skipped and counted.
 */
export function readGeminiSessionText(text: string, options: { readonly file?: string; readonly lenient?: boolean; readonly keepSource?: boolean } = {}): GeminiSessionRead {
  const keepSource = options.keepSource ?? false
  const file = options.file ?? '<gemini session>'
  const skippedTypes: Record<string, number> = {}
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const newline = body.indexOf('\n')
  const firstLine = newline === -1 ? body : body.slice(0, newline)
  // A document spans lines (Gemini CLI writes it indented) or is one line holding `messages`.
  let document: unknown
  if (body.trimStart().startsWith('{') && (firstLine.trim() === '{' || /"messages"\s*:/.test(firstLine))) {
    try {
      document = parseJson(body, file)
    } catch (error) {
      // Lenient (a file Gemini CLI is rewriting): read it line by line below, every line skipped and counted.
      if (!options.lenient) throw error
    }
  }
  if (document !== undefined) {
    if (!isObject(document) || !Array.isArray(document['messages'])) {
      throw new InvalidInputError('expected a Gemini CLI session object with a `messages` array', { file, field: '/messages' })
    }
    const entries: Entry[] = []
    document['messages'].forEach((record, index) => {
      if (isObject(record) && typeof record['type'] === 'string') entries.push({ record, pointer: `/messages/${index}` })
      else if (!options.lenient) {
        const got = !isObject(record) ? (record === null ? 'null' : typeof record) : `an object without one${'role' in record ? ' (a `role`: another format\'s message; try --format)' : ''}`
        throw new InvalidInputError(`expected a Gemini CLI message record with a "type", got ${got}`, { file, field: `/messages/${index}` })
      }
    })
    const session: Json = {}
    for (const [key, value] of Object.entries(document)) if (key !== 'messages') session[key] = value
    const unknown: string[] = []
    const contentless: Array<{ at: string; type: string }> = []
    const messages = toMessages(entries, skippedTypes, keepSource, unknown, (entry) => {
      const type = entry.record['type'] as string
      if (!options.lenient) throw new InvalidInputError(`expected a Gemini CLI ${type} record with \`content\`; --lenient skips such records and reports them`, { file, field: entry.pointer ?? '' })
      contentless.push({ at: entry.pointer ?? '', type })
    })
    return { messages, skippedTypes, malformedLines: [], contentless, unknownTypes: unknown, session }
  }
  const entries: Entry[] = []
  const byId = new Map<string, number>()
  const malformedLines: number[] = []
  let session: Json | undefined
  // Whether any record has a recording's shape: another tool's JSONL must not pass for a session of empty messages.
  let own = false
  let records = 0
  let first: unknown
  /** The first untyped record met before any record of the recording's own (strict). */
  let untyped: number | undefined
  // Later metadata wins, field by field, as Gemini CLI merges it; `messages` are records, never metadata.
  const mergeSession = (fields: Json): void => {
    session = { ...session }
    for (const [key, value] of Object.entries(fields)) if (key !== 'messages') session[key] = value
  }
  // A record whose id was seen replaces that copy in its place; a new one goes last.
  const upsert = (record: Json, line: number): void => {
    const id = record['id']
    const seen = typeof id === 'string' ? byId.get(id) : undefined
    if (seen !== undefined) entries[seen] = { record, line: entries[seen]!.line ?? line }
    else {
      if (typeof id === 'string') byId.set(id, entries.length)
      entries.push({ record, line })
    }
  }
  const lines = body.split('\n')
  lines.forEach((raw, index) => {
    const line = index + 1
    const trimmed = raw.trim()
    if (trimmed === '') return
    let record: unknown
    try {
      record = JSON.parse(trimmed)
    } catch {
      record = undefined
    }
    if (!isObject(record)) {
      if (options.lenient) {
        malformedLines.push(line)
        return
      }
      throw new InvalidInputError('expected a Gemini CLI session record (a JSON object a line); --lenient skips such lines and reports them', { file, line })
    }
    if (records++ === 0) first = record
    own ||= isOwnRecord(record)
    if (typeof record['$rewindTo'] === 'string') {
      const at = byId.get(record['$rewindTo'])
      const keep = at ?? 0
      for (const entry of entries.splice(keep)) byId.delete(entry.record['id'] as string)
      return
    }
    const set = record['$set']
    if (isObject(set)) {
      // An empty list replaces nothing: Gemini CLI's loader takes `$set.messages` only when it holds messages.
      if (Array.isArray(set['messages']) && set['messages'].length > 0) {
        entries.length = 0
        byId.clear()
        for (const message of set['messages']) {
          if (!isObject(message)) continue
          if (typeof message['id'] === 'string') byId.set(message['id'], entries.length)
          entries.push({ record: message, line })
        }
      }
      mergeSession(set)
      return
    }
    if (isMetadata(record, session === undefined && entries.length === 0)) {
      mergeSession(record)
      // A whole session on one line (an older recording appended to): its messages are records too.
      if (Array.isArray(record['messages'])) for (const message of record['messages']) if (isObject(message)) upsert(message, line)
      return
    }
    if (typeof record['type'] !== 'string') {
      if (options.lenient) malformedLines.push(line)
      // Before any record of the recording's own, the file may be another tool's: that refusal comes first.
      else if (own) throw untypedRecord(file, line)
      else untyped ??= line
      return
    }
    upsert(record, line)
  })
  if (records > 0 && !own) {
    const foreign = new InvalidInputError(
      `expected Gemini CLI session records (session metadata, or messages typed user, gemini, info, error or warning with their \`content\`), got none in ${records} record${records === 1 ? '' : 's'}${foreignHint(first)}`,
      { file, line: 1 },
    )
    return { messages: [], skippedTypes, malformedLines, contentless: [], unknownTypes: [], session, foreign }
  }
  if (untyped !== undefined) throw untypedRecord(file, untyped)
  const unknown: string[] = []
  const contentless: Array<{ at: string; type: string }> = []
  const messages = toMessages(entries, skippedTypes, keepSource, unknown, (entry) => {
    const type = entry.record['type'] as string
    if (!options.lenient) throw new InvalidInputError(`expected a Gemini CLI ${type} record with \`content\`; --lenient skips such lines and reports them`, { file, line: entry.line ?? 1 })
    contentless.push({ at: `line ${entry.line}`, type })
    if (entry.line !== undefined) malformedLines.push(entry.line)
  })
  return { messages, skippedTypes, malformedLines, contentless, unknownTypes: unknown, session }
}

function untypedRecord(file: string, line: number): InvalidInputError {
  return new InvalidInputError('expected a Gemini CLI message record with a "type"; --lenient skips such lines and reports them', { file, line })
}

/** Whether a JSONL record has a recording's shape: metadata, `$set`, `$rewindTo`, or a typed message with `content` (a `gemini` one may hold calls only). */
function isOwnRecord(record: Json): boolean {
  if (typeof record['$rewindTo'] === 'string' || isObject(record['$set'])) return true
  if (typeof record['sessionId'] === 'string' && typeof record['projectHash'] === 'string') return true
  const type = record['type']
  if ('role' in record || 'message' in record || 'payload' in record) return false
  return type === 'gemini' || ((type === 'user' || (typeof type === 'string' && NOTICE_TYPES.has(type))) && 'content' in record)
}

/**
 * How sure the head is a session recording: the document starts with `sessionId` (JSONL: its metadata line) and
 * `projectHash`, and its first message is typed (`user`, `gemini`, …) with no `role`, which another format's message
 * has (a chat export with session keys of its own). JSONL's first message is the first record that is not metadata,
 * a `$rewindTo` or a `$set` without messages, or a `$set`'s first message. A head that ends before a message says
 * what it is (its cut last record lacks a `type` so far, or no message has begun) leaves the metadata line to decide.
 */
export function detectGeminiSession(head: string): number {
  const start = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head
  if (!/^\s*\{\s*"sessionId"\s*:\s*"/.test(start) || !start.includes('"projectHash"')) return 0
  // A document's head is read as a JSON prefix; JSONL's as lines.
  const scanned = scanJsonPrefix(start)
  if (scanned.errorOffset === undefined && isObject(scanned.value) && Array.isArray(scanned.value['messages'])) {
    const messages = scanned.value['messages']
    return messages.length === 0 ? 0.9 : judgeMessage(messages[0], !scanned.complete && messages.length === 1) ?? 0.9
  }
  for (const { value, complete } of headLines(start).slice(1)) {
    // A line that is no JSON says nothing either way (a lenient read skips it); other JSON is judged as a message.
    if (value === undefined) return 0.6
    if (!isObject(value)) return 0
    if (typeof value['$rewindTo'] === 'string' || isMetadata(value, false)) continue
    const set = value['$set']
    if (isObject(set)) {
      const messages = set['messages']
      if (!Array.isArray(messages) || messages.length === 0) continue
      return judgeMessage(messages[0], !complete && messages.length === 1) ?? 0.6
    }
    return judgeMessage(value, !complete) ?? 0.6
  }
  return 0.6
}

/** A first message's verdict: typed without a `role` (0.9), not a recording's (0), or undefined when a cut one cannot tell yet. */
function judgeMessage(message: unknown, cut: boolean): number | undefined {
  if (!isObject(message) || 'role' in message) return 0
  if (typeof message['type'] === 'string') return 0.9
  return cut ? undefined : 0
}

/** The head's first lines as JSON prefixes (the last may be cut), blank lines left out. */
function headLines(head: string, limit = 8): Array<{ value: unknown; complete: boolean }> {
  const lines: Array<{ value: unknown; complete: boolean }> = []
  let from = 0
  while (from < head.length && lines.length < limit) {
    let end = head.indexOf('\n', from)
    if (end === -1) end = head.length
    const text = head.slice(from, end)
    from = end + 1
    if (text.trim() === '') continue
    const scanned = scanJsonPrefix(text)
    lines.push({ value: scanned.errorOffset === undefined ? scanned.value : undefined, complete: scanned.complete })
  }
  return lines
}

async function read(source: FormatSource, options?: ReadOptions) {
  const read = readGeminiSessionText(await source.text(), { file: source.name, lenient: options?.lenient === true, keepSource: options?.keepSource !== false })
  if (read.foreign) throw read.foreign
  const contentless = new Set(read.contentless.map((entry) => entry.at))
  const warnings = [
    ...read.malformedLines.filter((line) => !contentless.has(`line ${line}`)).map((line) => `${source.name}:${line}: skipped a line that is not a session record`),
    ...read.contentless.map(({ at, type }) => `${at.startsWith('line ') ? `${source.name}:${at.slice(5)}:` : `${source.name}: ${at}:`} skipped a ${type} record without \`content\``),
    ...read.unknownTypes.map((at) => `${source.name}: ${at}: skipped a record of a type that is neither a message (user, gemini) nor a notice (info, error, warning)`),
  ]
  const envelope = { ...(read.session ? { session: read.session } : {}), skipped: read.skippedTypes }
  return finishTranscript('gemini-session', read.messages, envelope, warnings)
}

/** Gemini CLI session recordings (`chats/session-*.json` and `.jsonl`); read only. */
export const geminiSessionFormat: TranscriptFormatV1 = {
  specificationVersion: 'v1',
  name: 'gemini-session',
  layout: 'document',
  detect: detectGeminiSession,
  read,
}

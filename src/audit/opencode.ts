/**
 * OpenCode sessions, in the two shapes they are found on disk: what `opencode export SESSION` prints (`{ info,
 * messages: [{ info, parts }] }`), and OpenCode's JSON storage directory (`~/.local/share/opencode/storage`), one file
 * per session, message and part. There is no OpenCode format in the registry yet; the audit reads these itself,
 * enough to find their summaries.
 *
 * The storage layout, as checked against upstream anomalyco/opencode (formerly sst/opencode), packages/opencode/src:
 * `storage/storage.ts` (a key `[a, b, c]` is the file `storage/a/b/c.json`, written `JSON.stringify(value, null, 2)`;
 * `list` returns keys sorted), `storage/json-migration.ts` at 062aa8c (it globs the `session`, `message` and `part`
 * directories two levels deep and takes every id from the path: a session is `session/<projectID>/<sessionID>.json`,
 * a message `message/<sessionID>/<messageID>.json`, a part `part/<messageID>/<partID>.json`), and `session/message-v2.ts` (a message file holds the message's `info`, a part
 * file one part; a session's messages and a message's parts are read in id order, and ids ascend with time).
 * Current OpenCode keeps sessions in SQLite (`opencode.db`) and copies this directory into it once; sessions written
 * since are not in these files (`opencode export SESSION` prints them).
 *
 * - A message's `info.role` is `user` or `assistant`; parts `text` and `reasoning` keep their text, a `tool` part
 *   `{ callID, tool, state: { input, output | error } }` becomes a tool call in the assistant message and its result in
 *   a `tool` message after it; other parts (`step-start`, `file`, `patch`, `compaction`, …) carry no model text here.
 * - OpenCode's compaction writes an assistant message with `summary: true` (mode or agent `compaction`): its text
 *   becomes a `summary` part (source `opencode`) in a user message of its own. A user message's `summary` is an object
 *   (the session's diff summary), never a compaction.
 */
import { InvalidInputError } from '../errors.js'
import type { Message, Part, Transcript } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'

/** The format name an OpenCode export reports. */
export const OPENCODE_FORMAT = 'opencode'

/**
 * isOpenCodeExportHead(head) = the head opens a JSON object whose first key is `info` holding a session (`"id":
 * "ses_`) and has a `messages` key: what `opencode export` prints.
 */
export function isOpenCodeExportHead(head: string): boolean {
  const start = head.search(/\S/)
  if (start === -1 || head[start] !== '{') return false
  const afterBrace = head.slice(start + 1, start + 64).trimStart()
  return afterBrace.startsWith('"info"') && head.includes('"ses_') && head.includes('"messages"')
}

function fail(file: string, field: string, expected: string): never {
  throw new InvalidInputError(`expected ${expected}`, { file, field })
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

function outputText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  return JSON.stringify(value)
}

/** Where a message's fields and its parts' fields are, for error messages. */
interface Locator {
  info(field: string): { file: string; field: string }
  part(position: number, field: string): { file: string; field: string }
}

function failAt(where: { file: string; field: string }, expected: string): never {
  throw new InvalidInputError(`expected ${expected}`, where)
}

/** Appends the floorguard messages of one OpenCode message (its info and its parts, in order). */
function appendMessage(messages: Message[], infoValue: unknown, rawParts: unknown, locate: Locator, pointer?: string): void {
  const info = object(infoValue) ?? failAt(locate.info(''), 'a message info object')
  const role = info['role']
  if (role !== 'user' && role !== 'assistant') failAt(locate.info('/role'), '"user" or "assistant"')
  if (!Array.isArray(rawParts)) failAt(locate.part(-1, ''), 'an array of parts')
  const summary = role === 'assistant' && (info['summary'] === true || info['mode'] === 'compaction' || info['agent'] === 'compaction')
  const parts: Part[] = []
  const results: Part[] = []
  rawParts.forEach((raw, position) => {
    const part = object(raw) ?? failAt(locate.part(position, ''), 'a part object')
    const type = part['type']
    if ((type === 'text' || type === 'reasoning') && typeof part['text'] === 'string') {
      parts.push(type === 'text' ? { type: 'text', text: part['text'] } : { type: 'reasoning', text: part['text'] })
    } else if (type === 'tool' && role === 'assistant') {
      const id = typeof part['callID'] === 'string' ? part['callID'] : failAt(locate.part(position, '/callID'), 'a string')
      const name = typeof part['tool'] === 'string' ? part['tool'] : failAt(locate.part(position, '/tool'), 'a string')
      const state = object(part['state']) ?? {}
      parts.push({ type: 'tool-call', id, name, arguments: state['input'] ?? {} })
      if (state['status'] === 'completed' || state['status'] === 'error') {
        const isError = state['status'] === 'error'
        results.push({ type: 'tool-result', callId: id, name, content: outputText(isError ? state['error'] : state['output']), isError })
      }
    }
  })
  // A stored message is a file of its own: it has no pointer into a document.
  const provenance = pointer === undefined ? {} : { provenance: { pointer } }
  if (summary) {
    const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
    messages.push({ role: 'user', parts: [{ type: 'summary', text, source: OPENCODE_FORMAT }], ...provenance })
    return
  }
  if (parts.length > 0) messages.push({ role, parts, ...provenance })
  if (results.length > 0) messages.push({ role: 'tool', parts: results, ...provenance })
}

function transcriptOf(messages: Message[]): Transcript {
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format: OPENCODE_FORMAT, messages, pairs, unpaired }
}

/** readOpenCodeExport(text, file) = the export as a transcript (format `opencode`); bad shapes throw naming the field. */
export function readOpenCodeExport(text: string, file: string): Transcript {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    fail(file, '/', 'an OpenCode export (a JSON object {info, messages})')
  }
  const root = object(document) ?? fail(file, '/', 'an OpenCode export object {info, messages}')
  const list = root['messages']
  if (!Array.isArray(list)) fail(file, '/messages', 'an array of {info, parts}')
  const messages: Message[] = []
  list.forEach((entry, index) => {
    const pointer = `/messages/${index}`
    const record = object(entry) ?? fail(file, pointer, 'a message object {info, parts}')
    const locate: Locator = {
      info: (field) => ({ file, field: `${pointer}/info${field}` }),
      part: (position, field) => ({ file, field: position < 0 ? `${pointer}/parts` : `${pointer}/parts/${position}${field}` }),
    }
    appendMessage(messages, record['info'], record['parts'] ?? [], locate, pointer)
  })
  return transcriptOf(messages)
}

/** A file of an OpenCode storage directory: its path (relative, as reported) and its text. */
export interface OpenCodeStorageFile {
  readonly file: string
  readonly text: string
}

/** One stored message: its file `message/<sessionID>/<messageID>.json` and its parts' files `part/<messageID>/*.json`. */
export interface OpenCodeStoredMessage {
  readonly message: OpenCodeStorageFile
  readonly parts: readonly OpenCodeStorageFile[]
}

/** The subdirectories that make a directory an OpenCode storage directory. */
export const OPENCODE_STORAGE_DIRECTORIES = ['session', 'message', 'part'] as const

/** isOpenCodeStorageRoot(names) = the directory's subdirectories include `session`, `message` and `part`. */
export function isOpenCodeStorageRoot(subdirectories: Iterable<string>): boolean {
  const names = new Set(subdirectories)
  return OPENCODE_STORAGE_DIRECTORIES.every((name) => names.has(name))
}

/** The id a storage file stands for: its name without `.json` (OpenCode takes ids from paths, not contents). */
export function openCodeStorageId(fileName: string): string {
  return fileName.endsWith('.json') ? fileName.slice(0, -'.json'.length) : fileName
}

/** Sorts storage file names as OpenCode's `Storage.list` does (plain code-unit order, which is id order). */
export function sortOpenCodeStorageNames(names: string[]): string[] {
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

function parseStored(entry: OpenCodeStorageFile, expected: string): unknown {
  try {
    return JSON.parse(entry.text)
  } catch {
    return fail(entry.file, '/', expected)
  }
}

/**
 * readOpenCodeStorageSession(messages) = one session of an OpenCode storage directory as a transcript (format
 * `opencode`): the messages in the order given (the caller lists them in id order), each with its parts in the
 * order given; a bad file throws naming that file and the field.
 */
export function readOpenCodeStorageSession(stored: readonly OpenCodeStoredMessage[]): Transcript {
  const messages: Message[] = []
  for (const entry of stored) {
    const info = parseStored(entry.message, 'an OpenCode message (a JSON object with role)')
    const parts = entry.parts.map((part) => parseStored(part, 'an OpenCode part (a JSON object with type)'))
    const locate: Locator = {
      info: (field) => ({ file: entry.message.file, field: field === '' ? '/' : field }),
      part: (position, field) => ({ file: entry.parts[position]?.file ?? entry.message.file, field: field === '' ? '/' : field }),
    }
    appendMessage(messages, info, parts, locate)
  }
  return transcriptOf(messages)
}

/**
 * OpenCode sessions, in the two shapes they are found on disk: what `opencode export SESSION` prints (`{ info,
 * messages: [{ info, parts }] }`), and OpenCode's JSON storage directory (`~/.local/share/opencode/storage`), one file
 * per session, message and part. An export is the registry's `opencode` format (`transcript/formats/opencode.ts`,
 * whose message mapping this module shares); a storage directory is read here, session by session, for the audit.
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
 * Messages and parts map as in an export (`appendOpenCodeMessage`); a stored message has no JSON pointer.
 */
import { InvalidInputError } from '../errors.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { appendOpenCodeMessage, type OpenCodeLocator, openCodeTranscript } from '../transcript/formats/opencode.js'

export { isOpenCodeExportHead, OPENCODE_FORMAT, readOpenCodeExport } from '../transcript/formats/opencode.js'

function fail(file: string, field: string, expected: string): never {
  throw new InvalidInputError(`expected ${expected}`, { file, field })
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
    const locate: OpenCodeLocator = {
      info: (field) => ({ file: entry.message.file, field: field === '' ? '/' : field }),
      part: (position, field) => ({ file: entry.parts[position]?.file ?? entry.message.file, field: field === '' ? '/' : field }),
    }
    appendOpenCodeMessage(messages, info, parts, locate)
  }
  return openCodeTranscript(messages)
}

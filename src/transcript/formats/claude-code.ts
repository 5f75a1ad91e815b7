/**
 * Claude Code session logs (JSONL), in both shapes seen in the wild:
 *
 * - **native** (`~/.claude/projects/<project>/<session>.jsonl`): records with `type` (`user`, `assistant`,
 *   `system`, `summary`, `file-history-snapshot`, …), `message` `{role, content}`, `uuid`, `parentUuid`,
 *   `isSidechain`, `timestamp`. One API assistant message is split into several records sharing `message.id`;
 *   they are regrouped by that id. A user record holding only `tool_result` blocks becomes a `tool` message
 *   (consecutive ones merged), so both shapes give the same transcript; every other user record is one message.
 *   Non-text blocks read as placeholders: `[image]`, `[document: TITLE]`.
 * - **Engram** (flattened, one content block per line): `{timestamp, role, content: {type, …}}`; consecutive
 *   same-role lines are regrouped into one message per turn, `tool` lines become `tool` messages.
 *
 * Mapping decisions:
 * - The continuation summary Claude Code writes after compacting (a user text starting
 *   {@link CLAUDE_CODE_SUMMARY_PREFIX}, or any user record flagged `isCompactSummary`) becomes a `summary` part
 *   with source `claude-code`, always in a message of its own.
 * - Sidechain (subagent) records belong to another context window: they are left out of the main thread and
 *   counted in `envelope.skipped.sidechain`. A subagent's own file (every record a sidechain) is read whole.
 * - `system` records (`compact_boundary`, `local_command`, `api_error`, …), `summary` records (session titles),
 *   `file-history-snapshot`, `queue-operation`, `permission-mode`, `last-prompt`, `mode`, `ai-title`, `attachment`,
 *   `progress` and record types of later versions are not messages: they are counted in `envelope.skipped`;
 *   `compact_boundary` metadata is kept in `envelope.compactions`.
 * - Records are read in parent order: each after its parent (`parentUuid`), file order otherwise (Claude Code writes
 *   a parallel call's result before the call at times). Records of one message are grouped only when no other
 *   message's record lies between them in the file, so a message's line span holds no other message's line.
 *   Branches abandoned by an edit-and-resubmit stay in the transcript.
 * - `redacted_thinking` blocks have no readable text and are counted, not represented.
 */
import { InvalidInputError } from '../../errors.js'
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role } from '../../spec/transcript.js'
import { isRecord } from '../_json-prefix.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import {
  blocksToText,
  checkedArguments,
  expectObject,
  fail,
  type FieldLocation,
  type LogCompaction,
  type LogRangeContext,
  type LogReadContext,
  logReaders,
  MessageGroup,
  optionalBoolean,
  optionalString,
  placeholder,
  skip,
  stringField,
  unreadableRecord,
} from './_log.js'

/**
 * A random UUID from the Web Crypto global (Node 20 and later), loaded when first used: importing `node:crypto` here
 * loaded it for every read of a log (check, plan), about 8 ms of a process's start.
 */
function randomUUID(): string {
  return globalThis.crypto.randomUUID()
}

/** The first sentence of the summary Claude Code writes when it compacts a session. */
export const CLAUDE_CODE_SUMMARY_PREFIX = 'This session is being continued from a previous conversation that ran out of context.'

/** Options of {@link createClaudeCodeFormat}: where appended records get their clock and ids. */
export interface ClaudeCodeFormatOptions {
  /**
   * Clock for the `timestamp` of appended records.
   * @default () => new Date()
   */
  readonly now?: () => Date
  /**
   * Id generator for the `uuid` of appended records.
   * @default crypto.randomUUID
   */
  readonly randomId?: () => string
}

const ENGRAM_ROLES = new Set(['user', 'assistant', 'tool'])

/** Keys Claude Code writes on its records (a message's chain ids, the session, a snapshot's message, a title's leaf). */
const NATIVE_KEYS = ['uuid', 'parentUuid', 'sessionId', 'leafUuid', 'messageId'] as const

/**
 * Scores a head as Claude Code JSONL: its first complete records (up to 8) are all native records (a `type` string and
 * one of Claude Code's own keys, whatever the type: versions add record types, `permission-mode`, `last-prompt`,
 * `ai-title`, `attachment`, … and write them first) or the first is an Engram record.
 */
export function detectClaudeCode(head: string): number {
  const records = headRecords(head, 8).filter((record) => record !== undefined)
  if (records.length > 0) {
    if (!records.every(isRecord)) return 0
    if (isEngram(records[0] as Record<string, unknown>)) return 0.95
    return records.every((record) => isNative(record as Record<string, unknown>)) ? 0.95 : 0
  }
  // The first record is longer than the head: fall back to its leading keys.
  const start = head.trimStart()
  if (start.startsWith('{"parentUuid":') || (start.startsWith('{') && start.includes('"sessionId":') && start.includes('"uuid":'))) return 0.8
  if (start.startsWith('{"timestamp":') && start.includes('"role":') && start.includes('"content":{"type":')) return 0.7
  return 0
}

/**
 * A native record: a `type` string and a key only Claude Code writes (of a known type or not). A record with the SDK's
 * `session_id` and neither `sessionId` nor `parentUuid` is a `claude -p --output-format stream-json` message (newer
 * ones carry a `uuid` too), which the `claude-stream-json` format reads.
 */
function isNative(record: Record<string, unknown>): boolean {
  if ('session_id' in record && !('sessionId' in record) && !('parentUuid' in record)) return false
  return typeof record['type'] === 'string' && NATIVE_KEYS.some((key) => key in record)
}

function isEngram(record: Record<string, unknown>): boolean {
  const content = record['content']
  return (
    record['type'] === undefined &&
    typeof record['role'] === 'string' &&
    ENGRAM_ROLES.has(record['role']) &&
    content !== null &&
    typeof content === 'object' &&
    !Array.isArray(content) &&
    typeof (content as Record<string, unknown>)['type'] === 'string'
  )
}

/**
 * A Claude Code record: a native one (a `type` string) or an Engram one (`role`, no `type`). A line of neither shape is
 * malformed (`--lenient` skips it; a log whose every line is skipped is no log: see `readJsonl`).
 */
const RECORD = {
  expected: 'a Claude Code record object (a "type" string, or an Engram record with "role" and "content")',
  accepts: (record: Readonly<Record<string, unknown>>) => typeof record['type'] === 'string' || (record['type'] === undefined && 'role' in record),
} as const

async function* readClaudeCode(context: LogReadContext): AsyncGenerator<Message> {
  const group = new MessageGroup(context.keepSource)
  const file = context.source.name
  const compactions: Array<{ line: number; trigger?: unknown; preTokens?: unknown }> = []
  // Whether the main thread is a sidechain: false once a record outside every sidechain is met; true when every
  // record is one (a subagent's own file, read whole). Until one is met, records wait in `undecided`, in order (a
  // compacted log may keep a range's sidechain records before its summary).
  let mainSidechain: boolean | undefined
  const undecided: Array<{ readonly record: Record<string, unknown>; readonly line: number }> = []

  // Records come in parent order (see `inParentOrder`), so a message's records need not be adjacent in the file. A
  // record joins the open message only after its last line and with no line of another main-thread message between
  // them: a message's lines then span no other message's (the compacted copy is spliced by those spans).
  // A record of no message that the file holds before its parent, a record of the open message (a `turn_duration`
  // written before the reply it times), joins that message's span when no other message lies between: compacting the
  // message then drops it with its parent, instead of keeping, before the summary, a record that points into the range.
  const kinds = new LineKinds()
  let spanStart = 0
  let spanEnd = 0
  // The open message's record ids and those of the records that joined its span.
  const spanIds = new Set<string>()
  const messageKind = (): number => (mainSidechain ? SIDECHAIN_MESSAGE : MAIN_MESSAGE)
  function* add(role: Role, key: string, parts: readonly Part[], line: number, record: Record<string, unknown>): Generator<Message> {
    if (group.open && group.currentKey === key && !(line > spanEnd && !kinds.any(spanEnd + 1, line, messageKind()))) {
      const closed = group.flush()
      if (closed) yield closed
    }
    const joins = group.open && group.currentKey === key
    const closed = group.add(role, key, parts, line, record)
    if (closed) yield closed
    if (joins) spanEnd = Math.max(spanEnd, line)
    else {
      spanStart = spanEnd = line
      spanIds.clear()
    }
    const uuid = idField(record, 'uuid')
    if (uuid !== undefined) spanIds.add(uuid)
  }
  function joinSpan(record: Record<string, unknown>, line: number): void {
    const key = group.currentKey
    const parent = idField(record, 'parentUuid')
    if (key === undefined || line >= spanStart || parent === undefined || !spanIds.has(parent) || kinds.any(line + 1, spanStart, messageKind())) return
    group.extend(line)
    spanStart = line
    const uuid = idField(record, 'uuid')
    if (uuid !== undefined) spanIds.add(uuid)
  }

  function* handle(record: Record<string, unknown>, line: number): Generator<Message> {
    const at: FieldLocation = { file, line }
    const type = record['type']
    if (type !== 'user' && type !== 'assistant') {
      if (type === 'system') {
        const subtype = optionalString(record, 'subtype', at, '') ?? 'unknown'
        if (subtype === 'compact_boundary') {
          const closed = group.flush()
          if (closed) yield closed
          const metadata = record['compactMetadata']
          const meta = metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : {}
          compactions.push({ line, trigger: meta['trigger'], preTokens: meta['preTokens'] })
        } else joinSpan(record, line)
        skip(context, `system:${subtype}`)
      } else {
        // What floorguard's own hook put back after a compaction (Claude Code 2.1 stores a SessionStart hook's
        // `additionalContext` as an attachment): read as a system message, so its state block's entries are items of
        // the region the next compaction replaces, and its ledger carries them on.
        const putBack = type === 'attachment' ? putBackText(record) : undefined
        // A file the user attached with @: what Claude Code puts in context for it, with the prompt it hangs under
        // (Claude Code sends both in one user message), else as a user message of its own.
        const attached = type === 'attachment' && optionalBoolean(record, 'isSidechain', at, '') === mainSidechain ? attachedFileText(record) : undefined
        if (putBack !== undefined) {
          const closed = group.flush()
          if (closed) yield closed
          yield* add('system', `attachment:${line}`, [{ type: 'text', text: putBack }], line, record)
          const own = group.flush()
          if (own) yield own
        } else if (attached !== undefined) {
          const open = group.currentKey
          const parent = idField(record, 'parentUuid')
          const prompt = open !== undefined && open.startsWith('user:') && parent !== undefined && spanIds.has(parent)
          yield* add('user', prompt ? open : `attachment:${line}`, [{ type: 'text', text: attached }], line, record)
        } else {
          joinSpan(record, line)
          skip(context, type as string)
        }
      }
      return
    }
    if (optionalBoolean(record, 'isSidechain', at, '') !== mainSidechain) {
      skip(context, 'sidechain')
      return
    }
    const message = expectObject(record['message'], at, '/message')
    const content = message['content']
    if (type === 'assistant') {
      const parts = assistantParts(content, at, context)
      const id = optionalString(message, 'id', at, '/message') ?? `line-${line}`
      yield* add('assistant', `assistant:${id}`, parts, line, record)
      return
    }
    const { role, parts, summary } = userParts(content, record, at)
    const key = role === 'tool' ? 'tool' : `user:${line}`
    yield* add(role, key, parts, line, record)
    if (summary) {
      const own = group.flush()
      if (own) yield own
    }
  }

  /** Reads one record through `read`, a record it cannot read handled by {@link unreadableRecord}: `read` yields nothing before its fields are checked. */
  function* readable(line: number, read: () => Generator<Message>): Generator<Message> {
    try {
      yield* read()
    } catch (error) {
      unreadableRecord(context, line, error)
    }
  }

  const records = readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning), record: RECORD })
  // Whether any record is Claude Code's (its own keys, or an Engram record): a JSONL log of another tool read with
  // --format claude-code must not pass for an empty session.
  let own = false
  let read = 0
  for await (const { line, value } of inParentOrder(kinds.noting(records))) {
    const at: FieldLocation = { file, line }
    const record = value as Record<string, unknown>
    read++
    own ||= record['type'] === undefined || NATIVE_KEYS.some((key) => key in record)
    if (record['type'] === undefined) {
      yield* readable(line, () => engramRecord(record, line, at, group, context))
      continue
    }
    const type = record['type'] as string
    if (mainSidechain === undefined) {
      if (type !== 'user' && type !== 'assistant') {
        undecided.push({ record, line })
        continue
      }
      if (optionalBoolean(record, 'isSidechain', at, '')) {
        undecided.push({ record, line })
        continue
      }
      mainSidechain = false
      for (const waiting of undecided.splice(0)) yield* readable(waiting.line, () => handle(waiting.record, waiting.line))
    }
    yield* readable(line, () => handle(record, line))
  }
  // Every message record was a sidechain's: the file is a subagent's own, read whole.
  if (undecided.length > 0) {
    mainSidechain ??= true
    for (const waiting of undecided.splice(0)) yield* readable(waiting.line, () => handle(waiting.record, waiting.line))
  }
  const last = group.flush()
  if (last) yield last
  if (read > 0 && !own) throw new InvalidInputError(`expected Claude Code records (with ${NATIVE_KEYS.join(', ')}), got ${read} records with none of those keys`, { file, line: 1 })
  if (compactions.length > 0) context.envelope['compactions'] = compactions
}

/**
 * putBackText(record) = the text of a hook's `additionalContext` attachment that holds a floorguard state block
 * (`{type: "attachment", attachment: {type: "hook_additional_context", content: [text, …]}}`), joined with line breaks;
 * undefined for any other attachment (another hook's context is put back by that hook at every start, not state).
 */
function putBackText(record: Record<string, unknown>): string | undefined {
  const attachment = record['attachment']
  if (attachment === null || typeof attachment !== 'object') return undefined
  const { type, content } = attachment as Record<string, unknown>
  if (type !== 'hook_additional_context') return undefined
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.filter((item): item is string => typeof item === 'string') : []
  const text = texts.join('\n')
  return text.includes(STATE_BLOCK_MARK) ? text : undefined
}

/**
 * attachedFileText(record) = what Claude Code puts in context for a text file the user attached with @ (`{type:
 * "attachment", attachment: {type: "file", filename, content: {type: "text", file: {content, startLine}}}}`): the
 * Read call it stands for and its result, numbered from the file's `startLine` (`N<tab>line`), as Claude Code renders
 * it to the model; undefined for any other attachment (an image, a directory, a reminder).
 */
function attachedFileText(record: Record<string, unknown>): string | undefined {
  const attachment = record['attachment']
  if (!isRecord(attachment) || attachment['type'] !== 'file') return undefined
  const content = attachment['content']
  if (!isRecord(content) || content['type'] !== 'text' || !isRecord(content['file'])) return undefined
  const file = content['file']
  const text = file['content']
  const path = typeof attachment['filename'] === 'string' ? attachment['filename'] : file['filePath']
  if (typeof text !== 'string' || typeof path !== 'string') return undefined
  const startLine = file['startLine']
  let number = typeof startLine === 'number' && Number.isInteger(startLine) && startLine >= 1 ? startLine : 1
  let numbered = ''
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    numbered += `${numbered === '' ? '' : '\n'}${number++}\t${text.slice(start, end)}`
    start = end + 1
  }
  return `Called the Read tool with the following input: ${JSON.stringify({ file_path: path })}\nResult of calling the Read tool:\n${numbered}`
}

/** How a floorguard state block opens, any version. */
const STATE_BLOCK_MARK = '<floorguard-state v='

const MAIN_MESSAGE = 1
const SIDECHAIN_MESSAGE = 2

/** What each line of a log holds, as read in file order: a message record of the main thread or a sidechain, or other. */
class LineKinds {
  private kinds = new Uint8Array(1024)

  /** Passes records through, noting each line's kind. */
  async *noting<T extends { readonly line: number; readonly value: unknown }>(records: AsyncIterable<T>): AsyncGenerator<T> {
    for await (const entry of records) {
      const record = entry.value as Record<string, unknown>
      const type = record['type']
      if (type === 'user' || type === 'assistant') this.set(entry.line, record['isSidechain'] === true ? SIDECHAIN_MESSAGE : MAIN_MESSAGE)
      yield entry
    }
  }

  /** Whether a line in `[from, to)` holds a record of `kind`. */
  any(from: number, to: number, kind: number): boolean {
    const end = Math.min(to, this.kinds.length)
    for (let line = from; line < end; line++) if (this.kinds[line] === kind) return true
    return false
  }

  private set(line: number, kind: number): void {
    if (line >= this.kinds.length) {
      const grown = new Uint8Array(Math.max(line + 1, this.kinds.length * 2))
      grown.set(this.kinds)
      this.kinds = grown
    }
    this.kinds[line] = kind
  }
}

/** A record's string field, or undefined. */
function idField(record: unknown, key: 'uuid' | 'parentUuid'): string | undefined {
  const value = (record as Record<string, unknown>)[key]
  return typeof value === 'string' ? value : undefined
}

/**
 * inParentOrder(records) = the records with each one after its parent (`parentUuid`), file order otherwise: a stable
 * topological order. Claude Code writes the records of parallel tool calls as they finish, so a result can precede
 * its call in the file while the chain is right; read in file order, it pairs with nothing. Streamed: a record whose
 * parent has not been read yet is held, with every record after it, until no held record waits for a parent; the
 * held run is then ordered (see {@link orderHeld}) and released. A parent the file never holds releases its children
 * at the end, in file order. Linear: each record is held and ordered once.
 */
export async function* inParentOrder<T extends { readonly value: unknown }>(records: AsyncIterable<T>): AsyncGenerator<T> {
  const read = new Set<string>()
  // Parent id -> how many held records wait for it; `waiting` is their total.
  const waitingFor = new Map<string, number>()
  let waiting = 0
  let held: T[] = []
  for await (const entry of records) {
    const uuid = idField(entry.value, 'uuid')
    if (uuid !== undefined && !read.has(uuid)) {
      read.add(uuid)
      const count = waitingFor.get(uuid)
      if (count !== undefined) {
        waiting -= count
        waitingFor.delete(uuid)
      }
    }
    const parent = idField(entry.value, 'parentUuid')
    if (parent !== undefined && !read.has(parent)) {
      waiting++
      waitingFor.set(parent, (waitingFor.get(parent) ?? 0) + 1)
    }
    if (held.length === 0 && waiting === 0) {
      yield entry
      continue
    }
    held.push(entry)
    if (waiting === 0) {
      yield* orderHeld(held)
      held = []
    }
  }
  yield* orderHeld(held)
}

/**
 * orderHeld(held) = held in file order, except that a record whose parent is held and not yet placed is placed right
 * after that parent (its own waiting children after it, depth first). Records of a parent cycle are placed at the end,
 * in file order.
 */
function* orderHeld<T extends { readonly value: unknown }>(held: readonly T[]): Generator<T> {
  const position = new Map<string, number>()
  held.forEach((entry, index) => {
    const uuid = idField(entry.value, 'uuid')
    if (uuid !== undefined && !position.has(uuid)) position.set(uuid, index)
  })
  const placed = new Uint8Array(held.length)
  // Index of a held record -> the held records waiting for it, in file order.
  const children = new Map<number, number[]>()
  const stack: number[] = []
  function* place(index: number): Generator<T> {
    stack.push(index)
    while (stack.length > 0) {
      const next = stack.pop()!
      if (placed[next] === 1) continue
      placed[next] = 1
      yield held[next]!
      const waiting = children.get(next)
      if (waiting) for (let child = waiting.length - 1; child >= 0; child--) stack.push(waiting[child]!)
    }
  }
  for (let index = 0; index < held.length; index++) {
    const parent = idField(held[index]!.value, 'parentUuid')
    const at = parent === undefined ? undefined : position.get(parent)
    if (at !== undefined && at !== index && placed[at] === 0) {
      const list = children.get(at)
      if (list) list.push(index)
      else children.set(at, [index])
      continue
    }
    yield* place(index)
  }
  for (let index = 0; index < held.length; index++) if (placed[index] === 0) yield* place(index)
}

function* engramRecord(
  record: Record<string, unknown>,
  line: number,
  at: FieldLocation,
  group: MessageGroup,
  context: LogReadContext,
): Generator<Message> {
  const role = record['role']
  if (typeof role !== 'string' || !ENGRAM_ROLES.has(role)) fail(at, '/role', '"user", "assistant" or "tool"', role)
  const content = expectObject(record['content'], at, '/content', 'one content block object')
  const type = stringField(content, 'type', at, '/content')
  let part: Part | undefined
  let summary = false
  if (role === 'user' && type === 'text') {
    const text = stringField(content, 'text', at, '/content')
    summary = text.startsWith(CLAUDE_CODE_SUMMARY_PREFIX) || record['isCompactSummary'] === true
    part = summary ? { type: 'summary', text, source: 'claude-code' } : { type: 'text', text }
  } else if (role === 'assistant' && type === 'text') {
    part = { type: 'text', text: stringField(content, 'text', at, '/content') }
  } else if (role === 'assistant' && type === 'thinking') {
    part = { type: 'reasoning', text: stringField(content, 'text', at, '/content') }
  } else if (role === 'assistant' && type === 'tool_use') {
    part = {
      type: 'tool-call',
      id: stringField(content, 'tool_id', at, '/content'),
      name: stringField(content, 'tool_name', at, '/content'),
      arguments: checkedArguments(content['input'], at),
    }
  } else if (role === 'tool' && type === 'tool_result') {
    const output = content['output']
    part = {
      type: 'tool-result',
      callId: stringField(content, 'tool_id', at, '/content'),
      content: typeof output === 'string' ? output : Array.isArray(output) ? blocksToText(output, at, '/content/output') : fail(at, '/content/output', 'a string', output),
      isError: optionalBoolean(content, 'is_error', at, '/content'),
    }
  }
  if (part === undefined) {
    skip(context, `engram:${role}:${type}`)
    return
  }
  const key = summary ? `summary:${line}` : role
  const closed = group.add(role as Role, key, [part], line, record)
  if (closed) yield closed
  if (summary) {
    const own = group.flush()
    if (own) yield own
  }
}

function assistantParts(content: unknown, at: FieldLocation, context: LogReadContext): Part[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : []
  if (!Array.isArray(content)) fail(at, '/message/content', 'a string or an array of content blocks', content)
  const parts: Part[] = []
  content.forEach((block, index) => {
    const pointer = `/message/content/${index}`
    const record = expectObject(block, at, pointer, 'a content block object')
    const type = stringField(record, 'type', at, pointer)
    if (type === 'text') parts.push({ type: 'text', text: stringField(record, 'text', at, pointer) })
    else if (type === 'thinking') parts.push({ type: 'reasoning', text: stringField(record, 'thinking', at, pointer) })
    else if (type === 'tool_use' || type === 'server_tool_use') {
      parts.push({
        type: 'tool-call',
        id: stringField(record, 'id', at, pointer),
        name: stringField(record, 'name', at, pointer),
        arguments: checkedArguments(record['input'], at),
      })
    } else if (type.endsWith('_tool_result') && typeof record['tool_use_id'] === 'string') {
      parts.push(toolResult(record, at, pointer))
    } else if (type === 'redacted_thinking') skip(context, 'redacted_thinking')
    else parts.push({ type: 'text', text: placeholder(record) })
  })
  return parts
}

function userParts(content: unknown, record: Record<string, unknown>, at: FieldLocation): { role: Role; parts: Part[]; summary: boolean } {
  const flagged = record['isCompactSummary'] === true
  if (typeof content === 'string') {
    const summary = flagged || content.startsWith(CLAUDE_CODE_SUMMARY_PREFIX)
    return { role: 'user', parts: [summary ? { type: 'summary', text: content, source: 'claude-code' } : { type: 'text', text: content }], summary }
  }
  if (!Array.isArray(content)) fail(at, '/message/content', 'a string or an array of content blocks', content)
  const parts: Part[] = []
  let summary = false
  let results = 0
  content.forEach((block, index) => {
    const pointer = `/message/content/${index}`
    const item = expectObject(block, at, pointer, 'a content block object')
    const type = stringField(item, 'type', at, pointer)
    if (type === 'tool_result') {
      parts.push(toolResult(item, at, pointer))
      results++
    } else if (type === 'text') {
      const text = stringField(item, 'text', at, pointer)
      if (flagged || text.startsWith(CLAUDE_CODE_SUMMARY_PREFIX)) {
        summary = true
        parts.push({ type: 'summary', text, source: 'claude-code' })
      } else parts.push({ type: 'text', text })
    } else parts.push({ type: 'text', text: placeholder(item) })
  })
  return { role: results > 0 && results === parts.length ? 'tool' : 'user', parts, summary }
}

function toolResult(block: Record<string, unknown>, at: FieldLocation, pointer: string): Part {
  const content = block['content']
  let text: string
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) text = blocksToText(content, at, `${pointer}/content`)
  else if (content === undefined || content === null) text = ''
  else if (typeof content === 'object') text = placeholder(content as Record<string, unknown>)
  else fail(at, `${pointer}/content`, 'a string or an array of content blocks', content)
  const type = block['type']
  const flaggedError = optionalBoolean(block, 'is_error', at, pointer)
  const nestedError =
    type !== 'tool_result' && content !== null && typeof content === 'object' && !Array.isArray(content) && String((content as Record<string, unknown>)['type']).endsWith('_error')
  return { type: 'tool-result', callId: stringField(block, 'tool_use_id', at, pointer), content: text, isError: flaggedError || nestedError }
}

/** Renders messages as native Claude Code records, one JSONL line each (a summary part → `isCompactSummary`). */
function appendRecords(messages: readonly Message[], options: Required<ClaudeCodeFormatOptions>): string {
  let parentUuid: string | null = null
  let out = ''
  for (const message of messages) {
    const uuid = options.randomId()
    const timestamp = options.now().toISOString()
    const blocks: Array<Record<string, unknown>> = []
    let summary = false
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
          blocks.push({ type: 'text', text: part.text })
          break
        case 'summary':
          summary = true
          blocks.push({ type: 'text', text: part.text })
          break
        case 'reasoning':
          blocks.push({ type: 'thinking', thinking: part.text })
          break
        case 'tool-call':
          blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: part.arguments })
          break
        case 'tool-result':
          blocks.push({ type: 'tool_result', tool_use_id: part.callId, content: part.content, is_error: part.isError })
          break
      }
    }
    const assistant = message.role === 'assistant'
    const only = blocks.length === 1 ? blocks[0] : undefined
    const content = !assistant && only?.['type'] === 'text' ? only['text'] : blocks
    const record = {
      parentUuid,
      isSidechain: false,
      type: assistant ? 'assistant' : 'user',
      message: { role: assistant ? 'assistant' : 'user', content },
      ...(summary ? { isCompactSummary: true } : {}),
      uuid,
      timestamp,
    }
    out += `${JSON.stringify(record)}\n`
    parentUuid = uuid
  }
  return out
}

/** Fields of a session record that Claude Code writes on every record of the session. */
const SESSION_FIELDS = ['isSidechain', 'userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'agentId'] as const

/**
 * The summary of a compacted range of an Engram log, as one Engram record: `{timestamp, role: "user", content: {type:
 * "text", text}}`, flagged `isCompactSummary` (the flag a native summary carries; the reader takes either it or
 * Claude Code's continuation prefix for a summary). Its timestamp is the replaced records' last, as for native logs.
 */
function engramSummary(text: string, removed: readonly Record<string, unknown>[], now: () => Date): Record<string, unknown> {
  const stamped = [...removed].reverse().find((record) => typeof record['timestamp'] === 'string')
  const timestamp = typeof stamped?.['timestamp'] === 'string' ? stamped['timestamp'] : now().toISOString()
  return { timestamp, role: 'user', content: { type: 'text', text }, isCompactSummary: true }
}

/** Whether a record is a native record of the conversation chain (a user, assistant or system record with a `uuid`). */
function isChained(record: Record<string, unknown>): boolean {
  return typeof record['uuid'] === 'string' && (record['type'] === 'user' || record['type'] === 'assistant' || record['type'] === 'system')
}

function isBoundary(record: Record<string, unknown> | undefined): boolean {
  return record?.['type'] === 'system' && record['subtype'] === 'compact_boundary'
}

/** A JSONL line's object, or undefined. */
function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * chainParent(range) = the id a range's summary hangs under, or null when the summary starts the chain (after a
 * boundary of its own). It is the parent of the range's first record of the thread whose parent the range does not
 * remove (an entry): through `moved` when an earlier range of the write replaced that parent; an earlier compaction's
 * boundary when an entry is its summary and the boundary stays; a parent the file does not hold, or a record held
 * before its removed parent (relinked, it would point back at the summary), is passed over for the nearest record of
 * the thread written before the range; records of no message that open the session (attachments, hook progress, no
 * message above them) make the range start the chain. With `restart` (the write's first range, when a later range holds an earlier
 * compaction's summary whose boundary is left out), a range under no boundary of its own starts the chain: what
 * precedes it lies before that boundary, out of the resumed context, and stays out.
 */
function chainParent(
  context: LogRangeContext,
  removed: readonly Record<string, unknown>[],
  thread: (record: Record<string, unknown>) => boolean,
  moved: ReadonlyMap<string, string>,
  omitted: ReadonlySet<string>,
  restart: boolean,
): string | null {
  const removedIds = new Set<string>()
  for (const record of removed) if (typeof record['uuid'] === 'string') removedIds.add(record['uuid'])
  const kept = new Map<string, Record<string, unknown>>()
  for (const record of context.kept()) if (typeof record['uuid'] === 'string') kept.set(record['uuid'], record)
  const stale = (record: Record<string, unknown>): boolean => {
    let current = record
    for (let steps = 0; steps <= kept.size; steps++) {
      const up = current['parentUuid']
      if (typeof up !== 'string') return false
      if (removedIds.has(up)) return true
      const next = kept.get(up)
      if (next === undefined) return false
      current = next
    }
    return true
  }
  // Records of no message (attachments, hook progress) that open the session, under no message: a range after them
  // starts the chain, as Claude Code's own compaction of it would (a walk of a few records; a long one is not followed).
  const opensSession = (record: Record<string, unknown>): boolean => {
    let current: Record<string, unknown> | undefined = record
    for (let steps = 0; current !== undefined && steps < 16; steps++) {
      if (isChained(current)) return false
      const up: unknown = current['parentUuid']
      if (typeof up !== 'string') return true
      current = kept.get(up) ?? context.before((candidate) => candidate['uuid'] === up)
    }
    return false
  }
  let first: string | null | undefined
  let under: string | undefined
  for (const record of removed) {
    if (!thread(record)) continue
    const up = record['parentUuid']
    if (up === null || up === undefined) {
      if (first === undefined) first = null
      continue
    }
    if (typeof up !== 'string' || removedIds.has(up) || omitted.has(up)) continue
    const summary = moved.get(up)
    if (summary !== undefined) {
      if (first === undefined) first = summary
      continue
    }
    const target = kept.get(up) ?? context.before((candidate) => candidate['uuid'] === up) ?? context.after((candidate) => candidate['uuid'] === up)
    if (target === undefined) continue
    if (isBoundary(target) && record['isCompactSummary'] === true) under = up
    else if (first === undefined && !stale(target)) first = opensSession(target) ? null : up
  }
  if (under !== undefined) return under
  if (restart) return null
  if (first !== undefined) return first
  const nearest = context.before((record) => thread(record) && !stale(record))
  return typeof nearest?.['uuid'] === 'string' ? nearest['uuid'] : null
}

/**
 * Writes a compacted range of a native session so that a resume, which rebuilds the conversation by walking
 * `parentUuid` up from the last record (and reads from the last `compact_boundary` on that chain), reaches every
 * summary of the write, from one root. The summary takes the range's place in the chain: its `parentUuid` is the
 * parent of the range's first record of the thread (the main thread, or the sidechain a subagent's own file is),
 * or the summary an earlier range of the write put there. A range whose first record starts the chain (`parentUuid`
 * null: the log's start, or an edit of the first prompt) is written as Claude Code writes its own compaction: a
 * `compact_boundary` system record (`parentUuid: null`, `logicalParentUuid` the record it follows in the file, null when
 * the range starts the log), then the summary as a user record flagged `isCompactSummary` under it. A range that
 * holds an earlier compaction's summary continues under that compaction's boundary when it is the write's first range
 * (what precedes the boundary was already out of the resumed context); in a later range the boundary is left out and
 * the chain runs on through the write's earlier summaries (kept, it would be the root and hide them). The session
 * fields (`sessionId`, `cwd`, `version`, `gitBranch`, …) are copied from the nearest record of the session, the
 * timestamp from the last replaced record (a loader that takes the newest record as the leaf must not pick the
 * summary). Kept records that pointed at a replaced record point at the summary. An Engram log (records without uuids)
 * gets one Engram record holding the summary (see `engramSummary`).
 */
export function createClaudeCodeCompaction(options: ClaudeCodeFormatOptions = {}): LogCompaction {
  const now = options.now ?? (() => new Date())
  const randomId = options.randomId ?? randomUUID
  // Across the ranges of one write, in order: the id of each record a range removed (or a boundary it left out) ->
  // the summary that took its place; and the boundaries left out.
  const moved = new Map<string, string>()
  const omitted = new Set<string>()
  let restart = false
  let replaced = 0
  return {
    // A record of the chain (with a `uuid`) inside a message's lines goes with it (a `turn_duration` written before its
    // parent joins that span, and kept records are re-parented); one outside the chain (`last-prompt`, a title) stays.
    ownsLine: (record) => typeof record['uuid'] === 'string' || record['type'] === undefined,
    omit(removed) {
      // A summary's parent that no range removes may be a boundary (a boundary belongs to no message); only a boundary
      // is left out. The write's first range continues under the last one whose summary it holds.
      const removedIds = new Set<string>()
      for (const records of removed) for (const record of records) if (typeof record['uuid'] === 'string') removedIds.add(record['uuid'])
      removed.forEach((records, index) => {
        const parents = records.flatMap((record) => {
          const up = record['parentUuid']
          return record['isCompactSummary'] === true && typeof up === 'string' && !removedIds.has(up) ? [up] : []
        })
        if (index === 0) parents.pop()
        else if (parents.length > 0) restart = true
        for (const parent of parents) omitted.add(parent)
      })
      if (omitted.size === 0) return undefined
      return (line) => {
        if (!line.includes('compact_boundary')) return false
        const record = parseObject(line)
        return isBoundary(record) && omitted.has(record!['uuid'] as string)
      }
    },
    replace(context) {
      const summary: Message = { role: 'user', parts: [{ type: 'summary', text: context.text, source: 'floorguard' }] }
      const removed = context.removed()
      const native = removed.some(isChained)
      // An Engram log gets a record of its own shape, flagged as Claude Code flags its summaries: a native record
      // in it would mix two formats in one file.
      if (!native && removed.some(isEngram)) return { lines: `${JSON.stringify(engramSummary(context.text, removed, now))}\n` }
      if (!native) return { lines: appendRecords([summary], { now, randomId }) }
      // The thread the range's messages belong to: the main thread, or the sidechain of a subagent's own file.
      const sidechain = removed.find((record) => record['type'] === 'user' || record['type'] === 'assistant')?.['isSidechain'] === true
      const thread = (record: Record<string, unknown>): boolean => isChained(record) && (record['isSidechain'] === true) === sidechain
      const neighbour = [...removed].reverse().find((record) => thread(record) && typeof record['sessionId'] === 'string') ?? context.before(thread) ?? context.after(thread) ?? {}
      const session: Record<string, unknown> = {}
      for (const key of SESSION_FIELDS) if (neighbour[key] !== undefined) session[key] = neighbour[key]
      // The first range restarts the chain only when a boundary after it is really left out.
      const leftOut = (record: Record<string, unknown>): boolean => isBoundary(record) && omitted.has(record['uuid'] as string)
      const restarts = replaced++ === 0 && restart && (context.kept().some(leftOut) || context.after(leftOut) !== undefined)
      const parent = chainParent(context, removed, thread, moved, omitted, restarts)
      // The replaced records' last instant, not the clock: a loader that takes the newest record for the leaf must
      // not pick the summary over the records kept after it.
      const stamped = [...removed].reverse().find((record) => typeof record['timestamp'] === 'string')
      const timestamp = typeof stamped?.['timestamp'] === 'string' ? stamped['timestamp'] : now().toISOString()
      const boundaryUuid = parent === null ? randomId() : undefined
      const summaryUuid = randomId()
      const previous = boundaryUuid === undefined ? undefined : context.before(isChained)
      const boundary = boundaryUuid === undefined
        ? undefined
        : {
            parentUuid: null,
            logicalParentUuid: previous ? previous['uuid'] : null,
            ...session,
            type: 'system',
            subtype: 'compact_boundary',
            content: 'Conversation compacted',
            isMeta: false,
            timestamp,
            uuid: boundaryUuid,
            level: 'info',
            compactMetadata: { trigger: 'manual', ...(context.replacedTokens === undefined ? {} : { preTokens: context.replacedTokens }) },
          }
      const record = {
        parentUuid: boundaryUuid ?? parent,
        ...session,
        type: 'user',
        message: { role: 'user', content: context.text },
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        uuid: summaryUuid,
        timestamp,
      }
      const relink = new Map<string, string>()
      for (const record of removed) {
        if (typeof record['uuid'] === 'string') relink.set(record['uuid'], summaryUuid)
        // A boundary left out for this range's summary: whatever pointed at it points at the summary.
        const up = record['parentUuid']
        if (record['isCompactSummary'] === true && typeof up === 'string' && omitted.has(up)) relink.set(up, summaryUuid)
      }
      for (const [from, to] of relink) moved.set(from, to)
      return { lines: `${boundary ? `${JSON.stringify(boundary)}\n` : ''}${JSON.stringify(record)}\n`, relink }
    },
    relink(line, relink) {
      // Claude Code writes `parentUuid` first: read it in place, and parse only a line that needs relinking.
      const lead = '{"parentUuid":"'
      if (line.startsWith(lead)) {
        const end = line.indexOf('"', lead.length)
        if (end !== -1 && !relink.has(line.slice(lead.length, end))) return undefined
      } else if (line.startsWith('{"parentUuid":null')) return undefined
      let record: Record<string, unknown>
      try {
        const value: unknown = JSON.parse(line)
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
        record = value as Record<string, unknown>
      } catch {
        return undefined
      }
      const parent = record['parentUuid']
      const target = typeof parent === 'string' ? relink.get(parent) : undefined
      if (target === undefined) return undefined
      // Only the parent id changes: the rest of the line stays byte for byte when the key is written as Claude Code writes it.
      const written = `"parentUuid":${JSON.stringify(parent)}`
      const at = line.indexOf(written)
      if (at !== -1) {
        const candidate = `${line.slice(0, at)}"parentUuid":${JSON.stringify(target)}${line.slice(at + written.length)}`
        try {
          if ((JSON.parse(candidate) as Record<string, unknown>)['parentUuid'] === target) return candidate
        } catch {
          // Fall through to writing the record again.
        }
      }
      return JSON.stringify({ ...record, parentUuid: target })
    },
  }
}

/** Creates the Claude Code format with the given clock and id source for appended records. */
export function createClaudeCodeFormat(options: ClaudeCodeFormatOptions = {}): TranscriptFormatV1 {
  const resolved = { now: options.now ?? (() => new Date()), randomId: options.randomId ?? randomUUID }
  return {
    specificationVersion: 'v1',
    name: 'claude-code',
    layout: 'lines',
    detect: detectClaudeCode,
    ...logReaders('claude-code', readClaudeCode),
    append: (messages) => appendRecords(messages, resolved),
  }
}

/** Claude Code session JSONL (native and Engram-flattened), streamed; appends native records. */
export const claudeCodeFormat: TranscriptFormatV1 = createClaudeCodeFormat()

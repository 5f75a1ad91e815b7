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
 *   `file-history-snapshot`, `queue-operation` and unknown record types carry no model-visible content: they are
 *   counted in `envelope.skipped`; `compact_boundary` metadata is kept in `envelope.compactions`.
 * - Records are read in file order; branches abandoned by an edit-and-resubmit stay in the transcript.
 * - `redacted_thinking` blocks have no readable text and are counted, not represented.
 */
import type { TranscriptFormatV1 } from '../../spec/format.js'
import type { Message, Part, Role } from '../../spec/transcript.js'
import { headRecords, readJsonl } from '../_jsonl.js'
import {
  blocksToText,
  checkedArguments,
  expectObject,
  fail,
  type FieldLocation,
  type LogCompaction,
  type LogReadContext,
  logReaders,
  MessageGroup,
  optionalBoolean,
  optionalString,
  placeholder,
  skip,
  stringField,
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

const NATIVE_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'file-history-snapshot', 'queue-operation', 'progress'])
const ENGRAM_ROLES = new Set(['user', 'assistant', 'tool'])

/** Scores a head as Claude Code JSONL: native records (with `uuid`/`sessionId`/`leafUuid`) or Engram records. */
export function detectClaudeCode(head: string): number {
  const records = headRecords(head, 4)
  const first = records.find((record) => record !== undefined)
  if (first !== undefined) {
    if (first === null || typeof first !== 'object' || Array.isArray(first)) return 0
    const record = first as Record<string, unknown>
    if (isEngram(record)) return 0.95
    if (typeof record['type'] === 'string' && NATIVE_TYPES.has(record['type'])) {
      const marked = ['uuid', 'sessionId', 'leafUuid', 'messageId', 'parentUuid'].some((key) => key in record)
      return marked ? 0.95 : 0
    }
    return 0
  }
  // The first record is longer than the head: fall back to its leading keys.
  const start = head.trimStart()
  if (start.startsWith('{"parentUuid":') || (start.startsWith('{') && start.includes('"sessionId":') && start.includes('"uuid":'))) return 0.8
  if (start.startsWith('{"timestamp":') && start.includes('"role":') && start.includes('"content":{"type":')) return 0.7
  return 0
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
        }
        skip(context, `system:${subtype}`)
      } else {
        skip(context, type as string)
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
      const closed = group.add('assistant', `assistant:${id}`, parts, line, record)
      if (closed) yield closed
      return
    }
    const { role, parts, summary } = userParts(content, record, at)
    const key = role === 'tool' ? 'tool' : `user:${line}`
    const closed = group.add(role, key, parts, line, record)
    if (closed) yield closed
    if (summary) {
      const own = group.flush()
      if (own) yield own
    }
  }

  for await (const { line, value } of readJsonl(context.source, { lenient: context.lenient, onWarning: (warning) => context.warnings.push(warning), record: RECORD })) {
    const at: FieldLocation = { file, line }
    const record = value as Record<string, unknown>
    if (record['type'] === undefined) {
      yield* engramRecord(record, line, at, group, context)
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
      for (const waiting of undecided.splice(0)) yield* handle(waiting.record, waiting.line)
    }
    yield* handle(record, line)
  }
  // Every message record was a sidechain's: the file is a subagent's own, read whole.
  if (undecided.length > 0) {
    mainSidechain ??= true
    for (const waiting of undecided.splice(0)) yield* handle(waiting.record, waiting.line)
  }
  const last = group.flush()
  if (last) yield last
  if (compactions.length > 0) context.envelope['compactions'] = compactions
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

/** Whether a record is a native record of the conversation chain (it has a `uuid`). */
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

function isChained(record: Record<string, unknown>): boolean {
  return typeof record['uuid'] === 'string' && (record['type'] === 'user' || record['type'] === 'assistant' || record['type'] === 'system')
}

/**
 * Writes a compacted range of a native session so that a resume, which rebuilds the conversation by walking
 * `parentUuid` up from the last record, reaches every summary of the write. A range with no main-thread record before
 * it in the written log is written as Claude Code writes its own compaction: a `compact_boundary` system record that
 * starts the chain (`parentUuid: null`, `logicalParentUuid` the record it follows in the file, null when the range starts
 * the log), then the summary as a user record flagged `isCompactSummary` whose `parentUuid` is the boundary. A range
 * after main-thread records (the second part of a split, a range in the middle of the log) gets the summary record
 * alone, its `parentUuid` the nearest main-thread record before it: a boundary there would end the chain, and a resume
 * would lose the earlier summaries and the records kept before the range (Claude Code reloads only what follows the
 * last boundary). The session fields (`sessionId`, `cwd`, `version`, `gitBranch`, …) are copied from the nearest
 * record of the session, the timestamp from the last replaced record (a loader that takes the newest record as the
 * leaf must not pick the summary). Kept records that pointed at a replaced record point at the summary. An Engram log
 * (records without uuids) gets one Engram record holding the summary (see `engramSummary`).
 */
export function createClaudeCodeCompaction(options: ClaudeCodeFormatOptions = {}): LogCompaction {
  const now = options.now ?? (() => new Date())
  const randomId = options.randomId ?? randomUUID
  return {
    replace(context) {
      const summary: Message = { role: 'user', parts: [{ type: 'summary', text: context.text, source: 'floorguard' }] }
      const removed = context.removed()
      const native = removed.some(isChained)
      // An Engram log gets a record of its own shape, flagged as Claude Code flags its summaries: a native record
      // in it would mix two formats in one file.
      if (!native && removed.some(isEngram)) return { lines: `${JSON.stringify(engramSummary(context.text, removed, now))}\n` }
      if (!native) return { lines: appendRecords([summary], { now, randomId }) }
      const main = (record: Record<string, unknown>): boolean => isChained(record) && typeof record['sessionId'] === 'string'
      const neighbour = [...removed].reverse().find(main) ?? context.before(main) ?? context.after(main) ?? {}
      const session: Record<string, unknown> = {}
      for (const key of SESSION_FIELDS) if (neighbour[key] !== undefined) session[key] = neighbour[key]
      const previous = context.before(isChained)
      const parent = context.before((record) => isChained(record) && record['isSidechain'] !== true)
      // The replaced records' last instant, not the clock: a loader that takes the newest record for the leaf must
      // not pick the summary over the records kept after it.
      const stamped = [...removed].reverse().find((record) => typeof record['timestamp'] === 'string')
      const timestamp = typeof stamped?.['timestamp'] === 'string' ? stamped['timestamp'] : now().toISOString()
      const boundaryUuid = parent ? undefined : randomId()
      const summaryUuid = randomId()
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
        parentUuid: boundaryUuid ?? parent!['uuid'],
        ...session,
        type: 'user',
        message: { role: 'user', content: context.text },
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        uuid: summaryUuid,
        timestamp,
      }
      const relink = new Map<string, string>()
      for (const record of removed) if (typeof record['uuid'] === 'string') relink.set(record['uuid'], summaryUuid)
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

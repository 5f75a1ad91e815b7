import type { FloorItem } from '../spec/estimator.js'
import type { Message, Part, ToolCallPart } from '../spec/transcript.js'
import { renderMessage, stableJson } from '../transcript/render.js'

/** Who said or produced an item, as a state-block line names it. */
export interface ItemOrigin {
  /** `user`, `system`, `assistant`, `call` (a tool-call argument), `tool` (a tool result) or `summary` (an earlier summary). */
  readonly speaker: 'user' | 'system' | 'assistant' | 'call' | 'tool' | 'summary'
  /** Transcript index of the message. */
  readonly message: number
  /** Tool name, for calls and results. */
  readonly tool?: string
  /** The head of the command that produced a tool result (its call's `command`, or its arguments), for results. */
  readonly command?: string
}

/** Longest command head a line quotes, in UTF-16 units. */
const COMMAND_HEAD = 48

/**
 * clipWords(text, width) = `text` when it fits in `width` units, else its leading whole words that fit and ` …` (a
 * flag whose value does not fit left out with it): a context never shows part of a word, which would read as an
 * identifier the session never had (`https://host/c…`), nor a flag without its value (`--path …`).
 * A first word too long alone keeps its last `/` segments that fit (`…/models/masked_diffusion_lm.py`: the file it
 * names), else only `…`.
 */
export function clipWords(text: string, width: number): string {
  if (text.length <= width) return text
  let cut = -1
  let previous = -1
  for (let index = 0; index <= width - 2 && index < text.length; index++) {
    if (text.charCodeAt(index) !== 32) continue
    previous = cut
    cut = index
  }
  // A flag whose value is cut off goes too: `--path …` would read as a setting whose value is `…`.
  if (cut > 0 && text.charCodeAt(previous + 1) === 45) cut = previous
  const head = cut > 0 ? text.slice(0, cut).trimEnd() : ''
  if (head !== '') return `${head} …`
  const first = text.split(' ', 1)[0]!
  for (let slash = first.indexOf('/', first.length - width + 1); slash !== -1; slash = first.indexOf('/', slash + 1)) {
    if (slash + 1 < first.length) return `…${first.slice(slash)}`
  }
  return '…'
}

/** The first line of a call's command (or of its JSON arguments), cut to {@link COMMAND_HEAD} units (see {@link clipWords}). */
function commandHead(call: ToolCallPart): string {
  const args = call.arguments
  let text: string
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    const record = args as Record<string, unknown>
    const value = record['command'] ?? record['cmd'] ?? record['file_path'] ?? record['path'] ?? record['url'] ?? record['query'] ?? record['pattern']
    text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : stableJson(args)
  } else text = typeof args === 'string' ? args : stableJson(args)
  const newline = text.indexOf('\n')
  const line = newline === -1 ? text : text.slice(0, newline)
  return clipWords(line, COMMAND_HEAD)
}

/** The part of `message` whose rendered span holds `offset`. */
function partAt(message: Message, offset: number): Part | undefined {
  for (const span of renderMessage(message).spans) if (offset >= span.start && offset < span.end) return message.parts[span.part]
  return message.parts.length === 1 ? message.parts[0] : undefined
}

/**
 * Describes where each item came from: origin = the speaker of the part holding its offset, with the tool and command
 * for tool results (found through the call of the same id in `messages`).
 *
 * `offset` is the transcript index of `messages[0]`. Items of messages outside `messages` get no origin.
 */
export function describeOrigins(items: readonly FloorItem[], messages: readonly Message[], offset: number): Map<FloorItem, ItemOrigin> {
  const calls = new Map<string, ToolCallPart>()
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool-call') calls.set(part.id, part)
  const origins = new Map<FloorItem, ItemOrigin>()
  // Computed on the first call item of a multi-line command.
  let keptLines: Map<Part, number> | undefined
  for (const item of items) {
    const message = messages[item.message - offset]
    if (!message) continue
    const part = partAt(message, item.start)
    if (!part) continue
    switch (part.type) {
      case 'tool-call': {
        // A command kept in part (a long script's lines that carry state) says how much of it its items hold.
        const total = commandLines(part)
        const kept = total > 1 ? (keptLines ??= keptLinesByCall(items, messages, offset)).get(part) ?? 0 : total
        origins.set(item, { speaker: 'call', message: item.message, tool: part.name, ...(kept < total ? { command: `${kept} of ${total} lines kept` } : {}) })
        break
      }
      case 'tool-result': {
        const call = calls.get(part.callId)
        const tool = part.name ?? call?.name
        origins.set(item, { speaker: 'tool', message: item.message, ...(tool ? { tool } : {}), ...(call ? { command: commandHead(call) } : {}) })
        break
      }
      case 'summary':
        origins.set(item, { speaker: 'summary', message: item.message })
        break
      default:
        origins.set(item, { speaker: message.role === 'tool' ? 'tool' : message.role, message: item.message })
    }
  }
  return origins
}

/**
 * groupHeads(items, messages, offset) = per item, the heading of the group it belongs to in the `grouped` layout:
 * the message and who said or produced it, with the tool and the head of its command or target for a call or a result
 * (`#125 call Write: /repo/configs/pretrain.yaml`). Items of one part share a heading. A command of which only some
 * lines are items (a long script keeps the lines that carry a setting, path or flag) says how many:
 * `#62 call Bash: ssh host << 'EOF' (9 of 40 lines kept)`. Items of messages outside `messages` get none.
 */
export function groupHeads(items: readonly FloorItem[], messages: readonly Message[], offset: number): Map<FloorItem, string> {
  const calls = new Map<string, ToolCallPart>()
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool-call') calls.set(part.id, part)
  // Lines of the items of each call, to tell a command kept whole from one kept in part.
  const keptLines = keptLinesByCall(items, messages, offset)
  const heads = new Map<FloorItem, string>()
  for (const item of items) {
    const message = messages[item.message - offset]
    const part = message && partAt(message, item.start)
    if (!part) continue
    if (part.type === 'tool-call') {
      const total = commandLines(part)
      const kept = keptLines.get(part) ?? 0
      heads.set(item, `#${item.message} call ${part.name}: ${commandHead(part)}${total > kept ? ` (${kept} of ${total} lines kept)` : ''}`)
    } else if (part.type === 'tool-result') {
      const call = calls.get(part.callId)
      const tool = part.name ?? call?.name ?? 'tool'
      heads.set(item, call ? `#${item.message} tool ${tool}: ${commandHead(call)}` : `#${item.message} tool ${tool}`)
    } else heads.set(item, `#${item.message} ${part.type === 'summary' ? 'summary' : message.role}`)
  }
  return heads
}

/** Per call part, the lines of the items of `items` that stand in it (one pass over the items). */
function keptLinesByCall(items: readonly FloorItem[], messages: readonly Message[], offset: number): Map<Part, number> {
  const kept = new Map<Part, number>()
  for (const item of items) {
    const message = messages[item.message - offset]
    const part = message && partAt(message, item.start)
    if (part && part.type === 'tool-call') kept.set(part, (kept.get(part) ?? 0) + lineCount(item.text))
  }
  return kept
}

/** Whether a heading says that lines of its command were left out. */
export const leavesLinesOut = (head: string): boolean => / lines kept\)$/.test(head)

/** Lines of a text (one more than its `\n`s). */
export function lineCount(text: string): number {
  let count = 1
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++
  return count
}

/** Lines of a call's command (`command`, `cmd` or `script`), 0 for a call without one. */
function commandLines(call: ToolCallPart): number {
  const args = call.arguments
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 0
  const record = args as Record<string, unknown>
  const value = record['command'] ?? record['cmd'] ?? record['script']
  return typeof value === 'string' ? lineCount(value.trimEnd()) : 0
}

import { isFailingResult } from '../plan/error-fix.js'
import type { Message, ToolCallPart, ToolPair, ToolResultPart } from '../spec/transcript.js'

/**
 * The masking rule of policy `other-segment`, in one place.
 *
 * A tool output may be replaced by a placeholder naming its call only when it can be fetched again and nothing is
 * lost by fetching it again:
 * 1. the message is exactly one tool result, paired with its call;
 * 2. the call is read-only: a tool named for reading, listing or searching ({@link READ_TOOLS}), or a shell command
 *    every pipeline stage of which is a read-only program ({@link READ_COMMANDS}, `git` with a subcommand of
 *    {@link READ_GIT}; no redirection, `;`, `&`, command substitution, heredoc, `find -exec/-delete`);
 * 3. the output holds no error: not flagged, and no failing line (`isFailingResult` over every line, the stricter
 *    reading), since an error is state a later turn acts on and running the call again may not reproduce it;
 * 4. it still reads the same: no later call that is not read-only names a path the read names (a file read, then
 *    edited, cannot be fetched again as it was);
 * 5. the placeholder is shorter than the output.
 * Outputs of calls with effects (writes, builds, tests, installs, network calls) are never masked, whatever they hold.
 */
export const READ_TOOLS = new Set([
  'read', 'read_file', 'readfile', 'view', 'view_file', 'open_file', 'cat', 'ls', 'list', 'list_dir', 'list_directory', 'list_files', 'glob',
  'grep', 'search', 'search_files', 'find', 'find_files', 'file_search', 'codebase_search', 'grep_search',
])

/** Shell tools whose `command` argument is read with {@link READ_COMMANDS}. */
export const SHELL_TOOLS = new Set(['bash', 'shell', 'sh', 'terminal', 'run', 'exec', 'execute_command', 'run_terminal_cmd', 'run_command', 'local_shell', 'command'])

/** Programs that only read (files, listings, searches). */
export const READ_COMMANDS = new Set(['cat', 'head', 'tail', 'ls', 'find', 'grep', 'rg', 'ag', 'wc', 'tree', 'pwd', 'stat', 'file', 'du', 'sort', 'uniq', 'nl', 'less', 'more', 'which', 'echo'])

/** `git` subcommands that only read. */
export const READ_GIT = new Set(['log', 'show', 'status', 'diff', 'blame', 'ls-files', 'grep', 'rev-parse', 'shortlog', 'describe'])

/** Fields of a call's arguments that name what it reads. */
const TARGET_FIELDS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target', 'directory', 'dir', 'pattern', 'query']

function commandOf(call: ToolCallPart): string | undefined {
  const args = call.arguments
  if (typeof args === 'string') return args
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined
  for (const field of ['command', 'cmd']) {
    const value = (args as Record<string, unknown>)[field]
    if (typeof value === 'string') return value
    if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value.join(' ')
  }
  return undefined
}

/** Whether a shell command only reads: every `|` stage a read-only program, nothing that writes or chains. */
export function isReadOnlyCommand(command: string): boolean {
  if (command.length > 2000 || /[;&<>`\n]|\$\(/.test(command)) return false
  for (const stage of command.split('|')) {
    const words = stage.trim().split(/\s+/)
    const program = words[0] ?? ''
    if (program === 'git') {
      if (!READ_GIT.has(words[1] ?? '')) return false
      continue
    }
    if (!READ_COMMANDS.has(program)) return false
    if (program === 'find' && words.some((word) => word === '-exec' || word === '-execdir' || word === '-delete' || word === '-ok' || word.startsWith('-fprint'))) return false
  }
  return true
}

/** Whether a call only reads, by its tool name or its shell command. */
export function isReadOnlyCall(call: ToolCallPart): boolean {
  const name = call.name.toLowerCase()
  if (READ_TOOLS.has(name)) return true
  if (!SHELL_TOOLS.has(name)) return false
  const command = commandOf(call)
  return command !== undefined && isReadOnlyCommand(command)
}

/** The paths a read names: its target fields, or the words of its command that look like paths. */
function readTargets(call: ToolCallPart): string[] {
  const command = commandOf(call)
  if (command !== undefined) return command.split(/\s+/).filter((word) => word.includes('/') || /\.[A-Za-z0-9]+$/.test(word))
  const args = call.arguments
  if (args === null || typeof args !== 'object') return []
  const targets: string[] = []
  for (const field of TARGET_FIELDS) {
    const value = (args as Record<string, unknown>)[field]
    if (typeof value === 'string' && value !== '') targets.push(value)
  }
  return targets
}

/** One line naming the call, for the placeholder: `Bash: git log --oneline`, `read_file /srv/app/x.ts`. */
export function describeCall(call: ToolCallPart): string {
  const command = commandOf(call)
  const what = command ?? readTargets(call).join(' ')
  const short = what.length > 200 ? `${what.slice(0, 200)}…` : what
  return short === '' ? call.name : command !== undefined ? `${call.name}: ${short}` : `${call.name} ${short}`
}

/** The placeholder that replaces a masked output. */
export function maskPlaceholder(call: ToolCallPart, tokens: number): string {
  return `[floorguard: the output of ${describeCall(call)} (${tokens} tokens) was elided to save context; run the call again to see it]`
}

/** A message the rule allows to mask, with its placeholder. */
export interface MaskCandidate {
  readonly index: number
  readonly text: string
  /** Tokens saved: the message's tokens minus the masked message's. */
  readonly saves: number
}

/**
 * The messages of `[from, to)` whose tool output the rule allows to mask (see {@link READ_TOOLS} for the rule).
 * `tokensOf` counts a message's tokens (the compactor's cached counts for inputs). Linear in the messages and calls.
 */
export function findMaskable(
  messages: readonly Message[],
  pairs: readonly ToolPair[],
  from: number,
  to: number,
  tokensOf: (message: Message, index: number) => number,
): MaskCandidate[] {
  const callOfResult = new Map<number, ToolCallPart>()
  for (const pair of pairs) {
    const call = messages[pair.call.message]?.parts[pair.call.part]
    if (call?.type === 'tool-call') callOfResult.set(pair.result.message, call)
  }
  // Text of the arguments of every later call that is not read-only, to find reads whose file changed afterwards.
  const writesAfter: Array<{ message: number; text: string }> = []
  for (const pair of pairs) {
    const call = messages[pair.call.message]?.parts[pair.call.part]
    if (call?.type !== 'tool-call' || isReadOnlyCall(call) || pair.call.message < from) continue
    writesAfter.push({ message: pair.call.message, text: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) ?? '' })
  }
  const candidates: MaskCandidate[] = []
  for (let index = from; index < to; index++) {
    const message = messages[index]!
    if (message.parts.length !== 1 || message.parts[0]!.type !== 'tool-result') continue
    const result = message.parts[0] as ToolResultPart
    const call = callOfResult.get(index)
    if (!call || call.id !== result.callId || !isReadOnlyCall(call)) continue
    if (result.isError || isFailingResult(result, { output: 'log' })) continue
    const targets = readTargets(call)
    if (writesAfter.some((write) => write.message > index && targets.some((target) => write.text.includes(target)))) continue
    const tokens = tokensOf(message, index)
    const text = maskPlaceholder(call, tokens)
    const masked: Message = { ...message, parts: [{ ...result, content: text }] }
    const saves = tokens - tokensOf(masked, -1)
    if (saves > 0) candidates.push({ index, text, saves })
  }
  return candidates
}

/** The masked copy of a message: its one tool result's content replaced by `text`. */
export function maskMessage(message: Message, text: string): Message {
  return { ...message, parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, content: text } : part)) }
}

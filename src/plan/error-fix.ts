import type { Message, ToolCallPart, ToolPair, ToolResultPart } from '../spec/transcript.js'
import type { CausalUnit, LinkInput, UnitLinkerV1 } from './types.js'
import { SYSTEM_FAILURE_MESSAGES } from '../vocabulary/failures.js'

/** Lines longer than this are only checked on their first characters (error markers lead a line). */
const LINE_PREFIX = 240

/**
 * How a failing line may start (after indentation, any case): `error:`, `error[E0425]`, `error TS2322`, `fatal:`,
 * `Traceback (most recent call last)`, `npm ERR!`, `panic:`, `FAILED`, `FAIL `, `Exception in`, pytest's `E   `.
 */
export const FAILING_LINE_PREFIXES = [
  'error:', 'error[', 'error ts', 'fatal:', 'fatal error', 'traceback (most recent call last)', 'npm err!', 'panic:', 'failed', 'fail ', 'fail:',
  'exception in', 'uncaught ', 'unhandled exception', 'segmentation fault', 'e   ',
] as const

/**
 * Phrases that make a line failing wherever they stand in it (any case): a compiler's `: error:`, Windows' `is not
 * recognized as`, and the shell's and the system's own failure messages (`SYSTEM_FAILURE_MESSAGES`, which the
 * estimator's error phrases share). Each names a failure on its own; looser words (`not found`, `killed`,
 * `timed out`) are error *hints* of the estimator, not failures.
 */
export const FAILING_LINE_PHRASES = [': error:', ': error ts', 'is not recognized as', ...SYSTEM_FAILURE_MESSAGES] as const

const EXIT_PHRASES = ['exit code', 'exit status', 'exited with code', 'exited with status', 'returncode', 'return code']

/** The exit code a line reports (`Exit code: 1`, `exited with code 2`), if any. */
function exitCodeIn(lower: string): number | undefined {
  for (const phrase of EXIT_PHRASES) {
    const at = lower.indexOf(phrase)
    if (at === -1) continue
    let index = at + phrase.length
    while (index < lower.length && (lower[index] === ' ' || lower[index] === ':' || lower[index] === '=')) index++
    let digits = ''
    while (index < lower.length && digits.length < 6 && lower.charCodeAt(index) >= 48 && lower.charCodeAt(index) <= 57) digits += lower[index++]
    if (digits !== '') return Number(digits)
  }
  return undefined
}

/** `TypeError:`, `ModuleNotFoundError:`, `java.io.IOException:` at the start of a line. */
function startsWithNamedError(line: string): boolean {
  const colon = line.indexOf(':')
  if (colon < 5 || colon > 80) return false
  for (let index = 0; index < colon; index++) {
    const code = line.charCodeAt(index)
    if (!((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 46 || code === 95 || code === 36)) return false
  }
  const name = line.slice(0, colon)
  return name.endsWith('Error') || name.endsWith('Exception') || name.endsWith('Failure')
}

/**
 * Whether one line of tool output reports a failure: the project's one definition of a **failing line**.
 *
 * failing = starts (after spaces and tabs) with one of {@link FAILING_LINE_PREFIXES} or a named error
 * (`TypeError:`, `java.io.IOException:`), or holds one of {@link FAILING_LINE_PHRASES}; any case; only the first
 * 240 characters are read. The estimator's error items are wider (an error *mentioned* anywhere is kept verbatim);
 * deciding that a tool call failed uses this definition only.
 */
export function isFailingLine(line: string): boolean {
  let first = 0
  while (first < line.length && (line.charCodeAt(first) === 32 || line.charCodeAt(first) === 9)) first++
  const head = line.slice(first, first + LINE_PREFIX)
  const lower = head.toLowerCase()
  return FAILING_LINE_PREFIXES.some((prefix) => lower.startsWith(prefix)) || startsWithNamedError(head) || FAILING_LINE_PHRASES.some((phrase) => lower.includes(phrase))
}

/** Options of {@link isFailingResult}. */
export interface FailingResultOptions {
  /**
   * `log`: the result is a process's output, and any failing line fails it. `data`: the result is what a tool read
   * or fetched (a file, a page), whose lines may quote errors; only its first non-blank line can say it failed.
   * @default 'log'
   */
  readonly output?: 'log' | 'data'
}

/**
 * Whether a tool result failed: its error flag, a non-zero exit code, or a failing line ({@link isFailingLine}).
 *
 * An explicit `exit code 0` wins over failing-looking log lines. With `output: 'data'` (what a read or fetch
 * returned) only the first non-blank line is read, so a source file that quotes `Error:` does not fail its read.
 * One pass.
 */
export function isFailingResult(result: Pick<ToolResultPart, 'content' | 'isError'>, options: FailingResultOptions = {}): boolean {
  if (result.isError) return true
  const text = result.content
  const dataOnly = options.output === 'data'
  let failingLine = false
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    let first = start
    while (first < end && (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9 || text.charCodeAt(first) === 13)) first++
    if (first < end) {
      const line = text.slice(first, Math.min(end, first + LINE_PREFIX))
      if (dataOnly) return line.startsWith('<tool_use_error>') || isFailingLine(line) || (exitCodeIn(line.toLowerCase()) ?? 0) !== 0
      const exit = exitCodeIn(line.toLowerCase())
      if (exit !== undefined) return exit !== 0
      if (!failingLine) failingLine = isFailingLine(line)
    }
    start = end + 1
  }
  return failingLine
}

/** The command a tool call runs, when its arguments carry one (`command`, `cmd`, `script`, or a bare string). */
function commandOf(call: ToolCallPart): string | undefined {
  const args = call.arguments
  if (typeof args === 'string') return args
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined
  const record = args as Record<string, unknown>
  for (const field of ['command', 'cmd', 'script']) {
    const value = record[field]
    if (typeof value === 'string') return value
    if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value.join(' ')
  }
  return undefined
}

/** ssh options followed by an argument (`-p 2222`). */
const SSH_OPTIONS_WITH_ARGUMENT = new Set(['-p', '-i', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-E', '-m', '-O', '-Q', '-S', '-W', '-w'])

const TARGET_FIELDS = ['path', 'file_path', 'filePath', 'file', 'filename', 'url', 'uri', 'target']

/**
 * The key that says two tool calls are "the same tool/command": for shell-like calls the tool name and the
 * command's first two words (three when the second is `run`, `exec`, `-m` or `test`), e.g. `bash:npm run build`,
 * after wrappers that say how it runs (`sudo`, `env`, `time`, `nohup`, `NAME=value`); `ssh HOST` says where, so it
 * stays in the key (`bash:ssh worker-b python -m ingest.worker`: a success on another host fixes nothing here);
 * for calls with a target (`path`, `file_path`, `url`, …) the name and the target (fetching another URL does not fix
 * a failed fetch); otherwise the name.
 */
export function toolKeyOf(call: ToolCallPart): string {
  const command = commandOf(call)
  if (command === undefined) {
    const args = call.arguments
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      for (const field of TARGET_FIELDS) {
        const value = (args as Record<string, unknown>)[field]
        if (typeof value === 'string') return `${call.name}:${value.slice(0, 200)}`
      }
    }
    return call.name
  }
  const all = command.trim().slice(0, 400).split(/\s+/)
  // Wrappers say how a command runs, not which: skip them. A host says where: keep it.
  let first = 0
  let host = ''
  for (;;) {
    const word = all[first]
    if (word === undefined) break
    if (word === 'sudo' || word === 'env' || word === 'time' || word === 'nohup' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) first++
    else if (word === 'ssh') {
      // `ssh [-p PORT] [-i KEY] … HOST command`: options with an argument are skipped with it.
      let at = first + 1
      while (all[at]?.startsWith('-')) at += SSH_OPTIONS_WITH_ARGUMENT.has(all[at]!) ? 2 : 1
      if (all[at] === undefined) break
      host = `ssh ${all[at]} `
      first = at + 1
    } else break
  }
  const words = all.slice(first, first + 3)
  const take = words[1] === 'run' || words[1] === 'exec' || words[1] === '-m' || words[1] === 'test' ? 3 : 2
  return `${call.name}:${host}${words.slice(0, take).join(' ')}`
}

/** Options of {@link createErrorFixLinker}. */
export interface ErrorFixLinkerOptions {
  /**
   * How many messages after a failure to look for the success that fixed it; a failure not fixed within the window
   * links at most the assistant text right after it.
   * @default 50
   */
  readonly window?: number
}

/** An assistant message with text and no tool call: the agent reporting an outcome, not acting. */
function isAssistantReport(message: Message | undefined): boolean {
  return (
    message?.role === 'assistant' &&
    message.parts.some((part) => part.type === 'text' && part.text.trim() !== '') &&
    !message.parts.some((part) => part.type === 'tool-call')
  )
}

/**
 * Creates the default error-fix linker: a unit from a failing tool call through the result that fixed it.
 *
 * Rule (transcript indices, half-open ranges): a tool result fails per {@link isFailingResult} (a call without a
 * command is read as `data`). Its **fix** is the first later successful result of a call with the same
 * {@link toolKeyOf} key (the same tool and target, or the same command) within `window` messages and before the
 * next user turn (a success after the user spoke again answers another request). The unit is
 * `[failing call, fix result + 1)`, or `[failing call, fix result + 2)` when the message right after the fix is an
 * assistant report (text, no tool call) — never to later prose. Failures of the same key in between stay inside.
 * A failure without a fix is linked to the assistant report right after its result, if there is one
 * (`resolution.by: 'assistant-turn'`); otherwise it links nothing beyond its tool pair.
 */
export function createErrorFixLinker(options: ErrorFixLinkerOptions = {}): UnitLinkerV1 {
  const window = options.window ?? 50
  return {
    specificationVersion: 'v1',
    name: 'error-fix',
    link(input: LinkInput): CausalUnit[] {
      const { messages, offset } = input
      const callOf = (pair: ToolPair) => messages[pair.call.message - offset]?.parts[pair.call.part] as ToolCallPart | undefined
      const resultOf = (pair: ToolPair) => messages[pair.result.message - offset]?.parts[pair.result.part] as ToolResultPart | undefined
      // Results by local message index, with their key and outcome, so each failure scans only its window.
      const resultsAt = new Map<number, Array<{ key: string; failed: boolean; callMessage: number }>>()
      const failures: Array<{ pair: ToolPair; key: string }> = []
      for (const pair of input.pairs) {
        const call = callOf(pair)
        const result = resultOf(pair)
        if (call?.type !== 'tool-call' || result?.type !== 'tool-result') continue
        const key = toolKeyOf(call)
        const failed = isFailingResult(result, { output: commandOf(call) === undefined ? 'data' : 'log' })
        const local = pair.result.message - offset
        let list = resultsAt.get(local)
        if (!list) resultsAt.set(local, (list = []))
        list.push({ key, failed, callMessage: pair.call.message - offset })
        if (failed) failures.push({ pair, key })
      }
      const units: CausalUnit[] = []
      for (const { pair, key } of failures) {
        const resultLocal = pair.result.message - offset
        const startLocal = Math.min(pair.call.message, pair.result.message) - offset
        const limit = Math.min(messages.length, resultLocal + 1 + window)
        let fixed = false
        for (let index = resultLocal + 1; index < limit; index++) {
          // A new user turn ends the episode: a success after it answers another request.
          if (startsUserTurn(messages[index])) break
          const success = resultsAt.get(index)?.find((entry) => entry.key === key && !entry.failed)
          if (!success) continue
          // The fix's result closes the unit; the agent's report right after it belongs with it.
          const end = isAssistantReport(messages[index + 1]) ? index + 2 : index + 1
          units.push({
            kind: 'error-fix',
            range: [offset + Math.min(startLocal, success.callMessage), offset + end],
            label: `${key} failed at ${pair.result.message}, succeeded at ${offset + index}`,
            failure: { message: pair.result.message, key },
            resolution: { message: offset + index, by: 'success' },
          })
          fixed = true
          break
        }
        if (!fixed && isAssistantReport(messages[resultLocal + 1])) {
          units.push({
            kind: 'error-fix',
            range: [offset + startLocal, offset + resultLocal + 2],
            label: `${key} failed at ${pair.result.message}, answered at ${offset + resultLocal + 1}`,
            failure: { message: pair.result.message, key },
            resolution: { message: offset + resultLocal + 1, by: 'assistant-turn' },
          })
        }
      }
      return units
    },
  }
}

/** Whether a message is where a user turn starts (cutting just before it keeps turns whole). */
export function startsUserTurn(message: Message | undefined): boolean {
  return message?.role === 'user' && message.parts.some((part) => part.type !== 'tool-result')
}

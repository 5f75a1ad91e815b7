import type { Message, ToolCallPart, ToolPair, ToolResultPart } from '../spec/transcript.js'
import type { CausalUnit, LinkInput, UnitLinkerV1 } from './types.js'

/** Lines longer than this are only checked on their first characters (error markers lead a line). */
const LINE_PREFIX = 240

const ERROR_PREFIXES = ['error:', 'error[', 'error ts', 'fatal:', 'fatal error', 'traceback (most recent call last)', 'npm err!', 'panic:', 'failed', 'fail ', 'fail:', 'exception in', 'uncaught ', 'unhandled exception', 'segmentation fault', 'e   ']
const ERROR_PHRASES = [': error:', ': error ts', 'no such file or directory', 'permission denied', 'command not found', 'is not recognized as', 'cannot find module', 'module not found']
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
 * Whether a tool result failed: its error flag, a non-zero exit code, or an error line.
 *
 * An explicit `exit code 0` wins over error-looking log lines. Error lines start (after indentation) with `error:`,
 * `error[`, `error TS`, `fatal:`, `Traceback (most recent call last)`, `npm ERR!`, `panic:`, `FAILED`, `FAIL `,
 * `Exception in`, pytest's `E   `, a named error (`TypeError:`), or hold a compiler's `: error:` or a shell failure
 * (`No such file or directory`, `Permission denied`, `command not found`, `Cannot find module`). One pass.
 */
export function isFailingResult(result: Pick<ToolResultPart, 'content' | 'isError'>): boolean {
  if (result.isError) return true
  const text = result.content
  let errorLine = false
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    let first = start
    while (first < end && (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9)) first++
    const line = text.slice(first, Math.min(end, first + LINE_PREFIX))
    const lower = line.toLowerCase()
    const exit = exitCodeIn(lower)
    if (exit !== undefined) return exit !== 0
    if (!errorLine) {
      errorLine = ERROR_PREFIXES.some((prefix) => lower.startsWith(prefix)) || startsWithNamedError(line) || ERROR_PHRASES.some((phrase) => lower.includes(phrase))
    }
    start = end + 1
  }
  return errorLine
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

const TARGET_FIELDS = ['path', 'file_path', 'filePath', 'file', 'filename', 'url', 'uri', 'target']

/**
 * The key that says two tool calls are "the same tool/command": for shell-like calls the tool name and the
 * command's first two words (three when the second is `run`, `exec`, `-m` or `test`), e.g. `bash:npm run build`,
 * after wrappers (`sudo`, `env`, `time`, `nohup`, `ssh HOST`, `NAME=value`);
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
  // Wrappers say where or how a command runs, not which: skip them.
  let first = 0
  for (;;) {
    const word = all[first]
    if (word === undefined) break
    if (word === 'sudo' || word === 'env' || word === 'time' || word === 'nohup' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) first++
    else if (word === 'ssh' && all[first + 1] !== undefined) first += 2
    else break
  }
  const words = all.slice(first, first + 3)
  const take = words[1] === 'run' || words[1] === 'exec' || words[1] === '-m' || words[1] === 'test' ? 3 : 2
  return `${call.name}:${words.slice(0, take).join(' ')}`
}

/** Options of {@link createErrorFixLinker}. */
export interface ErrorFixLinkerOptions {
  /**
   * How many messages after a failure to look for what resolved it; an unresolved failure links nothing.
   * @default 50
   */
  readonly window?: number
}

/**
 * Creates the default error-fix linker: a unit from a failing tool call through what resolved it.
 *
 * Rule: a tool result fails per {@link isFailingResult}. The unit runs from the failing call's message through
 * the first later message that either holds a successful result of a call with the same {@link toolKeyOf} key, or
 * is an assistant message with text and no tool calls (the agent closed its turn, reporting the outcome). Further
 * failures of the same key before that stay inside the unit. Nothing found within `window` messages: no unit.
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
        const failed = isFailingResult(result)
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
        for (let index = resultLocal + 1; index < limit; index++) {
          const message = messages[index]!
          const success = resultsAt.get(index)?.find((entry) => entry.key === key && !entry.failed)
          if (success) {
            units.push({
              kind: 'error-fix',
              range: [offset + Math.min(startLocal, success.callMessage), offset + index + 1],
              label: `${key} failed at ${pair.result.message}, succeeded at ${offset + index}`,
              failure: { message: pair.result.message, key },
              resolution: { message: offset + index, by: 'success' },
            })
            break
          }
          if (message.role === 'assistant' && message.parts.some((part) => part.type === 'text' && part.text.trim() !== '') && !message.parts.some((part) => part.type === 'tool-call')) {
            units.push({
              kind: 'error-fix',
              range: [offset + startLocal, offset + index + 1],
              label: `${key} failed at ${pair.result.message}, answered at ${offset + index}`,
              failure: { message: pair.result.message, key },
              resolution: { message: offset + index, by: 'assistant-turn' },
            })
            break
          }
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

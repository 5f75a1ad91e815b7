import { spawn } from 'node:child_process'
import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'
import { buildSummaryPrompt, renderSegmentData } from './_prompt.js'
import { renderMessage } from '../transcript/render.js'
import { firstLine } from './middleware.js'

/** Options of {@link createCommandSummarizer}. */
export interface CommandSummarizerOptions {
  /** Shell command run with `/bin/sh -c`; it reads the JSON request on stdin and prints the summary on stdout. */
  readonly command: string
  /**
   * Milliseconds before the command's whole process group is killed and the call fails.
   * @default 120000
   */
  readonly timeoutMs?: number
  /**
   * Working directory of the command.
   * @default the current directory
   */
  readonly cwd?: string
  /**
   * Environment of the command.
   * @default the parent's environment
   */
  readonly env?: NodeJS.ProcessEnv
  /**
   * Most bytes read from stdout before the call fails (a runaway command must not exhaust memory).
   * @default 8388608
   */
  readonly maxOutputBytes?: number
  /**
   * Registry name.
   * @default 'cmd'
   */
  readonly name?: string
}

/** The JSON document a command summarizer receives on stdin (version 1). */
export interface CommandSummaryRequest {
  readonly version: 1
  readonly slot: number
  readonly tokenizer: string
  readonly attempt: number
  /** Transcript index of `messages[0]`. */
  readonly offset: number
  readonly messages: ReadonlyArray<{ readonly index: number; readonly role: string; readonly text: string }>
  readonly groups: ReadonlyArray<{
    readonly kind: string
    readonly items: ReadonlyArray<{ readonly text: string; readonly status: 'current' | 'superseded'; readonly key?: string; readonly tokens: number }>
  }>
  /** The state block to copy verbatim at the start of the summary. */
  readonly stateBlock: string
  /** Texts the previous attempt dropped or altered. */
  readonly missing: readonly string[]
  readonly feedback: string | null
  /** A ready-made system prompt and user prompt, for commands that wrap a chat model. */
  readonly system: string
  readonly prompt: string
  /** The segment as one text (same as inside `prompt`'s data section). */
  readonly data: string
}

/** Builds the stdin document of a command summarizer from a request. */
export function buildCommandRequest(request: SummarizeRequest): CommandSummaryRequest {
  const { system, prompt, stateBlock } = buildSummaryPrompt(request)
  return {
    version: 1,
    slot: request.slot,
    tokenizer: request.tokenizer.name,
    attempt: request.attempt,
    offset: request.offset,
    messages: request.messages.map((message, index) => ({ index: request.offset + index, role: message.role, text: renderMessage(message).text })),
    groups: request.groups.map((group) => ({
      kind: group.kind,
      items: group.items.map((item) => ({ text: item.text, status: item.status, ...(item.key === undefined ? {} : { key: item.key }), tokens: item.tokens })),
    })),
    stateBlock,
    missing: request.missing.map((item) => item.text),
    feedback: request.feedback ?? null,
    system,
    prompt,
    data: renderSegmentData(request),
  }
}

/**
 * Creates a summarizer that runs a shell command: stdin = {@link CommandSummaryRequest} as JSON, summary = stdout with
 * trailing line breaks removed. Non-zero exit fails with stderr's first line; past `timeoutMs` the process group is
 * killed (SIGKILL) and the call fails. The command runs in a process group of its own, killed (SIGKILL) on every way
 * the call ends: when the shell exits (success or failure: background jobs it left die with it), on timeout, on
 * runaway output and on `abortSignal` (the CLI aborts on SIGINT, SIGTERM, exceptions and exit). A process that leaves
 * the group on purpose (`setsid`) is out of reach. POSIX only (`/bin/sh`).
 */
export function createCommandSummarizer(options: CommandSummarizerOptions): SummarizerV1 {
  const name = options.name ?? 'cmd'
  return {
    specificationVersion: 'v1',
    name,
    summarize: (request) => runCommand(options, name, request),
  }
}

function runCommand(options: CommandSummarizerOptions, name: string, request: SummarizeRequest): Promise<SummarizeResult> {
  // setTimeout fires at once beyond 2^31 - 1 ms (with a TimeoutOverflowWarning): longer waits are that long.
  const timeoutMs = Math.min(options.timeoutMs ?? 120_000, MAX_TIMER_MS)
  const maxOutputBytes = options.maxOutputBytes ?? 8 * 1024 * 1024
  const input = JSON.stringify(buildCommandRequest(request))
  return new Promise<SummarizeResult>((resolve) => {
    let settled = false
    const stdout: Buffer[] = []
    let stdoutBytes = 0
    let stderr = ''
    // detached: the command gets its own process group, so a timeout kills the runner and everything it started.
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    })
    const killGroup = (): void => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    const finish = (result: SummarizeResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.abortSignal?.removeEventListener('abort', onAbort)
      resolve(result)
    }
    const fail = (reason: string): void => finish({ kind: 'failure', reason: `command summarizer ${name}: ${reason}`, retryable: true })
    const onAbort = (): void => {
      killGroup()
      fail('aborted')
    }
    const timer = setTimeout(() => {
      killGroup()
      fail(`timed out after ${timeoutMs} ms (process group killed)`)
    }, timeoutMs)
    if (request.abortSignal?.aborted) onAbort()
    else request.abortSignal?.addEventListener('abort', onAbort, { once: true })

    child.on('error', (error) => fail(`could not start /bin/sh: ${firstLine(error)}`))
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length
      if (stdoutBytes > maxOutputBytes) {
        killGroup()
        fail(`printed more than ${maxOutputBytes} bytes`)
        return
      }
      stdout.push(chunk)
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk
    })
    // The shell is gone: whatever it left running in its group (`sleep 60 &`) goes too, which also closes the
    // pipes such a job inherited, so 'close' comes now rather than when the job ends.
    child.on('exit', killGroup)
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const detail = stderr.split('\n').find((line) => line.trim() !== '')?.trim()
        fail(`${signal ? `killed by ${signal}` : `exited with code ${code}`}${detail ? `: ${detail}` : ''}`)
        return
      }
      finish({ kind: 'summary', text: trimLineBreaks(Buffer.concat(stdout).toString('utf8')) })
    })
    // A command that never reads stdin closes the pipe early; that is its business, not an error.
    child.stdin.on('error', () => {})
    child.stdin.end(input)
  })
}

const MAX_TIMER_MS = 2 ** 31 - 1

/** Removes trailing CR/LF characters (a scan from the end, linear). */
function trimLineBreaks(text: string): string {
  let end = text.length
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--
  return text.slice(0, end)
}

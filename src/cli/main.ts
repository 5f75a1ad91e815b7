import { readFileSync } from 'node:fs'
import { FloorguardError } from '../errors.js'
import { OutputWriteError, type CliCommand, type CliIo } from './_command.js'
import { installInterrupts } from './_interrupt.js'

/** A subcommand as `floorguard --help` lists it; its module is imported only when the command runs (or shows its usage). */
export interface CommandEntry {
  /** One line for `floorguard --help`: the command's own `summary`. */
  readonly summary: string
  readonly load: () => Promise<CliCommand>
}

/**
 * The CLI's subcommands by name, each loaded on demand: a run pays for its own command's modules only (`check` does
 * not load the hook's, the summarizers' or the writers'), which is most of a small run's start-up.
 */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  check: {
    summary: "estimate a segment's floor and decide: compact, split or refuse",
    load: async () => (await import('./commands/check.js')).checkCommand,
  },
  plan: {
    summary: 'plan a compaction: compact, split into parts that fit, or refuse with options',
    load: async () => (await import('./commands/plan.js')).planCommand,
  },
  compact: {
    summary: 'compact a range into verified summaries (or refuse), and write the new transcript',
    load: async () => (await import('./commands/compact.js')).compactCommand,
  },
  hook: {
    summary: "run as Claude Code's, Codex's or Gemini CLI's compaction hook (JSON on stdin)",
    load: async () => (await import('./commands/hook.js')).hookCommand,
  },
  hooks: {
    summary: "install or uninstall floorguard's compaction hooks in Claude Code, Codex or Gemini CLI",
    load: async () => (await import('./commands/hooks.js')).hooksCommand,
  },
  report: {
    summary: 'write a self-contained HTML report: timeline, plan, audit of existing summaries, items in their messages',
    load: async () => (await import('./commands/report.js')).reportCommand,
  },
  audit: {
    summary: 'audit the compaction summaries already in transcripts: what survived, what was needed again',
    load: async () => (await import('./commands/audit.js')).auditCommand,
  },
  demo: {
    summary: "simulate the record's turn-412 failure: a naive compactor against floorguard, side by side",
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
}

/**
 * Exit codes shared by every command: 1 also for a failed write (full disk), 141 (128 + SIGPIPE, what a shell reports
 * for `cat big | head`) when the reader of standard output went away, 130/143/129 after SIGINT/SIGTERM/SIGHUP.
 */
export const EXIT = { ok: 0, internal: 1, badInput: 2, refused: 3, closedPipe: 141 } as const

const BAD_INPUT_CODES = new Set(['invalid-input', 'invalid-argument', 'unknown-name', 'missing-dependency'])

function version(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return packageJson.version
}

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`)
  return `usage: floorguard <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nfloorguard <command> --help shows a command's options. --debug prints stack traces.\n`
}

/** Writes to a stream and settles when the OS has the bytes; a failure becomes an OutputWriteError naming `target`. */
function writeTo(stream: NodeJS.WritableStream, target: string, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    try {
      stream.write(chunk, (error) => (error ? reject(new OutputWriteError(target, error)) : resolve()))
    } catch (error) {
      reject(new OutputWriteError(target, error))
    }
  })
}

function ignoreError(): void {}

/** Default I/O: the process's streams. Write errors reach the writer's promise, never an unhandled 'error' event. */
export function processIo(): CliIo {
  for (const stream of [process.stdout, process.stderr]) if (!stream.listeners('error').includes(ignoreError)) stream.on('error', ignoreError)
  return {
    stdout: (chunk) => writeTo(process.stdout, '<stdout>', chunk),
    stderr: (text) => void process.stderr.write(text),
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
  }
}

/**
 * Runs the CLI and returns its exit code: 0 ran, 1 internal fault or failed write, 2 bad usage or input, 3 refused
 * (compact), 141 standard output closed by its reader (quietly). Errors print as one line (`floorguard …: …`);
 * `--debug` adds the stack.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const debug = argv.includes('--debug')
  const args = argv.filter((arg) => arg !== '--debug')
  const [name, ...rest] = args
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      await io.stdout(help())
      return name === undefined ? EXIT.badInput : EXIT.ok
    }
    if (name === '--version' || name === '-v') {
      await io.stdout(`${version()}\n`)
      return EXIT.ok
    }
    const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
    if (!entry) {
      io.stderr(`floorguard: unknown command ${JSON.stringify(name)}: expected one of ${Object.keys(COMMANDS).join(', ')}\n`)
      return EXIT.badInput
    }
    const command = await entry.load()
    if (rest.includes('--help') || rest.includes('-h')) {
      await io.stdout(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`)
      return EXIT.ok
    }
    return await command.run(rest, io)
  } catch (error) {
    if (error instanceof OutputWriteError) {
      if (error.closed) return EXIT.closedPipe
      io.stderr(`floorguard: ${error.message}\n`)
      if (debug && error.stack) io.stderr(`${error.stack}\n`)
      return EXIT.internal
    }
    const known = FloorguardError.is(error)
    const message = error instanceof Error ? error.message : String(error)
    io.stderr(`floorguard ${name}: ${known ? message : `internal error: ${message}`}\n`)
    if (debug && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`)
    if (!known) return EXIT.internal
    return BAD_INPUT_CODES.has(error.code) ? EXIT.badInput : EXIT.internal
  }
}

/**
 * Entry point of the `floorguard` binary: runs the CLI and sets the process's exit code. Interrupts (SIGINT, SIGTERM,
 * SIGHUP) kill running summarizers' process groups, remove temp files and exit with 128 + the signal's number.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const interrupts = installInterrupts()
  const io = processIo()
  // Standard output is written synchronously (a file, a pipe): a signal that came during synchronous work is acted on
  // before anything is written, so an interrupted run prints nothing after the signal.
  const stdout: CliIo['stdout'] = async (chunk) => {
    await interrupts.settle()
    return io.stdout(chunk)
  }
  try {
    process.exitCode = await runCli(argv, { ...io, stdout, signal: interrupts.signal, trackTempFile: interrupts.trackTempFile })
  } finally {
    await interrupts.settle()
    interrupts.dispose()
  }
}

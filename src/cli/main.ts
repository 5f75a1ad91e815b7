import { readFileSync } from 'node:fs'
import { FloorguardError } from '../errors.js'
import type { CliCommand, CliIo } from './_command.js'
import { checkCommand } from './commands/check.js'
import { compactCommand } from './commands/compact.js'
import { planCommand } from './commands/plan.js'

/** The CLI's subcommands by name. */
export const COMMANDS: Record<string, CliCommand> = {
  check: checkCommand,
  plan: planCommand,
  compact: compactCommand,
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, internal: 1, badInput: 2, refused: 3 } as const

const BAD_INPUT_CODES = new Set(['invalid-input', 'invalid-argument', 'unknown-name', 'missing-dependency'])

function version(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return packageJson.version
}

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.values(COMMANDS).map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`)
  return `usage: floorguard <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nfloorguard <command> --help shows a command's options. --debug prints stack traces.\n`
}

/** Default I/O: the process's streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
  }
}

/**
 * Runs the CLI and returns its exit code: 0 ran, 1 internal fault, 2 bad usage or input, 3 refused (compact).
 * Errors print as one line (`floorguard: …`); `--debug` adds the stack.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const debug = argv.includes('--debug')
  const args = argv.filter((arg) => arg !== '--debug')
  const [name, ...rest] = args
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help())
    return name === undefined ? EXIT.badInput : EXIT.ok
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${version()}\n`)
    return EXIT.ok
  }
  const command = COMMANDS[name]
  if (!command) {
    io.stderr(`floorguard: unknown command ${JSON.stringify(name)}: expected one of ${Object.keys(COMMANDS).join(', ')}\n`)
    return EXIT.badInput
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`)
    return EXIT.ok
  }
  try {
    return await command.run(rest, io)
  } catch (error) {
    const known = FloorguardError.is(error)
    const message = error instanceof Error ? error.message : String(error)
    io.stderr(`floorguard ${name}: ${known ? message : `internal error: ${message}`}\n`)
    if (debug && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`)
    if (!known) return EXIT.internal
    return BAD_INPUT_CODES.has(error.code) ? EXIT.badInput : EXIT.internal
  }
}

/** Entry point of the `floorguard` binary: runs the CLI and sets the process's exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await runCli(argv)
}

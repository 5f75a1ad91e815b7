import { parseArgs, type ParseArgsConfig } from 'node:util'
import { FloorguardError } from '../errors.js'

/** What a command may touch: its streams and the file system through node:fs (cli/ only). */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Standard input, for `-` as FILE. */
  readonly stdin: NodeJS.ReadableStream
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
}

/** One subcommand of the `floorguard` CLI. `run` returns the exit code; it throws only FloorguardErrors for bad usage/input. */
export interface CliCommand {
  readonly name: string
  /** One line for `floorguard --help`. */
  readonly summary: string
  /** Full usage text for `floorguard NAME --help`. */
  readonly usage: string
  run(args: readonly string[], io: CliIo): Promise<number>
}

/** Bad usage (unknown flag, bad value): exit code 2 with a one-line message. */
export class UsageError extends FloorguardError {
  constructor(message: string) {
    super('invalid-argument', message)
    this.name = 'FloorguardUsageError'
  }
}

/** Parses argv with node:util, turning its errors into UsageErrors. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
    return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals }
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0]! : String(error))
  }
}

/** Parses a non-negative integer flag value. */
export function parseIntegerFlag(name: string, value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${name}: expected a non-negative integer, got ${JSON.stringify(value)}`)
  return Number(value)
}

/** Parses a ratio flag value in [0, 1]. */
export function parseRatioFlag(name: string, value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const number = typeof value === 'string' && /^\d*\.?\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(number >= 0 && number <= 1)) throw new UsageError(`--${name}: expected a number from 0 to 1, got ${JSON.stringify(value)}`)
  return number
}

/** Parses `A:B` (half-open message range; either side may be empty: `:B`, `A:`). */
export function parseRangeFlag(value: string | boolean | undefined): { start?: number; end?: number } | undefined {
  if (value === undefined) return undefined
  const match = typeof value === 'string' ? /^(\d*):(\d*)$/.exec(value) : null
  if (!match) throw new UsageError(`--range: expected A:B (half-open message indices, e.g. 0:40), got ${JSON.stringify(value)}`)
  const range: { start?: number; end?: number } = {}
  if (match[1] !== '') range.start = Number(match[1])
  if (match[2] !== '') range.end = Number(match[2])
  if (range.start !== undefined && range.end !== undefined && range.end < range.start) {
    throw new UsageError(`--range: expected A <= B, got ${value}`)
  }
  return range
}

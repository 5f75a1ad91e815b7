import { getSystemErrorMap, parseArgs, type ParseArgsConfig } from 'node:util'
import { FloorguardError } from '../errors.js'

/** What a command may touch: its streams and the file system through node:fs (cli/ only). */
export interface CliIo {
  /**
   * Writes to standard output. Commands await it before reporting success: the process's writer resolves once the
   * bytes are handed to the OS and rejects with an {@link OutputWriteError} (closed pipe, full disk).
   */
  readonly stdout: (chunk: string | Uint8Array) => void | Promise<void>
  readonly stderr: (text: string) => void
  /** Standard input, for `-` as FILE. */
  readonly stdin: NodeJS.ReadableStream
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  /**
   * Aborted when the process is interrupted (SIGINT, SIGTERM, SIGHUP) or exits: running summarizers stop.
   * @default never aborted
   */
  readonly signal?: AbortSignal
  /**
   * Registers a temp file to remove if the process is interrupted; returns the function that unregisters it.
   * @default nothing is registered
   */
  readonly trackTempFile?: (path: string) => () => void
}

/** A write to standard output or OUT failed: printed as `floorguard: cannot write TARGET: reason` (exit 1), or quietly for a closed pipe. */
export class OutputWriteError extends Error {
  /** `<stdout>` or OUT as given. */
  readonly target: string
  /** The system error code (`EPIPE`, `ENOSPC`, …), or `undefined` when the cause had none. */
  readonly errno: string | undefined

  constructor(target: string, cause: unknown) {
    const errno = (cause as NodeJS.ErrnoException | undefined)?.code
    super(`cannot write ${target}: ${describeSystemError(cause)}`, { cause })
    this.name = 'OutputWriteError'
    this.target = target
    this.errno = errno
  }

  /** Whether the reader went away (EPIPE: `| head`), which ends the command quietly. */
  get closed(): boolean {
    return this.errno === 'EPIPE' || this.errno === 'ERR_STREAM_DESTROYED'
  }
}

/** The system's own words for an error (`no space left on device`), else its code, else its message's first line. */
export function describeSystemError(error: unknown): string {
  const { errno, code } = (error ?? {}) as NodeJS.ErrnoException
  if (typeof errno === 'number') {
    const entry = getSystemErrorMap().get(errno)
    if (entry) return entry[1]
  }
  if (typeof code === 'string') return code
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
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

/**
 * Parses argv with node:util, turning its errors into UsageErrors. An option that takes a value takes the next
 * argument whatever it starts with, as getopt does (`--slot -5` is the value -5, refused by its parser with one line;
 * node:util alone calls it ambiguous).
 */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: attachOptionValues(args, options), options, allowPositionals: true, strict: true })
    return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals }
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0]! : String(error))
  }
}

/**
 * Rewrites `--name VALUE` and `-n VALUE` as `--name=VALUE` when VALUE starts with `-` and the option takes a value
 * (`--slot -5` is then refused by the flag's own check, `-o -x.json` names a file). A value-taking option with nothing
 * after it, or followed by another of the command's options (`--slot -o out.json`: a value forgotten), is refused
 * here, naming the option.
 */
function attachOptionValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const longOf = new Map<string, string>()
  for (const [name, option] of Object.entries(options)) if (option.short) longOf.set(option.short, name)
  const optionOf = (arg: string): string | undefined => (arg.startsWith('--') ? arg.slice(2) : arg.length === 2 && arg[0] === '-' ? longOf.get(arg[1]!) : undefined)
  const result: string[] = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === '--') {
      result.push(...args.slice(index))
      break
    }
    const name = optionOf(arg)
    if (name === undefined || !Object.hasOwn(options, name) || options[name]!.type !== 'string') {
      result.push(arg)
      continue
    }
    const next = args[index + 1]
    if (next === undefined) throw new UsageError(`${arg}: expected a value, got nothing`)
    const other = optionOf(next.split('=', 1)[0]!)
    if (other !== undefined && Object.hasOwn(options, other)) throw new UsageError(`${arg}: expected a value, got the option ${next}`)
    if (next.length > 1 && next[0] === '-') {
      result.push(`--${name}=${next}`)
      index++
    } else {
      result.push(arg)
    }
  }
  return result
}

/** Bounds of {@link parseIntegerFlag}. */
export interface IntegerBounds {
  /**
   * Smallest accepted value (1: "a positive integer", 0: "a non-negative integer").
   * @default 0
   */
  readonly min?: number
  /**
   * Largest accepted value, said in the message when exceeded.
   * @default Number.MAX_SAFE_INTEGER
   */
  readonly max?: number
  /** Words after the bound in the message, e.g. `(milliseconds, about 24.8 days)`. */
  readonly unit?: string
}

/** Largest `--timeout`: setTimeout fires at once (with a TimeoutOverflowWarning) beyond 2^31 - 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1

/** Parses an integer flag value in [min, max] (decimal digits only; no sign, no exponent). */
export function parseIntegerFlag(name: string, value: string | boolean | undefined, fallback: number, bounds: IntegerBounds = {}): number {
  if (value === undefined) return fallback
  const min = bounds.min ?? 0
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER
  const expected = `expected ${min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer >= ${min}`}`
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${name}: ${expected}, got ${JSON.stringify(value)}`)
  const number = Number(value)
  if (number < min) throw new UsageError(`--${name}: ${expected}, got ${JSON.stringify(value)}`)
  if (number > max) throw new UsageError(`--${name}: ${expected} of at most ${max}${bounds.unit ? ` ${bounds.unit}` : ''}, got ${JSON.stringify(value)}`)
  return number
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
  // Beyond 2^53 - 1 a number no longer says what was typed (99999999999999999999 reads as 1e20).
  if ((range.start ?? 0) > Number.MAX_SAFE_INTEGER || (range.end ?? 0) > Number.MAX_SAFE_INTEGER) {
    throw new UsageError(`--range: expected indices of at most ${Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(value)}`)
  }
  if (range.start !== undefined && range.end !== undefined && range.end < range.start) {
    throw new UsageError(`--range: expected A <= B, got ${value}`)
  }
  return range
}

/** Codes of every error floorguard throws. */
export type FloorguardErrorCode =
  | 'invalid-input'
  | 'invalid-argument'
  | 'unknown-name'
  | 'missing-dependency'
  | 'compaction-floor'
  | 'summarizer-failed'
  | 'internal'

/** Where in the user's input a problem is. */
export interface InputLocation {
  readonly file?: string
  readonly line?: number
  readonly column?: number
  /** JSON pointer or dotted field path. */
  readonly field?: string
}

/** Base class of every error floorguard throws: a code, context, a cause, and a message that says what to do. */
export class FloorguardError extends Error {
  readonly code: FloorguardErrorCode
  readonly location: InputLocation | undefined

  constructor(code: FloorguardErrorCode, message: string, options: { cause?: unknown; location?: InputLocation } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'FloorguardError'
    this.code = code
    this.location = options.location
  }

  /** Whether `value` is a floorguard error (works across package copies). */
  static is(value: unknown): value is FloorguardError {
    return value instanceof Error && typeof (value as { code?: unknown }).code === 'string' && value.name.startsWith('Floorguard')
  }
}

/** Formats a location as `file:line:column: ` (only the parts known), or `file: field: `. */
export function formatLocation(location: InputLocation | undefined): string {
  if (!location) return ''
  let head = location.file ?? '<input>'
  if (location.line !== undefined) {
    head += `:${location.line}`
    if (location.column !== undefined) head += `:${location.column}`
  }
  if (location.field !== undefined) head += `: ${location.field}`
  return `${head}: `
}

/** Bad input: the user's file or value is not what was expected. Its message names the place and the expectation. */
export class InvalidInputError extends FloorguardError {
  constructor(message: string, location: InputLocation = {}, options: { cause?: unknown } = {}) {
    super('invalid-input', `${formatLocation(location)}${message}`, { ...options, location })
    this.name = 'FloorguardInvalidInputError'
  }
}

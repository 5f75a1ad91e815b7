import type { CompactTrigger, HookAnswer, HookOutcome, HookPayload, HookRole, HostName, PayloadResult } from './types.js'

/** A payload field did not hold what the host documents: one line naming the field and the expectation. */
export class PayloadFieldError extends Error {
  constructor(field: string, expected: string, got: unknown) {
    super(`${field}: expected ${expected}, got ${describeValue(got)}`)
    this.name = 'PayloadFieldError'
  }
}

/** A value as a message shows it: short JSON, or its type. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  const json = JSON.stringify(value)
  return json.length > 40 ? `${json.slice(0, 39)}…` : json
}

/** Field readers over one payload object; each throws a {@link PayloadFieldError}, which `readPayload` turns into data. */
export class PayloadReader {
  readonly record: Readonly<Record<string, unknown>>

  constructor(value: unknown) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new PayloadFieldError('payload', 'a JSON object', value)
    this.record = value as Record<string, unknown>
  }

  string(field: string): string {
    const value = this.record[field]
    if (typeof value !== 'string' || value.length === 0) throw new PayloadFieldError(field, 'a non-empty string', value)
    return value
  }

  optionalString(field: string): string | undefined {
    const value = this.record[field]
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') throw new PayloadFieldError(field, 'a string or null', value)
    return value
  }

  /** A string that may be empty (a summary, a prompt). */
  text(field: string): string {
    const value = this.record[field]
    if (typeof value !== 'string') throw new PayloadFieldError(field, 'a string', value)
    return value
  }

  trigger(field = 'trigger'): CompactTrigger {
    const value = this.record[field]
    if (value !== 'manual' && value !== 'auto') throw new PayloadFieldError(field, '"manual" or "auto"', value)
    return value
  }

  /** The event name must be the one the hook was registered for. */
  eventName(event: string): void {
    const value = this.record['hook_event_name']
    if (value !== event) throw new PayloadFieldError('hook_event_name', JSON.stringify(event), value)
  }
}

/** Runs a payload reader and turns its first field error into an `invalid` result. */
export function readPayload(read: () => HookPayload): PayloadResult {
  try {
    return { kind: 'ok', payload: read() }
  } catch (error) {
    if (error instanceof PayloadFieldError) return { kind: 'invalid', reason: error.message }
    throw error
  }
}

/** The fields every host's payload may leave out, filled with `undefined`. */
export function payloadOf(host: HostName, event: string, role: HookRole, sessionId: string, fields: Partial<HookPayload>): HookPayload {
  return {
    host,
    event,
    role,
    sessionId,
    transcriptPath: undefined,
    cwd: undefined,
    trigger: undefined,
    customInstructions: undefined,
    source: undefined,
    compactSummary: undefined,
    prompt: undefined,
    ...fields,
  }
}

/** An unknown event for a host: the reason names the events it has. */
export function unknownEvent(host: HostName, event: string, events: readonly string[]): PayloadResult {
  return { kind: 'invalid', reason: `${host} has no ${JSON.stringify(event)} hook that floorguard handles: expected one of ${events.join(', ')}` }
}

/** `{…}\n` as a host reads one JSON answer. */
export function jsonAnswer(value: Record<string, unknown>): HookAnswer {
  return { stdout: `${JSON.stringify(value)}\n`, exitCode: 0 }
}

/** The answer `{hookSpecificOutput: {hookEventName, additionalContext}}` (+ `systemMessage`) hosts share for context. */
export function contextAnswer(event: string, outcome: Extract<HookOutcome, { kind: 'context' }>): HookAnswer {
  return jsonAnswer({
    ...(outcome.notice === undefined ? {} : { systemMessage: outcome.notice }),
    hookSpecificOutput: { hookEventName: event, additionalContext: outcome.text },
  })
}

/**
 * The normalized transcript model every other layer uses.
 *
 * Readers turn a native log or message array into a {@link Transcript}; writers turn one back.
 * Each message keeps its native record(s) in `source` so a writer can hand unchanged messages back
 * exactly as they came.
 */

/** Who spoke. */
export type Role = 'system' | 'user' | 'assistant' | 'tool'

/** Plain text the speaker produced. */
export interface TextPart {
  readonly type: 'text'
  readonly text: string
}

/** Model reasoning / thinking text. */
export interface ReasoningPart {
  readonly type: 'reasoning'
  readonly text: string
}

/** A tool call. `arguments` is the parsed JSON value when the native form was a JSON string. */
export interface ToolCallPart {
  readonly type: 'tool-call'
  readonly id: string
  readonly name: string
  readonly arguments: unknown
}

/** The result of a tool call, paired to it by `callId`. */
export interface ToolResultPart {
  readonly type: 'tool-result'
  readonly callId: string
  /** Tool name when the format records it on the result. */
  readonly name?: string
  /** The result rendered as text (multi-block results are joined with newlines). */
  readonly content: string
  readonly isError: boolean
}

/** A summary some compactor produced (Claude Code continuation, Codex `compacted`, Gemini snapshot…). */
export interface SummaryPart {
  readonly type: 'summary'
  readonly text: string
  /** Which compactor produced it, e.g. `claude-code`, `codex`, `gemini-cli`, `floorguard`. */
  readonly source: string
}

/** One part of a message. */
export type Part = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | SummaryPart

/** Where a message came from in the user's file, so errors and reports can point back into it. */
export interface Provenance {
  /** 1-based first line (JSONL, Markdown). */
  readonly line?: number
  /** 1-based last line when the message spans several records. */
  readonly endLine?: number
  /** JSON pointer (RFC 6901) into a JSON document, e.g. `/messages/3`. */
  readonly pointer?: string
}

/** One message: a role and its parts. */
export interface Message {
  readonly role: Role
  readonly parts: readonly Part[]
  readonly provenance?: Provenance
  /** Speaker name when the format records one (OpenAI `name`). */
  readonly name?: string
  /** The native record(s) this message was read from, for writers. Never inspected by the core. */
  readonly source?: unknown
}

/** A tool call or result that has no partner in the transcript. */
export interface UnpairedPart {
  readonly kind: 'call' | 'result'
  readonly id: string
  /** Index of the message holding the part. */
  readonly message: number
  /** Index of the part inside that message. */
  readonly part: number
}

/** A paired tool call and result. */
export interface ToolPair {
  readonly id: string
  readonly call: { readonly message: number; readonly part: number }
  readonly result: { readonly message: number; readonly part: number }
}

/** A normalized transcript. */
export interface Transcript {
  /** Format name the transcript was read from. */
  readonly format: string
  readonly messages: readonly Message[]
  /** Tool calls paired with their results across the whole transcript. */
  readonly pairs: readonly ToolPair[]
  /** Calls without results and results without calls. Reported, never dropped. */
  readonly unpaired: readonly UnpairedPart[]
  /** Document-level data a writer needs to reproduce the native form (e.g. an object wrapper). */
  readonly envelope?: unknown
  /** Problems a lenient reader skipped, each with its location. */
  readonly warnings?: readonly string[]
}

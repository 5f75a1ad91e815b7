import type { ItemKind } from '../spec/estimator.js'

/** The agents floorguard plugs into through their compaction hooks. */
export type HostName = 'claude-code' | 'codex' | 'gemini'

/**
 * What a hook event is for floorguard: `before` a compaction (build the ledger), `after` it (put the ledger back into
 * the model's context), `verify` the host's summary against the ledger, or `ignore` (a SessionStart that is not a
 * compaction's).
 */
export type HookRole = 'before' | 'after' | 'verify' | 'ignore'

/** How a compaction was started, as every host spells it. */
export type CompactTrigger = 'manual' | 'auto'

/** A host's hook payload, read and checked: the fields floorguard uses, in one shape for every host. */
export interface HookPayload {
  readonly host: HostName
  /** The event as the host spells it (`PreCompact`, `PreCompress`, …). */
  readonly event: string
  readonly role: HookRole
  readonly sessionId: string
  /** The session log; some hosts send `null` before the log exists. */
  readonly transcriptPath: string | undefined
  readonly cwd: string | undefined
  /** PreCompact, PostCompact, PreCompress. */
  readonly trigger: CompactTrigger | undefined
  /** Claude Code PreCompact: what the user typed after `/compact` (empty or null for auto). */
  readonly customInstructions: string | undefined
  /** SessionStart: `startup`, `resume`, `clear`, `compact`, … */
  readonly source: string | undefined
  /** Claude Code PostCompact: the summary the compaction produced. */
  readonly compactSummary: string | undefined
  /** Gemini BeforeAgent: the user's prompt. */
  readonly prompt: string | undefined
}

/** A payload read and checked, or why not (one line naming the field and what was expected). */
export type PayloadResult = { readonly kind: 'ok'; readonly payload: HookPayload } | { readonly kind: 'invalid'; readonly reason: string }

/** What floorguard has to say to the host for one event, before the host's own wire format is applied. */
export type HookOutcome =
  /** Nothing: the host carries on as if no hook ran. */
  | { readonly kind: 'none' }
  /** Block the compaction (Claude Code PreCompact only; other hosts cannot block and get `none`). */
  | { readonly kind: 'block'; readonly reason: string }
  /** Plain text the host reportedly passes to its summarizer as instructions (Claude Code PreCompact, undocumented). */
  | { readonly kind: 'instructions'; readonly text: string }
  /** Text for the model's context, and optionally one line for the user. */
  | { readonly kind: 'context'; readonly text: string; readonly notice?: string }
  /** One line for the user. */
  | { readonly kind: 'notice'; readonly text: string }

/** The host's answer: what to print on standard output and the exit code (always 0: a hook never harms its host). */
export interface HookAnswer {
  readonly stdout: string
  readonly exitCode: 0
}

/** One hook command as a host's settings file holds it. */
export interface HookCommandEntry {
  /** The event key in the host's `hooks` object. */
  readonly event: string
  /** The group's matcher, when the event needs one (`compact` for SessionStart). */
  readonly matcher?: string
  /** The hook object itself (`{type: 'command', command, timeout, …}`), in the host's field names. */
  readonly hook: Readonly<Record<string, unknown>>
}

/** Where a host keeps its hook settings. */
export interface HostSettingsLocation {
  /** The user's settings file, from the home directory and environment. */
  user(home: string, env: NodeJS.ProcessEnv): string
  /** The project's settings file, from the project directory. */
  project(cwd: string): string
}

/**
 * What floorguard knows about one host: how to read its payloads, how to answer it, where its settings live and what
 * to put there. Contracts are versioned like every plugin contract of floorguard.
 */
export interface HookHostV1 {
  readonly specificationVersion: 'v1'
  readonly name: HostName
  /** The product's name for people (`Claude Code`). */
  readonly displayName: string
  /** The events floorguard handles, as the host spells them. */
  readonly events: readonly string[]
  /** The transcript format its session log is read with (`gemini-session` is read by `readGeminiSession`). */
  readonly transcriptFormat: 'claude-code' | 'codex' | 'gemini-session'
  /** Most characters the host puts into the model's context from one hook answer. */
  readonly contextCap: number
  /** Whether a `before` hook can stop the compaction. */
  readonly canBlock: boolean
  /** Reads one payload (already JSON-parsed) for `event`. */
  parse(event: string, value: unknown): PayloadResult
  /** Renders an outcome in the host's wire format. */
  answer(payload: Pick<HookPayload, 'event' | 'role'>, outcome: HookOutcome): HookAnswer
  /** What the host answers when floorguard has nothing to say or failed (some hosts require JSON). */
  readonly neutral: HookAnswer
  readonly settings: HostSettingsLocation
  /** The hook entries that run `command EVENT` for each event (the command prefix is given, the event appended). */
  entries(command: string): HookCommandEntry[]
}

/** One must-keep item as floorguard stores it between hooks. */
export interface StoredItem {
  readonly kind: ItemKind | string
  readonly text: string
  readonly status: 'current' | 'superseded'
  readonly key?: string
  /** Transcript index of the message (in the text floorguard read). */
  readonly message: number
}

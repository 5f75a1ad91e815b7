import type { FloorItem, ItemKind } from './estimator.js'
import type { TokenizerV1 } from './tokenizer.js'
import type { Message } from './transcript.js'

/**
 * An estimator item the summary must carry verbatim, marked by the planner as still in force or stale.
 *
 * Structurally the planner's `MustKeepItem`; defined here so the summarizer contract does not depend on `plan/`.
 */
export type MustKeepItem = FloorItem & {
  /** `superseded`: a later item with the same `key` replaced it (a reverted pin, a fixed error). Still kept verbatim. */
  readonly status: 'current' | 'superseded'
  /** What the item is a value of (e.g. a package name for a version pin), when the planner knows. */
  readonly key?: string
}

/** The must-keep items of one kind, in order of first appearance. */
export interface MustKeepGroup {
  readonly kind: ItemKind
  readonly items: readonly MustKeepItem[]
}

/** What a summarizer is asked to do: compress `messages` into at most `slot` tokens, keeping every item verbatim. */
export interface SummarizeRequest {
  /** The segment to summarize. */
  readonly messages: readonly Message[]
  /** Transcript index of `messages[0]`. */
  readonly offset: number
  /** The slot: the summary must count at most this many tokens with `tokenizer`. */
  readonly slot: number
  /** The tokenizer the summary is verified with. */
  readonly tokenizer: TokenizerV1
  /** Every must-keep item, distinct texts, grouped by kind in {@link MUST_KEEP_KIND_ORDER}. */
  readonly groups: readonly MustKeepGroup[]
  /** 1-based attempt number (the orchestrator retries a summary that failed verification). */
  readonly attempt: number
  /** Items the previous attempt dropped or altered; empty on the first attempt. */
  readonly missing: readonly MustKeepItem[]
  /** Why the previous attempt failed, for the summarizer to correct; absent on the first attempt. */
  readonly feedback?: string
  /** Aborted when the orchestrator's timeout fires: stop work and release resources. */
  readonly abortSignal?: AbortSignal
}

/** A summarizer's answer: the text, or a failure it detected itself (e.g. the state alone exceeds the slot). */
export type SummarizeResult =
  | { readonly kind: 'summary'; readonly text: string }
  | {
      readonly kind: 'failure'
      /** One line saying why, e.g. `timed out after 60000 ms`. */
      readonly reason: string
      /** Whether trying again could succeed (a timeout) or not (the state block cannot fit the slot). */
      readonly retryable: boolean
    }

/**
 * Summarizer contract: segment, slot and must-keep items in; text out.
 *
 * Whatever it returns is verified by the orchestrator (`verify/`), so a summarizer need not be trusted. It may throw;
 * a throw counts as a retryable failure.
 */
export interface SummarizerV1 {
  readonly specificationVersion: 'v1'
  /** Registry name: `ledger`, `ai:openai:gpt-4o-mini`, `cmd`, or a third party's. */
  readonly name: string
  summarize(request: SummarizeRequest): Promise<SummarizeResult>
}

/** Order of kinds in requests and state blocks: constraints and errors first, since later turns act on them. */
export const MUST_KEEP_KIND_ORDER = [
  'constraint',
  'error',
  'regex',
  'quoted',
  'version',
  'tool-argument',
  'path',
  'url',
  'env',
  'constant',
  'identifier',
  'hash',
  'uuid',
  'number',
] as const satisfies readonly ItemKind[]

/** Groups items by kind in {@link MUST_KEEP_KIND_ORDER}, keeping the first item of each distinct text. */
export function groupMustKeepItems(items: readonly MustKeepItem[]): MustKeepGroup[] {
  const seen = new Set<string>()
  const byKind = new Map<ItemKind, MustKeepItem[]>()
  for (const item of items) {
    if (seen.has(item.text)) continue
    seen.add(item.text)
    const list = byKind.get(item.kind)
    if (list) list.push(item)
    else byKind.set(item.kind, [item])
  }
  const groups: MustKeepGroup[] = []
  for (const kind of MUST_KEEP_KIND_ORDER) {
    const list = byKind.get(kind)
    if (list) groups.push({ kind, items: list })
    byKind.delete(kind)
  }
  // Kinds a third-party estimator adds still get a group, after the known ones.
  for (const [kind, list] of byKind) groups.push({ kind, items: list })
  return groups
}

/** Flattens groups back to one item list (group order, then appearance order). */
export function flattenMustKeepGroups(groups: readonly MustKeepGroup[]): MustKeepItem[] {
  return groups.flatMap((group) => group.items)
}

import type { HookPayload, HostName, StoredItem } from './types.js'

/** What a summary kept of a ledger. */
export interface KeptCount {
  /** Items whose exact text occurs in the summary. */
  readonly kept: number
  /** The others, in ledger order. */
  readonly lost: ReadonlyArray<Pick<StoredItem, 'kind' | 'text'>>
}

/** Counts the ledger items a summary kept verbatim = those whose text is a substring of it (no normalization). */
export function countKept(items: ReadonlyArray<Pick<StoredItem, 'kind' | 'text'>>, summary: string): KeptCount {
  const lost: Array<Pick<StoredItem, 'kind' | 'text'>> = []
  for (const item of items) if (!summary.includes(item.text)) lost.push({ kind: item.kind, text: item.text })
  return { kept: items.length - lost.length, lost }
}

/** Longest item text an audit record quotes (the ledger file has every text whole). */
export const AUDIT_TEXT_LIMIT = 300

/** cutAuditText(text) = `text`, or its first {@link AUDIT_TEXT_LIMIT} − 1 characters and `…` when longer: as a record lists it. */
export function cutAuditText(text: string): string {
  return text.length > AUDIT_TEXT_LIMIT ? `${text.slice(0, AUDIT_TEXT_LIMIT - 1)}…` : text
}

/** One line of `audit.jsonl`: what one compaction did to one session's state. */
export interface AuditRecord {
  readonly v: 1
  /** ISO time the record was written. */
  readonly time: string
  readonly host: HostName
  readonly session: string
  /** The event that checked the summary (`PostCompact`, `BeforeAgent`). */
  readonly event: string
  readonly trigger: string | null
  readonly transcript: string | null
  /** `[start, end)` of the compacted messages, in the indices of the text floorguard read. */
  readonly range: readonly [number, number]
  readonly floor: { readonly irreducible: number; readonly margin: number; readonly total: number; readonly estimator: string; readonly tokenizer: string }
  /** Tokens of the compacted messages. */
  readonly tokens: number
  /** Tokens of the host's summary, or null when the summary was not available. */
  readonly summaryTokens: number | null
  readonly items: number
  /** Items the summary kept verbatim, or null when the summary was not available (encrypted, not logged). */
  readonly kept: number | null
  /** Items it did not keep, with their kinds (texts cut to {@link AUDIT_TEXT_LIMIT} characters, `cut: true`). */
  readonly lost: ReadonlyArray<{ readonly kind: string; readonly text: string; readonly cut?: true }>
  /** Lost items per kind. */
  readonly lostKinds: Readonly<Record<string, number>>
  /** How the ledger went back into context: items shown inline, and the file holding all of them. */
  readonly putBack: { readonly shown: number; readonly file: string; readonly at: string | null }
  /** Why the summary could not be checked, when it could not. */
  readonly note?: string
}

/** Options of {@link buildAuditRecord}. */
export interface BuildAuditRecordOptions {
  readonly payload: Pick<HookPayload, 'host' | 'sessionId' | 'event'>
  readonly time: string
  readonly ledger: {
    readonly trigger?: string
    readonly transcript?: string
    readonly range: readonly [number, number]
    readonly floor: AuditRecord['floor']
    readonly tokens: number
    readonly items: readonly StoredItem[]
    readonly shown: number
    readonly file: string
    readonly injectedAt?: string
  }
  /** The summary's kept count, or undefined when there was no summary to check. */
  readonly count: KeptCount | undefined
  readonly summaryTokens: number | undefined
  readonly note?: string
}

/** Builds the audit record of one compaction. */
export function buildAuditRecord(options: BuildAuditRecordOptions): AuditRecord {
  const { ledger, count } = options
  const lostKinds: Record<string, number> = {}
  for (const item of count?.lost ?? []) lostKinds[item.kind] = (lostKinds[item.kind] ?? 0) + 1
  return {
    v: 1,
    time: options.time,
    host: options.payload.host,
    session: options.payload.sessionId,
    event: options.payload.event,
    trigger: ledger.trigger ?? null,
    transcript: ledger.transcript ?? null,
    range: ledger.range,
    floor: ledger.floor,
    tokens: ledger.tokens,
    summaryTokens: options.summaryTokens ?? null,
    items: ledger.items.length,
    kept: count ? count.kept : null,
    lost: (count?.lost ?? []).map((item) =>
      item.text.length > AUDIT_TEXT_LIMIT ? { kind: item.kind, text: cutAuditText(item.text), cut: true as const } : { kind: item.kind, text: item.text },
    ),
    lostKinds,
    putBack: { shown: ledger.shown, file: ledger.file, at: ledger.injectedAt ?? null },
    ...(options.note === undefined ? {} : { note: options.note }),
  }
}

/** Options of {@link describeVerification}. */
export interface DescribeVerificationOptions {
  readonly total: number
  /** Kept count, or undefined when the summary could not be checked. */
  readonly kept: number | undefined
  /** Whether the ledger is already back in context (else it goes back when the session resumes). */
  readonly putBack: boolean
  /** Items that went to the ledger file rather than inline. */
  readonly inFile: number
  /** Why the summary could not be checked. */
  readonly note?: string
}

/** The one line the user sees: `floorguard: the summary kept 12 of 87 state items verbatim; all 87 were put back`. */
export function describeVerification(options: DescribeVerificationOptions): string {
  const { total } = options
  if (total === 0) return 'floorguard: the compacted messages held no state items to keep'
  const back = options.putBack ? `all ${total} were put back` : `all ${total} go back into context when the session resumes`
  const file = options.inFile > 0 ? ` (${options.inFile} of them in the ledger file)` : ''
  if (options.kept === undefined) {
    // No count before it to name the items: the sentence names them itself.
    const items = `${total} state item${total === 1 ? '' : 's'}`
    const named = options.putBack ? `all ${items} were put back` : `all ${items} go back into context when the session resumes`
    return `floorguard: ${options.note ?? 'the summary was not available to check'}; ${named}${file}`
  }
  return `floorguard: the summary kept ${options.kept} of ${total} state item${total === 1 ? '' : 's'} verbatim; ${back}${file}`
}

import { checkTranscript } from '../check/index.js'
import { describeOption } from '../plan/compaction-floor-error.js'
import type { CompactionPlan } from '../plan/types.js'
import { clip } from '../report/_text.js'
import { describePlan } from '../report/plan.js'
import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Transcript } from '../spec/transcript.js'
import { findSummaries, type SummaryPoint } from '../audit/summaries.js'
import { messageTokens, renderMessage } from '../transcript/render.js'
import type { FileAudit, SummaryAudit } from '../audit/types.js'
import type { ReportAudit, ReportCompaction, ReportItem, ReportMessage, ReportPlan, ReportReuse, SessionReport } from './model.js'

/** Options of {@link buildSessionReport}. */
export interface SessionReportOptions {
  /** The file's name as the page shows it. */
  readonly file: string
  /**
   * Anchor prefix, unique in the page.
   * @default 's0'
   */
  readonly id?: string
  readonly estimator: FloorEstimatorV1
  readonly tokenizer: TokenizerV1
  /**
   * The summary slot the plan and the timeline's slot line use.
   * @default 2000
   */
  readonly slot?: number
  /**
   * Context budget (the timeline's high-water line is `highWaterMark × budget`).
   * @default 128000
   */
  readonly budget?: number
  /**
   * Share of the budget at which a compactor runs.
   * @default 0.85
   */
  readonly highWaterMark?: number
  /** The transcript's audit (`auditTranscript`): its summaries' survival and, without summaries, the high-water cuts. */
  readonly audit?: FileAudit
  /**
   * Most lost items listed per summary (those used again first).
   * @default 500
   */
  readonly maxLostItems?: number
  /**
   * Most characters of one message's text the page shows.
   * @default 3000
   */
  readonly maxMessageChars?: number
  /**
   * Most characters of message text the session shows in all: the per-message cap shrinks (not below 200) to fit.
   * @default 2000000
   */
  readonly maxSessionChars?: number
  /**
   * Most items listed (the first ones in the transcript's order).
   * @default 5000
   */
  readonly maxItems?: number
  /**
   * Most characters of an item's text listed.
   * @default 300
   */
  readonly maxItemChars?: number
  /** Warnings a lenient reader left, shown on the page. */
  readonly warnings?: readonly string[]
}

const DEFAULTS = { slot: 2000, budget: 128_000, highWaterMark: 0.85, maxMessageChars: 3000, maxSessionChars: 2_000_000, maxItems: 5000, maxItemChars: 300, maxLostItems: 500 } as const

/**
 * buildSessionReport(transcript, options) = the page's data for one transcript: each message's tokens and items, the
 * running context and irreducible tokens since the last compaction point, the compaction points with their audits,
 * and the plan for the region a compactor would compact next (from the last summary, included, to the end).
 */
export function buildSessionReport(transcript: Transcript, options: SessionReportOptions): SessionReport {
  const settings = { ...DEFAULTS, ...definedOnly(options) }
  const { estimator, tokenizer } = options
  const count = transcript.messages.length
  const messageChars = Math.min(settings.maxMessageChars, Math.max(200, Math.floor(settings.maxSessionChars / Math.max(1, count))))
  const messages: ReportMessage[] = []
  const items: ReportItem[] = []
  let itemsOmitted = 0
  let total = 0
  let context = 0
  let floor = 0
  let seen = new Set<string>()
  let lastSummary = -1
  const points = findSummaries(transcript)
  const pointAt = new Map(points.map((point) => [point.message, point]))
  transcript.messages.forEach((message, index) => {
    const text = renderMessage(message).text
    const tokens = messageTokens(message, tokenizer)
    const extracted: FloorItem[] = estimator.extract(message, index)
    const source = pointAt.get(index)?.source
    if (source !== undefined) {
      lastSummary = index
      context = 0
      floor = 0
      seen = new Set()
    }
    context += tokens
    total += tokens
    let irreducible = 0
    for (const item of extracted) {
      irreducible += item.tokens
      if (!seen.has(item.text)) {
        seen.add(item.text)
        floor += item.tokens
      }
      if (items.length >= settings.maxItems) {
        itemsOmitted++
        continue
      }
      const clipped = item.text.length - settings.maxItemChars
      items.push({
        kind: item.kind,
        text: clipped > 0 ? item.text.slice(0, settings.maxItemChars) : item.text,
        ...(clipped > 0 ? { clipped } : {}),
        tokens: item.tokens,
        message: index,
        start: item.start,
        end: item.end,
      })
    }
    const omitted = Math.max(0, text.length - messageChars)
    messages.push({
      index,
      role: message.role,
      tokens,
      irreducible,
      context,
      floor,
      text: omitted > 0 ? text.slice(0, cutPoint(text, messageChars)) : text,
      omitted: omitted > 0 ? text.length - cutPoint(text, messageChars) : 0,
      ...(source === undefined ? {} : { summary: source }),
      ...(message.provenance?.line === undefined ? {} : { line: message.provenance.line }),
    })
  })

  const compactions = compactionsOf(points, options.audit?.summaries ?? [], tokenizer, settings.maxLostItems)
  const reuses = reusesOf(transcript, compactions)
  const cuts = options.audit?.cuts ?? []
  const firstCut = lastSummary < 0 ? cuts[0] : undefined
  const range = firstCut ? { start: firstCut.replaced[0], end: firstCut.replaced[1] } : { start: Math.max(0, lastSummary) }
  const plan = count === 0 ? null : planOf(checkTranscript(transcript, { estimator, tokenizer, slot: settings.slot, range }).plan)
  return {
    id: options.id ?? 's0',
    file: options.file,
    format: transcript.format,
    messageCount: count,
    tokens: total,
    tokenizer: tokenizer.name,
    estimator: estimator.name,
    slot: settings.slot,
    budget: settings.budget,
    highWaterMark: settings.highWaterMark,
    messages,
    items,
    itemsOmitted,
    irreducible: irreducibleOf(transcript, estimator),
    reuses,
    compactions,
    cuts: cuts.map((cut) => ({ ...cut, replaced: [cut.replaced[0], cut.replaced[1]] as const })),
    plan,
    planScope: firstCut ? 'first-cut' : 'next-compaction',
    messageChars,
    warnings: [...(options.warnings ?? transcript.warnings ?? [])],
  }
}

/** The whole transcript's distinct items and irreducible tokens: the estimate `check` makes with no range. */
function irreducibleOf(transcript: Transcript, estimator: FloorEstimatorV1): SessionReport['irreducible'] {
  if (transcript.messages.length === 0) return { items: 0, tokens: 0 }
  const floor = estimator.estimate(transcript.messages, 0)
  return { items: floor.items.length, tokens: floor.irreducible }
}

/** The options that were given (an explicit `undefined` keeps the default). */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>
}

/** cutPoint(text, cap) = cap, moved back one unit when it would split a surrogate pair. */
function cutPoint(text: string, cap: number): number {
  const code = text.charCodeAt(cap - 1)
  return code >= 0xd800 && code <= 0xdbff ? cap - 1 : cap
}

/** One compaction point per summary ({@link findSummaries}): the segment from the previous one (included), and its audit. */
function compactionsOf(points: readonly SummaryPoint[], audits: readonly SummaryAudit[], tokenizer: TokenizerV1, maxLost: number): ReportCompaction[] {
  const byMessage = new Map(audits.map((audit) => [audit.message, audit]))
  return points.map((point, index) => {
    const audit = byMessage.get(point.message)
    return {
      message: point.message,
      source: point.source,
      // The audit's segment when it ran (what the compaction replaced, not all since the previous summary).
      replaced: audit ? ([audit.replaced[0], audit.replaced[1]] as const) : ([index === 0 ? 0 : points[index - 1]!.message, point.message] as const),
      summaryTokens: point.text.length === 0 ? 0 : tokenizer.count(point.text),
      ...(point.missing ? { missing: true as const } : {}),
      ...(audit ? { audit: auditOf(audit, maxLost) } : {}),
    }
  })
}

/** The audit as the page shows it: lost items used again first, in order of first use. */
function auditOf(audit: SummaryAudit, maxLost: number): ReportAudit {
  const lost = audit.lost
    .map((item, order) => ({ item, order }))
    .sort((a, b) => rank(a.item.usedAgainAt) - rank(b.item.usedAgainAt) || a.order - b.order)
    .map(({ item }) => item)
  const { message: _message, replaced: _replaced, source: _source, line: _line, ...rest } = audit
  return { ...rest, lost: lost.slice(0, maxLost), lostOmitted: Math.max(0, lost.length - maxLost) }
}

function rank(usedAgainAt: number | null): number {
  return usedAgainAt === null ? Number.MAX_SAFE_INTEGER : usedAgainAt
}

/** Where each lost item was used again: its first occurrence in that message's rendered text, when there is one. */
function reusesOf(transcript: Transcript, compactions: readonly ReportCompaction[]): ReportReuse[] {
  const reuses: ReportReuse[] = []
  compactions.forEach((compaction, index) => {
    compaction.audit?.lost.forEach((item, lost) => {
      if (item.usedAgainAt === null || item.text.length === 0) return
      const message = transcript.messages[item.usedAgainAt]
      if (!message) return
      const start = renderMessage(message).text.indexOf(item.text)
      if (start >= 0) reuses.push({ message: item.usedAgainAt, start, end: start + item.text.length, compaction: index, lost })
    })
  })
  return reuses
}

/** The plan as rows: a split's parts, a refusal's units and options, the changed decisions. */
function planOf(plan: CompactionPlan): ReportPlan {
  const head = { kind: plan.kind, range: [plan.range[0], plan.range[1]] as const, floor: { ...plan.floor }, slot: plan.slot, tokens: plan.tokens }
  const lines = describePlan(plan)
  const decision = lines.find((line) => line.startsWith('decision: '))?.slice('decision: '.length) ?? plan.kind
  const stateStart = lines.findIndex((line) => line.startsWith('changed decisions'))
  const state = stateStart < 0 ? [] : lines.slice(stateStart + 1).map((line) => line.trim())
  const listed = (list: readonly FloorItem[]) =>
    [...list]
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, 5)
      .map(({ kind, text, tokens, message }) => ({ kind, text: clip(text, 160), tokens, message }))
  switch (plan.kind) {
    case 'compact':
      return { ...head, message: decision, rows: [], options: [], state }
    case 'split':
      return {
        ...head,
        message: decision,
        rows: plan.parts.map((part, index) => ({
          kind: `part ${index + 1}`,
          range: [part.range[0], part.range[1]] as const,
          floor: part.floor,
          slot: part.slot,
          tokens: part.tokens,
          itemCount: part.items.length,
          items: listed(part.items),
        })),
        options: [],
        state,
      }
    case 'refuse':
      return {
        ...head,
        message: decision,
        rows: plan.units.map((unit) => ({
          kind: unit.kind,
          range: [unit.range[0], unit.range[1]] as const,
          floor: unit.floor,
          ...(unit.label === undefined ? {} : { label: unit.label }),
          items: listed(unit.items),
        })),
        options: plan.options.map(describeOption),
        state,
      }
  }
}

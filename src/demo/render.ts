/**
 * The demo's output: the side-by-side text report and the `--json` object (pure: a result in, a string or object out).
 */
import { DEMO_SETTINGS, PLANTED_LABELS, type ArmEvent, type ArmName, type ArmRun, type DemoResult, type Fate } from './run.js'
import type { PlantedKind } from './session.js'

/** The `--json` format's version. */
export const DEMO_JSON_VERSION = 1

/** One compaction of one arm in `--json`. */
export interface ArmEventJson {
  /** Session turn after which it happened. */
  readonly turn: number
  /** Session turns the region covers (first, last). */
  readonly turns: readonly [number, number]
  /** Context indices of the region (half-open). */
  readonly range: readonly [number, number]
  readonly regionTokens: number
  /** Earlier summaries inside the region, and how many messages of the region were kept as they were. */
  readonly summariesInRegion: number
  readonly keptInRegion: number
  /** The region's floor (`full`, o200k_base, margin 0.2). */
  readonly floor: number
  /** The slot the region was asked to fit. */
  readonly slot: number
  readonly decision: 'compact' | 'split' | 'refuse'
  /** One per summary written: the session turns it covers, its tokens and the floor of what it replaced. */
  readonly parts: ReadonlyArray<{ readonly turns: readonly [number, number]; readonly tokens: number; readonly floor: number }>
  /** N: the region's distinct items by the estimator (the same region gives the same N in both arms). */
  readonly items: number
  /** n: how many of them survive verbatim. */
  readonly verbatim: number
  readonly contextTokensBefore: number
  readonly contextTokensAfter: number
}

/** One arm's totals in `--json`. */
export interface ArmJson {
  /** The summarizer (`naive` or `ledger`). */
  readonly summarizer: string
  readonly checks: { readonly floor: boolean; readonly verify: boolean }
  /** Compactions that wrote summaries. */
  readonly compactions: number
  readonly refusals: number
  /** Summaries written (a split writes several). */
  readonly summaries: number
  /** Tokens of all summaries written. */
  readonly summaryTokens: number
  /** Σ n and Σ N over the arm's compactions. */
  readonly itemsVerbatim: number
  readonly items: number
  /** Largest context after any turn, and the context after the last turn (tokens). */
  readonly peakContextTokens: number
  readonly finalContextTokens: number
  /** The turn the fates are read at, and each planted item's fate there (`raw`, `kept`, `lost`, `stale`). */
  readonly fatesAtTurn: number
  readonly fates: Readonly<Record<PlantedKind, Fate>>
}

/** The `--json` object: exactly these four keys. */
export interface DemoJson {
  readonly version: typeof DEMO_JSON_VERSION
  readonly arms: { readonly naive: ArmJson; readonly floorguard: ArmJson }
  /** Compactions side by side: the i-th of each arm (null when an arm has fewer). */
  readonly events: ReadonlyArray<{ readonly index: number; readonly naive: ArmEventJson | null; readonly floorguard: ArmEventJson | null }>
  /** The record's three items; an arm's flag is true when its context at the fate turn holds the item verbatim (a pin: with its reverted value current). */
  readonly planted: ReadonlyArray<{ readonly kind: PlantedKind; readonly text: string; readonly naive: boolean; readonly floorguard: boolean }>
}

/** demoJson(result) = the `--json` object. */
export function demoJson(result: DemoResult): DemoJson {
  const { naive, floorguard } = result.arms
  const count = Math.max(naive.events.length, floorguard.events.length)
  const events = Array.from({ length: count }, (_, index) => ({
    index: index + 1,
    naive: eventJson(naive.events[index]),
    floorguard: eventJson(floorguard.events[index]),
  }))
  return {
    version: DEMO_JSON_VERSION,
    arms: { naive: armJson(naive, 'naive', result), floorguard: armJson(floorguard, 'ledger', result) },
    events,
    planted: result.session.planted.map((item, index) => ({
      kind: item.kind,
      text: item.text,
      naive: survived(naive.fates[index]!),
      floorguard: survived(floorguard.fates[index]!),
    })),
  }
}

function survived(fate: Fate): boolean {
  return fate === 'kept' || fate === 'raw'
}

function eventJson(event: ArmEvent | undefined): ArmEventJson | null {
  if (!event) return null
  return {
    turn: event.turn,
    turns: event.turns,
    range: event.range,
    regionTokens: event.regionTokens,
    summariesInRegion: event.summariesInRegion,
    keptInRegion: event.keptInRegion,
    floor: event.floor,
    slot: event.slot,
    decision: event.decision,
    parts: event.parts,
    items: event.items,
    verbatim: event.verbatim,
    contextTokensBefore: event.contextTokensBefore,
    contextTokensAfter: event.contextTokensAfter,
  }
}

function armJson(arm: ArmRun, summarizer: string, result: DemoResult): ArmJson {
  const fates = {} as Record<PlantedKind, Fate>
  result.session.planted.forEach((item, index) => (fates[item.kind] = arm.fates[index]!))
  const written = arm.events.filter((event) => event.parts.length > 0)
  return {
    summarizer,
    checks: arm.name === 'naive' ? { floor: false, verify: false } : { floor: true, verify: true },
    compactions: written.length,
    refusals: arm.events.filter((event) => event.decision === 'refuse').length,
    summaries: written.reduce((sum, event) => sum + event.parts.length, 0),
    summaryTokens: written.reduce((sum, event) => sum + event.parts.reduce((total, part) => total + part.tokens, 0), 0),
    itemsVerbatim: arm.events.reduce((sum, event) => sum + event.verbatim, 0),
    items: arm.events.reduce((sum, event) => sum + event.items, 0),
    peakContextTokens: arm.peakContextTokens,
    finalContextTokens: arm.finalContextTokens,
    fatesAtTurn: result.fateTurn,
    fates,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Text.

const LABEL_WIDTH = 30
const COLUMN_WIDTH = 36

const FATE_TEXT: Readonly<Record<Fate, string>> = {
  raw: 'not compacted yet (raw)',
  kept: 'kept verbatim',
  lost: 'LOST',
  stale: 'STALE value presented as current',
}

function number(value: number): string {
  return value.toLocaleString('en-US')
}

function row(label: string, naive: string, floorguard: string): string {
  return `  ${label.padEnd(LABEL_WIDTH)}${naive.padEnd(COLUMN_WIDTH)}${floorguard}`.trimEnd()
}

function turns([first, last]: readonly [number, number]): string {
  return first === last ? `turn ${first}` : `turns ${first}–${last}`
}

function decisionText(event: ArmEvent, arm: ArmName): string {
  if (event.decision === 'refuse') return `REFUSE (slot ${number(event.slot)} < floor)`
  if (arm === 'naive') return 'compact (floor not checked)'
  if (event.decision === 'split') return `SPLIT (floor ${number(event.floor)} > slot ${number(event.slot)})`
  return 'compact (floor fits the slot)'
}

function eventRows(index: number, naive: ArmEvent | undefined, floorguard: ArmEvent | undefined): string[] {
  const both = (format: (event: ArmEvent, arm: ArmName) => string): [string, string] => [naive ? format(naive, 'naive') : '—', floorguard ? format(floorguard, 'floorguard') : '—']
  const lines = [row(`compaction ${index}`, 'naive', 'floorguard')]
  lines.push(row('turn', ...both((event) => String(event.turn))))
  lines.push(row('region', ...both((event) => `${turns(event.turns)}${event.summariesInRegion > 0 ? ` (${event.summariesInRegion} summar${event.summariesInRegion === 1 ? 'y' : 'ies'} in it)` : ''}`)))
  lines.push(row('region tokens', ...both((event) => number(event.regionTokens))))
  lines.push(row('floor (full, o200k)', ...both((event) => number(event.floor))))
  lines.push(row('slot', ...both((event) => number(event.slot))))
  lines.push(row('decision', ...both(decisionText)))
  lines.push(
    row(
      'summaries (tokens)',
      ...both((event) => {
        if (event.parts.length === 0) return 'none (kept raw)'
        const kept = event.keptInRegion > 0 ? ` (+${event.keptInRegion} kept as is)` : ''
        return `${event.parts.map((part) => number(part.tokens)).join(' + ')}${kept}`
      }),
    ),
  )
  const partTurns = both((event) => (event.parts.length > 1 ? event.parts.map((part) => turns(part.turns).replace(/^turns? /, '')).join(' | ') : ''))
  if (partTurns.some((text) => text !== '')) {
    lines.push(row('  parts (turns)', ...partTurns))
    lines.push(row('  parts (floor)', ...both((event) => (event.parts.length > 1 ? event.parts.map((part) => number(part.floor)).join(' + ') : ''))))
  }
  lines.push(row('items verbatim (n/N)', ...both((event) => `${number(event.verbatim)}/${number(event.items)}`)))
  lines.push(row('context tokens', ...both((event) => `${number(event.contextTokensBefore)} → ${number(event.contextTokensAfter)}`)))
  return lines
}

/** renderDemo(result) = the side-by-side report: settings, each compaction of both arms, the planted items' fates. */
export function renderDemo(result: DemoResult): string {
  const { session, arms } = result
  const threshold = Math.floor(DEMO_SETTINGS.highWaterMark * DEMO_SETTINGS.budget)
  const lines: string[] = [
    "floorguard demo: the record's observed system, simulated (deterministic, offline)",
    `  session    ${number(session.turnStarts.length)} turns of a coding agent (${number(session.messages.length)} messages, ${number(result.sessionTokens)} tokens uncompacted), seed ${session.seed}`,
    `  runtime    budget ${number(DEMO_SETTINGS.budget)}, high-water mark ${DEMO_SETTINGS.highWaterMark * 100}% (${number(threshold)}), oldest ${DEMO_SETTINGS.compactFraction * 100}% of turns into a ${number(DEMO_SETTINGS.slot)}-token slot`,
    '  naive      narrative summarizer, no floor check, no verification',
    '  floorguard floor check (full estimator, margin 0.2), ledger summarizer, verification',
    '',
  ]
  const count = Math.max(arms.naive.events.length, arms.floorguard.events.length)
  for (let index = 0; index < count; index++) lines.push(...eventRows(index + 1, arms.naive.events[index], arms.floorguard.events[index]), '')
  lines.push(row(`at turn ${result.fateTurn}`, 'naive', 'floorguard'))
  session.planted.forEach((item, index) => {
    const fate = (arm: ArmRun): string => {
      const text = FATE_TEXT[arm.fates[index]!]
      return item.kind === 'version-pin' && arm.fates[index] === 'kept' ? `${text}, revert current` : text
    }
    lines.push(row(PLANTED_LABELS[item.kind], fate(arms.naive), fate(arms.floorguard)))
  })
  lines.push('')
  for (const item of session.planted) {
    const label = PLANTED_LABELS[item.kind].slice(0, 3)
    lines.push(`  ${label} ${item.text}${item.current ? `  (reverted to ${item.current.text})` : ''}`)
  }
  const echoes = session.planted.flatMap((item, index) => {
    const echo = arms.naive.echoes[index]
    return echo && arms.naive.fates[index] !== 'kept' ? [`  ${PLANTED_LABELS[item.kind].slice(0, 3)} "${echo}"`] : []
  })
  if (echoes.length > 0) lines.push('', `  what the naive summary says instead (at turn ${result.fateTurn}):`, ...echoes)
  return `${lines.join('\n')}\n`
}

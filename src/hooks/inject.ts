import type { FloorItem } from '../spec/estimator.js'
import type { MustKeepItem } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import {
  describeOrigins,
  type ItemOrigin,
  renderStateBlock,
  renderStateLine,
  sectionOf,
  STATE_BLOCK_CLOSE,
  STATE_BLOCK_OPEN,
  STATE_SECTIONS,
  type StateDetail,
} from '../state-block/index.js'

/** Options of {@link renderInjection}. */
export interface RenderInjectionOptions {
  /** The ledger's items (distinct texts, in order of first appearance). */
  readonly items: readonly MustKeepItem[]
  /** The transcript's messages the items point into, to name who said each. */
  readonly messages: readonly Message[]
  /** Most characters (UTF-16 units) the injected text may have. */
  readonly cap: number
  /** Where the complete ledger is written; the injected text names it. */
  readonly file: string
  /** `manual` or `auto`, for the opening sentence. */
  readonly trigger?: string
  /** The host's name for people (`Claude Code`). */
  readonly host: string
}

/** The text to inject, and the complete ledger for the file it names. */
export interface Injection {
  /** At most `cap` characters: facts about the ledger, then a state block of the items that fit. */
  readonly text: string
  /** Items in `text`. */
  readonly shown: number
  readonly total: number
  /** Context per line that fit best (`full` when every item fits with it). */
  readonly detail: StateDetail
  /** The complete ledger: the same opening sentences and a state block of every item, full context. */
  readonly full: string
}

/**
 * Priority of an item for the injected text: its state-block section's rank (constraints 0, decisions and pins 1,
 * errors 2, tool calls 3, literals 4, paths and urls 5, identifiers and values 6) when current, 7 when superseded (a
 * replaced value, a fixed error: still true history, but not what the next turn acts on).
 */
export function injectionRank(item: Pick<MustKeepItem, 'kind' | 'key' | 'status'>): number {
  return item.status === 'superseded' ? STATE_SECTIONS.length : STATE_SECTIONS.indexOf(sectionOf(item))
}

/** Items in the order they claim space: by rank, later messages first within a rank (the latest state is acted on). */
function byPriority(items: readonly MustKeepItem[]): MustKeepItem[] {
  return items
    .map((item, order) => ({ item, order, rank: injectionRank(item) }))
    .sort((a, b) => a.rank - b.rank || b.item.message - a.item.message || a.order - b.order)
    .map((entry) => entry.item)
}

/**
 * The items that fit `budget` characters of block lines: taken in priority order; an item too long for what is left
 * is skipped, and then no item of a lower rank is taken (so every item left out ranks at least as high as every item
 * shown). Costs are exact: a line and its line break, plus a section heading the first time its section appears.
 */
function fitItems(ordered: readonly MustKeepItem[], lineOf: (item: MustKeepItem) => string, budget: number): Set<MustKeepItem> {
  const chosen = new Set<MustKeepItem>()
  const sections = new Set<string>()
  let used = 0
  let stopRank = Number.POSITIVE_INFINITY
  for (const item of ordered) {
    const rank = injectionRank(item)
    if (rank > stopRank) break
    const section = sectionOf(item)
    const cost = lineOf(item).length + 1 + (sections.has(section) ? 0 : section.length + 4)
    if (used + cost > budget) {
      stopRank = Math.min(stopRank, rank)
      continue
    }
    used += cost
    sections.add(section)
    chosen.add(item)
  }
  return chosen
}

function opening(options: Pick<RenderInjectionOptions, 'trigger' | 'host'>, total: number): string {
  const when = options.trigger ? `the ${options.trigger} compaction` : 'the compaction'
  return (
    `[floorguard] State ledger of this ${options.host} session: ${total} item${total === 1 ? '' : 's'} that the messages before ${when} held, ` +
    `each quoted verbatim. Sections run constraints, decisions and pins, errors, tool calls, literals, paths and urls, identifiers and ` +
    `values; "superseded" marks a value that a later message replaced or an error that a later run fixed.`
  )
}

function coverage(shown: number, total: number, file: string): string {
  if (total === 0) return `The compacted messages held no such items. The ledger file is ${file}.`
  if (shown === total) return `All ${total} items are below; the same ledger is in ${file}.`
  return `${shown} of the ${total} items are below, highest priority first; all ${total} are in ${file}.`
}

/**
 * Renders the ledger to put back into a model's context within `cap` characters: two sentences of facts (what the
 * ledger is, how much of it is shown, the file that holds all of it), then a state block of the items that fit, by
 * priority ({@link injectionRank}). Full context per line when everything fits, speaker only when that shows more.
 * The text states facts and gives no orders: hosts wrap it as out-of-band context, where command-like text can trip
 * prompt-injection defences. When not even the sentences fit, the text is the file's path alone (cut to `cap`).
 */
export function renderInjection(options: RenderInjectionOptions): Injection {
  const total = options.items.length
  const origins: Map<FloorItem, ItemOrigin> = describeOrigins(options.items, options.messages, 0)
  const lineOf = (detail: StateDetail) => (item: MustKeepItem) => renderStateLine(item, origins.get(item), detail)
  const head = opening(options, total)
  const full = `${head}\n${coverage(total, total, options.file)}\n${renderStateBlock({ items: options.items, messages: options.messages, detail: 'full' })}\n`

  // The block's fixed lines, and the longest coverage sentence any count can give.
  const frame = head.length + 1 + coverage(total, total + 1, options.file).length + 1 + STATE_BLOCK_OPEN.length + 1 + STATE_BLOCK_CLOSE.length
  const budget = options.cap - frame
  const ordered = byPriority(options.items)
  let detail: StateDetail = 'full'
  let chosen = budget > 0 ? fitItems(ordered, lineOf('full'), budget) : new Set<MustKeepItem>()
  if (chosen.size < total && budget > 0) {
    const short = fitItems(ordered, lineOf('short'), budget)
    if (short.size > chosen.size) {
      chosen = short
      detail = 'short'
    }
  }
  if (budget <= 0) {
    const text = `[floorguard] The state ledger of this session (${total} items) is in ${options.file}.`
    return { text: text.slice(0, Math.max(0, options.cap)), shown: 0, total, detail, full }
  }
  const shownItems = options.items.filter((item) => chosen.has(item))
  let text = `${head}\n${coverage(shownItems.length, total, options.file)}\n${renderStateBlock({ items: shownItems, messages: options.messages, detail })}`
  // The costs above are exact; this only guards against a renderer change, dropping the lowest-priority items.
  while (text.length > options.cap && shownItems.length > 0) {
    const drop = byPriority(shownItems).at(-1)!
    shownItems.splice(shownItems.indexOf(drop), 1)
    text = `${head}\n${coverage(shownItems.length, total, options.file)}\n${renderStateBlock({ items: shownItems, messages: options.messages, detail })}`
  }
  return { text, shown: shownItems.length, total, detail, full }
}

/** Options of {@link renderKeepInstructions}. */
export interface RenderKeepInstructionsOptions {
  readonly items: readonly MustKeepItem[]
  readonly messages: readonly Message[]
  /** Most characters of the instructions. */
  readonly cap: number
}

/**
 * Instructions for a host's summarizer (Claude Code reportedly passes plain PreCompact stdout to it): copy the state
 * block unchanged. The block holds the items that fit `cap`, by priority ({@link injectionRank}), speaker context only.
 */
export function renderKeepInstructions(options: RenderKeepInstructionsOptions): string {
  const head =
    'Copy the floorguard state block below into the summary unchanged, every line exactly as written: it lists the exact ' +
    'strings (constraints, decisions, errors, commands, paths, identifiers) that the rest of this session depends on.'
  const origins = describeOrigins(options.items, options.messages, 0)
  const budget = options.cap - head.length - 1 - STATE_BLOCK_OPEN.length - 1 - STATE_BLOCK_CLOSE.length
  if (budget <= 0 || options.items.length === 0) return ''
  const chosen = fitItems(byPriority(options.items), (item) => renderStateLine(item, origins.get(item), 'short'), budget)
  if (chosen.size === 0) return ''
  return `${head}\n${renderStateBlock({ items: options.items.filter((item) => chosen.has(item)), messages: options.messages, detail: 'short' })}`
}

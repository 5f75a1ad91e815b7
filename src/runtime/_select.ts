import { createErrorFixLinker, startsUserTurn } from '../plan/error-fix.js'
import type { UnitLinkerV1 } from '../plan/types.js'
import type { Message, ToolPair } from '../spec/transcript.js'
import type { RuntimeRange } from './types.js'

/** What {@link selectSegment} decided. */
export interface Selection {
  /** The range to compact, or undefined when no range of whole causal units exists. */
  readonly range: RuntimeRange | undefined
  /** Turns counted after the leading system messages. */
  readonly turns: number
  /** Turns selected before the end moved to a unit boundary. */
  readonly selectedTurns: number
}

/**
 * Whether message `index` starts a turn: a user message that is not only tool results, or an assistant message right
 * after a tool message (the next step of an agent loop, one model call).
 */
export function startsTurn(messages: readonly Message[], index: number): boolean {
  const message = messages[index]
  if (startsUserTurn(message)) return true
  return message?.role === 'assistant' && messages[index - 1]?.role === 'tool'
}

/** Index of the first message after the leading system messages (the system prompt is never compacted). */
export function systemEnd(messages: readonly Message[]): number {
  let end = 0
  while (end < messages.length && messages[end]!.role === 'system') end++
  return end
}

/**
 * `cutAllowed[c]` = no causal unit `[s, e)` has `s < c < e`. Units: every tool pair (call through result) and the
 * linkers' units (default: error → fix), over the whole list.
 */
export function allowedCuts(messages: readonly Message[], pairs: readonly ToolPair[], linkers: readonly UnitLinkerV1[] = [createErrorFixLinker()]): Uint8Array {
  const n = messages.length
  const open = new Int32Array(n + 2)
  const mark = (start: number, end: number) => {
    if (end - start < 2) return
    open[start + 1]!++
    open[end]!--
  }
  for (const pair of pairs) mark(Math.min(pair.call.message, pair.result.message), Math.max(pair.call.message, pair.result.message) + 1)
  for (const linker of linkers) for (const unit of linker.link({ messages, offset: 0, pairs })) mark(unit.range[0], unit.range[1])
  const allowed = new Uint8Array(n + 1)
  let depth = 0
  for (let cut = 0; cut <= n; cut++) {
    depth += open[cut]!
    allowed[cut] = cut === 0 || cut === n || depth === 0 ? 1 : 0
  }
  return allowed
}

/**
 * How far an error → fix unit of the default linker reaches around a cut: a failure links at most its `window` (50)
 * messages after its result, plus the result, the fix and the report after it.
 */
const LINK_REACH = 53
/** Messages before and after the natural end whose units are computed first (the whole list only when needed). */
const WINDOW_BEFORE = 256
const WINDOW_AFTER = 64

/**
 * Allowed cuts over a window around `end`, with the range of cuts the window decides exactly as the whole list would
 * (units of the default linker reach at most {@link LINK_REACH} messages; tool pairs are taken from the whole list).
 * Linking a window costs O(window), not O(messages): the error-fix linker reads every tool output it is given.
 */
function windowCuts(messages: readonly Message[], pairs: readonly ToolPair[], end: number): { allowed: (cut: number) => boolean; from: number; to: number } {
  const n = messages.length
  const hi = Math.min(n, end + WINDOW_AFTER)
  let lo = Math.max(0, end - WINDOW_BEFORE)
  // A pair whose result lies in the window brings its call in, wherever it is.
  for (const pair of pairs) if (pair.result.message >= lo && pair.result.message < hi && pair.call.message < lo) lo = pair.call.message
  const inside = pairs.filter((pair) => pair.call.message >= lo && pair.call.message < hi && pair.result.message >= lo && pair.result.message < hi)
  const open = new Int32Array(n + 2)
  const mark = (start: number, stop: number) => {
    if (stop - start < 2) return
    open[start + 1]!++
    open[stop]!--
  }
  for (const pair of pairs) mark(Math.min(pair.call.message, pair.result.message), Math.max(pair.call.message, pair.result.message) + 1)
  for (const unit of createErrorFixLinker().link({ messages: messages.slice(lo, hi), offset: lo, pairs: inside })) mark(unit.range[0], unit.range[1])
  const allowed = new Uint8Array(n + 1)
  let depth = 0
  for (let cut = 0; cut <= n; cut++) {
    depth += open[cut]!
    allowed[cut] = cut === 0 || cut === n || depth === 0 ? 1 : 0
  }
  return { allowed: (cut) => allowed[cut] === 1, from: lo === 0 ? 0 : lo + LINK_REACH, to: hi === n ? n : hi - LINK_REACH }
}

/**
 * The segment to compact: the oldest `fraction` of the turns after the leading system messages.
 *
 * turns T = messages after the system prompt that start a turn ({@link startsTurn}; the first one always does);
 * end = start of turn max(1, ⌊fraction × T⌋) + 1; with a single turn, ⌊fraction × messages⌋ messages instead. The end
 * then moves back to the nearest cut that splits no causal unit (tool pair, error → fix), or, when that leaves nothing,
 * forward to the next one; a range that would reach the last message is no selection (the newest message is never
 * compacted). Units are linked in a window around the end first, over the whole list only when the window cannot
 * decide (see {@link allowedCuts}, the reference this agrees with).
 */
export function selectSegment(messages: readonly Message[], fraction: number, pairs: readonly ToolPair[]): Selection {
  const n = messages.length
  const start = systemEnd(messages)
  const starts: number[] = []
  for (let index = start; index < n; index++) if (index === start || startsTurn(messages, index)) starts.push(index)
  const turns = starts.length
  let end: number
  let selectedTurns = 0
  if (turns >= 2) {
    selectedTurns = Math.min(turns - 1, Math.max(1, Math.floor(fraction * turns)))
    end = starts[selectedTurns]!
  } else {
    end = start + Math.max(1, Math.floor(fraction * (n - start)))
  }
  if (end >= n) return { range: undefined, turns, selectedTurns }
  const window = windowCuts(messages, pairs, end)
  if (end <= window.to) {
    for (let back = end; back > start && back >= window.from; back--) if (window.allowed(back)) return { range: [start, back], turns, selectedTurns }
  }
  const cutAllowed = allowedCuts(messages, pairs)
  let back = end
  while (back > start && !cutAllowed[back]) back--
  if (back > start) return { range: [start, back], turns, selectedTurns }
  let forward = end
  while (forward < n && !cutAllowed[forward]) forward++
  return { range: forward < n ? [start, forward] : undefined, turns, selectedTurns }
}

/** What {@link growSelection} decided. */
export interface Growth {
  /** The range to compact: the selection itself, or the smallest grown one that frees enough. */
  readonly range: RuntimeRange
  /** The range reaches past the selection. */
  readonly grown: boolean
  /** The range is the largest allowed and still holds fewer than the tokens needed. */
  readonly largest: boolean
}

/**
 * The smallest range from the selection's start whose tokens reach `need` (tokens(range) ≥ need), grown from the
 * selection turn by turn; or, when none does, the largest allowed with `largest` set.
 *
 * Candidate ends: each turn start after the selection's end (with a single turn, each message), moved back to the
 * nearest cut that splits no causal unit ({@link allowedCuts}); never past the start of the last turn, nor past the
 * newest user message with text of its own when it lies after the selection (what the user asked last stays as it
 * was said), and never the last message. `tokens[i]` are message i's tokens. The selection itself is returned as it
 * is when it reaches `need` already or nothing lies beyond it. O(messages) plus the units' linking, only when growing.
 */
export function growSelection(messages: readonly Message[], pairs: readonly ToolPair[], range: RuntimeRange, tokens: ArrayLike<number>, need: number): Growth {
  const [start, end] = range
  let selected = 0
  for (let index = start; index < end; index++) selected += tokens[index]!
  if (selected >= need) return { range, grown: false, largest: false }
  const n = messages.length
  const turnStarts: number[] = []
  for (let index = end + 1; index < n; index++) if (startsTurn(messages, index)) turnStarts.push(index)
  let limit = n - 1
  const singleTurn = !startsTurnAfter(messages, start)
  if (!singleTurn) limit = Math.min(limit, lastTurnStart(messages, start))
  for (let index = n - 1; index > end; index--) {
    const message = messages[index]!
    if (message.role === 'user' && message.parts.some((part) => part.type === 'text')) {
      limit = Math.min(limit, index)
      break
    }
  }
  if (limit <= end) return { range, grown: false, largest: true }
  const cutAllowed = allowedCuts(messages, pairs)
  let best = end
  const candidates = singleTurn ? ascending(end + 1, limit) : turnStarts.filter((index) => index <= limit)
  let taken = end
  for (const candidate of candidates) {
    let cut = candidate
    while (cut > best && !cutAllowed[cut]) cut--
    if (cut <= best) continue
    for (let index = taken; index < cut; index++) selected += tokens[index]!
    taken = cut
    best = cut
    if (selected >= need) return { range: [start, best], grown: true, largest: false }
  }
  // Every candidate up to `limit` (itself a turn start, or the message before the last) was tried: this is the largest.
  return { range: [start, best], grown: best > end, largest: selected < need }
}

/** Whether a turn starts after `start` (else the messages from `start` are one turn). */
function startsTurnAfter(messages: readonly Message[], start: number): boolean {
  for (let index = start + 1; index < messages.length; index++) if (startsTurn(messages, index)) return true
  return false
}

/** The start of the last turn after `start`. */
function lastTurnStart(messages: readonly Message[], start: number): number {
  for (let index = messages.length - 1; index > start; index--) if (startsTurn(messages, index)) return index
  return start
}

function ascending(from: number, to: number): number[] {
  const values: number[] = []
  for (let value = from; value <= to; value++) values.push(value)
  return values
}

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
 * The segment to compact: the oldest `fraction` of the turns after the leading system messages.
 *
 * turns T = messages after the system prompt that start a turn ({@link startsTurn}; the first one always does);
 * end = start of turn max(1, ⌊fraction × T⌋) + 1; with a single turn, ⌊fraction × messages⌋ messages instead. The end
 * then moves back to the nearest cut that splits no causal unit, or, when that leaves nothing, forward to the next
 * one; a range that would reach the last message is no selection (the newest message is never compacted).
 */
export function selectSegment(messages: readonly Message[], fraction: number, cutAllowed: Uint8Array): Selection {
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
  let back = end
  while (back > start && !cutAllowed[back]) back--
  if (back > start) return { range: [start, back], turns, selectedTurns }
  let forward = end
  while (forward < n && !cutAllowed[forward]) forward++
  return { range: forward < n ? [start, forward] : undefined, turns, selectedTurns }
}

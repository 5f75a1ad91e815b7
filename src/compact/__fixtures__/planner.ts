import type { CompactionPlan, PlanOptions, PlanSegment } from '../../plan/types.js'
import type { MustKeepItem } from '../../spec/summarizer.js'
import { renderMessage } from '../../transcript/render.js'

/**
 * A small stand-in for `planCompaction` (tests of the orchestrator must not depend on the planner's heuristics):
 * compact when slot >= floor, else split at the middle message when both halves fit, else refuse.
 * With `cutAt`, it splits there regardless of tool pairs (a faulty planner).
 */
export function fixturePlanner(fixture: { cutAt?: number } = {}) {
  return (segment: PlanSegment, options: PlanOptions): CompactionPlan => {
    const offset = segment.offset ?? 0
    const { messages, estimator, tokenizer } = segment
    const tokensOf = (from: number, to: number): number => messages.slice(from, to).reduce((sum, message) => sum + tokenizer.count(renderMessage(message).text), 0)
    const estimate = (from: number, to: number) => estimator.estimate(messages.slice(from, to), offset + from)
    const itemsOf = (from: number, to: number): MustKeepItem[] => estimate(from, to).items.map((item) => ({ ...item, status: 'current' as const }))
    const whole = estimate(0, messages.length)
    const floor = { irreducible: whole.irreducible, margin: whole.margin, total: whole.total }
    const range = [offset, offset + messages.length] as const
    const tokens = tokensOf(0, messages.length)
    const budget = options.budget ?? tokens - 1
    const middle = fixture.cutAt === undefined ? Math.floor(messages.length / 2) : fixture.cutAt - offset
    if (whole.total <= options.slot && fixture.cutAt === undefined) {
      return { kind: 'compact', range, floor, slot: options.slot, tokens, guard: 'on', items: itemsOf(0, messages.length), state: [] }
    }
    const halves = [
      [0, middle],
      [middle, messages.length],
    ] as const
    if (middle > 0 && middle < messages.length && halves.every(([from, to]) => estimate(from, to).total <= options.slot)) {
      const parts = halves.map(([from, to]) => ({ range: [offset + from, offset + to] as const, floor: estimate(from, to).total, slot: options.slot, tokens: tokensOf(from, to), items: itemsOf(from, to), state: [] }))
      return { kind: 'split', range, floor, slot: options.slot, tokens, guard: 'on', budget, summaryTokens: options.slot * 2, frees: tokens - options.slot * 2, optimal: 'fewest-parts', parts, state: [] }
    }
    return { kind: 'refuse', reason: 'unit-exceeds-slot', range, floor, slot: options.slot, tokens, guard: 'on', budget, units: [], options: [{ kind: 'raise-slot', slot: whole.total }], state: [] }
  }
}

/**
 * The split search: partitions a run of blocks (units that may not be cut) into parts whose floors fit a slot.
 *
 * A part's floor is the sum of its distinct item weights plus the margin (`floorOf`). Floors only grow when a part
 * is extended, so from each start the feasible ends form a prefix: `reach[t]`, computed for every start with one
 * sliding window (each block enters and leaves once). The fewest-parts count then follows in O(m) from the reaches.
 * The remaining choice, among fewest-parts partitions, minimizes summary tokens then cuts off user turns; it only
 * examines transitions between cut positions that lie on some fewest-parts path, computing their floors by
 * extending one range at a time (forward from each start or backward from each end, whichever is cheaper).
 */

/** The blocks of one range, their items, and how parts are priced. */
export interface PartitionProblem {
  /** Number of blocks. */
  readonly blocks: number
  /** Item ids of block `b` are `itemIds[itemStarts[b] .. itemStarts[b + 1])`, distinct within the block. */
  readonly itemStarts: Int32Array
  readonly itemIds: Int32Array
  /** Tokens of each item id. */
  readonly weights: Float64Array
  /** The configured slot: a part fits when its floor total is at most this. */
  readonly slot: number
  /** Margin = `round(irreducible × marginRatio)`, rounded the estimator's way. */
  readonly marginRatio: number
  readonly marginRounding: 'ceil' | 'floor'
  /** A part's slot is its floor rounded up to a multiple of this, at most `slot`. */
  readonly slotRounding: number
  /** `1` when a cut before block `b` does not fall on a user turn (index 1 .. blocks-1). */
  readonly cutPenalty: Uint8Array
  /** How layers are searched; `auto` picks the cheapest. The others exist so tests can compare them. */
  readonly strategy?: 'auto' | 'enumerate' | 'sweep'
}

/** A partition: block indices of its cuts (first 0, last `blocks`). */
export interface Partition {
  readonly cuts: readonly number[]
  /** Sum of part slots. */
  readonly summaryTokens: number
  /** Cuts not on a user turn. */
  readonly penalty: number
}

/** Floor total of `irreducible` tokens: adds the margin. */
export function floorOf(problem: PartitionProblem, irreducible: number): number {
  const margin = irreducible * problem.marginRatio
  return irreducible + (problem.marginRounding === 'ceil' ? Math.ceil(margin) : Math.floor(margin))
}

/** A part's slot: its floor rounded up to `slotRounding` (at least one step), at most the configured slot. */
export function partSlotOf(problem: PartitionProblem, floor: number): number {
  const step = problem.slotRounding
  return Math.min(problem.slot, Math.ceil(Math.max(floor, 1) / step) * step)
}

/** `reach[t]`: the largest `u` such that blocks `[t, u)` fit the slot; `t` when block `t` alone does not. */
export function computeReach(problem: PartitionProblem): Int32Array {
  const { blocks, itemStarts, itemIds, weights, slot } = problem
  const count = new Int32Array(weights.length)
  const reach = new Int32Array(blocks)
  let irreducible = 0
  let end = 0
  for (let start = 0; start < blocks; start++) {
    if (end < start) {
      end = start
      irreducible = 0
    }
    while (end < blocks) {
      let delta = 0
      for (let k = itemStarts[end]!; k < itemStarts[end + 1]!; k++) if (count[itemIds[k]!] === 0) delta += weights[itemIds[k]!]!
      if (floorOf(problem, irreducible + delta) > slot) break
      for (let k = itemStarts[end]!; k < itemStarts[end + 1]!; k++) count[itemIds[k]!]!++
      irreducible += delta
      end++
    }
    reach[start] = end
    if (end > start) {
      for (let k = itemStarts[start]!; k < itemStarts[start + 1]!; k++) {
        const id = itemIds[k]!
        if (--count[id]! === 0) irreducible -= weights[id]!
      }
    }
  }
  return reach
}

interface Best {
  readonly summary: Float64Array
  readonly penalty: Float64Array
  readonly parts: Int32Array
  readonly previous: Int32Array
}

function newBest(size: number): Best {
  const best: Best = {
    summary: new Float64Array(size).fill(Number.POSITIVE_INFINITY),
    penalty: new Float64Array(size),
    parts: new Int32Array(size),
    previous: new Int32Array(size).fill(-1),
  }
  best.summary[0] = 0
  return best
}

function reconstruct(best: Best, blocks: number): Partition {
  const cuts: number[] = []
  for (let position = blocks; position > 0; position = best.previous[position]!) cuts.push(position)
  cuts.push(0)
  cuts.reverse()
  return { cuts, summaryTokens: best.summary[blocks]!, penalty: best.penalty[blocks]! }
}

/** Scratch for "seen in the current range" checks: a stamp per item id instead of a fresh set per range. */
class Seen {
  private readonly stamps: Int32Array
  private stamp = 0
  constructor(size: number) {
    this.stamps = new Int32Array(size)
  }
  reset(): void {
    this.stamp++
  }
  /** Weight the block adds to the current range. */
  add(problem: PartitionProblem, block: number): number {
    let delta = 0
    for (let k = problem.itemStarts[block]!; k < problem.itemStarts[block + 1]!; k++) {
      const id = problem.itemIds[k]!
      if (this.stamps[id] !== this.stamp) {
        this.stamps[id] = this.stamp
        delta += problem.weights[id]!
      }
    }
    return delta
  }
}

/** Offers the part `[from, to)` with model floor `floor` as the last part of the best path to `to`. */
function relax(problem: PartitionProblem, best: Best, from: number, to: number, floor: number, primary: 'parts' | 'tokens'): void {
  const summary = best.summary[from]! + partSlotOf(problem, floor)
  const penalty = best.penalty[from]! + (to < problem.blocks ? problem.cutPenalty[to]! : 0)
  const parts = best.parts[from]! + 1
  const current = best.summary[to]!
  let better: boolean
  if (primary === 'tokens' && current !== Number.POSITIVE_INFINITY && parts !== best.parts[to]! && summary === current) better = parts < best.parts[to]!
  else if (summary !== current) better = summary < current
  else if (penalty !== best.penalty[to]!) better = penalty < best.penalty[to]!
  else better = from < best.previous[to]!
  if (!better) return
  best.summary[to] = summary
  best.penalty[to] = penalty
  best.parts[to] = parts
  best.previous[to] = from
}

/**
 * The fewest-parts partition with the fewest summary tokens, then the fewest cuts off user turns, then the earliest
 * cuts (compared from the last cut back); `undefined` when some block alone does not fit.
 */
export function fewestParts(problem: PartitionProblem): Partition | undefined {
  const m = problem.blocks
  if (m === 0) return { cuts: [0], summaryTokens: 0, penalty: 0 }
  const reach = computeReach(problem)
  for (let t = 0; t < m; t++) if (reach[t] === t) return undefined
  // fewest parts covering blocks [0, u) and [t, m); `leftmost[u]` = smallest start reaching u.
  const prefixParts = new Int32Array(m + 1)
  const leftmost = new Int32Array(m + 1)
  let pointer = 0
  for (let u = 1; u <= m; u++) {
    while (reach[pointer]! < u) pointer++
    leftmost[u] = pointer
    prefixParts[u] = prefixParts[pointer]! + 1
  }
  const suffixParts = new Int32Array(m + 1)
  for (let t = m - 1; t >= 0; t--) suffixParts[t] = suffixParts[reach[t]!]! + 1
  const total = suffixParts[0]!
  // A position is the p-th cut of some fewest-parts partition exactly when prefix + suffix counts add up.
  const layers: number[][] = Array.from({ length: total + 1 }, () => [])
  const layerOf = new Int32Array(m + 1).fill(-1)
  for (let t = 0; t <= m; t++) {
    if (prefixParts[t]! + suffixParts[t]! === total) {
      layerOf[t] = prefixParts[t]!
      layers[prefixParts[t]!]!.push(t)
    }
  }
  const best = newBest(m + 1)
  const { itemStarts, itemIds, weights, cutPenalty } = problem
  const stamps = new Int32Array(weights.length)
  let stamp = 0
  // The hot loops below inline "add a block's unseen items" and the comparison: they run O(m·k) times.
  const offer = (t: number, u: number, irreducible: number) => {
    const floor = floorOf(problem, irreducible)
    const summary = best.summary[t]! + partSlotOf(problem, floor)
    const penalty = best.penalty[t]! + (u < m ? cutPenalty[u]! : 0)
    const current = best.summary[u]!
    if (summary > current || (summary === current && (penalty > best.penalty[u]! || (penalty === best.penalty[u]! && t > best.previous[u]!)))) return
    best.summary[u] = summary
    best.penalty[u] = penalty
    best.parts[u] = best.parts[t]! + 1
    best.previous[u] = t
  }
  for (let p = 0; p < total; p++) {
    const starts = layers[p]!
    const ends = layers[p + 1]!
    const lastEnd = ends[ends.length - 1]!
    const firstStart = starts[0]!
    let forwardCost = 0
    for (const t of starts) forwardCost += Math.max(0, Math.min(reach[t]!, lastEnd) - t)
    let backwardCost = 0
    for (const u of ends) backwardCost += Math.max(0, u - Math.max(leftmost[u]!, firstStart))
    // Few distinct part slots (coarse rounding) make a per-value sweep cheaper than enumerating transitions.
    const values = Math.ceil(problem.slot / problem.slotRounding)
    const sweepCost = 2 * values * (lastEnd - firstStart + 1) + values * ends.length
    const strategy = problem.strategy ?? 'auto'
    if (strategy === 'sweep' || (strategy === 'auto' && sweepCost < Math.min(forwardCost, backwardCost))) {
      sweepByValue(problem, best, starts, ends, leftmost)
    } else if (forwardCost <= backwardCost) {
      for (const t of starts) {
        if (best.summary[t] === Number.POSITIVE_INFINITY) continue
        stamp++
        let irreducible = 0
        const limit = Math.min(reach[t]!, lastEnd)
        for (let u = t + 1; u <= limit; u++) {
          for (let k = itemStarts[u - 1]!, stop = itemStarts[u]!; k < stop; k++) {
            const id = itemIds[k]!
            if (stamps[id] !== stamp) {
              stamps[id] = stamp
              irreducible += weights[id]!
            }
          }
          if (layerOf[u] === p + 1) offer(t, u, irreducible)
        }
      }
    } else {
      for (const u of ends) {
        stamp++
        let irreducible = 0
        const limit = Math.max(leftmost[u]!, firstStart)
        for (let t = u - 1; t >= limit; t--) {
          for (let k = itemStarts[t]!, stop = itemStarts[t + 1]!; k < stop; k++) {
            const id = itemIds[k]!
            if (stamps[id] !== stamp) {
              stamps[id] = stamp
              irreducible += weights[id]!
            }
          }
          if (layerOf[t] === p && best.summary[t] !== Number.POSITIVE_INFINITY) offer(t, u, irreducible)
        }
      }
    }
  }
  return reconstruct(best, m)
}

/**
 * One layer of the fewest-parts search by part-slot value: for each value `v` a part may be given, the starts whose
 * part to `u` gets a slot of at most `v` are a suffix of the (sorted) starts, found with one sliding window over the
 * layer; the best start in a suffix is a precomputed suffix minimum. O(values × layer span).
 */
function sweepByValue(problem: PartitionProblem, best: Best, starts: readonly number[], ends: readonly number[], leftmost: Int32Array): void {
  const { itemStarts, itemIds, weights, cutPenalty, slot, slotRounding } = problem
  const m = problem.blocks
  // suffixBest[i]: the start among starts[i..] with the least (summary, penalty, index).
  const suffixBest = new Int32Array(starts.length)
  for (let i = starts.length - 1; i >= 0; i--) {
    const t = starts[i]!
    const other = i + 1 < starts.length ? suffixBest[i + 1]! : -1
    const better =
      other === -1 ||
      best.summary[t]! < best.summary[other]! ||
      (best.summary[t] === best.summary[other] && best.penalty[t]! <= best.penalty[other]!)
    suffixBest[i] = better ? t : other
  }
  const count = new Int32Array(weights.length)
  const firstStart = starts[0]!
  for (let value = Math.min(slotRounding, slot); ; value = Math.min(value + slotRounding, slot)) {
    // A part gets a slot <= value exactly when its floor is <= value (or any floor that fits, for value = slot).
    const limit = value
    let left = firstStart
    let right = firstStart
    let irreducible = 0
    let index = 0
    for (const u of ends) {
      for (; right < u; right++) {
        for (let k = itemStarts[right]!, stop = itemStarts[right + 1]!; k < stop; k++) if (count[itemIds[k]!]!++ === 0) irreducible += weights[itemIds[k]!]!
      }
      while (left < u && floorOf(problem, irreducible) > limit) {
        for (let k = itemStarts[left]!, stop = itemStarts[left + 1]!; k < stop; k++) if (--count[itemIds[k]!]! === 0) irreducible -= weights[itemIds[k]!]!
        left++
      }
      const from = Math.max(left, leftmost[u]!)
      while (index < starts.length && starts[index]! < from) index++
      if (index >= starts.length || starts[index]! >= u) continue
      const t = suffixBest[index]!
      const summary = best.summary[t]! + value
      const penalty = best.penalty[t]! + (u < m ? cutPenalty[u]! : 0)
      const current = best.summary[u]!
      if (summary > current || (summary === current && (penalty > best.penalty[u]! || (penalty === best.penalty[u]! && t > best.previous[u]!)))) continue
      best.summary[u] = summary
      best.penalty[u] = penalty
      best.parts[u] = best.parts[t]! + 1
      best.previous[u] = t
    }
    for (; left < right; left++) {
      for (let k = itemStarts[left]!, stop = itemStarts[left + 1]!; k < stop; k++) count[itemIds[k]!]!--
    }
    if (value >= slot) break
  }
}

/**
 * The partition with the fewest summary tokens (then fewest parts, cuts off user turns, earliest cuts), whatever its
 * number of parts: the fallback when the fewest-parts partition breaks the budget. Enumerates every feasible part
 * (O(sum of reaches)), or, when part slots take few values, sweeps by value with a sliding-window minimum per value
 * (O(values × blocks)), whichever is cheaper.
 */
export function fewestTokens(problem: PartitionProblem): Partition | undefined {
  const m = problem.blocks
  if (m === 0) return { cuts: [0], summaryTokens: 0, penalty: 0 }
  const reach = computeReach(problem)
  for (let t = 0; t < m; t++) if (reach[t] === t) return undefined
  let enumerateCost = 0
  for (let t = 0; t < m; t++) enumerateCost += reach[t]! - t
  const values = Math.ceil(problem.slot / problem.slotRounding)
  const strategy = problem.strategy ?? 'auto'
  const sweepFits = values * (m + 1) <= 4_000_000
  if (strategy === 'sweep' || (strategy === 'auto' && sweepFits && 4 * values * m < enumerateCost)) return cheapestBySweep(problem, values)
  const best = newBest(m + 1)
  const seen = new Seen(problem.weights.length)
  for (let t = 0; t < m; t++) {
    if (best.summary[t] === Number.POSITIVE_INFINITY) continue
    seen.reset()
    let irreducible = 0
    for (let u = t + 1; u <= reach[t]!; u++) {
      irreducible += seen.add(problem, u - 1)
      relax(problem, best, t, u, floorOf(problem, irreducible), 'tokens')
    }
  }
  return reconstruct(best, m)
}

function cheapestBySweep(problem: PartitionProblem, values: number): Partition {
  const { itemStarts, itemIds, weights, cutPenalty, slot, slotRounding } = problem
  const m = problem.blocks
  const valueOf = (j: number) => Math.min((j + 1) * slotRounding, slot)
  // lowest[j * (m + 1) + u]: the smallest start t whose part [t, u) gets a slot of at most valueOf(j).
  const lowest = new Int32Array(values * (m + 1))
  const count = new Int32Array(weights.length)
  for (let j = 0; j < values; j++) {
    const limit = valueOf(j)
    let left = 0
    let irreducible = 0
    for (let u = 1; u <= m; u++) {
      for (let k = itemStarts[u - 1]!, stop = itemStarts[u]!; k < stop; k++) if (count[itemIds[k]!]!++ === 0) irreducible += weights[itemIds[k]!]!
      while (left < u && floorOf(problem, irreducible) > limit) {
        for (let k = itemStarts[left]!, stop = itemStarts[left + 1]!; k < stop; k++) if (--count[itemIds[k]!]! === 0) irreducible -= weights[itemIds[k]!]!
        left++
      }
      lowest[j * (m + 1) + u] = left
    }
    for (; left < m; left++) for (let k = itemStarts[left]!, stop = itemStarts[left + 1]!; k < stop; k++) count[itemIds[k]!]!--
  }
  const best = newBest(m + 1)
  // One monotone deque of starts per value, keys non-decreasing from head to tail (ties keep the earlier start).
  const deque = new Int32Array(values * (m + 1))
  const head = new Int32Array(values)
  const tail = new Int32Array(values)
  const worse = (a: number, b: number) =>
    best.summary[a]! > best.summary[b]! ||
    (best.summary[a] === best.summary[b] && (best.parts[a]! > best.parts[b]! || (best.parts[a] === best.parts[b] && best.penalty[a]! > best.penalty[b]!)))
  for (let u = 1; u <= m; u++) {
    const t = u - 1
    for (let j = 0; j < values; j++) {
      const base = j * (m + 1)
      if (best.summary[t] !== Number.POSITIVE_INFINITY) {
        while (tail[j]! > head[j]! && worse(deque[base + tail[j]! - 1]!, t)) tail[j]!--
        deque[base + tail[j]!++] = t
      }
      const from = lowest[base + u]!
      while (tail[j]! > head[j]! && deque[base + head[j]!]! < from) head[j]!++
      if (tail[j] === head[j]) continue
      const start = deque[base + head[j]!]!
      const summary = best.summary[start]! + valueOf(j)
      const parts = best.parts[start]! + 1
      const penalty = best.penalty[start]! + (u < m ? cutPenalty[u]! : 0)
      const current = best.summary[u]!
      const better =
        summary < current ||
        (summary === current &&
          (parts < best.parts[u]! || (parts === best.parts[u] && (penalty < best.penalty[u]! || (penalty === best.penalty[u] && start < best.previous[u]!)))))
      if (!better) continue
      best.summary[u] = summary
      best.parts[u] = parts
      best.penalty[u] = penalty
      best.previous[u] = start
    }
  }
  return reconstruct(best, m)
}

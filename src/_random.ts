/**
 * A seeded pseudo-random source (the eval's scenarios and bootstrap, the demo's session): the same seed gives the same
 * sequence on every machine and Node version, which `Math.random` does not.
 */

/** A seeded generator of uniform numbers in [0, 1) and the choices built on them. */
export interface Random {
  /** next() = a uniform number in [0, 1). */
  next(): number
  /** int(min, max) = a uniform integer in [min, max] (both included). */
  int(min: number, max: number): number
  /** pick(values) = one element, uniform. */
  pick<T>(values: readonly T[]): T
  /** chance(p) = true with probability p. */
  chance(p: number): boolean
}

/** createRandom(seed) = mulberry32 over a 32-bit state (seed folded to 32 bits). */
export function createRandom(seed: number): Random {
  let state = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    int,
    pick: <T>(values: readonly T[]): T => {
      if (values.length === 0) throw new RangeError('pick: empty list')
      return values[int(0, values.length - 1)]!
    },
    chance: (p: number): boolean => next() < p,
  }
}

/**
 * The lines of a part that repeat an earlier line of it, found during the phrase pass (see `findPhrases`). The `full`
 * scan reads nothing outside a line for that line's spans, so a repeated line yields only spans of texts the scan
 * has found already, and the caller keeps one span per text: the scan skips it.
 */

import { GenerationSlots, sameUnits } from './_scan.js'

/** Lines shorter than this are not looked up: scanning them again costs about what the lookup does. */
const MIN_LENGTH = 12
const BITS = 12

/**
 * Lines met lately: direct-mapped (a colliding line evicts the one before it, which only means that a later repeat of
 * it is scanned again), keyed by the line's length and a few of its units, and confirmed by comparing the units.
 * Entries belong to the pass whose generation they carry, as they hold offsets into its text. Small enough to stay in
 * cache: repeats in agent text come within a few dozen lines (a traceback's fixed lines, a test run's header). Each
 * estimator owns one (see `ScanCaches`), so estimators never evict each other's lines.
 */
export class RecentLines extends GenerationSlots {
  constructor() {
    super(BITS)
  }
}

/**
 * The repeated lines of one text, in order: `[starts[i], ends[i])`, ends excluding the newline, and `originals[i]`, the
 * start of the earlier line it repeats (one that was not itself reported as a repeat).
 */
export class RepeatedLines {
  count = 0
  readonly starts: number[] = []
  readonly ends: number[] = []
  readonly originals: number[] = []
  private readonly generation: number
  private readonly table: Int32Array

  /** `recent`: the table of lines met lately, owned by the caller's estimator. */
  constructor(recent: RecentLines) {
    this.table = recent.slots
    this.generation = recent.nextGeneration()
  }

  /** Records the line `[start, end)` of `text` (lines come in order) as repeated if an earlier one had its units. */
  note(text: string, start: number, end: number): void {
    const length = end - start
    if (length < MIN_LENGTH) return
    let hash = Math.imul(length, 0x9e3779b1)
    hash = Math.imul(hash ^ text.charCodeAt(start + (length >>> 1)), 0x01000193)
    hash = Math.imul(hash ^ text.charCodeAt(start + (length >>> 2)), 0x01000193)
    hash = Math.imul(hash ^ text.charCodeAt(end - 1 - (length >>> 2)), 0x01000193)
    hash = Math.imul(hash ^ text.charCodeAt(end - 1), 0x01000193)
    hash = Math.imul(hash ^ text.charCodeAt(end - 2), 0x01000193)
    const at = ((hash ^ (hash >>> 16)) & ((1 << BITS) - 1)) << 2
    const table = this.table
    if (table[at] === this.generation && table[at + 2] === length && sameUnits(text, table[at + 1]!, start, length)) {
      this.starts[this.count] = start
      this.originals[this.count] = table[at + 1]!
      this.ends[this.count++] = end
      return
    }
    table[at] = this.generation
    table[at + 1] = start
    table[at + 2] = length
  }
}

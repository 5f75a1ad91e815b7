/**
 * One automaton pass over a part finds where error hints and constraint cues occur, in place of two case-insensitive
 * regex passes (which cost irregexp about 2 ns a unit each, as every position starts some alternative).
 *
 * The automaton is Aho–Corasick over ASCII folded to lower case, compiled to a dense transition table over unit
 * classes: two lookups per unit. A non-ASCII unit resets it, as no phrase holds one and JavaScript's case-insensitive
 * matching (without the `u` flag) never pairs a non-ASCII unit with an ASCII one.
 */

import { SYSTEM_FAILURE_MESSAGES } from '../../vocabulary/failures.js'
import type { RepeatedLines } from './_repeated-lines.js'
import { CUE_PHRASES } from '../_cues.js'

/** Substrings that every error anchor holds (any case, anywhere: `OSError`, `FAILED`, `not found`). */
export const ERROR_HINT_PHRASES = [
  'rror', 'xception', 'errno', 'fatal', 'panic', 'err!', 'err:', 'fail', 'exit code', 'fault', 'warning', 'interrupt', 'abort',
  'denied', 'not found', 'no such', 'killed', '<tool_use_error>', 'timed out', 'out of memory', 'not defined',
  'undefined reference', 'refused', 'not a git', 'cannot find', 'no space', 'blocked by cors policy',
] as const

/**
 * Phrases that make a whole line an error (any case, anywhere in it): `-bash: rsync: command not found`. The system's
 * failure messages the planner also reads as a failed call (`SYSTEM_FAILURE_MESSAGES`), and looser ones that only an
 * error item needs (a line that says `out of memory` or `killed` is kept whole, but does not by itself fail a call).
 */
export const ERROR_PHRASES = [
  ...SYSTEM_FAILURE_MESSAGES, 'segmentation fault', 'out of memory', 'timed out', 'is not defined', 'syntax error', 'not found', 'killed',
  // Gradle's account of a failed build, the line after `* What went wrong:`.
  'execution failed for task',
  // A browser's console error, pasted (`Access to script at 'file:///…' from origin 'null' has been blocked by CORS policy: …`).
  'blocked by cors policy',
] as const

/** Constraint cues (defined in `_cues.ts`, with the record's). */
export { CUE_PHRASES }

/** Cues that what follows them in their clause is an example, not a value of the session (any case, at a word start). */
export const EXAMPLE_PHRASES = ['such as', 'e.g.', 'for example', 'for instance'] as const

/** Cues that state an obligation or a prohibition wherever they stand in their clause (`Every gate must be a command`). */
export const MODAL_CUES: ReadonlySet<string> = new Set(['must', "mustn't", 'mandatory', 'should not', "shouldn't", 'forbidden', 'prohibited', 'not allowed', 'under no circumstances', 'ensure', 'make sure'])
/** Cues that describe an inability unless addressed to the agent (`you cannot`; `the pod can't restart` is a report). */
export const ADDRESSED_CUES: ReadonlySet<string> = new Set(['cannot', "can't"])

/** Units per row of the table: ASCII. */
const ALPHABET = 128

interface Automaton {
  /**
   * Transitions by unit class: at `row + classOf[unit]`, where `row` is a state's row (`state * stride`), the next
   * state's row. States where a phrase ends are numbered last, from {@link Automaton.endingRows} on, so that the scan
   * loop's chain of loads has no step of its own to tell them apart.
   */
  readonly table: Uint16Array
  /** The first row of a state where a phrase ends (or the newline state). */
  readonly endingRows: number
  /** The row of the state a newline leads to: the root's transitions, numbered among the ending states. */
  readonly newlineRow: number
  /** Class of every UTF-16 unit: 0 for units no phrase holds, else one per phrase unit, upper case as lower case. */
  readonly classOf: Uint8Array
  /** Classes per row. */
  readonly stride: number
  /** Per state, the lengths of the hint phrases ending there (longest suffix first). */
  readonly hintLengths: ReadonlyArray<readonly number[]>
  /** Per state, the lengths of the cue phrases ending there. */
  readonly cueLengths: ReadonlyArray<readonly number[]>
  /** Per state, the lengths of the error phrases ending there. */
  readonly errorLengths: ReadonlyArray<readonly number[]>
  /** Per state, the lengths of the example cues ending there. */
  readonly exampleLengths: ReadonlyArray<readonly number[]>
}

function build(): Automaton {
  // The trie: children per state by folded unit, and the phrases ending at each state.
  const children: Array<Map<number, number>> = [new Map()]
  const hints: number[][] = [[]]
  const cues: number[][] = [[]]
  const errors: number[][] = [[]]
  const examples: number[][] = [[]]
  const insert = (phrase: string, into: number[][]) => {
    let state = 0
    for (const char of phrase) {
      const unit = char.charCodeAt(0)
      let next = children[state]!.get(unit)
      if (next === undefined) {
        next = children.length
        children.push(new Map())
        hints.push([])
        cues.push([])
        errors.push([])
        examples.push([])
        children[state]!.set(unit, next)
      }
      state = next
    }
    into[state]!.push(phrase.length)
  }
  for (const phrase of ERROR_HINT_PHRASES) insert(phrase, hints)
  for (const phrase of CUE_PHRASES) insert(phrase, cues)
  for (const phrase of ERROR_PHRASES) insert(phrase, errors)
  for (const phrase of EXAMPLE_PHRASES) insert(phrase, examples)
  const states = children.length
  const table = new Uint16Array(states * ALPHABET)
  const fail = new Int32Array(states)
  // Breadth first, so a state's failure link (a shorter state) is complete before the state itself.
  const order: number[] = [0]
  for (let at = 0; at < order.length; at++) {
    const state = order[at]!
    if (state !== 0) {
      hints[state]!.push(...hints[fail[state]!]!)
      cues[state]!.push(...cues[fail[state]!]!)
      errors[state]!.push(...errors[fail[state]!]!)
      examples[state]!.push(...examples[fail[state]!]!)
    }
    for (let unit = 0; unit < ALPHABET; unit++) {
      const child = children[state]!.get(unit)
      if (child !== undefined) {
        fail[child] = state === 0 ? 0 : table[fail[state]! * ALPHABET + unit]!
        order.push(child)
        table[state * ALPHABET + unit] = child
      } else {
        table[state * ALPHABET + unit] = state === 0 ? 0 : table[fail[state]! * ALPHABET + unit]!
      }
    }
  }
  // Units no phrase holds all lead to the root: they share class 0, and the table keeps one column per phrase unit
  // (a few dozen), small enough to stay in the first-level cache.
  const classOf = new Uint8Array(0x10000)
  let stride = 1
  for (const phrase of [...ERROR_HINT_PHRASES, ...CUE_PHRASES, ...ERROR_PHRASES, ...EXAMPLE_PHRASES]) {
    for (const char of phrase) {
      const unit = char.charCodeAt(0)
      if (classOf[unit] !== 0) continue
      classOf[unit] = stride
      if (unit >= 97 && unit <= 122) classOf[unit - 32] = stride
      stride++
    }
  }
  // A typographic apostrophe (U+2019: `Don’t`, as editors and phones type it) is the ASCII one.
  classOf[0x2019] = classOf[39]!
  // A newline leads to a copy of the root numbered among the ending states, so that the scan loop meets line ends
  // without a test of its own.
  const newline = stride++
  classOf[10] = newline
  // Renumbered: the root, the states where no phrase ends, those where one does, then the newline state.
  const ends = (state: number) => hints[state]!.length > 0 || cues[state]!.length > 0 || errors[state]!.length > 0 || examples[state]!.length > 0
  const numbering: number[] = []
  for (let state = 0; state < states; state++) if (!ends(state)) numbering.push(state)
  const endingStates = numbering.length
  for (let state = 0; state < states; state++) if (ends(state)) numbering.push(state)
  numbering.push(0)
  const renumbered = new Int32Array(states)
  for (let index = 0; index < states; index++) renumbered[numbering[index]!] = index
  if (numbering.length * stride >= 0x10000) throw new Error('phrase automaton: too many states for its table')
  const newlineRow = states * stride
  const compact = new Uint16Array(numbering.length * stride)
  numbering.forEach((state, index) => {
    for (let unit = 0; unit < ALPHABET; unit++) {
      const unitClass = classOf[unit]!
      if (unitClass === 0 || (unit >= 65 && unit <= 90)) continue
      compact[index * stride + unitClass] = renumbered[table[state * ALPHABET + unit]!]! * stride
    }
    compact[index * stride + newline] = newlineRow
  })
  const byNumber = (lengths: number[][]) => numbering.map((state, index) => (index === states ? [] : lengths[state]!))
  return { table: compact, classOf, stride, endingRows: endingStates * stride, newlineRow, hintLengths: byNumber(hints), cueLengths: byNumber(cues), errorLengths: byNumber(errors), exampleLengths: byNumber(examples) }
}

// Built when the module loads (about 5 ms): module constants let the scan loop read the tables without
// checking their type at every unit, which a table reached through an object costs.
const automaton = build()
const TABLE = automaton.table
const CLASS_OF = automaton.classOf
const STRIDE = automaton.stride
const ENDING_ROWS = automaton.endingRows
const NEWLINE_ROW = automaton.newlineRow

/** Whether the unit is a `\w` unit of a non-Unicode JavaScript regex: `[A-Za-z0-9_]`. */
function isWordUnit(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95
}

/** Offsets of the phrases found by {@link findPhrases}, each list in increasing order. */
export interface PhraseHits {
  /** Where an error hint starts, at every occurrence (overlapping ones included). */
  readonly hints: number[]
  /** Where a constraint cue with a word boundary on both sides starts, at every occurrence. */
  readonly cues: number[]
  /** Where an error phrase starts, at every occurrence. */
  readonly errors: number[]
  /** Where an example cue starts at a word start, at every occurrence. */
  readonly examples: number[]
}

/**
 * Records the phrases ending at `index` of `text`, where the automaton entered `state`, one where a phrase ends: every
 * hint start, and (with `withCues`) every start of a cue with `\b` on both sides.
 */
function recordPhrases(text: string, index: number, state: number, withCues: boolean, hits: PhraseHits): void {
  const { hintLengths, cueLengths, errorLengths, exampleLengths } = automaton
  // Index loops: this runs for every phrase found, and an array iterator would be an allocation each time.
  const hints = hintLengths[state]!
  for (let which = 0; which < hints.length; which++) push(hits.hints, index + 1 - hints[which]!)
  const errors = errorLengths[state]!
  for (let which = 0; which < errors.length; which++) push(hits.errors, index + 1 - errors[which]!)
  const examples = exampleLengths[state]!
  for (let which = 0; which < examples.length; which++) {
    const start = index + 1 - examples[which]!
    if (start === 0 || !isWordUnit(text.charCodeAt(start - 1))) push(hits.examples, start)
  }
  if (!withCues) return
  const cues = cueLengths[state]!
  for (let which = 0; which < cues.length; which++) {
    const start = index + 1 - cues[which]!
    // Every cue starts and ends with a letter, so `\b` holds where the unit outside is not a word unit.
    if ((start === 0 || !isWordUnit(text.charCodeAt(start - 1))) && (index + 1 === text.length || !isWordUnit(text.charCodeAt(index + 1)))) push(hits.cues, start)
  }
}

/**
 * Finds every occurrence of the error hints and error phrases, and (with `withCues`) of the constraint cues bounded by
 * `\b` on both sides, in `text`; with `repeated`, also the lines that repeat an earlier line (see {@link RepeatedLines}).
 *
 * Every match of a global `/hint|…/gi` pass is among `hints`, and the others overlap one (`timed out` and
 * `out of memory`); a sentence (which no cue crosses) holds a match of `/\b(?:cue|…)\b/gi` exactly when it holds
 * an offset of `cues`; an ASCII line matches `/phrase|…/i` exactly when it holds an offset of `errors`. No phrase
 * holds a newline, so none crosses lines.
 */
export function findPhrases(text: string, withCues: boolean, repeated?: RepeatedLines): PhraseHits {
  const hits: PhraseHits = { hints: [], cues: [], errors: [], examples: [] }
  let row = 0
  let lineStart = 0
  const length = text.length
  for (let index = 0; index < length; index++) {
    row = TABLE[row + CLASS_OF[text.charCodeAt(index)]!]!
    if (row >= ENDING_ROWS) {
      if (row !== NEWLINE_ROW) recordPhrases(text, index, row / STRIDE, withCues, hits)
      else {
        repeated?.note(text, lineStart, index)
        lineStart = index + 1
      }
    }
  }
  repeated?.note(text, lineStart, length)
  return hits
}

/** Appends `offset`, keeping `list` sorted: a phrase found later may start earlier (`<tool_use_error>` after its `rror`). */
function push(list: number[], offset: number): void {
  let at = list.length
  while (at > 0 && list[at - 1]! > offset) at--
  if (at === list.length) list.push(offset)
  else list.splice(at, 0, offset)
}

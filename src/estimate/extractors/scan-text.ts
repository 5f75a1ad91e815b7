import type { ItemKind } from '../../spec/estimator.js'
import { BACKSLASH, COLON, DIGIT, DOT, EQUALS, HYPHEN, isUnclassifiable, LEADING_TRIM, LOWER, NON_HEX_LETTER, NEWLINE, NON_ASCII, OTHER, PAREN, QUOTE, RIGHT_QUOTE, SLASH, SPACE, TRAILING_TRIM, UNDERSCORE, UNIT_CLASS, UPPER_FIRST, UPPER_INNER, WORD_FLAGS, wordFlags } from './_flags.js'
import { GenerationSlots, printedUnits, sameUnits, trimmedEnd } from './_scan.js'
import { hashUnits } from '../_span-set.js'
import { EXAMPLE_PHRASES, findPhrases } from './_phrases.js'
import { RecentLines, RepeatedLines } from './_repeated-lines.js'
import { bulletDirectiveStart, capSpan, constraintSpans, errorSpan, type ErrorSource, forEachQuoted, isBinary, isSourceLine, isVersionBanner, jsonMessage, lineQuoteSource, locationPathEnd, MAX_ERROR_LENGTH, quotePositions, quotedIsState, type QuoteSource, type RawSpan, searchMatchPrefix, testFailureBullet } from './lines.js'
import { classifyWord, digitHashes, flagPhrases, hexWordAt, isChatCommand, keyValuePhrases, lineHead, mayBeDigitHash, numericPhrases, pointsToPath, productBefore, standsAlone, urlEnd, uuidsIn } from './words.js'

/** Whether the word `[start, end)` is `use` (any case): what follows it names a command of the tool. */
function followsUse(text: string, start: number, end: number): boolean {
  return end - start === 3 && (text.charCodeAt(start) | 32) === 117 && (text.charCodeAt(start + 1) | 32) === 115 && (text.charCodeAt(start + 2) | 32) === 101
}

/**
 * How a part's text is scanned: `instruction` (user, system) for everything including constraint sentences and pasted
 * errors, `summary` (an earlier compactor's summary) the same with errors as prose states them (see `ErrorSource`),
 * `assistant` for everything but constraints with errors as prose states them, `code` (a short edit's payload) as
 * `assistant` but with quote characters as the code's syntax rather than quotation (`"/mnt/scratch"` holds a path),
 * `tool` for errors and identifiers only.
 */
export type ScanMode = 'instruction' | 'summary' | 'assistant' | 'code' | 'tool'

/** Kinds worth keeping from a successful tool result: identifiers nobody can re-derive cheaply, and errors. */
const TOOL_RESULT_KINDS = new Set<ItemKind>(['url', 'uuid', 'hash', 'error'])

/** Kinds a scan finds, by code (the index): a {@link SpanList} holds numbers only. */
export const SPAN_KINDS = ['error', 'constraint', 'quoted', 'regex', 'version', 'path', 'url', 'env', 'constant', 'hash', 'uuid', 'number', 'identifier'] as const satisfies readonly ItemKind[]
const KIND_CODES = Object.fromEntries(SPAN_KINDS.map((kind, code) => [kind, code])) as Partial<Record<ItemKind, number>>
const kindCode = (kind: ItemKind): number => KIND_CODES[kind]!
const NUMBER = kindCode('number')
const QUOTED = kindCode('quoted')
const REGEX = kindCode('regex')
const ERROR = kindCode('error')
const CONSTRAINT = kindCode('constraint')
const VERSION = kindCode('version')
const IDENTIFIER = kindCode('identifier')
const PATH = kindCode('path')
const URL_KIND = kindCode('url')
const HASH = kindCode('hash')
const UUID = kindCode('uuid')
/** Flags of a word holding a letter or a digit. */
const LETTERS_OR_DIGITS = LOWER | NON_HEX_LETTER | UPPER_FIRST | UPPER_INNER | DIGIT
/** Units that make an identifier hold a value: `=`, a digit or a quote (`dtype="float32"`, `probs.max(dim=-1)`). */
const VALUE_UNITS = EQUALS | DIGIT | QUOTE
const NO_SPANS: readonly RawSpan[] = []
/** Whether a word with these flags and length could be a URL, UUID or hash (what tool results keep). */
function mayBeToolIdentifier(flags: number, length: number): boolean {
  if (flags & COLON || (flags & DIGIT && flags & DOT)) return true
  if (flags & HYPHEN && length === 36) return true
  // A path or a name that may carry a UUID (`…/-home-m/3cfce0ff-0725-47be-a572-f8af8122b71e/…`).
  if (length > 36 && (flags & (HYPHEN | DIGIT)) === (HYPHEN | DIGIT)) return true
  return length >= 7 && length <= 64 && (flags & ~(LOWER | DIGIT)) === 0 && (flags & DIGIT) !== 0 && (flags & LOWER) !== 0
}

/** Whether `[start, end)` holds a capital followed by three digits (what a lint code such as `E501` starts with). */
function holdsLintHint(text: string, start: number, end: number): boolean {
  for (let index = start; index + 3 < end; index++) {
    const code = text.charCodeAt(index)
    if (code >= 65 && code <= 90 && isDigit(text.charCodeAt(index + 1)) && isDigit(text.charCodeAt(index + 2)) && isDigit(text.charCodeAt(index + 3))) return true
  }
  return false
}

const isDigit = (code: number) => code >= 48 && code <= 57

/** {@link TOOL_RESULT_KINDS} as a mask of kind codes. */
const TOOL_RESULT_CODES = [...TOOL_RESULT_KINDS].reduce((mask, kind) => mask | (1 << kindCode(kind)), 0)

/**
 * Set in a word's code when the word is not state by itself (see `standsAlone`): a decimal may still version the
 * product before it (`Python 3.11`), so the scan decides after that look.
 */
const NOT_ALONE = 0x100
const KIND_MASK = 0xff
const CACHE_BITS = 15

/**
 * The kinds of the words scans classified lately: agent text repeats its identifiers, paths and errors, and a lookup
 * costs less than the patterns. A direct-mapped cache (a colliding word evicts the one before it), keyed by a hash of
 * the word and checked against the word's units; entries belong to the scan whose generation they carry, as they hold
 * offsets into its text. A word's flags follow from its text, so its kind does too.
 */
export class WordKinds extends GenerationSlots {
  // Per slot: generation, start, length, kind code.
  constructor() {
    super(CACHE_BITS)
  }

  /**
   * kindOf(word [start, end) of text) = its kind code (-1 for none, {@link NOT_ALONE} set for a word not state alone),
   * from the cache when the scan of `generation` saw it lately.
   */
  kindOf(text: string, start: number, end: number, flags: number, generation: number): number {
    const slots = this.slots
    const length = end - start
    // A hash of the whole word: sampling a few units is cheaper, but paths and names that share them evict each other.
    const hash = hashUnits(text, start, end, 0x2545f491)
    const at = (hash & ((1 << CACHE_BITS) - 1)) << 2
    if (slots[at] === generation && slots[at + 2] === length && sameUnits(text, slots[at + 1]!, start, length)) return slots[at + 3]!
    const word = text.slice(start, end)
    const kind = classifyWord(word, flags)
    const code = kind ? kindCode(kind) | (standsAlone(word, kind, flags) ? 0 : NOT_ALONE) : -1
    slots[at] = generation
    slots[at + 1] = start
    slots[at + 2] = length
    slots[at + 3] = code
    return code
  }
}

/**
 * The caches a scan reads and fills, owned by one estimator (see `createFullEstimator`): two estimators never evict
 * or reset each other's entries. Scans never nest, so one set serves every scan of its estimator.
 */
export class ScanCaches {
  /** Kinds of the words classified lately. */
  readonly words = new WordKinds()
  /** Lines met lately, to find a part's repeated lines. */
  readonly lines = new RecentLines()
}

/** Spans in parallel typed arrays (kind code, start, end), in the order pushed: no object per span. */
export class SpanList {
  length = 0
  /**
   * Whether a part scanned into the list held escape sequences: then a span may cover some, and its text is the span
   * without them (`withoutEscapes`), which two spans of different units may share. Cleared by the list's user.
   */
  escaped = false
  kinds: Uint8Array
  starts: Int32Array
  ends: Int32Array

  /** `capacity`: spans to make room for up front (the list grows by doubling past it). */
  constructor(capacity = 1024) {
    const size = Math.max(16, Math.ceil(capacity))
    this.kinds = new Uint8Array(size)
    this.starts = new Int32Array(size)
    this.ends = new Int32Array(size)
  }

  /** Appends a span with kind code `kind` (an index of {@link SPAN_KINDS}). */
  push(kind: number, start: number, end: number): void {
    if (this.length === this.kinds.length) {
      const capacity = this.length * 2
      const kinds = new Uint8Array(capacity)
      const starts = new Int32Array(capacity)
      const ends = new Int32Array(capacity)
      kinds.set(this.kinds)
      starts.set(this.starts)
      ends.set(this.ends)
      this.kinds = kinds
      this.starts = starts
      this.ends = ends
    }
    this.kinds[this.length] = kind
    this.starts[this.length] = start
    this.ends[this.length] = end
    this.length++
  }

  /** Kind of the `index`-th span. */
  kindOf(index: number): ItemKind {
    return SPAN_KINDS[this.kinds[index]!]!
  }

  /** The spans from `from` on, as objects. */
  toArray(from = 0): RawSpan[] {
    const spans: RawSpan[] = []
    for (let index = from; index < this.length; index++) spans.push({ kind: this.kindOf(index), start: this.starts[index]!, end: this.ends[index]! })
    return spans
  }
}

/**
 * One line's spans before merging, in reusable parallel arrays; {@link LineSpans.flush} merges overlapping ones
 * (the longer span's kind names the union, the first found among equals) into a {@link SpanList}.
 */
class LineSpans {
  count = 0
  private readonly kinds: number[] = []
  private readonly starts: number[] = []
  private readonly ends: number[] = []
  private readonly order: number[] = []
  /** The text the line's quoted strings are read in, and who wrote it (see {@link quotedIsState}). */
  quoteText = ''
  quoteSource: QuoteSource = 'instruction'

  /** Pushes a regex, or a quoted string that is state, found by {@link forEachQuoted}. */
  readonly pushQuoted = (isRegex: boolean, start: number, end: number): void => {
    if (isRegex) this.push(REGEX, start, end)
    else if (quotedIsState(this.quoteText, start, end, this.quoteSource)) this.push(QUOTED, start, end)
  }

  /** Kind code of the line's `index`-th span, in the order pushed. */
  kindAt(index: number): number {
    return this.kinds[index]!
  }

  startAt(index: number): number {
    return this.starts[index]!
  }

  endAt(index: number): number {
    return this.ends[index]!
  }

  push(kind: number, start: number, end: number): void {
    this.kinds[this.count] = kind
    this.starts[this.count] = start
    this.ends[this.count] = end
    this.count++
  }


  /**
   * Drops the line's spans that stand in an example (`such as buggy-input.png, and…`, `(e.g. python, vim)`, `for
   * example `Hello world``): from the cue to the end of its clause (see {@link exampleClauses}). Errors and constraint
   * sentences stay: a directive that gives an example is still a directive.
   */
  dropExamples(text: string, lineStart: number, lineEnd: number): void {
    const clauses = exampleClauses(text, lineStart, lineEnd)
    if (clauses === undefined) return
    let kept = 0
    for (let index = 0; index < this.count; index++) {
      const kind = this.kinds[index]!
      const spanStart = this.starts[index]!
      let inExample = false
      if (kind !== ERROR && kind !== CONSTRAINT) for (let clause = 0; clause < clauses.length && !inExample; clause += 2) inExample = clauses[clause]! <= spanStart && spanStart < clauses[clause + 1]!
      if (inExample) continue
      this.kinds[kept] = kind
      this.starts[kept] = spanStart
      this.ends[kept] = this.ends[index]!
      kept++
    }
    this.count = kept
  }

  /** Sign of the order of spans `a` and `b`: by start, then longest first. */
  private before(a: number, b: number): number {
    return this.starts[a]! - this.starts[b]! || this.ends[b]! - this.ends[a]!
  }

  /** Appends the merged spans, shifted by `offset`, to `into` and empties the line. */
  flush(into: SpanList, offset: number): void {
    const { count, kinds, starts, ends, order } = this
    this.count = 0
    if (count === 0) return
    if (count === 1) {
      into.push(kinds[0]!, starts[0]! + offset, ends[0]! + offset)
      return
    }
    // By start, then longest first; stable. Lines hold a few spans, whose runs are sorted already: insertion sort,
    // unless the line is long enough for that to cost more than a sort.
    for (let index = 0; index < count; index++) order[index] = index
    if (count > 32) {
      // Drop the entries a longer line left behind before sorting the whole array.
      order.length = count
      order.sort((a, b) => this.before(a, b) || a - b)
    }
    else {
      for (let index = 1; index < count; index++) {
        const current = order[index]!
        let at = index
        while (at > 0 && this.before(order[at - 1]!, current) > 0) {
          order[at] = order[at - 1]!
          at--
        }
        order[at] = current
      }
    }
    let kind = kinds[order[0]!]!
    let start = starts[order[0]!]!
    let end = ends[order[0]!]!
    let longest = end - start
    for (let index = 1; index < count; index++) {
      const span = order[index]!
      if (starts[span]! < end) {
        if (ends[span]! > end) end = ends[span]!
        if (ends[span]! - starts[span]! > longest) {
          longest = ends[span]! - starts[span]!
          kind = kinds[span]!
        }
        continue
      }
      into.push(kind, start + offset, end + offset)
      kind = kinds[span]!
      start = starts[span]!
      end = ends[span]!
      longest = end - start
    }
    into.push(kind, start + offset, end + offset)
  }
}

/** Merges overlapping spans into their union; the longer span's kind names the union. Sorts `spans` in place. */
export function mergeSpans(spans: RawSpan[]): RawSpan[] {
  if (spans.length < 2) return spans
  spans.sort((a, b) => a.start - b.start || b.end - a.end)
  const merged: RawSpan[] = []
  let kind = spans[0]!.kind
  let start = spans[0]!.start
  let end = spans[0]!.end
  let longest = end - start
  for (let index = 1; index < spans.length; index++) {
    const span = spans[index]!
    if (span.start < end) {
      if (span.end > end) end = span.end
      if (span.end - span.start > longest) {
        longest = span.end - span.start
        kind = span.kind
      }
      continue
    }
    merged.push({ kind, start, end })
    kind = span.kind
    start = span.start
    end = span.end
    longest = end - start
  }
  merged.push({ kind, start, end })
  return merged
}

/**
 * What a line leaves the next one: nothing, an error of its own, or an `Exit code N` line; an error line's status also
 * holds its indentation (`status + 4 * indentation`), which its detail line exceeds.
 */
const NO_ERROR = 0
const ERROR_LINE = 1
const EXIT_LINE = 2

/** Options of {@link scanText}. */
export interface ScanOptions {
  /** How the part is read (see {@link ScanMode}). */
  readonly mode: ScanMode
  /** The caches of the estimator that scans (see {@link ScanCaches}). */
  readonly caches: ScanCaches
  /**
   * Whether the part is a tool result flagged as failed: one that names no error keeps its message.
   * @default false
   */
  readonly isError?: boolean
  /**
   * What a successful tool result holds: `log` (what a command printed, whose every line may be an error) or `data`
   * (what a read, fetch or search returned: a page or a file that quotes errors, as `isFailingResult` reads it with
   * `output: 'data'`), whose first line alone may state the tool's own failure, or, after a numbered view, a line
   * that is not numbered (the tool's message appended to the file's lines).
   * @default 'log'
   */
  readonly output?: 'log' | 'data'
  /**
   * Where the spans are appended.
   * @default a new list
   */
  readonly into?: SpanList
}

/**
 * Tools whose results are data (lower case): a read, a fetch, a search. Their results quote errors (a page on error
 * handling, a source file, a search's matches) rather than report them.
 */
const DATA_TOOLS = new Set([
  'read', 'read_file', 'readfile', 'view', 'view_file', 'open_file', 'webfetch', 'web_fetch', 'fetch', 'fetch_url', 'read_url', 'browse',
  'websearch', 'web_search', 'search', 'grep', 'glob', 'codesearch', 'code_search', 'search_files', 'find_files', 'list_files', 'ls',
])

/** Whether a tool named `name` returns data (see `ScanOptions.output`); unnamed tools do not. */
export function isDataTool(name: string | undefined): boolean {
  return name !== undefined && DATA_TOOLS.has(name.toLowerCase())
}

/**
 * Scans `[start, end)` of `text` line by line and appends merged spans (absolute offsets), in order, to `into`
 * (a new list unless given), which it returns. A line with the units of an earlier line of the range is skipped: its
 * spans would repeat texts found already, and callers keep the first span of each text.
 *
 * Error hints, error phrases and constraint cues are located by one automaton pass over the part (`findPhrases`), so
 * the per-line work for prose is a character loop that computes each word's class flags ({@link readLineWords}); only
 * words that are not plain prose are sliced and classified (see ARCHITECTURE.md, "How `full` reads a part"). The
 * steps of a line are {@link PartScan}'s methods. A failing tool result that names no error keeps its message: its
 * first line, or a JSON result's message string (a result of search matches, `path:line:` lines, is output, not an
 * error).
 *
 * Every extractor reads its line only, but one: in tool output and pasted text, an error's detail line — the line after
 * an error line when indented further (`ValueError: bad config` then `  expected int, got str`), or the line after
 * `Exit code N` (the command's first output) — is an error whole. So a line after an error line is never skipped, and
 * a skipped line passes on the error status of the line it repeats.
 */
export function scanText(text: string, start: number, end: number, options: ScanOptions): SpanList {
  const into = options.into ?? new SpanList()
  const base = into.length
  const region = start === 0 && end === text.length ? text : text.slice(start, end)
  // Terminal escape sequences (colours, cursor moves, hyperlinks) are not what the program said: the part is read as
  // printed, so coloured output yields the items plain output does, and each span is mapped back to the units it
  // covers (whose text, as items take it, is the printed text again: see `withoutEscapes`).
  const escape = region.indexOf('\x1b')
  const printed = escape === -1 ? undefined : printedUnits(region, escape)
  const scan = new PartScan(printed ? printed.text : region, printed ? 0 : start, options.mode, options.caches, into, options.mode === 'tool' && options.output === 'data' && options.isError !== true)
  scan.scanLines()
  if (options.mode === 'tool' && options.isError === true) scan.keepFailingMessage(base)
  if (printed) {
    const { origins } = printed
    for (let index = base; index < into.length; index++) {
      into.starts[index] = start + origins[into.starts[index]!]!
      into.ends[index] = start + origins[into.ends[index]! - 1]! + 1
    }
    into.escaped = true
  }
  return into
}

/**
 * The words of one line (see {@link readLineWords}), in buffers reused from line to line: `count` says how many
 * entries the line holds.
 */
class LineWords {
  count = 0
  readonly starts: number[] = []
  readonly ends: number[] = []
  /** Each word's class flags (see `wordFlags`). */
  readonly flags: number[] = []
  /** Indices of the words some pattern could match (the rest are prose, integers or capitals), `candidateCount` of them. */
  readonly candidates: number[] = []
  candidateCount = 0
  /** Offsets of the line's quote characters, `quoteCount` of them (noted only when the scan finds quoted strings). */
  readonly quotes: number[] = []
  quoteCount = 0
  /** The union of the words' flags. */
  lineFlags = 0
  /** The union of every word's raw flags, trimmed punctuation and blobs included (whether the line holds a quote character). */
  lineRaw = 0
  /** Whether a word holds a lint code's head (`E501`): then every word of the line is a possible error anchor. */
  lint = false
  /** Whether a word starts with `-` (a flag, perhaps with a value after it). */
  dash = false
  /** Whether a word is 7 to 12 digits (perhaps a short commit hash: see `digitHashes`). */
  digits = false
}

/** Unit classes of lower-case letters. */
const PROSE_UNITS = LOWER | NON_HEX_LETTER

/**
 * readLineWords(region from `index`) = the end of the line (its `\n`, or the region's end), having filled `words` with
 * the line's words (trimmed of wrapping punctuation), their flags, candidates and quote offsets: one pass, one table
 * lookup per unit (no separate search for `\n`). `tool`: only words that may be a URL, UUID or hash are candidates;
 * `quoting`: quote characters are noted.
 */
function readLineWords(region: string, index: number, words: LineWords, tool: boolean, quoting: boolean): number {
  // Local bindings: this is the hottest loop of the estimator.
  const units = UNIT_CLASS
  const { starts, ends, flags, candidates, quotes } = words
  const length = region.length
  let count = 0
  let candidateCount = 0
  let lineFlags = 0
  let lineRaw = 0
  let quoteCount = 0
  let lint = false
  let dash = false
  let digits = false
  let unitClass = 0
  for (;;) {
    for (; index < length; index++) {
      unitClass = units[region.charCodeAt(index)]!
      if ((unitClass & SPACE) === 0 || unitClass & NEWLINE) break
    }
    if (index === length || unitClass & NEWLINE) break
    const wordStart = index
    // The first unit is classified apart, so that a leading capital needs no count: UPPER_INNER in `raw` means a later one.
    const firstClass = unitClass
    let raw = 0
    for (index++; index < length; index++) {
      const charClass = units[region.charCodeAt(index)]!
      if (charClass & SPACE) break
      raw |= charClass
    }
    const all = firstClass | raw
    lineRaw |= all
    // Most words are lower-case letters, perhaps after a capital: nothing below applies to them but being kept.
    if ((raw & ~PROSE_UNITS) === 0 && (firstClass & ~(PROSE_UNITS | UPPER_INNER)) === 0) {
      starts[count] = wordStart
      ends[count] = index
      const prose = firstClass & UPPER_INNER ? (firstClass & ~UPPER_INNER) | UPPER_FIRST | raw : all
      flags[count++] = prose
      lineFlags |= prose
      continue
    }
    // Quote pairing walks the line's quote characters only: the few words holding one are scanned again for them.
    if (all & (QUOTE | RIGHT_QUOTE) && quoting) quoteCount = quotePositions(region, wordStart, index, quotes, quoteCount)
    if (!lint && (all & (UPPER_INNER | DIGIT)) === (UPPER_INNER | DIGIT)) lint = holdsLintHint(region, wordStart, index)
    if (firstClass & HYPHEN) dash = true
    let left = wordStart
    let right = index
    if (all & (LEADING_TRIM | TRAILING_TRIM)) {
      while (left < right && units[region.charCodeAt(left)]! & LEADING_TRIM) left++
      // A Markdown link or image (`[docs](https://…)`, `![x](a.png)`): the word is its target, and what its text
      // ends with before it is a word of its own (`[Fast-dLLM arXiv:2505.22618](https://…)`).
      if ((all & (PAREN | OTHER)) === (PAREN | OTHER)) {
        const target = linkTarget(region, left, right)
        if (target - 2 - left >= 2) {
          const textFlags = wordFlags(region, left, target - 2)
          starts[count] = left
          ends[count] = target - 2
          flags[count] = textFlags
          lineFlags |= textFlags
          if (!isUnclassifiable(textFlags, region.charCodeAt(left)) && (!tool || mayBeToolIdentifier(textFlags, target - 2 - left))) candidates[candidateCount++] = count
          count++
        }
        left = target
      }
      let trail = right
      let closer = false
      for (; trail > left; trail--) {
        const code = region.charCodeAt(trail - 1)
        if ((units[code]! & TRAILING_TRIM) === 0) break
        if (code === 41) closer = true
      }
      // A call keeps its closing parenthesis (`main()`).
      right = closer ? trimmedEnd(region, left, trail, right) : trail
      if (right <= left) continue
    }
    let wordFlagsValue: number
    if (left !== wordStart || right !== index) wordFlagsValue = wordFlags(region, left, right)
    else wordFlagsValue = (firstClass & UPPER_INNER ? (firstClass & ~UPPER_INNER) | UPPER_FIRST | raw : all) & WORD_FLAGS
    starts[count] = left
    ends[count] = right
    flags[count] = wordFlagsValue
    lineFlags |= wordFlagsValue
    if (mayBeDigitHash(wordFlagsValue, right - left)) digits = true
    // One-unit words never classify.
    if (right - left >= 2 && !isUnclassifiable(wordFlagsValue, region.charCodeAt(left)) && (!tool || mayBeToolIdentifier(wordFlagsValue, right - left))) candidates[candidateCount++] = count
    count++
  }
  words.count = count
  words.candidateCount = candidateCount
  words.lineFlags = lineFlags
  words.lineRaw = lineRaw
  words.quoteCount = quoteCount
  words.lint = lint
  words.dash = dash
  words.digits = digits
  return index
}

/**
 * advancePast(offsets, from, limit) = the first index at or after `from` whose offset is not below `limit` (a cursor
 * over a list of phrase offsets, in order, moved to the next line).
 */
function advancePast(offsets: readonly number[], from: number, limit: number): number {
  while (from < offsets.length && offsets[from]! < limit) from++
  return from
}

/**
 * The scan of one part: its phrase offsets and the cursors over them, the error status passed from line to line, and
 * the line's words and spans. Each method is one step of a line, in the order {@link PartScan.scanLine} runs them.
 */
class PartScan {
  /** The part, alone (offsets below are into it; spans are shifted by `offset` when flushed). */
  private readonly region: string
  private readonly offset: number
  private readonly into: SpanList
  private readonly tool: boolean
  /** Whether quoted strings are found (and the quote characters of a line noted). */
  private readonly quoting: boolean
  /** In an edit's payload, a name of code without a value (`config.max_new_tokens`) is in the file the edit names. */
  private readonly codePayload: boolean
  private readonly source: ErrorSource
  /** Whether the part's lines may state constraints (user, system and earlier summaries' text). */
  private readonly directives: boolean
  /** Whether the part is data a tool returned (see `ScanOptions.output`): only its first line with words may be an error. */
  private readonly data: boolean
  /** Who wrote the part's quoted strings (a line of harness markup may say otherwise: see `lineQuoteSource`). */
  private readonly quoteSource: QuoteSource
  /** Prose states errors in sentences and bullets: an indented line after one is the next bullet, not its detail. */
  private readonly details: boolean
  private readonly wordKinds: WordKinds
  private readonly generation: number
  /** Lines met before in this part are skipped: they add no span of a new text (see RepeatedLines). */
  private readonly repeated: RepeatedLines
  private repeatTo = 0
  // Phrase offsets, each list in order, with a cursor each: a line's hits are found by cursors over increasing lines
  // (errorOffsets[errorFrom, errorTo) for hints).
  private readonly errorOffsets: readonly number[]
  private readonly phraseOffsets: readonly number[]
  private readonly cueOffsets: readonly number[]
  /** Offsets of example cues (`such as`, `e.g.`); a line holding one drops its examples' spans. */
  private readonly exampleCues: readonly number[]
  private errorTo = 0
  private phraseTo = 0
  private cueTo = 0
  private exampleTo = 0
  private readonly words = new LineWords()
  private readonly spans = new LineSpans()
  /** The line's words holding an error hint (objects reused from line to line: errorSpan reads them during the call only). */
  private readonly hintWords: Array<{ start: number; end: number; text: string }> = []
  /** First and last word of each numeric phrase of the line (and, for flag phrases, whether the value is a number). */
  private readonly phrases: number[] = []
  /** The error status of the line before (see NO_ERROR). */
  private previous = NO_ERROR
  /** Starts of the lines with an error of their own, in order, and their statuses (arrays, not a map: fewer allocations). */
  private readonly errorStarts: number[] = []
  private readonly errorStatuses: number[] = []
  /** Starts of the lines read as an error's detail line, in order: their repeats are read again (see scanLines). */
  private readonly detailStarts: number[] = []
  private sawError = false
  /** The first line with words: its first word's start and last word's end (-1 until found), and its first unit. */
  private firstLineFrom = -1
  private firstLineTo = -1
  private firstLineStart = 0
  /** Whether the part is data whose first line is a numbered line of source (a file view: see `isSourceLine`). */
  private numberedView = false
  /** Where the line before the current one starts (-1 on the first line). */
  private previousLineStart = -1
  /** The last line that listed a commit by digits alone at its head, and that hash's length. */
  private hashLine = -1
  private hashLength = 0

  /** `region`: the part's text; `offset`: where it starts in the text its spans are offsets into. */
  constructor(region: string, offset: number, mode: ScanMode, caches: ScanCaches, into: SpanList, data: boolean) {
    this.region = region
    this.data = data
    this.directives = mode === 'instruction' || mode === 'summary'
    this.offset = offset
    this.into = into
    this.tool = mode === 'tool'
    this.quoting = !this.tool && mode !== 'code'
    this.codePayload = mode === 'code'
    this.source = this.tool ? 'tool' : mode === 'instruction' ? 'pasted' : 'prose'
    this.details = this.source !== 'prose'
    this.repeated = new RepeatedLines(caches.lines)
    const hits = findPhrases(region, mode === 'instruction' || mode === 'summary', this.repeated)
    this.errorOffsets = hits.hints
    this.phraseOffsets = hits.errors
    this.cueOffsets = hits.cues
    this.exampleCues = this.tool || mode === 'code' ? NO_OFFSETS : hits.examples
    this.wordKinds = caches.words
    this.generation = caches.words.nextGeneration()
    this.spans.quoteText = region
    this.quoteSource = mode === 'instruction' || mode === 'summary' ? mode : 'assistant'
  }

  /** Scans every line of the part in order, skipping repeated lines that follow no error. */
  scanLines(): void {
    const { region, repeated, words } = this
    const length = region.length
    let lineStart = 0
    let index = 0
    for (;;) {
      if (this.repeatTo < repeated.count && repeated.starts[this.repeatTo] === lineStart) {
        const original = repeated.originals[this.repeatTo]!
        const repeatEnd = repeated.ends[this.repeatTo++]!
        // A line after an error line may be its detail: scanned, as its first occurrence may not have followed one.
        // A repeat of a line that was a detail is scanned too: there the line was the error whole, here it is read
        // for its own items (`raise ValueError("bad shape")` then stands alone).
        // A line that may list a commit by digits alone is read too: whether it does depends on its neighbours.
        if (this.previous === NO_ERROR && !includesSorted(this.detailStarts, original) && !mayListCommit(region, lineStart, repeatEnd)) {
          this.previous = this.errorStarts.length > 0 ? statusOf(this.errorStarts, this.errorStatuses, original) : NO_ERROR
          index = repeatEnd
          if (index === length) break
          this.previousLineStart = lineStart
          lineStart = ++index
          continue
        }
      }
      index = readLineWords(region, index, words, this.tool, this.quoting)
      let lineEnd = index
      if (lineEnd > lineStart && region.charCodeAt(lineEnd - 1) === 13) lineEnd--
      this.previous = words.count > 0 ? this.scanLine(lineStart, lineEnd) : NO_ERROR
      if (index === length) break
      this.previousLineStart = lineStart
      lineStart = ++index
    }
  }

  /** scanLine([lineStart, lineEnd), its words read) = the line's error status, having appended its merged spans. */
  private scanLine(lineStart: number, lineEnd: number): number {
    const { words, spans } = this
    if (this.firstLineFrom === -1) this.noteFirstLine(lineStart, lineEnd)
    const afterError = this.sawError
    const status = this.errorLine(lineStart, lineEnd)
    if (status === NO_ERROR && this.previous !== NO_ERROR) this.detailLine(lineStart, lineEnd)
    if (afterError && this.tool && spans.count === 0 && words.count <= 2 && words.lineFlags & COLON) this.errorLocation()
    if (this.quoting && words.lineRaw & QUOTE) {
      spans.quoteSource = lineQuoteSource(this.region, lineStart, lineEnd, this.quoteSource)
      forEachQuoted(this.region, lineStart, lineEnd, words.quotes, words.quoteCount, spans.pushQuoted)
    }
    // The line's error and quoted strings are spans[0, containers); its constraint sentences, pushed last, are found
    // now, as a word inside any of them (inside and shorter, for a sentence, which comes later among equals) cannot
    // change what the line's spans merge into, so it is not classified.
    const containers = spans.count
    const constraints = this.constraintSentences(lineStart, lineEnd, containers)
    if (words.candidateCount > 0) this.classifyCandidates(containers, constraints)
    if (this.tool && words.lineFlags & (SLASH | BACKSLASH)) this.pointedPaths()
    if (!this.tool && words.lineFlags & DIGIT) this.numericPhrases()
    if (!this.tool && words.dash) this.flagPhrases()
    if (this.source === 'pasted' && words.lineFlags & UNDERSCORE && words.lineRaw & COLON) this.keyValuePhrases()
    if (words.digits) this.digitHashes(lineStart, lineEnd)
    for (const constraint of constraints) spans.push(CONSTRAINT, constraint.start, constraint.end)
    this.dropExamples(lineStart, lineEnd)
    if (spans.count > 0) spans.flush(this.into, this.offset)
    return status
  }

  /** Notes the part's first line with words (for {@link PartScan.keepFailingMessage}), and whether it opens a numbered view. */
  private noteFirstLine(lineStart: number, lineEnd: number): void {
    const { words, region } = this
    this.numberedView = this.data && isSourceLine(region, lineStart, lineEnd)
    this.firstLineFrom = words.starts[0]!
    this.firstLineTo = words.ends[words.count - 1]!
    // Where the line's first unit stands, before any trimmed punctuation (a JSON result's `{`).
    let first = lineStart
    while (UNIT_CLASS[region.charCodeAt(first)]! & SPACE) first++
    this.firstLineStart = first
  }

  /**
   * errorLine([lineStart, lineEnd)) = the line's error status, having pushed its error span if it has one: the error
   * anchor is looked for among the words holding an error hint (all words when one holds a lint code), with whether an
   * error phrase starts a word of the line.
   */
  private errorLine(lineStart: number, lineEnd: number): number {
    const { words, region, errorOffsets, hintWords } = this
    // Past its first line, data is content (a file's lines name errors, they do not report them); but a line that is
    // not a numbered line after a numbered view (`Error: ENOENT …` after `  60  …`) is the tool's own output again.
    if (this.data && this.firstLineStart < lineStart && !(this.numberedView && !isSourceLine(region, lineStart, lineEnd))) return NO_ERROR
    this.errorTo = advancePast(errorOffsets, this.errorTo, lineStart)
    const errorFrom = this.errorTo
    this.errorTo = advancePast(errorOffsets, this.errorTo, lineEnd)
    const errorTo = this.errorTo
    // A search match (`25:    Raises RuntimeError if not found.`) is an error by the word right after its prefix
    // alone, so every word is looked at, as for lint codes, not only those holding a hint.
    const lint = words.lint || (errorTo > errorFrom && this.tool && searchMatchPrefix(region, lineStart, lineEnd) !== -1)
    // jest's failed test (`● suite › test`) holds no hint: its bullet is its anchor.
    if (errorTo === errorFrom && !lint && !(this.details && testFailureBullet(region, lineStart, lineEnd) !== -1)) return NO_ERROR
    const { starts, ends, count } = words
    // Every error anchor word contains a hint, so only the words holding hints need a look (all of them for lint codes).
    let hinted = 0
    for (let word = 0, hit = errorFrom; word < count; word++) {
      while (hit < errorTo && errorOffsets[hit]! < starts[word]!) hit++
      const holdsHint = hit < errorTo && errorOffsets[hit]! < ends[word]!
      if (lint || holdsHint) {
        const reused = hintWords[hinted] ?? (hintWords[hinted] = { start: 0, end: 0, text: '' })
        reused.start = starts[word]!
        reused.end = ends[word]!
        reused.text = region.slice(starts[word], ends[word])
        hinted++
      }
    }
    hintWords.length = hinted
    const phraseOffsets = this.phraseOffsets
    this.phraseTo = advancePast(phraseOffsets, this.phraseTo, lineStart)
    // An error phrase counts where it starts a word (`killed`, not `skilled`).
    let holdsPhrase = false
    for (let at = this.phraseTo; at < phraseOffsets.length && phraseOffsets[at]! < lineEnd && !holdsPhrase; at++) holdsPhrase = !isAsciiLetter(region.charCodeAt(phraseOffsets[at]! - 1))
    // Whether the line's words are all ASCII (what error phrases need to know).
    const lineAscii = (words.lineRaw & NON_ASCII) === 0
    const error = errorSpan(region, lineStart, lineEnd, hintWords, this.source, lineAscii, holdsPhrase)
    if (!error) return NO_ERROR
    this.spans.push(ERROR, error.start, error.end)
    this.sawError = true
    if (!this.details) return NO_ERROR
    const status = isExitCode(region, error.start, error.end) ? EXIT_LINE : ERROR_LINE + 4 * Math.max(0, indentation(region, lineStart, lineEnd))
    this.errorStarts.push(lineStart)
    this.errorStatuses.push(status)
    return status
  }

  /** Pushes the line as an error whole when it is the detail line of the error line before it (see {@link detailSpan}). */
  private detailLine(lineStart: number, lineEnd: number): void {
    const region = this.region
    const detail = detailSpan(region, lineStart, lineEnd, this.previous)
    if (detail === -1) return
    let detailEnd = lineEnd
    while (UNIT_CLASS[region.charCodeAt(detailEnd - 1)]! & SPACE) detailEnd--
    this.spans.push(ERROR, detail, capSpan(region, detail, detailEnd, MAX_ERROR_LENGTH))
    this.sawError = true
    this.detailStarts.push(lineStart)
  }

  /**
   * constraintSentences([lineStart, lineEnd)) = the line's sentences whose clause holds a cue as its directive (see
   * `constraintSpans`), but those inside the line's error (the first of its `containers` spans, when an error): a
   * sentence of a pasted error (`error: the following arguments are required`) is the error, not a directive.
   */
  private constraintSentences(lineStart: number, lineEnd: number, containers: number): readonly RawSpan[] {
    const cueOffsets = this.cueOffsets
    this.cueTo = advancePast(cueOffsets, this.cueTo, lineStart)
    const cueFrom = this.cueTo
    this.cueTo = advancePast(cueOffsets, this.cueTo, lineEnd)
    // A list item opening with an imperative directs without a cue (see `bulletDirectiveStart`).
    if (this.cueTo === cueFrom && !(this.directives && bulletDirectiveStart(this.region, firstUnit(this.region, lineStart, lineEnd), lineEnd) !== -1)) return NO_SPANS
    const constraints = constraintSpans(this.region, lineStart, lineEnd, { offsets: cueOffsets, from: cueFrom, to: this.cueTo })
    const spans = this.spans
    if (constraints.length === 0 || containers === 0 || spans.kindAt(0) !== ERROR) return constraints
    return constraints.filter((sentence) => sentence.end <= spans.startAt(0) || sentence.start >= spans.endAt(0))
  }

  /**
   * Classifies the line's candidate words (through the estimator's {@link WordKinds}) and pushes those that are state,
   * a version with the product it versions; a word inside the line's error, a quoted string (`containers` spans) or a
   * longer constraint sentence is skipped, as it cannot change the merge.
   */
  private classifyCandidates(containers: number, constraints: readonly RawSpan[]): void {
    const { words, spans, region, tool } = this
    const { starts, ends, flags, candidates, candidateCount } = words
    const hasError = containers > 0 && spans.kindAt(0) === ERROR
    let container = hasError ? 1 : 0
    let sentence = 0
    for (let candidate = 0; candidate < candidateCount; candidate++) {
      const word = candidates[candidate]!
      const wordStart = starts[word]!
      const wordEnd = ends[word]!
      // Words come in order, and spans[0, containers) are the error span, then quoted strings in order.
      if (containers > 0) {
        if (hasError && spans.startAt(0) <= wordStart && wordEnd <= spans.endAt(0)) continue
        while (container < containers && spans.endAt(container) <= wordStart) container++
        if (container < containers && spans.startAt(container) <= wordStart && wordEnd <= spans.endAt(container)) continue
      }
      if (constraints.length > 0) {
        while (sentence < constraints.length && constraints[sentence]!.end <= wordStart) sentence++
        const within = constraints[sentence]
        if (within && within.start <= wordStart && wordEnd <= within.end && within.end - within.start > wordEnd - wordStart) continue
      }
      const classified = this.wordKinds.kindOf(region, wordStart, wordEnd, flags[word]!, this.generation)
      const code = classified & KIND_MASK
      if (classified < 0 || (tool && (TOOL_RESULT_CODES & (1 << code)) === 0)) {
        // In tool output, the UUIDs a longer word holds (a session's or a run's id inside a path) are its ids.
        if (tool && wordEnd - wordStart > 36 && (flags[word]! & (HYPHEN | DIGIT)) === (HYPHEN | DIGIT)) {
          const found = uuidsIn(region, wordStart, wordEnd, this.phrases)
          for (let at = 0; at < found; at++) spans.push(UUID, this.phrases[2 * at]!, this.phrases[2 * at + 1]!)
        }
        continue
      }
      // A version keeps the product it versions (`OpenWrt 23.05-SNAPSHOT`, `node 20.11.1`, `Python 3.11`).
      const product = word > 0 && (code === VERSION || (code === NUMBER && (flags[word]! & ~(LOWER | NON_HEX_LETTER | OTHER)) === (DIGIT | DOT))) ? productBefore(region, starts, ends, flags, word, code === VERSION) : -1
      if (product !== -1) spans.push(VERSION, product, wordEnd)
      // A chat tool's command opening the user's line (aider's `/ask`, `/model …`) talks to the tool, and so does one
      // the tool names after `use` (aider's `You can use /undo to undo …`): no path.
      else if (code === PATH && ((word === 0 && this.source === 'pasted') || (word > 0 && followsUse(region, starts[word - 1]!, ends[word - 1]!))) && isChatCommand(region, wordStart, wordEnd)) continue
      // A closing tag (`</task-notification>`) is markup, not a rooted path.
      else if ((classified & NOT_ALONE) === 0 && !(code === PATH && wordStart > 0 && region.charCodeAt(wordStart - 1) === 60) && !(code === IDENTIFIER && this.codePayload && (flags[word]! & VALUE_UNITS) === 0)) {
        const end = code === URL_KIND ? urlEnd(region, wordStart, wordEnd) : wordEnd
        if (end !== -1) spans.push(code, wordStart, end)
      }
    }
  }

  /**
   * Pushes the source location a line of tool output after an error gives alone (vitest's ` ❯ test/upload.test.ts:42:28`,
   * after a mark with no letter or digit): where the failure is, a path with its line and column, as pytest's
   * `FAILED path::test` line keeps its path.
   */
  private errorLocation(): void {
    const { words, region } = this
    const last = words.count - 1
    if (last === 1 && words.flags[0]! & LETTERS_OR_DIGITS) return
    // A linter's `--> path:l:c` under each finding (ruff) is where a listing points, given again by running it; a
    // compiler's (cargo) is its error's detail already.
    if (last === 1 && region.startsWith('-->', words.starts[0]!)) return
    const start = words.starts[last]!
    const end = words.ends[last]!
    const pathEnd = locationPathEnd(region, start, end)
    if (pathEnd === -1) return
    const classified = this.wordKinds.kindOf(region, start, pathEnd, wordFlags(region, start, pathEnd), this.generation)
    if (classified >= 0 && (classified & KIND_MASK) === PATH) this.spans.push(PATH, start, end)
  }

  /**
   * Pushes the paths tool output tells the agent to read next (`Full output saved to: /tmp/…/toolu_01….txt`, see
   * `pointsToPath`): not output the call gives again, but where the rest of it is.
   */
  private pointedPaths(): void {
    const { words, region, spans } = this
    const { starts, ends, flags, count } = words
    for (let word = 1; word < count; word++) {
      if ((flags[word]! & (SLASH | BACKSLASH)) === 0 || !pointsToPath(region, starts, ends, word)) continue
      const classified = this.wordKinds.kindOf(region, starts[word]!, ends[word]!, flags[word]!, this.generation)
      if (classified >= 0 && (classified & KIND_MASK) === PATH && (classified & NOT_ALONE) === 0) spans.push(PATH, starts[word]!, ends[word]!)
    }
  }

  /** Pushes the line's numeric phrases (a number with its unit, comparator or key: `timeout = 30 s`, `>= 3`). */
  private numericPhrases(): void {
    const { words, phrases } = this
    const found = numericPhrases(this.region, words.starts, words.ends, words.flags, words.count, phrases)
    for (let phrase = 0; phrase < found; phrase++) {
      let start = words.starts[phrases[2 * phrase]!]!
      // A quoted key (`"total_frames": 22`) keeps its opening quote with its closing one; a key whose closing quote
      // has no opener before it is a fragment of a string cut elsewhere.
      const quote = this.region.charCodeAt(words.ends[phrases[2 * phrase]!]!)
      if (phrases[2 * phrase]! !== phrases[2 * phrase + 1]! && (quote === 34 || quote === 39)) {
        if (this.region.charCodeAt(start - 1) !== quote) continue
        start--
      }
      this.spans.push(NUMBER, start, words.ends[phrases[2 * phrase + 1]!]!)
    }
  }

  /** Pushes the line's flag phrases (`--max_steps 3000` a number, `--model gpt-4o` an identifier). */
  private flagPhrases(): void {
    const { words, phrases } = this
    const found = flagPhrases(this.region, words.starts, words.ends, words.flags, words.count, phrases)
    for (let phrase = 0; phrase < found; phrase++) this.spans.push(phrases[3 * phrase + 2] ? NUMBER : IDENTIFIER, words.starts[phrases[3 * phrase]!]!, words.ends[phrases[3 * phrase + 1]!]!)
  }

  /** Pushes the line's settings with a word value (`residual_scan: clean`) as identifiers, in a user's words. */
  private keyValuePhrases(): void {
    const { words, phrases } = this
    const found = keyValuePhrases(this.region, words.starts, words.ends, words.flags, words.count, phrases)
    for (let phrase = 0; phrase < found; phrase++) this.spans.push(IDENTIFIER, words.starts[phrases[2 * phrase]!]!, words.ends[phrases[2 * phrase + 1]!]!)
  }

  /**
   * Pushes the line's short commit hashes of digits only: where git's words around them say so (see `digitHashes`), or
   * at the head of a line listing commits (`git log --oneline`: `4219184 fix typo`) next to a line that lists one of the
   * same length, with a letter (`9fceb02 add retries`) or by the same rule.
   */
  private digitHashes(lineStart: number, lineEnd: number): void {
    const { words, region, phrases, spans } = this
    const { starts, ends } = words
    const head = lineHead(region, lineStart, lineEnd)
    const found = digitHashes(region, starts, ends, words.flags, words.count, lineStart, lineEnd, phrases)
    let listed = false
    for (let at = 0; at < found; at++) {
      const word = phrases[at]!
      spans.push(HASH, starts[word]!, ends[word]!)
      if (starts[word] === head) listed = true
    }
    const length = head === -1 ? 0 : hexWordAt(region, head, lineEnd)
    // Digits only (no letter flag), and a subject after the hash.
    if (length === 0 || length >= 16 || head + length + 1 >= lineEnd || UNIT_CLASS[region.charCodeAt(head + length + 1)]! & SPACE) return
    if (!listed) {
      const previous = this.previousLineStart
      let next = lineEnd
      if (region.charCodeAt(next) === 13) next++
      next++
      const neighbour = (start: number) => {
        const at = lineHead(region, start, region.length)
        return at !== -1 && hexWordAt(region, at, region.length) === length + 16
      }
      listed = (previous !== -1 && ((this.hashLine === previous && this.hashLength === length) || neighbour(previous))) || (next < region.length && neighbour(next))
      if (listed) spans.push(HASH, head, head + length)
    }
    if (listed) {
      this.hashLine = lineStart
      this.hashLength = length
    }
  }

  /** Drops the line's spans that stand in an example clause, when an example cue is on the line (see `LineSpans.dropExamples`). */
  private dropExamples(lineStart: number, lineEnd: number): void {
    const exampleCues = this.exampleCues
    if (this.exampleTo >= exampleCues.length) return
    this.exampleTo = advancePast(exampleCues, this.exampleTo, lineStart)
    if (this.spans.count > 0 && this.exampleTo < exampleCues.length && exampleCues[this.exampleTo]! < lineEnd) this.spans.dropExamples(this.region, lineStart, lineEnd)
  }

  /**
   * A failing tool result that named no error keeps its message: its first line (capped), or a JSON result's message
   * string; a result of search matches (`path:line:` lines) is output, not an error. The spans from `base` on are
   * merged again with it, as it may overlap the first line's identifiers.
   */
  keepFailingMessage(base: number): void {
    const { region, into, offset } = this
    if (this.sawError || this.firstLineFrom === -1 || searchMatchPrefix(region, this.firstLineFrom, this.firstLineTo) !== -1) return
    if (isBinary(region, this.firstLineFrom, this.firstLineTo)) return
    const found = into.toArray(base)
    const opening = region.charCodeAt(this.firstLineStart)
    const json = opening === 123 || opening === 91 ? jsonMessage(region, this.firstLineStart, region.length) : undefined
    const message = json ?? { kind: 'error', start: this.firstLineFrom, end: capSpan(region, this.firstLineFrom, this.firstLineTo, MAX_ERROR_LENGTH) }
    found.push({ kind: 'error', start: message.start + offset, end: message.end + offset })
    into.length = base
    for (const span of mergeSpans(found)) into.push(kindCode(span.kind), span.start, span.end)
  }
}

/** The first unit of `[start, end)` that is not a space or a tab (`end` if none). */
function firstUnit(text: string, start: number, end: number): number {
  while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++
  return start
}

/** Whether the line `[lineStart, lineEnd)` starts (past graph art) with a word of 7 to 12 digits and a space. */
function mayListCommit(text: string, lineStart: number, lineEnd: number): boolean {
  const head = lineHead(text, lineStart, lineEnd)
  if (head === -1) return false
  const length = hexWordAt(text, head, lineEnd)
  return length > 0 && length < 16
}

/** The status of the line starting at `start` among `starts` (in order) with `statuses`, or NO_ERROR: a binary search. */
function statusOf(starts: readonly number[], statuses: readonly number[], start: number): number {
  let low = 0
  let high = starts.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (starts[middle]! < start) low = middle + 1
    else high = middle
  }
  return starts[low] === start ? statuses[low]! : NO_ERROR
}

/** Where the target of a Markdown link in the word `[start, end)` starts (after its first `](`), else `start`. */
function linkTarget(text: string, start: number, end: number): number {
  for (let index = start; index + 1 < end; index++) if (text.charCodeAt(index) === 93 && text.charCodeAt(index + 1) === 40) return index + 2
  return start
}

/** Whether the increasing `values` hold `value` (a binary search). */
function includesSorted(values: readonly number[], value: number): boolean {
  let low = 0
  let high = values.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (values[middle]! < value) low = middle + 1
    else high = middle
  }
  return values[low] === value
}

/** Whether `[start, end)` is `Exit code N`. */
function isExitCode(text: string, start: number, end: number): boolean {
  if (end - start < 11 || !text.startsWith('Exit code ', start)) return false
  for (let index = start + 10; index < end; index++) if (!isDigit(text.charCodeAt(index))) return false
  return true
}

/**
 * How far the line `[lineStart, lineEnd)` is indented, in spaces and tabs; -1 if other whitespace leads it (a carriage
 * return: a progress bar's redraw), or nothing follows.
 */
function indentation(text: string, lineStart: number, lineEnd: number): number {
  let index = lineStart
  while (index < lineEnd && (text.charCodeAt(index) === 32 || text.charCodeAt(index) === 9)) index++
  return index < lineEnd && (UNIT_CLASS[text.charCodeAt(index)]! & SPACE) === 0 ? index - lineStart : -1
}

/**
 * Where the detail span of the line `[lineStart, lineEnd)` starts (its first unit after the indentation), or -1, after a
 * line of status `previous`: never a numbered line of source (see `isSourceLine`); after `Exit code N` any line but a
 * traceback's header or a banner (`=== test session starts ===`), after an error line one indented further than it
 * (trailing whitespace is left to the caller's trim).
 */
function detailSpan(text: string, lineStart: number, lineEnd: number, previous: number): number {
  const indent = indentation(text, lineStart, lineEnd)
  if (indent === -1) return -1
  // A numbered line of source (a view's `   1  export …`, a code frame's `  40|  …`) is the file's content the run
  // printed, never the error's message going on.
  if (isSourceLine(text, lineStart, lineEnd)) return -1
  const first = lineStart + indent
  if (previous === EXIT_LINE) {
    if (text.startsWith('Traceback (most recent call last)', first)) return -1
    // A log record or a warning is what the run printed on its way, not what failed.
    if (isLogOrWarning(text, first, lineEnd)) return -1
    // A version banner opens a usage text (`BusyBox v1.36.1 (…) multi-call binary.`), which says what the program does.
    if (isVersionBanner(text, first, lineEnd)) return -1
    const code = text.charCodeAt(first)
    if (first + 2 < lineEnd && !isAsciiWordUnit(code) && text.charCodeAt(first + 1) === code && text.charCodeAt(first + 2) === code) return -1
    return first
  }
  return indent > previous >> 2 ? first : -1
}

const isAsciiWordUnit = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)

const isAsciiLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)

/** Log levels that mark a line as a log record, not a failure's message. */
const LOG_RECORD = /\b(?:DEBUG|INFO|WARN|WARNING)\b/

/** Whether the line `[start, end)` is a log record (`2026-03-08 21:06 | INFO | …`) or a warning (`Warning: …`). */
function isLogOrWarning(text: string, start: number, end: number): boolean {
  if (end - start >= 7 && (text.charCodeAt(start) | 32) === 119 && text.slice(start, start + 7).toLowerCase() === 'warning') return true
  return LOG_RECORD.test(text.slice(start, Math.min(end, start + 200)))
}

const NO_OFFSETS: readonly number[] = []

/** A cue that what follows is an example ({@link EXAMPLE_PHRASES}, any case, at a word start, then a space, `,` or `:`). */
const EXAMPLE_CUE = new RegExp(`\\b(?:${EXAMPLE_PHRASES.map((phrase) => phrase.replaceAll('.', '\\.')).join('|')})[\\s,:]`, 'gi')
/** Where an example's clause ends: a sentence's end, `;`, `)`, or a comma before a plain word (`, and you`, `, open files`). */
const CLAUSE_END = /[.!?](?:\s|$)|[;)]|,\s+[a-z']+(?=\s)/g

/**
 * exampleClauses(text, [lineStart, lineEnd)) = the line's example clauses as flat [start, end) pairs (offsets in
 * `text`), or undefined when it has none: each from an example cue to the end of its clause. Both patterns are
 * alternations of literals and single character classes: linear in the line.
 */
export function exampleClauses(text: string, lineStart: number, lineEnd: number): number[] | undefined {
  const line = text.slice(lineStart, lineEnd)
  EXAMPLE_CUE.lastIndex = 0
  let cue = EXAMPLE_CUE.exec(line)
  if (cue === null) return undefined
  const clauses: number[] = []
  while (cue !== null) {
    const from = cue.index + cue[0].length
    CLAUSE_END.lastIndex = from
    const end = CLAUSE_END.exec(line)
    const to = end === null ? line.length : end.index
    clauses.push(lineStart + cue.index, lineStart + to)
    EXAMPLE_CUE.lastIndex = Math.max(to, from)
    cue = EXAMPLE_CUE.exec(line)
  }
  return clauses
}

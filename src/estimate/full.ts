import type { FloorEstimate, FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Role } from '../spec/transcript.js'
import { renderMessage } from '../transcript/render.js'
import { entryKind, gistSpeakerEnd, gistSpeakerOf, parseStateBlock } from '../state-block/index.js'
import { argumentItems } from './extractors/arguments.js'
import { sameUnits, withoutEscapes } from './extractors/_scan.js'
import { interfaceNames } from './extractors/interface.js'
import { isDataTool, ScanCaches, SPAN_KINDS, scanText, SpanList, type ScanMode } from './extractors/scan-text.js'
import { trailerStart } from './extractors/_summary-framing.js'
import { SpanSet } from './_span-set.js'
import { segmentItems } from './segment-items.js'

/** Options of {@link createFullEstimator}. */
export interface FullEstimatorOptions {
  /** Prices each item. */
  readonly tokenizer: TokenizerV1
  /**
   * Coherence margin as a share of the irreducible tokens, rounded up.
   * @default 0.2
   */
  readonly marginRatio?: number
  /**
   * Tool-call string arguments longer than this (or with more than {@link FullEstimatorOptions.maxArgumentLines}
   * lines) are payloads, represented by their target path rather than priced whole; a command this long keeps the
   * lines that carry state (see `commandRanges`).
   * @default 1000
   */
  readonly maxArgumentLength?: number
  /** @default 20 */
  readonly maxArgumentLines?: number
}


/** Messages with at most this many spans compare them pairwise instead of building a {@link SpanSet}. */
const FEW_SPANS = 16
/** A span list larger than this (in spans) is not kept for the next message. */
const KEPT_SPANS = 1 << 16

/** Whether the `index`-th span of `spans` has the text of an earlier one. */
function repeatsEarlierSpan(text: string, spans: SpanList, index: number): boolean {
  const start = spans.starts[index]!
  const length = spans.ends[index]! - start
  for (let earlier = 0; earlier < index; earlier++) {
    const from = spans.starts[earlier]!
    if (spans.ends[earlier]! - from === length && sameUnits(text, from, start, length)) return true
  }
  return false
}

/**
 * Drops, in place, the path items of a message that are a bare file name (`cached_sampler.py`) when another item of
 * the message holds that name as its last segment (`src/samplers/cached_sampler.py`): the same file, stated whole.
 */
function dropNamedFiles(items: FloorItem[]): void {
  let names: Set<string> | undefined
  for (const item of items) if (item.kind === 'path' && !item.text.includes('/') && !item.text.includes('\\')) (names ??= new Set()).add(item.text)
  if (names === undefined) return
  const lengths = new Set<number>()
  for (const name of names) lengths.add(name.length)
  // The names stated whole: a segment after a `/` of a path, a quoted string (`` `src/a.py` ``) or a tool call's
  // argument, read up to the first unit a file name does not hold. Linear in those items' text, and a segment is
  // sliced only when some name has its length.
  const stated = new Set<string>()
  for (const item of items) {
    if (item.kind !== 'path' && item.kind !== 'quoted' && item.kind !== 'tool-argument') continue
    const { text } = item
    for (let slash = text.indexOf('/'); slash !== -1; slash = text.indexOf('/', slash + 1)) {
      let end = slash + 1
      while (end < text.length && isNameUnit(text.charCodeAt(end))) end++
      if (lengths.has(end - slash - 1)) {
        const segment = text.slice(slash + 1, end)
        if (names.has(segment)) stated.add(segment)
      }
    }
  }
  if (stated.size === 0) return
  let kept = 0
  for (const item of items) if (!(item.kind === 'path' && stated.has(item.text))) items[kept++] = item
  items.length = kept
}

/** An error's lead word alone (`FAILED`, `ERROR`, `fatal`): the words an error line is anchored on without a colon. */
const BARE_LEAD = /^(?:error|fatal|panic|fail|failed|failure|err!?|exception)$/i

/**
 * Drops, in place, the error items of a message that are a lead word alone (`FAILED`, from Gradle's `> Task :bootRun
 * FAILED`) when another error item of the message holds that word (`BUILD FAILED in 34s`): the fuller line says it.
 * The lead words are a closed list, so this is linear in the error items' text.
 */
function dropBareErrors(items: FloorItem[]): void {
  let bare: Set<string> | undefined
  for (const item of items) if (item.kind === 'error' && item.text.length <= 9 && BARE_LEAD.test(item.text)) (bare ??= new Set()).add(item.text)
  if (bare === undefined) return
  const stated = new Set<string>()
  for (const item of items) {
    if (item.kind !== 'error') continue
    for (const word of bare) if (item.text !== word && item.text.includes(word)) stated.add(word)
  }
  if (stated.size === 0) return
  let kept = 0
  for (const item of items) if (!(item.kind === 'error' && stated.has(item.text))) items[kept++] = item
  items.length = kept
}

/** Units of a file name: letters, digits, `_`, `.`, `-`, `@`, `+`. */
const isNameUnit = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 46 || code === 45 || code === 64 || code === 43

/** The span kind code of a file view's names. */
const IDENTIFIER = SPAN_KINDS.indexOf('identifier')

/** viewNames(tool output) = whether it appended spans to `spans`: the names a file view's interface holds (`interfaceNames`). */
function viewNames(text: string, start: number, end: number, spans: SpanList): boolean {
  const names: number[] = []
  interfaceNames(text, start, end, { source: 'view' }, names)
  for (let index = 0; index < names.length; index += 2) spans.push(IDENTIFIER, names[index]!, names[index + 1]!)
  return names.length > 0
}

function modeOf(role: Role): ScanMode {
  if (role === 'assistant') return 'assistant'
  if (role === 'tool') return 'tool'
  return 'instruction'
}

/**
 * Creates the `full` estimator: irreducible items priced with a real tokenizer.
 *
 * Per part: user, system and earlier-summary text yields constraint sentences, quoted strings and regexes, error
 * lines, version pins, paths, URLs, env assignments, constants, hashes, UUIDs, identifiers and numbers with units or
 * comparators; assistant text the same without constraint sentences (the user states constraints); tool results
 * their error lines and the URLs, hashes and UUIDs they mention (a failing result with no named error keeps its first
 * line); tool calls their short scalar arguments whole (payloads are represented by their target path); reasoning
 * nothing. Overlapping spans are merged, and each distinct text is counted once per segment.
 */
export function createFullEstimator(options: FullEstimatorOptions): FloorEstimatorV1 {
  const { tokenizer } = options
  const marginRatio = options.marginRatio ?? 0.2
  const maxLength = options.maxArgumentLength ?? 1000
  const maxLines = options.maxArgumentLines ?? 20
  // A message's items, with the index they were extracted for: callers (the planner, check) ask for a message at
  // the same index each time, and get the items without a copy per item.
  const cache = new WeakMap<Message, { readonly index: number; readonly items: readonly FloorItem[] }>()
  // The span list of the last message, kept for the next one unless it grew large: a transcript has tens of thousands
  // of messages, and a list is three typed arrays.
  let spare: SpanList | undefined
  // The scanner's caches, this estimator's own: another estimator's scans never evict or reset them.
  const caches = new ScanCaches()

  function extractUncached(message: Message, messageIndex: number): FloorItem[] {
    const rendered = renderMessage(message)
    const items: FloorItem[] = []
    // Items are distinct by text: each argument text once, and spans with a text an argument has are dropped.
    const argumentTexts = new Set<string>()
    let unordered = false
    // Agent text holds about one span per 40 units.
    const spans = spare ?? new SpanList(Math.min(rendered.text.length / 32, 1 << 20))
    spare = undefined
    for (const span of rendered.spans) {
      const part = message.parts[span.part]!
      if (part.type === 'reasoning') continue
      if (part.type === 'tool-call') {
        for (const argument of argumentItems(part, span.start, { maxLength, maxLines, caches })) {
          if (argumentTexts.has(argument.text)) continue
          argumentTexts.add(argument.text)
          items.push({ kind: argument.kind ?? 'tool-argument', text: argument.text, tokens: tokenizer.count(argument.text), message: messageIndex, start: argument.start, end: argument.end })
        }
        continue
      }
      const mode = part.type === 'tool-result' ? 'tool' : part.type === 'summary' ? 'summary' : modeOf(message.role)
      // An earlier summary's state block is carried forward entry by entry, verbatim; only the text around it is scanned.
      const block = part.type !== 'tool-result' && part.text.includes('<floorguard-state v=') ? parseStateBlock(part.text) : undefined
      if (block) {
        for (const entry of block.entries) {
          if (entry.text === '' || argumentTexts.has(entry.text)) continue
          argumentTexts.add(entry.text)
          const start = span.start + entry.start
          items.push({ kind: entryKind(entry), text: entry.text, tokens: tokenizer.count(entry.text), message: messageIndex, start, end: start + entry.text.length })
        }
        if (block.start > 0) scanGist(rendered.text, span.start, span.start + block.start, mode, spans)
        if (span.start + block.end < span.end) scanGist(rendered.text, span.start + block.end, span.end, mode, spans)
        continue
      }
      if (mode === 'summary') {
        // The compactor's closing instructions to the model that resumes are its own, not the user's constraints.
        const trailer = trailerStart(rendered.text, span.start, span.end)
        scanText(rendered.text, span.start, trailer, { mode, caches, into: spans })
        if (trailer < span.end) scanText(rendered.text, trailer, span.end, { mode: 'assistant', caches, into: spans })
        continue
      }
      // A read's, fetch's or search's result is data (a page or a file quoting errors): only its first line may be one.
      const output = part.type === 'tool-result' && isDataTool(part.name) ? 'data' : 'log'
      scanText(rendered.text, span.start, span.end, { mode, caches, isError: part.type === 'tool-result' && part.isError, output, into: spans })
      // A file view in tool output (a numbered Read, `cat`): the names its top level defines and the env names it reads.
      if (part.type === 'tool-result' && viewNames(rendered.text, span.start, span.end, spans)) unordered = true
    }
    // Repeats inside one message add nothing to any segment's floor: keep the first occurrence of each text. Spans
    // are deduplicated in place, so only distinct texts are sliced. Most messages have a few spans: those are compared
    // with each other, without a set.
    const { text } = rendered
    if (spans.escaped) {
      // A part held terminal escape sequences: an item's text is its span as printed, which spans of different units
      // (coloured and plain) may share.
      const printed = new Set<string>()
      for (let index = 0; index < spans.length; index++) {
        const span = withoutEscapes(text, spans.starts[index]!, spans.ends[index]!)
        if (!printed.has(span)) {
          printed.add(span)
          pushSpan(items, text, spans, index, argumentTexts, messageIndex, span)
        }
      }
    } else if (spans.length <= FEW_SPANS) {
      for (let index = 0; index < spans.length; index++) if (!repeatsEarlierSpan(text, spans, index)) pushSpan(items, text, spans, index, argumentTexts, messageIndex)
    } else {
      const distinct = new SpanSet(text, spans.length)
      for (let index = 0; index < spans.length; index++) if (distinct.add(spans.starts[index]!, spans.ends[index]!)) pushSpan(items, text, spans, index, argumentTexts, messageIndex)
    }
    spans.length = 0
    spans.escaped = false
    if (spans.kinds.length <= KEPT_SPANS) spare = spans
    dropNamedFiles(items)
    dropBareErrors(items)
    // Spans come in order; argument items, pushed first, and a view's names, pushed after its part's spans, need a sort.
    if (argumentTexts.size > 0 || unordered) items.sort((a, b) => a.start - b.start)
    return items
  }

  /**
   * Scans the text around an earlier floorguard summary's state block: its gist, whose lines start with who said them
   * (`user: Never modify the schema.`). The speaker is framing, not part of what was said: each such line is scanned
   * from after it, so the constraint is the sentence itself (the block's entry, once) and not a second item that
   * grows a `user: ` with every re-compaction.
   */
  function scanGist(text: string, from: number, to: number, mode: ScanMode, spans: SpanList): void {
    let start = from
    for (let line = from; line < to; ) {
      let next = text.indexOf('\n', line)
      if (next === -1 || next >= to) next = to
      const speaker = gistSpeakerEnd(text, line, next)
      if (speaker > line) {
        if (line > start) scanText(text, start, line, { mode, caches, into: spans })
        // What a tool printed or the assistant said is read as such again, not as the user's words: a tool line's
        // bullet is no constraint, its backticked names no quoted items.
        const quoted = gistSpeakerOf(text.slice(line, next))?.speaker
        const lineMode = quoted === 'tool' ? 'tool' : quoted === 'assistant' ? 'assistant' : mode
        if (lineMode !== mode) {
          scanText(text, speaker, next, { mode: lineMode, caches, into: spans })
          start = next
        } else start = speaker
      }
      line = next + 1
    }
    if (start < to) scanText(text, start, to, { mode, caches, into: spans })
  }

  /** Appends the `index`-th span of `spans` as an item (its text `printed` when given), unless an argument item has its text. */
  function pushSpan(items: FloorItem[], text: string, spans: SpanList, index: number, argumentTexts: ReadonlySet<string>, messageIndex: number, printed?: string): void {
    const start = spans.starts[index]!
    const end = spans.ends[index]!
    const span = printed ?? text.slice(start, end)
    if (argumentTexts.size > 0 && argumentTexts.has(span)) return
    items.push({ kind: spans.kindOf(index), text: span, tokens: tokenizer.count(span), message: messageIndex, start, end })
  }

  function extract(message: Message, index: number): FloorItem[] {
    const cached = cache.get(message)
    if (cached) return cached.index === index ? cached.items.slice() : cached.items.map((item) => ({ ...item, message: index }))
    const items = extractUncached(message, index)
    cache.set(message, { index, items })
    return items.slice()
  }

  return {
    specificationVersion: 'v1',
    name: 'full',
    tokenizer: tokenizer.name,
    marginRatio,
    extract,
    estimate(messages, offset = 0): FloorEstimate {
      // A message's items are distinct by text already (see extractUncached).
      const items = segmentItems(messages, offset, extract, true)
      let irreducible = 0
      // An index loop: this runs once per estimate, unoptimized, where an array iterator allocates per item.
      for (let index = 0; index < items.length; index++) irreducible += items[index]!.tokens
      const margin = Math.ceil(irreducible * marginRatio)
      return { estimator: 'full', tokenizer: tokenizer.name, irreducible, margin, total: irreducible + margin, items }
    },
  }
}

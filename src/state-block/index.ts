/**
 * The state block: the verbatim part of a summary, in one format that every writer (the ledger, a model asked to
 * copy it, a repair) and every reader (verification, re-compaction, the hooks) shares.
 *
 * ```
 * <floorguard-state v="2">
 * ## constraints
 * - [user #3] Validate every upload path against ^[a-z0-9/_-]+$
 * ## decisions and pins
 * - [superseded; pin:fsspec; user #8] fsspec==2024.6.1
 * - [current; pin:fsspec; user #12] fsspec>=2023.1,<2024.3
 * ## errors
 * - [tool #14; Bash: pytest -x] OSError: [Errno 28] No space left on device
 * -3 [call #20; Bash] ssh host << 'EOF'
 * python train.py --max_steps 3000
 * EOF
 * * src/a.ts src/b.ts
 * </floorguard-state>
 * ```
 *
 * A line is one item: `-` (or `-N` for an item of N lines, kept verbatim), a bracketed context, a space, the item's
 * exact text. The context's first field is the item's status when it has one (`current`, `superseded`), else where
 * it came from; so a status is never read out of an item's own text (transcript text that begins `(superseded) `
 * cannot forge one). In the tightest layout, short current items share `* a b c` lines and other current items
 * stand bare on their line. Version 1 blocks (`(superseded) TEXT` lines, one heading per kind) are still read.
 */
import type { FloorItem, ItemKind } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'
import { clipWords, describeOrigins, groupHeads, leavesLinesOut, lineCount, type ItemOrigin } from './context.js'

export { describeOrigins, groupHeads, type ItemOrigin } from './context.js'

/** Format version written by {@link renderStateBlock}. */
export const STATE_BLOCK_VERSION = 2
/** First line of a state block. */
export const STATE_BLOCK_OPEN = '<floorguard-state v="2">'
/** First line of a version 1 block (read, never written). */
export const STATE_BLOCK_OPEN_V1 = '<floorguard-state v="1">'
/** Last line of a state block. */
export const STATE_BLOCK_CLOSE = '</floorguard-state>'
/** Prefix of a stale item in a version 1 block. */
export const SUPERSEDED_MARK_V1 = '(superseded) '

/** An item as the block needs it: its text and kind, its status, and the key of its decision chain. */
export interface StateItem {
  readonly kind: ItemKind | string
  readonly text: string
  readonly status: 'current' | 'superseded'
  /** What the item is a value of (a package for a pin), when known. */
  readonly key?: string
}

/** Sections of a block, in the order a model needs them. */
export const STATE_SECTIONS = ['constraints', 'decisions and pins', 'errors', 'tool calls', 'literals', 'paths and urls', 'identifiers and values'] as const

/** One of {@link STATE_SECTIONS}. */
export type StateSection = (typeof STATE_SECTIONS)[number]

/**
 * Section of an item: constraints; decisions and pins (versions, and every value of a decision chain); errors; tool
 * calls (tool-call arguments); literals (quoted strings, regexes); paths and URLs; identifiers and values.
 */
export function sectionOf(item: Pick<StateItem, 'kind' | 'key'>): StateSection {
  switch (item.kind) {
    case 'constraint':
      return 'constraints'
    case 'error':
      return 'errors'
    case 'version':
      return 'decisions and pins'
    case 'tool-argument':
      return item.key ? 'decisions and pins' : 'tool calls'
    case 'regex':
    case 'quoted':
      return item.key ? 'decisions and pins' : 'literals'
    case 'path':
    case 'url':
      return 'paths and urls'
    default:
      return item.key ? 'decisions and pins' : 'identifiers and values'
  }
}

/**
 * How much context each line carries: `full` (speaker, message, tool and command), `short` (speaker), `grouped`
 * (minimal lines, but the items of one message that come together under a `### #N who tool: command` heading, so forty
 * settings read as the values of one written file), `minimal` (only stale items marked; short current items packed),
 * `flat` (minimal under one `## state` heading: the tightest layout). Every layout names on its opening line what the
 * summary replaced when that is given: a reader (`audit`) places the block by it (the ledger leaves it out only when
 * nothing else lets the flat block fit).
 */
export type StateDetail = 'full' | 'short' | 'grouped' | 'minimal' | 'flat'

/** The layouts in the order a summarizer tries them: context (who said it) is dropped before any item is. */
export const STATE_DETAILS: readonly StateDetail[] = ['full', 'short', 'grouped', 'minimal', 'flat']

/** Items of one origin that come together get a heading in the `grouped` layout when there are at least this many. */
const GROUP_MIN = 2

/** Heading of the `flat` layout's single section. */
export const FLAT_SECTION = 'state'

const isTerse = (detail: StateDetail): boolean => detail === 'grouped' || detail === 'minimal' || detail === 'flat'

/** Options of {@link renderStateBlock}. */
export interface RenderStateBlockOptions {
  /** The items, distinct texts, in order of first appearance. */
  readonly items: readonly StateItem[]
  /**
   * The segment the items come from, to name who said or produced each (items must then be {@link FloorItem}s).
   * @default undefined (no origins)
   */
  readonly messages?: readonly Message[]
  /**
   * Transcript index of `messages[0]`.
   * @default 0
   */
  readonly offset?: number
  /**
   * Context per line.
   * @default 'full'
   */
  readonly detail?: StateDetail
  /**
   * What the summary replaced, written on the opening line (`range="12-40" tokens="5310"`), so a reader knows how much
   * was compacted even when the summary is small.
   * @default undefined (a bare opening line)
   */
  readonly replaced?: { readonly start: number; readonly end: number; readonly tokens: number }
}

/** The opening line, with what the block's summary replaced when known. */
export function stateBlockOpening(replaced?: RenderStateBlockOptions['replaced']): string {
  return replaced ? `<floorguard-state v="2" range="${replaced.start}-${replaced.end}" tokens="${replaced.tokens}">` : STATE_BLOCK_OPEN
}

/** First characters that would make a bare line read as markup. */
const RESERVED_FIRST = new Set(['#', '-', '*', '<', '[', ' ', '\t'])
/** Packed lines are wrapped at about this many UTF-16 units. */
const PACKED_WIDTH = 100


function hasWhitespace(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code <= 32 || code === 0x85 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000) return true
  }
  return false
}

/** Whether an item can stand alone on a line with no prefix (one line, no markup look-alike, not ending in `\r`). */
function isBare(text: string): boolean {
  return text.length > 0 && !RESERVED_FIRST.has(text[0]!) && !text.includes('\n') && !text.endsWith('\r') && text !== STATE_BLOCK_CLOSE
}

/**
 * A context field: no brackets, separators or line breaks, one line, at most `width` units (see `clipWords`). A
 * decision's key is never cut: it names its chain, and two keys cut alike would read as one chain.
 */
function field(text: string, width = Number.POSITIVE_INFINITY): string {
  let clean = ''
  for (const char of text) {
    if (char === '[' || char === ']') clean += char === '[' ? '(' : ')'
    else if (char === ';') clean += ','
    else if (char === '\n' || char === '\r' || char === '\t') clean += ' '
    else clean += char
  }
  clean = clean.trim()
  return clipWords(clean, width)
}

/** The context fields of one line. */
function contextOf(item: StateItem, origin: ItemOrigin | undefined, detail: StateDetail): string[] {
  const fields: string[] = []
  const chained = item.key !== undefined
  if (isTerse(detail)) return item.status === 'superseded' ? [item.status] : fields
  if (chained || item.status === 'superseded') fields.push(item.status)
  if (chained) fields.push(field(item.key!))
  if (origin) {
    fields.push(detail === 'full' ? `${origin.speaker} #${origin.message}` : origin.speaker)
    if (detail === 'full' && origin.tool) fields.push(field(origin.command ? `${origin.tool}: ${origin.command}` : origin.tool, 64))
  }
  return fields
}

/** Renders one item line: `-N? [context] TEXT`, or (minimal, current) the bare text. */
export function renderStateLine(item: StateItem, origin?: ItemOrigin, detail: StateDetail = 'full'): string {
  const fields = contextOf(item, origin, detail)
  const lines = lineCount(item.text)
  if (fields.length === 0 && isTerse(detail) && lines === 1 && isBare(item.text)) return item.text
  return `${lines === 1 ? '-' : `-${lines}`} [${fields.join('; ')}] ${item.text}`
}

/** Items in block order: by section, decision chains together (by key, in order), unresolved errors before fixed ones. */
export function orderStateItems<T extends StateItem>(items: readonly T[]): Array<{ section: StateSection; items: T[] }> {
  const bySection = new Map<StateSection, T[]>()
  for (const item of items) {
    const section = sectionOf(item)
    const list = bySection.get(section)
    if (list) list.push(item)
    else bySection.set(section, [item])
  }
  const ordered: Array<{ section: StateSection; items: T[] }> = []
  for (const section of STATE_SECTIONS) {
    const list = bySection.get(section)
    if (!list) continue
    if (section === 'decisions and pins') {
      // A chain's values together, in the order the chain's first value appeared; unkeyed pins after the chains.
      const chains = new Map<string, T[]>()
      const loose: T[] = []
      for (const item of list) {
        if (item.key === undefined) loose.push(item)
        else {
          const chain = chains.get(item.key)
          if (chain) chain.push(item)
          else chains.set(item.key, [item])
        }
      }
      ordered.push({ section, items: [...[...chains.values()].flat(), ...loose] })
    } else if (section === 'errors') {
      ordered.push({ section, items: [...list.filter((item) => item.status === 'current'), ...list.filter((item) => item.status !== 'current')] })
    } else ordered.push({ section, items: list })
  }
  return ordered
}

/**
 * Renders the state block: `<floorguard-state v="2">`, one `## section` heading per non-empty section, one line per
 * item (see the module comment), `</floorguard-state>`. Every item's text appears in it verbatim.
 */
export function renderStateBlock(options: RenderStateBlockOptions): string {
  const detail = options.detail ?? 'full'
  const origins = options.messages && !isTerse(detail) ? describeOrigins(options.items as unknown as readonly FloorItem[], options.messages, options.offset ?? 0) : undefined
  const heads = options.messages && detail === 'grouped' ? groupHeads(options.items as unknown as readonly FloorItem[], options.messages, options.offset ?? 0) : undefined
  const lines = [stateBlockOpening(options.replaced)]
  const sections = orderStateItems(options.items)
  for (const { section, items } of detail === 'flat' ? [{ section: FLAT_SECTION, items: sections.flatMap((group) => group.items) }] : sections) {
    lines.push(`## ${section}`)
    // Runs of consecutive items with one heading (one run per section when there are no headings). A run gets its
    // heading when it holds several items, when the run before it had one (else it would read as part of that one),
    // or when its command's heading says that lines were left out.
    let headed = false
    for (let from = 0; from < items.length; ) {
      const head = heads?.get(items[from] as unknown as FloorItem)
      let to = from + 1
      while (to < items.length && head !== undefined && heads!.get(items[to] as unknown as FloorItem) === head) to++
      if (heads === undefined) to = items.length
      headed = head !== undefined && (to - from >= GROUP_MIN || headed || leavesLinesOut(head))
      if (headed) lines.push(`### ${field(head!, 120)}`)
      renderRun(items.slice(from, to), detail, origins, lines)
      from = to
    }
  }
  lines.push(STATE_BLOCK_CLOSE)
  return lines.join('\n')
}

/** Appends the lines of a run of items: (terse layouts) current short items packed on `* a b c` lines first, then the others. */
function renderRun(items: readonly StateItem[], detail: StateDetail, origins: Map<FloorItem, ItemOrigin> | undefined, lines: string[]): void {
  let packed = ''
  const rest: string[] = []
  for (const item of items) {
    const packable = isTerse(detail) && item.status === 'current' && isBare(item.text) && !hasWhitespace(item.text)
    if (!packable) {
      rest.push(renderStateLine(item, origins?.get(item as unknown as FloorItem), detail))
      continue
    }
    if (packed !== '' && packed.length + 1 + item.text.length > PACKED_WIDTH) {
      lines.push(packed)
      packed = ''
    }
    packed = packed === '' ? `* ${item.text}` : `${packed} ${item.text}`
  }
  if (packed !== '') lines.push(packed)
  lines.push(...rest)
}

/** One item read back out of a block. */
export interface StateBlockEntry {
  /** The heading it stood under (a section, or a kind in a version 1 block). */
  readonly section: string
  readonly text: string
  readonly status: 'current' | 'superseded'
  /** The bracketed context, without brackets (empty for bare and packed items). */
  readonly context: string
  /** Offset of the item's text in the summary (`summary.slice(start, start + text.length) === text`). */
  readonly start: number
}

/** Where a state block sits in a summary and what it holds. */
export interface ParsedStateBlock {
  readonly version: 1 | 2
  /** Offset of the opening line. */
  readonly start: number
  /** Offset just past the closing line (before its line break). */
  readonly end: number
  /** Offset of the closing line. */
  readonly closeStart: number
  readonly entries: readonly StateBlockEntry[]
}

/** What a floorguard state block's opening line says it replaced (`range="a-b" tokens="n"`), null when it names none. */
export interface StateBlockReplaced {
  /** `[a, b)`: message indices of the transcript the block was written into. */
  readonly range: readonly [number, number] | null
  /** Tokens of those messages. */
  readonly tokens: number | null
}

/** Longest opening line looked at (the real one is under 80 characters). */
const OPENING_LIMIT = 200

function attribute(line: string, name: string): string | undefined {
  const marker = ` ${name}="`
  const at = line.indexOf(marker)
  if (at === -1) return undefined
  const end = line.indexOf('"', at + marker.length)
  return end === -1 ? undefined : line.slice(at + marker.length, end)
}

const DIGITS = /^\d{1,15}$/

/**
 * openingStateBlock(text) = when `text` (leading whitespace aside) opens with a floorguard state block, what its opening
 * line says it replaced (`range="a-b"` and `tokens="n"`, each null when absent or malformed); else undefined.
 */
export function openingStateBlock(text: string): StateBlockReplaced | undefined {
  const start = text.length - text.trimStart().length
  if (!text.startsWith('<floorguard-state v="', start)) return undefined
  const newline = text.indexOf('\n', start)
  const line = text.slice(start, Math.min(newline === -1 ? text.length : newline, start + OPENING_LIMIT))
  const range = attribute(line, 'range')
  const dash = range?.indexOf('-') ?? -1
  const from = dash > 0 ? range!.slice(0, dash) : ''
  const to = dash > 0 ? range!.slice(dash + 1) : ''
  const tokens = attribute(line, 'tokens')
  return {
    range: DIGITS.test(from) && DIGITS.test(to) && Number(from) < Number(to) ? [Number(from), Number(to)] : null,
    tokens: tokens !== undefined && DIGITS.test(tokens) ? Number(tokens) : null,
  }
}

/** Whether `line` opens a block: exactly the version 1 or 2 opening, or version 2 with attributes (`range="…"`). */
function openingVersion(line: string): 1 | 2 | undefined {
  if (line === STATE_BLOCK_OPEN) return 2
  if (line === STATE_BLOCK_OPEN_V1) return 1
  return line.startsWith('<floorguard-state v="2" ') && line.endsWith('>') && !line.includes('\n') ? 2 : undefined
}

/** Offset, length and version of the first opening line (at the start of the summary or of a line). */
function findOpening(summary: string): { at: number; length: number; version: 1 | 2 } | undefined {
  for (let at = summary.indexOf('<floorguard-state v="'); at !== -1; at = summary.indexOf('<floorguard-state v="', at + 1)) {
    if (at > 0 && summary.charCodeAt(at - 1) !== 10) continue
    const newline = summary.indexOf('\n', at)
    if (newline === -1) return undefined
    const version = openingVersion(summary.slice(at, newline))
    if (version) return { at, length: newline - at, version }
  }
  return undefined
}

/** `-N ` or `- ` at the start of a line: the item's line count, or undefined when the line has no such prefix. */
function itemPrefix(line: string): { lines: number; length: number } | undefined {
  if (line.charCodeAt(0) !== 45) return undefined
  let index = 1
  while (index < line.length && line.charCodeAt(index) >= 48 && line.charCodeAt(index) <= 57) index++
  if (line.charCodeAt(index) !== 32) return undefined
  const lines = index === 1 ? 1 : Number(line.slice(1, index))
  return { lines, length: index + 1 }
}

/**
 * Parses the first state block of a summary (version 2, or 1), or returns undefined when there is none or it is
 * malformed (unterminated, an item before any heading, a bad line count or context). Linear in the summary length.
 */
export function parseStateBlock(summary: string): ParsedStateBlock | undefined {
  const opening = findOpening(summary)
  if (!opening) return undefined
  const { version } = opening
  let cursor = opening.at + opening.length + 1
  let section: string | undefined
  const entries: StateBlockEntry[] = []
  const readLine = (): string | undefined => {
    if (cursor > summary.length) return undefined
    const newline = summary.indexOf('\n', cursor)
    const line = summary.slice(cursor, newline === -1 ? summary.length : newline)
    cursor = newline === -1 ? summary.length + 1 : newline + 1
    return line
  }
  for (;;) {
    const lineStart = cursor
    const line = readLine()
    if (line === undefined) return undefined
    if (line === STATE_BLOCK_CLOSE) return { version, start: opening.at, end: lineStart + line.length, closeStart: lineStart, entries }
    if (line === '') continue
    // A group's heading (the `grouped` layout) says where the items under it came from; it is not an item.
    if (line.startsWith('### ')) continue
    if (line.startsWith('## ')) {
      section = line.slice(3)
      continue
    }
    if (section === undefined) return undefined
    if (line.startsWith('* ')) {
      let at = lineStart + 2
      for (const text of line.slice(2).split(' ')) {
        if (text !== '') entries.push({ section, text, status: 'current', context: '', start: at })
        at += text.length + 1
      }
      continue
    }
    const prefix = itemPrefix(line)
    if (!prefix) {
      // A bare line: a current item (version 1: `(superseded) TEXT` marks a stale one).
      const stale = version === 1 && line.startsWith(SUPERSEDED_MARK_V1)
      entries.push({ section, text: stale ? line.slice(SUPERSEDED_MARK_V1.length) : line, status: stale ? 'superseded' : 'current', context: '', start: lineStart + (stale ? SUPERSEDED_MARK_V1.length : 0) })
      continue
    }
    if (!(prefix.lines >= 1)) return undefined
    let rest = line.slice(prefix.length)
    let context = ''
    let status: 'current' | 'superseded' = 'current'
    if (version === 2) {
      if (!rest.startsWith('[')) return undefined
      const close = rest.indexOf('] ')
      if (close === -1 || rest.lastIndexOf('[', close) !== 0) return undefined
      context = rest.slice(1, close)
      rest = rest.slice(close + 2)
      const first = context.split(';', 1)[0]!.trim()
      if (first === 'superseded') status = 'superseded'
    } else if (rest.startsWith(SUPERSEDED_MARK_V1)) {
      status = 'superseded'
      rest = rest.slice(SUPERSEDED_MARK_V1.length)
    }
    const textStart = lineStart + line.length - rest.length
    let text = rest
    for (let extra = 1; extra < prefix.lines; extra++) {
      const next = readLine()
      if (next === undefined) return undefined
      text += `\n${next}`
    }
    entries.push({ section, text, status, context, start: textStart })
  }
}

/** The item kind an entry of each section is read back as (a version 1 block's headings are kinds already). */
const SECTION_KINDS: Readonly<Record<StateSection, ItemKind>> = {
  constraints: 'constraint',
  'decisions and pins': 'version',
  errors: 'error',
  'tool calls': 'tool-argument',
  literals: 'quoted',
  'paths and urls': 'path',
  'identifiers and values': 'identifier',
}

/** Kind of an entry read back from a block: by its section (version 2) or its heading (version 1). */
export function entryKind(entry: Pick<StateBlockEntry, 'section'>): ItemKind {
  return (SECTION_KINDS as Record<string, ItemKind>)[entry.section] ?? (entry.section as ItemKind)
}

/** The key of an entry's decision chain, from its context (`current; pin:fsspec; …` → `pin:fsspec`), when it has one. */
export function entryKey(entry: Pick<StateBlockEntry, 'context'>): string | undefined {
  const fields = entry.context.split(';').map((value) => value.trim())
  return (fields[0] === 'current' || fields[0] === 'superseded') && fields.length > 1 && !/^(?:user|system|assistant|call|tool|summary)(?: #\d+)?$/.test(fields[1]!) ? fields[1] : undefined
}

/**
 * Inserts items into a summary's state block, each under its section (a version 1 block is rewritten as version 2);
 * when the summary has no block, a new block is put at its start. Text outside the block is untouched.
 */
export function insertIntoStateBlock(summary: string, items: readonly StateItem[]): string {
  if (items.length === 0) return summary
  const block = parseStateBlock(summary)
  if (!block) {
    const rendered = renderStateBlock({ items, detail: 'minimal' })
    return summary.length === 0 ? rendered : `${rendered}\n\n${summary}`
  }
  // Each section's existing lines are kept as written (version 2) and the new items appended under it.
  const sections = new Map<string, string[]>()
  const add = (section: string, line: string): void => {
    const list = sections.get(section)
    if (list) list.push(line)
    else sections.set(section, [line])
  }
  if (block.version === 2) {
    let current: string | undefined
    for (const line of summary.slice(block.start, block.closeStart).split('\n').slice(1)) {
      if (line.startsWith('## ')) current = line.slice(3)
      else if (line !== '' && current !== undefined) add(current, line)
      if (current !== undefined && !sections.has(current)) sections.set(current, [])
    }
  } else {
    for (const entry of block.entries) add(entry.section, renderStateLine({ kind: entry.section, text: entry.text, status: entry.status }, undefined, 'minimal'))
  }
  for (const item of items) add(sectionOf(item), renderStateLine(item, undefined, 'minimal'))
  const opening = summary.slice(block.start, summary.indexOf('\n', block.start))
  const lines = [block.version === 2 ? opening : STATE_BLOCK_OPEN]
  for (const [section, list] of sections) if (list.length > 0) lines.push(`## ${section}`, ...list)
  lines.push(STATE_BLOCK_CLOSE)
  return summary.slice(0, block.start) + lines.join('\n') + summary.slice(block.end)
}

/**
 * Replaces a parsed state block's markup with its bare item texts (one per line), so that scanning the result for
 * identifiers and numbers does not count the block's own syntax (`v="2"`, `## errors`, contexts) as invented state.
 */
export function stripStateMarkup(summary: string): string {
  const block = parseStateBlock(summary)
  if (!block) return summary
  return summary.slice(0, block.start) + block.entries.map((entry) => entry.text).join('\n') + summary.slice(block.end)
}

/** Who a gist line quotes: each line of the ledger's gist opens with one and `: ` (`tool: 4 files changed`). */
export const GIST_SPEAKERS = ['user', 'assistant', 'system', 'tool'] as const

/** A gist line: `speaker: sentence`. */
export const gistLine = (speaker: (typeof GIST_SPEAKERS)[number], sentence: string): string => `${speaker}: ${sentence}`

/**
 * gistSpeakerEnd(text, start, end) = where the speakers that open the line `text[start, end)` end (see
 * {@link GIST_SPEAKERS}), or `start`: all of them, as a summary of a summary writes an earlier gist's line under a
 * speaker again (`user: user: Never …`).
 */
export function gistSpeakerEnd(text: string, start: number, end: number): number {
  let at = start
  for (let found = true; found; ) {
    found = false
    for (const speaker of GIST_SPEAKERS) {
      const after = at + speaker.length
      if (after + 2 <= end && text.startsWith(speaker, at) && text.charCodeAt(after) === 58 && text.charCodeAt(after + 1) === 32) {
        at = after + 2
        found = true
        break
      }
    }
  }
  return at
}

/**
 * gistSpeakerOf(line) = the speaker a gist line quotes and where its sentence starts, or undefined when the line opens
 * with none: the innermost of stacked speakers (`user: tool: 9 files` → `tool`), as a gist written before the ledger
 * kept an earlier gist's speaker put its own in front of it.
 */
export function gistSpeakerOf(line: string): { speaker: (typeof GIST_SPEAKERS)[number]; start: number } | undefined {
  const start = gistSpeakerEnd(line, 0, line.length)
  if (start === 0) return undefined
  for (const speaker of GIST_SPEAKERS) if (line.startsWith(`${speaker}: `, start - speaker.length - 2)) return { speaker, start }
  return undefined
}

/**
 * The text with each line's leading `speaker: ` (see {@link gistSpeakerEnd}) removed: the gist's framing, which read
 * with the sentence after it looks like a setting (`tool: 15`) the segment never had.
 */
export function stripGistSpeakers(text: string): string {
  return text
    .split('\n')
    .map((line) => line.slice(gistSpeakerEnd(line, 0, line.length)))
    .join('\n')
}

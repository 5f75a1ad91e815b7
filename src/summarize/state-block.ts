import type { ItemKind } from '../spec/estimator.js'
import { MUST_KEEP_KIND_ORDER, type MustKeepGroup, type MustKeepItem } from '../spec/summarizer.js'

/** First line of a state block. */
export const STATE_BLOCK_OPEN = '<floorguard-state v="1">'
/** Last line of a state block. */
export const STATE_BLOCK_CLOSE = '</floorguard-state>'
/** Prefix of a stale item's text inside its line. */
export const SUPERSEDED_MARK = '(superseded) '

/** One item line parsed back out of a state block. */
export interface StateBlockEntry {
  readonly kind: string
  readonly text: string
  readonly status: 'current' | 'superseded'
}

/** Where a state block sits in a summary and what it holds. */
export interface ParsedStateBlock {
  /** Offset of the opening line. */
  readonly start: number
  /** Offset just past the closing line (before its line break). */
  readonly end: number
  /** Offset of the closing line, where new groups are inserted. */
  readonly closeStart: number
  readonly entries: readonly StateBlockEntry[]
}

function lineCount(text: string): number {
  let count = 1
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++
  return count
}

/** First characters that mark a line as markup, so an item starting with one needs an explicit `- ` prefix. */
const RESERVED_FIRST = new Set(['#', '-', '*', '<', '(', ' ', '\t'])
/** Packed lines are wrapped at about this many UTF-16 units, for people reading the summary. */
const PACKED_WIDTH = 100

function hasWhitespace(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (/\s/.test(text[index]!)) return true
  return false
}

/** Whether an item can be written as a bare line (its own text, nothing else). */
function isBare(text: string): boolean {
  return text.length > 0 && !RESERVED_FIRST.has(text[0]!) && !text.includes('\n')
}

/** Whether an item can share a `* ` line with others: a bare current item without whitespace. */
function isPackable(item: Pick<MustKeepItem, 'text' | 'status'>): boolean {
  return item.status === 'current' && isBare(item.text) && !hasWhitespace(item.text)
}

/**
 * Renders one item on its own line(s): the text itself when unambiguous; `(superseded) TEXT` for a stale one;
 * `- TEXT` when the text starts like markup; `-N TEXT` when it spans N lines (kept verbatim, so a parser knows
 * where it ends even if a continuation line looks like markup).
 */
export function renderStateLine(item: Pick<MustKeepItem, 'text' | 'status'>): string {
  const lines = lineCount(item.text)
  if (lines === 1 && isBare(item.text)) return item.status === 'superseded' ? `${SUPERSEDED_MARK}${item.text}` : item.text
  const mark = item.status === 'superseded' ? SUPERSEDED_MARK : ''
  return `${lines === 1 ? '-' : `-${lines}`} ${mark}${item.text}`
}

/**
 * Renders the lines of one kind group: `## kind`, then short whitespace-free current items packed on `* a b c` lines
 * (one token of markup per line instead of one per item), then every other item on its own line.
 */
export function renderStateGroup(group: { readonly kind: string; readonly items: readonly Pick<MustKeepItem, 'text' | 'status'>[] }): string {
  const lines = [`## ${group.kind}`]
  let packed = ''
  for (const item of group.items) {
    if (!isPackable(item)) continue
    if (packed !== '' && packed.length + 1 + item.text.length > PACKED_WIDTH) {
      lines.push(packed)
      packed = ''
    }
    packed = packed === '' ? `* ${item.text}` : `${packed} ${item.text}`
  }
  if (packed !== '') lines.push(packed)
  for (const item of group.items) if (!isPackable(item)) lines.push(renderStateLine(item))
  return lines.join('\n')
}

/**
 * Renders the state block: `<floorguard-state v="1">`, one `## kind` heading per group with its items (packed
 * `* a b` lines, bare lines, `(superseded) …` lines, `-N …` multi-line items), then `</floorguard-state>`.
 * Every item text appears in it verbatim.
 */
export function renderStateBlock(groups: readonly MustKeepGroup[]): string {
  return [STATE_BLOCK_OPEN, ...groups.filter((group) => group.items.length > 0).map(renderStateGroup), STATE_BLOCK_CLOSE].join('\n')
}

/** Heading of the flat layout, which lists every item under one heading (saves ~4 tokens per kind). */
export const FLAT_STATE_KIND = 'state'

/**
 * Renders the flat state block: the same layout with one `## state` heading for all items (constraints and errors
 * first, as in the grouped layout), for slots too small for a heading per kind.
 */
export function renderFlatStateBlock(groups: readonly MustKeepGroup[]): string {
  const items = groups.flatMap((group) => group.items)
  return items.length === 0 ? renderStateBlock([]) : [STATE_BLOCK_OPEN, renderStateGroup({ kind: FLAT_STATE_KIND, items }), STATE_BLOCK_CLOSE].join('\n')
}

/**
 * Parses the first state block of a summary, or returns undefined when there is none or it is malformed
 * (unterminated, an item before any heading). Blank lines are skipped. Linear in the summary length.
 */
export function parseStateBlock(summary: string): ParsedStateBlock | undefined {
  const start = summary.startsWith(`${STATE_BLOCK_OPEN}\n`) ? 0 : summary.indexOf(`\n${STATE_BLOCK_OPEN}\n`)
  if (start === -1) return undefined
  const blockStart = start === 0 ? 0 : start + 1
  let cursor = blockStart + STATE_BLOCK_OPEN.length + 1
  let kind: string | undefined
  const entries: StateBlockEntry[] = []
  const readLine = (): string | undefined => {
    if (cursor > summary.length) return undefined
    const newline = summary.indexOf('\n', cursor)
    const line = summary.slice(cursor, newline === -1 ? summary.length : newline)
    cursor = newline === -1 ? summary.length + 1 : newline + 1
    return line
  }
  const push = (text: string): void => {
    const superseded = text.startsWith(SUPERSEDED_MARK)
    entries.push({ kind: kind!, text: superseded ? text.slice(SUPERSEDED_MARK.length) : text, status: superseded ? 'superseded' : 'current' })
  }
  for (;;) {
    const lineStart = cursor
    const line = readLine()
    if (line === undefined) return undefined
    if (line === STATE_BLOCK_CLOSE) {
      return { start: blockStart, end: lineStart + line.length, closeStart: lineStart, entries }
    }
    if (line === '') continue
    if (line.startsWith('## ')) {
      kind = line.slice(3)
      continue
    }
    if (kind === undefined) return undefined
    if (line.startsWith('* ')) {
      for (const text of line.slice(2).split(' ')) if (text !== '') entries.push({ kind, text, status: 'current' })
      continue
    }
    const match = /^-(\d*) /.exec(line)
    if (!match) {
      push(line)
      continue
    }
    const lines = match[1] === '' ? 1 : Number(match[1])
    if (!(lines >= 1)) return undefined
    let text = line.slice(match[0].length)
    for (let extra = 1; extra < lines; extra++) {
      const next = readLine()
      if (next === undefined) return undefined
      text += `\n${next}`
    }
    push(text)
  }
}

/**
 * Inserts items into a summary's state block: into their kind's group when it exists, else as new groups before the
 * closing line; when the summary has no block, a new block is put at its start. Returns the new summary.
 */
export function insertIntoStateBlock(summary: string, items: readonly MustKeepItem[]): string {
  if (items.length === 0) return summary
  const block = parseStateBlock(summary)
  if (!block) {
    const groups = groupByKind(items)
    return summary.length === 0 ? renderStateBlock(groups) : `${renderStateBlock(groups)}\n\n${summary}`
  }
  // Rebuilding the whole block from its parsed entries keeps each group contiguous; the text outside is untouched.
  const merged = new Map<string, Array<Pick<MustKeepItem, 'text' | 'status'>>>()
  for (const entry of block.entries) {
    const list = merged.get(entry.kind)
    if (list) list.push(entry)
    else merged.set(entry.kind, [entry])
  }
  for (const item of items) {
    const list = merged.get(item.kind)
    if (list) list.push(item)
    else merged.set(item.kind, [item])
  }
  const lines = [STATE_BLOCK_OPEN]
  for (const [kind, list] of merged) lines.push(renderStateGroup({ kind, items: list }))
  lines.push(STATE_BLOCK_CLOSE)
  return summary.slice(0, block.start) + lines.join('\n') + summary.slice(block.end)
}

function groupByKind(items: readonly MustKeepItem[]): MustKeepGroup[] {
  const byKind = new Map<ItemKind, MustKeepItem[]>()
  for (const item of items) {
    const list = byKind.get(item.kind)
    if (list) list.push(item)
    else byKind.set(item.kind, [item])
  }
  const ordered: ItemKind[] = [...MUST_KEEP_KIND_ORDER.filter((kind) => byKind.has(kind)), ...[...byKind.keys()].filter((kind) => !(MUST_KEEP_KIND_ORDER as readonly string[]).includes(kind))]
  return ordered.map((kind) => ({ kind, items: byKind.get(kind)! }))
}

/**
 * Replaces a parsed state block's markup with its bare item texts (one per line), so that scanning the result for
 * identifiers and numbers does not count the block's own syntax (`v="1"`, `## path`) as invented state.
 */
export function stripStateMarkup(summary: string): string {
  const block = parseStateBlock(summary)
  if (!block) return summary
  return summary.slice(0, block.start) + block.entries.map((entry) => entry.text).join('\n') + summary.slice(block.end)
}

/**
 * The gold extractor's scan of one text: lines first (fences, banners, errors, commands, constraint sentences), then
 * the words of each line (URLs, paths, versions, settings, ids). Items keep their start offset so that a message's
 * items can be listed in order of appearance.
 */
import type { GoldKind, GoldSource } from './index.js'
import { errorLineKind, findErrors, type Line } from './_errors.js'
import { COMMAND_WORDS, CONSTRAINT_CUES, QUESTION_CUES, SHELL_FENCES } from './_vocabulary.js'
import { findIds, findPaths, findSettings, findUrls, findUuids, findVersions, mask } from './_words.js'

/** One item found in a text, with its start offset in that text. */
export interface TextItem {
  readonly kind: GoldKind
  readonly text: string
  readonly start: number
}

/** Options of {@link scanText}. */
export interface ScanOptions {
  /** The text is a tool result flagged as an error. @default false */
  readonly flagged?: boolean
}

const FENCE = /^\s*(```+|~~~+)\s*([\w+-]*)/
const BANNER_TAGS = 'system-reminder|local-command-stdout|local-command-stderr|command-message|command-name|task-notification'
const BANNER_OPEN = new RegExp(`<(?:${BANNER_TAGS})>`)
const BANNER_CLOSE = new RegExp(`</(?:${BANNER_TAGS})>`)
const CODE_LIKE = /^\s*(?:import |from \S+ import |def |class |return\b|const |let |var |function |\/\/|#include|[}\])]|<\/?[a-zA-Z][\w-]*[ >])|[;{]\s*$/
const BULLET = /^(?:[-*+•]|\d+[.)]|>)\s+/
const INLINE_CODE = /`([^`\n]+)`/g
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const cueAlternation = (cues: readonly string[]): string =>
  cues
    .flatMap((cue) => (cue.includes("'") ? [cue, cue.replace("'", '\u2019')] : [cue]))
    .map(escapeRegExp)
    .join('|')
const CONSTRAINT_CUE = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${cueAlternation(CONSTRAINT_CUES)})(?![\\p{L}\\p{N}_])`, 'iu')
const QUESTION_CUE = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${cueAlternation(QUESTION_CUES)})(?![\\p{L}\\p{N}_])`, 'iu')
/** A sentence ends at `.`, `!`, `?` or `…` before a space, but not after an abbreviation (`e.g.`, `i.e.`, `etc.`, `vs.`). */
const SENTENCE_END = /(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx))[.!?…]+(?=\s|$)/gi

/** Splits a text into lines (`\n`, with a trailing `\r` dropped) with their start offsets. */
export function splitLines(text: string): Line[] {
  const lines: Line[] = []
  let start = 0
  for (;;) {
    const end = text.indexOf('\n', start)
    const raw = text.slice(start, end < 0 ? text.length : end)
    lines.push({ start, text: raw.endsWith('\r') ? raw.slice(0, -1) : raw })
    if (end < 0) return lines
    start = end + 1
  }
}

/** Index of the line holding offset `at` (binary search over the lines' starts). */
function lineAt(lines: readonly Line[], at: number): number {
  let low = 0
  let high = lines.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if ((lines[middle] as Line).start <= at) low = middle
    else high = middle - 1
  }
  return low
}

/** Per line: inside a fenced block (and its language), a fence delimiter, inside a banner tag. */
interface LineContext {
  readonly fence: string | undefined
  readonly delimiter: boolean
  readonly banner: boolean
}

function contextsOf(lines: readonly Line[]): LineContext[] {
  const contexts: LineContext[] = []
  let fence: string | undefined
  let banner = false
  for (const line of lines) {
    const delimiter = FENCE.exec(line.text)
    const opensBanner = BANNER_OPEN.test(line.text)
    if (delimiter) {
      contexts.push({ fence, delimiter: true, banner })
      fence = fence === undefined ? (delimiter[2] ?? '').toLowerCase() : undefined
      continue
    }
    contexts.push({ fence, delimiter: false, banner: banner || opensBanner })
    if (opensBanner) banner = true
    if (BANNER_CLOSE.test(line.text)) banner = false
  }
  return contexts
}

/** Items of one text seen as `source`, sorted by start offset (ties keep the order the finders ran in). */
export function scanText(text: string, source: GoldSource, options: ScanOptions = {}): TextItem[] {
  const items: TextItem[] = []
  const lines = splitLines(text)
  const contexts = contextsOf(lines)
  const prose = source === 'user' || source === 'assistant' || source === 'summary' || source === 'system'

  const errorLines = new Set<number>()
  if (source !== 'tool-call') {
    const mode = source === 'assistant' || source === 'summary' ? 'strict' : 'log'
    const skip = (index: number) => (contexts[index] as LineContext).delimiter || (source === 'user' && (contexts[index] as LineContext).banner)
    for (const span of findErrors(text, lines, mode, options.flagged === true, skip)) {
      items.push({ kind: 'error', ...span })
      for (let index = lineAt(lines, span.start); index < lines.length && (lines[index] as Line).start < span.start + span.text.length; index++) {
        errorLines.add(index)
      }
    }
    if (mode === 'strict') items.push(...inlineErrors(lines))
  }
  if (prose) items.push(...commandsOf(text, lines, contexts))
  if (source === 'user' || source === 'system') items.push(...constraintsOf(lines, contexts, errorLines))

  for (const line of lines) {
    if (line.text.trim() === '') continue
    const urls = findUrls(line.text)
    const withoutUrls = mask(line.text, urls)
    const paths = findPaths(withoutUrls)
    const uuids = findUuids(line.text)
    const words = [
      ...urls,
      ...paths,
      ...findVersions(withoutUrls),
      ...(source === 'tool-result' ? [] : findSettings(withoutUrls)),
      ...uuids,
      ...findIds(mask(withoutUrls, [...paths, ...uuids])),
    ]
    for (const span of words) items.push({ kind: span.kind, text: span.text, start: line.start + span.start })
  }
  return items.filter((item) => item.text.trim() !== '').sort((a, b) => a.start - b.start)
}

/** Errors quoted in inline code in the assistant's prose: `` `ModuleNotFoundError: No module named 'x'` ``. */
function inlineErrors(lines: readonly Line[]): TextItem[] {
  const items: TextItem[] = []
  for (const line of lines) {
    for (const match of line.text.matchAll(INLINE_CODE)) {
      const code = (match[1] as string).trim()
      if (code !== match[0].slice(1, -1) || errorLineKind(code, 'strict') === undefined) continue
      // The line itself may already be the error; the span is then found twice, and deduplicated by text later.
      items.push({ kind: 'error', text: code, start: line.start + match.index + 1 })
    }
  }
  return items
}

/** Whether a command is one to run, not a template (`python <script_name>.py`) or an installer without a package (`uv pip install`). */
const isConcrete = (command: string): boolean => !/<[\w-]+>/.test(command) && !/\b(?:install|add)$/.test(command)

/** Commands in prose: lines of a shell-fenced block, `$ command` lines, inline code that starts with a known program. */
function commandsOf(text: string, lines: readonly Line[], contexts: readonly LineContext[]): TextItem[] {
  const items: TextItem[] = []
  let continued = -1
  lines.forEach((line, index) => {
    const context = contexts[index] as LineContext
    const trimmed = line.text.trim()
    const lead = line.text.length - line.text.trimStart().length
    if (index <= continued || trimmed === '' || context.delimiter) return
    if (context.fence !== undefined && SHELL_FENCES.has(context.fence)) {
      if (trimmed.startsWith('#')) return
      // A command continued with a trailing backslash runs to the first line that does not end with one.
      let last = index
      while ((lines[last] as Line).text.trimEnd().endsWith('\\') && last + 1 < lines.length && !(contexts[last + 1] as LineContext).delimiter) last++
      continued = last
      const lastLine = lines[last] as Line
      const command = text.slice(line.start + lead, lastLine.start + lastLine.text.trimEnd().length).replace(/^\$\s+/, '')
      const start = lastLine.start + lastLine.text.trimEnd().length - command.length
      if (/\s/.test(command) && isConcrete(command)) items.push({ kind: 'command', text: command, start })
      return
    }
    if (context.fence === undefined && /^\$\s+\S+\s+\S/.test(trimmed)) {
      const command = trimmed.replace(/^\$\s+/, '')
      items.push({ kind: 'command', text: command, start: line.start + lead + (trimmed.length - command.length) })
      return
    }
    if (context.fence !== undefined) return
    for (const match of line.text.matchAll(INLINE_CODE)) {
      const code = match[1] as string
      const first = code.split(/\s/, 1)[0] ?? ''
      // `pip install` alone names an action; a command carries an argument (a path, flag, number, quote) or several words.
      const carries = /[^\p{L}\s-]/u.test(code.slice(first.length)) || code.split(/\s+/).length >= 3
      if (code === code.trim() && COMMAND_WORDS.has(first) && /\s\S/.test(code) && carries && isConcrete(code)) items.push({ kind: 'command', text: code, start: line.start + match.index + 1 })
    }
  })
  return items
}

/** Constraint sentences of a user or system text: outside code and banners, with a cue word, bullets left out. */
function constraintsOf(lines: readonly Line[], contexts: readonly LineContext[], errorLines: ReadonlySet<number>): TextItem[] {
  const items: TextItem[] = []
  lines.forEach((line, index) => {
    const context = contexts[index] as LineContext
    if (context.fence !== undefined || context.delimiter || context.banner || errorLines.has(index)) return
    // Code, a banner, a heading, or a lead-in to a list (`**Every phase MUST have:**`) is not a sentence to keep.
    if (CODE_LIKE.test(line.text) || /^\s*(?:Caveat:|#)/.test(line.text) || /:\W*$/.test(line.text)) return
    // A tool's documentation in a system prompt (`- path (string) [required]: the path to open`, `docstring: …`).
    if (/^\s*(?:[-*]\s+)?\w+ \([\w ]+\) \[(?:required|optional)\]|^\s*(?:docstring|signature|usage):/i.test(line.text)) return
    let sentenceStart = 0
    const ends = [...line.text.matchAll(SENTENCE_END)].map((match) => match.index + match[0].length)
    if (ends[ends.length - 1] !== line.text.length) ends.push(line.text.length)
    for (const end of ends) {
      const raw = line.text.slice(sentenceStart, end)
      sentenceStart = end
      const lead = raw.length - raw.trimStart().length
      let sentence = raw.trim()
      let offset = lead
      const bullet = BULLET.exec(sentence)
      if (bullet) {
        offset += bullet[0].length
        sentence = sentence.slice(bullet[0].length)
      }
      if (sentence.split(/\s+/).length < 3 || !CONSTRAINT_CUE.test(sentence)) continue
      if (sentence.endsWith('?') && !QUESTION_CUE.test(sentence)) continue
      items.push({ kind: 'constraint', text: sentence, start: line.start + (end - raw.length) + offset })
    }
  })
  return items
}

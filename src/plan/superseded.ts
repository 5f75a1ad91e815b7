import type { Message, ToolCallPart } from '../spec/transcript.js'
import { parseStateBlock, type ParsedStateBlock } from '../state-block/index.js'
import { renderMessage } from '../transcript/render.js'
import { imageReferenceAt } from '../vocabulary/images.js'
import type { StateEffect, StateValue } from './types.js'

/**
 * A value mentioned in the segment, before statuses are known (`effect` absent means `set`; `file`: the file the tool
 * call that wrote it names, for assignments in a call's arguments).
 */
export type StateAssignment = Omit<StateValue, 'status' | 'supersededBy'> & { readonly file?: string }

/** Arguments that name the file a tool call writes or edits (Claude Code, Codex, Gemini CLI, OpenCode tools). */
const PATH_ARGUMENTS = ['file_path', 'filePath', 'path', 'notebook_path', 'target_file', 'filename', 'file']

/** The file a tool call's arguments name, if any. */
function fileArgument(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined
  for (const key of PATH_ARGUMENTS) {
    const value = (args as Record<string, unknown>)[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

/** Tool-call string arguments longer than this are payloads (file contents), not decisions. */
const MAX_ARGUMENT_LENGTH = 1000
const MAX_ARGUMENT_LINES = 20
const MAX_NAME_LENGTH = 128
const MAX_VALUE_LENGTH = 200

function isNameCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45 || code === 46
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}
function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}
function isEnvName(name: string): boolean {
  if (name.length < 2 || !(name.charCodeAt(0) >= 65 && name.charCodeAt(0) <= 90)) return false
  for (let index = 1; index < name.length; index++) {
    const code = name.charCodeAt(index)
    if (!((code >= 65 && code <= 90) || isDigit(code) || code === 95)) return false
  }
  return true
}
function isSeparatorCode(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 44 || code === 59 || code === 41 || code === 93 || code === 125 || code === 38 || code === 124 || code === 34 || code === 39 || code === 96 || Number.isNaN(code)
}

/**
 * Scans `text[from, to)` for version pins and assignments, in one linear pass, appending to `out`.
 *
 * Recognized: `pkg==1.2.3` (also `>=`, `<=`, `~=`, `!=`, `===`), `pkg@1.2.3` / `@scope/pkg@^1.2` (the version must
 * hold a dot), `"pkg": "^1.2"` (a quoted key and a version string), `NAME=value` (an upper-case env name, any value),
 * and `key: 30`, `key = 0.85`, `"key": 30` (a numeric value, optional unit such as `30s` or `85%`, ending its
 * clause; `key:` needs a space after the colon; a name after `:` is a type, not a key). With `escaped`,
 * the text is JSON string content: a backslash and the character after it are a boundary.
 */
export function scanAssignments(text: string, from: number, to: number, message: number, escaped: boolean, out: StateAssignment[]): void {
  let index = from
  while (index < to) {
    const code = text.charCodeAt(index)
    if (escaped && code === 92) {
      index += 2
      continue
    }
    if (code === 34) {
      index = quotedKey(text, index, to, message, escaped, out)
      continue
    }
    const previous = index > from ? text.charCodeAt(index - 1) : 32
    const startsName = (isLetter(code) || code === 95 || code === 64) && !(isNameCode(previous) || previous === 64 || previous === 47)
    if (!startsName) {
      index++
      continue
    }
    let end = index + (code === 64 ? 1 : 0)
    while (end < to && end - index < MAX_NAME_LENGTH && isNameCode(text.charCodeAt(end))) end++
    if (code === 64 && end < to && text.charCodeAt(end) === 47) {
      end++
      while (end < to && end - index < MAX_NAME_LENGTH && isNameCode(text.charCodeAt(end))) end++
    }
    // A container image with its tag (`pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel`) pins the image's name, and the
    // build stage it starts when one is named (`FROM … AS builder`): a multi-stage Dockerfile's two images of one name
    // are two decisions, each current.
    const after = text.charCodeAt(end)
    // A Maven/Gradle coordinate (`org.springframework.boot:spring-boot-starter-web:3.3.4`) pins its artifact: each
    // artifact of a group is its own decision.
    const coordinate = after === 58 && isLowerCode(code) ? coordinateAt(text, end, to) : undefined
    if (coordinate) {
      out.push(assignment('pin', `pin:${text.slice(index, coordinate.artifactEnd)}`, text, index, coordinate.versionEnd, coordinate.artifactEnd + 1, coordinate.versionEnd, message))
      index = coordinate.versionEnd
      continue
    }
    const image = (after === 47 || after === 58) && code !== 64 ? imageReferenceAt(text, index, to) : undefined
    if (image) {
      const stage = stageAfter(text, image.end, to)
      out.push(assignment('pin', `image:${text.slice(index, image.colon)}${stage === '' ? '' : ` (${stage})`}`, text, index, image.end, image.colon + 1, image.end, message))
      index = image.end
      continue
    }
    // Most names are followed by nothing an assignment could start with: skipped without slicing them.
    if (!mayAssign(text, end, to)) {
      index = Math.max(end, index + 1)
      continue
    }
    const name = text.slice(index, end)
    const next = afterName(text, index, end, to, name, message, escaped, out)
    // Resume right after the name (or the assignment) so the scan stays one pass over the text.
    index = Math.max(next, end, index + 1)
  }
}

/** The build stage an image starts, `builder` of `… AS builder` right after it (any case), or ''. */
function stageAfter(text: string, end: number, to: number): string {
  let at = end
  while (at < to && text.charCodeAt(at) === 32 && at - end < 3) at++
  if (at === end || (text.charCodeAt(at) | 32) !== 97 || (text.charCodeAt(at + 1) | 32) !== 115 || text.charCodeAt(at + 2) !== 32) return ''
  let from = at + 3
  while (from < to && text.charCodeAt(from) === 32 && from - at < 6) from++
  let stop = from
  while (stop < to && stop - from < MAX_NAME_LENGTH && isNameCode(text.charCodeAt(stop))) stop++
  return text.slice(from, stop)
}

/**
 * Whether what follows a name at `end` can make it a pin or an assignment (see {@link afterName}): an operator
 * (`=`, `==`, `>=`, `<=`, `~=`, `!=`), `@`, `:`, or up to two spaces and `=`.
 */
function mayAssign(text: string, end: number, to: number): boolean {
  const first = text.charCodeAt(end)
  if (first === 61 || first === 62 || first === 60 || first === 126 || first === 33 || first === 64 || first === 58) return true
  if (first !== 32) return false
  let cursor = end
  while (cursor < to && text.charCodeAt(cursor) === 32 && cursor - end < 2) cursor++
  return text.charCodeAt(cursor) === 61
}

function afterName(text: string, start: number, end: number, to: number, name: string, message: number, escaped: boolean, out: StateAssignment[]): number {
  if (name.length === 0 || name === '@') return end
  const first = text.charCodeAt(end)
  // pip-style pins: `pkg==1.2.3`, `pkg>=1.2`.
  if (isPinOperator(text, end)) {
    const valueEnd = readSpecifier(text, end, to)
    if (valueEnd > end && name.charCodeAt(0) !== 64) {
      out.push(assignment('pin', `pin:${name.toLowerCase()}`, text, start, valueEnd, end, valueEnd, message))
      return valueEnd
    }
    return end
  }
  // npm-style pins: `pkg@1.2.3`, `@scope/pkg@^1.2`.
  if (first === 64) {
    let valueStart = end + 1
    const marker = text.charCodeAt(valueStart)
    if (marker === 94 || marker === 126) valueStart++
    const valueEnd = readVersion(text, valueStart, to)
    if (valueEnd > valueStart) {
      out.push(assignment('pin', `pin:${name.toLowerCase()}`, text, start, valueEnd, end + 1, valueEnd, message))
      return valueEnd
    }
    return end
  }
  // `NAME=value` (env), `key=30`, `key = 30`, `key: 30`.
  let cursor = end
  while (cursor < to && text.charCodeAt(cursor) === 32 && cursor - end < 2) cursor++
  const operator = text.charCodeAt(cursor)
  if (operator === 61 && text.charCodeAt(cursor + 1) !== 61 && name.charCodeAt(0) !== 64) {
    let valueStart = cursor + 1
    if (isEnvName(name) && cursor === end) {
      const valueEnd = readEnvValue(text, valueStart, to, escaped)
      if (valueEnd.end > valueEnd.start) {
        out.push(assignment('assignment', `var:${name}`, text, start, valueEnd.stop, valueEnd.start, valueEnd.end, message))
        return valueEnd.stop
      }
      return end
    }
    while (valueStart < to && text.charCodeAt(valueStart) === 32 && valueStart - cursor < 3) valueStart++
    const valueEnd = readNumber(text, valueStart, to)
    if (valueEnd > valueStart && name.length >= 3 && !afterColon(text, start)) {
      out.push(assignment('assignment', `var:${name}`, text, start, valueEnd, valueStart, valueEnd, message))
      return valueEnd
    }
    return end
  }
  // `key: 30` needs the space: `arXiv:2504.12216`, `file.py:74` and `host:8080` are references, not settings.
  if (operator === 58 && cursor === end && name.length >= 3 && name.charCodeAt(0) !== 64 && text.charCodeAt(cursor + 1) === 32) {
    let valueStart = cursor + 1
    while (valueStart < to && text.charCodeAt(valueStart) === 32 && valueStart - cursor < 3) valueStart++
    const valueEnd = readNumber(text, valueStart, to)
    if (valueEnd > valueStart) {
      out.push(assignment('assignment', `var:${name}`, text, start, valueEnd, valueStart, valueEnd, message))
      return valueEnd
    }
  }
  return end
}

/** `"key": "^1.2"` or `"key": 30`; returns where scanning resumes. */
function quotedKey(text: string, quote: number, to: number, message: number, escaped: boolean, out: StateAssignment[]): number {
  let end = quote + 1
  while (end < to && end - quote <= MAX_NAME_LENGTH && (isNameCode(text.charCodeAt(end)) || text.charCodeAt(end) === 64 || text.charCodeAt(end) === 47)) end++
  let close = end
  if (escaped && text.charCodeAt(close) === 92) close++
  if (end === quote + 1 || text.charCodeAt(close) !== 34) return quote + 1
  const name = text.slice(quote + 1, end)
  let cursor = close + 1
  while (cursor < to && text.charCodeAt(cursor) === 32 && cursor - close < 3) cursor++
  if (text.charCodeAt(cursor) !== 58) return quote + 1
  cursor++
  while (cursor < to && text.charCodeAt(cursor) === 32 && cursor - close < 6) cursor++
  if (escaped && text.charCodeAt(cursor) === 92) cursor++
  if (text.charCodeAt(cursor) === 34) {
    let valueStart = cursor + 1
    const marker = text.charCodeAt(valueStart)
    if (marker === 94 || marker === 126) valueStart++
    else if ((marker === 62 || marker === 60) && text.charCodeAt(valueStart + 1) === 61) valueStart += 2
    const valueEnd = readVersion(text, valueStart, to)
    let closing = valueEnd
    if (escaped && text.charCodeAt(closing) === 92) closing++
    if (valueEnd > valueStart && text.charCodeAt(closing) === 34) {
      out.push(assignment('pin', `pin:${name.toLowerCase()}`, text, quote, closing + 1, cursor + 1, valueEnd, message))
      return closing + 1
    }
    return close + 1
  }
  const valueEnd = readNumber(text, cursor, to)
  if (valueEnd > cursor && name.length >= 3) {
    out.push(assignment('assignment', `var:${name}`, text, quote, valueEnd, cursor, valueEnd, message))
    return valueEnd
  }
  return close + 1
}

/** `==`, `>=`, `<=`, `~=`, `!=` (and `===`) at `at`. */
function isPinOperator(text: string, at: number): boolean {
  const first = text.charCodeAt(at)
  return (first === 61 || first === 62 || first === 60 || first === 126 || first === 33) && text.charCodeAt(at + 1) === 61
}

/**
 * A pip specifier from its first operator: `==2.31.0`, `>=2023.1,<2024.3`. Clauses after a comma may also use a
 * bare `<` or `>`. Returns its end, or `from` when no version follows the first operator.
 */
function readSpecifier(text: string, from: number, to: number): number {
  let end = from
  for (let clause = 0; clause < 8; clause++) {
    let versionStart = end
    if (isPinOperator(text, end)) versionStart = end + (text.charCodeAt(end + 2) === 61 ? 3 : 2)
    else if (clause > 0 && (text.charCodeAt(end) === 60 || text.charCodeAt(end) === 62)) versionStart = end + 1
    else break
    const versionEnd = readVersion(text, versionStart, to)
    if (versionEnd === versionStart) break
    end = versionEnd
    if (text.charCodeAt(end) !== 44) break
    end++
  }
  if (text.charCodeAt(end - 1) === 44) end--
  return end
}

/** A version: starts with a digit, holds a dot, made of `[0-9A-Za-z.*+!_-]`. Returns its end, or `from` if none. */
function isLowerCode(code: number): boolean {
  return code >= 97 && code <= 122
}

/**
 * coordinateAt(text, colon) = where a Maven/Gradle coordinate's artifact and version end, for `group` ending at `colon`
 * (`group:artifact:version`: the artifact opens with a lower-case letter, the version with a digit and holds a dot,
 * as {@link readVersion} reads one), or undefined. Reads at most a name and a version past `colon`.
 */
function coordinateAt(text: string, colon: number, to: number): { artifactEnd: number; versionEnd: number } | undefined {
  const artifactStart = colon + 1
  if (!isLowerCode(text.charCodeAt(artifactStart))) return undefined
  let artifactEnd = artifactStart
  while (artifactEnd < to && artifactEnd - artifactStart < MAX_NAME_LENGTH && isNameCode(text.charCodeAt(artifactEnd))) artifactEnd++
  if (text.charCodeAt(artifactEnd) !== 58) return undefined
  const versionEnd = readVersion(text, artifactEnd + 1, to)
  if (versionEnd === artifactEnd + 1) return undefined
  // The coordinate ends there: not a longer name glued to it (`a:b:1.2:c`).
  const next = text.charCodeAt(versionEnd)
  return next === 58 || next === 47 ? undefined : { artifactEnd, versionEnd }
}

function readVersion(text: string, from: number, to: number): number {
  if (!isDigit(text.charCodeAt(from))) return from
  let end = from
  let dot = false
  while (end < to && end - from < MAX_VALUE_LENGTH) {
    const code = text.charCodeAt(end)
    if (code === 46) dot = true
    else if (!(isDigit(code) || isLetter(code) || code === 42 || code === 43 || code === 33 || code === 95 || code === 45)) break
    end++
  }
  while (end > from && text.charCodeAt(end - 1) === 46) end--
  return dot && end > from ? end : from
}

/** Whether the name at `start` follows `:` (a type annotation, `size: int = 512`, names the variable before it). */
function afterColon(text: string, start: number): boolean {
  let index = start - 1
  while (index >= 0 && text.charCodeAt(index) === 32 && start - index < 4) index--
  return index >= 0 && text.charCodeAt(index) === 58
}

/**
 * A number with an optional unit (`30`, `-0.85`, `30s`, `512MB`, `85%`) that ends its clause: the line, the text,
 * or punctuation follows, not another word (`Tokens: 1.8k sent` and `Tests: 5 passed` report, they do not set).
 * Returns its end or `from`.
 */
function readNumber(text: string, from: number, to: number): number {
  let end = from
  if (text.charCodeAt(end) === 45 || text.charCodeAt(end) === 43) end++
  const digits = end
  while (end < to && isDigit(text.charCodeAt(end))) end++
  if (end === digits) return from
  if (text.charCodeAt(end) === 46 && isDigit(text.charCodeAt(end + 1))) {
    end++
    while (end < to && isDigit(text.charCodeAt(end))) end++
  }
  const unit = end
  while (end < to && end - unit < 3 && (isLetter(text.charCodeAt(end)) || text.charCodeAt(end) === 37)) end++
  const after = end < to ? text.charCodeAt(end) : Number.NaN
  if (!(isSeparatorCode(after) || after === 46 || after === 58 || after === 92)) return from
  if (after === 46 && isDigit(text.charCodeAt(end + 1))) return from
  let next = end
  while (next < to && (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9)) next++
  if (next > end && next < to && (isLetter(text.charCodeAt(next)) || isDigit(text.charCodeAt(next)))) return from
  return end
}

/** An env value: a quoted string or a run up to whitespace or a shell separator. */
function readEnvValue(text: string, from: number, to: number, escaped: boolean): { start: number; end: number; stop: number } {
  let start = from
  if (escaped && text.charCodeAt(start) === 92) start++
  const quote = text.charCodeAt(start)
  if (quote === 34 || quote === 39) {
    let end = start + 1
    while (end < to && end - start < MAX_VALUE_LENGTH && text.charCodeAt(end) !== quote && text.charCodeAt(end) !== 10) end++
    if (text.charCodeAt(end) !== quote) return { start, end: start, stop: start }
    const valueEnd = escaped && text.charCodeAt(end - 1) === 92 ? end - 1 : end
    return { start: start + 1, end: valueEnd, stop: end + 1 }
  }
  let end = from
  while (end < to && end - from < MAX_VALUE_LENGTH && !isSeparatorCode(text.charCodeAt(end)) && !(escaped && text.charCodeAt(end) === 92)) end++
  return { start: from, end, stop: end }
}

function assignment(kind: StateAssignment['kind'], key: string, text: string, start: number, end: number, valueStart: number, valueEnd: number, message: number): StateAssignment {
  return { key, kind, value: text.slice(valueStart, valueEnd), text: text.slice(start, end), message, start, end }
}

/** Argument fields that hold the text an edit removes (`old_string` of an edit, `old_str` of str_replace). */
const REMOVED_FIELDS = new Set(['old_string', 'old_str', 'oldString', 'old_text', 'oldText', 'search'])

/** The string leaves of a value, each with whether it sits under a field an edit removes. */
function* stringLeaves(value: unknown, removed = false, depth = 0): Generator<{ leaf: string; removed: boolean }> {
  if (typeof value === 'string') yield { leaf: value, removed }
  else if (depth < 16 && Array.isArray(value)) {
    for (const child of value) yield* stringLeaves(child, removed, depth + 1)
  } else if (depth < 16 && value !== null && typeof value === 'object') {
    for (const [field, child] of Object.entries(value)) yield* stringLeaves(child, removed || REMOVED_FIELDS.has(field), depth + 1)
  }
}

function countLines(text: string): number {
  let lines = 1
  for (let index = text.indexOf('\n'); index !== -1 && lines <= MAX_ARGUMENT_LINES; index = text.indexOf('\n', index + 1)) lines++
  return lines
}

/**
 * Finds the decisions of one message: pins and assignments in user, system and assistant text, earlier summaries,
 * and short tool-call arguments (commands, edits), and the pins of payloads longer than 1,000 characters or 20 lines
 * (file contents: their other assignments are code, not decisions). Tool results and reasoning are observations, not decisions, and are skipped.
 *
 * Each mention gets its {@link StateEffect}: in text, a question or a negated clause sets nothing (`none`), and the
 * old value of a change (`X instead of Y`, `X rather than Y`, `replace Y with X`, `switch from Y to X`, `Y -> X`)
 * is `replaced`; see {@link markEffects}. Values of one key in one text that nothing says change each other
 * (alternatives, rules of different subjects) set nothing; see {@link sideBySideValues}. Tool-call arguments are actions: they `set`, except what an edit removes
 * (`old_string`, `old_str`, `oldString`, `old_text`, `search`), which is `replaced`.
 */
export function findAssignments(message: Message, index: number): StateAssignment[] {
  const out: StateAssignment[] = []
  if (message.role === 'tool') return out
  const rendered = renderMessage(message)
  for (const span of rendered.spans) {
    const part = message.parts[span.part]!
    if (part.type === 'text' || part.type === 'summary') {
      const found: StateAssignment[] = []
      scanAssignments(rendered.text, span.start, span.end, index, false, found)
      const block = part.text.includes('<floorguard-state v=') ? parseStateBlock(part.text) : undefined
      const marked = markEffects(rendered.text, span.start, span.end, found)
      // A system prompt's values all stand side by side (parallelRecords): nothing to tell apart there.
      const read = message.role === 'system' ? marked : sideBySideValues(rendered.text, span.start, span.end, marked)
      for (const entry of read) out.push(block ? blockEffect(entry, block, span.start) : entry)
    } else if (part.type === 'tool-call') scanToolCall(part, rendered.text, span.start, span.end, index, out)
  }
  return parallelRecords(out, message.role === 'system')
}

/**
 * One message whose JSON sets a quoted key to two or more values, with nothing saying one replaces another (no
 * `instead of`, no arrow, no edit's old side), lists records side by side: an array of findings, each with its
 * `"priority": 1`. None changes the other, so those mentions set nothing (their effect becomes `none`): a later
 * message's value still replaces them, but one does not supersede its sibling. Keys in prose keep their order only
 * where something says so or the text is about one subject ({@link sideBySideValues}: `threshold: 0.8. Then
 * threshold: 0.9.`, the later value is the change). Not in a system message
 * (`system`: every mention counts): a system prompt states what holds, it does not narrate changes, so values of one
 * key it names (the allowed `FREQ=HOURLY` and `FREQ=WEEKLY`, an example's `FREQ=DAILY`) are side by side too.
 */
function parallelRecords(entries: StateAssignment[], system = false): StateAssignment[] {
  if (entries.length < 2) return entries
  const sideBySide = (entry: StateAssignment): boolean => system || (entry.kind === 'assignment' && entry.text.charCodeAt(0) === 34)
  const values = new Map<string, Set<string> | undefined>()
  for (const entry of entries) {
    if (!sideBySide(entry)) continue
    if ((entry.effect ?? 'set') !== 'set') {
      // A connector or an edit said how the values relate: keep what it said.
      values.set(entry.key, undefined)
      continue
    }
    if (values.has(entry.key) && values.get(entry.key) === undefined) continue
    const set = values.get(entry.key) ?? new Set<string>()
    set.add(entry.value)
    values.set(entry.key, set)
  }
  let parallel = false
  for (const set of values.values()) if (set !== undefined && set.size > 1) parallel = true
  if (!parallel) return entries
  return entries.map((entry) => {
    const set = sideBySide(entry) ? values.get(entry.key) : undefined
    return set !== undefined && set.size > 1 ? { ...entry, effect: 'none' } : entry
  })
}

/** Words that, between two values of one key in one message, say the later one changes the earlier. */
const CHANGE_WORDS = new Set(['then', 'now', 'actually', 'instead', 'rather', 'replace', 'replaces', 'replaced', 'replacing'])
/** Verbs whose `to` later in the sentence says a value changes: `change … to`, `switch … to`, `set … to`, `from … to`. */
const CHANGE_VERBS = new Set(['change', 'changed', 'changes', 'changing', 'switch', 'switched', 'switching', 'set', 'update', 'updated', 'bump', 'bumped', 'move', 'moved', 'from'])
/** How many names a sentence's subject is made of, at most (more say nothing more about which subject it is). */
const MAX_SUBJECT_NAMES = 8

/** A character of a word as {@link sideBySideValues} reads words: letters, digits, `_ - . /`. */
function isWordUnit(code: number): boolean {
  return isNameCode(code) || code === 47
}

/**
 * Whether `text[start, end)` names something: a code name (`get_node_tree`, `src/a.ts`, `camelCase`, `V100`, a dotted
 * name) or a capitalized word that does not open its sentence (`Redis`). Plain words (`use`, `training`) do not.
 */
function isSubjectName(text: string, start: number, end: number, first: boolean): boolean {
  if (end - start < 2 || isDigit(text.charCodeAt(start))) return false
  let digit = false
  let letter = false
  let lower = false
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at)
    if (code === 95 || code === 47 || (code === 46 && at > start && at + 1 < end)) return true
    if (isDigit(code)) digit = true
    else if (code >= 97 && code <= 122) (letter = true), (lower = true)
    else if (code >= 65 && code <= 90) {
      if (lower) return true
      letter = true
    }
  }
  if (digit && letter) return true
  const initial = text.charCodeAt(start)
  return !first && initial >= 65 && initial <= 90 && isLetter(text.charCodeAt(start + 1))
}

/** A sentence of one message as {@link sideBySideValues} reads it: the names it is about, sorted and joined. */
type SentenceSubjects = string[]

/**
 * Reads `text[from, to)` once: the sentence (a line, or up to `. ? !`) each value mention stands in, the names each
 * sentence is about (code names, capitalized words, a leading `label:`), outside the mentions, and where the words
 * that say a value changes stand (a change word, `no wait`, a change verb's `to`, an arrow `->`, `=>`, `→`).
 */
function readSentences(text: string, from: number, to: number, entries: readonly StateAssignment[]): { sentenceOf: Int32Array; subjects: SentenceSubjects; changes: number[] } {
  const sentenceOf = new Int32Array(entries.length)
  const subjects: SentenceSubjects = []
  const changes: number[] = []
  let names: string[] = []
  let words = 0
  let changeVerb = false
  let previousWord = ''
  let next = 0
  const endSentence = () => {
    names.sort()
    subjects.push(names.join('\u0000'))
    names = []
    words = 0
    changeVerb = false
    previousWord = ''
  }
  let cursor = from
  while (cursor < to) {
    if (next < entries.length && cursor >= entries[next]!.start) {
      // A mention names its key, not the sentence's subject: read past it.
      sentenceOf[next] = subjects.length
      cursor = Math.max(cursor, entries[next]!.end)
      next++
      continue
    }
    const code = text.charCodeAt(cursor)
    if (code === 10 || ((code === 63 || code === 33) && endsSentence(text, cursor, to))) {
      endSentence()
      cursor++
      continue
    }
    if (code === 0x2192 || (code === 62 && (text.charCodeAt(cursor - 1) === 45 || text.charCodeAt(cursor - 1) === 61))) changes.push(cursor)
    if (!isWordUnit(code)) {
      cursor++
      continue
    }
    const limit = next < entries.length ? Math.min(to, entries[next]!.start) : to
    let end = cursor + 1
    while (end < limit && isWordUnit(text.charCodeAt(end))) end++
    // A word's trailing `. - /` is punctuation; a `.` there may end the sentence.
    let stop = end
    while (stop > cursor && (text.charCodeAt(stop - 1) === 46 || text.charCodeAt(stop - 1) === 45 || text.charCodeAt(stop - 1) === 47)) stop--
    if (stop > cursor) {
      const label = words < 4 && text.charCodeAt(stop) === 58 && stop === end && (stop + 1 >= to || text.charCodeAt(stop + 1) <= 32)
      if ((label || isSubjectName(text, cursor, stop, words === 0)) && names.length < MAX_SUBJECT_NAMES) names.push(text.slice(cursor, stop).toLowerCase())
      if (stop - cursor <= 10) {
        const word = text.slice(cursor, stop).toLowerCase()
        if (CHANGE_WORDS.has(word) || (word === 'wait' && previousWord === 'no') || (word === 'to' && changeVerb)) changes.push(cursor)
        if (CHANGE_VERBS.has(word)) changeVerb = true
        previousWord = word
      } else previousWord = ''
      words++
    }
    let sentenceEnd = false
    for (let at = stop; at < end; at++) if (text.charCodeAt(at) === 46 && endsSentence(text, at, to)) sentenceEnd = true
    if (sentenceEnd) endSentence()
    cursor = end
  }
  for (; next < entries.length; next++) sentenceOf[next] = subjects.length
  endSentence()
  return { sentenceOf, subjects, changes }
}

/** Whether a position of `changes` (sorted) lies in `[from, to)`. */
function changeBetween(changes: readonly number[], from: number, to: number): boolean {
  let low = 0
  let high = changes.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (changes[middle]! < from) low = middle + 1
    else high = middle
  }
  return low < changes.length && changes[low]! < to
}

/**
 * Values of one key in one text stand side by side unless something says one changes the other: in `text[from, to)`
 * (mentions sorted by offset, effects marked by {@link markEffects}), two values of a key that both `set` are a change
 * (the later in force) when a change word stands between them (`then`, `now`, `actually`, `instead`, `rather`,
 * `replace`, `no wait`, `change/switch/set/from … to`, an arrow), or when they stand in different sentences that name
 * no different subjects (the message is about one thing: `Try threshold: 0.8.\nWe keep threshold: 0.9.`). Values in
 * one sentence (`depth=1, or depth=2`) or in sentences naming different subjects (`- get_node_tree: use depth=2` and
 * `- get_figma_file_nodes: pass depth=1`) are alternatives or rules of different things: each run of such values
 * sets nothing (effect `none`), and a value a change led into such a run is `replaced`.
 *
 * Linear: one pass reads the sentences, one walks the mentions; a change between two mentions is a binary search.
 */
export function sideBySideValues(text: string, from: number, to: number, entries: readonly StateAssignment[]): StateAssignment[] {
  if (entries.length < 2) return [...entries]
  let keys = 0
  const seen = new Set<string>()
  for (const entry of entries) if ((entry.effect ?? 'set') === 'set') seen.add(entry.key), keys++
  if (seen.size === keys) return [...entries]
  const { sentenceOf, subjects, changes } = readSentences(text, from, to, entries)
  const out = entries.map((entry) => ({ ...entry }))
  type Run = { members: number[]; values: Set<string>; before: Run | undefined }
  const runs = new Map<string, Run>()
  const close = (run: Run) => {
    if (run.values.size < 2) return
    for (const member of run.members) out[member] = { ...out[member]!, effect: 'none' }
    if (run.before && run.before.values.size === 1) for (const member of run.before.members) out[member] = { ...out[member]!, effect: 'replaced' }
  }
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!
    if ((entry.effect ?? 'set') !== 'set') continue
    const run = runs.get(entry.key)
    if (!run) {
      runs.set(entry.key, { members: [index], values: new Set([entry.value]), before: undefined })
      continue
    }
    const last = entries[run.members[run.members.length - 1]!]!
    const lastSentence = sentenceOf[run.members[run.members.length - 1]!]!
    const sentence = sentenceOf[index]!
    let change = false
    if (last.value !== entry.value) {
      const a = subjects[lastSentence]!
      const b = subjects[sentence]!
      change = changeBetween(changes, last.end, entry.start) || (sentence !== lastSentence && (a === '' || b === '' || a === b))
    }
    if (!change) {
      run.members.push(index)
      run.values.add(entry.value)
      continue
    }
    close(run)
    runs.set(entry.key, { members: [index], values: new Set([entry.value]), before: run })
  }
  for (const run of runs.values()) close(run)
  return out
}

/**
 * In an earlier summary that holds a state block, the block says what was in force when it was written: a value that
 * is an entry of its own takes its effect from the entry's status (`superseded` → `replaced`, else `set`); any other
 * mention (inside a longer entry, or in the narrative around the block, quoted from before) changes nothing. Read as
 * plain text, a gist sentence after the block (`use Y instead of X`) would otherwise put an old value back in force.
 */
function blockEffect(entry: StateAssignment, block: ParsedStateBlock, base: number): StateAssignment {
  const start = entry.start - base
  const end = entry.end - base
  for (const item of block.entries) {
    if (item.start === start && item.start + item.text.length === end) return { ...entry, effect: item.status === 'superseded' ? 'replaced' : 'set' }
  }
  return { ...entry, effect: 'none' }
}

/** Words that negate the rest of their clause: `don't use X`, `never pin X`, `not X`. */
const NEGATIONS = new Set(['not', 'no', 'never', 'cannot', 'avoid', 'without', 'nor'])
/** Words that end the reach of a negation as a clause end would: `I won't guess, but use X`. */
const CLAUSE_WORDS = new Set(['but', 'so', 'then', 'instead'])
/** What, read backwards from a value, makes it the old value of a change. */
const REPLACED_BEFORE = ['instead of', 'rather than', 'in place of', 'replace', 'replacing', 'replaces', 'replaced']
/** What between two values of one key makes the first the old one: `from Y to X`, `Y -> X`. */
const ARROWS = new Set(['to', '->', '=>', '→', '-->'])
/** How far around a value the connecting words are looked for. */
const CONNECTOR_REACH = 24

function isQuoteLike(code: number): boolean {
  return code === 32 || code === 9 || code === 34 || code === 39 || code === 96 || code === 42
}

/**
 * Marks the effect of each mention found in `text[from, to)` (sorted by offset, as {@link scanAssignments} returns
 * them), in one pass over the text:
 *
 * - `none` when the sentence holding it is a question (ends with `?`) or a negation (`not`, `no`, `never`, `n't`,
 *   `cannot`, `avoid`, `without`, `nor`) precedes it in its clause (clauses end at `, ; : . ? !`, a line end, or
 *   `but`/`so`/`then`/`instead`);
 * - `replaced` when `instead of`, `rather than`, `in place of` or `replace` leads to it, or when the next mention of
 *   the same key follows it across `to`, `->`, `=>` or `→` alone;
 * - `set` otherwise.
 *
 * Linear: the word walk and the sentence-end pointer only move forward; connectors are read within 24 characters.
 */
export function markEffects(text: string, from: number, to: number, entries: readonly StateAssignment[]): StateAssignment[] {
  const out: StateAssignment[] = []
  let cursor = from
  let negated = false
  let sentenceEnd = from - 1
  for (let position = 0; position < entries.length; position++) {
    const entry = entries[position]!
    // Walk the words between the previous mention and this one, tracking whether the clause is negated.
    while (cursor < entry.start) {
      const code = text.charCodeAt(cursor)
      if (isClauseEnd(text, cursor, to)) {
        negated = false
        cursor++
        continue
      }
      if (!isLetter(code)) {
        cursor++
        continue
      }
      let end = cursor + 1
      while (end < entry.start && (isLetter(text.charCodeAt(end)) || text.charCodeAt(end) === 39 || text.charCodeAt(end) === 0x2019 || text.charCodeAt(end) === 45)) end++
      const word = end - cursor <= 12 ? text.slice(cursor, end).toLowerCase() : ''
      if (CLAUSE_WORDS.has(word)) negated = false
      else if (NEGATIONS.has(word) || word.endsWith("n't") || word.endsWith('n\u2019t')) negated = true
      cursor = end
    }
    cursor = Math.max(cursor, entry.end)
    if (sentenceEnd < entry.end) sentenceEnd = findSentenceEnd(text, entry.end, to)
    const question = sentenceEnd < to && text.charCodeAt(sentenceEnd) === 63
    let effect: StateEffect = 'set'
    if (question || negated) effect = 'none'
    else if (replacedBefore(text, from, entry.start) || arrowToSameKey(text, entry, entries[position + 1])) effect = 'replaced'
    out.push({ ...entry, effect })
  }
  return out
}

/** Whether `text[at]` ends a clause: `, ; :`, a line end, or `. ? !` ending a sentence. */
function isClauseEnd(text: string, at: number, to: number): boolean {
  const code = text.charCodeAt(at)
  if (code === 44 || code === 59 || code === 58 || code === 10 || code === 40 || code === 41) return true
  return (code === 46 || code === 63 || code === 33) && endsSentence(text, at, to)
}

/** `. ? !` end a sentence when followed by the end, whitespace, a quote or a closing bracket (not `?q=` or `2.3`). */
function endsSentence(text: string, at: number, to: number): boolean {
  if (at + 1 >= to) return true
  const next = text.charCodeAt(at + 1)
  return next <= 32 || next === 34 || next === 39 || next === 96 || next === 41 || next === 93 || next === 42 || next === 95
}

/** The index of the `. ? !` or line end that closes the sentence containing `at`, or `to`. */
function findSentenceEnd(text: string, at: number, to: number): number {
  for (let index = at; index < to; index++) {
    const code = text.charCodeAt(index)
    if (code === 10) return index
    if ((code === 46 || code === 63 || code === 33) && endsSentence(text, index, to)) return index
  }
  return to
}

/** Whether the words right before `start` (quotes and spaces skipped) are `instead of`, `rather than`, `replace`… */
function replacedBefore(text: string, from: number, start: number): boolean {
  let end = start
  while (end > from && isQuoteLike(text.charCodeAt(end - 1))) end--
  const window = text.slice(Math.max(from, end - CONNECTOR_REACH), end).toLowerCase()
  return REPLACED_BEFORE.some((phrase) => window.endsWith(phrase) && !isLetter(window.charCodeAt(window.length - phrase.length - 1)))
}

/** Whether the next mention is of the same key and only `to`, `->`, `=>` or `→` lies between them. */
function arrowToSameKey(text: string, entry: StateAssignment, next: StateAssignment | undefined): boolean {
  if (!next || next.key !== entry.key || next.start - entry.end > CONNECTOR_REACH) return false
  let start = entry.end
  let end = next.start
  while (start < end && isQuoteLike(text.charCodeAt(start))) start++
  while (end > start && isQuoteLike(text.charCodeAt(end - 1))) end--
  return ARROWS.has(text.slice(start, end).toLowerCase())
}

function scanToolCall(part: ToolCallPart, text: string, start: number, end: number, index: number, out: StateAssignment[]): void {
  if (typeof part.arguments === 'string' && part.arguments.length <= MAX_ARGUMENT_LENGTH && countLines(part.arguments) <= MAX_ARGUMENT_LINES) {
    // A string argument renders raw, not as JSON.
    scanAssignments(text, start, end, index, false, out)
    return
  }
  let cursor = start
  const file = fileArgument(part.arguments)
  for (const { leaf, removed } of stringLeaves(part.arguments)) {
    const needle = JSON.stringify(leaf)
    const found = text.indexOf(needle, cursor)
    if (found === -1 || found >= end) continue
    cursor = found + needle.length
    const before = out.length
    scanAssignments(text, found + 1, found + needle.length - 1, index, true, out)
    // A payload (a file's content) sets the pins written into it (`torch==2.4.0` in requirements.txt, an image in a
    // Dockerfile); its other assignments are code (`x = 5`), not decisions.
    if (leaf.length > MAX_ARGUMENT_LENGTH || countLines(leaf) > MAX_ARGUMENT_LINES) {
      let kept = before
      for (let at = before; at < out.length; at++) if (out[at]!.kind === 'pin') out[kept++] = out[at]!
      out.length = kept
    }
    // What an edit removes is the old value, whichever order the fields come in.
    if (removed) for (let at = before; at < out.length; at++) out[at] = { ...out[at]!, effect: 'replaced' }
    if (file !== undefined) for (let at = before; at < out.length; at++) out[at] = { ...out[at]!, file }
  }
}

/**
 * Marks each key's values: exactly one value per key is `current`, the last one in force; every mention of another
 * value is `superseded` by it. Mentions are applied in order (message, then offset): `set` puts its value in force,
 * `replaced` takes its value out of force if it is the one in force, `none` changes nothing.
 *
 * A key is reported when some value is in force at the end and at least two different values were mentioned;
 * every mention of the value in force is `current` (a value set, changed and set back is current again: status
 * belongs to the value, so a summary can mark each text once). Keys set to one value only, or left with no value
 * in force, are dropped.
 */
export function resolveSupersession(assignments: readonly StateAssignment[]): StateValue[] {
  const inForce = new Map<string, StateAssignment | undefined>()
  const values = new Map<string, Set<string>>()
  for (const entry of assignments) {
    let set = values.get(entry.key)
    if (!set) values.set(entry.key, (set = new Set()))
    set.add(entry.value)
    const effect = entry.effect ?? 'set'
    if (effect === 'set') inForce.set(entry.key, entry)
    else if (effect === 'replaced' && inForce.get(entry.key)?.value === entry.value) inForce.set(entry.key, undefined)
  }
  const out: StateValue[] = []
  for (const entry of assignments) {
    const current = inForce.get(entry.key)
    if (!current || (values.get(entry.key)?.size ?? 0) < 2) continue
    if (entry.value === current.value) out.push({ ...entry, status: 'current' })
    else out.push({ ...entry, status: 'superseded', supersededBy: { message: current.message, value: current.value } })
  }
  return out
}

/**
 * Finds the segment's changed decisions: every mention of each key the segment mentioned with two or more different
 * values, the value in force at the end marked current. `offset` is the transcript index of `messages[0]`.
 */
export function findSupersededState(messages: readonly Message[], offset = 0): StateValue[] {
  const all: StateAssignment[] = []
  messages.forEach((message, index) => {
    for (const entry of findAssignments(message, offset + index)) all.push(entry)
  })
  return resolveSupersession(keyedByFile(all))
}

/**
 * A name assigned (or a package pinned) in the files of two or more tool calls' paths is a setting of each file
 * (`default: 1` written to a.ts and `default: 7` to b.ts, `stripe==7.1.0` in one service's requirements.txt and
 * `stripe==5.4.0` in another's, are two decisions, neither replacing the other): its mentions in those calls are keyed
 * `var:NAME@PATH` (`pin:NAME@PATH`); mentions outside tool calls keep the plain key. A name written to one file only stays one key, so the
 * user's `set max_paths = 10` and the edit of config.py that changes it to 50 remain one decision.
 */
function keyedByFile(entries: readonly StateAssignment[]): StateAssignment[] {
  const files = new Map<string, Set<string>>()
  for (const entry of entries) {
    if (entry.file === undefined) continue
    let set = files.get(entry.key)
    if (!set) files.set(entry.key, (set = new Set()))
    set.add(entry.file)
  }
  return entries.map(({ file, ...entry }) => (file !== undefined && (files.get(entry.key)?.size ?? 0) > 1 ? { ...entry, key: `${entry.key}@${file}` } : entry))
}

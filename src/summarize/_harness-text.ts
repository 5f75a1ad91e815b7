/**
 * Text an agent harness writes into the user's turn: a block in a tag whose name holds `-` or `_`
 * (`<system-reminder>`, `<ide_opened_file>`, `<task-notification>`, `<command-name>`, `<local-command-stdout>`),
 * which no HTML element's name does, so a user's own markup (`<div>`, `<b>`) is not taken for it.
 */

/** One run of a text: the harness's words or the user's. */
export interface TextRun {
  readonly text: string
  readonly harness: boolean
}

/** Longest tag name looked at. */
const MAX_NAME = 64
/** How far an opening tag's attributes may run before its `>`. */
const MAX_TAG = 512

/**
 * harnessRuns(text) = `text` cut into runs, in order, that join back to `text`: each harness block (its opening tag to
 * its closing tag, or to the end of its line when it is never closed) is a run with `harness: true`. Linear: the
 * closing tags are listed in one pass first, and each name's list is walked forward only.
 */
export function harnessRuns(text: string): TextRun[] {
  const closings = closingTags(text)
  const runs: TextRun[] = []
  let from = 0
  let at = text.indexOf('<')
  while (at !== -1) {
    const name = tagName(text, at + 1)
    const close = name === undefined ? -1 : tagEnd(text, at + 1 + name.length, at + MAX_TAG)
    if (name === undefined || close === -1) {
      at = text.indexOf('<', at + 1)
      continue
    }
    const list = closings.get(name)
    while (list !== undefined && list.next < list.at.length && list.at[list.next]! <= close) list.next++
    let end: number
    if (list !== undefined && list.next < list.at.length) end = list.at[list.next]! + name.length + 3
    else {
      const newline = text.indexOf('\n', close + 1)
      end = newline === -1 ? text.length : newline
    }
    if (at > from) runs.push({ text: text.slice(from, at), harness: false })
    runs.push({ text: text.slice(at, end), harness: true })
    from = end
    at = text.indexOf('<', from)
  }
  if (from < text.length || runs.length === 0) runs.push({ text: text.slice(from), harness: false })
  return runs
}

/** Offsets of each harness name's closing tags (`</name>`), in order, with a cursor. */
function closingTags(text: string): Map<string, { at: number[]; next: number }> {
  const closings = new Map<string, { at: number[]; next: number }>()
  for (let at = text.indexOf('</'); at !== -1; at = text.indexOf('</', at + 2)) {
    const name = tagName(text, at + 2)
    if (name === undefined || text.charCodeAt(at + 2 + name.length) !== 62) continue
    const list = closings.get(name)
    if (list) list.at.push(at)
    else closings.set(name, { at: [at], next: 0 })
  }
  return closings
}

/** Offset of the `>` that ends a tag, looked for from `start` up to `limit`; -1 when a line break or `<` comes first. */
function tagEnd(text: string, start: number, limit: number): number {
  for (let index = start; index < text.length && index < limit; index++) {
    const code = text.charCodeAt(index)
    if (code === 62) return index
    if (code === 60 || code === 10) return -1
  }
  return -1
}

/** The name of an opening tag whose name starts at `start`, when it is a harness's (see the module comment). */
function tagName(text: string, start: number): string | undefined {
  let index = start
  let marked = false
  const first = text.charCodeAt(index) | 32
  if (first < 97 || first > 122) return undefined
  for (index++; index < text.length && index - start < MAX_NAME; index++) {
    const code = text.charCodeAt(index)
    if (code === 45 || code === 95) marked = true
    else if (!((code | 32) >= 97 && (code | 32) <= 122) && !(code >= 48 && code <= 57)) break
  }
  const next = text.charCodeAt(index)
  // The name ends at `>` or at whitespace before attributes.
  if (!marked || !(next === 62 || next === 32 || next === 9 || next === 10)) return undefined
  return text.slice(start, index)
}

/** Whether `text` holds anything but harness blocks and whitespace. */
export function hasOwnText(text: string): boolean {
  return harnessRuns(text).some((run) => !run.harness && run.text.trim() !== '')
}

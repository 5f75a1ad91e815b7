/**
 * Line scanner of the gold extractor (first version).
 */
import type { GoldKind, GoldSource } from './index.js'

interface Found {
  kind: GoldKind
  text: string
}

const URL = /\bhttps?:\/\/[^\s"'<>`)\]]+/g
const PATH = /(?:^|[\s"'`(=:])((?:~|\.{1,2})?\/[\w.@+-]+(?:\/[\w.@+-]+)*\/?|[\w.@+-]+(?:\/[\w.@+-]+)+\.[A-Za-z]\w{0,7})/g
const VERSION = /\b[A-Za-z][\w.-]*(?:==|>=|<=|~=|!=)\d[\w.*+-]*(?:,[<>=!~]=?\d[\w.*+-]*)*/g
const SETTING = /(?:--[A-Za-z][\w-]*(?:=|\s+)[^\s-][^\s]*|\b[A-Za-z_][\w.]*\s*[:=]\s*-?\d[\w.]*)/g
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const HASH = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g
const ERROR = /^\s*(?:[A-Za-z_][\w.]*(?:Error|Exception)\b.*|Error:.*|fatal:.*|error(?:\[\w+\])?:.*)$/
const CONSTRAINT = /\b(?:must|never|always|only|don't|do not|at most|no more than|exactly|required|make sure|ensure)\b/i

/** Items of one text, line by line, in order of appearance. */
export function scanText(text: string, source: GoldSource): Found[] {
  const found: Found[] = []
  for (const line of text.split(/\r?\n/)) {
    if (ERROR.test(line)) found.push({ kind: 'error', text: line.trim() })
    if ((source === 'user' || source === 'system') && CONSTRAINT.test(line)) found.push({ kind: 'constraint', text: line.trim() })
    for (const match of line.matchAll(URL)) found.push({ kind: 'url', text: match[0] })
    for (const match of line.matchAll(PATH)) if (match[1] !== undefined) found.push({ kind: 'path', text: match[1] })
    for (const match of line.matchAll(VERSION)) found.push({ kind: 'version', text: match[0] })
    for (const match of line.matchAll(SETTING)) found.push({ kind: 'setting', text: match[0] })
    for (const match of line.matchAll(UUID)) found.push({ kind: 'id', text: match[0] })
    for (const match of line.matchAll(HASH)) found.push({ kind: 'id', text: match[0] })
  }
  return found
}

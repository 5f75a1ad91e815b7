/**
 * Word-level finders of the gold extractor: URLs, paths, versions, settings and ids on one line.
 *
 * Every pattern either starts with a literal or is anchored to a token boundary by a lookbehind, and no two adjacent
 * quantified parts can match the same characters, so each runs in time linear in the line.
 */
import {
  ADDRESS_TLDS,
  FILE_EXTENSIONS,
  ID_PREFIXES,
  KNOWN_DIRECTORIES,
  ROOT_DIRECTORIES,
  UNITS,
  VALUE_FLAGS,
  VERSIONED_NAMES,
} from './_vocabulary.js'

/** A span found on a line: its kind, its start offset in the line and its exact text. */
export interface LineSpan {
  readonly kind: 'path' | 'url' | 'version' | 'setting' | 'id'
  readonly start: number
  readonly text: string
}

/** Blanks `[start, end)` of a line so later finders do not see it again (offsets keep their meaning). */
export const mask = (line: string, spans: ReadonlyArray<{ start: number; text: string }>): string => {
  if (spans.length === 0) return line
  const chars = line.split('')
  for (const span of spans) for (let i = span.start; i < span.start + span.text.length; i++) chars[i] = ' '
  return chars.join('')
}

const TRAILING_PUNCTUATION = /[.,;:!?'"*`([{]+$/

/** Drops a trailing `)` or `]` that closes nothing inside the text, then trailing punctuation, repeatedly. */
const trimEnd = (text: string): string => {
  let out = text
  for (;;) {
    const before = out
    out = out.replace(TRAILING_PUNCTUATION, '')
    for (const [open, close] of [['(', ')'], ['[', ']'], ['{', '}']] as const) {
      if (out.endsWith(close) && count(out, open) < count(out, close)) out = out.slice(0, -1)
    }
    if (out === before) return out
  }
}
const count = (text: string, char: string): number => {
  let n = 0
  for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i + 1)) n++
  return n
}

const URL_START = /(?<![A-Za-z0-9+.-])(?:https?|ftp|ssh|git|file|s3|gs|wss?):\/\//gi
const URL_BODY_END = /[\s"'<>`|\\^]/
const SCP_URL = /(?<![\w.@/-])[\w.-]+@[\w-]+(?:\.[\w-]+)+:[\w~.-]+(?:\/[\w~.-]+)*/g

/** URLs (`scheme://…`, and `user@host:path` git remotes), trailing punctuation and unbalanced brackets dropped. */
export function findUrls(line: string): LineSpan[] {
  const spans: LineSpan[] = []
  let covered = 0
  for (const match of line.matchAll(URL_START)) {
    const start = match.index
    if (start < covered) continue
    let end = start + match[0].length
    while (end < line.length && !URL_BODY_END.test(line[end] as string)) end++
    covered = end
    const text = trimEnd(line.slice(start, end))
    // W3C namespace and DTD identifiers in markup (`xmlns="http://www.w3.org/1999/xhtml"`) name a schema, not a resource of the work.
    if (text.length > match[0].length && !/^https?:\/\/www\.w3\.org\//i.test(text)) spans.push({ kind: 'url', start, text })
  }
  for (const match of line.matchAll(SCP_URL)) {
    const text = trimEnd(match[0])
    if (!/[:]\S/.test(text)) continue
    if (!overlaps(spans, match.index, text.length)) spans.push({ kind: 'url', start: match.index, text })
  }
  return spans
}

const overlaps = (spans: readonly LineSpan[], start: number, length: number): boolean =>
  spans.some((span) => start < span.start + span.text.length && span.start < start + length)

const PATH_TOKEN = /[^\s"'`<>()[\]{},;|=:]+/g
const PATH_CHARS = /^[\p{L}\p{N}_.@%+~\-/$*]+$/u
const NUMBER_LIKE = /^\d[\d.,]*[kKmMbBx%]?$/

/** The extension of a path segment (`index.ts` → `ts`), a dotfile's name (`.env`), or undefined. */
const extensionOf = (segment: string): string | undefined => {
  const dot = segment.lastIndexOf('.')
  if (dot === 0) return /^\.[A-Za-z][\w.-]*$/.test(segment) ? segment : undefined
  if (dot < 0) return undefined
  const extension = segment.slice(dot + 1)
  return /^[A-Za-z][A-Za-z0-9]{0,7}$/.test(extension) ? extension : undefined
}

/**
 * Whether a token (already trimmed) is a path: absolute with a known root or two segments, `~/…`, `./…`, `../…`, or
 * relative with a slash and a file extension on its last segment, a known directory, or a dot-directory.
 * Prose with slashes (`and/or`, `daemon/service`, `19k/200k`, `text/html`) is not.
 */
export function isPath(token: string): boolean {
  if (!token.includes('/') || token.includes('//') || !PATH_CHARS.test(token)) return false
  if (token.startsWith('~/') || token.startsWith('./') || token.startsWith('../')) return /[\p{L}\p{N}]/u.test(token.slice(2))
  const absolute = token.startsWith('/')
  const segments = (absolute ? token.slice(1) : token).split('/')
  const trailingSlash = segments[segments.length - 1] === ''
  if (trailingSlash) segments.pop()
  if (segments.length === 0 || segments.some((segment) => segment === '' || !/[\p{L}\p{N}]/u.test(segment))) return false
  const last = segments[segments.length - 1] as string
  const lastExtension = extensionOf(last)
  // A directory never ends in a code or document extension: `plan.md/CLAUDE.md` is two files in prose.
  if (segments.slice(0, -1).some((segment) => FILE_EXTENSIONS.has((extensionOf(segment) ?? '').toLowerCase()))) return false
  if (absolute) {
    if (segments.length >= 2) return segments.some((segment) => segment.length > 2)
    return ROOT_DIRECTORIES.has(last) || lastExtension !== undefined
  }
  if (segments.some((segment) => NUMBER_LIKE.test(segment))) return false
  if (segments.length === 1) return trailingSlash && KNOWN_DIRECTORIES.has(last)
  if (lastExtension !== undefined && !/^\d/.test(last)) return true
  return segments.slice(0, -1).some((segment) => KNOWN_DIRECTORIES.has(segment) || segment.startsWith('.'))
}

/** Paths on a line (URLs should be masked first). */
export function findPaths(line: string): LineSpan[] {
  const spans: LineSpan[] = []
  for (const match of line.matchAll(PATH_TOKEN)) {
    let token = match[0]
    let start = match.index
    // Markdown emphasis around a path (`**src/a.ts**`), but not a glob (`**/*.ts`).
    while (token.startsWith('*') && !token.startsWith('*/') && !token.startsWith('**/')) {
      token = token.slice(1)
      start++
    }
    token = token.replace(/(?<![/.])[*]+$/, '').replace(/(?<=[^./])[.,!?]+$/, '')
    if (isPath(token)) spans.push({ kind: 'path', start, text: token })
  }
  return spans
}

const PIN = /(?<![\w.\-[\]])([A-Za-z][\w.-]*(?:\[[\w,.-]+\])?)(==|>=|<=|~=|!=|===|~>)(v?\d+(?:\.\d+)*[\w.*+-]*)((?:,(?:==|>=|<=|~=|!=|>|<)\d+(?:\.\d+)*[\w.*+-]*)*)/g
const AT_PIN = /(?<![\w.\-@/])(@?[A-Za-z][\w.-]*(?:\/[A-Za-z][\w.-]*)?)@(v?\d+(?:\.\d+)*(?:[-+][\w.]+)?)(?![\w@])/g
const JSON_DEPENDENCY = /"(@?[\w.-]+(?:\/[\w.-]+)?)"[ \t]*:[ \t]*"(?:\^|~|>=|<=|>|<|=)?\d+(?:\.\d+)+[\w.+-]*"/g
const TOML_DEPENDENCY = /(?<![\w.-])[A-Za-z][\w.-]*[ \t]*=[ \t]*"(?:\^|~|>=|<=|~=|==)\d+(?:\.\d+)*[\w.+,<>=-]*"/g
const NAMED_VERSION = /(?<![\w.+-])([A-Za-z][\w.+-]*)[ \t](v?\d+(?:\.\d+)+(?:-[A-Za-z0-9][\w.]*)?)(?![\w])/g
const IMAGE_TAG = /(?<![\w./-])([a-z0-9][\w.-]*(?:\/[\w.-]+)+):([A-Za-z0-9][\w.-]*)(?![\w/])/g
const IP_LIKE = /^\d{1,3}(?:\.\d{1,3}){3}$/

/** Version pins: `pkg==1.2.3`, `pkg>=0.40.0,<1`, `pkg@1.2`, `"pkg": "^1.2"`, `pkg = "^1.2"`, `OpenWrt 23.05-SNAPSHOT`, `image:1.2-tag`. */
export function findVersions(line: string): LineSpan[] {
  const spans: LineSpan[] = []
  const add = (start: number, text: string) => {
    if (!overlaps(spans, start, text.length)) spans.push({ kind: 'version', start, text })
  }
  for (const match of line.matchAll(PIN)) {
    const version = match[3] as string
    if (!version.includes('.') && match[2] !== '==' && match[2] !== '===') continue
    if (IP_LIKE.test(version)) continue
    add(match.index, match[0].replace(/[.-]+$/, ''))
  }
  for (const match of line.matchAll(AT_PIN)) {
    const version = match[2] as string
    if (IP_LIKE.test(version) || !(version.includes('.') || version.startsWith('v'))) continue
    add(match.index, match[0].replace(/[.-]+$/, ''))
  }
  for (const match of line.matchAll(JSON_DEPENDENCY)) if (!IP_LIKE.test(match[0].split('"')[3] ?? '')) add(match.index, match[0])
  for (const match of line.matchAll(TOML_DEPENDENCY)) add(match.index, match[0])
  for (const match of line.matchAll(NAMED_VERSION)) {
    const name = match[1] as string
    const version = match[2] as string
    const known = VERSIONED_NAMES.has(name.toLowerCase())
    if (!(known || (version.startsWith('v') && /^[A-Z]/.test(name)))) continue
    if (IP_LIKE.test(version)) continue
    add(match.index, match[0].replace(/[.-]+$/, ''))
  }
  for (const match of line.matchAll(IMAGE_TAG)) {
    const name = match[1] as string
    const tag = match[2] as string
    if (!/\d/.test(tag) || !/[.A-Za-z]/.test(tag)) continue
    const lastSegment = name.slice(name.lastIndexOf('/') + 1)
    if (FILE_EXTENSIONS.has((extensionOf(lastSegment) ?? '').toLowerCase())) continue
    add(match.index, match[0])
  }
  return spans
}

const FLAG_EQUALS = /(?<![\w-])--[A-Za-z][\w-]*=(?:"[^"]*"|'[^']*'|[^\s"'`,;)\]}]+)/g
const FLAG_SPACE = /(?<![\w-])--([A-Za-z][\w-]*)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s"'`,;)\]}-][^\s"'`,;)\]}]*)/g
const NUMBER = '-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?'
const UNIT_ALTERNATION = [...UNITS].sort((a, b) => b.length - a.length).join('|')
const VALUE = `(${NUMBER})(?:[ \\t]?(?:${UNIT_ALTERNATION})(?![\\w])|[A-Za-z%]{1,3})?`
const KEY_EQUALS = new RegExp(`(?<![\\w.\\-$])([A-Za-z_][\\w.-]*)[ \\t]?=[ \\t]?(["']?)${VALUE}\\2(?![\\w=]|\\.\\d)`, 'g')
const ANNOTATED_ASSIGNMENT = new RegExp(`(?<![\\w.\\-$])[A-Za-z_][\\w.]*[ \\t]*:[ \\t]*(?:int|float|str|bool)[ \\t]*=[ \\t]*(${NUMBER})(?![\\w.])`, 'g')
/** Keys of code that are never settings (`dim=1`, `axis=0`), and the one- or two-letter keys that are (`lr`). */
const CODE_KEYS: ReadonlySet<string> = new Set(['axis', 'dim', 'end', 'idx', 'index', 'indent', 'int', 'float', 'len', 'max', 'min', 'pos', 'start', 'str', 'bool'])
/** Zero, one and minus one initialise counters and flags in code (`count = 0`, `"red": 0`); only a config-like key (`warmup_steps: 0`) keeps them. */
const isTrivialValue = (key: string, value: string): boolean => /^-?[01](?:\.0+)?$/.test(value) && !(key.includes('_') && /^[a-z_]+$/.test(key) && value !== '0' && value !== '0.0')
const isSettingKey = (key: string): boolean => (key.length >= 3 || key === 'lr') && !CODE_KEYS.has(key)
const ENV_ASSIGNMENT = /(?<![\w.\-$])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+=(?:"[^"]*"|'[^']*'|[^\s"'`;&|)]+)/g
const KEY_COLON = new RegExp(`(?<![\\w.\\-$])(["']?)([A-Za-z_][\\w.-]*)\\1[ \\t]*:[ \\t]*(["']?)${VALUE}\\3(?![\\w:/]|\\.\\d)`, 'g')
const NUMBER_UNIT = new RegExp(`(?<![\\w.])\\d+(?:\\.\\d+)?[ \\t]?(?:${UNIT_ALTERNATION})(?![\\w])`, 'g')
const HEX_COLOUR = /(?<![\w&#])#(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{3})(?![\w-])/g
const CAPITALIZED_WORD = /^[A-Z][a-z]+$/

/** Whether `--name value` sets a value (`--max_steps 3000`, `--model lm/x`) rather than a switch followed by an argument (`--upgrade pip`). */
const takesValue = (name: string, value: string): boolean =>
  /\d/.test(value) ||
  /[/=~]/.test(value) ||
  value.startsWith('"') ||
  value.startsWith("'") ||
  value.startsWith('.') ||
  name.includes('_') ||
  VALUE_FLAGS.has(name.toLowerCase()) ||
  VALUE_FLAGS.has(name.toLowerCase().split('-').pop() ?? '')

/** Settings: `--flag=v`, `--flag v`, `key=n`, `KEY_NAME=v`, `key: n`, numbers with a unit, hex colours. */
export function findSettings(line: string): LineSpan[] {
  const spans: LineSpan[] = []
  const add = (start: number, text: string) => {
    if (!overlaps(spans, start, text.length)) spans.push({ kind: 'setting', start, text })
  }
  for (const match of line.matchAll(FLAG_EQUALS)) add(match.index, /=["']/.test(match[0]) ? match[0] : trimEnd(match[0]))
  for (const match of line.matchAll(FLAG_SPACE)) {
    const name = match[1] as string
    const value = match[2] as string
    // `--co 2>&1`: a redirection, not the flag's value.
    if (value === '\\' || /^\d*[<>]/.test(value)) continue
    if (takesValue(name, value)) add(match.index, value.startsWith('"') || value.startsWith("'") ? match[0] : trimEnd(match[0]))
  }
  for (const match of line.matchAll(ENV_ASSIGNMENT)) add(match.index, trimEnd(match[0]))
  for (const match of line.matchAll(ANNOTATED_ASSIGNMENT)) if (!isTrivialValue('', match[1] as string)) add(match.index, match[0])
  for (const match of line.matchAll(KEY_EQUALS)) {
    const key = match[1] as string
    // `dim=1`, `min=1`, `count = 0`: arguments and counters of code, not settings.
    if (!isSettingKey(key) || isTrivialValue(key, match[3] as string)) continue
    add(match.index, match[0])
  }
  for (const match of line.matchAll(KEY_COLON)) {
    const key = match[2] as string
    const afterColon = match[0][match[0].indexOf(':', match[1] === '' ? key.length : key.length + 2) + 1]
    // `file.py:77`, `_save:84`, `host:8000`: a location, not a setting; a setting's colon is followed by a space (or its key is quoted).
    if (match[1] === '' && afterColon !== ' ' && afterColon !== '\t') continue
    // A plain word before a colon inside a sentence is prose (`MPS allocated: 6.80 GiB`); as a line's own key it is config (`epochs: 3`).
    if (match[1] === '' && /^[a-z]+$/.test(key) && line.slice(0, match.index).replace(/^\s*(?:[-*]\s+)?/, '') !== '') continue
    if (!isSettingKey(key) || isTrivialValue(key, match[4] as string) || CAPITALIZED_WORD.test(key) || /^(?:https?|localhost|arxiv|doi|isbn)$/i.test(key)) continue
    add(match.index, match[0])
  }
  for (const match of line.matchAll(NUMBER_UNIT)) add(match.index, match[0])
  for (const match of line.matchAll(HEX_COLOUR)) {
    const digits = match[0].slice(1)
    if (/[A-Fa-f]/.test(digits) || digits.length >= 6) add(match.index, match[0])
  }
  return spans
}

const UUID = /(?<![0-9A-Fa-f])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![0-9A-Fa-f])/g
const HASH = /(?<![\w\-./])[0-9a-f]{7,64}(?![\w-])/g
const PREFIXED_ID = /(?<![\w-])([a-z]{2,8})[_-]([A-Za-z0-9]{6,})(?![\w-])/g
const RANDOM_ID = /(?<![\w\-./])[A-Za-z0-9]{12,128}(?![\w-])/g
const ARXIV = /(?<![\w.])arXiv:[ \t]?\d{4}\.\d{4,5}(?:v\d+)?(?!\d)/gi
const BARE_ARXIV = /(?<![\w./])(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?(?![\w.])/g
const DOI = /(?<![\w./])10\.\d{4,9}\/[^\s"'<>`[\]]+/g
const IP_ADDRESS = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?![\w.])/g
const HOST_PORT = /(?<![\w.-])((?:[a-z0-9-]+\.)*[a-z0-9-]+):\d{2,5}(?![\w.])/g
const NODE_ID = /(?<![A-Za-z])(?:node|page|frame|layer|component)(?:[_ ]?[Ii][Dd]s?)?["']?[ \t]*[:=]?[ \t]*["']?(\d+:\d+)(?![\d:])/gi

/** Letter/digit alternations of a token: random ids have many, words with a version number few. */
const alternations = (token: string): number => {
  let changes = 0
  for (let i = 1; i < token.length; i++) if (/\d/.test(token[i] as string) !== /\d/.test(token[i - 1] as string)) changes++
  return changes
}

/** UUIDs anywhere on the line (they are unambiguous even inside a path or URL). */
export function findUuids(line: string): LineSpan[] {
  return [...line.matchAll(UUID)].map((match) => ({ kind: 'id' as const, start: match.index, text: match[0] }))
}

/**
 * Ids: git hashes (7–64 lower-case hex with a digit and a letter), vendor ids with a known prefix, random-looking
 * tokens (12+ letters and digits, alternating often), arXiv ids (bare ones only on a line naming arXiv), DOIs,
 * IP addresses with or without a port, `host.tld:port`, and node ids such as `153:184` after `node`/`page`/`frame`.
 * Paths, URLs and UUIDs should be masked first.
 */
export function findIds(line: string): LineSpan[] {
  const spans: LineSpan[] = []
  const add = (start: number, text: string) => {
    if (!overlaps(spans, start, text.length)) spans.push({ kind: 'id', start, text })
  }
  for (const match of line.matchAll(ARXIV)) add(match.index, match[0])
  if (/arxiv/i.test(line)) {
    for (const match of line.matchAll(BARE_ARXIV)) {
      const year = Number(match[1])
      const month = Number(match[2])
      if (year >= 7 && year <= 40 && month >= 1 && month <= 12) add(match.index, match[0])
    }
  }
  for (const match of line.matchAll(DOI)) add(match.index, trimEnd(match[0]))
  for (const match of line.matchAll(IP_ADDRESS)) {
    const octets = match[0].split(':')[0]?.split('.').map(Number) ?? []
    // A bare loopback or wildcard address names no machine of the work; with a port it names a service.
    if (/^(?:127\.0\.0\.1|0\.0\.0\.0)$/.test(match[0])) continue
    if (octets.every((octet) => octet <= 255)) add(match.index, match[0])
  }
  for (const match of line.matchAll(HOST_PORT)) {
    const host = match[1] as string
    const tld = host.slice(host.lastIndexOf('.') + 1)
    if (host === 'localhost' || (host.includes('.') && ADDRESS_TLDS.has(tld))) add(match.index, match[0])
  }
  for (const match of line.matchAll(NODE_ID)) add(match.index + match[0].length - (match[1] as string).length, match[1] as string)
  for (const match of line.matchAll(HASH)) if (/\d/.test(match[0]) && /[a-f]/.test(match[0])) add(match.index, match[0])
  for (const match of line.matchAll(PREFIXED_ID)) {
    if (ID_PREFIXES.has(match[1] as string) && /\d/.test(match[2] as string)) add(match.index, match[0])
  }
  for (const match of line.matchAll(RANDOM_ID)) {
    const token = match[0]
    const digits = token.replace(/\D/g, '').length
    if (digits >= 2 && token.length - digits >= 2 && alternations(token) >= 4) add(match.index, token)
  }
  return spans
}

/**
 * A file's interface: the names it defines and the outside names it depends on by name (environment variables, the
 * command-line flags a program defines). A session calls `find_transcript`, exports `GITHUB_TOKEN` and passes
 * `--project-dir` long after the file was written or read: those names are state, where the file's locals, calls,
 * imports and keywords are not.
 *
 * One pass over the lines; per line a bounded number of `indexOf` searches and a walk of its first words, so the cost
 * is linear in the text, with no regular expression.
 */

/** Where the text comes from. */
export type InterfaceSource =
  /** A written payload (Write content, an edit's new text, a heredoc body, a patch's added lines): every definition, env names and flags. */
  | 'payload'
  /** A file view in tool output (a numbered Read, `cat -n`, a plain `cat`): top-level definitions and env names only. */
  | 'view'

/** Options of {@link interfaceNames}. */
export interface InterfaceOptions {
  readonly source: InterfaceSource
  /**
   * Read only a patch's added lines (`+` not followed by `++ `), without their `+`.
   * @default false
   */
  readonly patch?: boolean
}

/** Words that may come before a definition's keyword. */
const MODIFIERS = new Set([
  'export', 'default', 'public', 'private', 'protected', 'internal', 'static', 'final', 'abstract', 'sealed', 'data', 'open',
  'pub', 'async', 'unsafe', 'extern', 'partial', 'readonly', 'declare', 'override', 'inline', 'suspend', 'local', 'typeset',
])
/** Keywords whose next word is a callable's name, which `(` or `<` follows. */
const CALLABLE_KEYWORDS = new Set(['def', 'function', 'fn', 'fun', 'func'])
/** Keywords whose next word is a type's or module's name. */
const TYPE_KEYWORDS = new Set(['class', 'interface', 'type', 'enum', 'struct', 'trait', 'record', 'object', 'mod', 'module', 'namespace', 'union'])
/** Keywords whose next word is a variable's or constant's name (top level only), which `=` or `:` follows. */
const BINDING_KEYWORDS = new Set(['const', 'let', 'var', 'static'])
/** Words that may follow a type's name on its line (`interface A extends B`, Go's `type Config struct`). */
const TYPE_FOLLOWERS = new Set([
  'extends', 'implements', 'struct', 'interface', 'where', 'func', 'map', 'chan', 'string', 'int', 'int64', 'int32', 'uint',
  'uint64', 'float64', 'bool', 'byte', 'is', 'as',
])
/** SQL object words after `CREATE` (and its modifiers). */
const SQL_OBJECTS = new Set(['table', 'view', 'function', 'procedure', 'index', 'trigger', 'type', 'schema', 'sequence'])
const SQL_MODIFIERS = new Set(['or', 'replace', 'temp', 'temporary', 'materialized', 'unique', 'unlogged', 'global', 'local', 'external', 'virtual', 'if', 'not', 'exists'])
/** Environment variables every shell has: naming them says nothing of the session's work. */
const SHELL_VARIABLES = new Set(['HOME', 'PATH', 'PWD', 'OLDPWD', 'USER', 'SHELL', 'TERM', 'LANG', 'IFS', 'TMPDIR', 'RANDOM', 'LINENO', 'HOSTNAME', 'UID', 'EUID'])
/** Calls that define a command-line flag with their string arguments (`add_argument('--out', '-o')`, `.option('--dry-run')`). */
const FLAG_CALLS = ['add_argument(', 'add_option(', '.option(', '.Option('] as const
/** Shortest name kept: one- and two-letter names are locals and loop variables. */
const MIN_NAME = 3

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
const isNamePart = (code: number) => isLetter(code) || (code >= 48 && code <= 57)
const isUpper = (code: number) => (code >= 65 && code <= 90) || code === 95 || (code >= 48 && code <= 57)
const isBlank = (code: number) => code === 32 || code === 9

/**
 * interfaceNames(text[start, end)) = the ranges of the names the file text defines or depends on, appended to `into`
 * as start, end pairs in increasing order: definitions (functions, methods, classes, types, enums, structs, traits,
 * modules, shell functions, SQL tables and views; top-level `const`/`let`/`var` and UPPER_CASE constants), environment
 * variables read or set (`os.environ['X']`, `getenv("X")`, `process.env.X`, `${X}`, `export X=`, an `env:` block's
 * keys; `$X` in payloads) and, in payloads, the flags a program defines (`add_argument('--x')`, `flag.String("x", …)`).
 * A view keeps top-level definitions and env names only.
 */
export function interfaceNames(text: string, start: number, end: number, options: InterfaceOptions, into: number[]): void {
  const payload = options.source === 'payload'
  const anchors = new Anchors(text, end)
  const line: number[] = []
  // An `env:` (or `environment:`) block's indentation while its keys are read, else -1.
  let envIndent = -1
  // Inside a Markdown code fence (a report's or a README's example), its indentation: the code's top level.
  let fenceIndent = -1
  for (let lineStart = start; lineStart < end; ) {
    let lineEnd = text.indexOf('\n', lineStart)
    if (lineEnd === -1 || lineEnd > end) lineEnd = end
    let content = lineStart
    if (options.patch === true) {
      const added = text.charCodeAt(lineStart) === 43 && !text.startsWith('++ ', lineStart + 1)
      content = added ? lineStart + 1 : -1
    } else if (!payload) content = afterViewPrefix(text, lineStart, lineEnd)
    if (content !== -1) {
      let at = content
      while (at < lineEnd && isBlank(text.charCodeAt(at))) at++
      const indent = at - content
      line.length = 0
      if (isFence(text, at, lineEnd)) fenceIndent = fenceIndent === -1 ? indent : -1
      else if (at < lineEnd) {
        const topLevel = indent === (fenceIndent === -1 ? 0 : fenceIndent)
        if (envIndent !== -1) {
          if (indent <= envIndent) envIndent = -1
          else envKey(text, at, lineEnd, line)
        }
        if (envIndent === -1 && isEnvBlock(text, at, lineEnd)) envIndent = indent
        if (payload || topLevel) definition(text, at, lineEnd, topLevel, payload, line)
        envReads(text, at, lineEnd, payload, anchors, line)
        if (payload) flags(text, at, lineEnd, anchors, line)
        appendSorted(line, into)
      }
    }
    lineStart = lineEnd + 1
  }
}

/** Anchors after which an environment variable's name is read (past `[`, `(`, `.get(`, quotes). */
const ENV_ANCHORS = ['environ', 'getenv', 'Getenv', 'process.env', 'env::var', 'ENV[', 'LookupEnv'] as const
/** Needles searched for on every line: {@link ENV_ANCHORS}, then {@link FLAG_CALLS}, then `$`, then `flag.`. */
const NEEDLES: readonly string[] = [...ENV_ANCHORS, ...FLAG_CALLS, '$', 'flag.']
const FIRST_FLAG_CALL = ENV_ANCHORS.length
const DOLLAR = NEEDLES.indexOf('$')
const FLAG_DOT = NEEDLES.indexOf('flag.')

/**
 * The next occurrence of each needle at or after a line's start, remembered: a line that lacks a needle does not
 * search the rest of the text for it again, so each needle's searches cover the text once (an `indexOf` bounded by
 * the line would cost the line's length per needle; an unbounded one, the rest of the text per line).
 */
class Anchors {
  private readonly next: Int32Array
  constructor(private readonly text: string, private readonly end: number) {
    this.next = new Int32Array(NEEDLES.length).fill(-2)
  }

  /** The first occurrence of needle `index` at or after `from` and before `limit`, or -1. */
  find(index: number, from: number, limit: number): number {
    let found = this.next[index]!
    if (found === -1) return -1
    if (found < from) {
      found = this.text.indexOf(NEEDLES[index]!, from)
      if (found === -1 || found >= this.end) found = -1
      this.next[index] = found
      if (found === -1) return -1
    }
    return found < limit ? found : -1
  }
}

/** indexWithin(text, code, from, limit) = the first offset of the unit `code` in `[from, limit)`, or -1. */
function indexWithin(text: string, code: number, from: number, limit: number): number {
  for (let index = from; index < limit; index++) if (text.charCodeAt(index) === code) return index
  return -1
}

/** Whether the line (from its first non-blank unit) opens or closes a Markdown code fence. */
function isFence(text: string, at: number, end: number): boolean {
  return end - at >= 3 && (text.startsWith('```', at) || text.startsWith('~~~', at))
}

/**
 * The offset after a file view's line-number prefix (`    12→` of a Read, `    12\t` of `cat -n`, `12:` of SWE-agent's
 * `open` and `grep -n`), or `lineStart` when there is none.
 */
function afterViewPrefix(text: string, lineStart: number, lineEnd: number): number {
  let at = lineStart
  while (at < lineEnd && text.charCodeAt(at) === 32) at++
  const digits = at
  while (at < lineEnd && text.charCodeAt(at) >= 48 && text.charCodeAt(at) <= 57) at++
  if (at === digits || at >= lineEnd) return lineStart
  const code = text.charCodeAt(at)
  return code === 0x2192 || code === 9 || code === 58 ? at + 1 : lineStart
}

/** The end of the name starting at `at` (`at` itself when none starts there). */
function nameEnd(text: string, at: number, end: number): number {
  if (at >= end || !isLetter(text.charCodeAt(at))) return at
  let index = at + 1
  while (index < end && isNamePart(text.charCodeAt(index))) index++
  return index
}

function skipBlanks(text: string, at: number, end: number): number {
  while (at < end && isBlank(text.charCodeAt(at))) at++
  return at
}

/**
 * Pushes a name's range when it is long enough, not a dunder (`__init__`), not `main` (every program has one) and not a
 * test's (`test_x`, `TestX`, `testX`): a test runner finds tests, and sessions seldom name one again (on the corpus's
 * and the re-test's cuts, 5 of 146 test names were used after the cut, against 133 of 337 other names).
 */
function pushName(text: string, from: number, to: number, into: number[]): void {
  if (to - from < MIN_NAME) return
  if (text.startsWith('__', from) && text.startsWith('__', to - 2)) return
  if (to - from === 4 && text.startsWith('main', from)) return
  if (isTestName(text, from, to)) return
  into.push(from, to)
}

/** Whether `[from, to)` names a test: `test_…`, or `test`/`Test` then an upper-case letter. */
function isTestName(text: string, from: number, to: number): boolean {
  if (to - from < 5 || !(text.startsWith('test', from) || text.startsWith('Test', from))) return false
  const next = text.charCodeAt(from + 4)
  return (next === 95 && text.charCodeAt(from) === 116) || (next >= 65 && next <= 90)
}

/** Whether `[from, to)` is an environment variable's name: upper case, digits and `_`, a letter among them. */
function isEnvName(text: string, from: number, to: number): boolean {
  if (to - from < 2) return false
  let letter = false
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index)
    if (!isUpper(code)) return false
    if (code >= 65 && code <= 90) letter = true
  }
  return letter && !SHELL_VARIABLES.has(text.slice(from, to))
}

/**
 * The name a line's definition introduces, if its first words are one (`export async function name(`,
 * `pub(crate) fn name<`, `func (s *Server) Name(`, `class Name(Base):`, `CREATE TABLE IF NOT EXISTS name (`,
 * `name() {`, top-level `const name =` and `NAME = …`; `NAME=value` only with `bareAssignment`, in a payload).
 */
function definition(text: string, at: number, end: number, topLevel: boolean, bareAssignment: boolean, into: number[]): void {
  let sqlCreate = false
  let exported = false
  for (let words = 0; words < 8 && at < end; words++) {
    const wordEnd = nameEnd(text, at, end)
    if (wordEnd === at) return
    const length = wordEnd - at
    const word = length <= 12 ? text.slice(at, wordEnd) : ''
    const lower = sqlCreate || words === 0 ? word.toLowerCase() : word
    if (words === 0 && lower === 'create') {
      sqlCreate = true
      at = skipBlanks(text, wordEnd, end)
      continue
    }
    if (sqlCreate) {
      if (SQL_MODIFIERS.has(lower)) {
        at = skipBlanks(text, wordEnd, end)
        continue
      }
      if (!SQL_OBJECTS.has(lower)) return
      const from = skipBlanks(text, wordEnd, end)
      let nameAt = from
      // IF NOT EXISTS after the object word, then a name perhaps quoted and qualified (`"public"."users"`).
      for (let guard = 0; guard < 3; guard++) {
        const probeEnd = nameEnd(text, nameAt, end)
        const probe = text.slice(nameAt, probeEnd).toLowerCase()
        if (probe === 'if' || probe === 'not' || probe === 'exists') nameAt = skipBlanks(text, probeEnd, end)
        else break
      }
      let nameStop = nameAt
      while (nameStop < end) {
        const code = text.charCodeAt(nameStop)
        if (isNamePart(code) || code === 46 || code === 34 || code === 96) nameStop++
        else break
      }
      let from2 = nameAt
      while (from2 < nameStop && (text.charCodeAt(from2) === 34 || text.charCodeAt(from2) === 96)) from2++
      let to2 = nameStop
      while (to2 > from2 && (text.charCodeAt(to2 - 1) === 34 || text.charCodeAt(to2 - 1) === 96)) to2--
      if (to2 > from2 && isLetter(text.charCodeAt(from2))) pushName(text, from2, to2, into)
      return
    }
    if (MODIFIERS.has(word)) {
      exported ||= word === 'export' || word === 'readonly'
      let next = wordEnd
      // Rust's `pub(crate)`.
      if (word === 'pub' && text.charCodeAt(next) === 40) {
        const close = indexWithin(text, 41, next, Math.min(end, next + 32))
        if (close === -1) return
        next = close + 1
      }
      const after = skipBlanks(text, next, end)
      if (after === next && next < end) {
        // `export NAME=value` has a blank after the modifier; `export=…` or `public:` does not.
        return
      }
      at = after
      continue
    }
    const after = skipBlanks(text, wordEnd, end)
    if (CALLABLE_KEYWORDS.has(word)) {
      let nameAt = after
      if (text.charCodeAt(nameAt) === 42) nameAt = skipBlanks(text, nameAt + 1, end) // function* name
      if (word === 'func' && text.charCodeAt(nameAt) === 40) {
        // Go's method: `func (s *Server) Name(`.
        const close = indexWithin(text, 41, nameAt, Math.min(end, nameAt + 128))
        if (close === -1) return
        nameAt = skipBlanks(text, close + 1, end)
      }
      const nameStop = nameEnd(text, nameAt, end)
      if (nameStop === nameAt) return
      const follow = skipBlanks(text, nameStop, end)
      const code = text.charCodeAt(follow)
      // `(` or generics; a shell `function name {` or `function name` alone.
      if (code === 40 || code === 60 || code === 91 || (word === 'function' && (follow >= end || code === 123))) pushName(text, nameAt, nameStop, into)
      return
    }
    if (TYPE_KEYWORDS.has(word)) {
      const nameStop = nameEnd(text, after, end)
      if (nameStop === after || after === wordEnd) return
      const follow = skipBlanks(text, nameStop, end)
      if (follow >= end) {
        pushName(text, after, nameStop, into)
        return
      }
      const code = text.charCodeAt(follow)
      // ( : { < = [ ; ,
      if (code === 40 || code === 58 || code === 123 || code === 60 || code === 61 || code === 91 || code === 59) {
        if (code === 58 && text.charCodeAt(follow + 1) === 58) return // a path `type::x`
        pushName(text, after, nameStop, into)
        return
      }
      if (follow > nameStop) {
        const followStop = nameEnd(text, follow, end)
        if (followStop > follow && followStop - follow <= 10 && TYPE_FOLLOWERS.has(text.slice(follow, followStop))) pushName(text, after, nameStop, into)
      }
      return
    }
    if (BINDING_KEYWORDS.has(word)) {
      if (!topLevel) return
      if (word === 'static' && words > 0) return
      const nameStop = nameEnd(text, after, end)
      if (nameStop === after || after === wordEnd) return
      const follow = skipBlanks(text, nameStop, end)
      const code = text.charCodeAt(follow)
      if (code === 61 ? text.charCodeAt(follow + 1) !== 61 : code === 58) pushName(text, after, nameStop, into)
      return
    }
    // The first word that is no keyword: a shell function (`name() {`), or a top-level UPPER_CASE constant assigned
    // (`REPO_ROOT = …`, `TIMEOUT: int = 5`, `NAME=value`, `export NAME=value`).
    if (text.charCodeAt(wordEnd) === 40 && text.charCodeAt(wordEnd + 1) === 41 && words === 0 && topLevel) {
      // `name() {`: a bare `name()` is a call as often as a definition.
      const follow = skipBlanks(text, wordEnd + 2, end)
      if (text.charCodeAt(follow) === 123) pushName(text, at, wordEnd, into)
      return
    }
    if (!topLevel || wordEnd - at < MIN_NAME || !isEnvName(text, at, wordEnd)) return
    const code = text.charCodeAt(after)
    // In a view, a constant as source code assigns it (`NAME = …`): `NAME=value` lines are what `env` or a log prints.
    if (code === 61 && text.charCodeAt(after + 1) !== 61 && (bareAssignment || after > wordEnd)) into.push(at, wordEnd)
    else if (exported && after >= end) into.push(at, wordEnd)
    else if (code === 58 && !exported) {
      // An annotated constant: `NAME: Final = 3` (not a YAML key `NAME: value`).
      const equals = indexWithin(text, 61, after, Math.min(end, after + 128))
      if (equals !== -1 && text.charCodeAt(equals - 1) === 32 && text.charCodeAt(equals + 1) === 32) into.push(at, wordEnd)
    }
    return
  }
}

/** Whether the line (from its first non-blank unit) is `env:` or `environment:` alone, perhaps as a list item. */
function isEnvBlock(text: string, at: number, end: number): boolean {
  if (text.charCodeAt(at) === 45) at = skipBlanks(text, at + 1, end)
  let stop = end
  while (stop > at && (isBlank(text.charCodeAt(stop - 1)) || text.charCodeAt(stop - 1) === 13)) stop--
  const length = stop - at
  return (length === 4 && text.startsWith('env:', at)) || (length === 12 && text.startsWith('environment:', at))
}

/** An `env:` block's key (`GITHUB_TOKEN: ${{ … }}`, `- NAME=value`). */
function envKey(text: string, at: number, end: number, into: number[]): void {
  if (text.charCodeAt(at) === 45) at = skipBlanks(text, at + 1, end)
  const stop = nameEnd(text, at, end)
  const code = text.charCodeAt(stop)
  if ((code === 58 || code === 61) && isEnvName(text, at, stop)) into.push(at, stop)
}

/** The environment variables a line reads by name (after an anchor of {@link ENV_ANCHORS}). */
function envReads(text: string, at: number, end: number, payload: boolean, anchors: Anchors, into: number[]): void {
  for (let needle = 0; needle < FIRST_FLAG_CALL; needle++) {
    const length = NEEDLES[needle]!.length
    for (let found = anchors.find(needle, at, end); found !== -1; found = anchors.find(needle, found + length, end)) {
      let index = found + length
      // `.get(`, `_os(`, `[`, `(`, `.`, quotes and blanks, at most 8 units.
      const limit = Math.min(end, index + 8)
      while (index < limit) {
        const code = text.charCodeAt(index)
        if (code === 91 || code === 40 || code === 46 || code === 34 || code === 39 || code === 96 || isBlank(code)) index++
        else if (text.startsWith('get(', index)) index += 4
        else if (text.startsWith('_os(', index)) index += 4
        else break
      }
      const stop = nameEnd(text, index, end)
      if (isEnvName(text, index, stop)) into.push(index, stop)
    }
  }
  // `${NAME}`, `${NAME:-default}`, GitHub's `${{ secrets.NAME }}`; bare `$NAME` in payloads only (tool output prints
  // prompts and prices).
  for (let dollar = anchors.find(DOLLAR, at, end); dollar !== -1; dollar = anchors.find(DOLLAR, dollar + 1, end)) {
    let index = dollar + 1
    if (text.charCodeAt(index) === 123) {
      index++
      if (text.charCodeAt(index) === 123) {
        index = skipBlanks(text, index + 1, end)
        const scope = nameEnd(text, index, end)
        const name = text.slice(index, scope)
        if ((name !== 'secrets' && name !== 'env' && name !== 'vars') || text.charCodeAt(scope) !== 46) continue
        index = scope + 1
      }
    } else if (!payload) continue
    const stop = nameEnd(text, index, end)
    if (isEnvName(text, index, stop)) into.push(index, stop)
  }
}

/** The flags a line's program defines: `add_argument('--project-dir', '-p')` gives `--project-dir`; Go's `flag.String("addr", …)` gives `addr`. */
function flags(text: string, at: number, end: number, anchors: Anchors, into: number[]): void {
  for (let needle = FIRST_FLAG_CALL; needle < DOLLAR; needle++) {
    const length = NEEDLES[needle]!.length
    for (let found = anchors.find(needle, at, end); found !== -1; found = anchors.find(needle, found + length, end)) {
      quotedArguments(text, found + length, end, true, into)
    }
  }
  for (let found = anchors.find(FLAG_DOT, at, end); found !== -1; found = anchors.find(FLAG_DOT, found + 5, end)) {
    const call = nameEnd(text, found + 5, end)
    if (call > found + 5 && text.charCodeAt(call) === 40 && (found === at || !isNamePart(text.charCodeAt(found - 1)))) quotedArguments(text, call + 1, end, false, into)
  }
}

/**
 * Pushes the quoted strings among a call's arguments from `at` (up to its `)` or the line's end): those starting
 * with `-` (`dashed`), else the first one when it is a name.
 */
function quotedArguments(text: string, at: number, end: number, dashed: boolean, into: number[]): void {
  let index = at
  // A call's flag strings come first among its arguments: read at most CALL_WINDOW units of them, so a line of
  // unclosed calls costs the window per call, not the rest of the line.
  end = Math.min(end, at + CALL_WINDOW)
  while (index < end) {
    const code = text.charCodeAt(index)
    if (code === 41) return
    if (code === 34 || code === 39) {
      const close = indexWithin(text, code, index + 1, end)
      if (close === -1) return
      if (dashed) {
        if (text.charCodeAt(index + 1) === 45 && close - index - 1 >= MIN_NAME && isFlagName(text, index + 1, close)) into.push(index + 1, close)
      } else {
        if (isFlagName(text, index + 1, close) && isLetter(text.charCodeAt(index + 1))) pushName(text, index + 1, close, into)
        return
      }
      index = close + 1
      continue
    }
    index++
  }
}

/** Units of a flag definition's arguments read (see {@link quotedArguments}). */
const CALL_WINDOW = 256

/** Whether `[from, to)` is a flag's name: letters, digits, `_` and `-`, not ending in `-`. */
function isFlagName(text: string, from: number, to: number): boolean {
  if (to <= from || text.charCodeAt(to - 1) === 45) return false
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index)
    if (!isNamePart(code) && code !== 45) return false
  }
  return true
}

/** Appends a line's ranges to `into` sorted by start, without repeats or ranges inside the previous one. */
function appendSorted(line: number[], into: number[]): void {
  if (line.length === 0) return
  if (line.length > 32) {
    // A long line may hold thousands (`${A} ${B} …` on one line): sort the pairs in O(n log n).
    const order = Array.from({ length: line.length / 2 }, (_, pair) => pair)
    order.sort((a, b) => line[2 * a]! - line[2 * b]!)
    const sorted = order.flatMap((pair) => [line[2 * pair]!, line[2 * pair + 1]!])
    for (let index = 0; index < sorted.length; index++) line[index] = sorted[index]!
  }
  // Insertion sort of pairs: a line holds a handful (and a longer line's pairs are in order already).
  for (let index = 2; index < line.length; index += 2) {
    const start = line[index]!
    const stop = line[index + 1]!
    let to = index
    while (to > 0 && line[to - 2]! > start) {
      line[to] = line[to - 2]!
      line[to + 1] = line[to - 1]!
      to -= 2
    }
    line[to] = start
    line[to + 1] = stop
  }
  let lastEnd = into.length > 0 ? into[into.length - 1]! : -1
  for (let index = 0; index < line.length; index += 2) {
    if (line[index]! < lastEnd) continue
    into.push(line[index]!, line[index + 1]!)
    lastEnd = line[index + 1]!
  }
}

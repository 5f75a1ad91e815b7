/**
 * The state a tool call's arguments hold, located in the call as `renderPart` renders it (`name(arguments-json)`).
 *
 * Offsets come from the rendering itself: the arguments are walked in the order `JSON.stringify` writes them, adding
 * up each piece's JSON length, so every item (an argument, a number inside an array, a line of a command) gets the
 * range of its own JSON form, never the whole call's.
 */

import type { ToolCallPart } from '../../spec/transcript.js'
import { capSpan } from './lines.js'
import { wordsOf } from './_scan.js'
import { interfaceNames, type InterfaceOptions } from './interface.js'
import { type ScanCaches, scanText, SpanList } from './scan-text.js'
import { classifyWord, isWrittenValue, standsAlone } from './words.js'

/** An argument's text that is state, with the range of its JSON form in the rendered message. */
export interface ArgumentItem {
  readonly text: string
  /** `identifier` for a name of a written file's interface (see `interfaceNames`); else the argument's own text. */
  readonly kind?: 'identifier'
  readonly start: number
  readonly end: number
}

/** Options of {@link argumentItems}. */
export interface ArgumentOptions {
  /** String arguments longer than this (or with more lines than `maxLines`) are payloads or long commands. */
  readonly maxLength: number
  readonly maxLines: number
  /** The caches of the estimator that reads the call (see `ScanCaches`). */
  readonly caches: ScanCaches
}

/**
 * Argument keys (lower case) whose values are narrative about the call, not state: a call's description, title or
 * summary (Claude Code's Bash `description`), and a to-do's `activeForm` (TodoWrite: the same step as a progress line).
 */
const NARRATIVE_KEYS = new Set(['description', 'explanation', 'thought', 'thoughts', 'reasoning', 'reason', 'justification', 'summary', 'title', 'activeform'])
/**
 * Numeric argument keys that steer the call rather than say anything of the work: how long to wait, which lines or
 * how many results to show, a step counter of a thinking tool. A later call picks its own (on the corpus: `timeout`
 * 179 times, `limit` 30, `offset` 27, `view_range` 8, `depth` 4), and none is typed again as a value of the session.
 */
const CONTROL_KEYS = new Set([
  'timeout', 'timeout_ms', 'timeoutMs', 'limit', 'offset', 'view_range', 'depth', 'max_depth', 'line_number', 'start_line', 'end_line',
  'head_limit', 'max_results', 'maxResults', 'page', 'page_size', 'pageSize', '-A', '-B', '-C', 'thoughtNumber', 'totalThoughts',
  'expected_replacements', 'indent',
])
/** Argument keys whose values are payloads (file contents, patches): the target path stands for them. */
const PAYLOAD_KEYS = new Set(['content', 'contents', 'new_string', 'old_string', 'new_str', 'old_str', 'file_text', 'text', 'patch', 'diff', 'body', 'code', 'data', 'source', 'new_source', 'edits'])
/**
 * Argument keys whose values are instructions to another agent (a sub-agent's task): prose the assistant wrote, so
 * they are scanned whole as assistant text (paths, URLs, settings, ids), however long.
 */
const INSTRUCTION_KEYS = new Set(['prompt', 'instructions', 'task'])
/** Payload keys whose text an edit replaces: the names in it are the file's old text, not what the agent wrote. */
const REPLACED_KEYS = new Set(['old_string', 'old_str', 'oldtext', 'old_text', 'old_content'])
/** Payload values at most this long (and {@link SHORT_PAYLOAD_LINES} lines) are scanned for items. */
const SHORT_PAYLOAD_LENGTH = 300
const SHORT_PAYLOAD_LINES = 5
/**
 * Kinds kept from a long payload (a file's content, a patch): the values written into it (a path, a URL, a pin, an id,
 * `save_steps: 500`, `--max_steps 3000`, `WORKERS=4`; of identifiers, those `isWrittenValue` accepts:
 * `--output_dir ./checkpoints/sft`, `arXiv:2504.12216`; a CSS custom property with its value, `--color-primary: #605BFF`;
 * a markup attribute's quoted path or URL, `./assets/logo.svg` of `src="./assets/logo.svg"`), which a session types again in later commands, and not its
 * prose or code (the file holds those, and the payload's target path stands for them).
 */
const PAYLOAD_VALUE_KINDS: ReadonlySet<string> = new Set(['path', 'url', 'version', 'uuid', 'hash', 'number', 'env'])
/** Argument keys whose values are shell commands or scripts (see {@link commandRanges}). */
const COMMAND_KEYS = new Set(['command', 'cmd', 'script', 'commands'])
/**
 * Argument keys whose values are a plan's or a to-do list's steps (Codex's `update_plan`: `{"plan":[{"step":"…",
 * "status":"…"}]}`): a sentence about the work, narrative as a to-do's `activeForm` is, read, as TodoWrite's `content`
 * is, for the items in it (a path, a setting) only.
 */
const STEP_KEYS = new Set(['step'])
/** Shells whose `-c` (`-lc`, `-ic`, PowerShell's `-Command`, cmd's `/c`) takes the script that follows as the command. */
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'pwsh', 'powershell', 'powershell.exe', 'cmd', 'cmd.exe'])
const SCRIPT_FLAG = /^(?:-[a-z]*c|-command|\/c)$/i

/**
 * scriptIndex(argv) = the index of the script in a command given as an argument vector that runs a shell on it
 * (Codex's `["bash", "-lc", "pytest -q"]`: 2), or -1: the shell (by its name, with or without a directory), its
 * options, the last of them `-c` or its like, then the script. The shell and its options are how the command ran, not
 * state. Reads the vector's head only (at most the shell and four options).
 */
function scriptIndex(argv: readonly unknown[]): number {
  const shell = argv[0]
  if (typeof shell !== 'string' || !SHELLS.has(shell.slice(shell.lastIndexOf('/') + 1).toLowerCase())) return -1
  for (let index = 1; index < argv.length - 1 && index <= 4; index++) {
    const option = argv[index]
    if (typeof option !== 'string' || (option[0] !== '-' && option[0] !== '/')) return -1
    if (SCRIPT_FLAG.test(option)) return typeof argv[index + 1] === 'string' ? index + 1 : -1
  }
  return -1
}

/**
 * The items of a tool call whose rendering starts at `callStart` of the message text (the call's name, `(`, then the
 * arguments' JSON): short scalar arguments whole (numbers as `key=value`), the items of short payloads (scanned as text:
 * a pin, a path, `275 Hz`, `#54BD95`), the values written into long payloads (see PAYLOAD_VALUE_KINDS), and the kept
 * parts of commands (see {@link commandRanges}); narrative arguments give none. In the order of the rendering; a text already given is not given again.
 */
export function argumentItems(call: ToolCallPart, callStart: number, options: ArgumentOptions): ArgumentItem[] {
  const items: ArgumentItem[] = []
  const seen = new Set<string>()
  const push: Push = (text, start, end, kind) => {
    if (seen.has(text)) return
    seen.add(text)
    items.push(kind === undefined ? { text, start, end } : { text, kind, start, end })
  }
  const from = callStart + call.name.length + 1
  const context: Context = { ...options, writes: WRITE_TOOL.test(call.name) }
  if (typeof call.arguments === 'string') {
    // Rendered as written: offsets are the value's own.
    stringItems(call.arguments, 'arguments', from, false, context, push)
    return items
  }
  walk(call.arguments === undefined ? null : call.arguments, undefined, from, false, context, push)
  return items
}

/** The options of one call's walk: `writes` when the call's tool writes files (see {@link WRITE_TOOL}). */
interface Context extends ArgumentOptions {
  readonly writes: boolean
}

/**
 * Tool names that write files (Claude Code's Write, Edit, MultiEdit, NotebookEdit; gemini-cli's write_file, replace;
 * Codex's apply_patch; OpenHands' str_replace_editor; Cline's write_to_file, replace_in_file; MCP's edit_file,
 * create_file): a multi-line string argument of such a call is a file's body, whatever its key (Cursor's `code_edit`,
 * MCP's `newText`).
 */
const WRITE_TOOL = /write|edit|create|replace|insert|patch|append/i

/**
 * isPatch(value) = whether `value` is a patch by its shape: its first line with content opens Codex's apply_patch
 * envelope (`*** Begin Patch`) or a git diff (`diff --git `), or is a unified diff's `--- ` header followed by a
 * `+++ ` line. Reads the first two lines only.
 */
export function isPatch(value: string): boolean {
  let start = 0
  while (start < value.length && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9 || value.charCodeAt(start) === 10 || value.charCodeAt(start) === 13)) start++
  if (value.startsWith('*** Begin Patch', start) || value.startsWith('diff --git ', start)) return true
  if (!value.startsWith('--- ', start)) return false
  const newline = value.indexOf('\n', start)
  return newline !== -1 && value.startsWith('+++ ', newline + 1)
}

type Push = (text: string, start: number, end: number, kind?: 'identifier') => void

/**
 * Visits `value`, whose JSON form starts at `at`, under `key` (the nearest object key; `inArray` when it is an array
 * element), and returns where its JSON form ends. Mirrors `JSON.stringify` on parsed JSON: object members with an
 * undefined value are left out, and array elements that have none are `null`.
 */
function walk(value: unknown, key: string | undefined, at: number, inArray: boolean, options: Context, push: Push): number {
  if (typeof value === 'string') {
    const end = at + jsonLength(value)
    stringItems(value, key ?? 'arguments', at, true, options, push)
    return end
  }
  if (typeof value === 'number') {
    const literal = JSON.stringify(value)
    if (Number.isFinite(value) && key !== undefined && !CONTROL_KEYS.has(key)) {
      // A member's number is located with its key (`"lines":10`), an element's alone.
      const keyLength = inArray ? 0 : jsonLength(key) + 1
      push(`${key}=${value}`, at - keyLength, at + literal.length)
    }
    return at + literal.length
  }
  if (Array.isArray(value)) {
    let position = at + 1
    // A shell run on a script (`["bash", "-lc", "pytest -q"]`): only the script is the command's state.
    const script = key !== undefined && COMMAND_KEYS.has(key.toLowerCase()) ? scriptIndex(value) : -1
    value.forEach((element, index) => {
      if (index > 0) position++
      if (index < script) position += jsonLength(element as string)
      else position = isUnrendered(element) ? position + 4 : walk(element, key, position, true, options, push)
    })
    return position + 1
  }
  if (value !== null && typeof value === 'object') {
    let position = at + 1
    let first = true
    for (const [member, element] of Object.entries(value)) {
      if (isUnrendered(element)) continue
      if (!first) position++
      first = false
      position += jsonLength(member) + 1
      position = walk(element, member, position, false, options, push)
    }
    return position + 1
  }
  return at + (JSON.stringify(value) ?? 'null').length
}

/** Values `JSON.stringify` leaves out of objects (and writes as `null` in arrays). */
function isUnrendered(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}

/**
 * The items of the string argument `value` under `key`, whose form starts at `at` (`json`: as a JSON string literal,
 * quotes included; else as written).
 */
function stringItems(value: string, key: string, at: number, json: boolean, options: Context, push: Push): void {
  const name = key.toLowerCase()
  if (value.trim() === '' || NARRATIVE_KEYS.has(name)) return
  const lines = countLines(value, Math.max(options.maxLines, SHORT_PAYLOAD_LINES) + 1)
  if (INSTRUCTION_KEYS.has(name)) {
    const spans = scanText(value, 0, value.length, { mode: 'assistant', caches: options.caches, into: new SpanList(16) })
    // Spans come in order: one pass locates them all, however long the instructions.
    const locate = inOrder(value, at, json)
    for (let index = 0; index < spans.length; index++) {
      const [start, end] = locate(spans.starts[index]!, spans.ends[index]!)
      push(value.slice(spans.starts[index], spans.ends[index]), start, end)
    }
    return
  }
  // A patch is a payload by its shape, whatever its key and length (Codex's `apply_patch` custom tool, whose input is
  // the call's one string, or an element of `{"command":["apply_patch","*** Begin Patch…"]}`): read as a long one.
  const patch = isPatch(value)
  const long = patch || value.length > SHORT_PAYLOAD_LENGTH || lines > SHORT_PAYLOAD_LINES
  // A free-form tool's input or an `input` argument is a payload when long, as a file's content under a payload key
  // is; so is any multi-line argument of a call that writes files, other than its command.
  const body = options.writes && lines > 1 && !COMMAND_KEYS.has(name)
  if (patch || body || PAYLOAD_KEYS.has(name) || STEP_KEYS.has(name) || (long && (name === 'arguments' || name === 'input') && (value.length > options.maxLength || lines > options.maxLines))) {
    // A short payload (a one-line edit) is read as code whole; a long one (a file written, a patch) for the values
    // written into it only (see PAYLOAD_VALUE_KINDS), and for the files a patch names in its headers (the target path
    // stands for the payload). Measured on the corpus's real compaction points, the values of files the agent wrote
    // were 48 of the 120 items a session used again after its first summary.
    const targets = long ? patchTargets(value, 0, value.length) : []
    // The names the written text defines or depends on (not those an edit replaces).
    const names: InterfaceOptions | undefined = REPLACED_KEYS.has(name) ? undefined : { source: 'payload', patch: targets.length > 0 || name === 'patch' || name === 'diff' }
    payloadItems(value, 0, value.length, long ? PAYLOAD_VALUE_KINDS : undefined, inOrder(value, at, json), options.caches, push, targets, names)
    return
  }
  if (COMMAND_KEYS.has(name)) {
    // A poll (wait, then read: `sleep 120 && tail -20 /tmp/run.log`) is repeated with other waits and can be run again
    // for its output (the record's condition 1): what it reads is its state. (Other reading commands stay whole: a
    // session runs `git status` or `ls src/` again verbatim, and such a command costs about what its path does.)
    // A read on another machine (`ssh -p 2222 root@host "tail -5 /workspace/train.log"`) repeats its connection with
    // every look: the connection is kept (once per segment, as items are distinct by text) and what it reads.
    const remote = remoteConnection(value)
    if (value.length <= options.maxLength && (/^\s*sleep\s/.test(value) || remote !== undefined) && isObservation(value)) {
      const spans = scanText(value, 0, value.length, { mode: 'code', caches: options.caches, into: new SpanList(16) })
      const locate = inOrder(value, at, json)
      let targets = 0
      if (remote !== undefined) {
        const [start, end] = locate(remote[0], remote[1])
        push(value.slice(remote[0], remote[1]), start, end)
      }
      for (let index = 0; index < spans.length; index++) {
        // The connection's own words (its key file) are in its item.
        if (remote !== undefined && spans.starts[index]! < remote[1] && spans.ends[index]! > remote[0]) continue
        if (!TARGET_KINDS.has(spans.kindOf(index))) continue
        const [start, end] = locate(spans.starts[index]!, spans.ends[index]!)
        push(value.slice(spans.starts[index], spans.ends[index]), start, end)
        targets++
      }
      if (targets > 0) return
    }
    const bodies: Array<[number, number]> = []
    let ranges = commandRanges(value, options, bodies)
    // A command run on another machine repeats its connection (`ssh -p 19377 root@host -i key -o …`) with every
    // command sent there: the connection is its own item (once per segment), the command sent is the other.
    if (remote !== undefined) ranges = withoutConnection(value, ranges, remote)
    if (ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === value.length) {
      push(value, at, at + (json ? jsonLength(value) : value.length))
      return
    }
    // The body of a heredoc that writes a file is a payload: its values are items, as a Write call's are.
    if (bodies.length > 0) {
      const locateBody = inOrder(value, at, json)
      for (const [start, end] of bodies) {
        // A patch fed to `apply_patch`, `patch` or `git apply` names the files it writes in its headers.
        const targets = patchTargets(value, start, end)
        payloadItems(value, start, end, PAYLOAD_VALUE_KINDS, locateBody, options.caches, push, targets, { source: 'payload', patch: targets.length > 0 })
      }
    }
    // Ranges come in order: one pass locates them all.
    const locate = inOrder(value, at, json)
    for (const [start, end] of ranges) {
      const [from, to] = locate(start, end)
      push(value.slice(start, end), from, to)
    }
    return
  }
  if (value.length > options.maxLength || lines > options.maxLines) return
  // A value with no letter or digit (Codex's `workdir: "."`, a separator `"; "`) has no identity of its own; a glob
  // or a root (`**/*`, `/`, `~`) does.
  if (!/[\p{L}\p{N}*?/~]/u.test(value)) return
  push(value, at, at + (json ? jsonLength(value) : value.length))
}

/**
 * Pushes the items of the payload `value[start, end)` read as code (only those of `kinds` when given), the paths of
 * `targets`, and with `names` the names of its interface (`interfaceNames`) not inside an item already pushed, located
 * by `locate`, which takes ranges in increasing order.
 */
function payloadItems(
  value: string,
  start: number,
  end: number,
  kinds: ReadonlySet<string> | undefined,
  locate: (start: number, end: number) => [number, number],
  caches: ScanCaches,
  push: Push,
  targets: ReadonlyArray<readonly [number, number]> = [],
  names?: InterfaceOptions,
): void {
  const spans = names?.patch === true ? addedLineSpans(value, start, end, caches) : scanText(value, start, end, { mode: 'code', caches, into: new SpanList(16) })
  const defined: number[] = []
  if (names !== undefined) interfaceNames(value, start, end, names, defined)
  let target = 0
  let name = 0
  // The end of the last span pushed: a name inside it (`REPO_ROOT` of `REPO_ROOT=/srv/app`) is in that item already.
  let pushedEnd = -1
  // Targets, names and spans are each in order: merged, so `locate` sees increasing starts.
  const pushBefore = (limit: number) => {
    for (;;) {
      const targetAt = target < targets.length ? targets[target]![0] : Number.POSITIVE_INFINITY
      const nameAt = name < defined.length ? defined[name]! : Number.POSITIVE_INFINITY
      if (target < targets.length && targetAt <= limit && targetAt <= nameAt) {
        const [from, to] = locate(targetAt, targets[target]![1])
        push(value.slice(targetAt, targets[target]![1]), from, to)
        target++
      } else if (name < defined.length && nameAt < limit) {
        if (nameAt >= pushedEnd) {
          const [from, to] = locate(nameAt, defined[name + 1]!)
          push(value.slice(nameAt, defined[name + 1]), from, to, 'identifier')
        }
        name += 2
      } else return
    }
  }
  for (let index = 0; index < spans.length; index++) {
    let kind = spans.kindOf(index)
    let spanStart = spans.starts[index]!
    let spanEnd = spans.ends[index]!
    // A manifest's version is written with the name it pins (`"vitest": "^2.1.9"`): the item the planner keys, so a
    // later bump of the same package supersedes it. Found before the names before it are pushed, so starts increase.
    const pair = kind === 'version' ? manifestPairStart(value, start, spanStart, spanEnd, end) : -1
    if (pair !== -1) {
      spanStart = pair
      spanEnd++
    }
    pushBefore(spanStart)
    // A custom property's value (`--color-primary: #605BFF;`, `--radius: 12px;`) is written with its property.
    const property = kind === 'constant' || kind === 'number' ? customPropertyStart(value, start, spanStart, spanEnd, end) : -1
    if (property !== -1) spanStart = property
    else if (kind === 'identifier') {
      // A markup attribute's quoted path or URL (`<img src="./assets/logo.svg" />`) is the value, not its attribute.
      const quoted = attributeValue(value, spanStart, spanEnd, end)
      if (quoted !== undefined) {
        ;[spanStart, spanEnd, kind] = quoted
      }
    }
    if (property === -1 && kinds !== undefined && !kinds.has(kind) && !(kind === 'identifier' && isWrittenValue(value.slice(spanStart, spanEnd)))) continue
    if ((kind === 'path' || kind === 'url') && !isUsablePath(value, spanStart, spanEnd)) continue
    const [from, to] = locate(spanStart, spanEnd)
    push(value.slice(spanStart, spanEnd), from, to)
    pushedEnd = Math.max(pushedEnd, spanEnd)
  }
  pushBefore(Number.POSITIVE_INFINITY)
}

/**
 * addedLineSpans(patch [start, end)) = the spans of a patch's added lines (`+` not followed by `++ `), each read as
 * code without its `+`: what the patch writes, not the lines it removes or keeps (`+port: 9090`, not `-port: 8080`).
 * One scan per added line, each over its own line only.
 */
function addedLineSpans(value: string, start: number, end: number, caches: ScanCaches): SpanList {
  const spans = new SpanList(16)
  for (let line = start; line < end; ) {
    let next = value.indexOf('\n', line)
    if (next === -1 || next > end) next = end
    if (value.charCodeAt(line) === 43 && !value.startsWith('++ ', line + 1) && next > line + 1) scanText(value, line + 1, next, { mode: 'code', caches, into: spans })
    line = next + 1
  }
  return spans
}

/** The longest manifest key looked back over (npm allows 214 units): a longer run is no package name. */
const MAX_MANIFEST_KEY = 214

/**
 * manifestPairStart(value, [start, end), [valueStart, valueEnd)) = where the quoted key starts when the version at
 * `[valueStart, valueEnd)` is a JSON string's whole content after that key (`"vitest": "^2.1.9"`: a quote right
 * before and after the version, up to 4 spaces or tabs around `:`, a key of no quote, backslash or space, its opening
 * quote after the line's start, a space, `{` or `,`), else -1. The pair ends at the version's closing quote. Looks
 * back at most {@link MAX_MANIFEST_KEY} units and the gap, so a long line costs no more per version.
 */
export function manifestPairStart(value: string, start: number, valueStart: number, valueEnd: number, end: number): number {
  if (valueStart - start < 6 || valueEnd >= end || value.charCodeAt(valueStart - 1) !== 34 || value.charCodeAt(valueEnd) !== 34) return -1
  let at = valueStart - 1
  const gapLimit = Math.max(start, at - 4)
  while (at > gapLimit && (value.charCodeAt(at - 1) === 32 || value.charCodeAt(at - 1) === 9)) at--
  if (at === start || value.charCodeAt(at - 1) !== 58) return -1
  at--
  const colonLimit = Math.max(start, at - 4)
  while (at > colonLimit && (value.charCodeAt(at - 1) === 32 || value.charCodeAt(at - 1) === 9)) at--
  if (at === start || value.charCodeAt(at - 1) !== 34) return -1
  const keyEnd = --at
  const keyLimit = Math.max(start, keyEnd - MAX_MANIFEST_KEY - 1)
  while (at > keyLimit && isManifestKeyUnit(value.charCodeAt(at - 1))) at--
  if (at === keyEnd || at === start || value.charCodeAt(at - 1) !== 34) return -1
  const quote = at - 1
  if (quote > start) {
    const before = value.charCodeAt(quote - 1)
    if (before !== 32 && before !== 9 && before !== 10 && before !== 13 && before !== 123 && before !== 44) return -1
  }
  return quote
}

/** Units of a manifest key (a package name, `@scope/name`): anything but a quote, a backslash, a space or a control. */
const isManifestKeyUnit = (code: number) => code > 32 && code !== 34 && code !== 92 && code !== 127

/** The longest custom property name looked back over (`--color-text-main`): a longer run of units is no declaration. */
const MAX_PROPERTY = 64

/**
 * customPropertyStart(value, [start, end), [valueStart, valueEnd)) = where `--name` starts when the value word at
 * `[valueStart, valueEnd)` is the whole value of a CSS custom property declaration (`--name: value` then `;`, `}` or
 * the line's end, the `--` after a line start, a space, `{` or `;`), else -1. Looks back at most {@link MAX_PROPERTY}
 * units past the `:`, so a long line costs no more per value.
 */
export function customPropertyStart(value: string, start: number, valueStart: number, valueEnd: number, end: number): number {
  let after = valueEnd
  while (after < end && (value.charCodeAt(after) === 32 || value.charCodeAt(after) === 9)) after++
  const closer = value.charCodeAt(after)
  if (after < end && closer !== 59 && closer !== 125 && closer !== 10 && closer !== 13) return -1
  let at = valueStart
  while (at > start && (value.charCodeAt(at - 1) === 32 || value.charCodeAt(at - 1) === 9)) at--
  if (at === start || value.charCodeAt(at - 1) !== 58) return -1
  at--
  const nameEnd = at
  const limit = Math.max(start, nameEnd - MAX_PROPERTY)
  while (at > limit && isPropertyUnit(value.charCodeAt(at - 1))) at--
  // `--` and a letter open the name; a unit before it that could be a name's would make it longer than the limit.
  if (nameEnd - at < 3 || value.charCodeAt(at) !== 45 || value.charCodeAt(at + 1) !== 45 || !isLetter(value.charCodeAt(at + 2))) return -1
  if (at > start) {
    const before = value.charCodeAt(at - 1)
    if (before !== 32 && before !== 9 && before !== 10 && before !== 13 && before !== 123 && before !== 59) return -1
  }
  return at
}

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
/** Units of a custom property's name: letters, digits, `-`, `_`. */
const isPropertyUnit = (code: number) => isLetter(code) || (code >= 48 && code <= 57) || code === 45 || code === 95

/**
 * attributeValue(value, [wordStart, wordEnd)) = the range and kind of the quoted value of a markup attribute word
 * (`src="./assets/logo.svg"`, `href='https://…'`: a name of letters, `-` or `:`, `=`, a quote, the value, the same
 * quote within the word or right after it) when that value is a path or a URL, else undefined. Linear in the word.
 */
export function attributeValue(value: string, wordStart: number, wordEnd: number, end: number): [number, number, 'path' | 'url'] | undefined {
  let at = wordStart
  while (at < wordEnd && (isLetter(value.charCodeAt(at)) || value.charCodeAt(at) === 45 || value.charCodeAt(at) === 58)) at++
  if (at === wordStart || at + 1 >= wordEnd || value.charCodeAt(at) !== 61) return undefined
  const quote = value.charCodeAt(at + 1)
  if (quote !== 34 && quote !== 39) return undefined
  const valueStart = at + 2
  let close = valueStart
  while (close < wordEnd && value.charCodeAt(close) !== quote) close++
  if (close === wordEnd && (close >= end || value.charCodeAt(close) !== quote)) return undefined
  if (close === valueStart) return undefined
  const kind = classifyWord(value.slice(valueStart, close))
  return kind === 'path' || kind === 'url' ? [valueStart, close, kind] : undefined
}

/** Header prefixes of a patch before the path of a file it writes: Codex's apply_patch, then unified diff's. */
const PATCH_HEADERS = ['*** Add File: ', '*** Update File: ', '*** Delete File: ', '*** Move to: ', '+++ b/', '--- a/', '+++ ', '--- '] as const

/**
 * patchTargets(value, [start, end)) = the ranges of the paths a patch's header lines name, in order: `*** Update File: PATH` (and
 * Add, Delete, Move to) as Codex's apply_patch writes them, `--- a/PATH` and `+++ b/PATH` (or without the `a/`, `b/`)
 * as a unified diff does, without `/dev/null` and a trailing tab-separated date. One pass over the lines.
 */
export function patchTargets(value: string, start = 0, end = value.length): Array<[number, number]> {
  const targets: Array<[number, number]> = []
  let afterMinusHeader = false
  for (let line = start; line < end; ) {
    let next = value.indexOf('\n', line)
    if (next === -1 || next > end) next = end
    const first = value.charCodeAt(line)
    let minusHeader = false
    if (first === 42 || first === 43 || first === 45) {
      const header = PATCH_HEADERS.find((prefix) => value.startsWith(prefix, line))
      // A unified diff's header pair is `---` then `+++` on the next line; a removed line that starts with `-- ` and
      // an added one that starts with `++ ` are not headers.
      minusHeader = first === 45 && header !== undefined && value.startsWith('+++ ', next + 1)
      if (header !== undefined && (first === 42 || minusHeader || (first === 43 && afterMinusHeader))) {
        const from = line + header.length
        let to = from
        while (to < next && value.charCodeAt(to) !== 9 && value.charCodeAt(to) !== 13) to++
        while (to > from && value.charCodeAt(to - 1) === 32) to--
        if (to > from && value.charCodeAt(from) !== 32 && value.slice(from, to) !== '/dev/null') targets.push([from, to])
      }
    }
    afterMinusHeader = minusHeader
    line = next + 1
  }
  return targets
}

/**
 * Whether the path `value[start, end)` of a payload can be used as written: not elided (`.../helena/`,
 * `https://host/.../page`), and not a bare name drawn in a tree diagram (`├── base.py`), whose directory only the
 * drawing implies.
 */
function isUsablePath(value: string, start: number, end: number): boolean {
  const text = value.slice(start, end)
  if (text.startsWith('...') || text.includes('/.../') || text.includes('/…/')) return false
  const inner = text.indexOf('/')
  if (inner !== -1 && inner < text.length - 1) return true
  // Box-drawing characters (U+2500-U+257F) before it on its line (looked for up to 120 units back, so that a long
  // line costs no more per path): it is a node of a tree diagram.
  for (let index = start - 1; index >= 0 && index >= start - 120; index--) {
    const code = value.charCodeAt(index)
    if (code === 10) break
    if (code >= 0x2500 && code <= 0x257f) return false
  }
  return true
}

/**
 * A locator of ranges of `value` (rendered from `at`, as a JSON string literal when `json`) for ranges given in
 * increasing order of start: the escaped length is added on from the previous range, so locating every value of a
 * long payload costs one pass over it (a range starting before the previous one starts over from the value's start).
 */
function inOrder(value: string, at: number, json: boolean): (start: number, end: number) => [number, number] {
  if (!json) return (start, end) => [at + start, at + end]
  let unit = 0
  let escaped = at + 1
  return (start, end) => {
    if (start < unit) {
      unit = 0
      escaped = at + 1
    }
    escaped += escapedLength(value, unit, start)
    unit = start
    return [escaped, escaped + escapedLength(value, start, end)]
  }
}

/** Lines of `value`, counted up to `stopAt`. */
function countLines(value: string, stopAt: number): number {
  let lines = 1
  for (let index = value.indexOf('\n'); index !== -1 && lines < stopAt; index = value.indexOf('\n', index + 1)) lines++
  return lines
}

/** Length of `JSON.stringify(value)`. */
function jsonLength(value: string): number {
  return escapedLength(value, 0, value.length) + 2
}

/**
 * Length of the JSON string escape of `value[start, end)`: `"`, `\` and the short control escapes take 2 units, other
 * control characters and lone surrogates 6 (`\u001b`), everything else 1.
 */
export function escapedLength(value: string, start: number, end: number): number {
  let length = 0
  for (let index = start; index < end; index++) {
    const code = value.charCodeAt(index)
    if (code >= 0x20 && code !== 34 && code !== 92 && (code < 0xd800 || code > 0xdfff)) length++
    else if (code === 34 || code === 92 || code === 8 || code === 9 || code === 10 || code === 12 || code === 13) length += 2
    else if (code < 0x20) length += 6
    else if (code <= 0xdbff && index + 1 < end && (value.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      length += 2
      index++
    } else length += 6
  }
  return length
}

/** Kinds an observation command's targets have (see {@link isObservation}). */
const TARGET_KINDS: ReadonlySet<string> = new Set(['path', 'url', 'hash', 'uuid', 'version'])
/** Programs that only read (or wait): a command made of them changes nothing. */
const READING_PROGRAMS = new Set([
  'cat', 'head', 'tail', 'less', 'more', 'ls', 'tree', 'stat', 'file', 'du', 'df', 'wc', 'grep', 'egrep', 'rg', 'ag', 'find', 'fd',
  'echo', 'printf', 'pwd', 'cd', 'which', 'type', 'whoami', 'date', 'env', 'printenv', 'sleep', 'timeout', 'sort', 'uniq', 'cut', 'tr',
  'column', 'diff', 'jq', 'nvidia-smi', 'ps', 'pgrep', 'uptime', 'free', 'readlink', 'realpath', 'basename', 'dirname', 'true',
])
/** Subcommands of `git` that only read. */
const READING_GIT = new Set(['status', 'log', 'diff', 'show', 'branch', 'remote', 'rev-parse', 'ls-files', 'blame', 'describe', 'config'])
/** Words that make a step write or run something: in-place edits, deletions, executions, redirections into files. */
const WRITING_WORDS = new Set(['-i', '--in-place', '-delete', '-exec', '-execdir', '-ok', '-fprint', '--output'])

/**
 * isObservation(command) = whether every step of a shell command (split at `&&`, `||`, `;`, `|` and line breaks) runs
 * a program that only reads (`sleep 60 && tail -20 /tmp/run.log 2>&1`, `git log --oneline -5`, `ls checkpoints/`),
 * with no redirection into a file, no command substitution and no heredoc; `ssh … host "…"` reads when its remote
 * command does. Its output can be had again by running it again, so what it names (paths, URLs, ids) is its state,
 * not the command.
 */
export function isObservation(command: string): boolean {
  if (command.includes('$(') || command.includes('`') || command.includes('<<')) return false
  for (const words of shellSteps(command)) {
    const program = words[0]!
    if (program === 'ssh') {
      // A read on another machine: the remote command, one quoted word after the host, reads too.
      const remote = remoteWords(words)
      if (remote === undefined || !isObservation(remote)) return false
      continue
    }
    if (program === 'git') {
      const sub = words[1] ?? ''
      if (!READING_GIT.has(sub)) return false
      if (sub === 'config' && !words.some((word) => word === '--get' || word === '--list' || word === '-l')) return false
      if (sub === 'branch' && words.some((word, index) => index > 1 && !word.startsWith('-'))) return false
    } else if (!READING_PROGRAMS.has(program)) return false
    for (const word of words) {
      if (WRITING_WORDS.has(word)) return false
      // A redirection into a file writes it; `2>&1` and `>/dev/null` do not.
      if (word.includes('>') && !/^\d?>&\d$/.test(word) && !/^\d?>\/dev\/null$/.test(word)) return false
    }
  }
  return true
}

/** Options of `ssh` that take a value (`-p 2222`, `-i key`, `-o Name=value`). */
const SSH_VALUE_OPTIONS = new Set(['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w'])

/** The remote command of an `ssh` step's words (the word after the host, unquoted), or undefined if it has none or more. */
function remoteWords(words: readonly string[]): string | undefined {
  // Options, the host, options again (OpenSSH takes them on either side), then exactly one word: the remote command.
  let index = 1
  let host = false
  while (index < words.length && (words[index]!.startsWith('-') || !host)) {
    if (words[index]!.startsWith('-')) index += SSH_VALUE_OPTIONS.has(words[index]!) ? 2 : 1
    else {
      host = true
      index++
    }
  }
  if (!host || index + 1 !== words.length) return undefined
  const remote = words[index]!
  const quote = remote.charCodeAt(0)
  if ((quote !== 34 && quote !== 39) || remote.charCodeAt(remote.length - 1) !== quote || remote.length < 3) return undefined
  const inner = remote.slice(1, -1)
  return quote === 34 ? inner.replace(/\\(["\\$`])/g, '$1') : inner
}

/**
 * Where the first `ssh` connection of a command is (`ssh`, its host and the options around it: `ssh -p 2222
 * root@host -i ~/.ssh/k`), as a range of `command`, or undefined if it runs none.
 */
function remoteConnection(command: string): [number, number] | undefined {
  const at = /(?:^|[\s;&|])ssh\s/.exec(command)
  if (at === null) return undefined
  const start = at.index + at[0].indexOf('ssh')
  let index = start + 3
  const word = (): [number, number] => {
    while (index < command.length && (command.charCodeAt(index) === 32 || command.charCodeAt(index) === 9)) index++
    const from = index
    while (index < command.length && command.charCodeAt(index) !== 32 && command.charCodeAt(index) !== 9 && command.charCodeAt(index) !== 10) index++
    return [from, index]
  }
  let end = -1
  for (;;) {
    const [from, to] = word()
    if (to === from) return end === -1 ? undefined : [start, end]
    const text = command.slice(from, to)
    if (!text.startsWith('-')) {
      // The host; after it, options until the remote command.
      if (end !== -1) return [start, end]
      end = to
      continue
    }
    if (SSH_VALUE_OPTIONS.has(text)) word()
    if (end !== -1) end = index
  }
}

/** A wait alone, with the operator that chains it (`sleep 30 &&`, `sleep 2;`). */
const WAIT_STEP = /^sleep [0-9.]+[smhd]? *(?:&&|;|\|\|)?$/

/**
 * `ranges` (in order) with the connection `[start, end)` as a range of its own: a range holding it is cut into what
 * stands before it (when it holds a letter or digit, not only `&&`, and is not a wait: `sleep 30 &&`) and what follows it (trimmed, opening quote
 * kept), unless a heredoc follows it, whose opening line stays whole.
 */
function withoutConnection(value: string, ranges: ReadonlyArray<[number, number]>, connection: [number, number]): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (const [start, end] of ranges) {
    if (end <= connection[0] || start >= connection[1]) {
      out.push([start, end])
      continue
    }
    const before = trimmedRange(value, start, connection[0])
    // A wait before it (`sleep 30 && ssh …`) is a fragment nobody types again: the connection and its command are the items.
    if (before !== undefined && /[A-Za-z0-9]/.test(value.slice(before[0], before[1])) && !WAIT_STEP.test(value.slice(before[0], before[1]))) out.push(before)
    out.push(connection)
    const after = trimmedRange(value, connection[1], end)
    // A heredoc sent there (`ssh host << 'EOF'`) is its body's lines: the line that opens it stays whole.
    if (after !== undefined && value.startsWith('<<', after[0])) {
      out.pop()
      if (out.length > 0 && out[out.length - 1]![0] >= start) out.pop()
      out.push([start, end])
      continue
    }
    if (after !== undefined) out.push(after)
  }
  return out
}

/** The steps of a shell command (split at unquoted `&&`, `||`, `;`, `|` and line breaks), each as its words (quotes kept). */
function shellSteps(command: string): string[][] {
  const steps: string[][] = []
  let words: string[] = []
  let word = ''
  let quote = 0
  const endWord = () => {
    if (word !== '') words.push(word)
    word = ''
  }
  const endStep = () => {
    endWord()
    if (words.length > 0) steps.push(words)
    words = []
  }
  for (let index = 0; index < command.length; index++) {
    const code = command.charCodeAt(index)
    if (quote !== 0) {
      if (code === quote) quote = 0
      else if (code === 92 && quote === 34) word += command[index++] ?? ''
      word += command[index] ?? ''
      continue
    }
    if (code === 34 || code === 39) quote = code
    if (code === 59 || code === 124 || code === 10 || (code === 38 && command.charCodeAt(index + 1) === 38 && command.charCodeAt(index - 1) !== 62)) {
      endStep()
      if ((code === 38 || code === 124) && command.charCodeAt(index + 1) === code) index++
      continue
    }
    if (code === 32 || code === 9) endWord()
    else word += command[index]
  }
  endStep()
  return steps
}

/** Options that take a message (a commit's, a pull request's, a release's), and the quote that opens their value. */
const MESSAGE_OPTION = /(?:^|\s)(?:-m|--message|--body|--notes|--description)(?:\s+|=)(["'])/g
/** A heredoc inside a command substitution: `$(cat <<'EOF'`, with its delimiter. */
const SUBSTITUTED_HEREDOC = /^\$\(cat\s*<<-?\s*(['"]?)([A-Za-z_]\w*)\1[ \t]*\n/
/** A heredoc's start on a line, with its delimiter. */
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_]\w*)\1/
/** A program whose heredoc is a file's content (`tee`) or a patch (`apply_patch`, `patch`, `git apply`). */
const WRITING_PROGRAM = /(?:^|[\s;&|(])(?:tee|apply_patch|patch|git[ \t]+apply)\b/
/** A program whose heredoc is a patch. */
const PATCH_PROGRAM = /(?:^|[\s;&|(])(?:apply_patch|patch|git[ \t]+apply)\b/
/** `cat` as a word (at the line's start or after a space, `;`, `&`, `|` or `(`). */
const CAT_WORD = /(?:^|[\s;&|(])cat\b/

/**
 * writesFile(line) = whether the heredoc a line opens is a file's content: `cat` redirected to a file (a `>` after
 * it, not `>&`, `>>` or `>=`), or `tee`; or a patch, fed to `apply_patch`, `patch` or `git apply`. Linear in the
 * line: the first `cat` is found once and the `>` looked for after it (a lazy `cat\b[^\n]*?>` tried again from every
 * `cat` took 45 s on a megabyte of `cat cat …`).
 */
function writesFile(line: string): boolean {
  if (WRITING_PROGRAM.test(line)) return true
  const cat = CAT_WORD.exec(line)
  if (cat === null) return false
  for (let index = line.indexOf('>', cat.index + cat[0].length); index !== -1; index = line.indexOf('>', index + 1)) {
    const next = line.charCodeAt(index + 1)
    if (next !== 38 && next !== 62 && next !== 61) return true
  }
  return false
}

/**
 * The parts of a command (or script) argument that are state, as ranges of `value`.
 *
 * - A message (the value of `-m`, `--message`, `--body`, `--notes`, `--description`, quoted or a `$(cat <<'EOF' … EOF)`
 *   heredoc) that spans lines is cut after its first line: it is narrative that the tool shows again (`git log`,
 *   `gh pr view`), and it made commit commands among the largest items of real sessions. The command up to and with
 *   that first line is one range, the rest of the command after the message's closing quote another (unless it only
 *   redirects: `2>&1`).
 * - A command that is still long (over `maxLength` units or `maxLines` lines) keeps its first line and every other line
 *   that carries a setting, path, flag, URL, version or identifier (see {@link carriesState}), each whole (capped at
 *   `maxLength`); comments, blank lines and narrative (`echo "starting"`) go, and so does the body of a heredoc that
 *   writes a file (`cat > path << 'EOF'`): its first line names the file, and its body is a payload whose values are
 *   read as a Write call's are (its ranges go to `bodies` when given).
 * - Anything else is one range, the whole value.
 */
export function commandRanges(value: string, options: ArgumentOptions, bodies?: Array<[number, number]>): Array<[number, number]> {
  const pieces: Array<[number, number]> = []
  let pieceStart = 0
  MESSAGE_OPTION.lastIndex = 0
  for (let match = MESSAGE_OPTION.exec(value); match !== null; match = MESSAGE_OPTION.exec(value)) {
    const quoteAt = match.index + match[0].length - 1
    if (quoteAt < pieceStart) continue
    const message = messageAt(value, quoteAt)
    if (message === undefined) continue
    const [firstLineEnd, resume] = message
    pieces.push([pieceStart, firstLineEnd])
    pieceStart = resume
    MESSAGE_OPTION.lastIndex = resume
  }
  if (pieces.length === 0) {
    // A heredoc that feeds a patch is a payload however short: its lines are read as a long command's.
    if (value.length <= options.maxLength && countLines(value, options.maxLines + 1) <= options.maxLines && !patchHeredoc(value)) return [[0, value.length]]
  }
  pieces.push([pieceStart, value.length])
  const ranges: Array<[number, number]> = []
  for (const [start, end] of pieces) {
    const long = end - start > options.maxLength || countLines(value.slice(start, end), options.maxLines + 1) > options.maxLines || patchHeredoc(value.slice(start, end))
    if (long) keptLines(value, start, end, options.maxLength, ranges, bodies)
    else {
      const trimmed = trimmedRange(value, start, end)
      // The rest of a command after a message is kept when it runs something (`&& git push`), not for a redirection.
      if (trimmed !== undefined && (start === 0 || /[A-Za-z]/.test(value.slice(trimmed[0], trimmed[1])))) ranges.push(trimmed)
    }
  }
  return ranges
}

/**
 * Whether a line of `command` opens a heredoc that feeds a patch (`apply_patch <<'EOF'`, `git apply <<EOF`): a payload
 * however short. (A short heredoc that writes a file, `cat > run.sh << 'EOF'`, stays a command whole: a session runs
 * it again verbatim, and it costs about what its values do.)
 */
function patchHeredoc(command: string): boolean {
  if (!command.includes('<<')) return false
  for (let line = 0; line < command.length; ) {
    let next = command.indexOf('\n', line)
    if (next === -1) next = command.length
    const text = command.slice(line, next)
    if (text.includes('<<') && HEREDOC.test(text) && PATCH_PROGRAM.test(text)) return true
    line = next + 1
  }
  return false
}

/**
 * For the message whose quote is at `quoteAt`, when it spans lines: where its first non-empty line ends, and where the
 * command resumes after its closing quote. Undefined for a one-line message or one whose end is not found.
 */
function messageAt(value: string, quoteAt: number): [number, number] | undefined {
  const quote = value.charCodeAt(quoteAt)
  const contentStart = quoteAt + 1
  let contentEnd: number
  let resume: number
  const heredoc = quote === 34 ? SUBSTITUTED_HEREDOC.exec(value.slice(contentStart, contentStart + 64)) : null
  let bodyStart = contentStart
  if (heredoc) {
    bodyStart = contentStart + heredoc[0].length
    const delimiter = heredoc[2]!
    let lineStart = bodyStart
    contentEnd = -1
    while (lineStart <= value.length) {
      const newline = value.indexOf('\n', lineStart)
      const lineEnd = newline === -1 ? value.length : newline
      if (value.slice(lineStart, lineEnd).trim() === delimiter) {
        contentEnd = lineStart
        break
      }
      if (newline === -1) break
      lineStart = newline + 1
    }
    if (contentEnd === -1) return undefined
    const close = value.indexOf(')', contentEnd + delimiter.length)
    if (close === -1 || value.charCodeAt(close + 1) !== 34) return undefined
    resume = close + 2
  } else {
    let close = contentStart
    while (close < value.length && value.charCodeAt(close) !== quote) close += quote === 34 && value.charCodeAt(close) === 92 ? 2 : 1
    if (close >= value.length) return undefined
    contentEnd = close
    resume = close + 1
  }
  // The first line with content, and whether any follows it.
  let lineStart = bodyStart
  while (lineStart < contentEnd) {
    const newline = value.indexOf('\n', lineStart)
    const lineEnd = newline === -1 || newline > contentEnd ? contentEnd : newline
    if (value.slice(lineStart, lineEnd).trim() !== '') {
      return value.slice(lineEnd, contentEnd).trim() === '' ? undefined : [trimEnd(value, lineStart, lineEnd), resume]
    }
    lineStart = lineEnd + 1
  }
  return undefined
}

/**
 * Appends the kept lines of the long command `value[start, end)` to `into` (see {@link commandRanges}), each trimmed
 * and capped at `maxLength`.
 */
function keptLines(value: string, start: number, end: number, maxLength: number, into: Array<[number, number]>, bodies?: Array<[number, number]>): void {
  let first = true
  // The delimiter of the file-writing heredoc being skipped, if any, and where its body starts.
  let payloadEnd: string | undefined
  let bodyStart = 0
  let lineStart = start
  while (lineStart < end) {
    const newline = value.indexOf('\n', lineStart)
    const lineEnd = newline === -1 || newline > end ? end : newline
    const line = value.slice(lineStart, lineEnd)
    const range = trimmedRange(value, lineStart, lineEnd)
    if (payloadEnd !== undefined) {
      if (line.trim() === payloadEnd) {
        payloadEnd = undefined
        if (lineStart > bodyStart) bodies?.push([bodyStart, lineStart - 1])
      }
    } else if (range !== undefined) {
      const keep = first || carriesState(line)
      if (keep) into.push([range[0], capSpan(value, range[0], range[1], maxLength)])
      first = false
      const heredoc = HEREDOC.exec(line)
      if (heredoc && writesFile(line)) {
        payloadEnd = heredoc[2]
        bodyStart = lineEnd + 1
      }
    }
    lineStart = lineEnd + 1
  }
  // A heredoc whose delimiter never came runs to the end of the command.
  if (payloadEnd !== undefined && end > bodyStart) bodies?.push([bodyStart, end])
}

/**
 * Whether a line of a command carries state: a flag (`--max_steps`, `-p`), or a word some pattern classifies (a path,
 * URL, version, setting `LR=3e-4`, identifier) that is state by itself (not a bare name of code such as
 * `train_dataset = ChunkDataset(chunks)`: see `standsAlone`). A comment (`# …`) carries none.
 */
export function carriesState(line: string): boolean {
  const trimmed = line.trimStart()
  if (trimmed.startsWith('#') && !trimmed.startsWith('#!')) return false
  for (const word of wordsOf(line, 0, line.length)) {
    const code = word.text.charCodeAt(0)
    if (code === 45 && word.text.length >= 2 && /^--?[A-Za-z]/.test(word.text)) return true
    const kind = classifyWord(word.text)
    if (kind && standsAlone(word.text, kind)) return true
  }
  return false
}

function trimmedRange(value: string, start: number, end: number): [number, number] | undefined {
  let from = start
  while (from < end && /\s/.test(value[from]!)) from++
  const to = trimEnd(value, from, end)
  return to > from ? [from, to] : undefined
}

function trimEnd(value: string, start: number, end: number): number {
  let to = end
  while (to > start && /\s/.test(value[to - 1]!)) to--
  return to
}

import type { ItemKind } from '../../spec/estimator.js'
import { isSpace } from './_scan.js'
import { AT, BACKSLASH, COLON, COMPARE, CURRENCY, DIGIT, DOT, EQUALS, HYPHEN, isProse, LOWER, NON_HEX_LETTER, OTHER, PAREN, PERCENT, SLASH, UNDERSCORE, UPPER_FIRST, UPPER_INNER, wordFlags } from './_flags.js'

/**
 * Classifies one whitespace-delimited word into an irreducible kind, or `undefined` for narrative.
 *
 * Every pattern is anchored and free of nested ambiguous quantifiers, and words are at most
 * MAX_WORD_LENGTH long, so classification is linear in the word.
 */
export function classifyWord(word: string, flags: number = wordFlags(word, 0, word.length)): ItemKind | undefined {
  // Prose and bare integers are never items by themselves (numbers become items through their neighbours).
  if (word.length < 2 || isProse(flags) || (flags & ~DIGIT) === 0) return undefined
  if (flags & COLON && (URL.test(word) || (flags & AT && GIT_REMOTE.test(word)))) return 'url'
  if (flags & DIGIT && flags & DOT && IP_ADDRESS.test(word)) return 'url'
  if (flags & COLON && flags & DIGIT && HOST_PORT.test(word)) return 'url'
  if (flags & HYPHEN && word.length === 36 && UUID.test(word)) return 'uuid'
  if (flags & SLASH && word.charCodeAt(0) === 47 && REGEX_LITERAL.test(word) && REGEX_META.test(word.slice(1, -1))) return 'regex'
  if ((flags & ~(LOWER | DIGIT)) === 0 && flags & DIGIT && flags & LOWER && isHash(word)) return 'hash'
  if (flags & (EQUALS | COMPARE) && (PIN.test(word) || RANGE.test(word))) return 'version'
  if (flags & AT && flags & DIGIT && NPM_PIN.test(word)) return 'version'
  if (flags & DOT && flags & DIGIT && SEMVER.test(word)) return 'version'
  if (flags & EQUALS) {
    if (ENV.test(word)) return 'env'
    if (FLAG_VALUE.test(word) || KEY_VALUE.test(word)) return NUMERIC_TAIL.test(word) ? 'number' : 'identifier'
  }
  if (flags & (SLASH | BACKSLASH | DOT) && isPath(word, flags)) return 'path'
  if (flags & UPPER_INNER || flags & UPPER_FIRST) {
    if (flags & UNDERSCORE && CONSTANT.test(word)) return 'constant'
    if (word.charCodeAt(0) === 69 && ERRNO_NAME.test(word)) return 'constant'
    if (flags & DIGIT && CODE.test(word)) return 'constant'
  }
  if (flags & DIGIT && (SCIENTIFIC.test(word) || DECIMAL.test(word) || NUMBER_WITH_UNIT.test(word))) return 'number'
  if (flags & CURRENCY && MONEY.test(word)) return 'number'
  if (flags & UNDERSCORE && SNAKE.test(word)) return 'identifier'
  if (flags & UPPER_INNER && flags & LOWER && CAMEL.test(word)) return 'identifier'
  if (flags & PAREN && CALL.test(word)) return 'identifier'
  if (flags & (UNDERSCORE | HYPHEN) && flags & DIGIT && PREFIXED_ID.test(word)) return 'identifier'
  if (flags & DOT && isDotted(word)) return 'identifier'
  return undefined
}

const URL = /^(?:https?|ftp|file|ssh|git|wss?|s3|gs):\/\/\S+$/i
const GIT_REMOTE = /^[\w.-]+@[\w.-]+:[\w./~-]+$/
const IP_ADDRESS = /^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?$/
const HOST_PORT = /^(?:localhost|[\w-]+(?:\.[\w-]+)+):\d{2,5}(?:\/\S*)?$/
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const REGEX_LITERAL = /^\/[^\s/][^\s]*\/[dgimsuvy]*$/
const REGEX_META = /\\[dwsbDWSB.]|[\^$]|\[[^\]]*\]|\(\?|\.\*|\.\+|\|/
const HEX = /^[0-9a-f]{7,64}$/
const PIN = /^[A-Za-z0-9][\w.[\]-]*(?:===|==|>=|<=|~=|!=|>|<)\d[\w.*+!-]*(?:,(?:==|>=|<=|~=|!=|<|>)\d[\w.*+!-]*)*$/
const NPM_PIN = /^@?[A-Za-z0-9][\w./-]*@[\^~]?\d[\w.+-]*$/
// `^2.0` and `~1.2.3` need a dot: `~22` is an approximation in prose, not a range.
const RANGE = /^(?:[\^~]\d+(?:\.[\dx*]+)+|(?:>=|<=|==|~=|!=|>|<)\d+(?:\.[\dx*]+)*)(?:-[\w.]+)?(?:,(?:>=|<=|==|~=|!=|>|<)\d+(?:\.[\dx*]+)*)*$/
const SEMVER = /^v?\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/
const ENV = /^(?:--?[A-Za-z]+:)?[A-Z_][A-Z0-9_]*=\S*$/
const FLAG_VALUE = /^--?[A-Za-z][\w-]*=\S+$/
const KEY_VALUE = /^[A-Za-z_][\w.-]*=\S+$/
const NUMERIC_TAIL = /=[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?[A-Za-z%]{0,3}$/
const CONSTANT = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/
const ERRNO_NAME = /^E(?:NOENT|ACCES|PERM|EXIST|NOTDIR|ISDIR|INVAL|NOSPC|ROFS|PIPE|AGAIN|BUSY|CONNREFUSED|CONNRESET|TIMEDOUT|ADDRINUSE|NOTEMPTY|MFILE|NOMEM|HOSTUNREACH|NETUNREACH|NOTFOUND|NOTCONN)$/
const CODE = /^[A-Z]{1,4}\d{2,5}$/
const SCIENTIFIC = /^[-+]?\d+(?:\.\d+)?[eE][-+]?\d+$/
const DECIMAL = /^[-+]?\d*\.\d+$/
const NUMBER_WITH_UNIT = /^[-+]?\d+(?:\.\d+)?(?:ms|us|µs|ns|s|sec|secs|min|mins|h|hr|hrs|d|k|K|M|G|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|%|x|px|rem|em|pt|Hz|kHz|MHz|GHz|fps|rpm|qps|rps)$/
const MONEY = /^[$€£]\d+(?:[.,]\d+)?[kKmM]?$/
const SNAKE = /^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$/
const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/
const CALL = /^[A-Za-z_][\w.]*\([^()\s]*\)$/
const PREFIXED_ID = /^(?=[^\d]*\d)[A-Za-z]{2,}[_-][A-Za-z0-9_-]{6,}$/
const DOTTED = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/
const ROOTED_PATH = /^(?:~|\.{1,2})?(?:\/[\w.@+-]+)+\/?(?::\d+)*$/
const RELATIVE_PATH = /^[\w.@+-]+(?:\/[\w.@+-]*)+(?::\d+)*$/
const WINDOWS_PATH = /^[A-Za-z]:\\\S+$/
const SHORT_WORD_PAIR = /^[A-Za-z]{1,4}\/[A-Za-z]{1,4}$/
const FILE_NAME = /^[\w@+-][\w.@+-]*\.(?:py|pyi|ipynb|ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|mdx|rst|txt|yml|yaml|toml|ini|cfg|conf|env|lock|sh|bash|zsh|ps1|rs|go|c|h|cc|cpp|hpp|java|kt|kts|scala|rb|php|cs|fs|swift|m|mm|html|htm|css|scss|sass|less|vue|svelte|sql|csv|tsv|xml|gradle|proto|graphql|tf|log|bin|pt|pth|ckpt|safetensors|onnx|parquet|npz|npy|h5|pkl|zip|tar|gz|tgz|whl|png|jpg|jpeg|gif|svg|pdf|wasm|so|dylib|dll|exe|traj|patch|diff)(?::\d+)*$/i

function isHash(word: string): boolean {
  if (!HEX.test(word)) return false
  let digits = false
  let letters = false
  for (let index = 0; index < word.length && !(digits && letters); index++) {
    const code = word.charCodeAt(index)
    if (code <= 57) digits = true
    else letters = true
  }
  return digits && letters
}

/** Whether `word` (with these flags) is a path; each pattern runs only if the word has the character it needs. */
function isPath(word: string, flags: number): boolean {
  if (flags & BACKSLASH && WINDOWS_PATH.test(word)) return true
  if (flags & DOT && FILE_NAME.test(word) && /[A-Za-z]/.test(word.slice(0, word.lastIndexOf('.')))) return true
  if (!(flags & SLASH) || SHORT_WORD_PAIR.test(word) || !(ROOTED_PATH.test(word) || RELATIVE_PATH.test(word))) return false
  // A path names something: `1/2` and `2026/03/10` are numbers.
  return (flags & (LOWER | UPPER_FIRST | UPPER_INNER)) !== 0
}

function isDotted(word: string): boolean {
  if (!DOTTED.test(word)) return false
  // `e.g` and `i.e` are prose, `os.path.join` is not: some segment must be a real name.
  return word.split('.').some((segment) => segment.length >= 3)
}

/** Units that make a bare number a threshold when they follow it as the next word. */
export const UNIT_WORDS = new Set([
  'ms', 'milliseconds', 'millisecond', 's', 'sec', 'secs', 'second', 'seconds', 'min', 'mins', 'minute', 'minutes', 'h', 'hr', 'hrs',
  'hour', 'hours', 'day', 'days', 'week', 'weeks', 'b', 'byte', 'bytes', 'kb', 'mb', 'gb', 'tb', 'kib', 'mib', 'gib', 'tib', '%', 'percent',
  'px', 'rem', 'em', 'pt', 'hz', 'khz', 'mhz', 'ghz', 'fps', 'rpm', 'qps', 'rps', 'token', 'tokens', 'char', 'chars', 'character',
  'characters', 'line', 'lines', 'step', 'steps', 'epoch', 'epochs', 'retry', 'retries', 'attempt', 'attempts', 'time', 'times',
  'turn', 'turns', 'message', 'messages', 'request', 'requests', 'worker', 'workers', 'thread', 'threads', 'gpu', 'gpus', 'core',
  'cores', 'file', 'files', 'item', 'items', 'row', 'rows', 'word', 'words', 'page', 'pages', 'batch', 'batches', 'sample', 'samples',
  'usd', 'dollars', 'eur', 'k', 'm', 'x', 'layers', 'heads', 'params', 'parameters', 'users', 'connections', 'concurrent',
])

/** Comparators that make the number after them a threshold (`>= 3`, `at most 5`). Multi-word ones end with the last word. */
export const COMPARATORS: ReadonlyArray<readonly string[]> = [
  ['>='], ['<='], ['>'], ['<'], ['=='], ['!='], ['≥'], ['≤'], ['='],
  ['at', 'most'], ['at', 'least'], ['no', 'more', 'than'], ['no', 'less', 'than'], ['no', 'fewer', 'than'], ['fewer', 'than'],
  ['less', 'than'], ['more', 'than'], ['up', 'to'], ['under'], ['over'], ['exactly'], ['max'], ['min'], ['maximum'], ['minimum'],
  ['limit'], ['timeout'], ['threshold'], ['below'], ['above'], ['within'],
]

/**
 * Flags a unit word can have (letters and `%`; non-ASCII too, as the Kelvin sign lowercases to `k`), and its longest
 * length: other next words are not sliced.
 */
const UNIT_FLAGS = LOWER | UPPER_FIRST | UPPER_INNER | NON_HEX_LETTER | PERCENT | OTHER
const LONGEST_UNIT = Math.max(...[...UNIT_WORDS].map((unit) => unit.length))
/** The comparators by their last word, in {@link COMPARATORS} order. */
const COMPARATORS_BY_LAST = new Map<string, Array<readonly string[]>>()
for (const comparator of COMPARATORS) {
  const last = comparator[comparator.length - 1]!
  COMPARATORS_BY_LAST.set(last, [...(COMPARATORS_BY_LAST.get(last) ?? []), comparator])
}
const LONGEST_COMPARATOR_WORD = Math.max(...COMPARATORS.flat().map((word) => word.length))

/**
 * A set of lower-case words looked up by a word's units in place, so that the words next to every number need no
 * slice: open addressing over FNV-1a of the units, ASCII capitals folded to lower case. A word holding a unit outside
 * ASCII is not looked up here (`find` says so with -2): `toLowerCase` maps some of those to ASCII (the Kelvin sign).
 */
class WordTable {
  readonly words: readonly string[]
  /** Per slot, the index of a word plus one (0 when free). */
  private readonly slots: Int32Array
  private readonly mask: number

  constructor(words: Iterable<string>) {
    this.words = [...words]
    const size = 2 ** Math.ceil(Math.log2(this.words.length * 4))
    this.slots = new Int32Array(size)
    this.mask = size - 1
    this.words.forEach((word, index) => {
      const hash = WordTable.hash(word, 0, word.length)
      // A word outside ASCII (`≥`) is only ever found through the fallback (see `find`).
      if (hash === -1) return
      let slot = hash & this.mask
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask
      this.slots[slot] = index + 1
    })
  }

  /** FNV-1a of the units of `[start, end)`, ASCII capitals folded; -1 if a unit is outside ASCII. */
  private static hash(text: string, start: number, end: number): number {
    let hash = 0x811c9dc5
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index)
      if (code >= 128) return -1
      hash = Math.imul(hash ^ (code >= 65 && code <= 90 ? code + 32 : code), 0x01000193)
    }
    return (hash ^ (hash >>> 16)) & 0x7fffffff
  }

  /** Index in {@link WordTable.words} of the word `text[start, end)` lowered, -1 if absent, -2 if not ASCII. */
  find(text: string, start: number, end: number): number {
    const hash = WordTable.hash(text, start, end)
    if (hash === -1) return -2
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot]!
      if (entry === 0) return -1
      const word = this.words[entry - 1]!
      if (word.length === end - start && sameFolded(text, start, word)) return entry - 1
    }
  }
}

/** Whether `text` from `start` on holds `word` (lower-case ASCII), ASCII capitals folded. */
function sameFolded(text: string, start: number, word: string): boolean {
  for (let offset = 0; offset < word.length; offset++) {
    const code = text.charCodeAt(start + offset)
    if ((code >= 65 && code <= 90 ? code + 32 : code) !== word.charCodeAt(offset)) return false
  }
  return true
}

const UNIT_TABLE = new WordTable(UNIT_WORDS)
/** The last words of {@link COMPARATORS}, with the comparators by index. */
const COMPARATOR_TABLE = new WordTable(COMPARATORS_BY_LAST.keys())
const COMPARATORS_BY_INDEX = COMPARATOR_TABLE.words.map((word) => COMPARATORS_BY_LAST.get(word)!)

/** Whether `text[start, end)` lowered is a unit word. */
export function isUnitWord(text: string, start: number, end: number): boolean {
  const found = UNIT_TABLE.find(text, start, end)
  return found >= 0 || (found === -2 && UNIT_WORDS.has(text.slice(start, end).toLowerCase()))
}

/** The comparators ending with the word `text[start, end)` (lowered), if any. */
export function comparatorsEndingWith(text: string, start: number, end: number): ReadonlyArray<readonly string[]> | undefined {
  const found = COMPARATOR_TABLE.find(text, start, end)
  if (found >= 0) return COMPARATORS_BY_INDEX[found]
  return found === -2 ? COMPARATORS_BY_LAST.get(text.slice(start, end).toLowerCase()) : undefined
}

/** Whether `text[start, end)` matches {@link PLAIN_NUMBER}, read in place. */
export function isPlainNumberAt(text: string, start: number, end: number): boolean {
  let index = start
  let code = text.charCodeAt(index)
  if (code === 45 || code === 43) index++
  let after = digitsFrom(text, index, end)
  if (after === index) return false
  index = after
  while (index < end) {
    code = text.charCodeAt(index)
    if (code !== 46 && code !== 44) break
    after = digitsFrom(text, index + 1, end)
    if (after === index + 1) break
    index = after
  }
  if (index < end && (text.charCodeAt(index) | 32) === 101) {
    let exponent = index + 1
    code = text.charCodeAt(exponent)
    if (code === 45 || code === 43) exponent++
    after = digitsFrom(text, exponent, end)
    if (after > exponent) index = after
  }
  return index === end
}

const isDigitCode = (code: number) => code >= 48 && code <= 57

/** Where the run of digits from `from` on ends (at most at `end`). */
function digitsFrom(text: string, from: number, end: number): number {
  let at = from
  while (at < end && isDigitCode(text.charCodeAt(at))) at++
  return at
}

/** `\s` of a JavaScript regex: the scanner's whitespace but U+0085. */
const isRegexSpace = (code: number) => code !== 0x85 && isSpace(code)

/** Whether `text[start, end)` matches {@link KEY_GAP}: an optional quote, then `:` or `=` among whitespace. */
export function isKeyGap(text: string, start: number, end: number): boolean {
  let index = start
  const first = text.charCodeAt(index)
  if (first === 34 || first === 39) index++
  while (index < end && isRegexSpace(text.charCodeAt(index))) index++
  const separator = text.charCodeAt(index)
  if (index === end || (separator !== 58 && separator !== 61)) return false
  for (index++; index < end; index++) if (!isRegexSpace(text.charCodeAt(index))) return false
  return true
}
/** First units (ASCII lowered, or `≥`/`≤`) of the words comparators end with; other words are not sliced to look them up. */
const COMPARATOR_LAST_FIRSTS = new Set([...COMPARATORS_BY_LAST.keys()].map((word) => word.charCodeAt(0)))

/** Whether a word starting with `code` may end a comparator. Non-ASCII units are always looked up (`K` lowercases to `k`). */
function mayEndComparator(code: number): boolean {
  if (code >= 128) return true
  return COMPARATOR_LAST_FIRSTS.has(code >= 65 && code <= 90 ? code + 32 : code)
}

/** Flags a {@link KEY} can have. */
const KEY_FLAGS = LOWER | UPPER_FIRST | UPPER_INNER | NON_HEX_LETTER | DIGIT | UNDERSCORE | DOT | HYPHEN

/** Flags a {@link PLAIN_NUMBER} can have: digits, signs, separators and an exponent's `e` (a hex letter). */
const PLAIN_NUMBER_FLAGS = DIGIT | HYPHEN | OTHER | DOT | LOWER | UPPER_FIRST | UPPER_INNER

/** A plain number ({@link isPlainNumberAt} reads it in place; the tests hold it to this). */
export const PLAIN_NUMBER = /^[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?$/

/** Whether a word is a plain number (integer, decimal, thousands separators, exponent). */
export function isPlainNumber(word: string): boolean {
  return PLAIN_NUMBER.test(word)
}

/**
 * Finds numbers made thresholds by their neighbours: `250 ms`, `>= 3`, `at most 5 retries`, `warmup_steps: 200`,
 * `port = 8080`. Words are the first `count` entries of parallel `starts`/`ends` offsets into `text` with their class
 * `flags`; each phrase is written to `into` as its first and last word index (inclusive), and the number of phrases
 * is returned. Only the neighbours of number words are sliced, and nothing else is allocated (this runs on every line
 * holding a digit).
 */
export function numericPhrases(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], count: number, into: number[]): number {
  let phrases = 0
  for (let index = 0; index < count; index++) {
    const wordFlags = flags[index]!
    // Digits alone are a plain number without a look at the text; anything else with a digit needs the pattern.
    if (!(wordFlags & DIGIT) || (wordFlags !== DIGIT && ((wordFlags & ~PLAIN_NUMBER_FLAGS) !== 0 || !isPlainNumberAt(text, starts[index]!, ends[index]!)))) continue
    let first = index
    let last = index
    // `1. Steps` is a list marker, `3) retries` an enumeration: a number closed by `.` or `)` takes no unit.
    const closer = text.charCodeAt(ends[index]!)
    if (index + 1 < count && closer !== 46 && closer !== 41 && (flags[index + 1]! & ~UNIT_FLAGS) === 0 && ends[index + 1]! - starts[index + 1]! <= LONGEST_UNIT && isUnitWord(text, starts[index + 1]!, ends[index + 1]!)) last = index + 1
    // Comparators end right before the number: look them up by their last word, compare earlier words only on a hit.
    const candidates = index >= 1 && ends[index - 1]! - starts[index - 1]! <= LONGEST_COMPARATOR_WORD && mayEndComparator(text.charCodeAt(starts[index - 1]!)) ? comparatorsEndingWith(text, starts[index - 1]!, ends[index - 1]!) : undefined
    if (candidates !== undefined) {
      for (let which = 0; which < candidates.length; which++) {
        const comparator = candidates[which]!
        const start = index - comparator.length
        if (start < 0) continue
        let matches = true
        for (let offset = 0; offset < comparator.length - 1 && matches; offset++) matches = lowered(text, starts, ends, flags, start + offset) === comparator[offset]
        if (matches) {
          first = Math.min(first, start)
          // `timeout = 30`: take the key before a bare `=` too.
          if (comparator[0] === '=' && start > 0) first = start - 1
          break
        }
      }
    }
    // `warmup_steps: 200` — the raw text before the number ends with a colon directly after the key.
    // The gap holds whitespace and a `:` or `=`, so it is at least two units long.
    if (first === index && index > 0 && starts[index]! - ends[index - 1]! >= 2 && isKeyAt(text, starts[index - 1]!, flags[index - 1]!)) {
      if (isKeyGap(text, ends[index - 1]!, starts[index]!)) first = index - 1
    }
    if (first !== index || last !== index) {
      into[2 * phrases] = first
      into[2 * phrases + 1] = last
      phrases++
    }
  }
  return phrases
}

/** The `index`-th word, lowercased; only capitals and non-ASCII units need it (the Kelvin sign lowercases to `k`). */
function lowered(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], index: number): string {
  const word = text.slice(starts[index], ends[index])
  return flags[index]! & (UPPER_FIRST | UPPER_INNER | OTHER) ? word.toLowerCase() : word
}

/** What the gap between a key and its number holds ({@link isKeyGap} reads it in place; the tests hold it to this). */
export const KEY_GAP = /^["']?\s*[:=]\s*$/
/** A key before a number ({@link KEY_FLAGS} and {@link isKeyStart} stand for it; the tests hold them to this). */
export const KEY = /^[A-Za-z_][\w.-]*$/

const isKeyStart = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95

/**
 * Whether the word at `start` with these flags matches {@link KEY}: the flags say every unit is one a key allows, and
 * a key starts with a letter or `_`.
 */
export function isKeyAt(text: string, start: number, flags: number): boolean {
  return (flags & ~KEY_FLAGS) === 0 && isKeyStart(text.charCodeAt(start))
}

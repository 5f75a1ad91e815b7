import type { ItemKind } from '../../spec/estimator.js'
import { isImageReference } from '../../vocabulary/images.js'
import { isSpace } from './_scan.js'
import { AT, BACKSLASH, COLON, COMPARE, CURRENCY, DIGIT, DOT, EQUALS, HYPHEN, isProse, LOWER, NON_HEX_LETTER, OTHER, PAREN, PERCENT, SLASH, UNDERSCORE, UPPER_FIRST, UPPER_INNER, wordFlags } from './_flags.js'

/**
 * Classifies one whitespace-delimited word into an irreducible kind, or `undefined` for narrative.
 *
 * Every pattern is anchored and free of nested ambiguous quantifiers, so classification is linear in the word, however
 * long (a word over MAX_WORD_LENGTH is classified too: a long URL or path is state, and a blob is none of these kinds).
 */
export function classifyWord(word: string, flags: number = wordFlags(word, 0, word.length)): ItemKind | undefined {
  // Prose and bare integers are never items by themselves (numbers become items through their neighbours).
  if (word.length < 2 || isProse(flags) || (flags & ~DIGIT) === 0) return undefined
  if (flags & COLON && (URL.test(word) || (flags & AT && GIT_REMOTE.test(word)))) return 'url'
  if (flags & DIGIT && flags & DOT && IP_ADDRESS.test(word)) return 'url'
  // An arXiv id (`2403.12345`, `arXiv:2403.12345v2`) is an id, not a decimal: YYMM, then four or five digits.
  if (flags & DIGIT && flags & DOT && (word.charCodeAt(4) === 46 || word.charCodeAt(10) === 46) && ARXIV.test(word)) return 'identifier'
  if (flags & COLON && flags & DIGIT && HOST_PORT.test(word)) return 'url'
  if (flags & HYPHEN && word.length === 36 && UUID.test(word)) return 'uuid'
  if (flags & SLASH && word.charCodeAt(0) === 47 && REGEX_LITERAL.test(word) && isRegexSyntax(word, 1, word.lastIndexOf('/'))) return 'regex'
  if ((flags & ~(LOWER | DIGIT)) === 0 && flags & DIGIT && flags & LOWER && isHash(word)) return 'hash'
  if (flags & (EQUALS | COMPARE) && (PIN.test(word) || RANGE.test(word))) return 'version'
  if (flags & AT && flags & DIGIT && NPM_PIN.test(word)) return 'version'
  if (flags & DOT && flags & DIGIT && (SEMVER.test(word) || (flags & HYPHEN && SUFFIXED_VERSION.test(word)))) return 'version'
  if (flags & COLON && flags & DIGIT && isImageReference(word)) return 'version'
  // A Maven/Gradle coordinate pins its artifact as `requests==2.32.3` does its package: `group:artifact:version`.
  if (flags & COLON && flags & DOT && flags & DIGIT && MAVEN_COORDINATE.test(word)) return 'version'
  // A comparator with a number (`>200`, `<=5ms`) is a threshold; a range needs a dotted version (`>=3.11`).
  if (flags & (COMPARE | EQUALS | OTHER) && flags & DIGIT && isComparator(word.charCodeAt(0)) && COMPARED_NUMBER.test(word)) return 'number'
  if (flags & EQUALS) {
    // `SINCE_DATE=$(date` is a command substitution cut at its first space: a fragment, no item.
    if (flags & PAREN && opensSubstitution(word)) return undefined
    if (ENV.test(word)) return 'env'
    if (FLAG_VALUE.test(word) || KEY_VALUE.test(word)) return NUMERIC_TAIL.test(word) ? 'number' : 'identifier'
  }
  if (flags & (SLASH | BACKSLASH | DOT) && isPath(word, flags)) return 'path'
  if (flags & OTHER && word.charCodeAt(0) === 35 && isHexColour(word)) return 'constant'
  if (flags & UPPER_INNER || flags & UPPER_FIRST) {
    if (flags & UNDERSCORE && CONSTANT.test(word)) return 'constant'
    if (word.charCodeAt(0) === 69 && ERRNO_NAME.test(word)) return 'constant'
    if (flags & DIGIT && CODE.test(word)) return 'constant'
  }
  if (flags & DIGIT && (SCIENTIFIC.test(word) || DECIMAL.test(word) || NUMBER_WITH_UNIT.test(word))) return 'number'
  // `v5.10`, `3.11+`: a version only after the product it versions (see productBefore), alone a number.
  if (flags & DIGIT && flags & DOT && PRODUCT_NUMBER.test(word)) return 'number'
  if (flags & CURRENCY && MONEY.test(word)) return 'number'
  if (flags & UNDERSCORE && SNAKE.test(word)) return 'identifier'
  if (flags & UPPER_INNER && flags & LOWER && CAMEL.test(word)) return 'identifier'
  if (flags & PAREN && CALL.test(word)) return 'identifier'
  if (flags & (UNDERSCORE | HYPHEN) && flags & DIGIT && PREFIXED_ID.test(word)) return 'identifier'
  if (flags & DOT && isDotted(word)) return 'identifier'
  return undefined
}

/**
 * Whether `word` opens a `$(` (or `$((`) it does not close: more `(` than `)` after its first `$(`. (In
 * `NAME="$$-$(date +%s)"` the quoted value is still found as a quoted string.) Linear.
 */
function opensSubstitution(word: string): boolean {
  const open = word.indexOf('$(')
  if (open === -1) return false
  let depth = 0
  for (let at = open + 1; at < word.length; at++) {
    const code = word.charCodeAt(at)
    if (code === 40) depth++
    else if (code === 41) depth--
  }
  return depth > 0
}

/**
 * isWrittenValue(text) = whether an identifier item is a value a file carries as it carries a path or a pin: a flag
 * with its value (`--output_dir ./checkpoints/sft`, `--model=gpt2`) or a paper's id (`arXiv:2504.12216`). Other
 * identifiers of a file (`dtype=np.float32`, `model.config`) are its code.
 */
export function isWrittenValue(text: string): boolean {
  return text.charCodeAt(0) === 45 || ARXIV.test(text)
}

/**
 * standsAlone(word, kind) = whether a word `classifyWord` gave `kind` is state by itself, where it has no neighbour
 * making it a setting (a key, a flag, a unit, a comparator, a product: those phrases are found apart).
 *
 * Two classes are not (issue 10, the labelled sample's 'not state' identifiers and numbers):
 * - a bare name of code: a snake_case or camelCase word (`line_number`, `attention_mask`, `cycleId`), a call whose
 *   arguments hold no literal (`dict()`, `torch.no_grad()`, `model.get_logits(x)`), a variable passed under its own
 *   name (`dtype=dtype`), two sentences glued by a missing space (`vulnerable.A`). The code defines such a name and
 *   can be read again (the record's condition 1); a name that matters comes with a value, a path or an error, which
 *   are kept;
 * - a bare measurement: a decimal or exponent without its key (`79.88`, `3e-5`, a table's cells) or a count with a
 *   magnitude suffix (`596M`, `11k`). Alone it says neither what it measures nor that anything depends on it.
 */
export function standsAlone(word: string, kind: ItemKind, flags: number = wordFlags(word, 0, word.length)): boolean {
  if (kind === 'identifier') return !isBareName(word, flags)
  if (kind === 'number') return !(SCIENTIFIC.test(word) || DECIMAL.test(word) || MAGNITUDE.test(word) || PRODUCT_NUMBER.test(word))
  return true
}

/**
 * The commands a chat tool takes on its own input line (aider's `/ask`, `/model`, `/code`, `/multiline-mode`; Claude
 * Code's and Gemini CLI's `/compact`, `/clear`, `/init`): at the head of a user's line, a one-segment `/word` of this
 * list talks to the tool, it names no file.
 */
const CHAT_COMMANDS: ReadonlySet<string> = new Set([
  'add', 'architect', 'ask', 'chat-mode', 'clear', 'code', 'commit', 'context', 'copy', 'copy-context', 'diff', 'drop', 'edit', 'editor',
  'editor-model', 'exit', 'git', 'help', 'lint', 'load', 'ls', 'map', 'map-refresh', 'model', 'models', 'multiline-mode', 'paste', 'quit',
  'read-only', 'reasoning-effort', 'report', 'reset', 'run', 'save', 'settings', 'test', 'think-tokens', 'tokens', 'undo', 'voice',
  'weak-model', 'web', 'compact', 'init', 'memory', 'resume', 'cost', 'config', 'doctor', 'review', 'status', 'permissions', 'agents',
  'mcp', 'hooks', 'chat', 'restore', 'stats', 'tools', 'theme', 'auth', 'bug', 'about', 'privacy', 'vim', 'directory', 'extensions',
])

/** Whether `text[start, end)` is `/` and one of {@link CHAT_COMMANDS} (lower case, one segment). */
export function isChatCommand(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) !== 47 || end - start < 3 || end - start > 20) return false
  for (let at = start + 1; at < end; at++) {
    const code = text.charCodeAt(at)
    if (!((code >= 97 && code <= 122) || code === 45)) return false
  }
  return CHAT_COMMANDS.has(text.slice(start + 1, end))
}

/** A count with a magnitude suffix: `596M`, `11k`, `4.2k`, `1.5B`. */
const MAGNITUDE = /^[-+]?\d+(?:\.\d+)?[kKMGB]$/
/** Call arguments that are one name or none: `()`, `(x)`, `(self)`, `(gradient_checkpointing_kwargs)`. */
const NAME_ARGUMENTS = /\((?:[A-Za-z_][\w.]*)?\)$/
/** Two sentences glued: a lower-case word, a dot, a capitalized word or a capital (`vulnerable.A`, `done.Then`). */
const GLUED_SENTENCES = /^[a-z]{3,}\.[A-Z][a-z]*$/

/** Whether an identifier is a bare name of code (see {@link standsAlone}). */
function isBareName(word: string, flags: number): boolean {
  // Each pattern runs only if the word has the unit it needs.
  if ((flags & UNDERSCORE && SNAKE.test(word)) || (flags & UPPER_INNER && CAMEL.test(word)) || (flags & DOT && GLUED_SENTENCES.test(word))) return true
  if (flags & PAREN && CALL.test(word)) return NAME_ARGUMENTS.test(word)
  const equals = flags & EQUALS ? word.indexOf('=') : -1
  if (equals > 0 && !word.startsWith('-')) {
    const key = word.slice(0, equals)
    return word.slice(equals + 1) === key.slice(key.lastIndexOf('.') + 1)
  }
  return false
}

/**
 * urlEnd(text, start, end) = where the URL that the word `text[start, end)` starts with ends: before the first unit a
 * URL cannot hold (a backtick, a backslash, `"`, `<`, `>`: a closing code quote, or a JSON-escaped `\n`, run into it
 * in `` `http://localhost:8000`.\n\nIf ``), trailing `. , ; : ! ?` and `'` trimmed; -1 when nothing is left after the
 * scheme. Linear in the word.
 */
export function urlEnd(text: string, start: number, end: number): number {
  let to = start
  for (; to < end; to++) {
    const code = text.charCodeAt(to)
    if (code === 96 || code === 92 || code === 34 || code === 60 || code === 62) break
  }
  for (; to > start; to--) {
    const code = text.charCodeAt(to - 1)
    if (code !== 46 && code !== 44 && code !== 59 && code !== 58 && code !== 33 && code !== 63 && code !== 39) break
  }
  // `://` looked for inside the word only: an indexOf past it would scan the rest of the text for every such word.
  for (let at = start; at + 2 < to; at++) {
    if (text.charCodeAt(at) === 58 && text.charCodeAt(at + 1) === 47 && text.charCodeAt(at + 2) === 47) return at + 3 < to && !holdsPlaceholder(text, at + 3, to) ? to : -1
  }
  return to - start >= 2 ? to : -1
}

/**
 * Whether `text[start, end)` holds a template's placeholder: four `X` or more after a `/ . = - _ :` (a DOI template's
 * `https://doi.org/XXXXXXX.XXXXXXX`, `?key=XXXX`). Such a URL names nothing to fetch. Linear.
 */
function holdsPlaceholder(text: string, start: number, end: number): boolean {
  let run = 0
  let delimited = false
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at)
    if (code === 88) {
      if (run === 0) {
        const before = text.charCodeAt(at - 1)
        delimited = before === 47 || before === 46 || before === 61 || before === 45 || before === 95 || before === 58
      }
      run++
      if (run >= 4 && delimited) return true
    } else run = 0
  }
  return false
}

const URL = /^(?:https?|ftp|file|ssh|git|wss?|s3|gs):\/\/\S+$/i
const GIT_REMOTE = /^[\w.-]+@[\w.-]+:[\w./~-]+$/
const IP_ADDRESS = /^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?$/
const HOST_PORT = /^(?:localhost|[\w-]+(?:\.[\w-]+)+):\d{2,5}(?:\/\S*)?$/
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const REGEX_LITERAL = /^\/[^\s/][^\s]*\/[dgimsuvy]*$/
const HEX = /^[0-9a-f]{7,64}$/
const PIN = /^[A-Za-z0-9][\w.[\]-]*(?:===|==|>=|<=|~=|!=|>|<)\d[\w.*+!-]*(?:,(?:==|>=|<=|~=|!=|<|>)\d[\w.*+!-]*)*$/
const NPM_PIN = /^@?[A-Za-z0-9][\w./-]*@[\^~]?\d[\w.+-]*$/
// A range is a version with an operator. `^2.0` needs a dot, `~1.2.3` three parts (`~22` and `~3.5` are approximations in
// prose), and a comparator a dotted version (`>=3.11`; `>200` is a threshold, see COMPARED_NUMBER).
const RANGE = /^(?:\^\d+(?:\.[\dx*]+)+|~\d+(?:\.[\dx*]+){2,}|(?:>=|<=|==|~=|!=|>|<)\d+(?:\.[\dx*]+)+)(?:-[\w.]+)?(?:,(?:>=|<=|==|~=|!=|>|<)\d+(?:\.[\dx*]+)*)*$/
/**
 * A Maven/Gradle coordinate `group:artifact:version` (`org.springframework.boot:spring-boot-starter-web:3.3.4`,
 * `junit:junit:4.13.2`, `…:1.0.0.RELEASE`): group and artifact start with a lower-case letter, as Maven's names do
 * (`fatal:OSError:1.5` is glued words), the version with a digit and holds a dot (`host:port:8080`, `file.py:12:5`
 * are no coordinates). No class holds `:`, so the match is linear.
 */
const MAVEN_COORDINATE = /^[a-z][\w.-]*:[a-z][\w.-]*:\d+(?:\.[\w-]+)+$/
const SEMVER = /^v?\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/
/** A dotted version with a pre-release or build suffix: `23.05-SNAPSHOT`, `1.0-beta`. */
const SUFFIXED_VERSION = /^v?\d+(?:\.\d+)+-[A-Za-z][\w.]*$/
/** Whether a unit starts a comparator: `<`, `>`, `=`, `!`, `≥`, `≤`. */
const isComparator = (code: number) => code === 60 || code === 62 || code === 61 || code === 33 || code === 0x2265 || code === 0x2264
/** A comparator glued to a number, perhaps with a unit: a threshold. */
const COMPARED_NUMBER = /^(?:>=|<=|==|!=|>|<|≥|≤)\d+(?:[.,]\d+)?[A-Za-z%]{0,3}$/
const ARXIV = /^(?:arXiv:)?\d\d(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?$/i
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
/** A number with a unit, as a ratio's first term (`19k/200k`, `1.06s/it`). */
const RATIO_TERM = /^\d+(?:\.\d+)?[A-Za-z%]{0,3}$/
/** A segment shaped like a file or directory name rather than a word: a `_`, `-` or `.` joins its parts, or leads it. */
const NAME_SEGMENT = /^[._]?[A-Za-z0-9@+]+[._-][\w.@+-]*$/
const RELATIVE_PATH = /^[\w.@+-]+(?:\/[\w.@+-]*)+(?::\d+)*$/
const WINDOWS_PATH = /^[A-Za-z]:\\\S+$/
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

/**
 * Directories that begin relative paths in code bases and on servers: a two-part word starting with one of them is a
 * path (`src/app`), where other two-part words of plain words are prose (`daemon/service`, `and/or`).
 */
const KNOWN_DIRECTORIES = new Set([
  'src', 'lib', 'libs', 'test', 'tests', 'spec', 'specs', 'doc', 'docs', 'app', 'apps', 'bin', 'script', 'scripts', 'config', 'configs',
  'conf', 'packages', 'pkg', 'cmd', 'internal', 'dist', 'build', 'out', 'data', 'datasets', 'assets', 'public', 'static', 'include',
  'examples', 'components', 'pages', 'api', 'server', 'client', 'node_modules', 'vendor', 'tmp', 'var', 'etc', 'usr', 'home', 'opt',
  'checkpoints', 'models', 'logs', 'notebooks', 'tools', 'utils', 'migrations', 'templates', 'fixtures', 'workspace', 'crates',
])

/** A path segment longer than this is not a file name (NAME_MAX): a word holding one is a blob. */
const MAX_SEGMENT = 255

/**
 * Whether `word` (with these flags) is a path; each pattern runs only if the word has the character it needs.
 *
 * A word with a `/` is a path when it is rooted (`/etc/hosts`, `./run.sh`, `~/x`), names a file (`a/b.py`), starts with
 * a known directory (`src/app`), is one directory (`docs/`), or has a segment shaped like a file name
 * (`checkpoints/finance-qwen3`, `Qwen/Qwen3-0.6B`). Plain words joined by slashes are prose (`daemon/service`,
 * `input/output`, `pretrain/SFT/DPO`), and a number with a unit before the slash is a ratio (`19k/200k`).
 */
function isPath(word: string, flags: number): boolean {
  if (flags & BACKSLASH && WINDOWS_PATH.test(word)) return true
  // A file name (no `/` in it), of at most MAX_SEGMENT units.
  if (flags & DOT && word.length <= MAX_SEGMENT && FILE_NAME.test(word) && /[A-Za-z]/.test(word.slice(0, word.lastIndexOf('.')))) return true
  if (!(flags & SLASH) || !(ROOTED_PATH.test(word) || RELATIVE_PATH.test(word))) return false
  // A path names something: `1/2` and `2026/03/10` are numbers.
  if ((flags & (LOWER | UPPER_FIRST | UPPER_INNER)) === 0 || hasLongSegment(word)) return false
  const first = word.charCodeAt(0)
  if (first === 47 || first === 126 || first === 46) return true
  const bare = withoutLineNumbers(word)
  const lastSlash = bare.lastIndexOf('/')
  const last = bare.slice(lastSlash + 1)
  if (flags & DOT && FILE_NAME.test(last) && /[A-Za-z]/.test(last.slice(0, last.lastIndexOf('.')))) return true
  const firstSlash = bare.indexOf('/')
  const head = bare.slice(0, firstSlash)
  const twoParts = firstSlash === lastSlash
  if (twoParts && RATIO_TERM.test(head)) return false
  if (KNOWN_DIRECTORIES.has(head)) return true
  // One directory: `docs/`.
  if (twoParts && last === '') return true
  return flags & (UNDERSCORE | HYPHEN | DOT) ? bare.split('/').some((segment) => NAME_SEGMENT.test(segment)) : false
}

/** `word` without the `:line` and `:line:column` suffixes a path may carry. */
function withoutLineNumbers(word: string): string {
  let end = word.length
  for (;;) {
    let digits = end
    while (digits > 0 && word.charCodeAt(digits - 1) >= 48 && word.charCodeAt(digits - 1) <= 57) digits--
    if (digits === end || digits === 0 || word.charCodeAt(digits - 1) !== 58) return end === word.length ? word : word.slice(0, end)
    end = digits - 1
  }
}

/** Whether a `/`-separated segment of `word` is longer than {@link MAX_SEGMENT}. */
function hasLongSegment(word: string): boolean {
  if (word.length <= MAX_SEGMENT) return false
  let from = 0
  for (let slash = word.indexOf('/'); ; slash = word.indexOf('/', from)) {
    const end = slash === -1 ? word.length : slash
    if (end - from > MAX_SEGMENT) return true
    if (slash === -1) return false
    from = slash + 1
  }
}

/** Whether `word` is a hex colour: `#` and 3, 4, 6 or 8 hex digits, a short one holding a letter (`#123` is an issue). */
function isHexColour(word: string): boolean {
  const digits = word.length - 1
  if (digits !== 3 && digits !== 4 && digits !== 6 && digits !== 8) return false
  let letter = false
  for (let index = 1; index < word.length; index++) {
    const code = word.charCodeAt(index) | 32
    if (code >= 97 && code <= 102) letter = true
    else if (code < 48 || code > 57) return false
  }
  return letter || digits >= 6
}

/**
 * Syntax only a regex holds (the one definition, for `/…/` words and quoted strings): an escaped class or
 * metacharacter, a leading `^` or trailing `$`, a group flag `(?:`, `.*` or `.+`, a counted quantifier, a class that
 * negates or holds a range (`[^…]`, `[a-z0-9_-]`) or takes a quantifier (`[ab]+`), or an alternation between names
 * (`foo|bar`; `ls | grep x` is a pipeline). A bracketed word (`[description]`, `.[dev]`, `outputs["logits"]`) is not
 * regex syntax.
 */
const REGEX_SYNTAX = /\\[dwsbDWSB.()[\]{}|+*?^$\\/]|^\^|\$$|\(\?[:=!<]|\.\*|\.\+|\{\d+(?:,\d*)?\}|\[\^|\][*+?]/

/**
 * Whether `text[start, end)` is a regex: holds {@link REGEX_SYNTAX}, a class with a range or an alternation between
 * names (see {@link holdsClassOrAlternation}), or is a sed substitution (`s/a/b/g`, `s|a|b|`). Most strings hold none
 * of the units regex syntax needs, and are not sliced.
 */
export function isRegexSyntax(text: string, start: number, end: number): boolean {
  if (end - start < 2) return false
  if (text.charCodeAt(start) === 115 && isSedScript(text, start, end)) return true
  if (text.charCodeAt(start) !== 94 && text.charCodeAt(end - 1) !== 36) {
    let syntax = false
    for (let index = start; index < end && !syntax; index++) {
      const code = text.charCodeAt(index)
      syntax = code === 92 || code === 91 || code === 40 || code === 46 || code === 123 || code === 124
    }
    if (!syntax) return false
  }
  // Every alternative of the pattern starts with a unit of its own, so that the regex engine skips to those units.
  const content = text.slice(start, end)
  if (REGEX_SYNTAX.test(content)) return true
  return (content.includes('[') || content.includes('|')) && holdsClassOrAlternation(text, start, end)
}

/**
 * Whether `text[start, end)` holds a `[` followed, before any `]` or whitespace, by a range between letters or digits
 * (`[a-z0-9_-]`), or a `|` between names (`foo|bar`, `(a|b)`; `ls | grep x` is a pipeline). Each unit is read once: a
 * class scan that stops without a range resumes where it stopped.
 */
function holdsClassOrAlternation(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 124) {
      if (index > start && index + 1 < end && isAlternand(text.charCodeAt(index - 1), true) && isAlternand(text.charCodeAt(index + 1), false)) return true
      continue
    }
    if (code !== 91) continue
    for (index++; index < end; index++) {
      const unit = text.charCodeAt(index)
      if (unit === 93 || isSpace(unit)) break
      if (unit === 45 && index + 1 < end && isAsciiAlnumCode(text.charCodeAt(index - 1)) && isAsciiAlnumCode(text.charCodeAt(index + 1))) return true
    }
  }
  return false
}

/** Whether a unit can end the alternative before a `|` (a name's, `)` or `]`) or start the one after it (`(`, `[`, `\\`, `^` too). */
function isAlternand(code: number, before: boolean): boolean {
  if (isAsciiAlnumCode(code) || code === 95) return true
  return before ? code === 41 || code === 93 : code === 40 || code === 91 || code === 92 || code === 94
}

const isAsciiAlnumCode = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)

/** Whether `text[start, end)` is `s`, a delimiter, then a pattern, a replacement and flags, each ended by the delimiter. */
function isSedScript(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) !== 115) return false
  const delimiter = text.charCodeAt(start + 1)
  if (delimiter !== 47 && delimiter !== 124 && delimiter !== 35 && delimiter !== 58 && delimiter !== 44) return false
  let seen = 0
  let index = start + 2
  for (; index < end && seen < 2; index++) {
    const code = text.charCodeAt(index)
    if (code === 92) index++
    else if (code === delimiter) seen++
  }
  if (seen < 2 || index === start + 3) return false
  // Flags: g, i, I, m, p, e, w and an occurrence number.
  for (; index < end; index++) if (!/[gimpIew0-9]/.test(text[index]!)) return false
  return true
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

/**
 * Comparators that make the number after them a threshold (`>= 3`, `at most 5`). Multi-word ones end with the last word.
 * `==` and `!=` are not among them: an equality test is a condition of code (`mask.dim() == 4`), not a limit.
 */
export const COMPARATORS: ReadonlyArray<readonly string[]> = [
  ['>='], ['<='], ['>'], ['<'], ['≥'], ['≤'], ['='],
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
    // A number opening a parenthesized expression (`pad_mask = (1.0 - mask) * x`) is an operand, not a key's value.
    const operand = text.charCodeAt(starts[index]! - 1) === 40
    // Comparators end right before the number: look them up by their last word, compare earlier words only on a hit.
    const candidates = !operand && index >= 1 && ends[index - 1]! - starts[index - 1]! <= LONGEST_COMPARATOR_WORD && mayEndComparator(text.charCodeAt(starts[index - 1]!)) ? comparatorsEndingWith(text, starts[index - 1]!, ends[index - 1]!) : undefined
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
    if (!operand && first === index && index > 0 && starts[index]! - ends[index - 1]! >= 2 && isKeyAt(text, starts[index - 1]!, flags[index - 1]!)) {
      if (isKeyGap(text, ends[index - 1]!, starts[index]!)) first = index - 1
    }
    // `max_retries 5`: a setting's name, then its value after whitespace alone (as `max_retries: 5` is keyed).
    if (!operand && first === index && index > 0 && flags[index - 1]! & UNDERSCORE && isWhitespace(text, ends[index - 1]!, starts[index]!) && isSettingName(text, starts[index - 1]!, ends[index - 1]!)) first = index - 1
    // `port 5432`, `PID 4242`, `migration 0042`: an integer the noun right before it names as an identifier.
    if (!operand && first === index && last === index && index > 0 && wordFlags === DIGIT && namesIdentifier(text, starts, ends, flags, index - 1) && isWhitespace(text, ends[index - 1]!, starts[index]!)) first = index - 1
    if (first !== index || last !== index) {
      into[2 * phrases] = first
      into[2 * phrases + 1] = last
      phrases++
    }
  }
  return phrases
}

/**
 * Nouns that make the integer after them an identifier (`port 5432`, `pid 4242`, `migration 0042`, `PR 123`, `issue
 * 45`): a number that names a thing to reach or act on again, where most nouns before a number count (`step 3`).
 */
const IDENTIFIER_NOUNS: ReadonlySet<string> = new Set(['port', 'pid', 'ppid', 'uid', 'gid', 'migration', 'pr', 'issue', 'ticket'])
const LONGEST_IDENTIFIER_NOUN = Math.max(...[...IDENTIFIER_NOUNS].map((noun) => noun.length))

/** Whether the `index`-th word is one of {@link IDENTIFIER_NOUNS} (any case). */
function namesIdentifier(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], index: number): boolean {
  const length = ends[index]! - starts[index]!
  return length >= 2 && length <= LONGEST_IDENTIFIER_NOUN && (flags[index]! & ~(LOWER | UPPER_FIRST | UPPER_INNER | NON_HEX_LETTER)) === 0 && IDENTIFIER_NOUNS.has(text.slice(starts[index], ends[index]).toLowerCase())
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

/** A version as a product states it: dotted numbers, perhaps a `v` and a suffix (`20.11.1`, `3.11`, `23.05-SNAPSHOT`). */
const BARE_VERSION = /^v?\d+(?:\.\d+)+(?:[-+][\w.-]+|\+)?$/
/** A number that a known product makes a version: dotted, perhaps with a `v` or an `or later` `+` (`3.11`, `v5.10`, `3.11+`). */
const PRODUCT_NUMBER = /^v?\d+(?:\.\d+)+\+?$/
/** A product's name: a letter, then letters, digits, `.`, `+` or `-` (`OpenWrt`, `Node.js`, `g++`). */
const PRODUCT = /^[A-Za-z][A-Za-z0-9.+-]*$/
/**
 * Runtimes, tools and systems named in lower case before their version (`node 20.11.1`, `python 3.11`); with these,
 * a two-part version counts too (`Python 3.11`), where `Loss 5.66` is a measurement.
 */
const KNOWN_PRODUCTS = new Set([
  'python', 'python3', 'node', 'nodejs', 'node.js', 'npm', 'pnpm', 'yarn', 'bun', 'deno', 'pip', 'uv', 'poetry', 'conda', 'torch', 'pytorch',
  'cuda', 'cudnn', 'nccl', 'tensorflow', 'jax', 'transformers', 'numpy', 'pandas', 'java', 'jdk', 'openjdk', 'go', 'golang', 'rust', 'rustc',
  'cargo', 'gcc', 'g++', 'clang', 'llvm', 'cmake', 'ruby', 'rails', 'php', 'perl', 'dotnet', 'swift', 'kotlin', 'scala', 'gradle', 'maven',
  'docker', 'kubernetes', 'kubectl', 'helm', 'terraform', 'ubuntu', 'debian', 'fedora', 'centos', 'rhel', 'alpine', 'macos', 'ios',
  'android', 'windows', 'linux', 'kernel', 'openwrt', 'postgres', 'postgresql', 'mysql', 'sqlite', 'redis', 'nginx', 'git', 'openssl',
  'react', 'vue', 'angular', 'next', 'next.js', 'vite', 'webpack', 'typescript', 'tsc', 'eslint', 'django', 'flask', 'fastapi', 'electron',
  'chrome', 'firefox', 'xcode', 'driver',
])
/** Capitalized words that open a sentence or name a count rather than a product (`Version 2.1.0`, `Then 1.2.3`). */
const NOT_PRODUCTS = new Set([
  'the', 'a', 'an', 'this', 'that', 'it', 'in', 'on', 'at', 'to', 'from', 'of', 'for', 'with', 'by', 'and', 'or', 'but', 'is', 'was', 'are',
  'were', 'be', 'as', 'than', 'then', 'since', 'until', 'into', 'via', 'version', 'release', 'tag', 'step', 'epoch', 'loss', 'phase', 'see',
  'use', 'using', 'install', 'installed', 'upgrade', 'upgraded', 'downgrade', 'bump', 'bumped', 'pin', 'pinned', 'require', 'requires',
  'need', 'needs', 'run', 'running', 'update', 'updated', 'set', 'got', 'found', 'expected', 'released', 'now', 'also', 'only',
])

/**
 * Where the product word before the version word `index` starts, or -1: the word right before it (whitespace between),
 * a known product (`node 20.11.1`, `Python 3.11`), or, for a version of three parts or a suffix (`isVersion`), a
 * capitalized name (`OpenWrt 23.05-SNAPSHOT`) or a package's (`flash-attn 2.8.3`). Runs for version and number
 * candidates only.
 */
export function productBefore(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], index: number, isVersion: boolean): number {
  const before = index - 1
  // A number is versioned by a known product only, and only a plain dotted one (`3.11`, `v5.10`, `3.11+`; not `3.2s`); a
  // version that is not bare (`numpy==1.2`, `^2.0`) has its package or is a range.
  const head = text.charCodeAt(starts[index]!)
  if (!isDigitCode(head) && head !== 118) return -1
  if (!(flags[before]! & (LOWER | UPPER_FIRST | UPPER_INNER)) || !isWhitespace(text, ends[before]!, starts[index]!)) return -1
  const version = text.slice(starts[index], ends[index])
  if (isVersion ? !BARE_VERSION.test(version) : !PRODUCT_NUMBER.test(version)) return -1
  // A setting's name (`sanitizer_version 0.1.0`, `python_version 3.11`) is the key of the value after it.
  if (flags[before]! & UNDERSCORE && isSettingName(text, starts[before]!, ends[before]!)) return starts[before]!
  const product = text.slice(starts[before], ends[before])
  if (!PRODUCT.test(product)) return -1
  const lowered = product.toLowerCase()
  if (KNOWN_PRODUCTS.has(lowered)) return starts[before]!
  if (!isVersion) return -1
  // A capitalized name, or a package's (`flash-attn`, `scikit-learn`, `python3`: a `-`, `_` or digit in it).
  // A capitalized verb opens a sentence (`Deploy v2.3.1`, `Deployed 1.2.3`): the version stands alone.
  if (flags[before]! & UPPER_FIRST) return NOT_PRODUCTS.has(lowered) || RELEASE_VERBS.has(lowered) || lowered.endsWith('ed') || lowered.endsWith('ing') ? -1 : starts[before]!
  if (flags[before]! & (HYPHEN | UNDERSCORE | DIGIT)) return starts[before]!
  // A lower-case word before a version of three parts or more names its package (`fsspec 2024.6.1`), unless it is a
  // function word, a comparator's word or a verb (`took 1.2.3`, `moved 2.0.1`, `running 3.1.4`, `at most 1.2.3`).
  return !NOT_PRODUCTS.has(lowered) && !IRREGULAR_VERBS.has(lowered) && !COMPARATOR_WORDS.has(lowered) && !lowered.endsWith('ed') && !lowered.endsWith('ing') && threeParts(version) ? starts[before]! : -1
}

/** Words of comparators (`at most v1.2.3`): a bound, not a package. */
const COMPARATOR_WORDS: ReadonlySet<string> = new Set(COMPARATORS.flat())
/** Verbs that act on a release, in their base form (`Deploy v2.3.1`, `Tag 1.4.0`): not the product they version. */
const RELEASE_VERBS = new Set(['deploy', 'release', 'ship', 'tag', 'build', 'publish', 'revert', 'rollback', 'bump', 'pin', 'try', 'test', 'fix', 'merge', 'push', 'roll'])
/** Irregular past forms that stand before a version in reports (`took 1.2.3`). */
const IRREGULAR_VERBS = new Set(['took', 'gave', 'made', 'ran', 'saw', 'got', 'left', 'kept', 'went', 'hit', 'put', 'did', 'had'])

/** Whether a version has three dotted parts or more (`2024.6.1`, not `3.11`). */
const threeParts = (version: string): boolean => version.indexOf('.') !== version.lastIndexOf('.')

function isWhitespace(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) if (!isSpace(text.charCodeAt(index))) return false
  return true
}

/** A flag: `--name` (a letter, then letters, digits, `_` or `-`) or `-x` ({@link flagPhrases} reads them in place). */
export const LONG_FLAG = /^--[A-Za-z][\w-]*$/
export const SHORT_FLAG = /^-[A-Za-z]$/

/** Whether `[start, end)` holds only letters, digits, `_` and `-` (a long flag's name after its first letter). */
function isFlagName(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (!isAsciiAlnumCode(code) && code !== 95 && code !== 45) return false
  }
  return true
}
/** What an identifier-like value holds: a `_`, `-`, `.`, `/`, `:` or a digit (plain words after a flag are prose). */
const VALUE_FLAGS = UNDERSCORE | HYPHEN | DOT | SLASH | COLON | DIGIT
/** The units an identifier-like value may hold. */
const VALUE_UNITS = VALUE_FLAGS | LOWER | UPPER_FIRST | UPPER_INNER | NON_HEX_LETTER | AT | EQUALS | PERCENT

/**
 * isSettingName(word [start, end) of text) = whether the word is a setting's name: a letter, then letters, digits, `_`
 * and `.`, with a `_` between two letters or digits (`max_retries`, `sanitizer_version`, `model.max_len`; not
 * `_private`, `a_`, `__init__`). One pass over the word.
 */
export function isSettingName(text: string, start: number, end: number): boolean {
  if (end - start < 3 || !isAsciiLetterCode(text.charCodeAt(start))) return false
  let joined = false
  for (let index = start + 1; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code === 95 || code === 46) {
      if (index + 1 >= end || !isAsciiAlnum(text.charCodeAt(index - 1)) || !isAsciiAlnum(text.charCodeAt(index + 1))) return false
      if (code === 95) joined = true
    } else if (!isAsciiAlnum(code)) return false
  }
  return joined
}

const isAsciiLetterCode = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)

/**
 * Finds a setting's name with its value in a user's words (`keep residual_scan: clean`, `mode_name: strict-2`): a
 * {@link isSettingName} word closed by `:` right after it, whitespace, then a word of letters, digits, `-` and `.` (a
 * number's key is `numericPhrases`'s). Each phrase is written to `into` as its key's and its value's word index;
 * returns the number of phrases. Runs on lines holding a `_` and a `:`.
 */
export function keyValuePhrases(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], count: number, into: number[]): number {
  let phrases = 0
  for (let index = 0; index + 1 < count; index++) {
    const keyEnd = ends[index]!
    if (!(flags[index]! & UNDERSCORE) || text.charCodeAt(keyEnd) !== 58 || !isWhitespace(text, keyEnd + 1, starts[index + 1]!) || keyEnd + 1 === starts[index + 1]) continue
    const value = index + 1
    if (flags[value]! & DIGIT && isPlainNumberAt(text, starts[value]!, ends[value]!)) continue
    if (!isAsciiLetterCode(text.charCodeAt(starts[value]!)) || !isValueWord(text, starts[value]!, ends[value]!) || !isSettingName(text, starts[index]!, keyEnd)) continue
    // A name after `:` is a type (`db_url: str`, pasted code), not a setting's value.
    if (ends[value]! - starts[value]! <= LONGEST_TYPE_NAME && TYPE_NAMES.has(text.slice(starts[value], ends[value]).toLowerCase())) continue
    into[2 * phrases] = index
    into[2 * phrases + 1] = value
    phrases++
    index++
  }
  return phrases
}

/** Type names a field's annotation gives after its `:` (Python's, TypeScript's, Rust's, Go's commonest). */
const TYPE_NAMES: ReadonlySet<string> = new Set([
  'str', 'int', 'float', 'bool', 'bytes', 'list', 'dict', 'tuple', 'set', 'any', 'none', 'optional', 'object', 'string', 'number', 'boolean',
  'unknown', 'void', 'never', 'null', 'undefined', 'bigint', 'i32', 'i64', 'u8', 'u32', 'u64', 'usize', 'f32', 'f64', 'int64', 'float64',
])
const LONGEST_TYPE_NAME = 9

/** Whether `[start, end)` holds letters, digits, `-` and `.` only (a setting's word value: `clean`, `strict-2`). */
function isValueWord(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (!isAsciiAlnum(code) && code !== 45 && code !== 46) return false
  }
  return true
}

/**
 * Finds flags with their value as the next word (`--max_steps 3000`, `--lr 1e-4`, `--output_dir ./ckpt`,
 * `--sampler first_hitting`, `-n 5`): a long flag takes a number, or a word some pattern classifies or that is shaped
 * like an identifier (a `_`, `-`, `.`, `/`, `:` or digit in it; `--verbose when` is prose), a short flag a number only.
 * Flag and value are separated by whitespace alone. Each phrase is written to `into` as its first and last word index
 * and whether the value is a number (1) or not (0); returns the number of phrases. Runs on lines holding a word that
 * starts with `-`.
 */
export function flagPhrases(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], count: number, into: number[]): number {
  let phrases = 0
  for (let index = 0; index + 1 < count; index++) {
    const start = starts[index]!
    if (text.charCodeAt(start) !== 45 || flags[index]! & EQUALS) continue
    const long = text.charCodeAt(start + 1) === 45
    // `-x` or `--name` (a letter, then letters, digits, `_` or `-`): read in place (LONG_FLAG and SHORT_FLAG say it).
    const letterAt = long ? start + 2 : start + 1
    const letter = text.charCodeAt(letterAt) | 32
    if (letter < 97 || letter > 122 || (!long && ends[index]! !== start + 2) || (long && !isFlagName(text, letterAt + 1, ends[index]!))) continue
    const value = index + 1
    if (!isWhitespace(text, ends[index]!, starts[value]!)) continue
    const valueStart = starts[value]!
    const valueEnd = ends[value]!
    let numeric = isPlainNumberAt(text, valueStart, valueEnd)
    let kind: ItemKind | undefined
    // A short flag's value is a number (`-n 5`, `-p 2222`, `-t 30s`): one with a `/`, `:`, `_`, `=` or `@` is not.
    if (!numeric && (long || (flags[value]! & DIGIT && !(flags[value]! & (SLASH | COLON | UNDERSCORE | EQUALS | AT))))) {
      kind = classifyWord(text.slice(valueStart, valueEnd), flags[value])
      numeric = kind === 'number'
    }
    if (!numeric) {
      // Another flag is not a value.
      if (!long || text.charCodeAt(valueStart) === 45) continue
      if (kind === undefined && !(flags[value]! & VALUE_FLAGS && (flags[value]! & ~VALUE_UNITS) === 0)) continue
    }
    into[3 * phrases] = index
    into[3 * phrases + 1] = value
    into[3 * phrases + 2] = numeric ? 1 : 0
    phrases++
    index++
  }
  return phrases
}

/** Git's short commit hashes run from 7 units (its default) to 12 (`core.abbrev` on the largest repositories). */
const SHORT_HASH_MIN = 7
const SHORT_HASH_MAX = 12
/** Graph art (`* `, `| * `, `|/ `) passed before a line's first word, at most this many units of it. */
const MAX_GRAPH = 64

/** Whether a word of these flags and length may be a short commit hash of digits only (`4219184`). */
export function mayBeDigitHash(flags: number, length: number): boolean {
  return flags === DIGIT && length >= SHORT_HASH_MIN && length <= SHORT_HASH_MAX
}

/**
 * lineHead(text, [lineStart, lineEnd)) = where the line's first word starts once spaces and `git log --graph`'s art
 * (`*`, `|`, `/`, `\`, `_`) are passed, or -1 when more than {@link MAX_GRAPH} units of them lead it or nothing follows.
 */
export function lineHead(text: string, lineStart: number, lineEnd: number): number {
  const limit = Math.min(lineEnd, lineStart + MAX_GRAPH)
  for (let index = lineStart; index < limit; index++) {
    const code = text.charCodeAt(index)
    if (code !== 32 && code !== 9 && code !== 42 && code !== 124 && code !== 47 && code !== 92 && code !== 95) return index
  }
  return -1
}

/**
 * hexWordAt(text, at, end) = for a word at `at` of 7 to 12 lower-case hex units followed by a space (a listed commit:
 * `9fceb02 fix typo`): its length, plus 16 when it holds a letter; else 0. Reads at most 13 units.
 */
export function hexWordAt(text: string, at: number, end: number): number {
  let letters = 0
  let index = at
  for (; index < end && index - at <= SHORT_HASH_MAX; index++) {
    const code = text.charCodeAt(index)
    if (code >= 97 && code <= 102) letters = 16
    else if (code < 48 || code > 57) break
  }
  const length = index - at
  return length >= SHORT_HASH_MIN && length <= SHORT_HASH_MAX && text.charCodeAt(index) === 32 ? length + letters : 0
}

/** Words before a listed commit in an interactive rebase's todo (`pick 4219184 fix typo`). */
const REBASE_VERBS = new Set(['pick', 'reword', 'edit', 'squash', 'fixup', 'drop'])

/**
 * digitHashes(text, words of a line) = how many of the line's words are short commit hashes of digits only, written
 * to `into` as word indices: a hash with a letter (`9fceb02`) is one by its shape, but a hash of digits (`4219184`,
 * about 4% of 7-unit ones) only where git prints a commit, read from the words before and after it:
 * - after `commit` (`commit 4219184`, `cherry picked from commit …`, `This reverts commit …`), `could not apply`,
 *   `HEAD is now at`, `Previous HEAD position was`, `Stopped at`, on a `Merge:` line, after `on <branch>:` (a stash);
 * - the last word of a leading `[branch …]` (`[main 4219184] fix`, `[main (root-commit) 4219184]`);
 * - after a rebase todo's verb (`pick 4219184 fix`);
 * - a line's first word (past graph art) followed by a decoration or reflog selector (`4219184 (HEAD -> main)`,
 *   `4219184 (tag: v1.2)`, `4219184 HEAD@{0}: commit: …`).
 * A `git log --oneline` line with neither is read against its neighbours by the caller. Words are the first `count`
 * entries of parallel `starts`/`ends`/`flags`; only the few words around a candidate are compared.
 */
export function digitHashes(text: string, starts: readonly number[], ends: readonly number[], flags: readonly number[], count: number, lineStart: number, lineEnd: number, into: number[]): number {
  let found = 0
  const is = (index: number, word: string) => index >= 0 && ends[index]! - starts[index]! === word.length && text.startsWith(word, starts[index]!)
  for (let word = 0; word < count; word++) {
    const start = starts[word]!
    const end = ends[word]!
    if (!mayBeDigitHash(flags[word]!, end - start)) continue
    const after = text.charCodeAt(end)
    let commit =
      is(word - 1, 'commit') ||
      is(word - 1, 'Commit') ||
      (is(word - 1, 'apply') && is(word - 2, 'not')) ||
      (is(word - 1, 'at') && (is(word - 4, 'HEAD') || (word === 2 && is(0, 'Stopped')))) ||
      (is(word - 1, 'was') && is(word - 3, 'HEAD')) ||
      (word >= 1 && is(0, 'Merge') && text.charCodeAt(ends[0]!) === 58) ||
      (word >= 2 && text.charCodeAt(ends[word - 1]!) === 58 && (is(word - 2, 'on') || is(word - 2, 'On'))) ||
      (word === 1 && REBASE_VERBS.has(text.slice(starts[0]!, ends[0]!)) && starts[0] === lineHead(text, lineStart, lineEnd))
    // `[main 4219184] fix`: the bracket opens the line and closes right after the hash.
    if (!commit && after === 93 && word >= 1 && word <= 2 && starts[0]! > lineStart && text.charCodeAt(starts[0]! - 1) === 91 && lineHead(text, lineStart, lineEnd) === starts[0]! - 1) {
      commit = true
      for (let inner = 0; inner < word && commit; inner++) commit = text.charCodeAt(ends[inner]!) !== 93
    }
    if (!commit && after === 32 && start === lineHead(text, lineStart, lineEnd)) {
      commit = text.startsWith('(HEAD', end + 1) || text.startsWith('(tag: ', end + 1) || text.startsWith('HEAD@{', end + 1)
    }
    if (commit) into[found++] = word
  }
  return found
}

const isHexUnit = (code: number) => (code >= 48 && code <= 57) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70)
const isAsciiAlnum = (code: number) => (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90)

/**
 * uuidsIn(text, [start, end), into) = how many UUIDs the word `[start, end)` holds (a path or a name that carries one:
 * `…/projects/-home-m/3cfce0ff-0725-47be-a572-f8af8122b71e/tool-results/…`), their offsets appended to `into` as
 * [start, end) pairs from index 0: 8-4-4-4-12 hex digits with no letter or digit either side. Each offset is tried once
 * with a check of 36 units at most: linear in the word.
 */
export function uuidsIn(text: string, start: number, end: number, into: number[]): number {
  let found = 0
  for (let at = start; at + 36 <= end; at++) {
    if (at > start && isAsciiAlnum(text.charCodeAt(at - 1))) continue
    if (at + 36 < end && isAsciiAlnum(text.charCodeAt(at + 36))) continue
    let matches = true
    for (let offset = 0; offset < 36 && matches; offset++) {
      const code = text.charCodeAt(at + offset)
      matches = offset === 8 || offset === 13 || offset === 18 || offset === 23 ? code === 45 : isHexUnit(code)
    }
    if (!matches) continue
    into[2 * found] = at
    into[2 * found + 1] = at + 36
    found++
    at += 35
  }
  return found
}

/**
 * Words (lower case, a trailing `:` dropped) that, just before a path in tool output, tell the agent to read it next:
 * `Full output saved to: /tmp/…/toolu_01….txt` (Claude Code's `<persisted-output>`), `Log written to /var/log/x`,
 * `see /tmp/report.html`.
 */
const POINTER_PAIRS = new Set(['saved to', 'saved in', 'saved at', 'written to', 'written in', 'stored in', 'stored at', 'logged to', 'redirected to', 'available at', 'located at', 'output file', 'log file', 'output in', 'details in'])
const POINTER_WORDS = new Set(['see', 'read', 'open'])

/**
 * pointsToPath(text, starts, ends, index) = whether the words just before the line's `index`-th word tell the agent to
 * read what it names (see {@link POINTER_PAIRS}): what the output says to read next is not output the same call gives
 * again, but where the rest of it is.
 */
export function pointsToPath(text: string, starts: readonly number[], ends: readonly number[], index: number): boolean {
  if (index === 0) return false
  const last = pointerWord(text, starts[index - 1]!, ends[index - 1]!)
  if (last === undefined) return false
  if (POINTER_WORDS.has(last)) return true
  if (index === 1) return false
  const before = pointerWord(text, starts[index - 2]!, ends[index - 2]!)
  return before !== undefined && POINTER_PAIRS.has(`${before} ${last}`)
}

/** The word `[start, end)` in lower case without a trailing `:`, if it is a short one of letters (else undefined). */
function pointerWord(text: string, start: number, end: number): string | undefined {
  if (end > start && text.charCodeAt(end - 1) === 58) end--
  if (end - start < 2 || end - start > 10) return undefined
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index) | 32
    if (code < 97 || code > 122) return undefined
  }
  return text.slice(start, end).toLowerCase()
}

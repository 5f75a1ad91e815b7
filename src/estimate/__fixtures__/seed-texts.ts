/*
 * Deterministic texts for the seed parity test: agent-like fragments (paths, versions, errnos, env
 * vars, quotes across lines, CRLF, exponents, dotted runs) mixed with the Unicode cases where Python's
 * `re` and JavaScript disagree most (non-ASCII letters and digits, astral characters, combining marks,
 * KELVIN SIGN, U+0130, NBSP, lone surrogates), plus "soup" texts drawn from a small alphabet dense in
 * the characters the four patterns care about.
 */

/** Seeded PRNG (mulberry32): the same seed gives the same sequence on every machine. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

type Random = () => number

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
const integer = (random: Random, low: number, high: number): number => low + Math.floor(random() * (high - low + 1))

const WORDS = [
  'the', 'file', 'Error', 'failed', 'retry', 'must', 'MUST', 'Never', 'never', 'always', 'ALWAYS', 'exactly',
  'Exactly', 'only', 'ONLY', 'do not', 'Do Not', 'DO NOT', 'do  not', 'do\tnot', "don't", 'mUsT', 'onlyness',
  'nevermore', 'dont', 'café', 'naïve', 'Straße', 'ÉCOLE', 'İstanbul', 'ǅemal', 'ﬁle', 'Ωmega', 'Σίσυφος',
  'привет', 'ПРИВЕТ', '東京', 'עברית', 'عربى', 'हिन्दी', 'e\u0301t\u0301e', 'a\u0308', '\u212Aelvin', 'MUſT',
  'ﬀ', 'ŉ', 'x', 'y', 'I', 'A', '_', '__', 'foo_bar', 'fooBar', 'e', 'E', 'rm', 'npm', 'v',
]

const PATHS = [
  'src/index.ts', './a/b', '../x/y.js', '/usr/lib/libc.so.6', 'a/b/', 'a//b', '-x/y', '.hidden/cfg', 'C:/Users/me',
  'node_modules/.bin/tsc', 'café/über.txt', 'a.b-c/d/e.txt.', 'x./y', '.../x', '/', '//', 'a/', '/a', 'ä/ö',
  '𝐀/𝐁', '٣/٤', 'foo/bar-', 'foo/-', 'foo/.', 'foo/..', 'a.-/b', 'http://example.com/a/b?c=1', 'ns::Type/x',
  'a/b/c/d/e/f/g/h', 'src\\win\\path', '.a/.b', '-/-', 'a-/-b', '1/2', '1.5/2e3', 'x/y/z.',
]

const NUMBERS = [
  '0', '7', '42', '3.14', '1.2.3', 'v2.0.1-beta', '^4.17.21', '1e10', '1.5e-3', '2E5', '1.e5', '3.', '.5', '1.2.3.4',
  '1e', '1e+', '1e+5', '1e-5x', '6.02e23', '12ab', '0x1F', '1_000', '1,000', '-13', '+7', '٣', '٣٤٥', '५', '१२३', '𝟘',
  '𝟙𝟚', '½', 'Ⅻ', '²', '1²', '１２', '１.５', '1.٣', '٣.1', '1e٣', '9'.repeat(40), '1.5.', '1..5', '1.5e', '1.5e5.5',
  '1.5e+5e5', '0.0.0.0', '127.0.0.1:8080', 'errno 2', 'exit code 137', 'ENOENT (2)', '1٫5', '²³', 'x1', '1x',
]

const CONSTANTS = [
  'NODE_ENV', 'ENOENT', 'EACCES', 'HOME', 'PATH', '$HOME', '${API_KEY}', 'A_B', '_', '__', '___', 'X', 'XY', 'X_',
  '_X', 'ABCdef', 'ABC1', 'AB_CD_EF', 'ÀB', 'AÉ', 'ΑΒ', 'HTTP', 'JSON', 'UTF_8', 'OK', 'TODO', 'FIXME', 'K\u212A',
  'AB\u0301', 'A𝐀', 'AB٣',
]

const SEPARATORS = [
  ' ', ' ', ' ', '\n', '\r\n', '\t', '\u00a0', '\u2003', ', ', '; ', ': ', '(', ')', '[', ']', '{', '}', '<', '>', '=',
  '.', '..', '-', '--', '/', '\\', '`', '|', '\u200d', '\u0301', '😀', '🎉', '\u3000', '\n\n', '\r', '\u2028', '@',
  '#', '!', '?', '*', '+', '~', '^', '%', '&',
]

// Characters the patterns branch on, weighted by repetition, for soup texts.
const SOUP = [
  ...'aaaeeeEEmustnevrlwyxcdoMUSTNAZ__..--//  "\'111999\n\r\t'.split(''),
  'é', 'ß', 'Ⅻ', '٣', '५', '½', '²', '𝟘', '𝐀', '😀', '\u0301', '\u212A', 'İ', '\u00a0', '١', '_', 'Σ', 'ſ', '\ud800',
  '\udc00', 'ﬁ', '０',
]

function fragment(random: Random): string {
  const roll = random()
  if (roll < 0.22) return pick(random, WORDS)
  if (roll < 0.36) return pick(random, PATHS)
  if (roll < 0.52) return pick(random, NUMBERS)
  if (roll < 0.62) return pick(random, CONSTANTS)
  if (roll < 0.72) return quoted(random)
  if (roll < 0.76) return `${pick(random, ['a', 'x', '1', 'é', '٣'])}${'.a'.repeat(integer(random, 1, 30))}`
  if (roll < 0.79) return `${'a/'.repeat(integer(random, 1, 20))}`
  if (roll < 0.82) return `${'1.'.repeat(integer(random, 1, 20))}`
  if (roll < 0.85) return `${pick(random, ['ENV', 'DATA', 'A'])}=${pick(random, NUMBERS)}`
  if (roll < 0.88) return `Error: ${pick(random, CONSTANTS)}: no such file or directory, open '${pick(random, PATHS)}'`
  if (roll < 0.91) return pick(random, ["it's", "don't", "users'", "'", '"', "'''", '""', 'l\'été'])
  return soup(random, integer(random, 1, 12))
}

function quoted(random: Random): string {
  const quote = random() < 0.6 ? '"' : "'"
  const inner: string[] = []
  const count = integer(random, 0, 5)
  for (let index = 0; index < count; index++) {
    inner.push(random() < 0.3 ? pick(random, ['\n', '\r\n', ' ', quote === '"' ? "'" : '"']) : fragment(random).replaceAll(quote, ''))
  }
  // Leave some quotes unterminated so they pair with a later quote, or with none.
  return random() < 0.1 ? `${quote}${inner.join(' ')}` : `${quote}${inner.join(' ')}${quote}`
}

function soup(random: Random, length: number): string {
  let text = ''
  for (let index = 0; index < length; index++) text += pick(random, SOUP)
  return text
}

/** One agent-like text of about `fragments` fragments joined by random separators. */
export function agentLikeText(random: Random, fragments: number): string {
  const pieces: string[] = []
  for (let index = 0; index < fragments; index++) {
    if (index > 0) pieces.push(random() < 0.15 ? '' : pick(random, SEPARATORS))
    pieces.push(fragment(random))
  }
  return pieces.join('')
}

/** `count` deterministic parity texts from `seed`: mostly agent-like, some pure soup, some CRLF-only. */
export function generateSeedTexts(count: number, seed: number): string[] {
  const random = createRandom(seed)
  const texts: string[] = []
  for (let index = 0; index < count; index++) {
    const kind = index % 10
    if (kind < 6) texts.push(agentLikeText(random, integer(random, 1, 40)))
    else if (kind < 8) texts.push(soup(random, integer(random, 1, 80)))
    else if (kind === 8) texts.push(agentLikeText(random, integer(random, 5, 30)).replaceAll('\n', '\r\n'))
    else texts.push(agentLikeText(random, integer(random, 80, 200)))
  }
  return texts
}

/** A hostile input of about `size` UTF-16 units, with the exact reference result derived by hand. */
export interface HostileCase {
  readonly name: string
  readonly text: string
  /** The reference's `irreducible_tokens` for this text. */
  readonly irreducible: number
}

/**
 * Hostile inputs for the linear-time requirement, each with its reference result derived from the
 * patterns (and checked against Python at small sizes by the parity test). `size` must be a multiple of 4.
 */
export function hostileCases(size: number): HostileCase[] {
  const quarter = size / 4
  return [
    // One word run and no slash: no pattern matches (it starts with a letter, holds lowercase).
    { name: 'word characters', text: 'aé_9'.repeat(quarter), irreducible: 0 },
    // The reference's path pattern is quadratic here; there is no slash, so nothing matches.
    { name: 'dotted run without slash', text: 'a.'.repeat(size / 2), irreducible: 0 },
    // Both quote kinds open once and never close; the apostrophe pairs `''` all dedup to one 1-token span.
    { name: 'unterminated quotes', text: `"${"''".repeat(size / 2 - 1)}'`, irreducible: 1 },
    // One number of `size` digits.
    { name: 'digit run', text: '7'.repeat(size), irreducible: size / 4 },
    // `1.1` then `1.1` … from `1.1.1.`: one distinct 3-character span.
    { name: 'one-dot runs', text: '1.'.repeat(size / 2), irreducible: 1 },
    // One constant of `size` characters.
    { name: 'uppercase run', text: 'AB_C'.repeat(quarter), irreducible: size / 4 },
    // One quoted string of `size` characters.
    { name: 'one giant token', text: `"${'x'.repeat(size - 2)}"`, irreducible: size / 4 },
    // One path over everything but the trailing slash.
    { name: 'a/ run', text: 'a/'.repeat(size / 2), irreducible: Math.floor((size - 1) / 4) },
    // `1e1e1…` is one word run starting with a digit, but no `\b` follows any exponent: nothing matches.
    { name: 'exponent run', text: '1e'.repeat(size / 2), irreducible: 0 },
  ]
}

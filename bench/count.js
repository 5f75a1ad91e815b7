// Token counting benchmark (called by bench/run.js as `counting()`, or alone: node bench/count.js): floorguard's exact
// counter against gpt-tokenizer's encoder on the same inputs, and against tiktoken for exactness. Reports the rank-table
// build per encoding and, in a fresh process each (best of 5), what a start pays to get the table: read from the file
// built at install, or imported from gpt-tokenizer and built; MB/s on 8 MB of agent text counted whole, and on ~75k
// distinct short items (line halves) and the full estimator's ~58k items with cold caches (a fresh tokenizer per run;
// gpt-tokenizer's merge cache cleared), for ASCII text and for text with some non-ASCII characters; single long pieces
// (1 MB runs); and mismatches against tiktoken on 20,000 random texts of every script (Unicode 15.1-17 code points,
// contractions with U+017F, punctuation, digits, spaces) and 200 with a run of 513 to 4,600 units. Runs against
// dist/ (FLOORGUARD_DIST or the first argument to use another build). Prints one JSON line per row.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { agentText, prng } from './_text.js'

const MB = 1024 * 1024
const defaultDist = process.env.FLOORGUARD_DIST ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
/** What floorguard's previous tokenizer passed: special-token strings are ordinary text. */
const NO_SPECIAL = { disallowedSpecial: new Set() }

function best(runs, fn) {
  let fastest = Infinity
  let value
  for (let run = 0; run < runs; run++) {
    const start = performance.now()
    value = fn()
    fastest = Math.min(fastest, performance.now() - start)
  }
  return { ms: fastest, value }
}

/** Distinct halves of each line (split at the first space past the middle): short items like an estimator's. */
function lineHalves(text) {
  const items = new Set()
  for (const line of text.split('\n')) {
    const middle = line.indexOf(' ', line.length >> 1)
    if (middle === -1) items.add(line)
    else {
      items.add(line.slice(0, middle))
      items.add(line.slice(middle))
    }
  }
  items.delete('')
  return [...items]
}

/** The agent text with a few non-ASCII characters on most lines (arrows, accents, dashes, an emoji). */
function withNonAscii(text) {
  return text.replaceAll(' then ', ' → ').replaceAll('error', 'érror').replaceAll('. ', '. — ').replaceAll('ok', 'ok ✅')
}

/** Code point ranges assigned in Unicode 15.1, 16.0 and 17.0. */
const RECENT = [
  [0x2ffc, 0x2fff], [0x31ef, 0x31ef], [0x2ebf0, 0x2ee5d], [0x1c89, 0x1c8a], [0xa7cb, 0xa7cd], [0xa7da, 0xa7dc], [0x10d40, 0x10d8f],
  [0x11380, 0x113ff], [0x16d40, 0x16d79], [0x1e5d0, 0x1e5ff], [0x13460, 0x143fa], [0x0c5c, 0x0c5c], [0x0cdc, 0x0cdc], [0x088f, 0x088f],
  [0x1acf, 0x1aeb], [0xa7ce, 0xa7d4], [0xa7f1, 0xa7f1], [0x10940, 0x1095f], [0x11db0, 0x11def], [0x16ea0, 0x16edf], [0x323b0, 0x3347f],
]
const SCRIPTS = [...'abcxyzABCXYZéÉßİıſǅʰªºµαβγΣΩάϐжЖщЩѐعربيةशहिन्दीकि中文字符한국어日本語カタカナ٣١٢٠०१Ⅻⅻ½²😀', '\u0301', '\u0300', '\u064b', '\u093f', '👍🏽', '\u200d', '\uFEFF', '\u200b', ' I']
const PUNCTUATION = [...'.,;:!?-_=+*/\\|<>()[]{}"#$%&@^`~—–…«»“”’→✅', '...', '--', '==', '->', '//']
const SPACES = [' ', '  ', '    ', '\t', '\n', '\n\n', '\r\n', ' \n', '\u00a0', '\u3000', '\u2028', '\u0085', '\u2003', '\v']
const CONTRACTIONS = ['s', 'S', 'ſ', 't', 'T', 'd', 'm', 'll', 'LL', 'ſſ', 've', 'VE', 're', 'x']

/** A random text of up to 30 atoms from every script and plane; with `run`, a run of 513 to 4,600 units in the middle. */
function fuzzText(random, run) {
  const pick = (list) => list[Math.floor(random() * list.length)]
  const codePoint = (first, last) => {
    const cp = first + Math.floor(random() * (last - first + 1))
    return cp >= 0xd800 && cp <= 0xdfff ? 'x' : String.fromCodePoint(cp)
  }
  const atom = () => {
    const kind = random()
    if (kind < 0.14) return codePoint(0, 0x10ffff)
    if (kind < 0.28) return codePoint(...pick(RECENT))
    if (kind < 0.55) return pick(SCRIPTS)
    if (kind < 0.68) return pick(PUNCTUATION)
    if (kind < 0.77) return String(Math.floor(random() * 10 ** (1 + Math.floor(random() * 9))))
    if (kind < 0.9) return pick(SPACES)
    return pick(["'", '’']) + pick(CONTRACTIONS)
  }
  const atoms = (count) => Array.from({ length: count }, atom).join('')
  const head = atoms(Math.floor(random() * 31))
  if (!run) return head
  const unit = random() < 0.5 ? atom() : pick(['a', '-=', '.', ' ', '中', 'ab1'])
  const times = Math.max(1, Math.floor((513 + Math.floor(random() * 4088)) / unit.length))
  return head + unit.repeat(times) + atoms(Math.floor(random() * 10))
}

/** Mismatches against tiktoken (a dev dependency; skipped without it) on the random texts, per encoding. */
export async function exactness(createTokenizer) {
  let tiktoken
  try {
    tiktoken = createRequire(import.meta.url)('tiktoken')
  } catch {
    return [{ name: 'exactness vs tiktoken', skipped: 'tiktoken is not installed' }]
  }
  const rows = []
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    const oracle = tiktoken.get_encoding(encoding)
    const tokenizer = await createTokenizer(encoding, { memoizeUpTo: 0 })
    for (const [input, count, run, seed] of [['random texts', 20_000, false, 1117], ['random texts with a long run', 200, true, 1118]]) {
      const random = prng(seed)
      let mismatches = 0
      let under = 0
      let largest = 0
      const examples = []
      for (let index = 0; index < count; index++) {
        const text = fuzzText(random, run)
        const ours = tokenizer.count(text)
        const truth = oracle.encode_ordinary(text).length
        if (ours === truth) continue
        mismatches++
        if (ours < truth) under++
        largest = Math.max(largest, Math.abs(ours - truth))
        if (examples.length < 3) examples.push(`${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)} ${ours} vs ${truth}`)
      }
      rows.push({ name: 'exactness vs tiktoken', encoding, input, texts: count, mismatches, underCounted: under, largestDifference: largest, examples })
    }
    oracle.free()
  }
  return rows
}

/** Best of `runs` fresh processes running `code` (an ES module body printing one number, in ms). */
function freshProcess(code, runs = 5) {
  let fastest = Infinity
  for (let run = 0; run < runs; run++) {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', cwd: dirname(fileURLToPath(import.meta.url)) })
    if (child.status !== 0) throw new Error(`bench: a fresh process failed: ${child.stderr}`)
    fastest = Math.min(fastest, Number(child.stdout.trim()))
  }
  return fastest
}

const megabytesOf = (texts) => texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / MB

/** Rows: the rank-table builds, then floorguard vs gpt-tokenizer per encoding and input. */
export async function counting(dist = defaultDist) {
  const { createFullEstimator, createTokenizer } = await import(pathToFileURL(join(dist, 'index.js')).href)
  const { buildRankTable } = await import(pathToFileURL(join(dist, 'tokenize', '_rank-table.js')).href)
  const rows = []
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    let start = performance.now()
    const data = (await import(`gpt-tokenizer/bpeRanks/${encoding}`)).default
    const importMs = performance.now() - start
    start = performance.now()
    buildRankTable(data)
    const firstBuildMs = performance.now() - start
    const build = best(3, () => buildRankTable(data))
    rows.push({ name: `rank table ${encoding}`, tokens: data.length, importMs: round(importMs), firstBuildMs: round(firstBuildMs), buildMs: round(build.ms) })
    // What a process start pays for the table, each way, in a process of its own.
    const tokenizeDir = pathToFileURL(join(dist, 'tokenize')).href
    const builtAhead = existsSync(join(dist, 'tokenize', `${encoding}.ranks`))
    const readMs = builtAhead
      ? freshProcess(`const { readBuiltAhead } = await import('${tokenizeDir}/_rank-cache.js'); const start = performance.now(); if (!readBuiltAhead('${encoding}')) throw new Error('stale'); console.log(performance.now() - start)`)
      : undefined
    const buildMs = freshProcess(`const { buildRankTable } = await import('${tokenizeDir}/_rank-table.js'); const start = performance.now(); buildRankTable((await import('gpt-tokenizer/bpeRanks/${encoding}')).default); console.log(performance.now() - start)`)
    rows.push({ name: `rank table at start ${encoding}`, freshProcess: true, builtAheadReadMs: readMs === undefined ? 'no file (run npm run prepare)' : round(readMs), importAndBuildMs: round(buildMs) })
  }
  const ascii = agentText(8 * MB)
  const mixed = withNonAscii(ascii)
  const inputs = [
    { input: 'agent text, whole', texts: [ascii] },
    { input: 'line halves, cold', texts: lineHalves(ascii) },
    { input: 'non-ASCII agent text, whole', texts: [mixed] },
    { input: 'non-ASCII line halves, cold', texts: lineHalves(mixed) },
  ]
  if (typeof createFullEstimator === 'function') {
    // What the full estimator prices on the same text (it changes with the estimator): its distinct item texts.
    const stub = { specificationVersion: 'v1', name: 'stub', exact: false, count: () => 1 }
    const { items } = createFullEstimator({ tokenizer: stub }).estimate([{ role: 'user', parts: [{ type: 'text', text: ascii }] }])
    inputs.push({ input: 'full estimator items, cold', texts: [...new Set(items.map((item) => item.text))] })
  }
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    const gpt = await import(`gpt-tokenizer/encoding/${encoding}`)
    // As floorguard's previous tokenizer did: a merge cache that 8 MB of agent text cannot fill (filling it is slow).
    gpt.setMergeCacheSize(1_000_000)
    await createTokenizer(encoding)
    for (const { input, texts } of inputs) {
      const megabytes = megabytesOf(texts)
      const fresh = []
      for (let run = 0; run < 3; run++) {
        // A fresh tokenizer per run is a cold one: its piece cache and memo start empty (the rank table is shared).
        const tokenizer = await createTokenizer(encoding)
        const started = performance.now()
        let total = 0
        for (const text of texts) total += tokenizer.count(text)
        fresh.push({ ms: performance.now() - started, total })
      }
      const floorguard = fresh.reduce((fastest, run) => (run.ms < fastest.ms ? run : fastest))
      const theirs = best(3, () => {
        gpt.clearMergeCache()
        let total = 0
        for (const text of texts) total += gpt.countTokens(text, NO_SPECIAL)
        return total
      })
      const common = { encoding, input, items: texts.length, megabytes: round(megabytes) }
      rows.push({ name: 'floorguard', ...common, ms: round(floorguard.ms), mbPerSecond: round(megabytes / (floorguard.ms / 1000)), tokens: floorguard.total, vsGptTokenizer: round(theirs.ms / floorguard.ms) })
      rows.push({ name: 'gpt-tokenizer countTokens', ...common, ms: round(theirs.ms), mbPerSecond: round(megabytes / (theirs.ms / 1000)), tokens: theirs.value })
    }
    // Single pieces of 1 MB, merged whole (hostile input: O(n log n), where the pieces of agent text above are short).
    for (const [input, text] of [['1 MB run of one letter', 'a'.repeat(MB)], ['1 MB run of "-="', '-='.repeat(MB / 2)]]) {
      const tokenizer = await createTokenizer(encoding)
      const run = best(1, () => tokenizer.count(text))
      rows.push({ name: 'floorguard', encoding, input, megabytes: 1, ms: round(run.ms), mbPerSecond: round(1 / (run.ms / 1000)), tokens: run.value })
    }
  }
  rows.push(...(await exactness(createTokenizer)))
  return rows
}

function round(value) {
  return Math.round(value * 10) / 10
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await counting(process.argv[2] ?? defaultDist)) console.log(JSON.stringify(row))
}

// Token counting benchmark (called by bench/run.js as `counting()`, or alone: node bench/count.js): floorguard's exact
// counter against gpt-tokenizer's encoder on the same inputs. Reports the rank-table build per encoding, MB/s on 8 MB
// of agent text counted whole, and on ~75k distinct short items (line halves) and the full estimator's ~58k items with
// cold caches (a fresh tokenizer per run; gpt-tokenizer's merge cache cleared), for ASCII text and for text with some
// non-ASCII characters. Runs against dist/ (FLOORGUARD_DIST or the first argument to use another build). Prints one
// JSON line per row.
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { agentText } from './_text.js'

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
  }
  return rows
}

function round(value) {
  return Math.round(value * 10) / 10
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await counting(process.argv[2] ?? defaultDist)) console.log(JSON.stringify(row))
}

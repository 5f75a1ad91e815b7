#!/usr/bin/env node
/**
 * Builds the rank tables ahead, from the installed gpt-tokenizer (never downloaded): run by `prepare` after the build,
 * it writes dist/tokenize/<encoding>.ranks, which the tokenizer reads instead of importing gpt-tokenizer's data and
 * building the table at every start (see src/tokenize/_rank-cache.ts). The file is keyed by gpt-tokenizer's version:
 * after an upgrade without a rebuild it is ignored, and the table is built in memory as before. Never fails an
 * install: without dist/ or gpt-tokenizer it says so and exits 0.
 *
 * A table that reads back under the current key (layout, encoding, gpt-tokenizer's version) is left as it is, so `build`
 * runs this too at little cost: a layout change then takes effect at the next build.
 *
 * Usage (from the repository root, after tsc): node scripts/build-rank-tables.mjs
 */
import { renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'tokenize')
let modules
try {
  modules = {
    cache: await import(pathToFileURL(join(dist, '_rank-cache.js')).href),
    table: await import(pathToFileURL(join(dist, '_rank-table.js')).href),
  }
} catch (error) {
  console.error(`build-rank-tables: no built tokenizer in ${dist} (${error.code ?? error.message}); the tables will be built at run time`)
  process.exit(0)
}
const { builtAheadFile, installedGptTokenizerVersion, rankTableKey, readBuiltAhead, serializeRankTable, deserializeRankTable } = modules.cache
const version = installedGptTokenizerVersion()
if (version === undefined) {
  console.error('build-rank-tables: gpt-tokenizer is not installed; nothing built')
  process.exit(0)
}
for (const encoding of ['o200k_base', 'cl100k_base']) {
  // A table already built for this layout and this gpt-tokenizer is kept (`build` runs this script at every build).
  if (readBuiltAhead(encoding)) continue
  const data = (await import(`gpt-tokenizer/bpeRanks/${encoding}`)).default
  const table = modules.table.buildRankTable(data)
  const key = rankTableKey(encoding, version)
  const bytes = serializeRankTable(table, key)
  if (!deserializeRankTable(bytes, key)) throw new Error(`build-rank-tables: the ${encoding} table does not read back`)
  const file = fileURLToPath(builtAheadFile(encoding))
  // Written aside and renamed: a process starting meanwhile reads the old file or the new one, never half of one.
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, bytes)
  renameSync(temporary, file)
  console.error(`build-rank-tables: ${encoding} (gpt-tokenizer ${version}) ${(bytes.length / 1048576).toFixed(1)} MB → ${file}`)
}

#!/usr/bin/env node
/**
 * Bundles the CLI's `check` and `plan` into one CommonJS script, dist/cli/main.bundle.cjs, with the rolldown already
 * installed (vite's; nothing is downloaded), then trains V8's code cache for it: run by `build` and `prepare` after
 * tsc. A process then compiles one script where it loaded ~65 modules (each resolved, read, compiled and linked on
 * its own), and takes from dist/cli/main.bundle.cjs.cache the bytecode of the functions that the training runs below
 * compiled (`check` and `plan` of a generated session in several formats) instead of compiling them as they are first
 * called. bin/floorguard.js takes the bundle for those two commands only, and only while it is newer than
 * dist/cli/main.js (a later tsc build leaves it stale, and the modules are loaded as before), and the cache only while
 * it is not older than the bundle; the other commands' modules stay outside it (imported from dist/cli/commands/ as
 * before, so they are never loaded twice). Never fails a build: without rolldown or dist/ it says so, removes any old
 * bundle and exits 0; a training run that fails leaves the cache with what the others compiled.
 *
 * Usage (from the repository root, after tsc): node scripts/bundle-cli.mjs
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cli = join(root, 'dist', 'cli')
const bundle = join(cli, 'main.bundle.cjs')
const codeCache = `${bundle}.cache`
/** The commands bundled; the others stay `import('./commands/NAME.js')` of their own modules. */
const BUNDLED = new Set(['check', 'plan'])

function giveUp(reason) {
  removeBundle()
  console.error(`bundle-cli: ${reason}; check and plan load dist/cli/main.js's modules one by one`)
  process.exit(0)
}

/** Removes the bundle, its code cache, and the ES module bundle earlier builds wrote. */
function removeBundle() {
  for (const file of [bundle, codeCache, join(cli, 'main.bundle.js')]) rmSync(file, { force: true })
}

if (!existsSync(join(cli, 'main.js'))) giveUp(`no built CLI in ${cli}`)
let rolldown
try {
  ;({ rolldown } = await import('rolldown'))
} catch (error) {
  giveUp(`rolldown is not installed (${error.code ?? error.message})`)
}

const temporary = `${bundle}.${process.pid}.tmp.cjs`
// The cache goes first: V8 checks a cache against the source's length only, never against an older bundle's text.
removeBundle()
try {
  const build = await rolldown({
    input: join(cli, 'main.js'),
    platform: 'node',
    logLevel: 'warn',
    external: (id, importer) => {
      if (id.startsWith('node:') || id === 'gpt-tokenizer' || id.startsWith('gpt-tokenizer/')) return true
      // main.js's other commands: left as imports of their own modules (resolved next to the bundle, in dist/cli/).
      const command = /^\.\/commands\/([a-z-]+)\.js$/.exec(id)
      return command !== null && importer === join(cli, 'main.js') && !BUNDLED.has(command[1])
    },
  })
  // import() of a package becomes require(): a function compiled from V8's code cache loses the script's loader for
  // import() (Node 20), and that loader warns that it is experimental.
  await build.write({ file: temporary, format: 'cjs', codeSplitting: false, sourcemap: false, dynamicImportInCjs: false })
  await build.close()
  // Renamed into place: a process starting meanwhile reads the old bundle or the new one, never half of one.
  renameSync(temporary, bundle)
} catch (error) {
  rmSync(temporary, { force: true })
  giveUp(`bundling failed (${error.message.split('\n')[0]})`)
}
console.error(`bundle-cli: check and plan → ${bundle}`)
await trainCodeCache()

/**
 * Runs `check` and `plan` through bin/floorguard.js with FLOORGUARD_TRAIN_CODE_CACHE=1 on a generated session (the
 * demo's) written in the formats users run most: each run starts from the cache the previous one wrote and adds the
 * functions it compiled. The inputs live in a temporary directory removed at the end.
 */
async function trainCodeCache() {
  const dist = join(root, 'dist')
  const work = mkdtempSync(join(tmpdir(), 'floorguard-train-'))
  try {
    const { generateSession } = await import(pathToFileURL(join(dist, 'demo', 'session.js')).href)
    const { getFormat } = await import(pathToFileURL(join(dist, 'transcript', 'registry.js')).href)
    const { messages } = generateSession({ turns: 150 })
    const transcript = { format: 'openai', messages, pairs: [], unpaired: [] }
    const inputs = [
      ['claude-code', getFormat('claude-code').append(messages)],
      ['codex', getFormat('codex').append?.(messages)],
      ['openai', getFormat('openai').write(transcript)],
      ['text', messages.flatMap((message) => message.parts.map((part) => part.text ?? part.content ?? JSON.stringify(part.arguments ?? ''))).join('\n\n')],
    ].filter(([, text]) => typeof text === 'string')
    const runs = []
    for (const [format, text] of inputs) {
      const file = join(work, `session.${format}`)
      writeFileSync(file, text)
      runs.push(['check', file, '--format', format, '--json'], ['plan', file, '--format', format, '--slot', '2000'])
    }
    runs.push(['check', join(work, 'session.text'), '--format', 'text', '--estimator', 'seed', '--json'])
    for (const args of runs) {
      const run = spawnSync(process.execPath, [join(root, 'bin', 'floorguard.js'), ...args], {
        env: { ...process.env, FLOORGUARD_TRAIN_CODE_CACHE: '1', FLOORGUARD_NO_BUNDLE: '' },
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      })
      if (run.status !== 0) console.error(`bundle-cli: training run \`${args[0]} --format ${args[3]}\` failed (${run.status ?? run.signal}): ${run.stderr.split('\n')[0]}`)
    }
    console.error(existsSync(codeCache) ? `bundle-cli: code cache → ${codeCache}` : 'bundle-cli: no code cache written')
  } catch (error) {
    console.error(`bundle-cli: no code cache (${error.message.split('\n')[0]})`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

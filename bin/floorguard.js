#!/usr/bin/env node
// Thin wrapper: the CLI lives in src/cli/ and is compiled to dist/ by `npm ci` (the prepare script).
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

const MAIN = new URL('../dist/cli/main.js', import.meta.url)
const BUNDLE = fileURLToPath(new URL('../dist/cli/main.bundle.cjs', import.meta.url))
/** V8's code cache of the bundle (bytecode of the functions a build's training runs compiled; scripts/bundle-cli.mjs). */
const CODE_CACHE = `${BUNDLE}.cache`

/**
 * `check` and `plan` run dist/cli/main.bundle.cjs (one script, see scripts/bundle-cli.mjs) while it is newer than
 * dist/cli/main.js, that is, built from the compiled sources now in dist/; anything else, a stale bundle, none, or
 * FLOORGUARD_NO_BUNDLE set, loads dist/cli/main.js and its modules one by one.
 */
function bundleTime() {
  const command = process.argv[2]
  if ((command !== 'check' && command !== 'plan') || process.env.FLOORGUARD_NO_BUNDLE) return undefined
  try {
    const time = statSync(BUNDLE).mtimeMs
    return time >= statSync(MAIN).mtimeMs ? time : undefined
  } catch {
    return undefined
  }
}

/**
 * Runs the bundle as Node runs a CommonJS file, compiled with the code cache when the cache is at least as new as the
 * bundle (V8 checks its own version, flags and the source's length, not the source itself: the build removes the
 * cache before it writes a bundle). V8 rejects a cache it cannot use and compiles as if there were none.
 * FLOORGUARD_TRAIN_CODE_CACHE=1 (the build's training runs) writes the cache back at exit, with what this run compiled.
 */
function runBundle(time) {
  const source = readFileSync(BUNDLE, 'utf8')
  let cachedData
  try {
    if (statSync(CODE_CACHE).mtimeMs >= time) cachedData = readFileSync(CODE_CACHE)
  } catch {}
  // The bundle has no import() (the build turns a package's into require), so it needs no module loader of vm's.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: BUNDLE, cachedData })
  if (process.env.FLOORGUARD_TRAIN_CODE_CACHE === '1') process.once('exit', () => writeCodeCache(script))
  const module = { exports: {} }
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE))
  return module.exports
}

function writeCodeCache(script) {
  const temporary = `${CODE_CACHE}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, script.createCachedData())
    renameSync(temporary, CODE_CACHE)
  } catch (error) {
    rmSync(temporary, { force: true })
    process.stderr.write(`floorguard: cannot write the code cache (${error.code ?? error.message})\n`)
  }
}

const time = bundleTime()
let loaded
try {
  loaded = time === undefined ? import(MAIN.href) : Promise.resolve(runBundle(time))
} catch (error) {
  loaded = Promise.reject(error)
}
loaded.then(
  (cli) => cli.main(),
  (error) => {
    process.stderr.write(`floorguard: cannot load the compiled CLI (${error.code ?? error.message}); run \`npm run build\` first\n`)
    process.exitCode = 1
  },
)

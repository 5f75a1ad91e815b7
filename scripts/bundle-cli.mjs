#!/usr/bin/env node
/**
 * Bundles the CLI's `check` and `plan` into one file, dist/cli/main.bundle.js, with the rolldown already installed
 * (vite's; nothing is downloaded): run by `build` and `prepare` after tsc. A process then loads one module where it
 * loaded ~65 (each resolved, read, compiled and linked on its own): ~20-50 ms of every `check` and `plan`.
 * bin/floorguard.js takes the bundle for those two commands only, and only while it is newer than dist/cli/main.js
 * (a later tsc build leaves it stale, and the modules are loaded as before); the other commands' modules stay outside
 * it (imported from dist/cli/commands/ as before, so they are never loaded twice). Never fails a build: without
 * rolldown or dist/ it says so, removes any old bundle and exits 0.
 *
 * Usage (from the repository root, after tsc): node scripts/bundle-cli.mjs
 */
import { existsSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli')
const bundle = join(cli, 'main.bundle.js')
/** The commands bundled; the others stay `import('./commands/NAME.js')` of their own modules. */
const BUNDLED = new Set(['check', 'plan'])

function giveUp(reason) {
  rmSync(bundle, { force: true })
  console.error(`bundle-cli: ${reason}; check and plan load dist/cli/main.js's modules one by one`)
  process.exit(0)
}

if (!existsSync(join(cli, 'main.js'))) giveUp(`no built CLI in ${cli}`)
let rolldown
try {
  ;({ rolldown } = await import('rolldown'))
} catch (error) {
  giveUp(`rolldown is not installed (${error.code ?? error.message})`)
}

const temporary = `${bundle}.${process.pid}.tmp.js`
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
  await build.write({ file: temporary, format: 'esm', codeSplitting: false, sourcemap: false })
  await build.close()
  // Renamed into place: a process starting meanwhile reads the old bundle or the new one, never half of one.
  renameSync(temporary, bundle)
} catch (error) {
  rmSync(temporary, { force: true })
  giveUp(`bundling failed (${error.message.split('\n')[0]})`)
}
console.error(`bundle-cli: check and plan → ${bundle}`)

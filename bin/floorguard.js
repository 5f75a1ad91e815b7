#!/usr/bin/env node
// Thin wrapper: the CLI lives in src/cli/ and is compiled to dist/ by `npm ci` (the prepare script).
import { statSync } from 'node:fs'

/**
 * `check` and `plan` load dist/cli/main.bundle.js (one module, see scripts/bundle-cli.mjs) while it is newer than
 * dist/cli/main.js, that is, built from the compiled sources now in dist/; anything else, a stale bundle, none, or
 * FLOORGUARD_NO_BUNDLE set, loads dist/cli/main.js and its modules one by one.
 */
function entry() {
  const main = new URL('../dist/cli/main.js', import.meta.url)
  const command = process.argv[2]
  if ((command !== 'check' && command !== 'plan') || process.env.FLOORGUARD_NO_BUNDLE) return main
  const bundle = new URL('../dist/cli/main.bundle.js', import.meta.url)
  try {
    return statSync(bundle).mtimeMs >= statSync(main).mtimeMs ? bundle : main
  } catch {
    return main
  }
}

import(entry().href).then(
  (cli) => cli.main(),
  (error) => {
    process.stderr.write(`floorguard: cannot load the compiled CLI (${error.code ?? error.message}); run \`npm run build\` first\n`)
    process.exitCode = 1
  },
)

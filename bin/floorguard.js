#!/usr/bin/env node
// Thin wrapper: the CLI lives in src/cli/ and is compiled to dist/ by `npm ci` (the prepare script).
import('../dist/cli/main.js').then(
  (cli) => cli.main(),
  (error) => {
    process.stderr.write(`floorguard: cannot load the compiled CLI (${error.code ?? error.message}); run \`npm run build\` first\n`)
    process.exitCode = 1
  },
)

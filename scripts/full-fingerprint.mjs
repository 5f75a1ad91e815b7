// Prints the fingerprint of what the `full` estimator finds (src/estimate/__fixtures__/full-fingerprint.ts) for the
// build in the directory given (default: dist/). An optimization of the estimator must not change it: build the
// commit before the change into another directory (`npx tsc -p tsconfig.json --outDir /tmp/before`) and compare
// `node scripts/full-fingerprint.mjs /tmp/before` with `node scripts/full-fingerprint.mjs`.
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(fileURLToPath(import.meta.url), '..', '..')
const dist = resolve(process.argv[2] ?? join(root, 'dist'))
const { createFullEstimator } = await import(pathToFileURL(join(dist, 'index.js')).href)
// The fixture comes from this checkout's build, so that two builds are fingerprinted on the same transcripts.
const { fullFingerprint } = await import(pathToFileURL(join(root, 'dist', 'estimate', '__fixtures__', 'full-fingerprint.js')).href)
const { items, sha256 } = fullFingerprint(createFullEstimator)
console.log(`${items} items, sha256 ${sha256}`)

// Prints a fingerprint of what the `full` estimator finds on 3,000 generated transcripts and on agent text, for the build in DIST
// (default: dist/). An optimization of the estimator must not change it: build the commit before the change into
// another directory (`npx tsc -p tsconfig.json --outDir /tmp/before`) and compare
// `node scripts/full-fingerprint.mjs /tmp/before` with `node scripts/full-fingerprint.mjs`.
// Tokens are counted as UTF-16 units, so the fingerprint is the estimator's alone, not the tokenizer's.
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import fc from 'fast-check'
import { agentText } from '../bench/_text.js'

const dist = resolve(process.argv[2] ?? 'dist')
const { createFullEstimator } = await import(pathToFileURL(`${dist}/index.js`).href)
const pieces = [
  'the', 'worker', 'must', 'never', "don't", 'at most', 'only', ' ', ' ', ' ', '\n', '\r\n', '\t', '. ', ', ', ':', '"', "'", '`', '“', '”',
  '(', ')', '[', ']', '{', '}', 'OSError:', '[Errno 28]', 'No space left on device', 'Traceback (most recent call last):', 'FAILED',
  'error:', 'fatal:', 'command not found', 'E501', 'src/a.py:12:3', 'Exit code 1', '<tool_use_error>', '250', 'ms', '>=', '3', '1.5',
  '0x1f', '42%', 'timeout', '=', '30', 'retries', 'numpy==1.26.4', 'react@18.3.1', '^2.0', '/var/tmp/x.bin', 'https://api.example.com/v1/x?y=1',
  'CUDA_VISIBLE_DEVICES=1', 'MAX_STEPS', 'a3f9c2e1b7', '123e4567-e89b-12d3-a456-426614174000', 'fooBar', 'snake_case_name', 'main()',
  'os.path.join', 'é', '中文', '😀', '\u00a0', '\u212a', 'İ', 'killed', 'skilled', 'do not', 'NOTE', "it's", "'quoted'", '"a b"', '/^a+$/',
  'r"^x\\d+$"', '...', 'v1.2.3',
]
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((parts) => parts.join(''))
const part = fc.oneof(
  text.map((value) => ({ type: 'text', text: value })),
  fc.record({ type: fc.constant('tool-result'), callId: fc.constant('c1'), content: text, isError: fc.boolean() }),
)
const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'system'), parts: fc.array(part, { minLength: 1, maxLength: 3 }) })
const samples = fc.sample(fc.array(message, { minLength: 1, maxLength: 4 }), { seed: 20261202, numRuns: 3000 })
// And 2 MB of the benchmark's agent text, as each role and as a failing tool result.
const bench = agentText(2 * 1024 * 1024, 5)
for (const role of ['user', 'assistant', 'tool']) samples.push([{ role, parts: [role === 'tool' ? { type: 'tool-result', callId: 'c1', content: bench, isError: true } : { type: 'text', text: bench }] }])
const tokenizer = { specificationVersion: 'v1', name: 'units', exact: false, count: (value) => value.length }
const hash = createHash('sha256')
let items = 0
for (const messages of samples) {
  const estimate = createFullEstimator({ tokenizer }).estimate(messages)
  items += estimate.items.length
  hash.update(JSON.stringify([estimate.irreducible, estimate.items.map((item) => [item.kind, item.message, item.start, item.end, item.text])]))
}
console.log(`${items} items, sha256 ${hash.digest('hex')}`)

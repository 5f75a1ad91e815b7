/**
 * A fingerprint of what the `full` estimator finds: its items on 3,000 generated transcripts and on three 1 MB parts
 * (as user text, assistant text and a failing tool result) built from the same pieces. A speed-up of `full` must leave
 * it unchanged; `full-fingerprint.test.ts` holds the value, and `scripts/full-fingerprint.mjs` prints it for any build.
 * Tokens are counted as UTF-16 units, so the fingerprint is the estimator's alone, not the tokenizer's.
 */
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { TokenizerV1 } from '../../spec/tokenizer.js'
import type { Message, Part } from '../../spec/transcript.js'

/** Pieces that make every kind, its near misses and its boundaries likely. */
const PIECES = [
  'the', 'worker', 'must', 'never', "don't", 'at most', 'only', ' ', ' ', ' ', '\n', '\r\n', '\t', '. ', ', ', ':', '"', "'", '`', '“', '”',
  '(', ')', '[', ']', '{', '}', 'OSError:', '[Errno 28]', 'No space left on device', 'Traceback (most recent call last):', 'FAILED',
  'error:', 'fatal:', 'command not found', 'E501', 'src/a.py:12:3', 'Exit code 1', '<tool_use_error>', '250', 'ms', '>=', '3', '1.5',
  '0x1f', '42%', 'timeout', '=', '30', 'retries', 'numpy==1.26.4', 'react@18.3.1', '^2.0', '/var/tmp/x.bin', 'https://api.example.com/v1/x?y=1',
  'CUDA_VISIBLE_DEVICES=1', 'MAX_STEPS', 'a3f9c2e1b7', '123e4567-e89b-12d3-a456-426614174000', 'fooBar', 'snake_case_name', 'main()',
  'os.path.join', 'é', '中文', '😀', '\u00a0', '\u212a', 'İ', 'killed', 'skilled', 'do not', 'NOTE', "it's", "'quoted'", '"a b"', '/^a+$/',
  'r"^x\\d+$"', '...', 'v1.2.3',
]

const unitTokenizer: TokenizerV1 = { specificationVersion: 'v1', name: 'units', exact: false, count: (text) => text.length }

/** Creates the estimator whose findings are fingerprinted (any build's `createFullEstimator`). */
export type FullEstimatorFactory = (options: { readonly tokenizer: TokenizerV1 }) => FloorEstimatorV1

/** The fingerprint of `createFullEstimator`'s findings: how many items, and a SHA-256 of all of them. */
export function fullFingerprint(createFullEstimator: FullEstimatorFactory): { items: number; sha256: string } {
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''))
  const part: fc.Arbitrary<Part> = fc.oneof(
    text.map((value): Part => ({ type: 'text', text: value })),
    fc.record({ content: text, isError: fc.boolean() }).map(({ content, isError }): Part => ({ type: 'tool-result', callId: 'c1', content, isError })),
  )
  const message: fc.Arbitrary<Message> = fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'system'), parts: fc.array(part, { minLength: 1, maxLength: 3 }) })
  const transcripts = fc.sample(fc.array(message, { minLength: 1, maxLength: 4 }), { seed: 20261202, numRuns: 3000 })
  // Long parts take the scanner's paths for large inputs (its tables grow, its caches evict).
  const long = fc.sample(text, { seed: 7, numRuns: 40_000 }).join('\n')
  transcripts.push([{ role: 'user', parts: [{ type: 'text', text: long }] }])
  transcripts.push([{ role: 'assistant', parts: [{ type: 'text', text: long }] }])
  transcripts.push([{ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: long, isError: true }] }])
  const hash = createHash('sha256')
  let items = 0
  for (const messages of transcripts) {
    const estimate = createFullEstimator({ tokenizer: unitTokenizer }).estimate(messages)
    items += estimate.items.length
    hash.update(JSON.stringify([estimate.irreducible, estimate.items.map((item) => [item.kind, item.message, item.start, item.end, item.text])]))
  }
  return { items, sha256: hash.digest('hex') }
}

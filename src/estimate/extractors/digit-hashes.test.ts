/**
 * Short commit hashes of digits only (`4219184`: about 4% of 7-unit abbreviations, (10/16)^7) are hashes where git
 * prints a commit, as a hash with a letter is anywhere; ordinary numbers (timestamps, counts, pids, line numbers, ids of
 * other kinds) stay no items.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const result = (content: string): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content, isError: false }] })
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const hashes = (message: Message) => full.extract(message, 0).filter((item) => item.kind === 'hash').map((item) => item.text)

/** What git prints around a commit, `%H` standing for its short hash (git's own placeholder). */
const GIT_OUTPUTS = [
  '[main %H] fix: retry on 503\n 1 file changed, 2 insertions(+)',
  '[main (root-commit) %H] initial commit',
  '[detached HEAD %H] try the other sampler',
  'commit %H\nAuthor: Ada <ada@example.com>\nDate:   Mon Mar 9 10:00:00 2026 +0000\n\n    fix typo',
  'HEAD is now at %H fix: retry on 503',
  'Previous HEAD position was %H fix: retry on 503\nSwitched to branch \'main\'',
  'Merge: %H a11bef0',
  'Merge: a11bef0 %H',
  '[main 5f3e2a1] Revert "fix"\n 1 file changed\n\nThis reverts commit %H.',
  '(cherry picked from commit %H)',
  'Stopped at %H...  fix: retry on 503',
  'pick %H fix: retry on 503\npick a11bef0 add retries',
  'Saved working directory and index state WIP on main: %H fix: retry on 503',
  '%H (HEAD -> main, origin/main) fix: retry on 503',
  '%H (tag: v1.2.0) release 1.2.0',
  '%H HEAD@{0}: commit: fix: retry on 503',
  // `git log --oneline`: the hash at the head of the line, with a neighbour listing one of the same length.
  '9fceb02 add retries\n%H fix: retry on 503\na11bef0 first commit',
  '%H fix: retry on 503\na11bef0 first commit',
  'a11bef0 first commit\n%H fix: retry on 503',
  '9fceb02 add retries\n%H fix: retry on 503\n7654321 bump version\n3c1e2d4 first commit',
  '* 9fceb02 add retries\n* %H fix: retry on 503\n|\\\n| * a11bef0 first commit',
  '\r\n9fceb02 add retries\r\n%H fix: retry on 503\r\n',
] as const

describe('short commit hashes of digits only', () => {
  for (const output of GIT_OUTPUTS) {
    it(`finds the digits where a hash with a letter is found: ${JSON.stringify(output.slice(0, 48))}`, () => {
      // The rule for letters, as the oracle: the hash of the same output with a lettered hash in its place.
      const lettered = hashes(result(output.replace('%H', 'e4f5a6b')))
      expect(lettered).toContain('e4f5a6b')
      const digits = hashes(result(output.replace('%H', '4219184')))
      expect(digits).toEqual(lettered.map((hash) => (hash === 'e4f5a6b' ? '4219184' : hash)))
      // Twelve digits (`core.abbrev` on a large repository), and in a user's pasted output alike.
      expect(hashes(result(output.replace('%H', '421918400123').replaceAll(/\b([0-9a-f]{7})\b/g, '$100000')))).toContain('421918400123')
      // In a user's text a number after a key (`Merge: 4219184`) may be kept whole as a setting: the hash is in it.
      expect(full.extract(user(output.replace('%H', '4219184')), 0).some((item) => item.text.includes('4219184'))).toBe(true)
    })
  }

  it('reads the rest of a listing by the neighbour rule (a second digits-only line after the first)', () => {
    expect(hashes(result('9fceb02 add retries\n4219184 fix: retry on 503\n7654321 bump version'))).toEqual(['9fceb02', '4219184', '7654321'])
  })

  /** Numbers that are not commits, in output agents read. */
  const ORDINARY = [
    'took 1234567 ms',
    '1700000000 2026-03-09T10:00:00Z started',
    '1234567 a.txt\n7654321 b.txt\n8888888 total',
    '  1234567 a.txt\n 12345678 total',
    '1234567\tsrc/\n7654321\tdata/',
    'root     1234567  0.0  0.1  12345  6789 ?  Ss   10:00   0:00 python train.py',
    'src/a.py:1234567: def f():',
    '{"id": 12345678, "count": 1234567}',
    'Downloaded 123456789 bytes in 12 s',
    'Merge branch 1234567',
    'commit 123456 (six digits)',
    'commit 1234567890123 (thirteen digits)',
    'step 1234567 loss 0.123',
    'at 1234567 we stopped',
    '1234567 fix: a listing of one line, no neighbour',
    '1234567 add retries\n9fceb02e first commit',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.bin\n12345678901234567890123456789012345678901234567890123456789012345  b.bin',
  ]
  for (const output of ORDINARY) {
    it(`keeps ordinary numbers out: ${JSON.stringify(output.slice(0, 48))}`, () => {
      expect(hashes(result(output)).filter((hash) => /^\d+$/.test(hash))).toEqual([])
    })
  }

  it('reads coloured git output (`git log --oneline --color`) as printed', () => {
    const coloured = '\x1b[33m9fceb02\x1b[m\x1b[33m (\x1b[m\x1b[1;36mHEAD -> \x1b[m\x1b[1;32mmain\x1b[m\x1b[33m)\x1b[m add retries\n\x1b[33m4219184\x1b[m fix: retry on 503\n\x1b[33mcommit 7654321\x1b[m'
    expect(hashes(result(coloured))).toEqual(['9fceb02', '4219184', '7654321'])
  })
})

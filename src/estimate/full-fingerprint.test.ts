import { expect, it } from 'vitest'
import { fullFingerprint } from './__fixtures__/full-fingerprint.js'
import { createFullEstimator } from './full.js'

// What `full` finds, pinned: the value was computed with the estimator as of commit df3101a, before its scanner was
// rewritten for speed (one automaton for hints and cues, quote pairing over quote offsets, the classification cache,
// words inside containers skipped), and the rewrite finds exactly the same items. A change that is meant to change what
// `full` finds updates it, after checking the difference; `node scripts/full-fingerprint.mjs DIST` prints it for a build.
it('full finds what it found before its speed-up, item for item', () => {
  expect(fullFingerprint(createFullEstimator)).toEqual({ items: 43474, sha256: 'd0714c46ba21f242b7038299b2e3962d2be7e4a676bc95fc8dc46cc6ca6e9a4c' })
})

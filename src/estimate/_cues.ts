/**
 * The constraint cues, defined once for every estimator: the record's six, which the `seed` estimator charges and the
 * `conservative` estimator triggers on, and `full`'s, which start with them.
 */

/** The record's constraint cues (the reference `seed_floor.py`'s list, in its order): whole words, any case. */
export const RECORD_CUES = ['must', 'never', 'always', 'exactly', 'only', 'do not'] as const

/**
 * `full`'s constraint cues = the record's, then the rest (whole words or phrases, any case; an apostrophe matches `'` or
 * the typographic `’`). A sentence holding one is a
 * constraint only when the cue is its clause's directive (see `isDirective` in extractors/lines.ts); descriptions
 * (`does not`, `requires`) are not cues at all. `should` alone is not one (on the corpus it opened as many narrative
 * sentences and questions as directives); `should` before a cue makes the cue a directive (`should only`).
 */
export const CUE_PHRASES = [
  ...RECORD_CUES, "don't", 'dont', 'at most', 'at least', 'no more than', 'no less than',
  'no fewer than', 'required', 'require', 'mandatory', 'ensure', 'make sure', 'should not', "shouldn't", "mustn't", 'cannot', "can't",
  'forbidden', 'prohibited', 'not allowed', 'under no circumstances', 'make it so',
] as const

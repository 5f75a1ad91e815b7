import { createEstimator } from '../estimate/index.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { createTokenizer } from '../tokenize/index.js'
import { parseIntegerFlag, parseRangeFlag, parseRatioFlag } from './_command.js'

/** The flags `check`, `plan` and `compact` share: input, segment, slot and how the floor is priced. */
export const ESTIMATION_FLAGS = {
  format: { type: 'string' },
  range: { type: 'string' },
  slot: { type: 'string' },
  margin: { type: 'string' },
  tokenizer: { type: 'string' },
  estimator: { type: 'string' },
  lenient: { type: 'boolean' },
  json: { type: 'boolean' },
} as const

/** What the shared flags resolve to. */
export interface Estimation {
  readonly slot: number
  readonly marginRatio: number
  readonly range: { start?: number; end?: number } | undefined
  readonly format: string
  readonly lenient: boolean
  readonly tokenizer: TokenizerV1
  readonly estimator: FloorEstimatorV1
}

/** Resolves the shared flags (defaults: slot 2000, margin 0.2, o200k_base, full, auto) or throws a UsageError (slot: 1 to 2^53 - 1). */
export async function resolveEstimation(values: Record<string, string | boolean | undefined>): Promise<Estimation> {
  const slot = parseIntegerFlag('slot', values.slot, 2000, { min: 1 })
  const marginRatio = parseRatioFlag('margin', values.margin, 0.2)
  const range = parseRangeFlag(values.range)
  const tokenizer = await createTokenizer((values.tokenizer as string | undefined) ?? 'o200k_base')
  const estimator = createEstimator({ name: (values.estimator as string | undefined) ?? 'full', tokenizer, marginRatio })
  return { slot, marginRatio, range, format: (values.format as string | undefined) ?? 'auto', lenient: values.lenient === true, tokenizer, estimator }
}

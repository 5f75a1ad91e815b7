import { FloorguardError } from '../errors.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import { createConservativeEstimator } from './conservative.js'
import { createFullEstimator } from './full.js'
import { createSeedEstimator } from './seed.js'

export type { FloorEstimate, FloorEstimatorV1, FloorItem, ItemKind } from '../spec/estimator.js'
export { createConservativeEstimator, type ConservativeEstimatorOptions } from './conservative.js'
export { createFullEstimator, type FullEstimatorOptions } from './full.js'
export { createSeedEstimator } from './seed.js'

/** Options of {@link createEstimator}. */
export interface EstimatorOptions {
  /**
   * Registry name.
   * @default 'full'
   */
  readonly name?: string
  /** Prices items (`full`) and trigger items (`conservative`); `seed` prices by the reference's chars/4. */
  readonly tokenizer: TokenizerV1
  /**
   * Coherence margin ratio (the record observed 0.15–0.25).
   * @default 0.2
   */
  readonly marginRatio?: number
  /**
   * Fixed floor of the `conservative` estimator.
   * @default 1200
   */
  readonly fixedFloor?: number
}

/** The built-in estimators by name. */
export const ESTIMATORS = {
  full: (options: EstimatorOptions) => createFullEstimator({ tokenizer: options.tokenizer, marginRatio: options.marginRatio ?? 0.2 }),
  seed: (options: EstimatorOptions) => createSeedEstimator({ marginRatio: options.marginRatio ?? 0.2 }),
  conservative: (options: EstimatorOptions) =>
    createConservativeEstimator({ tokenizer: options.tokenizer, ...(options.fixedFloor === undefined ? {} : { fixedFloor: options.fixedFloor }) }),
} as const

/** A built-in estimator name. */
export type EstimatorName = keyof typeof ESTIMATORS

/** Creates an estimator by registry name; an unknown name throws with the known list. */
export function createEstimator(options: EstimatorOptions): FloorEstimatorV1 {
  const name = options.name ?? 'full'
  const factory = (ESTIMATORS as Record<string, (options: EstimatorOptions) => FloorEstimatorV1>)[name]
  if (!factory) {
    throw new FloorguardError('unknown-name', `unknown estimator ${JSON.stringify(name)}: expected one of ${Object.keys(ESTIMATORS).join(', ')}`)
  }
  return factory(options)
}

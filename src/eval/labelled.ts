/**
 * `full`'s precision on the hand-labelled sample, through the gold extractor's `labelledPrecision` when it exists.
 */
import type { FloorEstimatorV1 } from '../spec/estimator.js'

/** The labelled-sample figures, or why there are none. */
export type LabelledSample =
  | { readonly available: true; readonly line: string; readonly result: unknown }
  | { readonly available: false; readonly reason: string }

/** labelledSample(estimator) = labelledPrecision's verdict on the estimator, or `available: false` with the reason. */
export async function labelledSample(_estimator: FloorEstimatorV1): Promise<LabelledSample> {
  // A variable specifier: the module is written in parallel and may not exist yet in this checkout.
  const specifier = './gold/labels.js'
  let module: Record<string, unknown>
  try {
    module = (await import(specifier)) as Record<string, unknown>
  } catch {
    return { available: false, reason: 'src/eval/gold/labels.ts is not there yet' }
  }
  if (typeof module.labelledPrecision !== 'function') return { available: false, reason: 'src/eval/gold/labels.ts exports no labelledPrecision yet' }
  return { available: false, reason: 'labelledPrecision exists but is not wired in yet' }
}

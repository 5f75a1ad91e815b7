/**
 * `full`'s (and gold's) precision on the hand-labelled sample (src/eval/gold/labels.jsonl, sample.json): the items
 * each extractor reports in the sampled messages, judged by the gold extractor's `labelledPrecision`.
 */
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { Transcript } from '../spec/transcript.js'
import { goldItems } from './gold/index.js'
import { labelledPrecision, loadLabels, loadSample, type LabelledItem, type PrecisionCounts, type Sample } from './gold/labels.js'

/** Counts against the labels (the shape of gold/labels.ts's PrecisionCounts). */
export interface LabelledCounts {
  readonly labelled: number
  readonly state: number
  readonly notState: number
  readonly unlabelled: number
  /** state / labelled; null when nothing is labelled (JSON has no NaN). */
  readonly precision: number | null
}

/** One extractor on the sample: overall and per kind, and the items outside the sampled messages. */
export interface LabelledResult extends LabelledCounts {
  readonly byKind: Record<string, LabelledCounts>
}

/** The labelled-sample figures, or why there are none. */
export type LabelledSample =
  | {
      readonly available: true
      /** Sampled transcripts found among the inputs, and those that were not (by file). */
      readonly transcripts: number
      readonly missing: readonly string[]
      readonly full: LabelledResult
      readonly gold: LabelledResult
    }
  | { readonly available: false; readonly reason: string }

/**
 * labelledSample(estimator, transcripts) = the precision of `full` and of gold on the sampled messages of the
 * transcripts given (keyed by the file name the labels use: corpus-relative or repo-relative), or why not.
 */
export function labelledSample(estimator: FloorEstimatorV1, transcripts: ReadonlyMap<string, Transcript>): LabelledSample {
  let sample: Sample
  try {
    sample = loadSample()
    if (loadLabels().length === 0) return { available: false, reason: 'src/eval/gold/labels.jsonl holds no labels yet' }
  } catch (error) {
    return { available: false, reason: `the labelled sample cannot be read: ${(error as Error).message}` }
  }
  const fullItems: LabelledItem[] = []
  const goldFound: LabelledItem[] = []
  const missing: string[] = []
  let present = 0
  for (const sampled of sample.transcripts) {
    const transcript = transcripts.get(sampled.file)
    if (!transcript) {
      missing.push(sampled.file)
      continue
    }
    present++
    for (const index of sampled.messages) {
      const message = transcript.messages[index]
      if (!message) continue
      for (const item of estimator.extract(message, index)) fullItems.push({ file: sampled.file, message: index, text: item.text, kind: item.kind })
      for (const item of goldItems([message], index)) goldFound.push({ file: sampled.file, message: index, text: item.text, kind: item.kind })
    }
  }
  if (present === 0) return { available: false, reason: `none of the ${sample.transcripts.length} sampled transcripts is among the inputs` }
  return { available: true, transcripts: present, missing, full: judged(fullItems), gold: judged(goldFound) }
}

function judged(items: readonly LabelledItem[]): LabelledResult {
  const result = labelledPrecision(items)
  const plain = (counts: PrecisionCounts): LabelledCounts => ({
    labelled: counts.labelled,
    state: counts.state,
    notState: counts.notState,
    unlabelled: counts.unlabelled,
    precision: Number.isFinite(counts.precision) ? counts.precision : null,
  })
  return { ...plain(result), byKind: Object.fromEntries(Object.entries(result.byKind).map(([kind, counts]) => [kind, plain(counts)])) }
}

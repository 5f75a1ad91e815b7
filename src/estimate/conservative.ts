import type { FloorEstimate, FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import { renderMessage } from '../transcript/render.js'
import { forEachLine, wordsOf } from './extractors/_scan.js'
import { quotedSpans } from './extractors/lines.js'
import { segmentItems } from './segment-items.js'
import { RECORD_CUES } from './_cues.js'

/** Options of {@link createConservativeEstimator}. */
export interface ConservativeEstimatorOptions {
  /** Prices the trigger items shown in reports (the floor itself is fixed). */
  readonly tokenizer: TokenizerV1
  /**
   * The fixed floor of a segment holding any trigger.
   * @default 1200
   */
  readonly fixedFloor?: number
}

/** The record's constraint cues, whole words, any case. */
const CUE = new RegExp(`\\b(?:${RECORD_CUES.join('|')})\\b`, 'i')
const NUMERIC = /^[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?[A-Za-z%]{0,3}$/

/**
 * Creates the `conservative` estimator, the record's fallback for systems that cannot afford an estimator: a segment
 * holding a quoted string, a numeric literal or a constraint keyword gets a fixed floor (default 1,200 tokens), any
 * other segment a floor of 0. Not additive: every part of a split that holds a trigger gets the whole fixed floor.
 */
export function createConservativeEstimator(options: ConservativeEstimatorOptions): FloorEstimatorV1 {
  const fixedFloor = options.fixedFloor ?? 1200
  const { tokenizer } = options

  function extract(message: Message, index: number): FloorItem[] {
    const { text } = renderMessage(message)
    const triggers: FloorItem[] = []
    const add = (kind: FloorItem['kind'], start: number, end: number) => {
      const itemText = text.slice(start, end)
      triggers.push({ kind, text: itemText, tokens: tokenizer.count(itemText), message: index, start, end })
    }
    forEachLine(text, (start, end) => {
      if (end <= start) return
      const quote = quotedSpans(text, start, end)[0]
      if (quote) add('quoted', quote.start, quote.end)
      const number = wordsOf(text, start, end).find((word) => NUMERIC.test(word.text))
      if (number) add('number', number.start, number.end)
      const cue = CUE.exec(text.slice(start, end))
      if (cue) add('constraint', start + cue.index, start + cue.index + cue[0].length)
    })
    return triggers
  }

  return {
    specificationVersion: 'v1',
    name: 'conservative',
    tokenizer: tokenizer.name,
    marginRatio: 0,
    extract,
    estimate(messages, offset = 0): FloorEstimate {
      const items = segmentItems(messages, offset, extract)
      const irreducible = items.length > 0 ? fixedFloor : 0
      return { estimator: 'conservative', tokenizer: tokenizer.name, irreducible, margin: 0, total: irreducible, items }
    },
  }
}

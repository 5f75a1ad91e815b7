/**
 * The eval's arms: what each compaction strategy leaves in place of a segment.
 *
 * B0 drops it; B1 masks its tool outputs; B2 is the record's failure (a fixed slot filled with the longest narrative
 * sentences, no state check); B3 is floorguard (plan, ledger, verify); `vendor` is the real compactor's own summary.
 */
import { compactTranscript } from '../compact/index.js'
import type { FloorEstimatorV1 } from '../spec/estimator.js'
import type { SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { renderPlain } from './metrics.js'

/** The arms, in table order. */
export const ARMS = ['B0', 'B1', 'B2', 'B3', 'vendor'] as const
/** An arm's name. */
export type ArmName = (typeof ARMS)[number]

/** What an arm leaves in place of a segment. */
export interface ArmSummary {
  readonly text: string
  /** Tokens of `text` (B3: the sum of its verified summaries; refused: the segment's tokens). */
  readonly tokens: number
  /** `refused`: B3 kept the segment raw; `split`: B3 wrote several summaries. */
  readonly outcome: 'summary' | 'compacted' | 'split' | 'refused'
  /** Summaries written (B3 split: more than one). */
  readonly parts: number
  /** B3 refusals: the refusal's code. */
  readonly refusal?: string
  /** B3: the floor of the segment as the planner computed it (irreducible + margin). */
  readonly floor?: number
}

/** The placeholder B1 puts where a tool output was. */
export const MASK = '[tool output omitted]'

/** dropArm() = the empty summary (B0). */
export function dropArm(): ArmSummary {
  return { text: '', tokens: 0, outcome: 'summary', parts: 1 }
}

/** maskArm(segment) = the segment with every tool result's content replaced by {@link MASK} (B1, observation masking). */
export function maskArm(segment: readonly Message[], tokenizer: TokenizerV1): ArmSummary {
  const text = renderPlain(segment, { maskToolOutput: MASK })
  return { text, tokens: tokenizer.count(text), outcome: 'summary', parts: 1 }
}

/** A sentence of user or assistant text B2 may take. */
interface Sentence {
  readonly text: string
  readonly order: number
  readonly narrative: boolean
  readonly tokens: number
}

/**
 * naiveArm(segment, slot) = the record's naive summarizer (B2): the user and assistant sentences of the segment,
 * narrative ones first (at least 6 words, 90% letters, spaces and ordinary punctuation), longest first, taken while
 * they fit the slot, printed in their original order. No state check: state survives only by being in a long
 * sentence.
 */
export function naiveArm(segment: readonly Message[], tokenizer: TokenizerV1, slot: number): ArmSummary {
  const sentences: Sentence[] = []
  const seen = new Set<string>()
  for (const message of segment) {
    if (message.role !== 'user' && message.role !== 'assistant') continue
    for (const part of message.parts) {
      if (part.type !== 'text') continue
      for (const text of splitIntoSentences(part.text)) {
        if (text.length < 20 || seen.has(text)) continue
        seen.add(text)
        sentences.push({ text, order: sentences.length, narrative: isNarrative(text), tokens: tokenizer.count(text) })
      }
    }
  }
  const ranked = sentences.slice().sort((a, b) => Number(b.narrative) - Number(a.narrative) || b.text.length - a.text.length || a.order - b.order)
  const chosen: Sentence[] = []
  let used = 0
  for (const sentence of ranked) {
    // +1 for the line break that joins it to the others.
    if (used + sentence.tokens + 1 > slot) continue
    chosen.push(sentence)
    used += sentence.tokens + 1
  }
  const assemble = (count: number): string =>
    chosen.slice(0, count).sort((a, b) => a.order - b.order).map((sentence) => sentence.text).join('\n')
  // Token counts do not add exactly across joins: drop the lowest-ranked sentences until the whole fits.
  let count = chosen.length
  let text = assemble(count)
  while (count > 0 && tokenizer.count(text) > slot) text = assemble(--count)
  return { text, tokens: tokenizer.count(text), outcome: 'summary', parts: 1 }
}

/** Splits at line breaks and after `.`, `!` or `?` followed by whitespace. */
export function splitIntoSentences(text: string): string[] {
  const out: string[] = []
  let start = 0
  const push = (end: number): void => {
    const piece = text.slice(start, end).trim()
    if (piece.length > 0) out.push(piece)
  }
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (char === '\n') {
      push(index)
      start = index + 1
    } else if ((char === '.' || char === '!' || char === '?') && (text[index + 1] === ' ' || text[index + 1] === '\n')) {
      push(index + 1)
      start = index + 1
    }
  }
  push(text.length)
  return out
}

/** isNarrative(sentence) = at least 6 words and at least 90% of its characters are letters, spaces or , . ; : ' - ! ? */
export function isNarrative(sentence: string): boolean {
  let plain = 0
  for (const char of sentence) if (/[\p{L} ,.;:'!?-]/u.test(char)) plain++
  return sentence.split(/\s+/).length >= 6 && plain >= 0.9 * [...sentence].length
}

/** Options of {@link floorguardArm}. */
export interface FloorguardArmOptions {
  readonly estimator: FloorEstimatorV1
  readonly tokenizer: TokenizerV1
  readonly slot: number
  /** Most tokens all summaries of a split may take; undefined = the planner's default (the segment's tokens - 1). */
  readonly budget?: number
  /** Tokens of the segment (what a refusal keeps). */
  readonly segmentTokens: number
  /** @default the ledger */
  readonly summarizer?: SummarizerV1
}

/**
 * floorguardArm(transcript, [start, end)) = `compactTranscript` on the range (B3): its verified summaries joined, or,
 * when it refuses, the raw segment (the segment stays in context: everything survives, nothing is freed).
 */
export async function floorguardArm(transcript: Transcript, start: number, end: number, options: FloorguardArmOptions): Promise<ArmSummary> {
  const result = await compactTranscript(transcript, {
    estimator: options.estimator,
    tokenizer: options.tokenizer,
    slot: options.slot,
    range: { start, end },
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    backoffMs: 0,
    sleep: async () => {},
  })
  if (result.kind === 'refused') {
    return {
      text: renderPlain(transcript.messages.slice(start, end)),
      tokens: options.segmentTokens,
      outcome: 'refused',
      parts: 0,
      refusal: result.refusal?.code ?? 'unknown',
      floor: result.floor.total,
    }
  }
  let tokens = 0
  for (const summary of result.summaries) tokens += summary.tokens
  return { text: result.summaries.map((summary) => summary.text).join('\n\n'), tokens, outcome: result.kind, parts: result.summaries.length, floor: result.floor.total }
}

/** vendorArm(text) = the real compactor's own summary. */
export function vendorArm(text: string, tokenizer: TokenizerV1): ArmSummary {
  return { text, tokens: tokenizer.count(text), outcome: 'summary', parts: 1 }
}

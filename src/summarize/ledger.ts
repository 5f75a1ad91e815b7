import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Part } from '../spec/transcript.js'
import { messageTokens } from '../transcript/render.js'
import { gistLine, gistSpeakerOf, parseStateBlock, renderStateBlock, STATE_DETAILS } from '../state-block/index.js'
import { flattenMustKeepGroups } from '../spec/summarizer.js'
import { harnessRuns, hasOwnText } from './_harness-text.js'

/** Options of {@link createLedgerSummarizer}. */
export interface LedgerSummarizerOptions {
  /**
   * Fill the slot left after the state block with extractive sentences from the segment.
   * @default true
   */
  readonly gist?: boolean
  /**
   * Sentences longer than this many UTF-16 units are not candidates for the gist (they rarely fit and read badly).
   * @default 600
   */
  readonly maxSentenceLength?: number
}

/** A sentence of the segment that may go into the gist. */
interface Candidate {
  readonly line: string
  readonly score: number
  /**
   * 2 for the sentences of the segment's last user message (what the user asked last, maybe still pending), 1 for
   * those of other user messages, 0 for the rest: every user sentence is chosen (cut if need be) before any other.
   */
  readonly tier: number
  /** Position in the segment, to print chosen sentences in their original order. */
  readonly order: number
  readonly tokens: number
  /** A line of an earlier summary's gist, quoted again: ranked below the segment's own lines of its score. */
  readonly old: boolean
}

// Words that mark a decision or an outcome: the sentences a later turn most needs to know happened.
const DECISION_CUE = /\b(?:decid|chose|choos|pin|revert|switch|instead|fix|resolv|done|works|worked|fail|broke|because|so we|will )/i

/**
 * Creates the ledger summarizer: summary = state block (every item verbatim, one line each with who said or produced
 * it, in the order a model needs them) + extractive gist ≤ slot.
 *
 * Offline and deterministic. When the block with full context exceeds the slot it drops context (`short`, then
 * `grouped`, terse lines under a heading per message, then the `minimal` layout that packs short items, then `flat`
 * under one heading); when even that exceeds the slot it fails (never truncates), so the
 * orchestrator refuses instead of emitting a summary without state.
 */
export function createLedgerSummarizer(options: LedgerSummarizerOptions = {}): SummarizerV1 {
  const gist = options.gist ?? true
  const maxSentenceLength = options.maxSentenceLength ?? 600
  return {
    specificationVersion: 'v1',
    name: 'ledger',
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      return ledgerSummary(request, gist, maxSentenceLength)
    },
  }
}


function ledgerSummary(request: SummarizeRequest, gist: boolean, maxSentenceLength: number): SummarizeResult {
  const { tokenizer, slot } = request
  const items = flattenMustKeepGroups(request.groups)
  let replacedTokens = 0
  for (const message of request.messages) replacedTokens += messageTokens(message, tokenizer)
  const replaced = { start: request.offset, end: request.offset + request.messages.length, tokens: replacedTokens }
  let block = ''
  let blockTokens = Infinity
  // Context (who said it, which command produced it) helps a model use the state; it is dropped before any item is.
  // The first layout whose block fits the slot is used.
  for (const detail of STATE_DETAILS) {
    block = renderStateBlock({ items, messages: request.messages, offset: request.offset, detail, replaced })
    blockTokens = tokenizer.count(block)
    if (blockTokens <= slot) break
  }
  if (blockTokens > slot) {
    // The last resort: the flat block with a bare opening line (without `range` and `tokens`, a few tokens less).
    block = renderStateBlock({ items, detail: 'flat' })
    blockTokens = tokenizer.count(block)
  }
  if (blockTokens > slot) {
    return {
      kind: 'failure',
      reason: `the state block needs ${blockTokens} tokens (${tokenizer.name}), the slot is ${slot}: split the segment or raise the slot`,
      retryable: false,
    }
  }
  if (!gist) return { kind: 'summary', text: block }
  const separator = '\n\n'
  // The gist fills the slot, but never past what the summary replaces: a summary must cost less than its segment.
  const limit = Math.max(blockTokens, Math.min(slot, replacedTokens - 1))
  const room = limit - blockTokens - tokenizer.count(separator)
  const chosen = chooseGist(request.messages, tokenizer, room, maxSentenceLength)
  return { kind: 'summary', text: fitGist(block, separator, chosen, tokenizer, limit) }
}

/** Picks candidates by score within `room` tokens (summed per line; the exact total is checked by {@link fitGist}). */
function chooseGist(messages: readonly Message[], tokenizer: TokenizerV1, room: number, maxSentenceLength: number): Candidate[] {
  if (room <= 1) return []
  const candidates = collectCandidates(messages, tokenizer, maxSentenceLength)
  candidates.sort(byRank)
  const chosen: Candidate[] = []
  let used = 0
  for (const candidate of candidates) {
    if (room - used < 2) break
    // +1 for the line break that joins it to the previous line.
    let fitting = candidate
    if (used + candidate.tokens + 1 > room) {
      // A user turn that does not fit is cut to the room left (and marked cut) rather than dropped without a trace.
      if (candidate.tier === 0) continue
      const line = clipSentence(candidate.line, Math.floor((room - used - 1) * 2.5))
      const tokens = tokenizer.count(line)
      if (line.length <= CLIP_MARK.length + candidate.line.indexOf(': ') + 2 || used + tokens + 1 > room) continue
      fitting = { ...candidate, line, tokens }
    }
    chosen.push(fitting)
    used += fitting.tokens + 1
  }
  return chosen
}

/**
 * Rank: tier, then score, then the segment's own lines before an earlier gist's; the segment's own in their order, an
 * earlier gist's newest first (when a gist must shrink, the oldest of what it re-quotes goes first).
 */
function byRank(a: Candidate, b: Candidate): number {
  return b.tier - a.tier || b.score - a.score || Number(a.old) - Number(b.old) || (a.old ? b.order - a.order : a.order - b.order)
}

/**
 * Joins block and gist; when BPE merges across line breaks make the exact count exceed the slot, keeps the longest
 * priority prefix of the chosen lines that fits (binary search, so at most log2(n) recounts).
 */
function fitGist(block: string, separator: string, chosen: readonly Candidate[], tokenizer: TokenizerV1, slot: number): string {
  const assemble = (count: number): string => {
    if (count === 0) return block
    const lines = chosen.slice(0, count).sort((a, b) => a.order - b.order).map((candidate) => candidate.line)
    return `${block}${separator}${lines.join('\n')}`
  }
  const full = assemble(chosen.length)
  if (tokenizer.count(full) <= slot) return full
  let low = 0
  let high = chosen.length - 1
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (tokenizer.count(assemble(middle)) <= slot) low = middle
    else high = middle - 1
  }
  return assemble(low)
}

function collectCandidates(messages: readonly Message[], tokenizer: TokenizerV1, maxSentenceLength: number): Candidate[] {
  const candidates: Candidate[] = []
  // Sentence → its candidate's index: a sentence said twice is one line, under its higher-ranked occurrence.
  const seen = new Map<string, number>()
  const lastAssistant = findLastIndex(messages, (message) => message.role === 'assistant')
  const lastUser = findLastIndex(messages, (message) => message.role === 'user' && message.parts.some((part) => part.type === 'text' && hasOwnText(part.text)))
  let order = 0
  messages.forEach((message, messageIndex) => {
    for (const { part, text, harness, quoted } of scoredTexts(message)) {
      // What a harness wrote into the user's turn (`<system-reminder>`, `<ide_opened_file>`) scores as system text.
      // An earlier gist's line scores as what it quotes, one less: old narrative, below the segment's own of its kind.
      const base = quoted ? SPEAKER_SCORE[quoted] - 1 : harness ? 1 : partScore(message, part)
      if (base === undefined) continue
      const speaker = quoted ?? (part.type === 'tool-result' ? 'tool' : harness ? 'system' : message.role)
      const outcome = messageIndex === lastAssistant ? 2 : 0
      for (const whole of splitSentences(text)) {
        if (whole.length < 3) continue
        // A long sentence of the user's is kept cut, and says so: dropping it would lose a turn without a trace.
        if (whole.length > maxSentenceLength && base < USER_SCORE) continue
        const sentence = whole.length > maxSentenceLength ? clipSentence(whole, maxSentenceLength) : whole
        const line = gistLine(speaker, sentence)
        const score = base + outcome + (DECISION_CUE.test(sentence) ? 2 : 0)
        const tier = quoted || base !== USER_SCORE || part.type !== 'text' ? 0 : messageIndex === lastUser ? 2 : 1
        const candidate = { line, score, tier, order: order++, tokens: tokenizer.count(line), old: quoted !== undefined }
        const earlier = seen.get(whole)
        if (earlier === undefined) {
          seen.set(whole, candidates.length)
          candidates.push(candidate)
        } else if (byRank(candidate, candidates[earlier]!) < 0) candidates[earlier] = candidate
      }
    }
  })
  return candidates
}

/** Score of a user's text: the highest, as users state the goals and constraints. */
const USER_SCORE = 4
/** The score of each gist speaker's own text (see {@link partScore}), for an earlier gist's line quoting it. */
const SPEAKER_SCORE = { user: USER_SCORE, assistant: 2, system: 1, tool: 0 } as const
/** Marks where a clipped gist line was cut. */
const CLIP_MARK = ' […]'

/** The longest prefix of `sentence` ending at a word boundary within `length` units, then {@link CLIP_MARK}. */
function clipSentence(sentence: string, length: number): string {
  const room = Math.max(1, length - CLIP_MARK.length)
  const space = sentence.lastIndexOf(' ', room)
  return `${sentence.slice(0, space > room / 2 ? space : room)}${CLIP_MARK}`
}

// Users state goals and constraints; tool output is the least narrative. Reasoning and tool calls are skipped: their
// state is already in the block and their prose is not an account of what happened.
function partScore(message: Message, part: Part): number | undefined {
  switch (part.type) {
    case 'text':
      return message.role === 'user' ? USER_SCORE : message.role === 'system' ? 1 : 2
    case 'summary':
      return 3
    case 'tool-result':
      return 0
    case 'reasoning':
    case 'tool-call':
      return undefined
  }
}

/**
 * A message's parts with their gist text; a user's text cut into the user's own runs and the harness's; an earlier
 * summary's gist cut into its lines, each under the speaker it quotes (`quoted`), so that it is written under that
 * one speaker again, not under the summary message's role in front of it (`user: user: …`).
 */
function* scoredTexts(message: Message): Generator<{ part: Part; text: string; harness: boolean; quoted?: keyof typeof SPEAKER_SCORE }> {
  for (const part of message.parts) {
    const text = partText(part)
    if (part.type === 'summary') yield* summaryLines(part, text)
    else if (message.role !== 'user' || part.type !== 'text' || !text.includes('<')) yield { part, text, harness: false }
    else for (const run of harnessRuns(text)) yield { part, text: run.text, harness: run.harness }
  }
}

/** A summary's text by line: a gist line (`tool: 4 files changed`) under its speaker, a run of other lines as one text. */
function* summaryLines(part: Part, text: string): Generator<{ part: Part; text: string; harness: boolean; quoted?: keyof typeof SPEAKER_SCORE }> {
  let rest: string[] = []
  for (const line of text.split('\n')) {
    const quoted = gistSpeakerOf(line)
    if (!quoted) {
      rest.push(line)
      continue
    }
    if (rest.length > 0) yield { part, text: rest.join('\n'), harness: false }
    rest = []
    yield { part, text: line.slice(quoted.start), harness: false, quoted: quoted.speaker }
  }
  if (rest.length > 0) yield { part, text: rest.join('\n'), harness: false }
}

function partText(part: Part): string {
  if (part.type === 'tool-result') return part.content
  if (part.type === 'tool-call') return ''
  // An earlier summary's state block goes into the new block with the statuses of now; quoting its lines in the gist
  // would repeat the statuses of then (a value it called current may be stale since).
  const block = part.text.includes('<floorguard-state v=') ? parseStateBlock(part.text) : undefined
  return block ? `${part.text.slice(0, block.start)}\n${part.text.slice(block.end)}` : part.text
}

/** Splits at line breaks and at `.`, `!`, `?` followed by whitespace; one linear pass. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = []
  let start = 0
  const push = (end: number): void => {
    const sentence = text.slice(start, end).trim()
    if (sentence.length > 0) sentences.push(sentence)
  }
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (char === '\n' || char === '\r') {
      push(index)
      start = index + 1
    } else if ((char === '.' || char === '!' || char === '?') && index + 1 < text.length && /\s/.test(text[index + 1]!)) {
      push(index + 1)
      start = index + 1
    }
  }
  push(text.length)
  return sentences
}

function findLastIndex<T>(values: readonly T[], predicate: (value: T) => boolean): number {
  for (let index = values.length - 1; index >= 0; index--) if (predicate(values[index]!)) return index
  return -1
}

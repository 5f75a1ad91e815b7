/**
 * The record's naive summarizer: a fixed slot filled under length pressure that favours narrative over state.
 *
 * It writes one line per user or assistant message from that message's prose, and drops detail until the summary
 * fits: first the tool calls and every tool output, then all but the first few sentences of each message, down to the
 * first sentence, then the assistant's lines, then the oldest lines. It never looks at the must-keep items it is
 * given, so state survives only when it happens to sit in a first sentence. Deterministic; no model.
 */
import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'
import type { Message } from '../spec/transcript.js'
import { splitSentences } from '../summarize/ledger.js'

/** The first line of every naive summary. */
export const NAIVE_HEADING = 'Summary of the earlier conversation:'

/** One message's contribution: who spoke and its prose as sentences, with the tools it called. */
interface Entry {
  readonly speaker: 'User' | 'Assistant' | 'Earlier summary'
  readonly sentences: readonly string[]
  readonly tools: readonly string[]
}

/** createNaiveSummarizer() = the demo's naive arm summarizer (see the module comment). */
export function createNaiveSummarizer(): SummarizerV1 {
  return {
    specificationVersion: 'v1',
    name: 'naive',
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      return { kind: 'summary', text: naiveSummary(request.messages, (text) => request.tokenizer.count(text), request.slot) }
    },
  }
}

/**
 * naiveSummary(messages, count, slot) = the first of these that counts ≤ slot: every sentence and tool name of every
 * message; at most 3, 2, then 1 sentences per message without tools; then the first sentences with assistant lines
 * dropped oldest first, then user lines oldest first. The heading alone when nothing fits.
 */
export function naiveSummary(messages: readonly Message[], count: (text: string) => number, slot: number): string {
  const entries = messages.map(entryOf).filter((entry) => entry.sentences.length > 0 || entry.tools.length > 0)
  const attempts: (() => string[])[] = [
    () => entries.map((entry) => line(entry, entry.sentences.length, true)),
    ...[3, 2, 1].map((limit) => () => entries.map((entry) => line(entry, limit, false))),
  ]
  for (const attempt of attempts) {
    const text = render(attempt())
    if (count(text) <= slot) return text
  }
  // Length pressure wins: the newest first sentences stay, what the user said longest.
  const lines = entries.map((entry) => ({ speaker: entry.speaker, text: line(entry, 1, false), tokens: count(line(entry, 1, false)) + 1 }))
  let total = count(NAIVE_HEADING) + lines.reduce((sum, entry) => sum + entry.tokens, 0)
  for (const speaker of ['Assistant', 'Earlier summary', 'User'] as const) {
    for (const entry of lines) {
      if (total <= slot) break
      if (entry.speaker !== speaker || entry.text === '') continue
      total -= entry.tokens
      entry.text = ''
    }
  }
  // The running total is an estimate (tokens merge across line breaks): trim until the real count fits.
  let text = render(lines.map((entry) => entry.text))
  for (let index = 0; count(text) > slot && index < lines.length; index++) {
    lines[index]!.text = ''
    text = render(lines.map((entry) => entry.text))
  }
  return count(text) <= slot ? text : NAIVE_HEADING
}

function render(lines: readonly string[]): string {
  return [NAIVE_HEADING, ...lines.filter((entry) => entry.length > 0)].join('\n')
}

function line(entry: Entry, limit: number, withTools: boolean): string {
  const words = entry.sentences.slice(0, limit).join(' ')
  const tools = withTools && entry.tools.length > 0 ? ` (ran ${entry.tools.join(', ')})` : ''
  if (words.length === 0 && tools.length === 0) return ''
  return `- ${entry.speaker}: ${words}${tools}`.trimEnd()
}

function entryOf(message: Message): Entry {
  const sentences: string[] = []
  const tools: string[] = []
  let speaker: Entry['speaker'] = message.role === 'user' ? 'User' : 'Assistant'
  if (message.role === 'user' || message.role === 'assistant') {
    for (const part of message.parts) {
      if (part.type === 'text') sentences.push(...splitSentences(part.text))
      else if (part.type === 'summary') {
        speaker = 'Earlier summary'
        // An earlier summary is prose like any other: its heading and bullets are sentences of their own.
        for (const row of part.text.split('\n')) if (row !== NAIVE_HEADING) sentences.push(...splitSentences(row.replace(/^- /, '')))
      } else if (part.type === 'tool-call') tools.push(part.name)
    }
  }
  return { speaker, sentences, tools }
}


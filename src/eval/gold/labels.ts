/**
 * The hand-labelled sample: which items of a few sampled messages are state, read from `labels.jsonl` and
 * `sample.json` (this folder), and the precision of any extractor's items on it.
 *
 * `labels.jsonl` holds one JSON object per line:
 * `{ "file", "message", "sha1", "length", "kind", "by", "label", "reason" }` and, for the repo's own fixtures only,
 * `"text"`. `file` is relative to `shared/corpus/real/` for the real transcripts (whose text is never copied here:
 * sha1 is the hex SHA-1 of the item's UTF-8 text, length its length in UTF-16 units) or relative to the repo root for
 * fixtures (`src/…`, `examples/…`). `message` is the transcript index; `kind` the kind the first reporter gave;
 * `by` which extractors reported it when it was labelled (`gold`, `full`); `label` is `state` or `not-state`.
 * `sample.json` lists the sampled messages of each transcript (and how they were drawn).
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** A label's verdict. */
export type Verdict = 'state' | 'not-state'

/** One hand label. */
export interface Label {
  readonly file: string
  readonly message: number
  readonly sha1: string
  readonly length: number
  readonly kind: string
  readonly by: readonly string[]
  readonly label: Verdict
  readonly reason: string
  /** The item's text, for the repo's own fixtures only. */
  readonly text?: string
}

/** One sampled transcript: its file, format and the transcript indices of its sampled messages. */
export interface SampledTranscript {
  readonly file: string
  readonly corpus: boolean
  readonly format: string
  readonly messages: readonly number[]
}

/** The sample: how it was drawn and what it holds. */
export interface Sample {
  readonly seed: number
  readonly description: string
  readonly transcripts: readonly SampledTranscript[]
}

/** An item to judge against the labels: the transcript file (as in the labels), message index, text and, optionally, kind. */
export interface LabelledItem {
  readonly file: string
  readonly message: number
  readonly text: string
  readonly kind?: string
}

/** Counts of items against the labels. `precision` = state / labelled (NaN when nothing is labelled). */
export interface PrecisionCounts {
  readonly labelled: number
  readonly state: number
  readonly notState: number
  readonly unlabelled: number
  readonly precision: number
}

/** labelledPrecision's result: the counts over sampled messages, per kind of the items given, and items outside the sample. */
export interface LabelledPrecision extends PrecisionCounts {
  readonly byKind: Readonly<Record<string, PrecisionCounts>>
  /** Items whose message is not a sampled message (not judged). */
  readonly outside: number
}

/** sha1Hex(text) = the hex SHA-1 of the UTF-8 bytes of text. */
export const sha1Hex = (text: string): string => createHash('sha1').update(text, 'utf8').digest('hex')

/** Whether a label's or sample's file is one of the repo's own fixtures (its text may be stored) rather than a corpus file. */
export const isRepoFile = (file: string): boolean => file.startsWith('src/') || file.startsWith('examples/')

const here = (name: string): string => {
  // From src/eval/gold (vitest) the file is beside this module; from dist/eval/gold it is in the source tree.
  for (const candidate of [new URL(`./${name}`, import.meta.url), new URL(`../../../src/eval/gold/${name}`, import.meta.url)]) {
    const path = fileURLToPath(candidate)
    if (existsSync(path)) return path
  }
  throw new Error(`src/eval/gold/${name} not found next to ${fileURLToPath(import.meta.url)}`)
}

/** The path of labels.jsonl (for the label tool, which appends to it). */
export const labelsPath = (): string => here('labels.jsonl')
/** The path of sample.json. */
export const samplePath = (): string => here('sample.json')

/** Parses labels.jsonl; a bad line throws naming its line number and what was expected. */
export function parseLabels(text: string): Label[] {
  const labels: Label[] = []
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      throw new Error(`labels.jsonl:${index + 1}: expected one JSON object per line`)
    }
    const label = value as Partial<Label>
    const problem =
      typeof label.file !== 'string' ? 'file (string)'
      : typeof label.message !== 'number' ? 'message (number)'
      : typeof label.sha1 !== 'string' || !/^[0-9a-f]{40}$/.test(label.sha1) ? 'sha1 (40 hex digits)'
      : typeof label.length !== 'number' ? 'length (number)'
      : typeof label.kind !== 'string' ? 'kind (string)'
      : label.label !== 'state' && label.label !== 'not-state' ? 'label ("state" or "not-state")'
      : typeof label.reason !== 'string' || label.reason.trim() === '' ? 'reason (non-empty string)'
      : label.text !== undefined && (!isRepoFile(label.file) || sha1Hex(label.text) !== label.sha1) ? 'text only on repo fixtures, matching sha1'
      : undefined
    if (problem !== undefined) throw new Error(`labels.jsonl:${index + 1}: expected ${problem}`)
    labels.push({ ...(label as Label), by: Array.isArray(label.by) ? label.by : [] })
  })
  return labels
}

let cachedLabels: readonly Label[] | undefined
let cachedSample: Sample | undefined

/** The committed labels (read once). */
export function loadLabels(): readonly Label[] {
  cachedLabels ??= parseLabels(readFileSync(labelsPath(), 'utf8'))
  return cachedLabels
}

/** The committed sample (read once). */
export function loadSample(): Sample {
  cachedSample ??= JSON.parse(readFileSync(samplePath(), 'utf8')) as Sample
  return cachedSample
}

/** A lookup of labels by (file, message, sha1), falling back to (file, sha1) when a reader change moved the message. */
export interface LabelIndex {
  find(file: string, message: number, text: string): Label | undefined
}

/** Indexes labels for {@link LabelIndex.find}. The fallback only answers when every label of that text in that file agrees. */
export function indexLabels(labels: readonly Label[]): LabelIndex {
  const exact = new Map<string, Label>()
  const byText = new Map<string, Label[]>()
  for (const label of labels) {
    exact.set(`${label.file}\u0000${label.message}\u0000${label.sha1}`, label)
    const key = `${label.file}\u0000${label.sha1}`
    byText.set(key, [...(byText.get(key) ?? []), label])
  }
  return {
    find(file, message, text) {
      const sha1 = sha1Hex(text)
      const found = exact.get(`${file}\u0000${message}\u0000${sha1}`)
      if (found) return found
      const candidates = byText.get(`${file}\u0000${sha1}`) ?? []
      const first = candidates[0]
      return first !== undefined && candidates.every((candidate) => candidate.label === first.label) ? first : undefined
    },
  }
}

const counts = (state: number, notState: number, unlabelled: number): PrecisionCounts => ({
  labelled: state + notState,
  state,
  notState,
  unlabelled,
  precision: state + notState === 0 ? Number.NaN : state / (state + notState),
})

/**
 * labelledPrecision(items) = how many of the items in sampled messages are labelled state / not-state / not labelled,
 * overall and per item kind. Items of messages outside the sample are counted in `outside` only.
 */
export function labelledPrecision(
  items: readonly LabelledItem[],
  options: { readonly labels?: readonly Label[]; readonly sample?: Sample } = {},
): LabelledPrecision {
  const index = indexLabels(options.labels ?? loadLabels())
  const sample = options.sample ?? loadSample()
  const sampled = new Set(sample.transcripts.flatMap((transcript) => transcript.messages.map((message) => `${transcript.file}\u0000${message}`)))
  const tally = new Map<string, [number, number, number]>()
  let outside = 0
  const bump = (kind: string, slot: 0 | 1 | 2) => {
    const row = tally.get(kind) ?? [0, 0, 0]
    row[slot]++
    tally.set(kind, row)
  }
  for (const item of items) {
    if (!sampled.has(`${item.file}\u0000${item.message}`)) {
      outside++
      continue
    }
    const label = index.find(item.file, item.message, item.text)
    const slot = label === undefined ? 2 : label.label === 'state' ? 0 : 1
    bump('*', slot)
    bump(item.kind ?? '?', slot)
  }
  const all = tally.get('*') ?? [0, 0, 0]
  const byKind: Record<string, PrecisionCounts> = {}
  for (const [kind, row] of [...tally].sort(([a], [b]) => a.localeCompare(b))) if (kind !== '*') byKind[kind] = counts(...row)
  return { ...counts(...all), byKind, outside }
}

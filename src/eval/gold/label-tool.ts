/**
 * The labeller's command line (run from dist: `node dist/eval/gold/label-tool.js <command>`). The only module of
 * src/eval/gold that imports the estimator: it lists `full`'s items beside gold's so both can be labelled.
 *
 *   sample [--write]          draw the sampled messages (seeded) and print their item counts; --write saves sample.json
 *   unlabelled [--json]       items of gold and full in sampled messages that have no label yet (with context)
 *   show FILE MESSAGE         a sampled message's parts, and every item gold and full report in it
 *   add DECISIONS.jsonl       append labels: one {"key", "label", "reason"} per line, key as printed by `unlabelled`
 *   stats [--not-state X]     precision of gold and of full on the sample, overall and per kind; X's items labelled not-state
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { createEstimator } from '../../estimate/index.js'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message, Transcript } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { goldItems } from './index.js'
import { indexLabels, isRepoFile, labelledPrecision, labelsPath, loadLabels, loadSample, samplePath, sha1Hex, type Label, type Sample, type SampledTranscript } from './labels.js'
import { readSampleTranscript } from './_sampled.js'

/** Transcripts the sample draws from, and how many messages of each. */
const SOURCES: ReadonlyArray<{ file: string; messages: number }> = [
  { file: 'aider/mozgoslav.aider.chat.history.md', messages: 8 },
  { file: 'claude-code-engram-sjonas50/diffusion-session1-3f0a6f23.transcript.jsonl', messages: 10 },
  { file: 'claude-code-engram-sjonas50/diffusion-session2-e7151f41.transcript.jsonl', messages: 10 },
  { file: 'claude-managed-agents-open-hai/point-of-no-undo.transcript.jsonl', messages: 8 },
  { file: 'gemini-cli/figma-eval-010ac575-gemini-3-pro.transcript.jsonl', messages: 8 },
  { file: 'swe-agent/ctf-crypto-katy.traj', messages: 5 },
  { file: 'swe-agent/ctf-web-i_got_id_demo.traj', messages: 4 },
  { file: 'swe-agent/marshmallow-code__marshmallow-1867__function_calling_replace_from_source.traj', messages: 4 },
  { file: 'swe-agent/pydicom__pydicom-1458.traj', messages: 4 },
  { file: 'swe-agent/swe-agent__test-repo-i1.traj', messages: 4 },
  { file: 'examples/turn-412-record.openai.json', messages: 8 },
  { file: 'src/transcript/formats/__fixtures__/claude-code/native-session.jsonl', messages: 6 },
  { file: 'src/transcript/formats/__fixtures__/codex/rollout.jsonl', messages: 6 },
  { file: 'src/transcript/formats/__fixtures__/gemini-cli/stream-json.jsonl', messages: 6 },
]
const SEED = 20_260_310
/** A message with more gold items than this is left out of the draw: one file listing would swamp the sample. */
const MAX_GOLD_ITEMS = 40
const STRATA = ['user', 'tool-call', 'tool-result', 'assistant', 'summary', 'system'] as const

/** mulberry32: a small seeded generator, so the draw is the same on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const stratumOf = (message: Message): (typeof STRATA)[number] | undefined => {
  const types = new Set(message.parts.map((part) => part.type))
  if (types.has('summary')) return 'summary'
  if (types.has('tool-result')) return 'tool-result'
  if (types.has('tool-call')) return 'tool-call'
  if (!types.has('text')) return undefined
  return message.role === 'tool' ? 'tool-result' : message.role
}

/** Draws `count` messages of a transcript: each stratum shuffled with the seed, then taken round-robin. */
function draw(transcript: Transcript, count: number, seed: number): number[] {
  const next = random(seed)
  const strata = new Map<string, number[]>()
  transcript.messages.forEach((message, index) => {
    const stratum = stratumOf(message)
    if (stratum === undefined || goldItems([message]).length > MAX_GOLD_ITEMS) return
    strata.set(stratum, [...(strata.get(stratum) ?? []), index])
  })
  for (const indices of strata.values()) {
    for (let i = indices.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1))
      ;[indices[i], indices[j]] = [indices[j] as number, indices[i] as number]
    }
  }
  const picked: number[] = []
  while (picked.length < count && [...strata.values()].some((indices) => indices.length > 0)) {
    for (const stratum of STRATA) {
      const index = strata.get(stratum)?.shift()
      if (index !== undefined && picked.length < count) picked.push(index)
    }
  }
  return picked.sort((a, b) => a - b)
}

/** One item to label: where it is, what it is, who reports it. */
interface Candidate {
  readonly key: string
  readonly file: string
  readonly message: number
  readonly text: string
  readonly kinds: Record<string, string>
  readonly source: string
}

async function fullEstimator(): Promise<FloorEstimatorV1> {
  return createEstimator({ name: 'full', tokenizer: await createTokenizer('o200k_base') })
}

/** Every distinct item gold or full reports in a sampled message. */
function candidatesOf(file: string, transcript: Transcript, message: number, full: FloorEstimatorV1): Candidate[] {
  const byText = new Map<string, { kinds: Record<string, string>; source: string }>()
  const target = transcript.messages[message]
  if (target === undefined) return []
  for (const item of goldItems([target], message)) {
    const entry = byText.get(item.text) ?? { kinds: {}, source: item.source }
    entry.kinds.gold ??= item.kind
    byText.set(item.text, entry)
  }
  for (const item of full.extract(target, message)) {
    const entry = byText.get(item.text) ?? { kinds: {}, source: '' }
    entry.kinds.full ??= item.kind
    byText.set(item.text, entry)
  }
  return [...byText].map(([text, entry]) => ({ key: `${file}|${message}|${sha1Hex(text)}`, file, message, text, kinds: entry.kinds, source: entry.source }))
}

async function sampledCandidates(sample: Sample): Promise<{ candidates: Candidate[]; transcripts: Map<string, Transcript> }> {
  const full = await fullEstimator()
  const candidates: Candidate[] = []
  const transcripts = new Map<string, Transcript>()
  for (const entry of sample.transcripts) {
    const transcript = await readSampleTranscript(entry.file)
    if (transcript === undefined) {
      console.error(`skipping ${entry.file}: not found`)
      continue
    }
    transcripts.set(entry.file, transcript)
    for (const message of entry.messages) candidates.push(...candidatesOf(entry.file, transcript, message, full))
  }
  return { candidates, transcripts }
}

const partText = (message: Message): string =>
  message.parts
    .map((part) => {
      switch (part.type) {
        case 'tool-call':
          return `[tool-call ${part.name}] ${JSON.stringify(part.arguments, null, 1)}`
        case 'tool-result':
          return `[tool-result${part.isError ? ' ERROR' : ''}] ${part.content}`
        default:
          return `[${part.type}] ${part.text}`
      }
    })
    .join('\n')

/** The text around the first occurrence of `text` in the message (or its start), on one line. */
function contextOf(message: Message, text: string, width = 160): string {
  const whole = partText(message)
  let at = whole.indexOf(text)
  if (at < 0) at = whole.indexOf(JSON.stringify(text).slice(1, -1))
  if (at < 0) return `(not found verbatim) ${whole.slice(0, width)}`.replace(/\n/g, '⏎')
  return `${whole.slice(Math.max(0, at - width), at)}⟦…⟧${whole.slice(at + text.length, at + text.length + width)}`.replace(/\n/g, '⏎')
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv
  switch (command) {
    case 'sample': {
      const transcripts: SampledTranscript[] = []
      for (const [position, source] of SOURCES.entries()) {
        const transcript = await readSampleTranscript(source.file)
        if (transcript === undefined) {
          console.error(`${source.file}: not found`)
          return 2
        }
        transcripts.push({ file: source.file, corpus: !isRepoFile(source.file), format: transcript.format, messages: draw(transcript, source.messages, SEED + position) })
      }
      const sample: Sample = {
        seed: SEED,
        description: `per transcript, messages drawn with mulberry32(seed + position) from strata ${STRATA.join('/')} taken round-robin; messages with more than ${MAX_GOLD_ITEMS} gold items or no text, call or result are left out`,
        transcripts,
      }
      const { candidates } = await sampledCandidates(sample)
      for (const transcript of transcripts) {
        const own = candidates.filter((candidate) => candidate.file === transcript.file)
        console.log(`${transcript.format.padEnd(20)} ${String(own.length).padStart(4)} items  ${transcript.file}  messages ${transcript.messages.join(',')}`)
      }
      console.log(`total ${candidates.length} items (gold ${candidates.filter((c) => c.kinds.gold).length}, full ${candidates.filter((c) => c.kinds.full).length})`)
      if (rest.includes('--write')) writeFileSync(samplePath(), `${JSON.stringify(sample, null, 1)}\n`)
      return 0
    }
    case 'unlabelled': {
      const { candidates, transcripts } = await sampledCandidates(loadSample())
      const index = indexLabels(loadLabels())
      const open = candidates.filter((candidate) => index.find(candidate.file, candidate.message, candidate.text) === undefined)
      if (rest.includes('--json')) {
        for (const candidate of open) {
          const message = transcripts.get(candidate.file)?.messages[candidate.message] as Message
          console.log(JSON.stringify({ ...candidate, context: contextOf(message, candidate.text, 120) }))
        }
      } else {
        for (const candidate of open) {
          const message = transcripts.get(candidate.file)?.messages[candidate.message] as Message
          const shown = candidate.text.length > 300 ? `${candidate.text.slice(0, 300)}…(${candidate.text.length})` : candidate.text
          console.log(`${candidate.key}  ${JSON.stringify(candidate.kinds)} ${candidate.source}\n  ITEM ${JSON.stringify(shown)}\n  CTX  ${contextOf(message, candidate.text)}`)
        }
      }
      console.error(`${open.length} unlabelled of ${candidates.length}`)
      return 0
    }
    case 'show': {
      const [file, messageText] = rest
      const transcript = file === undefined ? undefined : await readSampleTranscript(file)
      const message = transcript?.messages[Number(messageText)]
      if (file === undefined || message === undefined) {
        console.error('show: expected FILE MESSAGE of a readable transcript')
        return 2
      }
      console.log(partText(message))
      for (const candidate of candidatesOf(file, transcript as Transcript, Number(messageText), await fullEstimator())) console.log(JSON.stringify(candidate.kinds), JSON.stringify(candidate.text))
      return 0
    }
    case 'add': {
      const [decisionsFile] = rest
      if (decisionsFile === undefined) {
        console.error('add: expected a decisions file')
        return 2
      }
      const { candidates } = await sampledCandidates(loadSample())
      const byKey = new Map(candidates.map((candidate) => [candidate.key, candidate]))
      const known = new Set(loadLabels().map((label) => `${label.file}|${label.message}|${label.sha1}`))
      const lines: string[] = []
      for (const [lineIndex, line] of readFileSync(decisionsFile, 'utf8').split('\n').entries()) {
        if (line.trim() === '') continue
        const decision = JSON.parse(line) as { key: string; label: string; reason: string }
        const candidate = byKey.get(decision.key)
        if (candidate === undefined || (decision.label !== 'state' && decision.label !== 'not-state') || !decision.reason?.trim()) {
          console.error(`${decisionsFile}:${lineIndex + 1}: expected the key of a sampled item, a label state/not-state and a reason`)
          return 2
        }
        if (known.has(decision.key)) continue
        known.add(decision.key)
        const label: Label = {
          file: candidate.file,
          message: candidate.message,
          sha1: sha1Hex(candidate.text),
          length: candidate.text.length,
          kind: candidate.kinds.gold ?? candidate.kinds.full ?? '?',
          by: Object.keys(candidate.kinds),
          label: decision.label,
          reason: decision.reason.trim(),
          ...(isRepoFile(candidate.file) ? { text: candidate.text } : {}),
        }
        lines.push(JSON.stringify(label))
      }
      if (lines.length > 0) appendFileSync(labelsPath(), `${lines.join('\n')}\n`)
      console.log(`added ${lines.length} labels`)
      return 0
    }
    case 'stats': {
      const { candidates } = await sampledCandidates(loadSample())
      for (const extractor of ['gold', 'full']) {
        const items = candidates.filter((candidate) => candidate.kinds[extractor] !== undefined).map((candidate) => ({ ...candidate, kind: candidate.kinds[extractor] as string }))
        const result = labelledPrecision(items)
        const percent = (value: number) => (Number.isNaN(value) ? '—' : `${(100 * value).toFixed(1)}%`)
        console.log(`${extractor}: precision ${percent(result.precision)} (${result.state}/${result.labelled} labelled, ${result.unlabelled} unlabelled)`)
        for (const [kind, row] of Object.entries(result.byKind)) console.log(`  ${kind.padEnd(14)} ${percent(row.precision).padStart(7)}  ${row.state}/${row.labelled}  unlabelled ${row.unlabelled}`)
      }
      const wrong = rest[rest.indexOf('--not-state') + 1]
      if (rest.includes('--not-state') && wrong !== undefined) {
        // Items an extractor reports now that are labelled not-state, with the label's reason.
        const index = indexLabels(loadLabels())
        for (const candidate of candidates.filter((c) => c.kinds[wrong] !== undefined)) {
          const label = index.find(candidate.file, candidate.message, candidate.text)
          if (label?.label === 'not-state') console.log(`  ${candidate.kinds[wrong]} ${candidate.file.split('/').pop()}:${candidate.message} ${JSON.stringify(candidate.text.slice(0, 120))} — ${label.reason}`)
        }
      }
      const labels = loadLabels()
      console.log(`labels ${labels.length} from ${new Set(labels.map((label) => label.file)).size} transcripts`)
      return 0
    }
    default:
      console.error('usage: label-tool sample [--write] | unlabelled [--json] | show FILE MESSAGE | add DECISIONS.jsonl | stats')
      return 2
  }
}

process.exitCode = await main(process.argv.slice(2))

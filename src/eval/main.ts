/**
 * `npm run eval`: the measuring stick of issue 10. The only file of `src/eval/` that touches argv, the file system,
 * stdout and exit codes; everything it calls is pure.
 *
 * Usage: `node dist/eval/main.js [--only corpus|synthetic|fixtures] [--json] [--show-misses] [--seed N] [--sessions N] [--debug]`
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readChartJs } from '../cli/commands/report.js'
import { createEstimator } from '../estimate/index.js'
import { renderEvalPage } from '../html-report/eval.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { aggregateArms, aggregateEstimator, aggregateMisses, aggregatePlanted } from './aggregate.js'
import { type CutResult, type EvalInput, type Miss, evaluateInput } from './evaluate.js'
import { labelledSample, type LabelledSample } from './labelled.js'
import { generateScenarios, PLANTED_KINDS } from './scenarios.js'
import { armTable, estimatorTable, labelledTable, missTable, percent, plantedTable, realCutTable } from './table.js'

/** The record's settings and the eval's defaults. */
const SETTINGS = { seed: 1, sessions: 40, narrativeOnly: 4, slot: 2000, budget: 128_000, highWaterMark: 0.85, compactFraction: 0.4, resamples: 2000 } as const

const ONLY = ['corpus', 'synthetic', 'fixtures'] as const
type Only = (typeof ONLY)[number]

interface Arguments {
  readonly only: Only | undefined
  readonly json: boolean
  readonly showMisses: boolean
  readonly seed: number
  readonly sessions: number
  readonly debug: boolean
}

class UsageError extends Error {}

function parseArguments(argv: readonly string[]): Arguments {
  let only: Only | undefined
  let json = false
  let showMisses = false
  let seed: number = SETTINGS.seed
  let sessions: number = SETTINGS.sessions
  let debug = false
  const integer = (flag: string, value: string | undefined): number => {
    if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`${flag}: expected a non-negative integer, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`)
    return Number(value)
  }
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const value = (): string | undefined => inline ?? argv[++index]
    switch (flag) {
      case '--only': {
        const name = value()
        if (!ONLY.includes(name as Only)) throw new UsageError(`--only: expected one of ${ONLY.join(', ')}, got ${JSON.stringify(name ?? '')}`)
        only = name as Only
        break
      }
      case '--json':
        json = true
        break
      case '--show-misses':
        showMisses = true
        break
      case '--seed':
        seed = integer('--seed', value())
        break
      case '--sessions':
        sessions = integer('--sessions', value())
        break
      case '--debug':
        debug = true
        break
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}: expected --only corpus|synthetic|fixtures, --json, --show-misses, --seed N, --sessions N or --debug`)
    }
  }
  return { only, json, showMisses, seed, sessions, debug }
}

/** Files under a folder, recursively, sorted (so a run reads them in the same order everywhere). */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return []
  return readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)]))
}

interface ReadReport {
  readonly name: string
  readonly format?: string
  readonly messages?: number
  readonly error?: string
}

async function readInputs(files: readonly string[], base: string, set: EvalInput['set']): Promise<{ inputs: EvalInput[]; reports: ReadReport[] }> {
  const inputs: EvalInput[] = []
  const reports: ReadReport[] = []
  for (const file of files) {
    const name = relative(base, file)
    try {
      const transcript = await readTranscript(sourceFromString(file, readFileSync(file, 'utf8')), { format: 'auto', lenient: true })
      inputs.push({ name, set, transcript })
      reports.push({ name, format: transcript.format, messages: transcript.messages.length })
    } catch (error) {
      reports.push({ name, error: (error instanceof Error ? error.message : String(error)).split('\n')[0]! })
    }
  }
  return { inputs, reports }
}

async function run(args: Arguments): Promise<void> {
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const corpusFolder = join(root, '..', 'shared', 'corpus', 'real')
  const lines: string[] = []
  const inputs: EvalInput[] = []
  const inputReport: Record<string, unknown> = {}

  if (args.only === undefined || args.only === 'synthetic') {
    const scenarios = generateScenarios({ seed: args.seed, sessions: args.sessions, narrativeOnly: SETTINGS.narrativeOnly })
    for (const scenario of scenarios) {
      inputs.push({ name: scenario.name, set: 'generator', transcript: scenario.transcript, planted: scenario.planted, narrativeOnly: scenario.narrativeOnly })
    }
    inputReport.generator = {
      sessions: scenarios.length,
      narrativeOnly: scenarios.filter((scenario) => scenario.narrativeOnly).length,
      messages: scenarios.reduce((sum, scenario) => sum + scenario.transcript.messages.length, 0),
      planted: scenarios.reduce((sum, scenario) => sum + scenario.planted.length, 0),
    }
  }
  if (args.only === undefined || args.only === 'fixtures') {
    const files = [...filesUnder(join(root, 'src', 'transcript', 'formats', '__fixtures__')), ...filesUnder(join(root, 'examples')).filter((file) => file.endsWith('.json'))]
    const read = await readInputs(files, root, 'fixtures')
    inputs.push(...read.inputs)
    inputReport.fixtures = read.reports
  }
  if (args.only === undefined || args.only === 'corpus') {
    if (existsSync(corpusFolder)) {
      // Transcripts sit in the corpus's subfolders; its top level holds SOURCES.md.
      const files = readdirSync(corpusFolder, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .sort((a, b) => a.name.localeCompare(b.name))
        .flatMap((entry) => filesUnder(join(corpusFolder, entry.name)))
      const read = await readInputs(files, corpusFolder, 'corpus')
      inputs.push(...read.inputs)
      inputReport.corpus = { present: true, files: read.reports }
    } else {
      lines.push(`corpus: ${corpusFolder} is absent; skipped.`, '')
      inputReport.corpus = { present: false }
    }
  }

  const tokenizer = await createTokenizer('o200k_base')
  const estimator = createEstimator({ name: 'full', tokenizer })
  const cuts: CutResult[] = []
  const misses: Miss[] = []
  for (const input of inputs) {
    const result = await evaluateInput(input, {
      tokenizer,
      estimator,
      slot: SETTINGS.slot,
      budget: SETTINGS.budget,
      highWaterMark: SETTINGS.highWaterMark,
      compactFraction: SETTINGS.compactFraction,
    })
    cuts.push(...result.cuts)
    misses.push(...result.misses)
  }

  const arms = aggregateArms(cuts, args.seed)
  const estimatorGroups = aggregateEstimator(cuts)
  const missGroups = aggregateMisses(cuts)
  const planted = aggregatePlanted(cuts)
  const byFile = new Map(inputs.filter((input) => input.set !== 'generator').map((input) => [input.name, input.transcript]))
  const labelled: LabelledSample = labelledSample(estimator, byFile)
  const narrativeCuts = cuts.filter((cut) => cut.narrativeOnly)
  const narrative = { cuts: narrativeCuts.length, refused: narrativeCuts.filter((cut) => cut.arms.B3?.outcome === 'refused').length }

  const results = {
    version: 1,
    seed: args.seed,
    settings: { ...SETTINGS, seed: args.seed, sessions: args.sessions, tokenizer: tokenizer.name, estimator: estimator.name, summarizer: 'ledger', only: args.only ?? 'all' },
    inputs: inputReport,
    arms,
    cuts,
    estimator: { gold: estimatorGroups, labelled },
    planted,
    narrativeOnly: narrative,
    misses: missGroups,
  }
  mkdirSync(join(root, '.eval'), { recursive: true })
  writeFileSync(join(root, '.eval', 'results.json'), `${JSON.stringify(results, null, 2)}\n`)

  lines.unshift(
    `# floorguard eval (seed ${args.seed}; ${tokenizer.name}; estimator ${estimator.name}; ledger summarizer)`,
    '',
    `Inputs: ${describeInputs(inputReport)}.`,
    `Synthetic cuts: ${SETTINGS.budget}-token budget, ${SETTINGS.highWaterMark * 100}% high-water mark, oldest ${SETTINGS.compactFraction * 100}% into a ${SETTINGS.slot}-token slot (B2, B3). ` +
      `Real cuts: B2 and B3 slot = the vendor summary's tokens, B3 budget = 2 × that. Intervals: bootstrap 95% of the mean over cuts (${SETTINGS.resamples} resamples, seed ${args.seed}).`,
    '',
  )
  const realGroups = Object.fromEntries(Object.entries(arms).filter(([group]) => group.startsWith('real:')))
  const syntheticGroups = Object.fromEntries(Object.entries(arms).filter(([group]) => group.startsWith('synthetic:')))
  lines.push('## Real compaction points', '')
  lines.push(Object.keys(realGroups).length > 0 ? armTable(realGroups) : 'No real compaction point in the inputs.', '')
  if (Object.keys(realGroups).length > 0) lines.push('### Per real compaction point', '', realCutTable(cuts), '')
  lines.push('## Synthetic cuts', '')
  lines.push(Object.keys(syntheticGroups).length > 0 ? armTable(syntheticGroups, { planted: true }) : 'No synthetic cut in the inputs.', '')
  if (Object.keys(planted).length > 0) {
    lines.push('### Planted state (generator)', '', plantedTable(planted, PLANTED_KINDS), '')
  }
  if (narrative.cuts > 0) lines.push(`Narrative-only sessions: ${narrative.cuts} cuts, B3 refused ${narrative.refused}.`, '')
  lines.push('## Estimator `full` against gold (an item matches when one text contains the other)', '', estimatorTable(estimatorGroups), '')
  if (labelled.available) {
    const missing = labelled.missing.length > 0 ? `; ${labelled.missing.length} sampled transcripts not among the inputs` : ''
    lines.push(`### Against the hand-labelled sample (${labelled.transcripts} transcripts${missing})`, '', labelledTable(labelled), '')
  } else lines.push(`Labelled sample: not available yet (${labelled.reason}).`, '')
  lines.push('## B3 misses: future-referenced gold items B3 lost, by kind (rows) and source of the item (columns)', '')
  for (const [group, aggregate] of Object.entries(missGroups)) {
    if (aggregate.future === 0) continue
    lines.push(`### ${group}: ${aggregate.lost} of ${aggregate.future} lost (${percent(aggregate.lost / aggregate.future)})`, '', missTable(aggregate), '')
  }
  // The page gets the tables, never the miss texts of --show-misses (corpus text stays out of files).
  const pageMarkdown = lines.join('\n')
  if (args.showMisses) {
    lines.push('## B3 misses, texts (--show-misses; local debugging only, never written to results.json)', '')
    for (const miss of misses) lines.push(`- ${miss.cut} [${miss.kind}/${miss.source}] ${JSON.stringify(miss.text.length > 300 ? `${miss.text.slice(0, 300)}…` : miss.text)}`)
    lines.push('')
  }
  lines.push(`Results: .eval/results.json, .eval/report.html`)
  writeFileSync(join(root, '.eval', 'report.html'), renderEvalPage({ markdown: pageMarkdown, arms, chartJs: readChartJs(), generator: `floorguard eval, seed ${args.seed}` }))
  if (args.json) {
    process.stdout.write(`${JSON.stringify(results)}\n`)
    return
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

function describeInputs(report: Record<string, unknown>): string {
  const parts: string[] = []
  const generator = report.generator as { sessions: number; narrativeOnly: number; messages: number; planted: number } | undefined
  if (generator) parts.push(`generator ${generator.sessions} sessions (${generator.narrativeOnly} narrative-only), ${generator.messages} messages, ${generator.planted} planted items`)
  const fixtures = report.fixtures as ReadReport[] | undefined
  if (fixtures) parts.push(`fixtures ${fixtures.filter((file) => !file.error).length} of ${fixtures.length} files read`)
  const corpus = report.corpus as { present: boolean; files?: ReadReport[] } | undefined
  if (corpus?.present && corpus.files) parts.push(`corpus ${corpus.files.filter((file) => !file.error).length} of ${corpus.files.length} files read`)
  return parts.join('; ')
}

/** Runs the eval; bad arguments print one line and exit 2, a fault exits 1 (with a stack under --debug). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  let args: Arguments
  try {
    args = parseArguments(argv)
  } catch (error) {
    process.stderr.write(`floorguard eval: ${(error as Error).message}\n`)
    process.exitCode = 2
    return
  }
  try {
    await run(args)
  } catch (error) {
    process.stderr.write(`floorguard eval: ${args.debug && error instanceof Error ? error.stack : (error as Error).message}\n`)
    process.exitCode = 1
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()

import { readFileSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { auditTranscript } from '../../audit/audit.js'
import { isAuditLogHead } from '../../audit/audit-log.js'
import { FloorguardError } from '../../errors.js'
import { buildSessionReport } from '../../html-report/build.js'
import type { SessionReport, SkippedFile } from '../../html-report/model.js'
import { renderReportPage } from '../../html-report/render.js'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { TokenizerV1 } from '../../spec/tokenizer.js'
import { parseCommandArgs, parseIntegerFlag, parseRatioFlag, UsageError, type CliCommand, type CliIo } from '../_command.js'
import { readKeepingCompactions } from '../_compaction-records.js'
import { resolveEstimation } from '../_estimation.js'
import { reportWarnings } from '../_load.js'
import { refuseInputAsOutput, resolveOutput, writeOutput } from '../_output.js'
import { sourceFromFile, sourceFromStdin } from '../source.js'

const usage = `usage: floorguard report FILE|DIR|- [-o report.html] [--slot N] [--budget N] [--high-water R] [--title TEXT]
                        [--format auto|openai|…] [--tokenizer o200k_base|cl100k_base|approx]
                        [--estimator full|seed|conservative] [--margin R] [--lenient]

Writes one self-contained HTML page (no network requests, works from file://): a timeline of tokens per message with
the irreducible tokens stacked, the slot and high-water lines and the compaction points with each summary's survival;
the plan for the range a compactor at --slot would compact next; the audit of the summaries already in the log (lost
items first, each linked to where the session used it again); every item, filterable by kind and highlighted in its
message. - reads standard input. A DIR is walked (transcript files: .jsonl .json .md .traj .af .txt .log) into one page with an overview table.

  -o, --output OUT   where to write the page (default report.html in the current directory; - for standard output)
  --slot N           summary slot in tokens for the plan and the audit's cuts (default 2000)
  --budget N         context budget of the high-water line (default 128000)
  --high-water R     share of the budget at which a compactor runs (default 0.85)
  --title TEXT       the page's title (default: floorguard report: FILE)
  --format, --tokenizer, --estimator, --margin, --lenient: as for floorguard check

Exit codes: 0 written, 2 bad usage or input (one line), 1 internal error or failed write.`

const options = {
  output: { type: 'string', short: 'o' },
  slot: { type: 'string' },
  budget: { type: 'string' },
  'high-water': { type: 'string' },
  title: { type: 'string' },
  format: { type: 'string' },
  tokenizer: { type: 'string' },
  estimator: { type: 'string' },
  margin: { type: 'string' },
  lenient: { type: 'boolean' },
} as const

/** Extensions a directory walk reads as transcripts (other files are not looked at). */
const TRANSCRIPT_EXTENSIONS = ['.jsonl', '.json', '.md', '.traj', '.af', '.txt', '.log']

/** Message text and listed items the whole page holds at most, shared among a directory's sessions. */
const PAGE_TEXT_CHARS = 24_000_000
const PAGE_ITEMS = 200_000

/**
 * readChartJs() = Chart.js's UMD build (`dist/chart.umd.min.js`, license banner first), found through the installed
 * package's own entry point (the package does not export the file itself).
 */
export function readChartJs(): string {
  const require = createRequire(import.meta.url)
  const entry = require.resolve('chart.js')
  const path = join(dirname(entry), 'chart.umd.min.js')
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new FloorguardError('missing-dependency', `chart.js's UMD build is missing at ${path}: reinstall floorguard's dependencies (npm install)`, { cause: error })
  }
}

/** floorguard's version, for the page's footer. */
function generator(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string }
    return `floorguard ${manifest.version ?? ''}`.trim()
  } catch {
    return 'floorguard'
  }
}

/** The transcript files under `folder`, recursively, sorted; dot-folders and node_modules are not entered. */
async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const files: string[] = []
  for (const entry of entries) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && entry.name !== 'node_modules') files.push(...(await walk(path)))
    } else if (entry.isFile() && TRANSCRIPT_EXTENSIONS.some((extension) => entry.name.toLowerCase().endsWith(extension))) files.push(path)
  }
  return files
}

interface SessionSettings {
  readonly format: string
  readonly lenient: boolean
  readonly tokenizer: TokenizerV1
  readonly estimator: FloorEstimatorV1
  readonly slot: number
  readonly budget: number
  readonly highWaterMark: number
}

/** Reads, audits and describes one file; its name as the page shows it is `display`. */
async function sessionOf(path: string | null, display: string, id: string, settings: SessionSettings, caps: { maxSessionChars: number; maxItems: number }, io: CliIo): Promise<SessionReport> {
  const source = path === null ? await sourceFromStdin(io.stdin) : await sourceFromFile(path)
  if (isAuditLogHead(source.head)) throw new FloorguardError('invalid-input', `${display}: a floorguard hooks audit log, not a transcript (floorguard audit reads it)`)
  const transcript = await readKeepingCompactions(source, { format: settings.format, lenient: settings.lenient })
  reportWarnings(transcript, 'report', io)
  const { tokenizer, estimator, slot, budget, highWaterMark } = settings
  const audit = auditTranscript(transcript, { estimator, tokenizer, file: display, slot, budget, highWaterMark })
  return buildSessionReport(transcript, { file: display, id, estimator, tokenizer, slot, budget, highWaterMark, audit, ...caps })
}

/** `floorguard report`: the HTML page of a transcript or a directory of them. */
export const reportCommand: CliCommand = {
  name: 'report',
  summary: 'write a self-contained HTML report: timeline, plan, audit of existing summaries, items in their messages',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, options)
    if (positionals.length !== 1) throw new UsageError(`expected one FILE or DIR, got ${positionals.length === 0 ? 'none' : `${positionals.length}: ${positionals.join(' ')}`}`)
    const budget = parseIntegerFlag('budget', values.budget, 128_000, { min: 1 })
    const highWaterMark = parseRatioFlag('high-water', values['high-water'], 0.85)
    if (highWaterMark === 0) throw new UsageError('--high-water: expected a number above 0 and at most 1, got "0"')
    const { slot, format, lenient, tokenizer, estimator } = await resolveEstimation({ ...values, range: undefined, json: undefined })
    const input = positionals[0]!
    const path = resolve(io.cwd, input)
    // Resolved before any reading, so a bad -o costs nothing.
    const target = await resolveOutput(typeof values.output === 'string' ? values.output : 'report.html', io.cwd)
    let directory = false
    if (input !== '-') {
      try {
        directory = (await stat(path)).isDirectory()
      } catch (error) {
        throw new UsageError(`${input}: expected a transcript file or a directory, got ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
      }
    }
    const settings: SessionSettings = { format, lenient, tokenizer, estimator, slot, budget, highWaterMark }
    const sessions: SessionReport[] = []
    const skipped: SkippedFile[] = []
    const files = directory ? await walk(path) : []
    // Before anything is read: a page written over the transcript (or a file the walk reads) would replace it.
    const inputs = directory ? { paths: files, walk: true } : input === '-' ? { paths: [], stdin: io.stdin === process.stdin } : { paths: [path] }
    await refuseInputAsOutput(target, inputs, { flag: '-o', value: typeof values.output === 'string' ? values.output : 'report.html', advice: 'write the report elsewhere' })
    if (directory) {
      if (files.length === 0) throw new UsageError(`${input}: expected transcript files (${TRANSCRIPT_EXTENSIONS.join(' ')}) in the directory, found none`)
      const caps = {
        maxSessionChars: Math.max(100_000, Math.min(2_000_000, Math.floor(PAGE_TEXT_CHARS / files.length))),
        maxItems: Math.max(200, Math.min(5000, Math.floor(PAGE_ITEMS / files.length))),
      }
      for (const file of files) {
        const display = relative(path, file) || basename(file)
        try {
          sessions.push(await sessionOf(file, display, `s${sessions.length}`, settings, caps, io))
        } catch (error) {
          if (!FloorguardError.is(error)) throw error
          skipped.push({ file: display, reason: error.message.split('\n')[0]! })
        }
      }
      if (sessions.length === 0) throw new UsageError(`${input}: none of its ${files.length} files is a transcript floorguard reads (first: ${skipped[0]!.file}: ${skipped[0]!.reason})`)
    } else {
      sessions.push(await sessionOf(input === '-' ? null : path, input === '-' ? '<stdin>' : input, 's0', settings, { maxSessionChars: 2_000_000, maxItems: 5000 }, io))
    }
    const title = typeof values.title === 'string' ? values.title : `floorguard report: ${input === '-' ? '<stdin>' : basename(path) || input}`
    const html = renderReportPage({ title, generator: generator(), sessions, skipped, overview: directory }, { chartJs: readChartJs() })
    const bytes = Buffer.from(html, 'utf8')
    await writeOutput(target, bytes, io)
    io.stderr(
      `floorguard report: wrote ${target.display} (${Math.max(1, Math.round(bytes.length / 1024))} KB; ${sessions.length} session${sessions.length === 1 ? '' : 's'}${skipped.length > 0 ? `, ${skipped.length} files not read` : ''})\n`,
    )
    return 0
  },
}

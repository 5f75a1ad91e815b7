import { availableParallelism } from 'node:os'
import { opendir, readdir, stat } from 'node:fs/promises'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import { isOpenCodeStorageRoot, openCodeStorageId, OPENCODE_STORAGE_DIRECTORIES, sortOpenCodeStorageNames } from '../../audit/opencode.js'
import { auditTotals } from '../../audit/totals.js'
import type { AuditTotals, FailedFile, FileAudit, SkippedFile, SummaryAudit } from '../../audit/types.js'
import { getFormat } from '../../transcript/registry.js'
import { describeSystemError, parseCommandArgs, parseIntegerFlag, UsageError, type CliCommand, type CliIo } from '../_command.js'
import type { AuditJob, AuditJobResult, AuditWorkerSettings, OpenCodeSessionJob } from './_audit-worker.js'

const usage = `usage: floorguard audit PATH... [--format auto|openai|…] [--slot N] [--jobs N] [--json] [--lenient] [--debug]

Audits the compactions already in transcripts: for every summary (Claude Code continuations and compact_boundary,
Codex compacted items, Gemini <state_snapshot> blocks, OpenCode summaries, floorguard's state blocks, and the
records of floorguard's hooks in audit.jsonl), the irreducible items of the segment it replaced, which survived
verbatim, which the session used again after it, and what floorguard would have decided at the summary's size.
Transcripts without summaries: where a compactor at --slot and the high-water mark (85% of 128k) would have had to
split or refuse. Directories are walked (*.jsonl, *.json, *.traj, *.md, *.af); other files, plain text and files of no
detected format found by the walk are skipped: each is listed with the reason. An OpenCode storage directory (one holding session/,
message/ and part/, e.g. ~/.local/share/opencode/storage) is audited session by session.

  --format F   read every file as format F (one of check's: openai, codex, claude-code, …), or auto (default) to
               detect each one (and a hooks' audit.jsonl, an OpenCode export)
  --slot N     the counterfactual compactor's summary slot in tokens (default 2000)
  --jobs N     files audited in parallel on worker threads (default: the number of cores)
  --json       print one JSON object: {"version":1,"files":[…],"totals":{…},"failed":[…],"skipped":[…]}
  --lenient    skip and report malformed JSONL lines and unreadable records (a truncated last line too)

A progress bar goes to stderr when it is a terminal. A file that cannot be read gets one line on stderr naming it
and what was expected; the other files are still audited.

Exit codes: 0 every file audited, 2 bad usage or some file could not be read (bad input), 1 an internal error on
some file or a failed write; 141 when the reader of standard output went away (| head), quietly.`

/** Extensions a directory walk audits; anything else is skipped by name. */
const WALKED_EXTENSIONS = new Set(['.jsonl', '.json', '.traj', '.md', '.af'])
const WALK_REASON = `not a transcript by its name (a walk reads ${[...WALKED_EXTENSIONS].map((extension) => `*${extension}`).join(', ')})`

/** A skipped file and its place in the walk. */
interface OrderedSkip extends SkippedFile {
  readonly order: number
}

/** Skipped files listed in the human output at most; `--json` lists them all. */
const LISTED_SKIPS = 100

/** A file to audit, found on the command line or by a walk. */
interface Entry {
  /** Its place in the walk, shared with the skipped files (which are listed in walk order). */
  readonly order: number
  readonly open: string
  readonly file: string
  readonly explicit: boolean
  readonly size: number
  readonly opencode?: OpenCodeSessionJob
}

/** Files under PATHs in a stable order (directories sorted by name), and what the walk skipped or could not read. */
async function collect(paths: readonly string[], io: CliIo): Promise<{ entries: Entry[]; skipped: OrderedSkip[]; failed: FailedFile[] }> {
  const entries: Entry[] = []
  const failed: FailedFile[] = []
  const skipped: OrderedSkip[] = []
  let order = 0
  const where = (path: string) => (io.cwd === process.cwd() ? path : resolve(io.cwd, path))
  const walk = async (directory: string): Promise<void> => {
    let names: Array<{ name: string; directory: boolean; file: boolean }>
    try {
      const handle = await opendir(where(directory))
      names = []
      for await (const dirent of handle) names.push({ name: dirent.name, directory: dirent.isDirectory(), file: dirent.isFile() })
    } catch (error) {
      failed.push({ file: directory, error: `${directory}: expected a readable directory, got ${describeSystemError(error)}` })
      return
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    if (isOpenCodeStorageRoot(names.filter((entry) => entry.directory).map((entry) => entry.name))) {
      await walkStorage(directory)
      return
    }
    for (const entry of names) {
      const path = join(directory, entry.name)
      if (entry.directory) await walk(path)
      else if (entry.file && WALKED_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        const size = await stat(where(path)).then((info) => info.size, () => 0)
        entries.push({ order: order++, open: where(path), file: path, explicit: false, size })
      } else skipped.push({ order: order++, file: path, reason: entry.file ? WALK_REASON : 'not a regular file' })
    }
  }
  /**
   * An OpenCode storage directory: one entry per session file `session/<projectID>/<sessionID>.json` (its messages and
   * parts are read with it); its other files (projects, diffs, todos, the message and part files) are not entries.
   */
  const walkStorage = async (root: string): Promise<void> => {
    const sessions = join(root, 'session')
    const listed = async (directory: string) => {
      try {
        return sortOpenCodeStorageNames(await readdir(where(directory)))
      } catch (error) {
        failed.push({ file: directory, error: `${directory}: expected a readable directory, got ${describeSystemError(error)}` })
        return []
      }
    }
    for (const project of await listed(sessions)) {
      const projectDirectory = join(sessions, project)
      if (!(await stat(where(projectDirectory)).then((info) => info.isDirectory(), () => false))) continue
      for (const name of await listed(projectDirectory)) {
        if (!name.endsWith('.json')) continue
        const path = join(projectDirectory, name)
        const size = await stat(where(path)).then((info) => info.size, () => 0)
        entries.push({ order: order++, open: where(path), file: path, explicit: false, size, opencode: { root: where(root), reportRoot: root, session: openCodeStorageId(name) } })
      }
    }
  }
  /** A session file named on the command line inside a storage directory: `ROOT/session/<projectID>/<id>.json`. */
  const storageSession = async (path: string): Promise<OpenCodeSessionJob | undefined> => {
    if (!path.endsWith('.json')) return undefined
    const root = dirname(dirname(dirname(path)))
    if (basename(dirname(dirname(path))) !== 'session') return undefined
    for (const name of OPENCODE_STORAGE_DIRECTORIES) if (!(await stat(where(join(root, name))).then((info) => info.isDirectory(), () => false))) return undefined
    return { root: where(root), reportRoot: root, session: openCodeStorageId(basename(path)) }
  }
  for (const path of paths) {
    let info
    try {
      info = await stat(where(path))
    } catch (error) {
      failed.push({ file: path, error: `${path}: expected a file or a directory, got ${describeSystemError(error)}` })
      continue
    }
    if (info.isDirectory()) await walk(path)
    else {
      const opencode = await storageSession(path)
      entries.push({ order: order++, open: where(path), file: path, explicit: true, size: info.size, ...(opencode ? { opencode } : {}) })
    }
  }
  return { entries, skipped, failed }
}

/** `[#####.....] 12/40 files, 31/80 MB`, redrawn in place on a terminal. */
function progressLine(done: number, total: number, bytes: number, totalBytes: number): string {
  const width = 24
  const share = totalBytes > 0 ? bytes / totalBytes : total > 0 ? done / total : 1
  const filled = Math.min(width, Math.round(share * width))
  const mb = (value: number) => (value / 1e6).toFixed(value < 1e7 ? 1 : 0)
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files, ${mb(bytes)}/${mb(totalBytes)} MB`
}

function percent(value: number | null): string {
  return value === null ? '-' : `${(value * 100).toFixed(1)}%`
}

/** One row per summary (or one per file without summaries), for the final table. */
function tableRows(audit: FileAudit): string[][] {
  if (audit.summaries.length === 0) {
    const cuts = audit.cuts.length === 0 ? 'no compaction needed' : `${audit.cuts.length} compactions at --slot: ${audit.wouldCompact} compact, ${audit.wouldSplit} split, ${audit.wouldRefuse} refuse`
    return [[audit.file, audit.format, '-', '-', '-', '-', '-', '-', cuts]]
  }
  return audit.summaries.map((summary) => {
    const at = `${summary.message}${summary.line === undefined ? '' : ` (line ${summary.line})`}`
    // floorguard's own summary sits where the messages it replaced were: nothing of them is left to audit.
    const elsewhere = summary.replacedNotInFile
    if (elsewhere) {
      const range = elsewhere.range === null ? 'replaced messages' : `replaced messages ${elsewhere.range[0]}-${elsewhere.range[1]}`
      return [audit.file, audit.format, at, '-', '-', '-', '-', `- vs ${summary.summaryTokens} (${range} not in this file)`, '-']
    }
    return summaryRow(audit, summary, at)
  })
}

/** The row of a summary whose replaced segment is in the file. */
function summaryRow(audit: FileAudit, summary: SummaryAudit, at: string): string[] {
  return [
    audit.file,
    audit.format,
    at,
    // Without the summary's text nothing is known kept, nor what size a summary had to hold: no count, no decision.
    summary.summaryMissing ? `-/${summary.items}` : `${summary.survived}/${summary.items}`,
    percent(summary.survival),
    `${summary.futureLost}/${summary.futureReferenced}`,
    summary.counterfactual ? `yes (${summary.counterfactualReasons.join(', ')})` : 'no',
    `${summary.floor} vs ${summary.summaryTokens}${summary.summaryMissing ? ' (summary not in log)' : ''}`,
    summary.summaryMissing ? '-' : summary.decision + (summary.parts ? ` into ${summary.parts}` : '') + (summary.reason ? ` (${summary.reason})` : ''),
  ]
}

function renderTable(rows: readonly string[][]): string {
  const header = ['file', 'format', 'summary at', 'kept', 'survival', 'lost/used again', 'counterfactual', 'floor vs summary', 'floorguard']
  const all = [header, ...rows]
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]!.length)))
  return all.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd()).join('\n')
}

/** The worker's compiled file beside this one (dist/cli/commands/_audit-worker.js). */
const WORKER_URL = new URL('./_audit-worker.js', import.meta.url)

/**
 * Runs `entries` on `jobs` worker threads, each holding one file; `emit` gets the results in the entries' order.
 * At most `window` results wait for an earlier one (a slow file holds back only that many), so memory stays bounded
 * whatever the number or size of the files.
 */
async function runPool(entries: readonly Entry[], jobs: number, settings: AuditWorkerSettings, emit: (result: AuditJobResult, entry: Entry) => Promise<void>): Promise<void> {
  const window = Math.max(4, 4 * jobs)
  const waiting = new Map<number, AuditJobResult>()
  let nextToSend = 0
  let nextToEmit = 0
  let failure: unknown
  let emitting = Promise.resolve()
  const workers: Worker[] = []
  await new Promise<void>((finish, fail) => {
    const stop = (error: unknown) => {
      failure ??= error
      fail(error)
    }
    const flush = () => {
      emitting = emitting.then(async () => {
        while (waiting.has(nextToEmit)) {
          const result = waiting.get(nextToEmit)!
          waiting.delete(nextToEmit)
          await emit(result, entries[nextToEmit]!)
          nextToEmit++
        }
        if (nextToEmit === entries.length) finish()
        for (const worker of idle.splice(0)) feed(worker)
      })
      emitting.catch(stop)
    }
    const idle: Worker[] = []
    const busy = new Map<Worker, number>()
    const feed = (worker: Worker) => {
      if (failure !== undefined) return
      if (nextToSend >= entries.length || nextToSend >= nextToEmit + window) {
        idle.push(worker)
        return
      }
      const id = nextToSend++
      const entry = entries[id]!
      busy.set(worker, id)
      worker.postMessage({ id, open: entry.open, file: entry.file, explicit: entry.explicit, ...(entry.opencode ? { opencode: entry.opencode } : {}) } satisfies AuditJob)
    }
    const start = (): Worker => {
      const worker = new Worker(WORKER_URL, { workerData: settings })
      workers.push(worker)
      worker.on('message', (result: AuditJobResult) => {
        busy.delete(worker)
        waiting.set(result.id, result)
        flush()
        feed(worker)
      })
      // A worker that dies takes its file with it (an internal error on that file); a fresh one takes its place.
      const lost = (message: string, stack?: string) => {
        const id = busy.get(worker)
        if (id === undefined) return
        busy.delete(worker)
        waiting.set(id, { id, kind: 'fail', error: `${entries[id]!.file}: internal error: ${message}`, internal: true, ...(stack ? { stack } : {}) })
        flush()
        if (failure === undefined) feed(start())
      }
      worker.on('error', (error) => lost(error.message, error.stack))
      worker.on('exit', (code) => lost(`the worker exited with code ${code}`))
      return worker
    }
    if (entries.length === 0) {
      finish()
      return
    }
    for (let count = 0; count < Math.min(jobs, entries.length); count++) feed(start())
  }).finally(() => Promise.all(workers.map((worker) => worker.terminate())))
}

/** `floorguard audit`: what the compactions users already have lost, and whether the session needed it. */
export const auditCommand: CliCommand = {
  name: 'audit',
  summary: 'audit the compaction summaries already in transcripts: what survived, what was needed again',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      slot: { type: 'string' },
      jobs: { type: 'string' },
      json: { type: 'boolean' },
      lenient: { type: 'boolean' },
      format: { type: 'string' },
    })
    if (positionals.length === 0) throw new UsageError('expected at least one PATH (a transcript, an audit.jsonl or a directory of them)')
    const slot = parseIntegerFlag('slot', values.slot, 2000, { min: 1 })
    const jobs = parseIntegerFlag('jobs', values.jobs, availableParallelism(), { min: 1, max: 256 })
    const json = values.json === true
    const format = typeof values.format === 'string' ? values.format : 'auto'
    // A misspelt name is bad usage, reported before any file is read (as check reports it).
    if (format !== 'auto') getFormat(format)
    // runCli strips --debug before the command sees its arguments; the process's own argv still has it.
    const debug = process.argv.includes('--debug')
    const progress = process.stderr.isTTY === true

    const { entries, skipped, failed } = await collect(positionals, io)
    for (const failure of failed) io.stderr(`floorguard audit: ${failure.error}\n`)
    let internal = false
    const totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0)
    let doneBytes = 0
    let done = 0
    // Totals need only the per-file numbers: each audit is reduced to them (its lost items dropped) once emitted.
    const audited: FileAudit[] = []
    const rows: string[][] = []
    let first = true
    if (json) await io.stdout('{"version":1,"files":[')
    await runPool(entries, jobs, { slot, lenient: values.lenient === true, format }, async (result, entry) => {
      done++
      doneBytes += entry.size
      if (result.kind === 'skip') skipped.push({ order: entry.order, file: entry.file, reason: result.reason })
      else if (result.kind === 'fail') {
        failed.push({ file: entry.file, error: result.error })
        internal ||= result.internal
        if (progress) io.stderr('\r\u001b[K')
        io.stderr(`floorguard audit: ${result.error}\n`)
        if (debug && result.stack) io.stderr(`${result.stack}\n`)
      } else {
        const { audit } = result
        if (result.warnings) {
          if (progress) io.stderr('\r\u001b[K')
          for (const warning of result.warnings) io.stderr(`floorguard audit: warning: ${warning}\n`)
        }
        // Kept for the totals: a summary's lost items (the bulk of a file's audit) are dropped, its cuts are counted.
        audited.push({ ...audit, summaries: audit.summaries.map((summary) => ({ ...summary, lost: [] })) })
        if (json) {
          await io.stdout(`${first ? '' : ','}${JSON.stringify(audit)}`)
          first = false
        } else rows.push(...tableRows(audit))
      }
      if (progress) io.stderr(progressLine(done, entries.length, doneBytes, totalBytes))
    })
    if (progress && entries.length > 0) io.stderr('\r\u001b[K')
    const skippedFiles: SkippedFile[] = skipped.sort((a, b) => a.order - b.order).map(({ file, reason }) => ({ file, reason }))
    const totals = auditTotals(audited, { failed, skipped: skippedFiles.length })
    if (json) await io.stdout(`],"totals":${JSON.stringify(totals)},"failed":${JSON.stringify(failed)},"skipped":${JSON.stringify(skippedFiles)}}\n`)
    else {
      const lines = [rows.length > 0 ? renderTable(rows) : 'no transcripts audited']
      if (skippedFiles.length > 0) {
        lines.push('', 'skipped, not read as transcripts:')
        for (const { file, reason } of skippedFiles.slice(0, LISTED_SKIPS)) lines.push(`  ${file}: ${reason}`)
        if (skippedFiles.length > LISTED_SKIPS) lines.push(`  … and ${skippedFiles.length - LISTED_SKIPS} more (--json lists every one)`)
      }
      lines.push(
        '',
        `${counted(totals.files, 'file')} audited (${(totals.bytes / 1e6).toFixed(1)} MB), ${totals.skipped} skipped, ${totals.failed} failed; ` +
          `${counted(totals.summaries, 'summary', 'summaries')}${notAudited(totals)} kept ${totals.survived} of ${counted(totals.items, 'item')} verbatim (${percent(totals.survival)}); ` +
          `of ${counted(totals.futureReferenced, 'item')} used again after their summary, ${totals.futureLost} had been lost (${percent(totals.futureLostShare)}); ` +
          `${counted(totals.counterfactual, 'summary', 'summaries')} lost a constraint, an error or a current decision`,
      )
      if (totals.cuts > 0) lines.push(`without summaries: ${totals.cuts} compactions at slot ${slot}: ${totals.wouldCompact} compact, ${totals.wouldSplit} split, ${totals.wouldRefuse} refuse`)
      await io.stdout(`${lines.join('\n')}\n`)
    }
    if (internal) return 1
    return failed.length > 0 ? 2 : 0
  },
}

/** ` (2 not audited: 1 whose text the log lacks, 1 whose replaced messages are not in its file)`, or nothing. */
function notAudited(totals: AuditTotals): string {
  const reasons = [
    ...(totals.summariesMissing > 0 ? [`${totals.summariesMissing} whose text the log lacks`] : []),
    ...(totals.replacedNotInFile > 0 ? [`${totals.replacedNotInFile} floorguard wrote over messages no longer in the file`] : []),
  ]
  return reasons.length === 0 ? '' : ` (${totals.summariesMissing + totals.replacedNotInFile} not audited: ${reasons.join(', ')})`
}

/** `1 file`, `3 files`: a count with its noun in the number it takes. */
function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/**
 * One `floorguard audit` worker thread: audits one file at a time (the only file it holds) and posts the result back.
 * The tokenizer and the estimator are made once per worker; the rank table is the costly part of either.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import { auditLogRecords, isAuditLogHead, withTranscriptFutureUse } from '../../audit/audit-log.js'
import { auditTranscript } from '../../audit/audit.js'
import {
  openCodeStorageId,
  readOpenCodeStorageSession,
  sortOpenCodeStorageNames,
  type OpenCodeStoredMessage,
} from '../../audit/opencode.js'
import type { FileAudit, SummaryAudit } from '../../audit/types.js'
import { createEstimator } from '../../estimate/index.js'
import { FloorguardError } from '../../errors.js'
import { createTokenizer } from '../../tokenize/index.js'
import { readTranscript } from '../../transcript/read.js'
import { collapseWarnings } from '../../transcript/_warnings.js'
import { isGitLfsPointer } from '../../transcript/registry.js'
import { readKeepingCompactions } from '../_compaction-records.js'
import { sourceFromFile } from '../source.js'

/** What the command tells every worker once. */
export interface AuditWorkerSettings {
  readonly slot: number
  readonly lenient: boolean
  /** `auto`, or the transcript format every file is read as (`--format`). */
  readonly format: string
}

/** One file to audit. `open` is the path to open, `file` the name to report. */
export interface AuditJob {
  readonly id: number
  readonly open: string
  readonly file: string
  /** Named on the command line: audited whatever it is. Found by a walk: plain text or an undetectable format is skipped. */
  readonly explicit: boolean
  /** A session of an OpenCode storage directory (`file` is its session file): read with its message and part files. */
  readonly opencode?: OpenCodeSessionJob
}

/** Where an OpenCode storage session is: the storage directory to open and as reported, and the session's id. */
export interface OpenCodeSessionJob {
  readonly root: string
  readonly reportRoot: string
  readonly session: string
}

/** The `.json` names in a directory, in OpenCode's id order; none when the directory does not exist. */
async function storageNames(directory: string): Promise<string[]> {
  const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  return sortOpenCodeStorageNames(names.filter((name) => name.endsWith('.json')))
}

/**
 * Reads one session of an OpenCode storage directory: `message/<session>/*.json` in id order, each with its
 * `part/<messageID>/*.json` in id order. Returns the files and their bytes (the session file's included).
 */
async function readStoredSession(job: OpenCodeSessionJob, sessionFile: string): Promise<{ stored: OpenCodeStoredMessage[]; bytes: number }> {
  const stored: OpenCodeStoredMessage[] = []
  let bytes = (await stat(sessionFile)).size
  const read = async (directory: string, reportDirectory: string, name: string) => {
    const text = await readFile(join(directory, name), 'utf8')
    bytes += Buffer.byteLength(text)
    return { file: join(reportDirectory, name), text }
  }
  for (const name of await storageNames(join(job.root, 'message', job.session))) {
    const message = await read(join(job.root, 'message', job.session), join(job.reportRoot, 'message', job.session), name)
    const id = openCodeStorageId(name)
    const partDirectory = join(job.root, 'part', id)
    const parts = []
    for (const partName of await storageNames(partDirectory)) parts.push(await read(partDirectory, join(job.reportRoot, 'part', id), partName))
    stored.push({ message, parts })
  }
  return { stored, bytes }
}

/** A worker's answer for one job. */
export type AuditJobResult =
  | { readonly id: number; readonly kind: 'audit'; readonly audit: FileAudit; readonly warnings?: readonly string[] }
  | { readonly id: number; readonly kind: 'skip'; readonly reason: string }
  | { readonly id: number; readonly kind: 'fail'; readonly error: string; readonly internal: boolean; readonly stack?: string }

/** Format detection's refusals all end by asking for `--format`: in a walk they mean "not a transcript". */
function isDetectionFailure(error: unknown): error is Error {
  return FloorguardError.is(error) && error.code === 'invalid-input' && error.message.includes('pass --format')
}

/**
 * skipReason(error, file) = detection's refusal as one line: without the file's name in front and the advice to pass
 * `--format` (the list of skipped files says that once).
 */
export function skipReason(error: Error, file: string): string {
  let reason = error.message.split('\n')[0]!
  if (reason.startsWith(`${file}: `)) reason = reason.slice(file.length + 2)
  else if (reason.startsWith(`${file}:`)) reason = reason.slice(reason.indexOf(': ') + 2)
  const advice = reason.indexOf('; pass --format')
  return advice === -1 ? reason : reason.slice(0, advice)
}

/** Audits one file: a hooks' audit log by its first record, otherwise a transcript of any detected format. */
export async function auditFile(job: AuditJob, settings: AuditWorkerSettings, tools: Awaited<ReturnType<typeof makeTools>>): Promise<AuditJobResult> {
  try {
    if (job.opencode) {
      const { stored, bytes } = await readStoredSession(job.opencode, job.open)
      const audit = auditTranscript(readOpenCodeStorageSession(stored), { estimator: tools.estimator, tokenizer: tools.tokenizer, slot: settings.slot, file: job.file })
      return { id: job.id, kind: 'audit', audit: { ...audit, bytes } }
    }
    const bytes = (await stat(job.open)).size
    const source = await sourceFromFile(job.open)
    const named = { ...source, name: job.file }
    const auto = settings.format === 'auto'
    if (!job.explicit && auto && isGitLfsPointer(source.head)) return { id: job.id, kind: 'skip', reason: 'a Git LFS pointer, not the file it stands for (`git lfs pull` fetches it)' }
    if (auto && isAuditLogHead(source.head)) {
      const records = auditLogRecords(await source.text(), { file: job.file })
      return { id: job.id, kind: 'audit', audit: { ...records, summaries: await withFutureUse(records.summaries, tools), bytes } }
    }
    let transcript
    try {
      // Detection claims every format, OpenCode exports included.
      transcript = await readKeepingCompactions(named, { format: settings.format, lenient: settings.lenient })
    } catch (error) {
      if (!job.explicit && auto && isDetectionFailure(error)) return { id: job.id, kind: 'skip', reason: `no transcript format detected: ${skipReason(error, job.file)} (--format NAME reads it as NAME)` }
      throw error
    }
    if (!job.explicit && auto && transcript.format === 'text') return { id: job.id, kind: 'skip', reason: 'plain text, no transcript format detected (--format text audits it)' }
    const audit = auditTranscript(transcript, { estimator: tools.estimator, tokenizer: tools.tokenizer, slot: settings.slot, file: job.file })
    // What --lenient skipped, summed up as check's are (see transcript/_warnings.ts), for the main thread to print.
    const warnings = collapseWarnings(transcript.warnings ?? [])
    return { id: job.id, kind: 'audit', audit: { ...audit, bytes }, ...(warnings.length > 0 ? { warnings } : {}) }
  } catch (error) {
    const known = FloorguardError.is(error)
    const message = error instanceof Error ? error.message : String(error)
    // A known error already names the file (its location); anything else gets the file in front.
    const line = known ? (message.includes(job.file) ? message : `${job.file}: ${message}`) : `${job.file}: internal error: ${message}`
    return { id: job.id, kind: 'fail', error: line, internal: !known, ...(error instanceof Error && error.stack ? { stack: error.stack } : {}) }
  }
}

/**
 * Hook records with future use found in the transcripts they name, each transcript read once (one in memory at a
 * time). A transcript that cannot be read leaves its records' future use unknown, with the reason.
 */
async function withFutureUse(summaries: readonly SummaryAudit[], tools: Awaited<ReturnType<typeof makeTools>>): Promise<SummaryAudit[]> {
  const result = [...summaries]
  const paths = [...new Set(summaries.flatMap((summary) => (summary.hook?.transcript ? [summary.hook.transcript] : [])))]
  for (const path of paths) {
    let transcript
    try {
      transcript = await readTranscript(await sourceFromFile(path), { format: 'auto', lenient: true, keepSource: false })
    } catch (error) {
      const why = `the transcript cannot be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`
      result.forEach((summary, index) => {
        if (summary.hook?.transcript === path) result[index] = { ...summary, hook: { ...summary.hook, futureUse: why } }
      })
      continue
    }
    result.forEach((summary, index) => {
      if (summary.hook?.transcript === path) result[index] = withTranscriptFutureUse(summary, transcript, tools)
    })
  }
  return result
}

/** The tokenizer and `full` estimator a worker keeps for all its files. */
export async function makeTools(): Promise<{ tokenizer: Awaited<ReturnType<typeof createTokenizer>>; estimator: ReturnType<typeof createEstimator> }> {
  const tokenizer = await createTokenizer('o200k_base')
  return { tokenizer, estimator: createEstimator({ name: 'full', tokenizer }) }
}

if (parentPort) {
  const port = parentPort
  const settings = workerData as AuditWorkerSettings
  const tools = makeTools()
  port.on('message', (job: AuditJob) => {
    void tools.then((ready) => auditFile(job, settings, ready)).then((result) => port.postMessage(result))
  })
}

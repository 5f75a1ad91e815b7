/**
 * Sums the audits of many files into the report `floorguard audit --json` prints.
 */
import type { AuditReport, AuditTotals, FailedFile, FileAudit, SkippedFile } from './types.js'

/** What the walk counted besides the files it audited. */
export interface AuditReportOptions {
  readonly failed?: readonly FailedFile[]
  /**
   * How many files a directory walk skipped as not transcripts.
   * @default the length of `skippedFiles`
   */
  readonly skipped?: number
  /**
   * The files a directory walk skipped, with the reason.
   * @default []
   */
  readonly skippedFiles?: readonly SkippedFile[]
}

/**
 * auditTotals(files, options) = the sums over `files` (pooled survival and future-loss shares); summaries whose text
 * the log lacks are counted in `summariesMissing`, those whose replaced messages the file no longer holds in
 * `replacedNotInFile`, and both are left out of every other sum.
 */
export function auditTotals(files: readonly FileAudit[], options: AuditReportOptions = {}): AuditTotals {
  let bytes = 0
  let summaries = 0
  let summariesMissing = 0
  let replacedNotInFile = 0
  let items = 0
  let survived = 0
  let futureReferenced = 0
  let futureLost = 0
  let counterfactual = 0
  let cuts = 0
  let wouldCompact = 0
  let wouldSplit = 0
  let wouldRefuse = 0
  for (const file of files) {
    bytes += file.bytes ?? 0
    cuts += file.cuts.length
    wouldCompact += file.wouldCompact
    wouldSplit += file.wouldSplit
    wouldRefuse += file.wouldRefuse
    for (const summary of file.summaries) {
      summaries++
      // A summary the log does not hold (or holds encrypted) says nothing about survival: counted apart.
      if (summary.summaryMissing) {
        summariesMissing++
        continue
      }
      // What floorguard's compact replaced is not in the file: nothing was audited.
      if (summary.replacedNotInFile) {
        replacedNotInFile++
        continue
      }
      items += summary.items
      survived += summary.survived
      futureReferenced += summary.futureReferenced
      futureLost += summary.futureLost
      if (summary.counterfactual) counterfactual++
    }
  }
  return {
    files: files.length,
    failed: options.failed?.length ?? 0,
    skipped: options.skipped ?? options.skippedFiles?.length ?? 0,
    bytes,
    summaries,
    summariesMissing,
    replacedNotInFile,
    items,
    survived,
    survival: items === 0 ? null : survived / items,
    futureReferenced,
    futureLost,
    futureLostShare: futureReferenced === 0 ? null : futureLost / futureReferenced,
    counterfactual,
    cuts,
    wouldCompact,
    wouldSplit,
    wouldRefuse,
  }
}

/** auditReport(files, options) = `{ version: 1, files, totals, failed, skipped }`, files in the order given. */
export function auditReport(files: readonly FileAudit[], options: AuditReportOptions = {}): AuditReport {
  return { version: 1, files, totals: auditTotals(files, options), failed: options.failed ?? [], skipped: options.skippedFiles ?? [] }
}

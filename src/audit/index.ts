/**
 * `floorguard audit`'s pure core: the summaries already in a transcript, what each kept, what the session needed
 * again, and what floorguard would have decided.
 */
export { auditTranscript, argumentStrings, referencePieces } from './audit.js'
export { AUDIT_LOG_FORMAT, auditLogRecords, isAuditLogHead, type AuditLogOptions } from './audit-log.js'
export { allowedBoundaries, highWaterCuts, type HighWaterCut, type HighWaterCutOptions } from './cuts.js'
export { isOpenCodeExportHead, isOpenCodeStorageRoot, OPENCODE_FORMAT, readOpenCodeExport, readOpenCodeStorageSession } from './opencode.js'
export type { OpenCodeStorageFile, OpenCodeStoredMessage } from './opencode.js'
export { keptHistory, openingStateBlock, replacedSegments, type KeptHistory, type ReplacedSegment, type StateBlockReplaced } from './segments.js'
export { findSummaries, summaryOf, STATE_BLOCK_PREFIX, type SummaryPoint } from './summaries.js'
export { auditReport, auditTotals, type AuditReportOptions } from './totals.js'
export type * from './types.js'

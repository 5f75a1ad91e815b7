// floorguard's public surface: named exports only.

export { FloorguardError, InvalidInputError, formatLocation, type FloorguardErrorCode, type InputLocation } from './errors.js'

export type { TokenizerV1 } from './spec/tokenizer.js'
export type { FloorEstimate, FloorEstimatorV1, FloorItem, ItemKind } from './spec/estimator.js'
export type { FormatSource, ReadOptions, TranscriptFormatV1 } from './spec/format.js'
export type {
  Message, Part, Provenance, ReasoningPart, Role, SummaryPart, TextPart, ToolCallPart, ToolPair, ToolResultPart, Transcript, UnpairedPart,
} from './spec/transcript.js'

export { approxTokens, createTokenizer, TOKENIZER_NAMES, type TokenizerName, type TokenizerOptions } from './tokenize/index.js'
export {
  createConservativeEstimator, createEstimator, createFullEstimator, createSeedEstimator, ESTIMATORS,
  type ConservativeEstimatorOptions, type EstimatorName, type EstimatorOptions, type FullEstimatorOptions,
} from './estimate/index.js'
export { seedEstimateText, type SeedSpan, type SeedTextEstimate } from './estimate/seed.js'

export {
  checkTranscript, decide, decisionOf, describeSegment, largestItems, resolveRange,
  type CheckDecision, type CheckOptions, type CheckResult, type CheckSegment, type MessageRange,
} from './check/index.js'
export { checkJson, renderCheckReport, type ReportContext } from './report/check.js'
export { describePlan, planDecisionJson } from './report/plan.js'
export { compactJson, renderCompactReport, type CompactReportContext } from './report/compact.js'

export { MESSAGE_SEPARATOR, PART_SEPARATOR, pairToolCalls, renderMessage, renderPart, renderSegment, type RenderedMessage } from './transcript/render.js'

export * from './transcript/index.js'

export * from './plan/index.js'

export * from './spec/summarizer.js'
export * from './state-block/index.js'
export * from './summarize/index.js'
export * from './verify/index.js'
export * from './compact/index.js'

export { applyLayout, compactLogged, compactWithEvents, createCompactor, eventsJsonl, RECORD_DEFAULTS } from './runtime/index.js'
export type {
  BudgetSignal, CompactionPolicy, Compactor, CompactorChecks, CompactorEvent, CompactorEventType, CompactorOptions,
  CompactorResult, CompactorStats, EventBase, EventItem, LayoutEntry, PlannedPart, PolicyAction, RefusalCode, RuntimeRange,
} from './runtime/index.js'

export {
  auditLogRecords, auditReport, auditTotals, auditTranscript, findSummaries, highWaterCuts, isAuditLogHead,
  isOpenCodeExportHead, isOpenCodeStorageRoot, readOpenCodeExport, readOpenCodeStorageSession,
} from './audit/index.js'
export type {
  AuditDecision, AuditOptions, AuditReport, AuditTotals, CounterfactualReason, CutAudit, FailedFile, FileAudit, LostItem,
  OpenCodeStorageFile, OpenCodeStoredMessage, SummaryAudit, SummaryPoint,
} from './audit/index.js'

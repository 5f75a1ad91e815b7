export { verifySummary, findInventedState } from './verify.js'
export type { ExtractedSpan, SpanExtractor, SummaryVerification, VerifySummaryOptions } from './verify.js'
export { repairSummary } from './repair.js'
export type { RepairResult, RepairSummaryOptions } from './repair.js'

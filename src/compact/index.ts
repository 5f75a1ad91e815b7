export { compactionRange, compactTranscript, createSummaryMessage } from './compact.js'
export type {
  AttemptReport,
  CompactFloor,
  CompactRefusal,
  CompactResult,
  CompactSummary,
  CompactTranscriptOptions,
  CompactVerification,
  PartVerification,
} from './compact.js'
export type { CompactionPlanner } from './_plan.js'

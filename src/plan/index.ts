export { CompactionFloorError, describeOption, describeRefusal } from './compaction-floor-error.js'
export {
  createErrorFixLinker,
  FAILING_LINE_PHRASES,
  FAILING_LINE_PREFIXES,
  isFailingLine,
  isFailingResult,
  startsUserTurn,
  toolKeyOf,
  type ErrorFixLinkerOptions,
  type FailingResultOptions,
} from './error-fix.js'
export { planCompaction, planCompactionOrThrow } from './plan.js'
export { findAssignments, findSupersededState, markEffects, resolveSupersession, scanAssignments, type StateAssignment } from './superseded.js'
export type * from './types.js'

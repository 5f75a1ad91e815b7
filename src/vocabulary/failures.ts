/**
 * The words of failure that more than one layer reads: one definition, imported by the planner (which lines of a tool
 * result say the call failed: `plan/error-fix.ts`) and by the estimator (which lines are errors to keep verbatim:
 * `estimate/extractors/_phrases.ts`). Each layer adds its own words on top, and says why.
 */

/**
 * Messages the shell, the system and module loaders print when something failed, whole phrases in any case: each names
 * a failure on its own, so a line holding one failed (the planner) and is an error kept whole (the estimator).
 */
export const SYSTEM_FAILURE_MESSAGES = [
  'command not found', 'no such file or directory', 'permission denied', 'not a git repository', 'no space left on device',
  'connection refused', 'cannot find module', 'module not found', 'undefined reference', 'access denied',
] as const

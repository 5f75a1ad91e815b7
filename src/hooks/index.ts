/**
 * Compaction hooks for the agents people already run (Claude Code, Codex CLI, Gemini CLI): payloads per host and
 * event, the region a host compacts next, the ledger of its verbatim state, the text put back after a compaction,
 * the count of what the host's summary kept, audit records, and the host settings entries. Pure: `cli/commands/hook.ts`
 * and `cli/commands/hooks.ts` do the I/O.
 */
export { describeValue } from './_fields.js'
export {
  AUDIT_TEXT_LIMIT,
  buildAuditRecord,
  countKept,
  describeVerification,
  type AuditRecord,
  type BuildAuditRecordOptions,
  type DescribeVerificationOptions,
  type KeptCount,
} from './audit.js'
export { readGeminiSession, type GeminiSession } from './gemini-session.js'
export {
  CLAUDE_CODE_CONTEXT_CAP,
  CODEX_CONTEXT_CAP,
  GEMINI_CONTEXT_CAP,
  HOOK_HOSTS,
  claudeCodeHost,
  codexHost,
  geminiHost,
  getHookHost,
  isHostName,
} from './hosts/index.js'
export {
  injectionRank,
  renderInjection,
  renderKeepInstructions,
  type Injection,
  type RenderInjectionOptions,
  type RenderKeepInstructionsOptions,
} from './inject.js'
export { buildLedger, type BuildLedgerOptions, type HookLedger } from './ledger.js'
export { fromLineBoundary, lastBoundary, latestSummary, pendingRegion, type FoundSummary, type MessageSpan } from './region.js'
export { addHookEntries, detectIndent, formatSettings, isFloorguardHook, removeHookEntries, type SettingsChange } from './settings.js'
export type * from './types.js'

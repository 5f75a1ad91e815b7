/**
 * Codex CLI's compaction hooks.
 *
 * What was checked, and where (2026-12):
 * - Payloads: openai/codex `codex-rs/hooks/schema/generated/pre-compact.command.input.schema.json` and
 *   `post-compact.command.input.schema.json`: `session_id`, `turn_id`, `transcript_path` (string or null), `cwd`,
 *   `hook_event_name`, `model`, `trigger: 'manual' | 'auto'`, nothing else (no summary). Their output schemas accept
 *   only `continue`, `stopReason`, `suppressOutput`, `systemMessage`: the compact hooks observe, they cannot block or
 *   change the compaction. openai/codex PR #19905 (merged) adds them, fires PreCompact before local and remote
 *   compaction and PostCompact after a successful one, and ignores plain stdout.
 * - SessionStart: openai/codex PR #21272 (merged) adds `compact` as a SessionStart source and matcher value and drains
 *   queued SessionStart hooks before the next model request; `session-start.command.output.schema.json` takes
 *   `hookSpecificOutput: {hookEventName: 'SessionStart', additionalContext}` and `systemMessage`.
 * - Settings: developers.openai.com/codex/hooks: hooks load from `hooks.json` or inline `[hooks]` tables of
 *   `config.toml` next to each config layer, mainly `~/.codex/hooks.json` and `<repo>/.codex/hooks.json`; the JSON
 *   has the same `{hooks: {Event: [{matcher?, hooks: [{type: 'command', command, timeout}]}]}}` shape as Claude
 *   Code's; hooks are on by default (`[features] hooks`), and non-managed hooks must be reviewed and trusted before
 *   they run. floorguard writes `hooks.json` (JSON it can merge safely) and never `config.toml`.
 * - The summary: rollouts (`~/.codex/sessions/…/rollout-*.jsonl`) record a local compaction as a `compacted` item
 *   with the summary in `message`; a remote (server-side) compaction's item is encrypted. PostCompact has no summary
 *   field, so floorguard reads it from the rollout's tail.
 *
 * Undocumented, so optional or left out: Codex documents no cap on `additionalContext`; floorguard uses Claude Code's
 * (`--cap` changes it). `experimental_compact_prompt_file` (local compaction's prompt) is a config key, not a hook
 * answer, and is not written.
 */
import { join } from 'node:path'
import { contextAnswer, jsonAnswer, PayloadReader, payloadOf, readPayload, unknownEvent } from '../_fields.js'
import type { HookHostV1, HookOutcome, HookPayload, HookRole } from '../types.js'

const EVENTS = ['PreCompact', 'SessionStart', 'PostCompact'] as const

/** No documented cap: the same margin below Claude Code's 10,000 characters. */
export const CODEX_CONTEXT_CAP = 9_500

function parse(event: string, value: unknown) {
  if (!(EVENTS as readonly string[]).includes(event)) return unknownEvent('codex', event, EVENTS)
  return readPayload((): HookPayload => {
    const fields = new PayloadReader(value)
    fields.eventName(event)
    const sessionId = fields.string('session_id')
    const base = { transcriptPath: fields.optionalString('transcript_path') || undefined, cwd: fields.optionalString('cwd') }
    if (event === 'SessionStart') {
      const source = fields.string('source')
      const role: HookRole = source === 'compact' ? 'after' : 'ignore'
      return payloadOf('codex', event, role, sessionId, { ...base, source })
    }
    return payloadOf('codex', event, event === 'PreCompact' ? 'before' : 'verify', sessionId, { ...base, trigger: fields.trigger() })
  })
}

const neutral = { stdout: '', exitCode: 0 as const }

function answer(payload: Pick<HookPayload, 'event' | 'role'>, outcome: HookOutcome) {
  switch (outcome.kind) {
    case 'context':
      if (payload.event === 'SessionStart') return contextAnswer('SessionStart', outcome)
      return outcome.notice === undefined ? neutral : jsonAnswer({ systemMessage: outcome.notice })
    case 'notice':
      return jsonAnswer({ systemMessage: outcome.text })
    default:
      // Codex's compact hooks cannot block or take instructions.
      return neutral
  }
}

/** Codex CLI: PreCompact builds the ledger, SessionStart(compact) puts it back, PostCompact checks the rollout's summary. */
export const codexHost: HookHostV1 = {
  specificationVersion: 'v1',
  name: 'codex',
  displayName: 'Codex CLI',
  events: EVENTS,
  transcriptFormat: 'codex',
  contextCap: CODEX_CONTEXT_CAP,
  canBlock: false,
  parse,
  answer,
  neutral,
  settings: {
    user: (home, env) => join(env['CODEX_HOME'] || join(home, '.codex'), 'hooks.json'),
    project: (cwd) => join(cwd, '.codex', 'hooks.json'),
  },
  entries: (command) => [
    { event: 'PreCompact', hook: { type: 'command', command: `${command} PreCompact`, timeout: 30 } },
    { event: 'SessionStart', matcher: 'compact', hook: { type: 'command', command: `${command} SessionStart`, timeout: 30 } },
    { event: 'PostCompact', hook: { type: 'command', command: `${command} PostCompact`, timeout: 30 } },
  ],
}

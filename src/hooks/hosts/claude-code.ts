/**
 * Claude Code's compaction hooks.
 *
 * What was checked, and where (2026-12, Claude Code 2.1.x):
 * - Events and payloads: the Claude Agent SDK's `sdk.d.ts` (`@anthropic-ai/claude-agent-sdk`, as vendored in public
 *   repositories): every input has `session_id`, `transcript_path`, `cwd` (and optional `permission_mode`, `agent_id`,
 *   `agent_type`); `PreCompact` adds `trigger: 'manual' | 'auto'` and `custom_instructions: string | null`;
 *   `PostCompact` adds `trigger` and `compact_summary: string`; `SessionStart` adds `source: 'startup' | 'resume' |
 *   'clear' | 'compact'`. Its `SyncHookJSONOutput` has `continue`, `suppressOutput`, `stopReason`, `decision`,
 *   `systemMessage` (shown to the user), `reason` and `hookSpecificOutput`, whose union includes SessionStart's
 *   (`additionalContext`) but neither PreCompact's nor PostCompact's.
 * - History: anthropics/claude-code `CHANGELOG.md`: 1.0.48 added PreCompact; 2.1.76 added PostCompact; 2.1.105 lets
 *   PreCompact block a compaction by exiting 2 or returning `{"decision":"block"}`; 2.1.89 moved large hook output
 *   to a file with a preview.
 * - The context cap: anthropics/claude-code issues #51537, #64626, #84021 and #94358 measure it: an
 *   `additionalContext` over 10,000 characters is saved to a file and replaced by a ~2,000-character preview and the
 *   file's path (the changelog says 50K; the code says 1e4). floorguard stays under {@link CLAUDE_CODE_CONTEXT_CAP}.
 * - `hookSpecificOutput` on PostCompact or PreCompact fails Claude Code's output validation (anthropics/claude-code
 *   #46191; claudioemmanuel/squeez #225 on 2.1.261): PostCompact answers with `systemMessage` only.
 * - Settings: `~/.claude/settings.json` (user) and `.claude/settings.json` (project) hold `hooks: {Event: [{matcher?,
 *   hooks: [{type: 'command', command, timeout (seconds)}]}]}`; a plugin's `hooks/hooks.json` wraps the same object
 *   in `{"hooks": …}` and may use `${CLAUDE_PLUGIN_ROOT}` (anthropics/claude-code `plugins/plugin-dev/skills/
 *   hook-development/SKILL.md`, `plugins/*\/hooks/hooks.json`). SessionStart's matcher takes the source (`compact`).
 * - Additional context is wrapped in a system reminder (the docs' "Add context for Claude", quoted in
 *   gabriel-dehan/claude_hooks #41); the issue brief adds that command-like out-of-band text can trip the prompt-
 *   injection defences, so the injected ledger states facts and gives no orders.
 *
 * Undocumented, so optional: plain PreCompact stdout becoming compaction instructions (users report it; the docs do
 * not say it): floorguard prints must-keep instructions there only with `--instructions`. The order of PostCompact and
 * SessionStart(compact) is not documented either: both work in either order. Blocking a compaction Claude Code started
 * to recover from a context-limit error fails the request, so floorguard blocks only a manual one, and only under
 * `--block manual`.
 */
import { join } from 'node:path'
import { contextAnswer, jsonAnswer, PayloadReader, payloadOf, readPayload, unknownEvent } from '../_fields.js'
import type { HookHostV1, HookOutcome, HookPayload, HookRole } from '../types.js'

/** Claude Code replaces an `additionalContext` over 10,000 characters with a preview; floorguard keeps a margin. */
export const CLAUDE_CODE_CONTEXT_CAP = 9_500

const EVENTS = ['PreCompact', 'SessionStart', 'PostCompact'] as const

function parse(event: string, value: unknown) {
  if (!(EVENTS as readonly string[]).includes(event)) return unknownEvent('claude-code', event, EVENTS)
  return readPayload((): HookPayload => {
    const fields = new PayloadReader(value)
    fields.eventName(event)
    const base = { transcriptPath: fields.string('transcript_path'), cwd: fields.optionalString('cwd') }
    const sessionId = fields.string('session_id')
    switch (event) {
      case 'PreCompact':
        return payloadOf('claude-code', event, 'before', sessionId, {
          ...base,
          trigger: fields.trigger(),
          customInstructions: fields.optionalString('custom_instructions'),
        })
      case 'PostCompact':
        return payloadOf('claude-code', event, 'verify', sessionId, { ...base, trigger: fields.trigger(), compactSummary: fields.text('compact_summary') })
      default: {
        const source = fields.string('source')
        const role: HookRole = source === 'compact' ? 'after' : 'ignore'
        return payloadOf('claude-code', event, role, sessionId, { ...base, source })
      }
    }
  })
}

function answer(payload: Pick<HookPayload, 'event' | 'role'>, outcome: HookOutcome) {
  switch (outcome.kind) {
    case 'block':
      return payload.event === 'PreCompact' ? jsonAnswer({ decision: 'block', reason: outcome.reason }) : neutral
    case 'instructions':
      return payload.event === 'PreCompact' ? { stdout: outcome.text.endsWith('\n') ? outcome.text : `${outcome.text}\n`, exitCode: 0 as const } : neutral
    case 'context':
      if (payload.event === 'SessionStart') return contextAnswer('SessionStart', outcome)
      return outcome.notice === undefined ? neutral : jsonAnswer({ systemMessage: outcome.notice })
    case 'notice':
      return jsonAnswer({ systemMessage: outcome.text })
    case 'none':
      return neutral
  }
}

const neutral = { stdout: '', exitCode: 0 as const }

/** Claude Code: PreCompact builds the ledger, SessionStart(compact) puts it back, PostCompact checks the summary. */
export const claudeCodeHost: HookHostV1 = {
  specificationVersion: 'v1',
  name: 'claude-code',
  displayName: 'Claude Code',
  events: EVENTS,
  transcriptFormat: 'claude-code',
  contextCap: CLAUDE_CODE_CONTEXT_CAP,
  canBlock: true,
  parse,
  answer,
  neutral,
  settings: {
    user: (home, env) => join(env['CLAUDE_CONFIG_DIR'] || join(home, '.claude'), 'settings.json'),
    project: (cwd) => join(cwd, '.claude', 'settings.json'),
  },
  entries: (command) => [
    { event: 'PreCompact', hook: { type: 'command', command: `${command} PreCompact`, timeout: 30 } },
    { event: 'SessionStart', matcher: 'compact', hook: { type: 'command', command: `${command} SessionStart`, timeout: 30 } },
    { event: 'PostCompact', hook: { type: 'command', command: `${command} PostCompact`, timeout: 30 } },
  ],
}

/**
 * Gemini CLI's compression hooks.
 *
 * What was checked, and where (2026-12):
 * - google-gemini/gemini-cli `docs/hooks/reference.md` and `docs/hooks/index.md`: hooks live in `settings.json`
 *   (`~/.gemini/settings.json`, or `.gemini/settings.json` of a trusted project) under `hooks: {Event: [{matcher?,
 *   sequential?, hooks: [{type: 'command', command, name?, timeout (milliseconds, default 60000), description?}]}]}`;
 *   every input has `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`; exit 0 means stdout is
 *   parsed as JSON and nothing else may be printed there; exit 2 blocks.
 * - `PreCompress`: input `trigger: 'auto' | 'manual'`; output `systemMessage` only; advisory: fired asynchronously,
 *   it cannot block or modify the compression. There is no hook after compression.
 * - `BeforeAgent`: input `prompt`; `hookSpecificOutput.additionalContext` is appended to the prompt for that turn;
 *   `systemMessage` is shown to the user. It fires on every prompt, so floorguard answers `{}` unless a ledger waits.
 * - The hooks system is on by default (`hooksConfig.enabled`, default true since v0.27.0, per the configuration
 *   reference as quoted in public notes); floorguard does not change it.
 * - Session files: `packages/core/src/services/chatRecordingTypes.ts`: a conversation record (`sessionId`,
 *   `messages: [{id, timestamp, type: 'user' | 'gemini' | 'info' | 'error' | 'warning', content, toolCalls?,
 *   thoughts?}]`), written as one JSON document or as JSONL records (with `$rewindTo` / `$set` records); see
 *   `../gemini-session.ts`.
 *
 * Undocumented, so optional or best effort: whether the session file records the compression's `<state_snapshot>`
 * (when it does, BeforeAgent counts what it kept; when not, the audit record says the summary was not found). No cap
 * on `additionalContext` is documented; floorguard uses Claude Code's (`--cap` changes it).
 */
import { join } from 'node:path'
import { contextAnswer, jsonAnswer, PayloadReader, payloadOf, readPayload, unknownEvent } from '../_fields.js'
import type { HookHostV1, HookOutcome, HookPayload } from '../types.js'

const EVENTS = ['PreCompress', 'BeforeAgent'] as const

/** No documented cap: the same margin below Claude Code's 10,000 characters. */
export const GEMINI_CONTEXT_CAP = 9_500

function parse(event: string, value: unknown) {
  if (!(EVENTS as readonly string[]).includes(event)) return unknownEvent('gemini', event, EVENTS)
  return readPayload((): HookPayload => {
    const fields = new PayloadReader(value)
    fields.eventName(event)
    const sessionId = fields.string('session_id')
    const base = { transcriptPath: fields.optionalString('transcript_path') || undefined, cwd: fields.optionalString('cwd') }
    if (event === 'PreCompress') return payloadOf('gemini', event, 'before', sessionId, { ...base, trigger: fields.trigger() })
    return payloadOf('gemini', event, 'after', sessionId, { ...base, prompt: fields.text('prompt') })
  })
}

/** Gemini CLI parses stdout as JSON on exit 0: the empty answer is `{}`. */
const neutral = { stdout: '{}\n', exitCode: 0 as const }

function answer(payload: Pick<HookPayload, 'event' | 'role'>, outcome: HookOutcome) {
  switch (outcome.kind) {
    case 'context':
      if (payload.event === 'BeforeAgent') return contextAnswer('BeforeAgent', outcome)
      return outcome.notice === undefined ? neutral : jsonAnswer({ systemMessage: outcome.notice })
    case 'notice':
      return jsonAnswer({ systemMessage: outcome.text })
    default:
      // PreCompress is advisory: it cannot block or take instructions.
      return neutral
  }
}

/** Gemini CLI: PreCompress builds the ledger, the next BeforeAgent puts it back (and checks the summary if logged). */
export const geminiHost: HookHostV1 = {
  specificationVersion: 'v1',
  name: 'gemini',
  displayName: 'Gemini CLI',
  events: EVENTS,
  transcriptFormat: 'gemini-session',
  contextCap: GEMINI_CONTEXT_CAP,
  canBlock: false,
  parse,
  answer,
  neutral,
  settings: {
    user: (home) => join(home, '.gemini', 'settings.json'),
    project: (cwd) => join(cwd, '.gemini', 'settings.json'),
  },
  entries: (command) => [
    {
      event: 'PreCompress',
      hook: { name: 'floorguard-precompress', type: 'command', command: `${command} PreCompress`, timeout: 30_000, description: 'floorguard: record the verbatim state ledger before compression' },
    },
    {
      event: 'BeforeAgent',
      hook: { name: 'floorguard-beforeagent', type: 'command', command: `${command} BeforeAgent`, timeout: 30_000, description: 'floorguard: put the state ledger back after compression' },
    },
  ],
}

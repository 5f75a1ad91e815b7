/**
 * Hook payloads for every event floorguard handles, written by us from each host's documented input schema (see the
 * comments at the top of `../hosts/*.ts` for where each field is documented). Extra fields the hosts send and
 * floorguard does not read are included, so a reader that rejects unknown fields would fail.
 */

/** Claude Code (Agent SDK `BaseHookInput` + the event's fields). */
export const claudeCode = {
  PreCompact: (transcript: string, trigger: 'manual' | 'auto' = 'auto', sessionId = 'cc-session-1') => ({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    permission_mode: 'default',
    hook_event_name: 'PreCompact',
    trigger,
    custom_instructions: trigger === 'manual' ? 'keep the deployment steps' : null,
  }),
  SessionStart: (transcript: string, source: 'startup' | 'resume' | 'clear' | 'compact' = 'compact', sessionId = 'cc-session-1') => ({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    permission_mode: 'default',
    hook_event_name: 'SessionStart',
    source,
    model: 'claude-sonnet-4-6',
  }),
  PostCompact: (transcript: string, summary: string, sessionId = 'cc-session-1') => ({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    permission_mode: 'default',
    hook_event_name: 'PostCompact',
    trigger: 'auto',
    compact_summary: summary,
  }),
}

/** Codex CLI (`codex-rs/hooks/schema/generated/*.command.input.schema.json`). */
export const codex = {
  PreCompact: (transcript: string | null, sessionId = 'codex-session-1') => ({
    session_id: sessionId,
    turn_id: 'turn-7',
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    hook_event_name: 'PreCompact',
    model: 'gpt-5.1-codex',
    trigger: 'auto',
  }),
  SessionStart: (transcript: string | null, source: 'startup' | 'resume' | 'clear' | 'compact' = 'compact', sessionId = 'codex-session-1') => ({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    hook_event_name: 'SessionStart',
    model: 'gpt-5.1-codex',
    permission_mode: 'default',
    source,
  }),
  PostCompact: (transcript: string | null, sessionId = 'codex-session-1') => ({
    session_id: sessionId,
    turn_id: 'turn-7',
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    hook_event_name: 'PostCompact',
    model: 'gpt-5.1-codex',
    trigger: 'auto',
  }),
}

/** Gemini CLI (`docs/hooks/reference.md`: base input + the event's fields). */
export const gemini = {
  PreCompress: (transcript: string, sessionId = 'gemini-session-1') => ({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    hook_event_name: 'PreCompress',
    timestamp: '2026-12-02T10:00:00.000Z',
    trigger: 'auto',
  }),
  BeforeAgent: (transcript: string, prompt = 'continue with the deploy', sessionId = 'gemini-session-1') => ({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: '/home/dev/proj',
    hook_event_name: 'BeforeAgent',
    timestamp: '2026-12-02T10:05:00.000Z',
    prompt,
  }),
}

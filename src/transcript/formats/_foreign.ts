import { isRecord } from '../_json-prefix.js'

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'])
const GEMINI_CLI_EVENTS = new Set(['init', 'message', 'tool_use', 'tool_result', 'error', 'result'])

/**
 * foreignHint(record) = ` (the file looks like NAME?)` for a JSONL record another tool writes, by a few of its keys,
 * else ''. Cheap and never certain: a reader that found none of its own records adds it to its refusal.
 */
export function foreignHint(record: unknown): string {
  const name = looksLike(record)
  return name === undefined ? '' : ` (the file looks like ${name}?)`
}

function looksLike(record: unknown): string | undefined {
  if (!isRecord(record)) return undefined
  const type = record.type
  if ('parentUuid' in record || ('uuid' in record && 'message' in record) || (type === 'summary' && 'leafUuid' in record)) return 'a Claude Code session log'
  if ('payload' in record && typeof type === 'string' && CODEX_TYPES.has(type)) return 'a Codex session log'
  if ('raw' in record && 'kind' in record) return 'Claude Agent session events (--format claude-agent-events)'
  if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') return 'a Gemini CLI session recording (--format gemini-session)'
  if (typeof type === 'string' && GEMINI_CLI_EVENTS.has(type) && !('payload' in record)) return 'Gemini CLI stream-json output (--format gemini-cli)'
  if ('role' in record && 'content' in record) return 'chat messages, one a line'
  return undefined
}

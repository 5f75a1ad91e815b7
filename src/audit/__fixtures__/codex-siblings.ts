/**
 * A Codex rollout compacted twice, the second `compacted` record keeping the first summary in its
 * `replacement_history`: the two summaries are siblings, each replacing nothing else in the file (JSONL text).
 */
export function codexSiblingsLog(): string {
  const first = 'Part one: pinned numpy==1.26.4 in requirements.txt.'
  const second = 'Part two: renamed FOO_LIMIT in src/limits.rs.'
  const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
  const records = [
    { timestamp: 't', type: 'session_meta', payload: { id: 's', cwd: '/tmp' } },
    { timestamp: 't', type: 'compacted', payload: { message: first, replacement_history: [user(first)] } },
    { timestamp: 't', type: 'event_msg', payload: { type: 'context_compacted' } },
    { timestamp: 't', type: 'compacted', payload: { message: second, replacement_history: [user(first), user(second)] } },
    { timestamp: 't', type: 'event_msg', payload: { type: 'context_compacted' } },
    { timestamp: 't', type: 'response_item', payload: user('Check requirements.txt again.') },
  ]
  return `${records.map((record) => JSON.stringify(record)).join('\n')}\n`
}

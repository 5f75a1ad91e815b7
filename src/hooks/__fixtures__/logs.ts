/**
 * Small session logs in each host's own format, holding known state after a compaction boundary: a constraint, a pin
 * changed by a later message, a failed command's error, commands, a path and a ticket id. Before the boundary lies
 * state the next compaction does not cover (`OLD_PATH`), so a ledger that includes it read the wrong region.
 */

/** A path only the messages before the boundary mention. */
export const OLD_PATH = '/srv/legacy/import_v1.py'

/** Texts the messages after the boundary hold verbatim. */
export const FACTS = {
  constraint: 'Never write outside /srv/data.',
  oldPin: 'fsspec==2024.6.1',
  newPin: 'fsspec==2023.12.0',
  error: "OSError: [Errno 28] No space left on device: '/srv/data/cache.bin'",
  command: 'pytest tests/test_api.py -q',
  ticket: 'ING-4821',
} as const

/** The user and tool texts after the boundary, in order (filler turns follow). */
function script(turn: number): Array<{ role: 'user' | 'call' | 'result'; text: string; error?: boolean; id?: string }> {
  const filler = `Turn ${turn}: the worker reads batch ${turn} and writes /srv/data/out_${turn}.parquet; retry budget is ${turn % 5} attempts.`
  if (turn === 0) {
    return [
      { role: 'user', text: `${FACTS.constraint} Use ${FACTS.oldPin} for now.` },
      { role: 'call', text: FACTS.command, id: 'call_0a' },
      { role: 'result', text: `Traceback (most recent call last):\n  File "/srv/app/io.py", line 41, in flush\n${FACTS.error}`, error: true, id: 'call_0a' },
      { role: 'user', text: `Switch to ${FACTS.newPin} instead of ${FACTS.oldPin}. Ticket ${FACTS.ticket}.` },
    ]
  }
  return [
    { role: 'user', text: filler },
    { role: 'call', text: `ls -la /srv/data/out_${turn}.parquet`, id: `call_${turn}b` },
    { role: 'result', text: `-rw-r--r-- 1 dev dev ${1000 + turn} Dec  2 10:00 /srv/data/out_${turn}.parquet`, id: `call_${turn}b` },
  ]
}

/** Options of the log builders. */
export interface LogOptions {
  /**
   * Filler turns after the scripted one (each about 400 bytes).
   * @default 3
   */
  readonly turns?: number
  /**
   * Write the compaction boundary (and its summary) before the scripted state.
   * @default true
   */
  readonly boundary?: boolean
}

const SUMMARY = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nSummary:\nThe user imported data with ${OLD_PATH}.`

/** A native Claude Code session log: uuid/parentUuid chains, a `compact_boundary` record and an `isCompactSummary` user record. */
export function claudeCodeLog(options: LogOptions = {}): string {
  const turns = options.turns ?? 3
  const lines: string[] = []
  let parent: string | null = null
  let n = 0
  const next = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`
  const base = () => ({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/proj', sessionId: 'cc-session-1', version: '2.1.120' })
  const push = (record: Record<string, unknown>) => {
    lines.push(JSON.stringify({ ...record, timestamp: new Date(Date.UTC(2026, 11, 2, 10, 0, n)).toISOString() }))
    parent = record['uuid'] as string
  }
  push({ ...base(), type: 'user', message: { role: 'user', content: `Import the data with ${OLD_PATH}.` }, uuid: next() })
  push({ ...base(), type: 'assistant', message: { id: 'msg_old', role: 'assistant', content: [{ type: 'text', text: 'Imported.' }] }, uuid: next() })
  if (options.boundary ?? true) {
    const logical = parent
    push({ ...base(), parentUuid: null, logicalParentUuid: logical, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 120000 }, uuid: next() })
    push({ ...base(), type: 'user', isCompactSummary: true, message: { role: 'user', content: SUMMARY }, uuid: next() })
  }
  for (let turn = 0; turn <= turns; turn++) {
    for (const step of script(turn)) {
      if (step.role === 'user') push({ ...base(), type: 'user', message: { role: 'user', content: step.text }, uuid: next() })
      else if (step.role === 'call') {
        push({
          ...base(),
          type: 'assistant',
          message: { id: `msg_${turn}_${n}`, role: 'assistant', content: [{ type: 'text', text: 'Running it.' }, { type: 'tool_use', id: step.id, name: 'Bash', input: { command: step.text } }] },
          uuid: next(),
        })
      } else {
        push({ ...base(), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: step.id, content: step.text, is_error: step.error === true }] }, uuid: next() })
      }
    }
  }
  return `${lines.join('\n')}\n`
}

/** A Codex rollout: session_meta, response items, and a `compacted` item as the earlier boundary. */
export function codexRollout(options: LogOptions = {}): string {
  const turns = options.turns ?? 3
  const lines: string[] = []
  let n = 0
  const push = (type: string, payload: Record<string, unknown>) =>
    lines.push(JSON.stringify({ timestamp: new Date(Date.UTC(2026, 11, 2, 10, 0, ++n)).toISOString(), type, payload }))
  push('session_meta', { id: 'codex-session-1', cwd: '/home/dev/proj', originator: 'codex_cli_rs', cli_version: '0.60.0' })
  push('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Import the data with ${OLD_PATH}.` }] })
  push('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Imported.' }] })
  if (options.boundary ?? true) push('compacted', { message: `Earlier: the user imported data with ${OLD_PATH}.` })
  for (let turn = 0; turn <= turns; turn++) {
    for (const step of script(turn)) {
      if (step.role === 'user') push('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: step.text }] })
      else if (step.role === 'call') push('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', step.text] }), call_id: step.id })
      else push('response_item', { type: 'function_call_output', call_id: step.id, output: JSON.stringify({ output: step.text, metadata: { exit_code: step.error ? 1 : 0 } }) })
    }
  }
  return `${lines.join('\n')}\n`
}

/** A Codex `compacted` record, as Codex appends it after a local compaction. */
export function codexCompacted(summary: string): string {
  return `${JSON.stringify({ timestamp: '2026-12-02T11:00:00.000Z', type: 'compacted', payload: { message: summary } })}\n`
}

/** Gemini CLI session records (user / gemini with toolCalls), an earlier `<state_snapshot>` as the boundary. */
function geminiRecords(options: LogOptions): Array<Record<string, unknown>> {
  const turns = options.turns ?? 3
  const records: Array<Record<string, unknown>> = []
  let n = 0
  const stamp = () => new Date(Date.UTC(2026, 11, 2, 10, 0, ++n)).toISOString()
  records.push({ id: `m${n}`, timestamp: stamp(), type: 'user', content: [{ text: `Import the data with ${OLD_PATH}.` }] })
  records.push({ id: `m${n}`, timestamp: stamp(), type: 'gemini', content: 'Imported.' })
  if (options.boundary ?? true) records.push({ id: `m${n}`, timestamp: stamp(), type: 'user', content: [{ text: geminiSnapshot(`The user imported data with ${OLD_PATH}.`) }] })
  for (let turn = 0; turn <= turns; turn++) {
    const steps = script(turn)
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index]!
      if (step.role === 'user') records.push({ id: `m${n}`, timestamp: stamp(), type: 'user', content: [{ text: step.text }] })
      else if (step.role === 'call') {
        const result = steps[index + 1]!
        index++
        records.push({
          id: `m${n}`,
          timestamp: stamp(),
          type: 'gemini',
          content: 'Running it.',
          thoughts: [{ subject: 'Checking', description: 'run the command', timestamp: stamp() }],
          toolCalls: [
            {
              id: step.id,
              name: 'run_shell_command',
              args: { command: step.text },
              result: [{ functionResponse: { id: step.id, name: 'run_shell_command', response: { output: result.text } } }],
              status: result.error ? 'error' : 'success',
              timestamp: stamp(),
            },
          ],
        })
      }
    }
  }
  records.push({ id: `m${n}`, timestamp: stamp(), type: 'info', content: 'Compressing chat history.' })
  return records
}

/** A `<state_snapshot>` block as Gemini CLI's compression writes it. */
export function geminiSnapshot(body: string): string {
  return `<state_snapshot>\n  <overall_goal>${body}</overall_goal>\n</state_snapshot>`
}

/** A Gemini CLI session file as one JSON document. */
export function geminiSessionDocument(options: LogOptions = {}): string {
  return `${JSON.stringify({ sessionId: 'gemini-session-1', projectHash: 'abc123', startTime: '2026-12-02T10:00:00.000Z', lastUpdated: '2026-12-02T10:10:00.000Z', messages: geminiRecords(options) }, null, 2)}\n`
}

/** The same session as JSONL records (the newer file form), with a metadata record first. */
export function geminiSessionJsonl(options: LogOptions = {}): string {
  const head = JSON.stringify({ sessionId: 'gemini-session-1', projectHash: 'abc123', startTime: '2026-12-02T10:00:00.000Z' })
  return `${[head, ...geminiRecords(options).map((record) => JSON.stringify(record))].join('\n')}\n`
}

/** A JSONL line appending a user message holding a `<state_snapshot>` (what a compression leaves, when recorded). */
export function geminiSnapshotLine(body: string): string {
  return `${JSON.stringify({ id: 'snap-2', timestamp: '2026-12-02T11:00:00.000Z', type: 'user', content: [{ text: geminiSnapshot(body) }] })}\n`
}

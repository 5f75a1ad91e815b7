import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { scoreFormats } from '../registry.js'
import { sourceFromString } from '../source.js'
import { antigravityFormat } from './antigravity.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/antigravity/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name), lenient = false) => antigravityFormat.read(sourceFromString(name, text), { lenient })
const shape = (messages: ReadonlyArray<{ role: string; parts: ReadonlyArray<{ type: string }> }>) =>
  messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)

testTranscriptFormat({
  format: antigravityFormat,
  fixtures: [
    // A denied command, two calls in one step, a tool call the system refused (ERROR_MESSAGE), a truncated argument,
    // a user's own command, a background command and its SYSTEM_MESSAGE, an ephemeral reminder, a CHECKPOINT summary,
    // an interrupted stream, a USER_INPUT whose step_index goes back, a trailing blank line.
    { name: 'session.jsonl', text: fixture('session.jsonl'), expect: { messages: 17, toolCalls: 6, toolResults: 6, unpaired: 0 } },
    // The plainest shape: a request, two calls each executed by the next step, the answer.
    { name: 'write-files.jsonl', text: fixture('write-files.jsonl'), expect: { messages: 6, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('antigravity (Google Antigravity transcript.jsonl)', () => {
  it('reads steps in file order: planner responses as assistant messages, execution steps as their results', async () => {
    const transcript = await read('session.jsonl')
    expect(shape(transcript.messages)).toEqual([
      'user:text',
      'assistant:reasoning+text+tool-call',
      'tool:tool-result',
      'assistant:text+tool-call+tool-call',
      'tool:tool-result+tool-result',
      'assistant:tool-call',
      'tool:tool-result',
      'assistant:text+tool-call',
      'tool:tool-result',
      'user:text',
      'user:text',
      'assistant:text+tool-call',
      'tool:tool-result',
      'system:text',
      'user:summary',
      'assistant:reasoning+text',
      'system:text',
    ])
    // The user's text is what the model is given, <USER_REQUEST> wrapper and metadata included.
    expect(transcript.messages[0]!.parts[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^<USER_REQUEST>\nAdd a \/health endpoint/) })
    expect(transcript.messages[0]!.provenance).toEqual({ line: 1 })
    expect(transcript.messages[9]!.provenance).toEqual({ line: 13 })
  })

  it('gives calls stable ids step<N>-<k>, decodes JSON-string arguments, and pairs each call with the step that executes it', async () => {
    const transcript = await read('session.jsonl')
    const calls = transcript.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-call' ? [part] : [])))
    expect(calls.map((call) => `${call.id}:${call.name}`)).toEqual(['step2-0:run_command', 'step5-0:view_file', 'step5-1:grep_search', 'step8-0:view_file', 'step10-0:write_to_file', 'step14-0:run_command'])
    expect(calls[0]!.arguments).toEqual({ CommandLine: 'npm test', Cwd: '/home/dev/api', toolAction: 'Running tests', toolSummary: 'Test run' })
    expect(calls[4]!.arguments).toMatchObject({ TargetFile: '/home/dev/api/src/health.ts', Overwrite: true })
    const results = transcript.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part] : [])))
    expect(results.map((result) => `${result.callId}:${result.name}:${result.isError}`)).toEqual([
      'step2-0:run_command:true',
      'step5-0:view_file:false',
      'step5-1:grep_search:false',
      'step8-0:view_file:true',
      'step10-0:write_to_file:false',
      'step14-0:run_command:false',
    ])
    // A result is the step's content less the step's own Created At / Completed At lines.
    expect(results[0]!.content).toMatch(/^\t\tEncountered error in step execution: user denied permission for command\(npm test\)/)
    expect(results[1]!.content).toMatch(/^File Path: `file:\/\/\/home\/dev\/api\/src\/router.ts`\n/)
    expect(results[3]!.content).toMatch(/^Error invalid tool call: .*failed to read file: open \/home\/dev\/api\/.env.local/s)
    expect(results[5]!.content).toContain('Tool is running as a background task')
    expect(transcript.pairs.map((pair) => pair.id)).toEqual(calls.map((call) => call.id))
  })

  it('keeps an argument the export truncated: its decoded text and the truncation marker', async () => {
    const transcript = await read('session.jsonl')
    const write = transcript.messages[7]!.parts[1]!
    expect(write).toMatchObject({ type: 'tool-call', name: 'write_to_file' })
    const content = (write as { arguments: Record<string, unknown> }).arguments['CodeContent']
    expect(content).toBe('export function health(req, res) {\n  res.json({ status: "ok", db: "postgres://localhost:5433/app" })\n}\n// long comment th\n<truncated 2048 bytes>')
  })

  it("reads the user's own actions as user text, a CHECKPOINT as Antigravity's summary, system messages as system text", async () => {
    const transcript = await read('session.jsonl')
    expect(transcript.messages[10]!.parts[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^The USER performed the following action:\nCommand: psql -p 5432 app/) })
    expect(transcript.messages[14]!.parts[0]).toMatchObject({ type: 'summary', source: 'antigravity', text: expect.stringContaining('src/health.ts was written') })
    expect(transcript.messages[13]!.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('EADDRINUSE') })
    expect(transcript.messages[16]!.parts[0]).toMatchObject({ type: 'text', text: 'Error: The stream was interrupted. Please continue the task you were working on.' })
    // Ephemeral reminders are shown for one turn and not kept; steps with no content are markers. Both are counted.
    expect(JSON.stringify(transcript.messages.map((message) => message.parts))).not.toContain('planning_mode')
    expect(transcript.envelope).toMatchObject({ skipped: { EPHEMERAL_MESSAGE: 1, CONVERSATION_HISTORY: 1, KNOWLEDGE_ARTIFACTS: 1 } })
  })

  it('reports an execution step with no call to execute, and a call no step executed, as unpaired', async () => {
    const lines = fixture('write-files.jsonl').split('\n')
    // Drop the GENERIC step that executes list_permissions, and add a LIST_DIRECTORY step after the answer.
    const text = [...lines.slice(0, 3), ...lines.slice(4, 7), JSON.stringify({ step_index: 8, source: 'MODEL', type: 'LIST_DIRECTORY', status: 'DONE', created_at: '2026-07-01T09:08:00Z', content: 'Empty directory' }), ''].join('\n')
    const transcript = await read('write-files.jsonl', text)
    expect(transcript.unpaired.map((entry) => `${entry.kind}:${entry.id}`)).toEqual(['call:step2-0', 'result:step8'])
    expect(shape(transcript.messages).at(-1)).toBe('tool:tool-result')
  })

  it('reads a command step that says its command exited non-zero as an error result (a final re-test)', async () => {
    const step = (index: number, fields: Record<string, unknown>) => JSON.stringify({ step_index: index, source: 'MODEL', status: 'DONE', created_at: '2026-10-05T13:37:36Z', ...fields })
    const call = (index: number) => step(index, { type: 'PLANNER_RESPONSE', tool_calls: [{ name: 'run_command', args: { CommandLine: '"python app.py"' } }] })
    const ran = (index: number, code: number) => step(index, { type: 'GENERIC', content: `Created At: 2026-10-05T13:37:36+07:00\nCompleted At: 2026-10-05T13:37:43+07:00\n\nThe command exited with code ${code}.\nOutput:\nTraceback (most recent call last):\nUnicodeEncodeError: 'charmap' codec can't encode` })
    const text = [step(0, { source: 'USER_EXPLICIT', type: 'USER_INPUT', content: 'Run it.' }), call(1), ran(2, 1), call(3), ran(4, 0), ''].join('\n')
    const transcript = await read('run.jsonl', text)
    const results = transcript.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool-result')
    expect(results.map((part) => part.isError)).toEqual([true, false])
  })

  it('fails on a malformed line naming file:line:column and --lenient, and skips it with --lenient', async () => {
    const lines = fixture('write-files.jsonl').split('\n')
    const text = [...lines.slice(0, 4), '{"step_index": 4, "source": "MODEL", "type": "PLAN', ...lines.slice(4)].join('\n')
    await expect(read('write-files.jsonl', text)).rejects.toThrow(/^write-files\.jsonl:5:\d+: .*--lenient/)
    const transcript = await read('write-files.jsonl', text, true)
    expect(transcript.messages).toHaveLength(6)
    expect(transcript.warnings).toEqual([expect.stringMatching(/^write-files\.jsonl:5:\d+: .*line skipped$/)])
    // A skipped line that was a call's execution step (cut in the file itself, a final re-test): the call stays
    // unpaired, and the next execution step is not taken for its result.
    const cut = [...lines.slice(0, 3), lines[3]!.slice(0, 60), JSON.stringify({ step_index: 9, source: 'MODEL', type: 'GENERIC', status: 'DONE', created_at: '2026-07-01T09:09:00Z', content: 'Message sent' }), ...lines.slice(4)].join('\n')
    const unpaired = await read('write-files.jsonl', cut, true)
    expect(unpaired.unpaired.map((entry) => `${entry.kind}:${entry.id}`)).toEqual(['call:step2-0', 'result:step9'])
    // A JSON line that is no step (no "type" string) is malformed the same way.
    const notStep = [...lines.slice(0, 2), '{"step_index": 2}', ...lines.slice(2)].join('\n')
    await expect(read('write-files.jsonl', notStep)).rejects.toThrow(/^write-files\.jsonl:3: expected an Antigravity step/)
  })

  it('is detected on this shape only', () => {
    for (const name of ['session.jsonl', 'write-files.jsonl']) {
      const [best, second] = scoreFormats(fixture(name))
      expect(best!.name).toBe('antigravity')
      expect(best!.score).toBeGreaterThan(second!.score)
    }
    // A head whose first step is longer than the head (a pasted request) is still claimed by its opening keys.
    const long = JSON.stringify({ step_index: 0, source: 'USER_EXPLICIT', type: 'USER_INPUT', status: 'DONE', created_at: 'x', content: 'y'.repeat(200) })
    expect(antigravityFormat.detect(long.slice(0, 120))).toBeGreaterThan(0.5)
    // Records without step_index, source or status, or with other types' shapes, are not claimed.
    expect(antigravityFormat.detect('{"type":"USER_INPUT","content":"hi"}\n')).toBe(0)
    expect(antigravityFormat.detect('{"step_index":0,"type":"user","source":"x","status":"y"}\n')).toBe(0)
    expect(antigravityFormat.detect('{"role":"user","content":"hi"}\n')).toBe(0)
  })
})

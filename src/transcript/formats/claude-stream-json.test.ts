import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { scoreFormats } from '../registry.js'
import { sourceFromString } from '../source.js'
import { claudeStreamJsonFormat } from './claude-stream-json.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/claude-stream-json/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => claudeStreamJsonFormat.read(sourceFromString(name, text))
const shape = (messages: ReadonlyArray<{ role: string; parts: ReadonlyArray<{ type: string }> }>) =>
  messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)

testTranscriptFormat({
  format: claudeStreamJsonFormat,
  fixtures: [
    // init, one API message streamed as three records, a failing Bash result, a stream_event, a Task call whose
    // sub-agent's two messages carry parent_tool_use_id, the Task's result, the final answer, the result record.
    { name: 'tools-subagent.jsonl', text: fixture('tools-subagent.jsonl'), expect: { messages: 5, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    // A newer SDK's records (each with a `uuid`): a prompt, the answer, the result.
    { name: 'one-answer.jsonl', text: fixture('one-answer.jsonl'), expect: { messages: 2, toolCalls: 0, toolResults: 0, unpaired: 0 } },
  ],
})

describe('claude-stream-json (claude -p --output-format stream-json, Agent SDK messages)', () => {
  it('reads records of one message.id as one assistant message and pairs tool_use with tool_result by id', async () => {
    const transcript = await read('tools-subagent.jsonl')
    expect(shape(transcript.messages)).toEqual(['assistant:reasoning+text+tool-call', 'tool:tool-result', 'assistant:tool-call', 'tool:tool-result', 'assistant:text'])
    expect(transcript.messages[0]!.provenance).toEqual({ line: 2, endLine: 4 })
    expect(transcript.messages[1]!.parts[0]).toMatchObject({ callId: 'toolu_01Bash', isError: true, content: 'E   ConnectionError: retry limit 5 exceeded' })
    expect(transcript.pairs).toHaveLength(2)
  })

  it('leaves sub-agent messages out of the main thread, counted by parent call with one warning', async () => {
    const transcript = await read('tools-subagent.jsonl')
    expect(JSON.stringify(transcript.messages.map((message) => message.parts))).not.toContain('toolu_sub_grep')
    expect(transcript.envelope).toMatchObject({ subagentMessages: { toolu_01Task: 2 } })
    expect(transcript.warnings).toEqual([expect.stringMatching(/^tools-subagent\.jsonl: 2 sub-agent messages \(parent_tool_use_id toolu_01Task\) not read/)])
  })

  it('does not read the result record’s answer twice, and reads it when no assistant text precedes it', async () => {
    const transcript = await read('one-answer.jsonl')
    expect(transcript.messages.map((message) => message.parts)).toEqual([[{ type: 'text', text: 'What is the capital of England? One word.' }], [{ type: 'text', text: 'London' }]])
    expect(transcript.envelope).toMatchObject({ result: { subtype: 'success', result: 'London' }, init: { model: 'claude-opus-4-1' }, skipped: { 'system:init': 1, result: 1 } })
    const withoutAnswer = fixture('one-answer.jsonl').split('\n').filter((line) => !line.includes('"msg_02X"')).join('\n')
    const alone = await read('one-answer.jsonl', withoutAnswer)
    expect(shape(alone.messages)).toEqual(['user:text', 'assistant:text'])
  })

  it('is detected over claude-code and claude-agent-events on this shape only', () => {
    for (const name of ['tools-subagent.jsonl', 'one-answer.jsonl']) {
      const [best, second] = scoreFormats(fixture(name))
      expect(best!.name).toBe('claude-stream-json')
      expect(best!.score).toBeGreaterThan(second!.score)
    }
    // A Claude Code session log (camelCase sessionId, parentUuid) is not claimed.
    const log = JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', session_id: 's', message: { role: 'user', content: 'hi' } })
    expect(claudeStreamJsonFormat.detect(log)).toBe(0)
    expect(claudeStreamJsonFormat.detect('{"type":"assistant","message":{"content":[]}}')).toBe(0)
  })
})

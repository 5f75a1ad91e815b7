import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { sweAgentFormat } from './swe-agent.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/swe-agent/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => sweAgentFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: sweAgentFormat,
  fixtures: [
    { name: 'text-action.traj', text: fixture('text-action.traj'), expect: { messages: 12, toolCalls: 5, toolResults: 4, unpaired: 1 } },
    { name: 'function-calling.traj', text: fixture('function-calling.traj'), expect: { messages: 10, toolCalls: 4, toolResults: 4, unpaired: 0 } },
    // Issue 11: a trajectory holding only `history` was not detected.
    { name: 'history-only.traj', text: fixture('history-only.traj'), expect: { messages: 6, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('swe-agent text-action layout', () => {
  it('models each action as a step-N tool call and the next user message as its result', async () => {
    const transcript = await read('text-action.traj')
    expect(transcript.messages.map((message) => message.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    expect(transcript.messages[3]).toMatchObject({
      provenance: { pointer: '/history/3' },
      parts: [
        { type: 'text', text: "Let's find where RATE_LIMIT is read." },
        { type: 'tool-call', id: 'step-1', name: 'search_dir', arguments: { command: 'search_dir "RATE_LIMIT"\n' } },
      ],
    })
    expect(transcript.messages[4]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'step-1', isError: false })
    // An empty thought means the content was only the action: no duplicate text part.
    expect(transcript.messages[9]!.parts.map((part) => part.type)).toEqual(['tool-call'])
    // The final submit has no observation in history.
    expect(transcript.unpaired).toEqual([{ kind: 'call', id: 'step-5', message: 11, part: 1 }])
  })

  it('keeps demonstrations as user messages that are never observations', async () => {
    const transcript = await read('text-action.traj')
    expect(transcript.messages[1]).toMatchObject({ role: 'user', parts: [{ type: 'text' }] })
    expect(transcript.envelope).toMatchObject({ demos: 1, info: { exit_status: 'submitted' } })
    expect(Object.keys(transcript.envelope as object)).not.toContain('history')
  })
})

describe('swe-agent function-calling layout', () => {
  it('reads OpenAI tool calls and role:"tool" observations, pairing reused ids in order', async () => {
    const transcript = await read('function-calling.traj')
    expect(transcript.messages[4]!.parts[1]).toEqual({
      type: 'tool-call',
      id: 'call_w3V11Dzv',
      name: 'edit',
      arguments: { search: 'return int(value.total_seconds() / base_unit.total_seconds())', replace: 'return int(round(value.total_seconds() / base_unit.total_seconds()))' },
    })
    expect(transcript.pairs.map((pair) => [pair.id, pair.call.message, pair.result.message])).toEqual([
      ['call_9diWc1DYm4', 2, 3],
      ['call_w3V11Dzv', 4, 5],
      ['call_9diWc1DYm4', 6, 7],
      ['call_submit', 8, 9],
    ])
  })

  it('names the pointer and expectation of a bad field', async () => {
    await expect(read('bad.traj', '{"trajectory": [], "history": [{"role": "robot", "content": "x"}]}')).rejects.toThrow(
      'bad.traj: /history/0/role: expected "system", "user", "assistant" or "tool", got the string "robot"',
    )
    await expect(read('bad.traj', '{"trajectory": [], "history": [{"role": "tool", "content": "x"}]}')).rejects.toThrow(
      'bad.traj: /history/0/tool_call_ids: expected an array of tool call ids, got nothing (the field is missing)',
    )
    await expect(read('bad.traj', '{"trajectory": []}')).rejects.toThrow('bad.traj: /history: expected an array, got nothing (the field is missing)')
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { detectFormat } from '../registry.js'
import { sourceFromString } from '../source.js'
import { lettaFormat } from './letta.js'

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/letta/${name}`, import.meta.url), 'utf8')
const read = (name: string, text = fixture(name)) => lettaFormat.read(sourceFromString(name, text))
const shape = (messages: ReadonlyArray<{ role: string; parts: ReadonlyArray<{ type: string }> }>) =>
  messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)

testTranscriptFormat({
  format: lettaFormat,
  fixtures: [
    // Letta Code's layout: approvals (a request, an answer Letta repeats in the tool message, a denial) and a summary.
    { name: 'agent.af', text: fixture('agent.af'), expect: { messages: 8, toolCalls: 3, toolResults: 3, unpaired: 0 } },
    // Letta 0.6's single agent object: send_message calls, a tool message holding its result as text, an older summary.
    { name: 'single-agent.af', text: fixture('single-agent.af'), expect: { messages: 5, toolCalls: 1, toolResults: 1, unpaired: 0 } },
  ],
})

describe('letta agent files', () => {
  it('reads approvals as calls and results once each, a denial as an error, and the system_alert as a summary', async () => {
    const transcript = await read('agent.af')
    expect(shape(transcript.messages)).toEqual([
      'system:text',
      'user:text+text',
      'assistant:reasoning+text+tool-call+tool-call',
      'user:summary',
      'tool:tool-result+tool-result',
      'assistant:text+tool-call',
      'tool:tool-result',
      'assistant:reasoning+text',
    ])
    expect(transcript.messages[3]!).toMatchObject({ provenance: { pointer: '/agents/0/messages/3' } })
    const summary = transcript.messages[3]!.parts[0]!
    expect(summary).toMatchObject({ type: 'summary', source: 'letta' })
    expect(summary.type === 'summary' && summary.text).toMatch(/^Note: prior messages have been hidden .*\n.*\n The user asked why the nightly export fails\. The export script writes to \/var\/tmp, which is full\.$/s)
    expect(transcript.messages[4]!.parts[0]).toEqual({ type: 'tool-result', callId: 'toolu_01', content: "OSError: [Errno 28] No space left on device: '/var/tmp/export/2026-01-21.csv'", isError: true })
    expect(transcript.messages[6]!.parts).toEqual([{ type: 'tool-result', callId: 'toolu_03', content: 'denied: move the destination instead', isError: true }])
    expect(transcript.messages[2]!.parts[2]).toEqual({ type: 'tool-call', id: 'toolu_01', name: 'Bash', arguments: { command: './export.sh --dest /var/tmp/export' } })
  })

  it('reads the older single-agent layout, its tool message by tool_call_id, and its summary', async () => {
    const transcript = await read('single-agent.af')
    expect(shape(transcript.messages)).toEqual(['system:text', 'user:summary', 'user:text', 'assistant:text+tool-call', 'tool:tool-result'])
    expect(transcript.messages[1]!.parts[0]).toMatchObject({ type: 'summary', source: 'letta', text: expect.stringContaining('renew the domain example.org before 2025-05-01') })
    expect(transcript.messages[4]!.parts[0]).toMatchObject({ callId: 'call_Q1x', name: 'send_message', isError: false })
  })

  it('is detected by its agent keys, never by a chat object', () => {
    // G2/G3: .af files got "JSON that no format claims".
    expect(detectFormat(fixture('agent.af'), 'a.af').name).toBe('letta')
    expect(detectFormat(fixture('single-agent.af'), 's.af').name).toBe('letta')
    expect(lettaFormat.detect('{"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4o"}')).toBe(0)
    expect(lettaFormat.detect('{"agents": [{"name": "x", "messages": []}]}')).toBe(0)
    // A head cut inside the first agent still shows its keys.
    expect(lettaFormat.detect('{"agents": [{"name": "x", "agent_type": "letta_v1_agent", "llm_config": {"mod')).toBe(0.95)
    // A system prompt longer than the head: `memory_blocks`, which Letta writes second, marks the agent.
    expect(lettaFormat.detect(`{"agents": [{"name": "x", "memory_blocks": [], "system": "${'x'.repeat(70_000)}`.slice(0, 65_536))).toBe(0.95)
  })

  it('warns that only the first of several agents is read, and names a bad role', async () => {
    const document = JSON.parse(fixture('agent.af')) as { agents: Array<Record<string, unknown>> }
    document.agents.push({ ...document.agents[0]!, id: 'agent-1' })
    const two = await read('two.af', JSON.stringify(document))
    expect(two.messages).toHaveLength(8)
    expect(two.warnings).toEqual(['two.af: /agents: 2 agents; the first one\'s messages are read, 1 other agent\'s messages are not'])
    const bad = fixture('agent.af').replace('"role": "assistant"', '"role": "robot"')
    await expect(read('bad.af', bad)).rejects.toThrow(/^bad\.af: \/agents\/0\/messages\/8\/role: expected "system", "user", "assistant", "tool", "approval" or "summary", got the string "robot"$/)
  })
})

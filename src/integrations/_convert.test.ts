import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import type { AgentInputItem } from '@openai/agents'
import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { fromAgentItem, fromAiSdkMessage, fromLangChainMessage, markSummary } from './_convert.js'

const PREFIX = 'Summary so far:'
const BLOCK = '<floorguard-state v="2" range="0-4" tokens="99">\n## errors\n- [tool #2] ENOENT: /tmp/x\n</floorguard-state>'

describe('AI SDK messages', () => {
  it('reads every part type, keeps the original object as source, and never touches it', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'read a.txt' }, { type: 'image', image: new Uint8Array([1, 2]) }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should read it' },
          { type: 'text', text: 'reading' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'error-text', value: 'ENOENT: a.txt' } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'ls', output: { type: 'json', value: { files: ['b'] } } },
        ],
      },
    ]
    const frozen = JSON.stringify(messages, (_key, value: unknown) => (value instanceof Uint8Array ? [...value] : value))
    const converted = messages.map((message) => fromAiSdkMessage(message, PREFIX))
    expect(converted.map((message) => message.source)).toEqual(messages)
    converted.forEach((message, index) => expect(message.source).toBe(messages[index]))
    expect(converted.map(({ role, parts }) => ({ role, parts }))).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'be brief' }] },
      { role: 'user', parts: [{ type: 'text', text: 'read a.txt' }, { type: 'text', text: '[image]' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'I should read it' },
          { type: 'text', text: 'reading' },
          { type: 'tool-call', id: 'c1', name: 'read', arguments: { path: 'a.txt' } },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'c1', name: 'read', content: 'ENOENT: a.txt', isError: true },
          { type: 'tool-result', callId: 'c2', name: 'ls', content: '{"files":["b"]}', isError: false },
        ],
      },
    ])
    expect(JSON.stringify(messages, (_key, value: unknown) => (value instanceof Uint8Array ? [...value] : value))).toBe(frozen)
  })

  it('reads a floorguard summary by identity or by its prefix and state block, and nothing else', () => {
    const written = markSummary({ role: 'user' as const, content: [{ type: 'text' as const, text: 'anything' }] }, 'the summary')
    expect(fromAiSdkMessage(written, PREFIX).parts).toEqual([{ type: 'summary', text: 'the summary', source: 'floorguard' }])
    const rebuilt: ModelMessage = { role: 'user', content: [{ type: 'text', text: `${PREFIX}\n\n${BLOCK}\nnarrative` }] }
    expect(fromAiSdkMessage(rebuilt, PREFIX).parts).toEqual([{ type: 'summary', text: `${BLOCK}\nnarrative`, source: 'floorguard' }])
    // The prefix without a state block, or a block without the prefix, is user text.
    for (const text of [`${PREFIX}\n\nplain words`, `${BLOCK}`]) {
      expect(fromAiSdkMessage({ role: 'user', content: [{ type: 'text', text }] }, PREFIX).parts).toEqual([{ type: 'text', text }])
    }
  })
})

describe('LangChain messages', () => {
  it('maps human, ai (content then tool_calls), tool (status error) and system messages', () => {
    const messages = [
      new SystemMessage('rules'),
      new HumanMessage('run the tests'),
      new AIMessage({ content: 'running', tool_calls: [{ id: 't1', name: 'bash', args: { cmd: 'npm test' } }] }),
      new ToolMessage({ content: 'Error: 3 failed', tool_call_id: 't1', status: 'error' }),
      new AIMessage({ content: [{ type: 'text', text: 'fixed' }] }),
    ]
    const converted = messages.map((message) => fromLangChainMessage(message, PREFIX))
    converted.forEach((message, index) => expect(message.source).toBe(messages[index]))
    expect(converted.map(({ role, parts }) => ({ role, parts }))).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'rules' }] },
      { role: 'user', parts: [{ type: 'text', text: 'run the tests' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'running' }, { type: 'tool-call', id: 't1', name: 'bash', arguments: { cmd: 'npm test' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 't1', content: 'Error: 3 failed', isError: true }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'fixed' }] },
    ])
  })

  it("reads langchain's own summary as a summary part, and ours by its prefix and block", () => {
    const builtIn = new HumanMessage({ content: 'Here is a summary of the conversation to date:\n\nwe did things', additional_kwargs: { lc_source: 'summarization' } })
    expect(fromLangChainMessage(builtIn, PREFIX).parts).toEqual([{ type: 'summary', text: builtIn.content, source: 'langchain' }])
    const ours = new HumanMessage({ content: `${PREFIX}\n\n${BLOCK}` })
    expect(fromLangChainMessage(ours, PREFIX).parts).toEqual([{ type: 'summary', text: BLOCK, source: 'floorguard' }])
  })
})

describe('OpenAI Agents SDK items', () => {
  it('maps messages, function calls and results (arguments parsed), reasoning and compaction items', () => {
    const items = [
      { role: 'user', content: 'deploy' },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'deploying' }] },
      { type: 'function_call', callId: 'f1', name: 'deploy', arguments: '{"env":"prod"}' },
      { type: 'function_call_result', callId: 'f1', name: 'deploy', status: 'completed', output: { type: 'text', text: 'OSError: [Errno 28]' } },
      { type: 'reasoning', content: [{ type: 'input_text', text: 'disk full' }] },
      { type: 'compaction', encrypted_content: 'gAAAA' },
    ] as AgentInputItem[]
    const converted = items.map((item) => fromAgentItem(item, PREFIX))
    converted.forEach((message, index) => expect(message.source).toBe(items[index]))
    expect(converted.map(({ role, parts }) => ({ role, parts }))).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'deploy' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'deploying' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'f1', name: 'deploy', arguments: { env: 'prod' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'f1', name: 'deploy', content: 'OSError: [Errno 28]', isError: false }] },
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'disk full' }] },
      { role: 'user', parts: [{ type: 'summary', text: '[encrypted compaction summary]', source: 'openai-responses' }] },
    ])
  })
})

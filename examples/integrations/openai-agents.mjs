// floorguard + the OpenAI Agents SDK: a session that compacts its stored history locally after each turn, like
// OpenAIResponsesCompactionSession but verified (the summary keeps the compacted turns' state verbatim) and offline.
//
//   npm run build && node examples/integrations/openai-agents.mjs
//
// Offline, with a stub model. For a real one, drop `model` (the SDK's default OpenAI model) and `budget`.
import { Agent, MemorySession, Usage, run, setTracingDisabled } from '@openai/agents'
import { FloorguardCompactionSession } from 'floorguard/openai-agents'

setTracingDisabled(true)

const items = [{ role: 'user', content: 'Always validate every upload path against ^[a-z0-9/_-]+$ before writing.' }]
for (let turn = 1; turn <= 30; turn++) {
  const output = turn === 2 ? "OSError: [Errno 28] No space left on device: '/var/tmp/upload.bin'" : `step ${turn} ok\n${'log line\n'.repeat(40)}`
  items.push(
    { type: 'function_call', callId: `c${turn}`, name: 'bash', arguments: JSON.stringify({ command: `python upload.py --step ${turn}` }) },
    { type: 'function_call_result', callId: `c${turn}`, name: 'bash', status: 'completed', output },
    { role: 'user', content: `Step ${turn + 1}, please.` },
  )
}

const model = {
  async getResponse(request) {
    const text = `(the model got ${Array.isArray(request.input) ? request.input.length : 1} items)`
    return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }] }
  },
  async *getStreamedResponse() {},
}

const session = new FloorguardCompactionSession({
  underlyingSession: new MemorySession({ initialItems: items }), // any Session: the history lives there
  budget: 4_000, // tokens of context; compaction starts at 85% of it
  slot: 1_000, // tokens the summary may take
  onEvent: (event) => console.log(event.type, 'kind' in event ? event.kind : ''),
  onSignal: (signal) => console.warn(`not compacted: ${signal.reason}`), // the history stays as it is
})
const agent = new Agent({ name: 'coder', instructions: 'You are a coding agent.', model })

console.log((await run(agent, 'Add the retry logic.', { session })).finalOutput) // compacted after this turn
console.log((await run(agent, 'Run the tests.', { session })).finalOutput) // sent the compacted history

// floorguard + LangChain.js v1: a drop-in for summarizationMiddleware whose summaries are verified to keep the
// compacted turns' state verbatim; a summary that cannot be verified is never used.
//
//   npm run build && node examples/integrations/langchain.mjs
//
// Offline, with LangChain's fake chat model. For real ones: `model: 'openai:gpt-4o'` in createAgent, and
// `model: 'openai:gpt-4o-mini'` in the middleware to summarize with a model instead of floorguard's ledger.
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent } from 'langchain'
import { compactionMiddleware } from 'floorguard/langchain'

const messages = [new HumanMessage('Always validate every upload path against ^[a-z0-9/_-]+$ before writing.')]
for (let turn = 1; turn <= 30; turn++) {
  const output = turn === 2 ? "OSError: [Errno 28] No space left on device: '/var/tmp/upload.bin'" : `step ${turn} ok\n${'log line\n'.repeat(40)}`
  messages.push(
    new AIMessage({ content: '', tool_calls: [{ id: `c${turn}`, name: 'bash', args: { command: `python upload.py --step ${turn}` } }] }),
    new ToolMessage({ content: output, tool_call_id: `c${turn}` }),
    new HumanMessage(`Step ${turn + 1}, please.`),
  )
}

const model = fakeModel().respond((sent) => new AIMessage(`(the model got ${sent.length} messages)`))
const agent = createAgent({
  model,
  middleware: [
    compactionMiddleware({
      trigger: { tokens: 3_000 }, // as summarizationMiddleware: when to compact (countTokensApproximately)
      keep: { messages: 12 }, // what stays raw; a tool call and its result are never separated
      slot: 1_000, // tokens the summary may take
      onEvent: (event) => console.log(event.type, 'kind' in event ? event.kind : ''),
      onSignal: (signal) => console.warn(`not compacted: ${signal.reason}`), // no update: the messages stay as they are
    }),
  ],
})

const result = await agent.invoke({ messages })
console.log(result.messages.at(-1).content, `instead of ${messages.length}`)
console.log(result.messages[0].content.split('\n').slice(0, 6).join('\n'))

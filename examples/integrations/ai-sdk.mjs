// floorguard + the Vercel AI SDK: every call's prompt is compacted at the high-water mark, and every summary is
// verified to hold the compacted turns' state (errors, paths, pins, constraints) verbatim.
//
//   npm run build && node examples/integrations/ai-sdk.mjs
//
// Offline, with the AI SDK's mock model. For a real one: `import { openai } from '@ai-sdk/openai'`, use
// `openai('gpt-4o')` as `model`, and drop `budget` to the default (128,000 tokens).
import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { compactionMiddleware } from 'floorguard/ai-sdk'

const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => ({
    content: [{ type: 'text', text: `(the model got ${prompt.length} messages)` }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
    warnings: [],
  }),
})

// A long session: the early turns hold state a later turn needs.
const messages = [{ role: 'user', content: 'Always validate every upload path against ^[a-z0-9/_-]+$ before writing.' }]
for (let turn = 1; turn <= 30; turn++) {
  const output = turn === 2 ? "OSError: [Errno 28] No space left on device: '/var/tmp/upload.bin'" : `step ${turn} ok\n${'log line\n'.repeat(40)}`
  messages.push(
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'bash', input: { command: `python upload.py --step ${turn}` } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'bash', output: { type: 'text', value: output } }] },
    { role: 'user', content: `Step ${turn + 1}, please.` },
  )
}

const wrapped = wrapLanguageModel({
  model,
  middleware: compactionMiddleware({
    budget: 4_000, // tokens of context; compaction starts at 85% of it
    slot: 1_000, // tokens the summary may take
    onEvent: (event) => console.log(`${event.type}${'kind' in event ? ` ${event.kind}` : ''}${'contextTokensAfter' in event ? `: ${event.contextTokensBefore} -> ${event.contextTokensAfter} tokens` : ''}`),
    onSignal: (signal) => console.warn(`not compacted: ${signal.reason}`), // the call still goes ahead, uncompacted
  }),
})

const { text } = await generateText({ model: wrapped, system: 'You are a coding agent.', messages })
console.log(text, `instead of ${messages.length + 1}`)

import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { MockLanguageModelV3 } from 'ai/test'
import { parseStateBlock } from '../../state-block/index.js'

/** The system and user text of a call, joined. */
export function promptText(options: LanguageModelV3CallOptions): { system: string; user: string } {
  let system = ''
  let user = ''
  for (const message of options.prompt) {
    if (message.role === 'system') system += message.content
    else if (message.role === 'user') for (const part of message.content) if (part.type === 'text') user += part.text
  }
  return { system, user }
}

/** The state block the prompt asks the model to copy. */
export function stateBlockOf(user: string): string {
  const block = parseStateBlock(user)
  if (!block) throw new Error('the prompt has no parseable state block')
  return user.slice(block.start, block.end)
}

/** A generate result carrying `text`. */
export function textResult(text: string): LanguageModelV3GenerateResult {
  return {
    content: text === '' ? [] : [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    },
    warnings: [],
  }
}

/** A mock model answering with `respond(system, user, options)`. */
export function mockModel(respond: (prompt: { system: string; user: string }, options: LanguageModelV3CallOptions) => string | Promise<string>): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'mock-provider',
    modelId: 'mock-model',
    doGenerate: async (options) => textResult(await respond(promptText(options), options)),
  })
}

/** A faithful model: copies the state block, adds one sentence. */
export function faithfulModel(): MockLanguageModelV3 {
  return mockModel(({ user }) => `${stateBlockOf(user)}\n\nThe agent worked through the task.`)
}

import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import { createSummarizer } from './index.js'
import { ollamaBaseUrl, resolveAiModel } from './ai-sdk-provider.js'

const modelOf = (value: unknown): { provider: string; modelId: string } => value as { provider: string; modelId: string }

describe('resolveAiModel', () => {
  it('builds hosted models from the installed provider packages (no request is made)', async () => {
    expect(modelOf(await resolveAiModel({ spec: 'openai:gpt-4o-mini' })).modelId).toBe('gpt-4o-mini')
    expect(modelOf(await resolveAiModel({ spec: 'anthropic:claude-sonnet-4-5' })).provider).toMatch(/^anthropic/)
  })

  it('keeps colons in the model id and reads the Ollama / compatible base URLs from env', async () => {
    const ollama = modelOf(await resolveAiModel({ spec: 'ollama:llama3.1:8b', env: {} }))
    expect(ollama).toMatchObject({ modelId: 'llama3.1:8b' })
    expect(ollama.provider).toMatch(/^ollama/)
    const local = modelOf(await resolveAiModel({ spec: 'openai-compatible:qwen', env: { OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:8080/v1' } }))
    expect(local.modelId).toBe('qwen')
    expect(ollamaBaseUrl({})).toBe('http://localhost:11434/v1')
    expect(ollamaBaseUrl({ OLLAMA_HOST: '10.0.0.2:11434' })).toBe('http://10.0.0.2:11434/v1')
    expect(ollamaBaseUrl({ OLLAMA_BASE_URL: 'https://gpu.example/v1', OLLAMA_HOST: 'x' })).toBe('https://gpu.example/v1')
  })

  it('fails clearly: unknown provider, no model id, missing package, missing base URL', async () => {
    await expect(resolveAiModel({ spec: 'mistral:large' })).rejects.toThrow('unknown AI provider "mistral": expected one of openai, anthropic, google, ollama, openai-compatible')
    await expect(resolveAiModel({ spec: 'openai:' })).rejects.toThrow('expected ai:openai:MODEL, got no model id')
    const missing = await resolveAiModel({ spec: 'google:gemini-2.5-flash', importModule: () => Promise.reject(new Error('Cannot find package')) }).catch((error: unknown) => error)
    expect(FloorguardError.is(missing) && missing.code).toBe('missing-dependency')
    expect((missing as Error).message).toBe('ai:google needs @ai-sdk/google: run `npm i ai @ai-sdk/google`')
    await expect(resolveAiModel({ spec: 'openai-compatible:qwen', env: {} })).rejects.toThrow(/needs OPENAI_COMPATIBLE_BASE_URL/)
  })
})

describe('API keys (issue 11: a missing OPENAI_API_KEY made three attempts)', () => {
  it.each([
    ['openai', 'OPENAI_API_KEY'],
    ['anthropic', 'ANTHROPIC_API_KEY'],
    ['google', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  ])('ai:%s needs %s in the environment it is given, before any import or request', async (provider, variable) => {
    let imported = false
    const importModule = () => {
      imported = true
      return Promise.reject(new Error('not reached'))
    }
    const error = await resolveAiModel({ spec: `${provider}:m`, env: { [variable]: '' }, importModule }).catch((caught: unknown) => caught)
    expect(FloorguardError.is(error) && error.code).toBe('invalid-argument')
    expect((error as Error).message).toBe(`ai:${provider} needs ${variable}: set it in the environment (no request was made)`)
    expect(imported).toBe(false)
    await expect(createSummarizer(`ai:${provider}:m`, { env: {} })).rejects.toThrow(`needs ${variable}`)
  })

  it('a key that is there passes, and local providers need none', async () => {
    expect(modelOf(await resolveAiModel({ spec: 'openai:gpt-4o-mini', env: { OPENAI_API_KEY: 'sk-test' } })).modelId).toBe('gpt-4o-mini')
    expect(modelOf(await resolveAiModel({ spec: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'sk-test' } })).provider).toMatch(/^anthropic/)
    expect(modelOf(await resolveAiModel({ spec: 'ollama:llama3.1:8b', env: {} })).modelId).toBe('llama3.1:8b')
  })
})

describe('createSummarizer', () => {
  it('parses ledger, ai:PROVIDER:MODEL and cmd:COMMAND', async () => {
    expect((await createSummarizer('ledger')).name).toBe('ledger')
    expect((await createSummarizer('ai:openai:gpt-4o-mini')).name).toBe('ai:openai:gpt-4o-mini')
    expect((await createSummarizer("cmd:ollama run x | sed 's/a:b//'")).name).toBe('cmd')
  })

  it('rejects unknown kinds and empty arguments with the expected forms', async () => {
    await expect(createSummarizer('gpt')).rejects.toThrow('unknown summarizer "gpt": expected ledger, ai:PROVIDER:MODEL or cmd:COMMAND')
    await expect(createSummarizer('cmd:')).rejects.toThrow(/expected cmd:'COMMAND'/)
    await expect(createSummarizer('ledger:x')).rejects.toThrow(/takes no argument/)
  })
})

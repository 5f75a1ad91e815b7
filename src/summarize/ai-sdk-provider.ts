import type { LanguageModel } from 'ai'
import { FloorguardError } from '../errors.js'

/** Environment variables a provider reads (a plain record, so tests and the CLI pass their own). */
export type ProviderEnv = Readonly<Record<string, string | undefined>>

interface ProviderEntry {
  /** npm package that implements the provider. */
  readonly packageName: string
  /** Variables documented for `--help` and the README. */
  readonly env: readonly string[]
  /** The variable holding the API key, when the provider cannot run without one. */
  readonly apiKeyEnv?: string
  create(module: Record<string, unknown>, modelId: string, env: ProviderEnv): LanguageModel
}

type ModelFactory = (modelId: string) => LanguageModel

function providerInstance(module: Record<string, unknown>, exportName: string, packageName: string): ModelFactory {
  const instance = module[exportName]
  if (typeof instance !== 'function') {
    throw new FloorguardError('missing-dependency', `${packageName} does not export ${exportName}(): install a version for ai 6 (\`npm i ${packageName}@latest\`)`)
  }
  return instance as ModelFactory
}

function compatible(module: Record<string, unknown>, name: string, baseURL: string, apiKey: string | undefined, modelId: string): LanguageModel {
  const create = module.createOpenAICompatible
  if (typeof create !== 'function') {
    throw new FloorguardError('missing-dependency', '@ai-sdk/openai-compatible does not export createOpenAICompatible(): run `npm i @ai-sdk/openai-compatible@latest`')
  }
  const provider = (create as (settings: { name: string; baseURL: string; apiKey?: string }) => ModelFactory)({
    name,
    baseURL,
    ...(apiKey ? { apiKey } : {}),
  })
  return provider(modelId)
}

/**
 * Providers of `--summarizer ai:PROVIDER:MODEL`. The hosted ones read their package's own variables
 * (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY`) when the first request is made;
 * {@link resolveAiModel} checks, when given the environment, that the key is there before any request.
 */
export const AI_PROVIDERS = {
  openai: {
    packageName: '@ai-sdk/openai',
    apiKeyEnv: 'OPENAI_API_KEY',
    env: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
    create: (module, modelId) => providerInstance(module, 'openai', '@ai-sdk/openai')(modelId),
  },
  anthropic: {
    packageName: '@ai-sdk/anthropic',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
    create: (module, modelId) => providerInstance(module, 'anthropic', '@ai-sdk/anthropic')(modelId),
  },
  google: {
    packageName: '@ai-sdk/google',
    apiKeyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY',
    env: ['GOOGLE_GENERATIVE_AI_API_KEY'],
    create: (module, modelId) => providerInstance(module, 'google', '@ai-sdk/google')(modelId),
  },
  ollama: {
    packageName: '@ai-sdk/openai-compatible',
    env: ['OLLAMA_BASE_URL', 'OLLAMA_HOST'],
    create: (module, modelId, env) => compatible(module, 'ollama', ollamaBaseUrl(env), undefined, modelId),
  },
  'openai-compatible': {
    packageName: '@ai-sdk/openai-compatible',
    env: ['OPENAI_COMPATIBLE_BASE_URL', 'OPENAI_COMPATIBLE_API_KEY'],
    create: (module, modelId, env) => {
      const baseURL = env.OPENAI_COMPATIBLE_BASE_URL
      if (!baseURL) {
        throw new FloorguardError('invalid-argument', 'ai:openai-compatible needs OPENAI_COMPATIBLE_BASE_URL (e.g. http://localhost:8080/v1) and, if the server wants one, OPENAI_COMPATIBLE_API_KEY')
      }
      return compatible(module, 'openai-compatible', baseURL, env.OPENAI_COMPATIBLE_API_KEY, modelId)
    },
  },
} as const satisfies Record<string, ProviderEntry>

/** A provider name of `ai:PROVIDER:MODEL`. */
export type AiProviderName = keyof typeof AI_PROVIDERS

/** Ollama's OpenAI-compatible endpoint: OLLAMA_BASE_URL, else http://OLLAMA_HOST/v1, else http://localhost:11434/v1. */
export function ollamaBaseUrl(env: ProviderEnv): string {
  if (env.OLLAMA_BASE_URL) return env.OLLAMA_BASE_URL
  const host = env.OLLAMA_HOST
  if (host) return `${/^https?:\/\//.test(host) ? host : `http://${host}`}/v1`
  return 'http://localhost:11434/v1'
}

/** Options of {@link resolveAiModel}. */
export interface ResolveAiModelOptions {
  /** `PROVIDER:MODEL`, e.g. `openai:gpt-4o-mini`, `ollama:llama3.1:8b` (the model id may contain colons). */
  readonly spec: string
  /**
   * The environment the provider will run in: base URLs and keys of the OpenAI-compatible providers, and where a
   * hosted provider's API key must be (checked here, so a missing key is one error before any request; hosted
   * providers still read their key from the process). Without it the key is not checked.
   * @default {} (keys not checked)
   */
  readonly env?: ProviderEnv
  /**
   * Imports a provider package (tests pass a fake).
   * @default dynamic `import()`
   */
  readonly importModule?: (specifier: string) => Promise<Record<string, unknown>>
}

/** Resolves `PROVIDER:MODEL` to an AI SDK model, importing the provider package lazily; a missing API key throws first. */
export async function resolveAiModel(options: ResolveAiModelOptions): Promise<LanguageModel> {
  const colon = options.spec.indexOf(':')
  const providerName = colon === -1 ? options.spec : options.spec.slice(0, colon)
  const modelId = colon === -1 ? '' : options.spec.slice(colon + 1)
  if (!Object.hasOwn(AI_PROVIDERS, providerName)) {
    throw new FloorguardError('unknown-name', `unknown AI provider ${JSON.stringify(providerName)}: expected one of ${Object.keys(AI_PROVIDERS).join(', ')} (as ai:PROVIDER:MODEL)`)
  }
  if (modelId === '') throw new FloorguardError('invalid-argument', `expected ai:${providerName}:MODEL, got no model id`)
  const entry: ProviderEntry = AI_PROVIDERS[providerName as AiProviderName]
  if (options.env && entry.apiKeyEnv && !options.env[entry.apiKeyEnv]) {
    throw new FloorguardError('invalid-argument', `ai:${providerName} needs ${entry.apiKeyEnv}: set it in the environment (no request was made)`)
  }
  const importModule = options.importModule ?? ((specifier: string) => import(specifier) as Promise<Record<string, unknown>>)
  let module: Record<string, unknown>
  try {
    module = await importModule(entry.packageName)
  } catch (error) {
    throw new FloorguardError('missing-dependency', `ai:${providerName} needs ${entry.packageName}: run \`npm i ai ${entry.packageName}\``, { cause: error })
  }
  return entry.create(module, modelId, options.env ?? {})
}

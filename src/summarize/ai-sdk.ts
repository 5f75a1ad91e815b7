import type { LanguageModel } from 'ai'
import { FloorguardError } from '../errors.js'
import type { SummarizeRequest, SummarizeResult, SummarizerV1 } from '../spec/summarizer.js'
import { buildSummaryPrompt } from './_prompt.js'

/** Options of {@link createAiSdkSummarizer}. */
export interface AiSdkSummarizerOptions {
  /** Any AI SDK language model: `openai('gpt-4o-mini')`, `anthropic(…)`, an OpenAI-compatible local server, a mock. */
  readonly model: LanguageModel
  /**
   * Sampling temperature (0: the most literal copying of the state block).
   * @default 0
   */
  readonly temperature?: number
  /**
   * Retries the AI SDK itself makes on transport errors; verification-driven retries are the orchestrator's.
   * @default 0
   */
  readonly maxRetries?: number
  /**
   * Provider-specific options passed through to `generateText`.
   * @default undefined
   */
  readonly providerOptions?: Record<string, Record<string, unknown>>
  /**
   * Registry name of the summarizer.
   * @default `ai:${provider}:${modelId}` for a model object, `ai:${model}` for a model id string
   */
  readonly name?: string
}

type GenerateText = (typeof import('ai'))['generateText']

let generateTextPromise: Promise<GenerateText> | undefined

/** Loads `ai` once, lazily: it is an optional peer dependency. */
export function loadAiSdk(): Promise<GenerateText> {
  generateTextPromise ??= import('ai').then(
    (module) => module.generateText,
    (error: unknown) => {
      generateTextPromise = undefined
      throw new FloorguardError('missing-dependency', 'the AI SDK summarizer needs the `ai` package and a provider: run `npm i ai @ai-sdk/openai` (or @ai-sdk/anthropic, @ai-sdk/google, @ai-sdk/openai-compatible)', { cause: error })
    },
  )
  return generateTextPromise
}

function modelName(model: LanguageModel): string {
  if (typeof model === 'string') return `ai:${model}`
  return `ai:${model.provider}:${model.modelId}`
}

/**
 * Creates a summarizer over an AI SDK model: prompt = rules + state block to copy + delimited transcript data;
 * `maxOutputTokens` = slot. The text it returns is verified by the orchestrator like any other.
 */
export function createAiSdkSummarizer(options: AiSdkSummarizerOptions): SummarizerV1 {
  const { model } = options
  return {
    specificationVersion: 'v1',
    name: options.name ?? modelName(model),
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const generateText = await loadAiSdk()
      const { system, prompt } = buildSummaryPrompt(request)
      const result = await generateText({
        model,
        system,
        prompt,
        maxOutputTokens: Math.max(1, request.slot),
        temperature: options.temperature ?? 0,
        maxRetries: options.maxRetries ?? 0,
        ...(request.abortSignal ? { abortSignal: request.abortSignal } : {}),
        ...(options.providerOptions ? { providerOptions: options.providerOptions as never } : {}),
      })
      return { kind: 'summary', text: result.text }
    },
  }
}

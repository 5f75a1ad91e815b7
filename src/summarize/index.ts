import { FloorguardError } from '../errors.js'
import type { SummarizerV1 } from '../spec/summarizer.js'
import { createAiSdkSummarizer } from './ai-sdk.js'
import { resolveAiModel, type ProviderEnv } from './ai-sdk-provider.js'
import { createCommandSummarizer } from './command.js'
import { createLedgerSummarizer } from './ledger.js'

export { createLedgerSummarizer, splitSentences } from './ledger.js'
export type { LedgerSummarizerOptions } from './ledger.js'
export { createAiSdkSummarizer, loadAiSdk } from './ai-sdk.js'
export type { AiSdkSummarizerOptions } from './ai-sdk.js'
export { AI_PROVIDERS, resolveAiModel, ollamaBaseUrl } from './ai-sdk-provider.js'
export type { AiProviderName, ProviderEnv, ResolveAiModelOptions } from './ai-sdk-provider.js'
export { buildCommandRequest, createCommandSummarizer } from './command.js'
export type { CommandSummarizerOptions, CommandSummaryRequest } from './command.js'
export { backoffDelay, callSummarizer, retryMiddleware, timeoutMiddleware, wrapSummarizer } from './middleware.js'
export type { RetryMiddlewareOptions, SummarizerMiddlewareV1, TimeoutMiddlewareOptions, WrapSummarizerOptions } from './middleware.js'

/** Options of {@link createSummarizer}. */
export interface CreateSummarizerOptions {
  /**
   * Variables for `ai:ollama` / `ai:openai-compatible` base URLs and keys, and the environment of a `cmd:` command.
   * @default {} (a `cmd:` command then inherits the process environment)
   */
  readonly env?: ProviderEnv
  /**
   * Timeout of a `cmd:` summarizer, in milliseconds.
   * @default 120000
   */
  readonly timeoutMs?: number
  /**
   * Imports provider packages (tests pass a fake).
   * @default dynamic `import()`
   */
  readonly importModule?: (specifier: string) => Promise<Record<string, unknown>>
}

/** Summarizer kinds of `--summarizer`, each from its spec's text after the first colon. */
export const SUMMARIZERS = {
  ledger: async (rest: string) => {
    if (rest !== '') throw new FloorguardError('invalid-argument', `--summarizer ledger takes no argument, got ledger:${rest}`)
    return createLedgerSummarizer()
  },
  ai: async (rest: string, options: CreateSummarizerOptions) =>
    createAiSdkSummarizer({
      model: await resolveAiModel({ spec: rest, ...(options.env ? { env: options.env } : {}), ...(options.importModule ? { importModule: options.importModule } : {}) }),
      name: `ai:${rest}`,
    }),
  cmd: async (rest: string, options: CreateSummarizerOptions) => {
    if (rest.trim() === '') throw new FloorguardError('invalid-argument', "expected cmd:'COMMAND' (a shell command that reads JSON on stdin and prints the summary)")
    return createCommandSummarizer({
      command: rest,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
    })
  },
} as const satisfies Record<string, (rest: string, options: CreateSummarizerOptions) => Promise<SummarizerV1>>

/** Creates a summarizer from `ledger`, `ai:PROVIDER:MODEL` or `cmd:COMMAND`; unknown kinds throw with the known list. */
export async function createSummarizer(spec: string, options: CreateSummarizerOptions = {}): Promise<SummarizerV1> {
  const colon = spec.indexOf(':')
  const kind = colon === -1 ? spec : spec.slice(0, colon)
  const rest = colon === -1 ? '' : spec.slice(colon + 1)
  if (!Object.hasOwn(SUMMARIZERS, kind)) {
    throw new FloorguardError('unknown-name', `unknown summarizer ${JSON.stringify(spec)}: expected ledger, ai:PROVIDER:MODEL or cmd:COMMAND`)
  }
  return SUMMARIZERS[kind as keyof typeof SUMMARIZERS](rest, options)
}

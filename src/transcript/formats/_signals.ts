import { isRecord, scanJsonPrefix } from '../_json-prefix.js'

/** The four message-array formats, which share shapes and must be told apart by their distinctive fields. */
export type MessageArrayFamily = 'openai' | 'openai-responses' | 'anthropic' | 'ai-sdk'

const ALL: readonly MessageArrayFamily[] = ['openai', 'openai-responses', 'anthropic', 'ai-sdk']

/** Item `type` values of the Responses API (an item with one of these is not a chat message of another format). */
export const RESPONSES_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'compaction',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'computer_call',
  'computer_call_output',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'item_reference',
])

/** Whether the head's cut fell inside `container[key]` (so its value may be incomplete and says nothing). */
type IsCut = (container: object, key: string) => boolean

/** Which families a content part's `type` (and keys) is consistent with. */
function partFamilies(part: Record<string, unknown>, isCut: IsCut): readonly MessageArrayFamily[] {
  if (isCut(part, 'type')) return ALL
  const type = part.type
  if ('cache_control' in part) return ['anthropic']
  if ('providerOptions' in part) return ['ai-sdk']
  switch (type) {
    case 'text':
      return ['openai', 'anthropic', 'ai-sdk']
    case 'image_url':
    case 'input_audio':
      return ['openai']
    case 'refusal':
      return 'refusal' in part ? ['openai', 'openai-responses'] : ['openai']
    case 'file':
      return 'file' in part ? ['openai'] : ['ai-sdk']
    case 'image':
      return 'source' in part ? ['anthropic'] : 'image' in part ? ['ai-sdk'] : ['anthropic', 'ai-sdk']
    case 'tool_use':
    case 'tool_result':
    case 'thinking':
    case 'redacted_thinking':
    case 'document':
    case 'search_result':
    case 'server_tool_use':
    case 'mcp_tool_use':
    case 'mcp_tool_result':
    case 'compaction':
      return ['anthropic']
    case 'tool-call':
    case 'tool-result':
    case 'reasoning':
    case 'redacted-reasoning':
    case 'tool-approval-request':
    case 'tool-approval-response':
      return ['ai-sdk']
    case 'input_text':
    case 'output_text':
    case 'input_image':
    case 'input_file':
    case 'summary_text':
    case 'reasoning_text':
      return ['openai-responses']
    default:
      if (typeof type === 'string' && type.endsWith('_tool_result')) return ['anthropic']
      return []
  }
}

/**
 * Which families one item of the message array is consistent with (the intersection over its features), or
 * `undefined` for an item that says nothing: a message whose role no family knows (an agent harness's trailing
 * `{"role": "exit"}`), which every family's reader keeps aside as it is.
 */
function itemFamilies(item: unknown, isCut: IsCut): Set<MessageArrayFamily> | undefined {
  const families = new Set<MessageArrayFamily>(ALL)
  const keep = (allowed: readonly MessageArrayFamily[]): void => {
    for (const family of [...families]) if (!allowed.includes(family)) families.delete(family)
  }
  if (!isRecord(item)) return new Set()
  if ('type' in item) {
    if (isCut(item, 'type')) keep(['openai-responses'])
    else if (typeof item.type === 'string' && RESPONSES_ITEM_TYPES.has(item.type)) keep(['openai-responses'])
    else return new Set()
  } else if (!('role' in item)) {
    return new Set()
  }
  switch (isCut(item, 'role') ? undefined : item.role) {
    case undefined:
    case 'user':
    case 'assistant':
      break
    case 'system':
      // The AI SDK's system content is a string only; the Messages API takes a system message of text blocks
      // inside `messages` (a real request with one was answered 200), as Chat Completions takes text parts.
      keep(Array.isArray(item.content) ? ['openai', 'openai-responses', 'anthropic'] : ['openai', 'openai-responses', 'ai-sdk'])
      break
    case 'developer':
      keep(['openai', 'openai-responses'])
      break
    case 'function':
      keep(['openai'])
      break
    case 'tool':
      keep(['openai', 'ai-sdk'])
      break
    default:
      // A role no family knows: neutral as a message, but an item `type` of the Responses API still counts.
      if (typeof item.role !== 'string') return new Set()
      return 'type' in item ? families : undefined
  }
  if ('tool_calls' in item || 'function_call' in item || 'tool_call_id' in item || 'reasoning_content' in item) keep(['openai'])
  if ('providerOptions' in item) keep(['ai-sdk'])
  if ('parts' in item && !('content' in item)) {
    // An AI SDK v5/v6 UIMessage (typed parts: step-start, data-*, tool-NAME): the ai-sdk reader refuses it with the way
    // to convert it. Untyped parts (Gemini contents) fit no family here.
    const typed = Array.isArray(item.parts) && item.parts.some((part) => isRecord(part) && typeof part.type === 'string')
    return new Set(typed ? ['ai-sdk'] : [])
  }
  const content = item.content
  if (Array.isArray(content)) {
    for (const part of content.slice(0, 64)) if (isRecord(part)) keep(partFamilies(part, isCut))
  }
  return families
}

/** Which candidate a plain chat (one every remaining candidate reads into the same transcript) is read as. */
const PREFERENCE: readonly MessageArrayFamily[] = ['openai', 'anthropic', 'ai-sdk', 'openai-responses']
const ANTHROPIC_KEYS = ['stop_sequences', 'anthropic_version', 'anthropic_beta']
const AI_SDK_KEYS = ['maxOutputTokens', 'maxTokens', 'providerOptions', 'toolChoice', 'stopWhen', 'maxSteps']

/** Anthropic's server tools are typed by name and date (`web_search_20250305`, `bash_20250124`). */
const DATED_TOOL = /^[a-z_]+_\d{8}$/

/**
 * Whether a request's tools are in the Messages API's own shape: a tool with `input_schema` or a dated server-tool
 * type, or a `tool_choice` object of type auto, any, tool or none (Chat Completions names a function there).
 */
function hasAnthropicTools(request: Record<string, unknown>): boolean {
  const tools = request.tools
  if (Array.isArray(tools) && tools.some((tool) => isRecord(tool) && ('input_schema' in tool || (typeof tool.type === 'string' && DATED_TOOL.test(tool.type))))) return true
  const choice = request.tool_choice
  return isRecord(choice) && (choice.type === 'auto' || choice.type === 'any' || choice.type === 'tool' || choice.type === 'none')
}

let cache: { head: string; scores: Readonly<Record<MessageArrayFamily, number>> } | undefined

/**
 * Detection scores of the message-array formats for one head.
 *
 * Every observed feature (where the array sits, each item's role, item type, content-part types and keys)
 * narrows the set of formats it is consistent with; the scores come from the intersection over the head:
 * one format left → 0.95 for it. Several left → the input is a plain chat (roles and text, no format's own
 * fields) that every candidate reads into the same transcript and whose records each candidate's writer can
 * extend; the first candidate in the order openai, anthropic, ai-sdk, openai-responses scores 0.6, the others
 * 0.45. None left → 0.2 each: the input mixes formats, and `auto` asks for `--format`.
 */
export function messageArrayScores(head: string): Readonly<Record<MessageArrayFamily, number>> {
  if (cache?.head === head) return cache.scores
  const scores = computeScores(head)
  cache = { head, scores }
  return scores
}

function computeScores(head: string): Record<MessageArrayFamily, number> {
  const none = { openai: 0, 'openai-responses': 0, anthropic: 0, 'ai-sdk': 0 }
  const first = head.trimStart().replace(/^\uFEFF/, '')[0]
  if (first !== '[' && first !== '{') return none
  const scanned = scanJsonPrefix(head)
  if (scanned.errorOffset !== undefined) return none
  const value = scanned.value
  const families = new Set<MessageArrayFamily>(ALL)
  const keep = (allowed: Iterable<MessageArrayFamily>): void => {
    const set = new Set(allowed)
    for (const family of [...families]) if (!set.has(family)) families.delete(family)
  }
  let items: unknown[]
  if (Array.isArray(value)) {
    items = value
  } else if (isRecord(value)) {
    if (Array.isArray(value.messages)) {
      items = value.messages
      keep(['openai', 'anthropic', 'ai-sdk'])
      if ('system' in value) keep(['anthropic', 'ai-sdk'])
      // Options only one of them takes (`max_tokens` is not one: Chat Completions has it too).
      if (ANTHROPIC_KEYS.some((key) => key in value) || hasAnthropicTools(value)) keep(['anthropic'])
      // A top-level `system` with `max_tokens`: Chat Completions has no `system`, the AI SDK spells it maxOutputTokens.
      if ('system' in value && 'max_tokens' in value) keep(['anthropic'])
      if (AI_SDK_KEYS.some((key) => key in value)) keep(['ai-sdk'])
    } else if (Array.isArray(value.input) || Array.isArray(value.output) || typeof value.input === 'string') {
      items = Array.isArray(value.input) ? value.input : Array.isArray(value.output) ? value.output : []
      keep(['openai-responses'])
    } else return none
  } else return none
  let observed = 0
  const cut = scanned.cut
  const isCut: IsCut = (container, key) => cut !== undefined && cut.container === container && cut.key === key
  let neutral = 0
  for (const item of items.slice(0, 256)) {
    const consistent = itemFamilies(item, isCut)
    if (consistent === undefined) {
      neutral++
      continue
    }
    keep(consistent)
    observed++
    if (families.size === 0) break
  }
  // Only items of unknown roles: nothing says this is a chat at all.
  if (observed === 0 && neutral > 0) return none
  if (observed === 0 && !isRecord(value)) {
    // `[]` is a valid empty transcript in all four; plain chat rules apply.
    return { openai: 0.6, 'openai-responses': 0.45, anthropic: 0.45, 'ai-sdk': 0.45 }
  }
  if (families.size === 0) return { openai: 0.2, 'openai-responses': 0.2, anthropic: 0.2, 'ai-sdk': 0.2 }
  const result = { ...none }
  if (families.size === 1) {
    for (const family of families) result[family] = 0.95
    return result
  }
  const preferred = PREFERENCE.find((family) => families.has(family))!
  for (const family of families) result[family] = family === preferred ? 0.6 : 0.45
  return result
}

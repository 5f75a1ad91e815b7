/**
 * Framework message → floorguard {@link Message}, for the AI SDK, LangChain.js and the OpenAI Agents SDK.
 *
 * One framework message becomes exactly one floorguard message (index for index), with the original object in
 * `source`, so a runtime layout's `kept` entries map straight back to the caller's own objects (`applyLayout`): kept
 * messages are never re-serialized. The shapes below are structural (no import of any framework), so every adapter
 * can share this module whatever peers are installed.
 *
 * Facts these follow (checked in node_modules): ai 6.0.326 `ModelMessage` / `@ai-sdk/provider` 3.0.19
 * `LanguageModelV3Message` (content parts `text`, `file`, `image`, `reasoning`, `tool-call`, `tool-result` with an
 * `output` of `text` / `json` / `error-text` / `error-json` / `execution-denied` / `content`, approvals);
 * `@langchain/core` 1.4.0 `BaseMessage.type` (`human`, `ai`, `system`, `tool`), `AIMessage.tool_calls`,
 * `ToolMessage.tool_call_id` and `status`, langchain 1.5.14's built-in summary (`additional_kwargs.lc_source ===
 * 'summarization'`); `@openai/agents-core` 0.14.3 `AgentInputItem` (messages with `role`, `function_call` /
 * `function_call_result` with `callId`, `reasoning`, `compaction`, hosted / computer / shell / apply-patch items).
 */

import type { Message, Part, Role } from '../spec/transcript.js'
import { STATE_BLOCK_OPEN_V1 } from '../state-block/index.js'
import { stableJson } from '../transcript/render.js'

/** Text of a part a reader cannot show: `[image]`, `[file: a.pdf]` (as the transcript readers write it). */
function placeholder(kind: string, label?: unknown): string {
  return typeof label === 'string' && label !== '' ? `[${kind}: ${label}]` : `[${kind}]`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : stableJson(value)
}

function nonEmpty(parts: Part[]): Part[] {
  return parts.length > 0 ? parts : [{ type: 'text', text: '' }]
}

// ----------------------------------------------------------------------------------------------------------------
// Summaries the adapters write, recognized on the next call

/** What every floorguard summary holds: the opening of its state block (any version). */
const STATE_BLOCK_MARK = STATE_BLOCK_OPEN_V1.slice(0, STATE_BLOCK_OPEN_V1.indexOf('v="') + 3)

const written = new WeakMap<object, string>()

/** Remembers that `message` is a summary an adapter wrote with summary text `summary` (looked up by identity). */
export function markSummary<T extends object>(message: T, summary: string): T {
  written.set(message, summary)
  return message
}

/**
 * The summary text of a message's text when it is a floorguard summary: `prefix` + blank line + a text holding a
 * state block. Found by identity first (a message an adapter wrote), else by content (a framework that rebuilt the
 * object, e.g. the AI SDK's prompt conversion).
 */
export function floorguardSummaryText(message: object, content: string, prefix: string): string | undefined {
  const known = written.get(message)
  if (known !== undefined) return known
  const head = prefix === '' ? '' : `${prefix}\n\n`
  if (!content.startsWith(head)) return undefined
  const rest = content.slice(head.length)
  return rest.includes(STATE_BLOCK_MARK) ? rest : undefined
}

/** The text of a summary message: the prefix, a blank line, the summary. */
export function summaryMessageText(prefix: string, summary: string): string {
  return prefix === '' ? summary : `${prefix}\n\n${summary}`
}

/** A user message holding one summary part. */
function summaryMessage(summary: string, source: string, original: unknown): Message {
  return { role: 'user', parts: [{ type: 'summary', text: summary, source }], source: original }
}

// ----------------------------------------------------------------------------------------------------------------
// Vercel AI SDK: ModelMessage (prepareStep) and LanguageModelV3Message (middleware prompt)

/** The fields of an AI SDK `ModelMessage` or `LanguageModelV3Message` this module reads. */
export interface AiSdkMessageLike {
  readonly role: string
  readonly content: unknown
}

/** A tool result `output` as text and error flag (same rendering as the `ai-sdk` transcript reader). */
function aiSdkOutput(output: unknown): { content: string; isError: boolean } {
  if (!isRecord(output)) return { content: text(output), isError: false }
  switch (output.type) {
    case 'text':
      return { content: text(output.value), isError: false }
    case 'error-text':
      return { content: text(output.value), isError: true }
    case 'json':
      return { content: stableJson(output.value), isError: false }
    case 'error-json':
      return { content: stableJson(output.value), isError: true }
    case 'execution-denied':
      return { content: placeholder('execution denied', output.reason), isError: true }
    case 'content': {
      const items = Array.isArray(output.value) ? output.value : []
      const content = items
        .map((item: unknown) => {
          if (!isRecord(item)) return placeholder('content')
          if (item.type === 'text') return text(item.text)
          if (typeof item.type === 'string' && (item.type === 'media' || item.type.startsWith('image'))) return placeholder('image')
          if (typeof item.type === 'string' && item.type.startsWith('file')) return placeholder('file', item.filename ?? item.url)
          return placeholder(typeof item.type === 'string' ? item.type : 'content')
        })
        .join('\n')
      return { content, isError: false }
    }
    default:
      return { content: stableJson(output), isError: false }
  }
}

function aiSdkPart(raw: unknown): Part {
  if (!isRecord(raw)) return { type: 'text', text: text(raw) }
  switch (raw.type) {
    case 'text':
      return { type: 'text', text: text(raw.text) }
    case 'reasoning':
      return { type: 'reasoning', text: text(raw.text) }
    case 'redacted-reasoning':
      return { type: 'reasoning', text: placeholder('redacted reasoning') }
    case 'image':
      return { type: 'text', text: placeholder('image') }
    case 'file':
      return { type: 'text', text: placeholder('file', raw.filename ?? raw.mediaType) }
    case 'tool-call':
      return { type: 'tool-call', id: text(raw.toolCallId), name: text(raw.toolName), arguments: raw.input ?? {} }
    case 'tool-result': {
      const { content, isError } = aiSdkOutput(raw.output)
      return { type: 'tool-result', callId: text(raw.toolCallId), ...(typeof raw.toolName === 'string' ? { name: raw.toolName } : {}), content, isError }
    }
    case 'tool-approval-request':
      return { type: 'text', text: placeholder('tool approval requested', raw.toolCallId) }
    case 'tool-approval-response':
      return { type: 'text', text: placeholder(raw.approved === true ? 'tool approval granted' : 'tool approval denied', raw.approvalId) }
    default:
      return { type: 'text', text: placeholder(typeof raw.type === 'string' ? raw.type : 'part') }
  }
}

const AI_SDK_ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool']

/**
 * An AI SDK message as a floorguard message. A user message this package wrote (or whose text is `summaryPrefix`,
 * a blank line and a floorguard state block) reads as a `summary` part.
 */
export function fromAiSdkMessage(message: AiSdkMessageLike, summaryPrefix: string): Message {
  const role: Role = (AI_SDK_ROLES as readonly string[]).includes(message.role) ? (message.role as Role) : 'user'
  const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content } as Part] : Array.isArray(message.content) ? message.content.map(aiSdkPart) : []
  if (role === 'user' && parts.length === 1 && parts[0]?.type === 'text') {
    const summary = floorguardSummaryText(message, parts[0].text, summaryPrefix)
    if (summary !== undefined) return summaryMessage(summary, 'floorguard', message)
  }
  return { role, parts: nonEmpty(parts), source: message }
}

// ----------------------------------------------------------------------------------------------------------------
// LangChain.js: BaseMessage

/** The fields of a LangChain `BaseMessage` (and its subclasses) this module reads. */
export interface LangChainMessageLike {
  readonly type: string
  readonly content: unknown
  readonly id?: string | undefined
  readonly name?: string | undefined
  readonly additional_kwargs?: Readonly<Record<string, unknown>> | undefined
  readonly tool_calls?: ReadonlyArray<{ readonly id?: string | undefined; readonly name: string; readonly args: unknown }> | undefined
  readonly tool_call_id?: string | undefined
  readonly status?: string | undefined
}

function langChainBlocks(content: unknown, toolCallIds: ReadonlySet<string>): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const parts: Part[] = []
  for (const block of content as unknown[]) {
    if (typeof block === 'string') {
      parts.push({ type: 'text', text: block })
      continue
    }
    if (!isRecord(block)) continue
    switch (block.type) {
      case 'text':
      case 'text-plain':
        parts.push({ type: 'text', text: text(block.text) })
        break
      case 'reasoning':
        parts.push({ type: 'reasoning', text: text(block.reasoning ?? block.text) })
        break
      case 'thinking':
        parts.push({ type: 'reasoning', text: text(block.thinking) })
        break
      case 'redacted_thinking':
        parts.push({ type: 'reasoning', text: placeholder('redacted reasoning') })
        break
      case 'image':
      case 'image_url':
        parts.push({ type: 'text', text: placeholder('image') })
        break
      case 'file':
        parts.push({ type: 'text', text: placeholder('file', block.filename ?? block.name) })
        break
      // Anthropic-style content repeats `tool_calls`; a call not in `tool_calls` is still a call.
      case 'tool_use':
      case 'tool_call':
        if (typeof block.id === 'string' && !toolCallIds.has(block.id)) {
          parts.push({ type: 'tool-call', id: block.id, name: text(block.name), arguments: block.input ?? block.args ?? {} })
        }
        break
      default:
        parts.push({ type: 'text', text: placeholder(typeof block.type === 'string' ? block.type : 'content') })
    }
  }
  return parts
}

/** The text of a LangChain message's content (text blocks joined by nothing, as `BaseMessage.text` does). */
export function langChainText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return (content as unknown[]).map((block) => (typeof block === 'string' ? block : isRecord(block) && block.type === 'text' ? text(block.text) : '')).join('')
}

/**
 * A LangChain message as a floorguard message: `human` → user, `ai` → assistant (its content, then its
 * `tool_calls`), `tool` → a tool result (`status: 'error'` is an error), `system` / `developer` → system. A summary
 * this package wrote (or a text of `summaryPrefix` + a state block) reads as a floorguard `summary` part; langchain's
 * own (`additional_kwargs.lc_source === 'summarization'`) as a `summary` part from `langchain`.
 */
export function fromLangChainMessage(message: LangChainMessageLike, summaryPrefix: string): Message {
  const name = typeof message.name === 'string' && message.name !== '' ? { name: message.name } : {}
  switch (message.type) {
    case 'ai': {
      const calls = message.tool_calls ?? []
      const ids = new Set(calls.map((call) => call.id ?? ''))
      const parts = langChainBlocks(message.content, ids)
      for (const call of calls) parts.push({ type: 'tool-call', id: call.id ?? '', name: call.name, arguments: call.args ?? {} })
      return { role: 'assistant', parts: nonEmpty(parts), ...name, source: message }
    }
    case 'tool':
      return {
        role: 'tool',
        parts: [{ type: 'tool-result', callId: message.tool_call_id ?? '', ...name, content: langChainText(message.content), isError: message.status === 'error' }],
        source: message,
      }
    case 'system':
    case 'developer':
      return { role: 'system', parts: nonEmpty(langChainBlocks(message.content, new Set())), source: message }
    default: {
      const content = langChainText(message.content)
      const summary = floorguardSummaryText(message, content, summaryPrefix)
      if (summary !== undefined) return summaryMessage(summary, 'floorguard', message)
      if (message.additional_kwargs?.lc_source === 'summarization') return summaryMessage(content, 'langchain', message)
      return { role: 'user', parts: nonEmpty(langChainBlocks(message.content, new Set())), ...name, source: message }
    }
  }
}

// ----------------------------------------------------------------------------------------------------------------
// OpenAI Agents SDK: AgentInputItem

/** The fields of an OpenAI Agents SDK `AgentInputItem` this module reads (every item type has `type` or `role`). */
export interface AgentItemLike {
  readonly type?: string | undefined
  readonly role?: string | undefined
  readonly [field: string]: unknown
}

/** Text of `input_text` / `output_text` / `text` / `reasoning_text` / `refusal` parts; media as placeholders. */
function agentContentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return isRecord(content) ? agentContentText([content]) : ''
  return (content as unknown[])
    .map((part) => {
      if (typeof part === 'string') return part
      if (!isRecord(part)) return ''
      switch (part.type) {
        case 'input_text':
        case 'output_text':
        case 'text':
        case 'reasoning_text':
          return text(part.text)
        case 'refusal':
          return text(part.refusal)
        case 'input_image':
        case 'image':
          return placeholder('image')
        case 'input_file':
        case 'file':
          return placeholder('file', part.filename)
        case 'audio':
          return typeof part.transcript === 'string' ? part.transcript : placeholder('audio')
        default:
          return placeholder(typeof part.type === 'string' ? part.type : 'content')
      }
    })
    .join('\n')
}

/** Placeholder text of an OpenAI `compaction` item: the API encrypts its summary (as the transcript reader says). */
export const ENCRYPTED_COMPACTION_TEXT = '[encrypted compaction summary]'

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {}
  try {
    return JSON.parse(value) as unknown
  } catch {
    return value
  }
}

/**
 * An Agents SDK item as a floorguard message: messages by role; `function_call` (and the hosted, computer, shell,
 * apply-patch, tool-search and program calls) → an assistant tool call, their results → a tool result paired by
 * `callId`; `reasoning` → reasoning; `compaction` → a `summary` part from `openai-responses` (its text is encrypted);
 * anything else → a placeholder text.
 */
export function fromAgentItem(item: AgentItemLike, summaryPrefix: string): Message {
  const type = item.type ?? 'message'
  const callId = typeof item.callId === 'string' ? item.callId : typeof item.id === 'string' ? item.id : ''
  switch (type) {
    case 'message': {
      const role: Role = item.role === 'system' || item.role === 'developer' ? 'system' : item.role === 'assistant' ? 'assistant' : 'user'
      const content = agentContentText(item.content)
      if (role === 'user') {
        const summary = floorguardSummaryText(item, content, summaryPrefix)
        if (summary !== undefined) return summaryMessage(summary, 'floorguard', item)
      }
      return { role, parts: [{ type: 'text', text: content }], source: item }
    }
    case 'function_call':
      return { role: 'assistant', parts: [{ type: 'tool-call', id: callId, name: text(item.name), arguments: parseArguments(item.arguments) }], source: item }
    case 'function_call_result':
      return {
        role: 'tool',
        parts: [{ type: 'tool-result', callId, name: text(item.name), content: agentContentText(item.output), isError: false }],
        source: item,
      }
    case 'reasoning': {
      const raw = agentContentText(item.rawContent)
      return { role: 'assistant', parts: [{ type: 'reasoning', text: raw !== '' ? raw : agentContentText(item.content) }], source: item }
    }
    case 'compaction':
      return summaryMessage(ENCRYPTED_COMPACTION_TEXT, 'openai-responses', item)
    case 'hosted_tool_call': {
      const parts: Part[] = [{ type: 'tool-call', id: callId, name: text(item.name), arguments: parseArguments(item.arguments) }]
      if (typeof item.output === 'string') parts.push({ type: 'tool-result', callId, name: text(item.name), content: item.output, isError: false })
      return { role: 'assistant', parts, source: item }
    }
    case 'computer_call':
    case 'shell_call':
    case 'apply_patch_call':
    case 'tool_search_call':
    case 'program':
      return {
        role: 'assistant',
        parts: [{ type: 'tool-call', id: callId, name: type, arguments: item.action ?? item.operation ?? item.arguments ?? item.code ?? {} }],
        source: item,
      }
    case 'computer_call_result':
    case 'shell_call_output':
    case 'apply_patch_call_output':
    case 'tool_search_output':
    case 'program_output':
      return {
        role: 'tool',
        parts: [{ type: 'tool-result', callId, content: typeof item.output === 'string' ? item.output : stableJson(item.output ?? item.tools ?? null), isError: false }],
        source: item,
      }
    default:
      return { role: 'assistant', parts: [{ type: 'text', text: placeholder(`${type} item`, item.id) }], source: item }
  }
}

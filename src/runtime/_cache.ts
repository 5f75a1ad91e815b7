import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Part } from '../spec/transcript.js'
import { messageTokens } from '../transcript/render.js'

/** Fields of one part, in a fixed number of slots, compared with `===` (equal strings of one pointer cost nothing). */
const PART_SLOTS = 6

/**
 * The content key of a message: its role, name, parts array and, per part, the part object and every field the core
 * reads (text, content, ids, name, error flag, the arguments value). Strings are immutable, so keeping them is
 * keeping the content; comparing them is O(1) while they are the same string, and only a same-length replacement is
 * compared character by character. Not seen: a change inside a tool call's `arguments` object (the object itself is
 * compared by identity).
 */
function snapshot(message: Message): unknown[] {
  const parts = message.parts
  const key: unknown[] = new Array(3 + parts.length * PART_SLOTS)
  key[0] = message.role
  key[1] = message.name
  key[2] = parts
  for (let index = 0; index < parts.length; index++) writePart(key, 3 + index * PART_SLOTS, parts[index]!)
  return key
}

function writePart(key: unknown[], at: number, part: Part): void {
  key[at] = part
  key[at + 1] = part.type
  switch (part.type) {
    case 'text':
    case 'reasoning':
      key[at + 2] = part.text
      break
    case 'summary':
      key[at + 2] = part.text
      key[at + 3] = part.source
      break
    case 'tool-call':
      key[at + 2] = part.id
      key[at + 3] = part.name
      key[at + 4] = part.arguments
      break
    case 'tool-result':
      key[at + 2] = part.content
      key[at + 3] = part.callId
      key[at + 4] = part.name
      key[at + 5] = part.isError
      break
  }
}

function samePart(key: readonly unknown[], at: number, part: Part): boolean {
  if (key[at] !== part || key[at + 1] !== part.type) return false
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return key[at + 2] === part.text
    case 'summary':
      return key[at + 2] === part.text && key[at + 3] === part.source
    case 'tool-call':
      return key[at + 2] === part.id && key[at + 3] === part.name && key[at + 4] === part.arguments
    case 'tool-result':
      return key[at + 2] === part.content && key[at + 3] === part.callId && key[at + 4] === part.name && key[at + 5] === part.isError
  }
}

function matches(key: readonly unknown[], message: Message): boolean {
  const parts = message.parts
  if (key[0] !== message.role || key[1] !== message.name || key[2] !== parts || key.length !== 3 + parts.length * PART_SLOTS) return false
  for (let index = 0; index < parts.length; index++) if (!samePart(key, 3 + index * PART_SLOTS, parts[index]!)) return false
  return true
}

/** What the cache keeps per message object. */
interface Entry {
  readonly key: unknown[]
  /** The runtime's private copy: every downstream cache (render, tokens, estimator items) is keyed by it. */
  readonly canonical: Message
  readonly tokens: number
}

/**
 * A private copy of a message: a new object with copied parts (strings shared), which no caller holds and so no
 * caller can mutate; the render, token and item caches keyed by it can never go stale.
 */
function copyMessage(message: Message): Message {
  return { ...message, parts: message.parts.map((part) => ({ ...part })) }
}

/**
 * Per-message tokens and private copies, cached by message identity and validated by content.
 *
 * tokens(m) = tokenizer.count(renderMessage(m).text), computed when `m` is new or its content key changed (then from
 * a fresh copy, so a mutated message is rendered, counted and extracted again); otherwise a WeakMap hit and O(parts)
 * comparisons of references.
 */
export class MessageCache {
  private readonly entries = new WeakMap<Message, Entry>()
  private readonly tokenizer: TokenizerV1
  /** Messages of the last {@link MessageCache.read} served from the cache. */
  hits = 0
  /** Messages of the last {@link MessageCache.read} computed. */
  misses = 0

  constructor(tokenizer: TokenizerV1) {
    this.tokenizer = tokenizer
  }

  /** The canonical copies of `messages` and their tokens (in `tokens`), and the total. */
  read(messages: readonly Message[]): { canonical: Message[]; tokens: Float64Array; total: number } {
    const canonical: Message[] = new Array(messages.length)
    const tokens = new Float64Array(messages.length)
    let total = 0
    this.hits = 0
    this.misses = 0
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!
      let entry = this.entries.get(message)
      if (entry && matches(entry.key, message)) this.hits++
      else {
        const copy = copyMessage(message)
        entry = { key: snapshot(message), canonical: copy, tokens: messageTokens(copy, this.tokenizer) }
        this.entries.set(message, entry)
        this.misses++
      }
      canonical[index] = entry.canonical
      tokens[index] = entry.tokens
      total += entry.tokens
    }
    return { canonical, tokens, total }
  }
}

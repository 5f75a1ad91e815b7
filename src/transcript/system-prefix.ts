import type { Message } from '../spec/transcript.js'

/**
 * leadingSystemCount(messages) = how many messages open the transcript with role `system` (its system prompt, which
 * no compactor folds into a summary: `compact` starts its range after them, and `check` and `plan` do by default).
 */
export function leadingSystemCount(messages: readonly Message[]): number {
  let count = 0
  while (count < messages.length && messages[count]!.role === 'system') count++
  return count
}

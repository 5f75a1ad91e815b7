import { describe, expect, it } from 'vitest'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message } from '../spec/transcript.js'
import { isNarrative, MASK, maskArm, naiveArm, splitIntoSentences } from './arms.js'

/** One token per space-separated word: counts a reader can check by eye. */
const words: TokenizerV1 = { specificationVersion: 'v1', name: 'words', exact: false, count: (text) => text.split(/\s+/).filter(Boolean).length }

const narrative = 'We spent the afternoon untangling how the loader and the scheduler talk to each other.'
const state = 'Pinned fsspec==2024.6.1, set --max_steps 3000 --lr 3e-4 --warmup 200 in /workspace/diffusion/configs/a100-large.yaml.'

describe('naiveArm (B2)', () => {
  it('fills the slot with narrative sentences first, longest first, in their original order, never over the slot', () => {
    const segment: Message[] = [
      { role: 'system', parts: [{ type: 'text', text: 'You are a careful agent who explains every step before doing anything at all.' }] },
      { role: 'user', parts: [{ type: 'text', text: `${state} ${narrative}` }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Short narrative sentence about the plan here.' }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c', content: 'A long tool output line that is narrative enough to be chosen.', isError: false }] },
    ]
    // narrative: 15 words (+1 join); the short one: 7 words; state: 11 words, and the longest sentence of the three.
    expect(naiveArm(segment, words, 16).text).toBe(narrative)
    expect(naiveArm(segment, words, 24).text).toBe(`${narrative}\nShort narrative sentence about the plan here.`)
    // State comes last: only once every narrative sentence is in (16 + 8 + 12 = 36).
    expect(naiveArm(segment, words, 40).text).toBe(`${state}\n${narrative}\nShort narrative sentence about the plan here.`)
    for (const slot of [0, 5, 16, 24, 40]) expect(naiveArm(segment, words, slot).tokens).toBeLessThanOrEqual(slot)
  })

  it('splits sentences at line breaks and after . ! ? followed by a space', () => {
    expect(splitIntoSentences('One. Two!\nThree? v1.2 stays')).toEqual(['One.', 'Two!', 'Three?', 'v1.2 stays'])
  })

  it('isNarrative: six words or more, at least 90% letters, spaces and plain punctuation', () => {
    expect(isNarrative(narrative)).toBe(true)
    expect(isNarrative(state)).toBe(false)
    expect(isNarrative('Too short to count.')).toBe(false)
  })
})

describe('maskArm (B1)', () => {
  it('replaces every tool output by the placeholder and keeps everything else', () => {
    const segment: Message[] = [
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name: 'bash', arguments: { command: 'ls /srv' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c', content: 'OSError: [Errno 28] No space left', isError: true }] },
      { role: 'user', parts: [{ type: 'text', text: 'keep /srv/data' }] },
    ]
    const masked = maskArm(segment, words)
    expect(masked.text).toBe(`bash\nls /srv\n\n${MASK}\n\nkeep /srv/data`)
    expect(masked.text).not.toContain('Errno')
    expect(masked.tokens).toBe(words.count(masked.text))
  })
})

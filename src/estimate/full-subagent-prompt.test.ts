import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { createFullEstimator } from './full.js'

const estimator = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })

describe('full: a sub-agent task is instructions, not a payload', () => {
  it('finds the paths, URLs and settings of a long Agent/Task prompt (regression: prompt was a payload with no target path, so all of it was lost)', () => {
    const prompt = [
      'Research the masked diffusion papers and report back.',
      'Start from https://arxiv.org/abs/2503.09573 and compare it with our sampler in src/diffusion_lm/samplers/block_sampler.py.',
      'Use the same settings as the smoke test: --max_steps 100 --per_device_train_batch_size 4.',
      ...Array.from({ length: 30 }, (_, index) => `Consider point ${index} of the design carefully and explain what it means for the trade-offs we discussed.`),
    ].join('\n')
    const message: Message = { role: 'assistant', parts: [{ type: 'tool-call', id: 'a1', name: 'Task', arguments: { description: 'research', prompt } }] }
    const texts = estimator.extract(message, 0).map((item) => item.text)
    for (const expected of ['https://arxiv.org/abs/2503.09573', 'src/diffusion_lm/samplers/block_sampler.py', '--max_steps 100']) {
      expect(texts.some((text) => text.includes(expected))).toBe(true)
    }
    // The prose around them is not state.
    expect(texts.some((text) => text.includes('explain what it means'))).toBe(false)
  })
})

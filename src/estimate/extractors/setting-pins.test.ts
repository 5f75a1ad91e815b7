import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// A user's pin with its name (session 11, re-tester C's hooks-test/session.jsonl): "Use sanitizer_version 0.1.0 in
// every sidecar and keep residual_scan: clean as a hard gate." kept only `0.1.0`.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const items = (text: string, role: 'user' | 'assistant' = 'user') => full.extract({ role, parts: [{ type: 'text', text }] } satisfies Message, 0).map((item) => `${item.kind} ${item.text}`)

describe('a setting’s name keys the value after it', () => {
  it('the re-test’s sentence: `sanitizer_version 0.1.0` and `residual_scan: clean`, each whole', () => {
    const found = items('Use sanitizer_version 0.1.0 in every sidecar and keep residual_scan: clean as a hard gate.')
    expect(found).toContain('version sanitizer_version 0.1.0')
    expect(found).toContain('identifier residual_scan: clean')
    expect(found).not.toContain('version 0.1.0')
  })

  it('a number after a setting’s name (`max_retries 5`, `model.max_len 4096`), as `max_retries: 5` is', () => {
    expect(items('Set max_retries 5 for the client.')).toEqual(['number max_retries 5'])
    expect(items('and model.max_len 4096 stays')).toEqual(['number model.max_len 4096'])
    expect(items('python_version 3.11 in the image').map((item) => item.slice(item.indexOf(' ') + 1))).toEqual(['python_version 3.11'])
  })

  it('not a name that is no setting’s, nor a number or symbol value, nor in the assistant’s words', () => {
    expect(items('call __init__ 5 and _private 3')).toEqual([])
    expect(items('keep residual_scan: 0.5 as a bound')).toEqual(['number residual_scan: 0.5'])
    expect(items('keep residual_scan: clean', 'assistant')).not.toContain('identifier residual_scan: clean')
    expect(items('the key is residual_scan: (see below)')).toEqual([])
    // A name after the colon is a type (pasted code: `db_url: str`), not a value.
    expect(items('add db_url: str and openai_api_key: str to Settings')).toEqual([])
  })
})

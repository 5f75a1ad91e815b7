import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// Error lines in tool output a re-test found misread (session 11, re-tester C, inputs ai-errblock.json, ai-vitest.json,
// ai-history.json): the outputs below have those inputs' shapes, written again here.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const result = (content: string, name = 'bash'): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c', name, content, isError: false }] })
const itemsOf = (content: string, name?: string) => full.extract(result(content, name), 0).map((item) => `${item.kind} ${item.text}`)
const errors = (content: string, name?: string) => full.extract(result(content, name), 0).filter((item) => item.kind === 'error').map((item) => item.text)

/** Lines `from` to `to` of a numbered view, as the re-test's tool printed them (`   1  export …`). */
const view = (from: number, to: number, pad = 4) => Array.from({ length: to - from + 1 }, (_, at) => `${String(from + at).padStart(pad)}  export const value_${from + at} = computeThing(${from + at}, "src/upload/multipart.ts") // filler`)

describe('a numbered line of source is never an error’s detail line', () => {
  it('the view printed after `Error: case1 failed …` (ai-errblock.json) leaves the error line alone', () => {
    const output = ['Error: case1 failed at /srv/app/src/mod1.ts:1:7 with code E1001', ...view(1, 60)].join('\n')
    expect(errors(output)).toEqual(['Error: case1 failed at /srv/app/src/mod1.ts:1:7 with code E1001'])
  })

  it('nor a code frame’s line (`  40|`, `> 41 |`, `2 |`), nor cat -n’s, after an error line', () => {
    for (const line of ['     40|     const res = await post("/upload", big)', '    > 41 |     expect(res.status).toBe(413)', '  2 |     let n: u32 = "4";', '     1\tconst a = 1']) {
      expect(errors(`Error: boom at upload\n${line}`)).toEqual(['Error: boom at upload'])
    }
  })

  it('an indented line that is not numbered source is still the detail (`  1 failing` has one space)', () => {
    expect(errors('ValueError: bad config\n    expected int, got str')).toEqual(['ValueError: bad config', 'expected int, got str'])
    expect(errors('Error: upload failed\n  1 failing')).toEqual(['Error: upload failed', '1 failing'])
  })
})

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

describe('test runners’ failed tests are errors, their locations paths', () => {
  // vitest 3's output as ai-vitest.json holds it.
  const vitest = [
    ' RUN  v3.2.4 /home/dev/app',
    '',
    ' ❯ test/upload.test.ts (3 tests | 1 failed) 41ms',
    '   ✓ upload > accepts small files 5ms',
    '   × upload > rejects files over MAX_UPLOAD_BYTES 12ms',
    '     → expected 500 to be 413 // Object.is equality',
    '',
    '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
    '',
    ' FAIL  test/upload.test.ts > upload > rejects files over MAX_UPLOAD_BYTES',
    'AssertionError: expected 500 to be 413 // Object.is equality',
    '',
    '- Expected',
    '+ Received',
    '',
    ' ❯ test/upload.test.ts:42:28',
    '     40|     const res = await post("/upload", big)',
    '     41|     expect(res.status).toBe(413)',
    '       |                        ^',
    '',
    ' Test Files  1 failed (1)',
  ].join('\n')

  it('vitest: the FAIL line and the AssertionError are errors, the location under them a path', () => {
    const items = itemsOf(vitest)
    expect(items).toContain('error FAIL  test/upload.test.ts > upload > rejects files over MAX_UPLOAD_BYTES')
    expect(items).toContain('error AssertionError: expected 500 to be 413 // Object.is equality')
    expect(items).toContain('path test/upload.test.ts:42:28')
  })

  it('jest: the FAIL line and the ● heading of the failed test are errors', () => {
    const jest = [' FAIL  src/upload.test.js', '  upload', '    ✕ rejects files over MAX (5 ms)', '', '  ● upload › rejects files over MAX', '', '    expect(received).toBe(expected) // Object.is equality'].join('\n')
    // (The suite's name, indented under the FAIL line, is its detail line, as under any error line.)
    expect(errors(jest)).toEqual(['FAIL  src/upload.test.js', 'upload', '● upload › rejects files over MAX'])
    expect(errors('  ● Test suite failed to run\n\n    Jest encountered an unexpected token')).toEqual(['● Test suite failed to run'])
  })

  it('not a location before any error, nor one inside a sentence, nor a bullet of a list', () => {
    expect(itemsOf(' ❯ test/upload.test.ts:42:28')).toEqual([])
    expect(itemsOf('Error: boom\nthe run stopped in test/upload.test.ts:42:28 twice')).toEqual(['error Error: boom'])
    expect(itemsOf('Error: boom\n\n ❯ upload:42:28')).toEqual(['error Error: boom'])
    // A linter's `--> path:l:c` under each finding (ruff) is where a listing points: running it again gives it back (on
    // a corpus cut, 16 of them raised the floor past the eval's budget).
    expect(itemsOf("Exit code 1\nF401 [*] `os` imported but unused\n --> src/app/main.py:1:8\n  |\n5 | import os\n  |\n\nN812 Lowercase `functional` imported as non-lowercase `F`\n  --> src/app/block.py:10:8\n").filter((item) => item.startsWith('path'))).toEqual([])
    expect(errors('  ● upload files first\n  ● then run')).toEqual([])
    // `FAIL` is a test runner's word in upper case only, and in a user's words a word (a corpus user's `If FAIL →
    // debug and fix before moving on. Do NOT skip.`) unless it has its colon.
    expect(errors('we may fail here')).toEqual([])
    const user = (text: string) => full.extract({ role: 'user', parts: [{ type: 'text', text }] }, 0).map((item) => `${item.kind} ${item.text}`)
    expect(user('If FAIL → debug and fix before moving on. Do NOT skip.')).toEqual(['constraint Do NOT skip.'])
    expect(user('--- FAIL: TestUpload (0.01s)')).toEqual(['error FAIL: TestUpload (0.01s)'])
  })
})

describe('a read’s numbered view is content; a line after it that is not numbered is the tool’s output', () => {
  const enoent = "Error: ENOENT: no such file or directory, open '/var/data/uploads/tmp-8813.part'"

  it('the ENOENT appended after 60 numbered lines (ai-history.json) is an error, as it is alone', () => {
    expect(errors([...view(1, 60), enoent].join('\n'), 'read_file')).toEqual([enoent])
    expect(errors(enoent, 'read_file')).toEqual([enoent])
    expect(errors([...view(1, 60), 'FAIL test/upload.test.ts > rejects files over MAX_UPLOAD_BYTES=52428800 (expected 413, got 500)'].join('\n'), 'Read')).toHaveLength(1)
  })

  it('the file’s own lines stay content, numbered or not, and so does a page that is no numbered view', () => {
    const code = ['     1\tdef load(path):', '     2\t    raise FileNotFoundError(path)', '     3→    except ValueError: pass'].join('\n')
    expect(errors(code, 'read_file')).toEqual([])
    // A page (no numbered first line) that quotes an error on a later line quotes it.
    expect(errors(['# Handling errors', enoent].join('\n'), 'web_fetch')).toEqual([])
  })
})

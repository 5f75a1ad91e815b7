import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// Build tools' errors that `full` did not find (a re-test on a real Claude Code 2.1 log, session 11, and README's Known
// limits): Gradle's `Execution failed for task ':bootRun'.`, cargo's `error[E0308]:`, tsc's two formats and ESLint's
// stylish format. Each output below has the tool's real shape (as its documentation and the log print it), not a
// log's text. One error item per such line, the line's text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const result = (content: string): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c', name: 'Bash', content, isError: false }] })
const errors = (content: string) => full.extract(result(content), 0).filter((item) => item.kind === 'error').map((item) => item.text)

describe('build tools’ error lines', () => {
  it("Gradle: the line after `* What went wrong:`", () => {
    const gradle = [
      '> Task :bootRun FAILED',
      '',
      'FAILURE: Build failed with an exception.',
      '',
      '* What went wrong:',
      "Execution failed for task ':app:bootRun'.",
      "> Process 'command '/usr/lib/jvm/java-17/bin/java'' finished with non-zero exit value 1",
      '',
      '* Try:',
      '> Run with --stacktrace option to get the stack trace.',
    ].join('\n')
    expect(errors(gradle)).toContain("Execution failed for task ':app:bootRun'.")
  })

  it('cargo: error[E0308]: with its code', () => {
    const cargo = ['   Compiling shapes v0.1.0 (/home/dev/shapes)', 'error[E0308]: mismatched types', ' --> src/main.rs:4:18', '  |', '4 |     let n: u32 = "4";', '  |            ---   ^^^ expected `u32`, found `&str`'].join('\n')
    expect(errors(cargo)).toContain('error[E0308]: mismatched types')
  })

  it('tsc: `file(line,col): error TS…` and `file:line:col - error TS…`, the line whole', () => {
    const plain = "src/cart.ts(21,9): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'."
    const pretty = "src/cart.ts:21:9 - error TS2322: Type 'null' is not assignable to type 'Item'."
    expect(errors(`${plain}\n${pretty}\n\n21     total += qty\n           ~~~\n\nFound 2 errors in the same file, starting at: src/cart.ts:21`)).toEqual(expect.arrayContaining([plain, pretty]))
  })

  it("ESLint's stylish format: each `line:col  error  message  rule` line, not its warnings", () => {
    const eslint = [
      '/home/dev/web/src/cart.js',
      "  4:7   error    'unused' is assigned a value but never used  no-unused-vars",
      '  9:1   warning  Unexpected console statement                 no-console',
      '  12:3  error    Expected \'===\' and instead saw \'==\'          eqeqeq',
      '',
      '✖ 3 problems (2 errors, 1 warning)',
    ].join('\n')
    const found = errors(eslint)
    expect(found).toContain("4:7   error    'unused' is assigned a value but never used  no-unused-vars")
    expect(found).toContain("12:3  error    Expected '===' and instead saw '=='          eqeqeq")
    expect(found.some((text) => text.includes('no-console'))).toBe(false)
  })

  it('adds no noise: `error` in prose, a position before other words, a code that is no code', () => {
    expect(errors('the error TS-style codes are listed in the docs')).toEqual([])
    expect(errors('12:30 meeting about error budgets')).toEqual([])
    expect(errors('3:15 error budget review')).toEqual([])
    expect(errors('step 3: error handling is covered in chapter TS')).toEqual([])
    const prose: Message = { role: 'assistant', parts: [{ type: 'text', text: 'The build printed src/a.ts(1,1): error TS2345 once.' }] }
    expect(full.extract(prose, 0).filter((item) => item.kind === 'error')).toEqual([])
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { Message, Part } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { renderMessage } from '../transcript/render.js'
import { createFullEstimator } from './full.js'

// Regressions from issue 11's re-tests on logs others published: what `full` missed or took for state on them. Each
// test names the class; the examples are of the shape the logs had, not their text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)

describe('the files a patch writes', () => {
  const lines = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}  rule ${index} { margin: 0 }`).join('\n')
  const applyPatch = [
    '*** Begin Patch',
    '*** Update File: /Users/dev/src/panel/assets/css/app.css',
    '@@',
    lines(12, '+'),
    '*** Add File: .gitignore',
    '+node_modules/',
    '+dist/',
    '*** Add File: frontend/src/layout/Header.tsx',
    lines(6, '+'),
    '*** Delete File: docs/old notes.md',
    '*** Update File: src/a.ts',
    '*** Move to: src/b.ts',
    '*** End Patch',
  ].join('\n')

  it('takes each target of a free-form apply_patch (the call\'s arguments one string), located in the call', () => {
    const message = assistant({ type: 'tool-call', id: 'c1', name: 'apply_patch', arguments: applyPatch })
    const items = full.extract(message, 0)
    const targets = ['/Users/dev/src/panel/assets/css/app.css', '.gitignore', 'frontend/src/layout/Header.tsx', 'docs/old notes.md', 'src/a.ts', 'src/b.ts']
    expect(texts(items)).toEqual(expect.arrayContaining(targets))
    const rendered = renderMessage(message).text
    for (const item of items.filter((entry) => targets.includes(entry.text))) expect(rendered.slice(item.start, item.end)).toBe(item.text)
  })

  it('takes the targets of a unified diff under a payload key, and not a removed line that starts with dashes', () => {
    const diff = ['--- a/lib/config.py', '+++ b/lib/config.py', '@@ -1,40 +1,40 @@', lines(30, ' '), '--- old comment line', '-x = 1', '+x = 2', '--- /dev/null', '+++ b/lib/new_module.py', lines(4, '+')].join('\n')
    const items = texts(full.extract(assistant({ type: 'tool-call', id: 'c1', name: 'apply_diff', arguments: { patch: diff } }), 0))
    expect(items).toEqual(expect.arrayContaining(['lib/config.py', 'lib/new_module.py']))
    expect(items).not.toContain('old comment line')
  })
})

const toolResult = (content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content, isError }] })
const errors = (message: Message) => full.extract(message, 0).filter((item) => item.kind === 'error').map((item) => item.text)

describe('error lines that report no error', () => {
  it('takes a field that says "no error" (`Error: (none)`, `error: null`) for none, and a field with an error for one', () => {
    const shell = 'Command: which paru\nDirectory: (root)\nStdout: /usr/bin/paru\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)'
    expect(errors(toolResult(shell))).toEqual([])
    expect(errors(toolResult('{"ok": true}\nerror: null\nERROR: -'))).toEqual([])
    const failed = 'Command: make\nStderr: make: *** No rule to make target `build`.  Stop.\nError: Command failed with exit code 2'
    expect(errors(toolResult(failed))).toEqual(expect.arrayContaining(['Error: Command failed with exit code 2']))
  })

  it('takes a statement of code a file shows (ending with `;`) for code, and an error a program printed for an error', () => {
    const java = [
      '    private PaymentError error;',
      '    return repository.findById(id).orElseThrow(() -> new ResourceNotFoundException("Event not found"));',
      '    throw new IllegalStateException("connection refused");',
    ].join('\n')
    expect(errors(toolResult(java))).toEqual([])
    const printed = 'Exception in thread "main" java.lang.IllegalStateException: connection refused\nbash: paru: command not found\nAssertionError'
    expect(errors(toolResult(printed))).toEqual(['Exception in thread "main" java.lang.IllegalStateException: connection refused', 'bash: paru: command not found', 'AssertionError'])
  })

  it('takes no error from binary data shown as text, and still takes a coloured one', () => {
    const elf = '\u007fELF\u0002\u0001\u0001\u0000\u0000\u0000\u0000 Error \u0000\u0003\u0000>\u0000\u0001\u0000\u0000\u0000\u0010\nGCC: (GNU) 13.2 \u0000\u0000 failed\u0000panic\uFFFD'
    expect(errors(toolResult(elf))).toEqual([])
    expect(errors(toolResult('Error: \u001b[1mcould not compile `app`\u001b[0m\r\nwarning: unused import'))).toEqual(['Error: could not compile `app`'])
  })
})

describe('constraints typed with a typographic apostrophe', () => {
  const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
  const constraints = (text: string) => full.extract(user(text), 0).filter((item) => item.kind === 'constraint').map((item) => item.text)

  it('reads `Don’t`, `can’t`, `shouldn’t` and `mustn’t` as their ASCII forms', () => {
    for (const apostrophe of ["'", '\u2019']) {
      const said = (text: string) => text.replaceAll("'", apostrophe)
      expect(constraints(said("Don't write any code yet."))).toEqual([said("Don't write any code yet.")])
      expect(constraints(said("You can't touch migrations/."))).toHaveLength(1)
      expect(constraints(said("The API shouldn't retry more than twice."))).toHaveLength(1)
      expect(constraints(said("You mustn't push to main."))).toEqual([said("You mustn't push to main.")])
    }
  })
})

describe('an earlier floorguard summary read again', () => {
  it('takes a gist line\'s constraint without its speaker, once, however often it is re-compacted', async () => {
    const { renderStateBlock, gistLine } = await import('../state-block/index.js')
    const constraint = 'Never modify the billing schema.'
    let text = `${renderStateBlock({ items: [{ kind: 'constraint', text: constraint, status: 'current' }] })}\n\n${gistLine('user', constraint)}\n${gistLine('assistant', 'Ran the migration check; it passed.')}`
    for (let round = 0; round < 3; round++) {
      const items = full.extract({ role: 'user', parts: [{ type: 'summary', text, source: 'floorguard' }] }, 0)
      expect(items.filter((item) => item.kind === 'constraint').map((item) => item.text)).toEqual([constraint])
      expect(items.some((item) => item.text.startsWith('user: '))).toBe(false)
      // The next compaction writes the gist of this summary under its speaker again.
      text = `${renderStateBlock({ items: items.map((item) => ({ kind: item.kind, text: item.text, status: 'current' as const })) })}\n\n${gistLine('user', text.split('\n').at(-2)!)}`
    }
  })

  it("reads a gist line as its speaker's text: a tool's or the assistant's line gives no constraint or quoted item", async () => {
    // A re-test: a compacted Claude Code log read again gave 12 new items from the gist's `tool:` lines (a sub-agent's
    // report: `` `map()` ``, `` `--noCheck` ``, "- Always emits `.tsbuildinfo` files…" as a user constraint).
    const { renderStateBlock, gistLine } = await import('../state-block/index.js')
    const constraint = 'Never modify the billing schema.'
    const text = [
      renderStateBlock({ items: [{ kind: 'constraint', text: constraint, status: 'current' }] }),
      '',
      gistLine('user', constraint),
      gistLine('tool', '- Always emits `.tsbuildinfo` files for better incremental build support'),
      gistLine('tool', '- `map()` and `filter()` keep their types; `--noCheck` skips checking'),
      gistLine('assistant', 'You must keep `--build` for the `tsc` step.'),
      gistLine('user', 'Do not use the `legacy-api` flag.'),
    ].join('\n')
    const items = full.extract({ role: 'user', parts: [{ type: 'summary', text, source: 'floorguard' }] }, 0)
    expect(items.filter((item) => item.kind === 'constraint').map((item) => item.text)).toEqual([constraint, 'Do not use the `legacy-api` flag.'])
    expect(texts(items).filter((item) => /tsbuildinfo|map\(\)|noCheck/.test(item))).toEqual([])
  })
})

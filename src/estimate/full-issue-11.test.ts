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

import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { renderMessage } from '../../transcript/render.js'
import { createFullEstimator } from '../full.js'

// Noise in Codex calls a re-test found (session 11, re-tester C, inputs/codex-small.jsonl): a shell call's argument
// vector `["bash","-lc","pytest …"]` gave the items `bash`, `-lc` and the command, and `update_plan`'s steps (`{"plan":
// [{"step": "…", "status": …}]}`) their sentences whole. The calls below have those shapes.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const call = (name: string, args: unknown): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name, arguments: args as never }] })

describe('a shell run on a script: the script is the command', () => {
  it('Codex’s `["bash","-lc",script]` gives the script alone, located at its JSON form', () => {
    const message = call('shell', { command: ['bash', '-lc', 'pytest tests/test_checkout.py -x -q'], workdir: '/home/dev/shop-api' })
    const items = full.extract(message, 0)
    expect(items.map((item) => item.text)).toEqual(['pytest tests/test_checkout.py -x -q', '/home/dev/shop-api'])
    // Offsets still point at each item's own JSON form in the rendered call.
    const rendered = renderMessage(message).text
    expect(rendered.slice(items[0]!.start, items[0]!.end)).toBe('"pytest tests/test_checkout.py -x -q"')
    expect(rendered.slice(items[1]!.start, items[1]!.end)).toBe('"/home/dev/shop-api"')
  })

  it('and its likes (`/bin/zsh -c`, `sh -e -c`, `pwsh -Command`, `cmd /c`); a vector that runs no shell on a script is read as before', () => {
    for (const argv of [['/bin/zsh', '-c', 'make test'], ['sh', '-e', '-c', 'make test'], ['pwsh', '-Command', 'make test'], ['cmd.exe', '/c', 'make test']]) {
      expect(full.extract(call('shell', { command: argv }), 0).map((item) => item.text)).toEqual(['make test'])
    }
    expect(full.extract(call('shell', { command: ['git', 'status'] }), 0).map((item) => item.text)).toEqual(['git', 'status'])
    expect(full.extract(call('shell', { command: ['bash', 'run.sh'] }), 0).map((item) => item.text)).toEqual(['bash', 'run.sh'])
  })
})

describe('a plan’s steps are narrative: the items in them, never the sentence', () => {
  // A step's status stays an argument, as a TodoWrite's does: a re-test's gold (session 10, retest2.py) counts
  // `in_progress` among the items a session uses again (four times), so it is not dropped as noise here.
  it('update_plan: the path a step names and the statuses, no sentence', () => {
    const plan = call('update_plan', { explanation: 'Starting work', plan: [{ step: 'Reproduce the failing checkout test', status: 'in_progress' }, { step: 'Fix the currency default in app/models/order.py', status: 'pending' }] })
    expect(full.extract(plan, 0).map((item) => item.text)).toEqual(['in_progress', 'app/models/order.py', 'pending'])
  })

  it('as TodoWrite’s content gives its path, and its activeForm nothing', () => {
    const todos = call('TodoWrite', { todos: [{ content: 'Fix the failing upload test in test/upload.test.ts', status: 'in_progress', activeForm: 'Fixing the upload test' }] })
    expect(full.extract(todos, 0).map((item) => item.text)).toEqual(['test/upload.test.ts', 'in_progress'])
  })
})

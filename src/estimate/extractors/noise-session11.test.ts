import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// Noise classes a black-box re-test (session 11: a Claude Code 2.1 log, a Codex 0.60 rollout, an aider chat history)
// found among `full`'s items. The texts have the logs' shape, not their text; each test holds the state beside the noise.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] })
const result = (content: string): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c', name: 'Bash', content, isError: false }] })
const call = (name: string, args: Record<string, unknown>): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name, arguments: args as never }] })
const items = (message: Message): FloorItem[] => full.extract(message, 0)
const texts = (message: Message) => items(message).map((item) => item.text)
const ofKind = (message: Message, kind: string) => items(message).filter((item) => item.kind === kind).map((item) => item.text)

describe('a quoted scrap (no letter or digit, or one or two digits alone) is no item', () => {
  it('in user and agent text; a quoted value of its own stays', () => {
    const line = 'split on " " and "; ", then read cells "62" and "63", flag `1`, and "." — but keep "Alt+Shift" and `--max-old-space-size` and "приклеен"'
    for (const message of [user(line), assistant(line)]) {
      const found = ofKind(message, 'quoted')
      for (const scrap of ['" "', '"; "', '"62"', '"63"', '`1`', '"."']) expect(found).not.toContain(scrap)
      expect(found).toContain('`--max-old-space-size`')
    }
    expect(ofKind(user(line), 'quoted')).toEqual(expect.arrayContaining(['"Alt+Shift"', '"приклеен"']))
  })

  it('a tool argument with no letter or digit (`workdir: "."`) is no item; its command is, and so is a glob or a root', () => {
    expect(texts(call('shell_command', { command: 'ls -la', workdir: '.' }))).toEqual(['ls -la'])
    expect(texts(call('Glob', { pattern: '**/*' }))).toEqual(['**/*'])
    expect(texts(call('LS', { path: '/' }))).toEqual(['/'])
  })
})

describe("an error's lead word alone", () => {
  it('is dropped when a fuller error line of the message holds it, and kept when none does', () => {
    const gradle = '> Task :bootRun FAILED\n\nFAILURE: Build failed with an exception.\n\nBUILD FAILED in 34s'
    const found = ofKind(result(gradle), 'error')
    expect(found).not.toContain('FAILED')
    expect(found).toEqual(expect.arrayContaining(['FAILURE: Build failed with an exception.', 'FAILED in 34s']))
    expect(ofKind(result('> Task :test FAILED'), 'error')).toEqual(['FAILED'])
  })
})

describe('user text that is no constraint', () => {
  it('a Markdown heading holding a cue; the list under it still directs', () => {
    const found = ofKind(user('### Required deliverables\n- You must ship a Dockerfile.'), 'constraint')
    expect(found).toEqual(['- You must ship a Dockerfile.'])
  })

  it("a browser's pasted console error is an error, not a constraint", () => {
    const pasted = "Access to script at 'file:///Users/dev/chess/app.js' from origin 'null' has been blocked by CORS policy: Cross origin requests are only supported for protocol schemes: chrome, data, http, https."
    expect(ofKind(user(`I get this in the console:\n${pasted}`), 'constraint')).toEqual([])
    expect(ofKind(user(`I get this in the console:\n${pasted}`), 'error')).toEqual([pasted])
  })

  it("an observation (`I don't see …`) is none; `I don't want …` still directs", () => {
    expect(ofKind(user("Nothing happens on click. Also, I don't see the grid (no cells and no labels)."), 'constraint')).toEqual([])
    expect(ofKind(user("I don't want the schema changed."), 'constraint')).toEqual(["I don't want the schema changed."])
    expect(ofKind(user("Don't change the schema."), 'constraint')).toEqual(["Don't change the schema."])
  })
})

describe("a chat tool's command it names after `use`", () => {
  it("is no path (aider's `You can use /undo to undo …`); a rooted path after `use` stays", () => {
    expect(texts(assistant('You can use /undo to undo and discard each aider commit.'))).toEqual([])
    expect(texts(user('use /srv/data/cache for the files'))).toContain('/srv/data/cache')
  })
})

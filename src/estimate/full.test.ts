import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { TokenizerV1 } from '../spec/tokenizer.js'
import type { Message, Part } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { renderMessage } from '../transcript/render.js'
import { createConservativeEstimator } from './conservative.js'
import { createFullEstimator } from './full.js'

let tokenizer: TokenizerV1
let full: FloorEstimatorV1
beforeAll(async () => {
  tokenizer = await createTokenizer('o200k_base')
  full = createFullEstimator({ tokenizer })
})

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts })
const result = (content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content, isError }] })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const kinds = (items: readonly FloorItem[]) => Object.fromEntries(items.map((item) => [item.text, item.kind]))

describe('full estimator: what is irreducible', () => {
  it('takes whole error lines from the error name to the end of the line', () => {
    const trace = "Traceback (most recent call last):\n  File \"/srv/w.py\", line 88, in write\n    fh.write(buf)\nOSError: [Errno 28] No space left on device: '/var/tmp/x.bin'\n"
    expect(texts(full.extract(result(trace), 3))).toEqual(["OSError: [Errno 28] No space left on device: '/var/tmp/x.bin'"])
    const prefixed = full.extract(result('2026-03-10 12:00:01 worker[3] torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'), 0)
    expect(texts(prefixed)).toEqual(['torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'])
  })

  it('keeps phrase errors, harness errors and exit codes of failing tool results', () => {
    expect(texts(full.extract(result('-bash: rsync: command not found', true), 0))).toEqual(['-bash: rsync: command not found'])
    expect(texts(full.extract(result('Exit code 128\nfatal: not a git repository (or any of the parent directories): .git', true), 0))).toEqual([
      'Exit code 128',
      'fatal: not a git repository (or any of the parent directories): .git',
    ])
    expect(texts(full.extract(result('<tool_use_error>File has not been read yet. Read it first.</tool_use_error>', true), 0))).toEqual([
      '<tool_use_error>File has not been read yet. Read it first.</tool_use_error>',
    ])
    // A failure that names no error keeps its first line.
    expect(texts(full.extract(result('url_not_accessible\nmore detail', true), 0))).toEqual(['url_not_accessible'])
  })

  it('takes whole constraint sentences from user and system messages', () => {
    const items = full.extract(user('Hi there. You must never write to /etc. The weather is nice. Retry at most 3 times!'), 0)
    expect(texts(items)).toEqual(['You must never write to /etc.', 'Retry at most 3 times!'])
    expect(items.map((item) => item.kind)).toEqual(['constraint', 'constraint'])
    // Assistants do not state user constraints: the same sentence from the assistant keeps only its path.
    expect(texts(full.extract(assistant({ type: 'text', text: 'You must never write to /etc.' }), 0))).toEqual(['/etc'])
  })

  it('does not pair apostrophes of contractions into quotes', () => {
    const prose = "I don't think it's ready yet.\nWe'll see what the users' feedback says, it isn't urgent."
    expect(full.extract(assistant({ type: 'text', text: prose }), 0)).toEqual([])
  })

  it('finds quoted strings and regexes, line-bounded', () => {
    // User text: the assistant's quoted prose phrases are quotation, not values (see full-precision.test.ts).
    const items = full.extract(user('Use "exact match" here and `^src/.*\\.ts$` there.\n"unterminated\nnext'), 0)
    expect(kinds(items)).toEqual({ '"exact match"': 'quoted', '`^src/.*\\.ts$`': 'regex' })
  })

  it('recognizes pins, paths, URLs, env, constants, hashes, UUIDs and numbers with units or comparators', () => {
    const text = [
      'pin numpy==1.26.4 and react@18.3.1 with ^2.0; set CUDA_VISIBLE_DEVICES=1 and MAX_RETRIES.',
      'see https://example.com/a?b=1 and ./src/index.ts, commit 3f0a6f23bd82, run 5b1e7a52-8c1d-4c1e-9e0b-1f2a3b4c5d6e',
      'p95 must stay at 250 ms and concurrency >= 3 with learning_rate: 1e-4',
    ].join('\n')
    const found = kinds(full.extract(assistant({ type: 'text', text }), 0))
    expect(found).toMatchObject({
      'numpy==1.26.4': 'version',
      'react@18.3.1': 'version',
      '^2.0': 'version',
      'CUDA_VISIBLE_DEVICES=1': 'env',
      MAX_RETRIES: 'constant',
      'https://example.com/a?b=1': 'url',
      './src/index.ts': 'path',
      '3f0a6f23bd82': 'hash',
      '5b1e7a52-8c1d-4c1e-9e0b-1f2a3b4c5d6e': 'uuid',
      '250 ms': 'number',
      '>= 3': 'number',
      'learning_rate: 1e-4': 'number',
    })
  })

  it('yields nothing for narrative prose', () => {
    const prose = 'We looked around the repository for a while and then decided to take a short break.\nIt went fine overall, and the team was happy with the progress made today.'
    expect(full.estimate([user(prose), assistant({ type: 'text', text: prose }), { role: 'assistant', parts: [{ type: 'reasoning', text: 'I must check /etc/passwd' }] }])).toMatchObject({ irreducible: 0, margin: 0, total: 0, items: [] })
  })

  it('keeps short tool-call arguments whole, a payload without values by its target path, and no call-steering number', () => {
    const call: Part = {
      type: 'tool-call',
      id: 'c1',
      name: 'Write',
      arguments: { file_path: '/srv/app/main.py', content: 'import os\n'.repeat(200), description: 'write the main module' },
    }
    const bash: Part = { type: 'tool-call', id: 'c2', name: 'Bash', arguments: { command: 'pytest -q tests/test_io.py', timeout: 120000 } }
    expect(texts(full.extract(assistant(call, bash), 0))).toEqual(['/srv/app/main.py', 'pytest -q tests/test_io.py'])
  })

  it('scans one-line edit payloads for pins', () => {
    const edit: Part = { type: 'tool-call', id: 'c1', name: 'Edit', arguments: { file_path: 'requirements.txt', old_string: 'fsspec>=2023.1\n', new_string: 'fsspec==2024.6.1\n' } }
    expect(texts(full.extract(assistant(edit), 0))).toEqual(['requirements.txt', 'fsspec>=2023.1', 'fsspec==2024.6.1'])
  })

  it('counts each distinct text once per segment and rounds the margin up', () => {
    const once = full.estimate([user('Never touch /etc/hosts.')])
    const twice = full.estimate([user('Never touch /etc/hosts.'), user('Never touch /etc/hosts.')])
    expect(twice.irreducible).toBe(once.irreducible)
    expect(twice.items).toHaveLength(once.items.length)
    expect(once.margin).toBe(Math.ceil(once.irreducible * 0.2))
    expect(twice.items[0]!.message).toBe(0)
  })

  it('reports offsets into the rendered message text', () => {
    const message = user('first line\nthen run `make test` now')
    const [item] = full.extract(message, 7)
    expect(item).toMatchObject({ kind: 'quoted', message: 7 })
    expect(renderMessage(message).text.slice(item!.start, item!.end)).toBe(item!.text)
  })
})

const fragments = [
  'must', 'never', "don't", "it's", 'only', 'at most 3 retries', ' ', '\n', '. ', '"', "'", '`', '/var/tmp/x.bin', 'numpy==1.26.4',
  'OSError: [Errno 28] No space left', 'CUDA_VISIBLE_DEVICES=1', '250 ms', '>= 3', 'deadbeef12', 'https://a.io/x', 'é', '😀', 'word', 'Word',
  'fatal:', 'Exit code 1', '\r\n', '\t', 'a.b.c', 'x/y', '1e-4', 'key: 7', '\uFEFF',
]
const textArb = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(''))
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  textArb.map((text) => user(text)),
  textArb.map((text) => assistant({ type: 'text', text })),
  fc.tuple(textArb, fc.boolean()).map(([text, isError]) => result(text, isError)),
  fc.tuple(textArb, textArb).map(([command, path]) => assistant({ type: 'tool-call', id: 'c', name: 'Bash', arguments: { command, path } })),
)

describe('full estimator: invariants', () => {
  it('items of a message never overlap and their text is the rendered span (tool arguments aside)', () => {
    fc.assert(
      fc.property(messageArb, (message) => {
        const items = full.extract(message, 0)
        const { text } = renderMessage(message)
        const spans = items.filter((item) => item.kind !== 'tool-argument').sort((a, b) => a.start - b.start)
        for (let index = 1; index < spans.length; index++) expect(spans[index]!.start).toBeGreaterThanOrEqual(spans[index - 1]!.end)
        for (const item of spans) expect(text.slice(item.start, item.end)).toBe(item.text)
      }),
      { numRuns: 300, seed: 1 },
    )
  })

  it('irreducible never exceeds the segment tokens plus one token per item', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 6 }), (messages) => {
        const estimate = full.estimate(messages)
        const segmentTokens = messages.reduce((sum, message) => sum + tokenizer.count(renderMessage(message).text), 0)
        expect(estimate.irreducible).toBeLessThanOrEqual(segmentTokens + estimate.items.length)
      }),
      { numRuns: 300, seed: 2 },
    )
  })

  it('is deterministic and dedups: repeating the segment adds nothing', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 5 }), (messages) => {
        const first = full.estimate(messages)
        expect(createFullEstimator({ tokenizer }).estimate(messages)).toEqual(first)
        const doubled = full.estimate([...messages, ...messages.map((message) => ({ ...message }))])
        expect(doubled.irreducible).toBe(first.irreducible)
        expect(new Set(doubled.items.map((item) => item.text)).size).toBe(doubled.items.length)
      }),
      { numRuns: 200, seed: 3 },
    )
  })
})

describe('full estimator: repeated lines', () => {
  // Lines from a small pool, so that many repeat, and long enough to be looked up (see _repeated-lines.ts).
  const lineArb = fc.array(fc.constantFrom(...fragments.filter((fragment) => !fragment.includes('\n'))), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(''))
  // Near repeats too: a line with one unit changed, which a lookup by a few units cannot tell from the original.
  const mutantArb = fc.tuple(lineArb, fc.nat(), fc.constantFrom('7', 'x', '"', ' ', 'é')).map(([line, at, unit]) => [line, line.slice(0, at % line.length) + unit + line.slice((at % line.length) + 1)])
  const poolArb = fc.array(fc.oneof(lineArb.map((line) => [line]), mutantArb), { minLength: 1, maxLength: 6 }).map((groups) => groups.flat())
  const partArb = fc.tuple(poolArb, fc.array(fc.nat(), { maxLength: 30 }), fc.constantFrom('\n', '\r\n'))
    .map(([pool, picks, newline]) => (picks.length === 0 ? pool : picks.map((pick) => pool[pick % pool.length]!)).join(newline))
  /**
   * What the part holds line by line, found without the scan's skipping: each line extracted after the line before it
   * alone (a two-line text has no repeated line but a copy of its first; an error's detail line is the one extractor
   * that reads the line before), its items shifted to its offset, and the first item of each text kept.
   */
  const lineByLine = (text: string, make: (text: string) => Message) => {
    const seen = new Set<string>()
    const items: FloorItem[] = []
    let offset = 0
    let previous: string | undefined
    for (const line of text.split('\n')) {
      const window = previous === undefined ? line : `${previous}\n${line}`
      const shift = window.length - line.length
      for (const item of full.extract(make(window), 0)) {
        if (item.start < shift) continue
        if (!seen.has(item.text)) items.push({ ...item, start: item.start - shift + offset, end: item.end - shift + offset })
        seen.add(item.text)
      }
      offset += line.length + 1
      previous = line
    }
    return items
  }

  it('finds what the part holds line by line: a skipped line is one that repeats an earlier line', () => {
    // Failing tool results without an error keep their first line, which a line-by-line oracle would do for every line.
    const make = [user, (text: string) => assistant({ type: 'text', text }), (text: string) => result(text)]
    fc.assert(
      fc.property(partArb, fc.nat(make.length - 1), (text, which) => {
        expect(full.extract(make[which]!(text), 0)).toEqual(lineByLine(text, make[which]!))
      }),
      { numRuns: 400, seed: 5 },
    )
  })
})

describe('conservative estimator', () => {
  it('gives a fixed floor to a segment holding a quote, a number or a cue, and 0 otherwise', () => {
    const conservative = createConservativeEstimator({ tokenizer })
    expect(conservative.estimate([user('Keep it "short"')]).total).toBe(1200)
    expect(conservative.estimate([user('we need 3 of them')]).total).toBe(1200)
    expect(conservative.estimate([user('you must stop')]).total).toBe(1200)
    expect(conservative.estimate([user('a pleasant chat about nothing')]).total).toBe(0)
    expect(createConservativeEstimator({ tokenizer, fixedFloor: 900 }).estimate([user('only once')]).total).toBe(900)
  })
})

describe('full estimator: regressions found on the real corpus', () => {
  // ../shared/corpus/real Claude Code session 2 yielded `~22` as a version, `1. **Steps` as a threshold and
  // `except ImportError as e:` as an error.
  it('does not take approximations for version ranges', () => {
    expect(kinds(full.extract(assistant({ type: 'text', text: 'It took ~22 hours and ~2-3 retries; pin ^2.0 and ~1.2.3.' }), 0))).toEqual({ '^2.0': 'version', '~1.2.3': 'version' })
  })

  it('does not read list markers as numbers with units', () => {
    expect(texts(full.extract(assistant({ type: 'text', text: '1. **Steps** to reproduce\n2) retries are off\nuse 3 retries' }), 0))).toEqual(['3 retries'])
  })

  it("keeps a call's closing parenthesis and trims the others", () => {
    // Calls with a literal argument: a call of bare names is a name of code, not state (see full-precision.test.ts).
    const text = 'Call main(1) then f("x"), see (os.path.join("a")) and g(h(i))); also (RUN_TESTS) and x) y) sum(2)). End.'
    expect(texts(full.extract(user(text), 0))).toEqual(['main(1)', 'f("x")', 'os.path.join("a")', 'RUN_TESTS', 'sum(2)'])
    // A `)` that closes nothing in its word is trimmed, one that closes a call is kept (seen in the corpus).
    expect(texts(full.extract(user('see (Depends(get_service, 3)), and x = str(device=2))'), 0))).toEqual(['str(device=2)'])
  })

  it('does not take code that names an exception for an error', () => {
    const code = '    79→    except ImportError as e:\n    80→        raise ValueError("bad config")\nValueError: bad config'
    expect(texts(full.extract(result(code), 0))).toEqual(['ValueError: bad config'])
  })
})

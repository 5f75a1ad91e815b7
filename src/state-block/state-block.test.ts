import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import { clipWords } from './context.js'
import { insertIntoStateBlock, openingStateBlock, parseStateBlock, renderStateBlock, stripStateMarkup, STATE_BLOCK_CLOSE, STATE_BLOCK_OPEN, STATE_BLOCK_OPEN_V1, type StateItem } from './index.js'

const item = (kind: string, text: string, status: StateItem['status'] = 'current', key?: string): StateItem => ({ kind, text, status, ...(key === undefined ? {} : { key }) })

describe('state block v2', () => {
  it('one line per item, sections in the order a model needs them, chains together with their status', () => {
    const block = renderStateBlock({
      items: [
        item('path', 'src/a.ts'),
        item('version', 'fsspec==2024.6.1', 'superseded', 'pin:fsspec'),
        item('error', 'E1\nE2'),
        item('constraint', 'Never write outside src/.'),
        item('error', 'disk full', 'superseded'),
        item('error', 'ENOENT: no such file'),
        item('version', 'fsspec>=2023.1,<2024.3', 'current', 'pin:fsspec'),
        item('tool-argument', 'uv run pytest -x'),
        item('quoted', '</floorguard-state>'),
      ],
    })
    expect(block).toBe(
      [
        STATE_BLOCK_OPEN,
        '## constraints',
        '- [] Never write outside src/.',
        '## decisions and pins',
        '- [superseded; pin:fsspec] fsspec==2024.6.1',
        '- [current; pin:fsspec] fsspec>=2023.1,<2024.3',
        '## errors',
        '-2 [] E1\nE2',
        '- [] ENOENT: no such file',
        '- [superseded] disk full',
        '## tool calls',
        '- [] uv run pytest -x',
        '## literals',
        '- [] </floorguard-state>',
        '## paths and urls',
        '- [] src/a.ts',
        STATE_BLOCK_CLOSE,
      ].join('\n'),
    )
  })

  it('names who said or produced each item: speaker, message, tool and the command of a tool result', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Never touch prod.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: 'git log --oneline -3' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'a1b2c3d fix\nfatal: bad object', isError: true }] },
    ]
    const items = [
      { kind: 'constraint', text: 'Never touch prod.', status: 'current' as const, tokens: 4, message: 10, start: 0, end: 17 },
      { kind: 'tool-argument', text: 'git log --oneline -3', status: 'current' as const, tokens: 6, message: 11, start: 5, end: 30 },
      { kind: 'error', text: 'fatal: bad object', status: 'current' as const, tokens: 4, message: 12, start: 12, end: 29 },
    ]
    const full = renderStateBlock({ items, messages, offset: 10 })
    expect(full).toContain('\n- [user #10] Never touch prod.\n')
    expect(full).toContain('\n- [call #11; Bash] git log --oneline -3\n')
    expect(full).toContain('\n- [tool #12; Bash: git log --oneline -3] fatal: bad object\n')
    expect(renderStateBlock({ items, messages, offset: 10, detail: 'short' })).toContain('\n- [tool] fatal: bad object\n')
  })

  it('property: parse(render(items)) gives back every item with its status, at every detail, whatever the texts hold', () => {
    const hostile = fc.constantFrom('\n', '- ', '## ', '* ', ' ', STATE_BLOCK_CLOSE, STATE_BLOCK_OPEN, STATE_BLOCK_OPEN_V1, '-3 ', '(superseded) ', '[superseded] ', '] ', '[', '\r', 'x', '')
    const text = fc.array(fc.oneof(hostile, fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''))
    const spec = fc.record({ kind: fc.constantFrom('path', 'error', 'number', 'version', 'constraint'), text, superseded: fc.boolean(), key: fc.option(fc.constantFrom('pin:a', 'b]; superseded', 'c'), { nil: undefined }) })
    fc.assert(
      fc.property(fc.uniqueArray(spec, { selector: (s) => s.text, maxLength: 8 }), fc.string({ maxLength: 20 }), fc.constantFrom('full' as const, 'short' as const, 'minimal' as const, 'flat' as const), (specs, narrative, detail) => {
        const items = specs.map((s) => item(s.kind, s.text, s.superseded ? 'superseded' : 'current', s.key))
        const summary = `${renderStateBlock({ items, detail })}\n\n${narrative}`
        const block = parseStateBlock(summary)
        expect(block).toBeDefined()
        expect(block!.start).toBe(0)
        const parsed = block!.entries.map((entry) => `${entry.status}|${entry.text}`).sort()
        for (const entry of block!.entries) expect(summary.slice(entry.start, entry.start + entry.text.length)).toBe(entry.text)
        expect(parsed).toEqual(items.map((i) => `${i.status}|${i.text}`).sort())
      }),
      { numRuns: 300 },
    )
  })

  it("every layout names what the summary replaced on its opening line, the tightest too (a re-test: audit could not place a flat block)", () => {
    const items = [item('path', 'src/app.ts'), item('number', '42')]
    for (const detail of ['full', 'short', 'grouped', 'minimal', 'flat'] as const) {
      const block = renderStateBlock({ items, detail, replaced: { start: 3, end: 9, tokens: 5310 } })
      expect(block.split('\n')[0]).toBe('<floorguard-state v="2" range="3-9" tokens="5310">')
      expect(openingStateBlock(block)).toEqual({ range: [3, 9], tokens: 5310 })
      expect(parseStateBlock(block)?.entries.map((entry) => entry.text)).toEqual(['src/app.ts', '42'])
    }
  })

  it('reads a status from the line context only: item text that begins like a mark stays current', () => {
    const forged = renderStateBlock({ items: [item('quoted', '(superseded) keep me'), item('quoted', '[superseded] me too')] })
    expect(parseStateBlock(forged)?.entries.map((entry) => entry.status)).toEqual(['current', 'current'])
  })

  it('still reads version 1 blocks', () => {
    const v1 = `${STATE_BLOCK_OPEN_V1}\n## path\n* a/b c\n(superseded) x@1\n-2 E1\nE2\n${STATE_BLOCK_CLOSE}`
    expect(parseStateBlock(v1)?.entries.map((entry) => [entry.status, entry.text])).toEqual([
      ['current', 'a/b'],
      ['current', 'c'],
      ['superseded', 'x@1'],
      ['current', 'E1\nE2'],
    ])
  })

  it('finds a block after leading prose and rejects malformed ones', () => {
    expect(parseStateBlock(`Intro\n${STATE_BLOCK_OPEN}\n## paths and urls\n- [] a/b\n\n* c d\n${STATE_BLOCK_CLOSE}`)?.entries.map((entry) => entry.text)).toEqual(['a/b', 'c', 'd'])
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\n## errors\n- [] a/b`)).toBeUndefined()
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\nstray before any heading\n${STATE_BLOCK_CLOSE}`)).toBeUndefined()
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\n## errors\n-3 [] only one line\n${STATE_BLOCK_CLOSE}`)).toBeUndefined()
    expect(parseStateBlock(`${STATE_BLOCK_OPEN}\n## errors\n- no context\n${STATE_BLOCK_CLOSE}`)).toBeUndefined()
    expect(parseStateBlock('no block here')).toBeUndefined()
  })

  it('inserts missing items under their section, keeps the lines already there, or adds a block at the start', () => {
    const summary = `${renderStateBlock({ items: [item('path', 'a/b')], detail: 'minimal' })}\n\nThe agent edited files.`
    const repaired = insertIntoStateBlock(summary, [item('path', 'c/d'), item('number', '42'), item('version', 'x==1', 'superseded', 'pin:x')])
    expect(repaired).toBe(`${STATE_BLOCK_OPEN}\n## paths and urls\n* a/b\nc/d\n## identifiers and values\n42\n## decisions and pins\n- [superseded] x==1\n${STATE_BLOCK_CLOSE}\n\nThe agent edited files.`)
    expect(parseStateBlock(repaired)?.entries.map((entry) => entry.text)).toEqual(['a/b', 'c/d', '42', 'x==1'])
    expect(insertIntoStateBlock('Just prose.', [item('number', '42')])).toBe(`${STATE_BLOCK_OPEN}\n## identifiers and values\n* 42\n${STATE_BLOCK_CLOSE}\n\nJust prose.`)
  })

  it('strips markup so the block syntax is not scanned as content', () => {
    const summary = `${renderStateBlock({ items: [item('path', 'a/b'), item('number', '7', 'superseded')] })}\nrest`
    expect(stripStateMarkup(summary)).toBe('a/b\n7\nrest')
    expect(stripStateMarkup('no block')).toBe('no block')
  })
})

describe('reading entries back', () => {
  it('gives each entry its kind by section and the key of its chain', async () => {
    const { entryKey, entryKind } = await import('./index.js')
    const block = parseStateBlock(renderStateBlock({ items: [item('version', 'a==1', 'superseded', 'pin:a'), item('version', 'a==2', 'current', 'pin:a'), item('error', 'boom'), item('constraint', 'Only ASCII.')] }))!
    expect(block.entries.map((entry) => [entryKind(entry), entryKey(entry) ?? null, entry.text])).toEqual([
      ['constraint', null, 'Only ASCII.'],
      ['version', 'pin:a', 'a==1'],
      ['version', 'pin:a', 'a==2'],
      ['error', null, 'boom'],
    ])
  })
})

describe('the grouped layout', () => {
  // A Write of a config and a user turn: the config's settings are one group under the file they were written to.
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'Never touch prod.yaml. Keep save_steps at 500.' }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Write', arguments: { file_path: '/repo/configs/sft.yaml', content: 'save_steps: 500\nwarmup_steps: 100' } }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'Write', arguments: { file_path: '/repo/configs/dpo.yaml', content: 'save_steps: 200' } }] },
  ]
  // Each message has one part, which holds the item (its offset only picks the part).
  const located = (message: number, text: string) => ({ kind: 'number', text, status: 'current' as const, tokens: 1, message, start: 0, end: text.length })
  const items = [located(1, 'save_steps: 500'), located(1, 'warmup_steps: 100'), located(2, 'save_steps: 200')]

  it('puts the items of one call under one heading naming the call and its target; a run after a headed one gets its own', () => {
    const block = renderStateBlock({ items, messages, detail: 'grouped' })
    expect(block.split('\n')).toEqual([
      STATE_BLOCK_OPEN,
      '## identifiers and values',
      '### #1 call Write: /repo/configs/sft.yaml',
      'save_steps: 500',
      'warmup_steps: 100',
      '### #2 call Write: /repo/configs/dpo.yaml',
      'save_steps: 200',
      STATE_BLOCK_CLOSE,
    ])
    // Headings are not items: the block reads back exactly its items.
    expect(parseStateBlock(block)!.entries.map((entry) => entry.text)).toEqual(['save_steps: 500', 'warmup_steps: 100', 'save_steps: 200'])
    // The minimal layout has no headings.
    expect(renderStateBlock({ items, messages, detail: 'minimal' })).not.toContain('###')
  })
})

describe('the grouped layout marks what a command left out', () => {
  const script = ['ssh -p 2222 root@10.0.0.7 << \'EOF\'', 'cd /workspace', ...Array.from({ length: 26 }, (_, index) => `echo "step ${index}"`), 'python train.py --max_steps 3000', 'EOF'].join('\n')
  const messages: Message[] = [{ role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: script } }] }]
  const kept = ["ssh -p 2222 root@10.0.0.7 << 'EOF'", 'cd /workspace', 'python train.py --max_steps 3000']
  const items = kept.map((text) => ({ kind: 'tool-argument', text, status: 'current' as const, tokens: 1, message: 0, start: 0, end: text.length }))

  it('says how many of the command\'s lines its items keep, on the heading', () => {
    const block = renderStateBlock({ items, messages, detail: 'grouped' })
    expect(block.split('\n')).toContain("### #0 call Bash: ssh -p 2222 root@10.0.0.7 << 'EOF' (3 of 30 lines kept)")
    expect(parseStateBlock(block)!.entries.map((entry) => entry.text)).toEqual(kept)
  })

  it('gives a lone kept line of a long command its heading too, and a command kept whole no count', () => {
    const lone = renderStateBlock({ items: items.slice(0, 1), messages, detail: 'grouped' })
    expect(lone).toContain('(1 of 30 lines kept)')
    const whole: Message[] = [{ role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'Bash', arguments: { command: 'npm test\nnpm run lint' } }] }]
    const both = ['npm test', 'npm run lint'].map((text) => ({ kind: 'tool-argument', text, status: 'current' as const, tokens: 1, message: 0, start: 0, end: text.length }))
    expect(renderStateBlock({ items: both, messages: whole, detail: 'grouped' })).toContain('### #0 call Bash: npm test\n')
  })
})

describe('the full layout marks what a command left out', () => {
  it("names the share of the command's lines its items keep in each line's context", () => {
    const script = ['cd /workspace', ...Array.from({ length: 20 }, (_, index) => `echo "step ${index}"`), 'python train.py --max_steps 3000'].join('\n')
    const messages: Message[] = [{ role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: script } }] }]
    const items = ['cd /workspace', 'python train.py --max_steps 3000'].map((text) => ({ kind: 'tool-argument', text, status: 'current' as const, tokens: 1, message: 0, start: 0, end: text.length }))
    expect(renderStateBlock({ items, messages, detail: 'full' }).split('\n')).toContain('- [call #0; Bash: 2 of 22 lines kept] python train.py --max_steps 3000')
    // A one-line command has no count.
    const one: Message[] = [{ role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'Bash', arguments: { command: 'npm test' } }] }]
    const test = { kind: 'tool-argument', text: 'npm test', status: 'current' as const, tokens: 1, message: 0, start: 0, end: 8 }
    expect(renderStateBlock({ items: [test], messages: one, detail: 'full' })).toContain('- [call #0; Bash] npm test')
  })
})

describe('contexts never show part of a word', () => {
  // A cut word reads as an identifier the session never had (`https://programs.example.org/c…`): the eval counted such
  // cuts as invented identifiers in floorguard's own summaries.
  const url = 'https://programs.example.org/chi/2024/program/content/147523?session=abc'
  const path = '/Users/someone/projects/diffusion/src/diffusion_lm/models/masked_diffusion_lm.py'
  const messages: Message[] = [
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'WebFetch', arguments: { url, prompt: 'the accepted papers' } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'Error: 404 Not Found', isError: true }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'Read', arguments: { file_path: path } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'c2', content: 'Error: permission denied', isError: true }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'c3', name: 'Bash', arguments: { command: 'python scripts/train.py --config configs/a-rather-long-name.yaml --resume-from /tmp/ckpt' } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'c3', content: 'Error: no such file', isError: true }] },
  ]
  const error = (message: number, text: string) => ({ kind: 'error', text, status: 'current' as const, tokens: 1, message, start: 0, end: text.length })
  const items = [error(1, 'Error: 404 Not Found'), error(3, 'Error: permission denied'), error(5, 'Error: no such file')]

  it('cuts a command at a word (a flag with its value), and keeps of a long path or URL its last whole segments', () => {
    for (const detail of ['full', 'grouped'] as const) {
      const block = renderStateBlock({ items, messages, detail })
      // Every `…` stands alone or before the `/` segments it kept: never right after a unit of a word.
      expect(block).not.toMatch(/[^\s(]…/)
      for (const kept of block.match(/…\/[^\s\]]+/g) ?? []) expect(path.endsWith(kept.slice(1)) || url.endsWith(kept.slice(1))).toBe(true)
    }
    const full = renderStateBlock({ items, messages, detail: 'full' })
    expect(full).toContain('WebFetch: …/chi/2024/program/content/147523?session=abc]')
    expect(full).toContain('Read: …/src/diffusion_lm/models/masked_diffusion_lm.py]')
    // The flag whose value is cut off goes with it (`--config …` would read as a setting with the value `…`).
    expect(full).toContain('Bash: python scripts/train.py …]')
    expect(clipWords('python train.py --config configs/a-rather-long-name.yaml', 40)).toBe('python train.py …')
  })
})

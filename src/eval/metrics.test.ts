import { describe, expect, it } from 'vitest'
import type { Message } from '../spec/transcript.js'
import type { GoldItem } from './gold/index.js'
import {
  aggregate, argumentStrings, bootstrapMean, containmentMatch, distinctGold, futureReferenced, invented, keptItems, mean, quantile,
  referenceText, renderPlain, settingValue, share, withoutMarkup,
} from './metrics.js'

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] })

describe('survival and future references', () => {
  it('keptItems and share count verbatim occurrences (hand-computed: 2 of 3)', () => {
    const items = [{ text: '/etc/hosts' }, { text: 'fsspec==2024.6.1' }, { text: '--max_steps 3000' }]
    const summary = 'We edited /etc/hosts and pinned fsspec==2024.6.1; --max_steps 300 was used.'
    expect(keptItems(items, summary).map((item) => item.text)).toEqual(['/etc/hosts', 'fsspec==2024.6.1'])
    expect(share(2, 3)).toBeCloseTo(0.6667, 4)
    expect(share(0, 0)).toBeNull()
  })

  it('a later use counts in user text, assistant text and tool-call arguments, never in tool output, reasoning or summaries', () => {
    const later: Message[] = [
      user('please keep ALPHA'),
      assistant('I will keep BETA'),
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: { command: "ssh host << 'EOF'\nrun GAMMA\nEOF" } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: 'DELTA printed', isError: false }] },
      { role: 'user', parts: [{ type: 'summary', text: 'summary mentions EPSILON', source: 'claude-code' }] },
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'thinking about ZETA' }] },
      { role: 'system', parts: [{ type: 'text', text: 'system says OMEGA' }] },
    ]
    const items = ['ALPHA', 'BETA', 'run GAMMA', 'DELTA', 'EPSILON', 'ZETA', 'OMEGA'].map((text) => ({ text }))
    expect(futureReferenced(items, referenceText(later)).map((item) => item.text)).toEqual(['ALPHA', 'BETA', 'run GAMMA'])
  })

  it('no match spans two pieces of the later text', () => {
    const later = [user('ends with AB'), user('CD starts this')]
    expect(futureReferenced([{ text: 'ABCD' }, { text: 'AB' }], referenceText(later)).map((item) => item.text)).toEqual(['AB'])
  })

  it('distinctGold keeps the first occurrence and notes any occurrence outside tool output', () => {
    const items: GoldItem[] = [
      { kind: 'path', text: '/a', message: 3, source: 'tool-result' },
      { kind: 'path', text: '/a', message: 5, source: 'assistant' },
      { kind: 'id', text: 'abc1234', message: 4, source: 'tool-result' },
    ]
    expect(distinctGold(items)).toEqual([
      { kind: 'path', text: '/a', message: 3, source: 'tool-result', outsideToolOutput: true },
      { kind: 'id', text: 'abc1234', message: 4, source: 'tool-result', outsideToolOutput: false },
    ])
  })

  it('argumentStrings and renderPlain keep a heredoc with its line breaks; masking replaces tool output only', () => {
    const segment: Message[] = [
      { role: 'assistant', parts: [{ type: 'text', text: 'go' }, { type: 'tool-call', id: 'c', name: 'bash', arguments: { command: 'a\nb', n: 3, flags: [true] } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c', content: 'secret output', isError: false }] },
    ]
    expect(argumentStrings({ command: 'a\nb', n: 3, flags: [true] })).toEqual(['a\nb', '3', 'true'])
    expect(argumentStrings({ command: ['node', '--version'], files: [['a.py'], 'b.py'] })).toEqual(['node --version', 'a.py', 'b.py'])
    expect(renderPlain(segment)).toBe('go\nbash\na\nb\n3\ntrue\n\nsecret output')
    expect(renderPlain(segment, { maskToolOutput: '[x]' })).toBe('go\nbash\na\nb\n3\ntrue\n\n[x]')
  })
})

describe('invented identifiers', () => {
  it('counts identifiers absent from the segment, settings by their value, and ignores other kinds (hand-computed: 2)', () => {
    const segment = 'we used lr=3e-4 on /data/train.jsonl'
    const found = invented(
      [
        { kind: 'setting', text: 'learning_rate: 3e-4' }, // value present: a rewording
        { kind: 'setting', text: 'epochs: 12' }, // value absent
        { kind: 'path', text: '/data/train.jsonl' }, // present
        { kind: 'path', text: '/data/eval.jsonl' }, // absent
        { kind: 'constraint', text: 'never do X' }, // not an identifier kind
        { kind: 'path', text: '/data/eval.jsonl' }, // counted once
      ],
      segment,
    )
    expect(found).toEqual(['epochs: 12', '/data/eval.jsonl'])
  })

  it('settingValue strips the key and quotes; withoutMarkup drops tag-only lines', () => {
    expect(settingValue('tokens="197"')).toBe('197')
    expect(settingValue('--max_steps 3000')).toBe('3000')
    expect(settingValue('key: v')).toBe('v')
    expect(withoutMarkup('<floorguard-state v="2" range="0-3" tokens="59">\n- item a=1\n</floorguard-state>\ntext <b>')).toBe('- item a=1\ntext <b>')
  })
})

describe('containmentMatch', () => {
  it('matches when one text contains the other, in either direction (hand-computed)', () => {
    const full = ['pip install torch==2.1.0', 'README.md', 'zzz', 'x']
    const gold = ['torch==2.1.0', 'docs/README.md', 'nothing', 'y']
    const match = containmentMatch(full, gold)
    expect(match.a).toEqual([true, true, false, false])
    expect(match.b).toEqual([true, true, false, false])
  })

  it('never matches across two joined texts', () => {
    const match = containmentMatch(['ab', 'cd'], ['bc'])
    expect(match.a).toEqual([false, false])
    expect(match.b).toEqual([false])
    // Even when a text holds the separator itself.
    const nul = containmentMatch(['b\u0000c'], ['ab', 'cd'])
    expect(nul.a).toEqual([false])
    expect(nul.b).toEqual([false, false])
  })

  it('agrees with the plain quadratic definition on many small lists', () => {
    const alphabet = ['a', 'b', 'ab', 'ba', 'aab', 'abc', 'c', 'bca', 'cab', '']
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)]!)
      const b = Array.from({ length: Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)]!)
      const plain = (x: string, ys: string[]) => x !== '' && ys.some((y) => y !== '' && (y.includes(x) || x.includes(y)))
      const match = containmentMatch(a, b)
      expect(match.a).toEqual(a.map((x) => plain(x, b)))
      expect(match.b).toEqual(b.map((y) => plain(y, a)))
    }
  })
})

describe('aggregates', () => {
  it('mean and type-7 quantiles (hand-computed)', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5)
    expect(mean([])).toBeNull()
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5)
    expect(quantile([1, 2, 3, 4], 0.95)).toBeCloseTo(3.85, 10) // h = 3 × 0.95 = 2.85 → 3 + 0.85 × (4 − 3)
    expect(quantile([10, 20, 30, 40, 50], 0.25)).toBe(20)
    expect(quantile([7], 0.95)).toBe(7)
  })

  it('the bootstrap is deterministic for a seed and moves with it', () => {
    const values = [0.1, 0.5, 0.9, 0.3, 0.7, 0.2, 1, 0]
    expect(bootstrapMean(values, { seed: 3 })).toEqual(bootstrapMean(values, { seed: 3 }))
    expect(bootstrapMean(values, { seed: 3 })).not.toEqual(bootstrapMean(values, { seed: 4 }))
  })

  it('the bootstrap interval of a constant is that constant, and of 50 zeros and 50 ones about 0.5 ± 1.96 × 0.05', () => {
    const [constantLow, constantHigh] = bootstrapMean([0.8, 0.8, 0.8], { seed: 1 })!
    expect(constantLow).toBeCloseTo(0.8, 12)
    expect(constantHigh).toBeCloseTo(0.8, 12)
    const coin = Array.from({ length: 100 }, (_, index) => index % 2)
    const [low, high] = bootstrapMean(coin, { seed: 1, resamples: 4000 })!
    expect(low).toBeGreaterThan(0.38)
    expect(low).toBeLessThan(0.42)
    expect(high).toBeGreaterThan(0.58)
    expect(high).toBeLessThan(0.62)
  })

  it('aggregate skips nulls and reports n, min and max', () => {
    const result = aggregate([null, 0.5, 1, null, 0], { seed: 1, resamples: 50 })
    expect(result).toMatchObject({ n: 3, mean: 0.5, median: 0.5, min: 0, max: 1 })
    expect(aggregate([null], { seed: 1 })).toMatchObject({ n: 0, mean: null, ci: null })
  })
})

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCaptured } from '../_test-io.js'

const directory = mkdtempSync(join(tmpdir(), 'floorguard-demo-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

let json: { code: number; stdout: string; stderr: string }
let logText: string

beforeAll(async () => {
  json = await runCaptured(['demo', '--json', '--log', 'events.jsonl'], { cwd: directory })
  logText = readFileSync(join(directory, 'events.jsonl'), 'utf8')
}, 120_000)

describe('floorguard demo --json', () => {
  it('prints exactly one object with the four keys, and exits 0', () => {
    expect(json.code).toBe(0)
    expect(json.stderr).toBe('')
    expect(json.stdout.endsWith('}\n')).toBe(true)
    expect(json.stdout.trimEnd().split('\n')).toHaveLength(1)
    const document = JSON.parse(json.stdout) as Record<string, unknown>
    expect(Object.keys(document)).toEqual(['version', 'arms', 'events', 'planted'])
    expect(document.version).toBe(1)
    expect(Object.keys(document.arms as object)).toEqual(['naive', 'floorguard'])
  })

  it('lists the three planted items with a boolean per arm: naive loses one at least, floorguard none', () => {
    const { planted } = JSON.parse(json.stdout) as { planted: Array<Record<string, unknown>> }
    expect(planted).toHaveLength(3)
    for (const item of planted) {
      expect(Object.keys(item)).toEqual(['kind', 'text', 'naive', 'floorguard'])
      expect(typeof item.naive).toBe('boolean')
    }
    expect(planted.map((item) => item.kind)).toEqual(['constraint', 'error', 'version-pin'])
    expect(planted.every((item) => item.floorguard === true)).toBe(true)
    expect(planted.some((item) => item.naive === false)).toBe(true)
  })

  it('pairs the compactions of both arms, the first at turn 412 with the same region, floor and N', () => {
    const { events } = JSON.parse(json.stdout) as { events: Array<{ index: number; naive: Record<string, unknown> | null; floorguard: Record<string, unknown> | null }> }
    expect(events.length).toBeGreaterThanOrEqual(1)
    const [first] = events
    expect(first!.index).toBe(1)
    expect(first!.naive).toMatchObject({ turn: 412, decision: 'compact', slot: 2000 })
    expect(first!.floorguard).toMatchObject({ turn: 412, decision: 'split', slot: 2000, turns: first!.naive!.turns, floor: first!.naive!.floor, items: first!.naive!.items })
    expect(first!.floorguard!.verbatim).toBe(first!.floorguard!.items)
  })

  it('--log writes the runtime events of both arms as JSON lines', () => {
    const lines = logText.trimEnd().split('\n').map((line) => JSON.parse(line) as { arm: string; turn: number; type: string; call: number })
    expect(new Set(lines.map((line) => line.arm))).toEqual(new Set(['naive', 'floorguard']))
    const types = new Set(lines.map((line) => line.type))
    for (const type of ['compaction-start', 'plan-end', 'summary-end', 'compaction-end']) expect(types.has(type)).toBe(true)
    const start = lines.find((line) => line.arm === 'floorguard' && line.type === 'compaction-start')!
    expect(start.turn).toBe(412)
  })
})

describe('floorguard demo (text)', () => {
  it('prints the side-by-side report with the fates at turn 430', async () => {
    const { code, stdout } = await runCaptured(['demo', '--turns', '440'])
    expect(code).toBe(0)
    expect(stdout).toContain('compaction 1')
    expect(stdout).toMatch(/at turn 430 +naive +floorguard/)
    expect(stdout).toMatch(/\(a\) constraint, exact regex +LOST +kept verbatim/)
    expect(stdout).toContain('^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$')
  }, 60_000)
})

describe('floorguard demo: bad usage exits 2 with one line', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--turns', '0'], /--turns: expected a positive integer, got "0"/],
    [['--turns', 'many'], /--turns: expected a positive integer/],
    [['--turns', '999999'], /--turns: expected a positive integer of at most 2000/],
    [['--seed', '-1'], /--seed/],
    [['--bogus'], /bogus/],
    [['transcript.json'], /expected no FILE/],
    [['--log', join('no-such-directory', 'events.jsonl')], /^floorguard demo: --log no-such-directory\/events.jsonl: cannot create a file in /],
    [['--log', '-'], /--log -: standard output carries the report/],
    [['--log', ''], /--log: expected a FILE name/],
  ]
  for (const [args, message] of cases) {
    it(args.join(' '), async () => {
      const { code, stdout, stderr } = await runCaptured(['demo', ...args], { cwd: directory })
      expect(code).toBe(2)
      expect(stdout).toBe('')
      expect(stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(stderr).toMatch(message)
    })
  }

  it('--help exits 0 with the usage', async () => {
    const { code, stdout } = await runCaptured(['demo', '--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('usage: floorguard demo')
  })
})

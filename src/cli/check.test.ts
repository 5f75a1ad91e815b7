import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createTokenizer } from '../tokenize/index.js'
import { runCaptured } from './_test-io.js'

const repo = join(import.meta.dirname, '..', '..')
const example = join(repo, 'examples', 'turn-412.openai.json')
const work = mkdtempSync(join(tmpdir(), 'floorguard-check-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const path = join(work, name)
  writeFileSync(path, text)
  return path
}

describe('floorguard check', () => {
  it('prints exactly one JSON object in the documented shape', async () => {
    const { code, stdout } = await runCaptured(['check', example, '--json'])
    expect(code).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    const report = JSON.parse(lines[0]!)
    expect(Object.keys(report)).toEqual(['version', 'file', 'format', 'tokenizer', 'estimator', 'segment', 'floor', 'slot', 'decision', 'items'])
    expect(report).toMatchObject({ version: 1, file: example, format: 'openai', tokenizer: 'o200k_base', estimator: 'full', slot: 2000 })
    // Without --range, the segment is what compact would compact: message 0, the system prompt, is left out.
    expect(report.segment).toMatchObject({ range: [1, 16], messages: 15, toolCalls: 6, toolResults: 6, unpaired: 0 })
    expect(report.floor.total).toBe(report.floor.irreducible + report.floor.margin)
    expect(report.floor.irreducible).toBe(report.items.reduce((sum: number, item: { tokens: number }) => sum + item.tokens, 0))
    expect(report.decision.kind).toBe('compact')
    for (const item of report.items) expect(Object.keys(item)).toEqual(['kind', 'text', 'tokens', 'message', 'start', 'end'])
    expect(report.items.map((item: { text: string }) => item.text)).toContain("OSError: [Errno 28] No space left on device: '/var/tmp/x.bin'")
  })

  it('refuses when the slot is below the floor, and still exits 0', async () => {
    const { code, stdout } = await runCaptured(['check', example, '--json', '--slot', '50'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).decision.kind).not.toBe('compact')
  })

  it("splits the record's turn 412 (floor 2,264 against a 2,000 slot) into two 1,400-token slots", async () => {
    const { code, stdout } = await runCaptured(['check', join(repo, 'examples', 'turn-412-record.openai.json'), '--json'])
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.floor).toEqual({ irreducible: 1886, margin: 378, total: 2264 })
    expect(report.decision).toMatchObject({ kind: 'split', reason: 'parts-fit-their-slots' })
    expect(report.decision.parts.map((part: { slot: number }) => part.slot)).toEqual([1400, 1400])
    expect(report.decision.parts[0].range[0]).toBe(1)
    const whole = JSON.parse((await runCaptured(['check', join(repo, 'examples', 'turn-412-record.openai.json'), '--json', '--range', '0:'])).stdout)
    expect(whole.segment.range).toEqual([0, 27])
    expect(whole.floor).toEqual({ irreducible: 1906, margin: 382, total: 2288 })
    const text = await runCaptured(['check', join(repo, 'examples', 'turn-412-record.openai.json')])
    expect(text.stdout).toContain('segment messages 1–27 (26 messages, 3370 tokens, 11 tool calls, 11 results, 0 unpaired)\n  (message 0, the system prompt, is left out, as compact leaves it: --range 0: includes it)\n')
    expect(report.decision.parts.at(-1).range[1]).toBe(report.segment.range[1])
  })

  it('a refusal carries its reason code, the offending units and options', async () => {
    const { stdout } = await runCaptured(['check', example, '--json', '--slot', '100'])
    const { decision } = JSON.parse(stdout)
    expect(decision.kind).toBe('refuse')
    expect(typeof decision.reason).toBe('string')
    expect(decision.units.length).toBeGreaterThan(0)
    expect(decision.options.map((option: { kind: string }) => option.kind)).toContain('raise-slot')
  })

  it('honours --range, --margin, --tokenizer and --estimator', async () => {
    const { stdout } = await runCaptured(['check', example, '--json', '--range', '1:4', '--margin', '0.25', '--tokenizer', 'cl100k_base', '--estimator', 'full'])
    const report = JSON.parse(stdout)
    expect(report.segment).toMatchObject({ range: [1, 4], messages: 3 })
    expect(report.tokenizer).toBe('cl100k_base')
    expect(report.floor.margin).toBe(Math.ceil(report.floor.irreducible * 0.25))
    expect(report.items.every((item: { message: number }) => item.message >= 1 && item.message < 4)).toBe(true)
  })

  it('treats --format text as one segment of the whole file, newlines untranslated', async () => {
    const text = 'You must keep CRLF.\r\nPath: /var/tmp/x.bin\r\n'
    const { stdout } = await runCaptured(['check', file('plain.txt', text), '--format', 'text', '--json'])
    const report = JSON.parse(stdout)
    const tokenizer = await createTokenizer('o200k_base')
    expect(report.segment).toMatchObject({ range: [0, 1], messages: 1, tokens: tokenizer.count(text) })
    expect(report.items.map((item: { text: string }) => item.text)).toEqual(['You must keep CRLF.', '/var/tmp/x.bin'])
  })

  it('reads standard input for -', async () => {
    const { code, stdout } = await runCaptured(['check', '-', '--format', 'text', '--json'], { stdin: 'Never use port 8080.' })
    expect(code).toBe(0)
    expect(JSON.parse(stdout).items[0].text).toBe('Never use port 8080.')
  })

  it('prints a readable report by default', async () => {
    const { stdout } = await runCaptured(['check', example])
    expect(stdout).toMatch(/^floor \d+ tokens = irreducible \d+ \+ margin \d+/m)
    expect(stdout).toContain('largest items:')
    expect(stdout).toMatch(/^decision: COMPACT/m)
  })

  it.each([
    [['check', example, '--slot', 'lots'], /--slot: expected a positive integer, got "lots"/],
    [['check', example, '--margin', '2'], /--margin: expected a number from 0 to 1/],
    [['check', example, '--range', '9'], /--range: expected A:B/],
    [['check', example, '--range', '0:99'], /--range: expected indices within the transcript's 16 messages/],
    [['check', example, '--tokenizer', 'p50k'], /unknown tokenizer "p50k": expected one of o200k_base, cl100k_base, approx/],
    [['check', example, '--estimator', 'magic'], /unknown estimator "magic": expected one of full, seed, conservative/],
    [['check', example, '--bogus'], /Unknown option '--bogus'/],
    [['check', join(work, 'missing.json')], /missing\.json: expected a readable file/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ])('bad usage %j exits 2 with one line', async (argv, message) => {
    const { code, stderr, stdout } = await runCaptured(argv)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(message)
  })

  it('reports malformed JSON as file:line:column and exits 2 without a stack', async () => {
    const path = file('broken.json', '[\n  {"role": "user", "content": "hi"},\n  {"role": \n')
    const { code, stderr } = await runCaptured(['check', path, '--format', 'openai'])
    expect(code).toBe(2)
    expect(stderr).toMatch(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: expected`))
    expect(stderr).not.toMatch(/\n\s+at /)
  })

  it('--lenient past three skipped lines of a kind: one more line names the rest by line (a re-test: hundreds of lines)', async () => {
    const record = (uuid: string, parentUuid: string | null) => JSON.stringify({ type: 'user', message: { role: 'user', content: 'Never use port 8080.' }, uuid, parentUuid, sessionId: 's', timestamp: '2026-01-01T00:00:00Z' })
    const lines = [record('u1', null), ...Array.from({ length: 8 }, () => '{"type": broken'), record('u2', 'u1')]
    const path = file('noisy.jsonl', `${lines.join('\n')}\n`)
    const { code, stderr } = await runCaptured(['check', path, '--json', '--lenient'])
    expect(code).toBe(0)
    const warnings = stderr.trimEnd().split('\n')
    expect(warnings).toHaveLength(4)
    expect(warnings.slice(0, 3).map((warning) => /noisy\.jsonl:(\d+):/.exec(warning)?.[1])).toEqual(['2', '3', '4'])
    // The other skipped lines are named by number (the column, the same in each, is not repeated): none is silent.
    expect(warnings[3]).toBe('floorguard check: warning: and 5 more like the one above, at 5, 6, 7, 8, 9')
  })

  it('reports a truncated last JSONL line, and with --lenient skips it out loud', async () => {
    const record = JSON.stringify({ type: 'user', message: { role: 'user', content: 'Never use port 8080.' }, uuid: 'u1', parentUuid: null, sessionId: 's', timestamp: '2026-01-01T00:00:00Z' })
    const path = file('live.jsonl', `${record}\n{"type":"user","mess`)
    const strict = await runCaptured(['check', path, '--json'])
    expect(strict.code).toBe(2)
    expect(strict.stderr).toMatch(/live\.jsonl:2:\d+: expected a complete JSON record, got a truncated line/)
    const lenient = await runCaptured(['check', path, '--json', '--lenient'])
    expect(lenient.code).toBe(0)
    expect(JSON.parse(lenient.stdout)).toMatchObject({ format: 'claude-code', segment: { messages: 1 } })
    expect(lenient.stderr).toMatch(/warning: .*live\.jsonl:2:\d+: .*truncated/)
    // plan and compact read through the same path and say it too.
    const plan = await runCaptured(['plan', path, '--json', '--lenient'])
    expect(plan.code).toBe(0)
    expect(plan.stderr).toMatch(/^floorguard plan: warning: .*live\.jsonl:2:\d+: .*truncated/)
    const compact = await runCaptured(['compact', path, '--json', '--lenient', '-o', `${path}.out`])
    expect(compact.stderr).toMatch(/^floorguard compact: warning: .*live\.jsonl:2:\d+: .*truncated/m)
  })

  it('adds the stack with --debug', async () => {
    const { stderr } = await runCaptured(['check', file('broken2.json', '{'), '--format', 'openai', '--debug'])
    expect(stderr).toMatch(/\n\s+at /)
  })

  it('never modifies the input file', async () => {
    const before = readFileSync(example)
    await runCaptured(['check', example, '--json'])
    expect(readFileSync(example).equals(before)).toBe(true)
  })
})

describe('a one-message segment (issue 11: no changed-decision scan that the report does not show)', () => {
  const text = 'We use threshold: 0.8.\nNow threshold: 0.9, with MAX_STEPS=4000 in /srv/app/config.yaml.\n'

  it.each([['5'], ['2000']])('--slot %s: the decision is the one plan (which scans) makes', async (slot) => {
    const path = file(`one-${slot}.txt`, text)
    const checked = await runCaptured(['check', path, '--json', '--slot', slot])
    const planned = await runCaptured(['plan', path, '--json', '--slot', slot])
    expect(checked.code).toBe(0)
    const plan = JSON.parse(planned.stdout)
    expect(plan.plan.state.map((entry: { value: string }) => entry.value)).toEqual(['0.8', '0.9'])
    expect(JSON.parse(checked.stdout).decision).toMatchObject(plan.decision)
  })

  it("a refusal's report still shows the changed decisions", async () => {
    const { code, stdout } = await runCaptured(['check', file('one-text.txt', text), '--slot', '5'])
    expect(code).toBe(0)
    expect(stdout).toContain('decision: REFUSE')
    expect(stdout).toContain('changed decisions (the summary must present the current value as current):\n    var:threshold: 0.8 (#0) → 0.9 (#0, current)\n')
  })
})

describe('hostile inputs through check (results, not times)', () => {
  const check = async (text: string, estimator = 'full') => JSON.parse((await runCaptured(['check', file(`h-${estimator}.txt`, text), '--format', 'text', '--json', '--estimator', estimator])).stdout)

  it('treats blobs (runs of word characters, digits, capitals, dots, one giant token) as narrative', async () => {
    for (const text of ['a'.repeat(1 << 20), '1'.repeat(1 << 20), 'A'.repeat(1 << 20), 'a.'.repeat(1 << 19), 'x/'.repeat(1 << 19)]) {
      expect((await check(text)).floor).toEqual({ irreducible: 0, margin: 0, total: 0 })
    }
  })

  it('prices a repeated quote once and ignores unterminated quotes', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const repeated = await check('say "x" '.repeat(100_000))
    expect(repeated.items).toHaveLength(1)
    expect(repeated.floor.irreducible).toBe(tokenizer.count('"x"'))
    expect((await check('"open and never closed\n'.repeat(50_000).replaceAll('never', 'forever'))).floor.total).toBe(0)
  })

  it('keeps every distinct path of a long listing', async () => {
    const listing = Array.from({ length: 20_000 }, (_, index) => `/srv/data/shard-${index}.bin`).join('\n')
    const report = await check(listing)
    expect(report.items).toHaveLength(20_000)
    expect(report.items.every((item: { kind: string }) => item.kind === 'path')).toBe(true)
  })
})

describe('the floorguard binary', () => {
  it('runs from the checkout (dist/ built by npm ci) and exits 2 on bad input', () => {
    const ok = spawnSync(process.execPath, [join(repo, 'bin', 'floorguard.js'), 'check', example, '--json'], { encoding: 'utf8' })
    expect(ok.status).toBe(0)
    expect(JSON.parse(ok.stdout).version).toBe(1)
    const bad = spawnSync(process.execPath, [join(repo, 'bin', 'floorguard.js'), 'check', example, '--slot', '-1'], { encoding: 'utf8' })
    expect(bad.status).toBe(2)
  })
})

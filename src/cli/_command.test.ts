import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { parseCommandArgs, parseIntegerFlag } from './_command.js'
import { assertBuilt, BIN, REPO, runCaptured } from './_test-io.js'

// Regression tests of issue 11 ("Options"): every command parses and bounds its options the same way, one line, exit 2.

const example = join(REPO, 'examples', 'turn-412.openai.json')
const work = mkdtempSync(join(tmpdir(), 'floorguard-options-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const out = join(work, 'out.json')

async function expectUsageError(argv: string[], message: RegExp, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const { code, stdout, stderr } = await runCaptured(argv, { env })
  expect(code, argv.join(' ')).toBe(2)
  expect(stdout).toBe('')
  expect(stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1)
  expect(stderr).toMatch(message)
}

const commands: Array<[string, ...string[]]> = [
  ['check', example],
  ['plan', example],
  ['compact', example, '-o', out],
]

describe('options shared by check, plan and compact', () => {
  it.each(commands)('%s rejects a range past the transcript instead of clamping it', async (...argv) => {
    await expectUsageError([...argv, '--range', '0:999'], /--range: expected indices within the transcript's 16 messages, got 0:999$/m)
    expect(existsSync(out)).toBe(false)
  })

  it.each(commands)('%s names a --range index beyond 2^53 - 1 as typed, not as the number it rounds to', async (...argv) => {
    await expectUsageError([...argv, '--range', '0:99999999999999999999'], /--range: expected indices of at most 9007199254740991, got "0:99999999999999999999"$/m)
    await expectUsageError([...argv, '--range', '9007199254740993:'], /got "9007199254740993:"$/m)
  })

  it.each(commands)('%s reads a negative --slot as a value and says a positive integer is expected', async (...argv) => {
    await expectUsageError([...argv, '--slot', '-5'], /--slot: expected a positive integer, got "-5"$/m)
    await expectUsageError([...argv, '--slot', '0'], /--slot: expected a positive integer, got "0"$/m)
    await expectUsageError([...argv, '--slot', '--json'], /--slot: expected a value, got the option --json$/m)
  })

  it.each(commands)('%s rejects a --slot beyond 2^53 - 1', async (...argv) => {
    await expectUsageError([...argv, '--slot', '99999999999999999999'], /--slot: expected a positive integer of at most 9007199254740991, got "99999999999999999999"$/m)
    await expectUsageError([...argv, '--slot', '9007199254740992'], /at most 9007199254740991/)
  })
})

describe('compact options', () => {
  it('rejects a --timeout setTimeout cannot wait, without a TimeoutOverflowWarning', () => {
    assertBuilt()
    const run = spawnSync(process.execPath, [BIN, 'compact', example, '--timeout', '99999999999', '-o', out], { encoding: 'utf8', timeout: 30_000 })
    expect(run.status).toBe(2)
    expect(run.stderr).toBe('floorguard compact: --timeout: expected a positive integer of at most 2147483647 (milliseconds, about 24.8 days), got "99999999999"\n')
  })

  it('accepts the largest --timeout and rejects 0 and negative --attempts and --budget', async () => {
    await expectUsageError(['compact', example, '--timeout', '0'], /--timeout: expected a positive integer, got "0"$/m)
    await expectUsageError(['compact', example, '--attempts', '0'], /--attempts: expected a positive integer, got "0"$/m)
    await expectUsageError(['compact', example, '--budget', '-1'], /--budget: expected a non-negative integer, got "-1"$/m)
    const largest = await runCaptured(['compact', example, '--timeout', '2147483647', '-o', join(work, 'largest.json')])
    expect(largest.code).toBe(0)
  })

  it.each([
    ['openai', 'OPENAI_API_KEY'],
    ['anthropic', 'ANTHROPIC_API_KEY'],
    ['google', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  ])('ai:%s without its key: one line naming %s, exit 2, no attempt', async (provider, variable) => {
    await expectUsageError(['compact', example, '--summarizer', `ai:${provider}:some-model`, '-o', out], new RegExp(`ai:${provider} needs ${variable}: set it in the environment`), {
      PATH: process.env.PATH,
    })
    expect(existsSync(out)).toBe(false)
  })
})

describe('parseIntegerFlag and parseCommandArgs', () => {
  it('read back every integer from 1 to 2^53 - 1 written in decimal, with or without leading zeros (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.nat(3), (value, zeros) => {
        const text = `${'0'.repeat(zeros)}${value}`
        expect(parseIntegerFlag('n', text, 0, { min: 1 })).toBe(value)
        expect(parseCommandArgs(['--n', text], { n: { type: 'string' } }).values.n).toBe(text)
      }),
    )
  })

  it('refuse every value that is not plain digits, or is past the bound (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 8 }).filter((text) => !/^\d+$/.test(text)), (text) => {
        expect(() => parseIntegerFlag('n', text, 0)).toThrow(/^--n: expected a non-negative integer, got /)
      }),
    )
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 31n, max: 10n ** 30n }), (value) => {
        expect(() => parseIntegerFlag('timeout', value.toString(), 0, { min: 1, max: 2 ** 31 - 1 })).toThrow(/of at most 2147483647/)
      }),
    )
  })

  it('gives a value-taking option the next argument whatever it starts with, and leaves -, -- and booleans alone', () => {
    const options = { slot: { type: 'string' }, output: { type: 'string', short: 'o' }, json: { type: 'boolean' } } as const
    expect(parseCommandArgs(['--slot', '-5', '-o', '-x.json', '--json'], options)).toEqual({ values: { slot: '-5', output: '-x.json', json: true }, positionals: [] })
    expect(parseCommandArgs(['-o', '-', 'file'], options)).toEqual({ values: { output: '-' }, positionals: ['file'] })
    expect(parseCommandArgs(['--json', '--', '--slot', '-5'], options)).toEqual({ values: { json: true }, positionals: ['--slot', '-5'] })
  })

  it('refuses a value-taking option with nothing after it, or followed by another option, naming it', () => {
    const options = { slot: { type: 'string' }, output: { type: 'string', short: 'o' }, json: { type: 'boolean' } } as const
    expect(() => parseCommandArgs(['chat.json', '--slot'], options)).toThrow(/^--slot: expected a value, got nothing$/)
    expect(() => parseCommandArgs(['chat.json', '--slot', '-o', '-'], options)).toThrow(/^--slot: expected a value, got the option -o$/)
    expect(() => parseCommandArgs(['-o', '--json'], options)).toThrow(/^-o: expected a value, got the option --json$/)
    expect(() => parseCommandArgs(['--slot', '--output=x.json'], options)).toThrow(/^--slot: expected a value, got the option --output=x.json$/)
    // A value that only looks like an option of another command is a value.
    expect(parseCommandArgs(['--slot', '-x'], options).values.slot).toBe('-x')
  })
})

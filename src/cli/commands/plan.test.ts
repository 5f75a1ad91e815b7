import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../../errors.js'
import type { CliIo } from '../_command.js'
import { checkCommand } from './check.js'
import { planCommand } from './plan.js'

const fixtures = fileURLToPath(new URL('../../../examples/', import.meta.url))

function setup() {
  let stdout = ''
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: () => undefined, stdin: Readable.from([]), cwd: fixtures, env: {} }
  return { io, out: () => stdout }
}

async function runJson(args: string[]) {
  const { io, out } = setup()
  const code = await planCommand.run(['turn-412-record.openai.json', '--json', ...args], io)
  return { code, document: JSON.parse(out()) as { decision: Record<string, unknown>; plan: { kind: string } } }
}

describe('floorguard plan', () => {
  it("splits the record's turn 412 (floor 2,264 without the system prompt) into two 1,400-token slots", async () => {
    const { code, document } = await runJson(['--slot', '2000'])
    expect(code).toBe(0)
    expect(document.decision).toMatchObject({
      kind: 'split',
      parts: [
        { range: [1, 18], floor: 1364, slot: 1400 },
        { range: [18, 27], floor: 1365, slot: 1400 },
      ],
      summaryTokens: 2800,
    })
    expect(document.plan).toMatchObject({ kind: 'split', floor: { irreducible: 1886, margin: 378, total: 2264 } })
  })

  it('leaves the system prompt out as compact does, and says so; --range 0: takes it in (a re-test: plan refused what compact compacted)', async () => {
    const { io, out } = setup()
    expect(await planCommand.run(['turn-412-record.openai.json'], io)).toBe(0)
    expect(out()).toContain('messages 1–27 of 27\n  (message 0, the system prompt, is left out, as compact leaves it: --range 0: includes it)\n')
    const whole = await runJson(['--range', '0:', '--slot', '2000'])
    expect(whole.document.plan).toMatchObject({ kind: 'split', floor: { irreducible: 1906, margin: 382, total: 2288 } })
    expect(whole.document.decision).toMatchObject({ parts: [{ range: [0, 18] }, { range: [18, 27] }] })
  })

  it('prints a readable report', async () => {
    const { io, out } = setup()
    expect(await planCommand.run(['turn-412-record.openai.json'], io)).toBe(0)
    expect(out()).toContain('floor 2264 tokens = irreducible 1886 + margin 378')
    expect(out()).toContain('decision: SPLIT into 2 summaries, 2800 tokens in all')
    expect(out()).toContain('pin:fsspec: >=2023.1 (#8) → ==2024.6.1 (#8) → ==2024.6.1 (#12) → >=2023.1,<2024.3 (#12, current)')
  })

  it('refuses with reason, units and options, and still exits 0', async () => {
    const { code, document } = await runJson(['--slot', '600'])
    expect(code).toBe(0)
    expect(document.decision.kind).toBe('refuse')
    expect(['unit-exceeds-slot', 'would-cut-unit']).toContain(document.decision.reason)
    expect(document.decision.units).toEqual(expect.arrayContaining([expect.objectContaining({ range: expect.any(Array), floor: expect.any(Number) })]))
    expect(document.decision.options).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'raise-slot' }), { kind: 'accept-risk', shortfall: 1664 }]))
  })

  it('honours --range, --budget and the conditions of validity', async () => {
    expect((await runJson(['--range', '18:27', '--slot', '2000'])).document.decision).toMatchObject({ kind: 'compact', range: [18, 27] })
    expect((await runJson(['--budget', '2799'])).document.decision).toMatchObject({ kind: 'refuse', reason: 'budget-exceeded' })
    expect((await runJson(['--retrievable'])).document.decision).toMatchObject({ kind: 'compact', guard: 'retrievable' })
    expect((await runJson(['--unconstrained'])).document.decision).toMatchObject({ kind: 'compact', guard: 'unconstrained', slot: 2264 })
  })

  it('gives the decision as check does: its reason code too, for compact, split and refuse', async () => {
    // A black-box re-test: plan --json had no decision.reason although its decision is documented "as in check".
    const checkDecision = async (args: string[]) => {
      const { io, out } = setup()
      await checkCommand.run(['turn-412-record.openai.json', '--json', ...args], io)
      return (JSON.parse(out()) as { decision: Record<string, unknown> }).decision
    }
    const cases: Array<[string[], string, string]> = [
      [['--range', '18:27', '--slot', '2000'], 'compact', 'slot-covers-floor'],
      [['--slot', '2000'], 'split', 'parts-fit-their-slots'],
      [['--slot', '600'], 'refuse', 'unit-exceeds-slot'],
    ]
    for (const [args, kind, reason] of cases) {
      const { document } = await runJson(args)
      expect(document.decision).toMatchObject({ kind, reason })
      expect(document.decision).toEqual(await checkDecision(args))
    }
  })

  it('bad usage is a one-line error', async () => {
    const { io } = setup()
    await expect(planCommand.run(['turn-412-record.openai.json', '--slot', 'many'], io)).rejects.toThrow('--slot: expected a positive integer, got "many"')
    await expect(planCommand.run(['turn-412-record.openai.json', '--slot-rounding', '0'], io)).rejects.toThrow('--slot-rounding')
    await expect(planCommand.run(['a', 'b'], io)).rejects.toBeInstanceOf(FloorguardError)
  })
})

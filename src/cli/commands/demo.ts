import { demoJson, renderDemo } from '../../demo/render.js'
import { runDemo, type ArmRuntimeEvent } from '../../demo/run.js'
import { DEFAULT_SEED, DEFAULT_TURNS } from '../../demo/session.js'
import { eventsJsonl } from '../../runtime/index.js'
import { parseCommandArgs, parseIntegerFlag, UsageError, type CliCommand } from '../_command.js'
import { resolveOutput, writeOutput, type OutputTarget } from '../_output.js'

/** Most turns `--turns` accepts: the session stays a few seconds of work. */
export const MAX_DEMO_TURNS = 2_000

const usage = `usage: floorguard demo [--json] [--log FILE] [--seed N] [--turns N]

Runs the record's observed system as a deterministic simulation (no network, no model, no clock): a ${DEFAULT_TURNS}-turn
coding-agent session, 128k budget, 85% high-water mark, the oldest 40% of turns compacted into a 2,000-token slot.
The same session goes through two arms of floorguard's runtime (createCompactor):
  naive       a summarizer whose length pressure favours narrative over state, no floor check, no verification
  floorguard  the defaults: floor check (compact / split / refuse), ledger summarizer, verification
It prints each compaction side by side (turn, region, floor, slot, decision, items surviving verbatim n/N), then the
fate at turn 430 of the record's three items: (a) a user constraint stated as an exact regex, (b) a tool error with an
errno and a path, (c) a version pin that was later reverted.

  --json       print one JSON object: {"version":1,"arms":{"naive":{…},"floorguard":{…}},"events":[…],
               "planted":[{"kind","text","naive","floorguard"}]}
  --log FILE   write every runtime event of both arms to FILE as JSON Lines ({…event,"arm","turn"}), as
               floorguard compact --log does (compaction-start, plan-end, summary-end, verify-error, refusal,
               compaction-end); not standard output, which carries the report
  --seed N     seed of the session (default ${DEFAULT_SEED}: its first compaction falls at turn 412, as in the record)
  --turns N    session length in turns (default ${DEFAULT_TURNS}, at most ${MAX_DEMO_TURNS})

Exit codes: 0 ran (whatever the arms did), 2 bad usage, 1 internal error or failed write; 141 when the reader of
standard output went away (| head), quietly.`

const options = {
  json: { type: 'boolean' },
  log: { type: 'string' },
  seed: { type: 'string' },
  turns: { type: 'string' },
} as const

/** `--log FILE`, resolved like `-o` before the simulation runs; standard output carries the report. */
async function resolveLog(value: string, cwd: string): Promise<OutputTarget> {
  if (value === '') throw new UsageError('--log: expected a FILE name, got ""')
  const target = await resolveOutput(value, cwd).catch((error: unknown) => {
    throw error instanceof UsageError ? new UsageError(error.message.replace(/^-o /, '--log ')) : error
  })
  if (target.kind === 'stdout') throw new UsageError(`--log ${value}: standard output carries the report; give the log a file`)
  return target
}

/** `floorguard demo` (and `npm start`): the record's scenario, naive arm against floorguard, side by side. */
export const demoCommand: CliCommand = {
  name: 'demo',
  summary: "simulate the record's turn-412 failure: a naive compactor against floorguard, side by side",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, options)
    if (positionals.length > 0) throw new UsageError(`expected no FILE (the demo generates its session), got ${positionals.join(' ')}`)
    const seed = parseIntegerFlag('seed', values.seed, DEFAULT_SEED, { max: 2 ** 32 - 1 })
    const turns = parseIntegerFlag('turns', values.turns, DEFAULT_TURNS, { min: 1, max: MAX_DEMO_TURNS })
    // Resolved before the run, so a log that cannot be written fails in milliseconds, not after the simulation.
    const log = typeof values.log === 'string' ? await resolveLog(values.log, io.cwd) : undefined
    const events: ArmRuntimeEvent[] = []
    const result = await runDemo({
      seed,
      turns,
      // The log's `time` is real (ms since each arm's compactor was created); the simulation never reads it.
      ...(log ? { onEvent: (event: ArmRuntimeEvent) => void events.push(event), clock: () => performance.now() } : {}),
    })
    if (log) await writeOutput(log, new TextEncoder().encode(eventsJsonl(events)), io)
    if (values.json) await io.stdout(`${JSON.stringify(demoJson(result))}\n`)
    else await io.stdout(renderDemo(result))
    return 0
  },
}

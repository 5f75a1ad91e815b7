import { decisionOf, resolveRange } from '../../check/index.js'
import { describePlan, planDecisionJson } from '../../report/plan.js'
import { planCompaction } from '../../plan/plan.js'
import type { PlanOptions } from '../../plan/types.js'
import { parseCommandArgs, parseIntegerFlag, UsageError, type CliCommand } from '../_command.js'
import { ESTIMATION_FLAGS, resolveEstimation } from '../_estimation.js'
import { writeJsonLine } from '../_json-out.js'
import { loadTranscript } from '../_load.js'
import { systemNote } from '../_system-note.js'
import { leadingSystemCount } from '../../transcript/system-prefix.js'

const usage = `usage: floorguard plan [FILE|-] [--range A:B] [--slot N] [--budget N] [--slot-rounding N] [--json]
                      [--retrievable] [--narrative-only] [--dead-region] [--unconstrained] [--no-link-superseded]
                      [--format auto|openai|…] [--tokenizer o200k_base|cl100k_base|approx]
                      [--estimator full|seed|conservative] [--margin R] [--lenient]

Plans the compaction of a transcript segment before any summarizer runs: COMPACT when the slot holds the floor,
SPLIT into parts that each fit their own slot within the summary budget (fewest summaries, then fewest summary
tokens, then cuts at user turns; tool calls and results, errors and their fixes, changed decisions are never cut),
or REFUSE with the offending units and options with numbers. FILE defaults to standard input.

  --range A:B          half-open range of message indices (default: all but the leading system messages, as compact)
  --slot N             summary slot in tokens (default 2000)
  --budget N           most tokens the summaries of a split may cost in all (default: the range's tokens - 1)
  --slot-rounding N    round part slots up to a multiple of N (default 100; 1 sizes them to the floor)
  --retrievable        the raw transcript is kept elsewhere: pointer plus gist, no floor
  --narrative-only     the segment is narrative: a gist suffices, no floor
  --dead-region        the segment is never re-read: no floor
  --unconstrained      the summarizer has no fixed cap: never refuse, the slot becomes at least the floor
  --no-link-superseded mark changed decisions but do not keep a value and its change in one summary
  --json               print one JSON object: {version, file, …, decision, plan}
  --format, --tokenizer, --estimator, --margin, --lenient: as for floorguard check

Exit codes: 0 ran (whatever the decision; it is in the output), 2 bad usage or input, 1 internal error or failed
write; 141 when the reader of standard output went away (| head), quietly.`

const options = {
  ...ESTIMATION_FLAGS,
  budget: { type: 'string' },
  'slot-rounding': { type: 'string' },
  retrievable: { type: 'boolean' },
  'narrative-only': { type: 'boolean' },
  'dead-region': { type: 'boolean' },
  unconstrained: { type: 'boolean' },
  'no-link-superseded': { type: 'boolean' },
} as const

/** `floorguard plan`: the compact / split / refuse plan of a segment, with parts, units and options. */
export const planCommand: CliCommand = {
  name: 'plan',
  summary: 'plan a compaction: compact, split into parts that fit, or refuse with options',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, options)
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}: ${positionals.join(' ')}`)
    const budget = values.budget === undefined ? undefined : parseIntegerFlag('budget', values.budget, 0)
    const slotRounding = parseIntegerFlag('slot-rounding', values['slot-rounding'], 100)
    if (slotRounding < 1) throw new UsageError(`--slot-rounding: expected an integer >= 1, got ${slotRounding}`)
    const { slot, range, format, lenient, tokenizer, estimator } = await resolveEstimation(values)
    const { transcript, name } = await loadTranscript(positionals[0], io, { format, lenient, keepSource: false, command: 'plan' })
    // Without --range, the plan is for what `compact` would compact: the system prompt is never in it.
    const system = range ? 0 : leadingSystemCount(transcript.messages)
    const [start, end] = resolveRange(range ?? (system > 0 ? { start: system } : undefined), transcript.messages.length)
    const planOptions: PlanOptions = {
      slot,
      slotRounding,
      ...(budget === undefined ? {} : { budget }),
      retrievable: values.retrievable === true,
      narrativeOnly: values['narrative-only'] === true,
      deadRegion: values['dead-region'] === true,
      unconstrained: values.unconstrained === true,
      linkSuperseded: values['no-link-superseded'] !== true,
    }
    const plan = planCompaction({ messages: transcript.messages.slice(start, end), offset: start, pairs: transcript.pairs, estimator, tokenizer }, planOptions)
    if (values.json) {
      // The decision as check gives it: kind, reason code and message, then the plan's details.
      const document = { version: 1, file: name, format: transcript.format, tokenizer: tokenizer.name, estimator: estimator.name, decision: { ...decisionOf(plan), ...planDecisionJson(plan) }, plan }
      await writeJsonLine(io, document)
    } else {
      const header = [`floorguard plan ${name}`, `  format ${transcript.format} · tokenizer ${tokenizer.name} · estimator ${estimator.name} · messages ${start}–${end} of ${transcript.messages.length}`, ...(system > 0 ? [`  ${systemNote(system)}`] : []), '']
      await io.stdout(`${[...header, ...describePlan(plan)].join('\n')}\n`)
    }
    return 0
  },
}

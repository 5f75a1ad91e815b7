import { checkTranscript, resolveRange, type CheckResult } from '../../check/index.js'
import { findSupersededState } from '../../plan/superseded.js'
import { describePlan, planDecisionJson } from '../../report/plan.js'
import { checkJson, renderCheckReport } from '../../report/check.js'
import { parseCommandArgs, UsageError, type CliCommand } from '../_command.js'
import { ESTIMATION_FLAGS, resolveEstimation } from '../_estimation.js'
import { writeJsonLine } from '../_json-out.js'
import { loadTranscript } from '../_load.js'
import { systemNote } from '../_system-note.js'
import { leadingSystemCount } from '../../transcript/system-prefix.js'

const usage = `usage: floorguard check [FILE|-] [--format auto|text|openai|…] [--range A:B] [--slot N] [--margin R]
                       [--tokenizer o200k_base|cl100k_base|approx] [--estimator full|seed|conservative]
                       [--lenient] [--json] [--debug]

Estimates the floor (irreducible tokens + coherence margin) of a transcript segment and decides whether it can be
compacted into a summary slot of N tokens. FILE defaults to standard input.

  --format      input format, or auto (default) to detect it
  --range A:B   half-open range of message indices (default: all but the leading system messages, as compact)
  --slot N      summary slot in tokens (default 2000)
  --margin R    coherence margin ratio (default 0.2)
  --tokenizer   o200k_base (default), cl100k_base, approx (ceil(chars/4))
  --estimator   full (default), seed (the record's reference estimator), conservative (fixed floor)
  --lenient     skip and report malformed JSONL lines and unreadable records (a truncated last line too)
  --json        print one JSON object instead of the report

Exit codes: 0 ran (whatever the decision), 2 bad usage or input, 1 internal error or failed write; 141 when the
reader of standard output went away (| head), quietly.`


/** `floorguard check`: the floor of a segment and the compact/split/refuse decision. */
export const checkCommand: CliCommand = {
  name: 'check',
  summary: 'estimate a segment\'s floor and decide: compact, split or refuse',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, ESTIMATION_FLAGS)
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}: ${positionals.join(' ')}`)
    const { slot, range, format, lenient, tokenizer, estimator } = await resolveEstimation(values)
    const { transcript, name } = await loadTranscript(positionals[0], io, { format, lenient, keepSource: false, command: 'check' })
    // A one-message segment links no changed decision, and its report shows them only as REFUSE's text lines: the
    // scan for them (a pass over the whole text) runs only then.
    // Without --range, the segment is what `compact` would compact: the system prompt is never in it.
    const system = range ? 0 : leadingSystemCount(transcript.messages)
    const segment = range ?? (system > 0 ? { start: system } : undefined)
    const [start, end] = resolveRange(segment, transcript.messages.length)
    const oneMessage = end - start <= 1
    let result: CheckResult = checkTranscript(transcript, { estimator, tokenizer, slot, ...(segment ? { range: segment } : {}), ...(oneMessage ? { plan: { changedDecisions: false } } : {}) })
    if (oneMessage && !values.json && result.plan.kind !== 'compact') {
      result = { ...result, plan: { ...result.plan, state: findSupersededState(transcript.messages.slice(start, end), start) } }
    }
    const context = { file: name, format: transcript.format, tokenizer: tokenizer.name, estimator: estimator.name }
    if (values.json) await writeJsonLine(io, checkJson(result, context, planDecisionJson(result.plan)))
    else {
      const lines = result.decision.kind === 'compact' ? [] : describePlan(result.plan).filter((line) => !line.startsWith('floor ') && !line.startsWith('decision: '))
      await io.stdout(renderCheckReport(result, system > 0 ? { ...context, note: systemNote(system) } : context, lines))
    }
    return 0
  },
}

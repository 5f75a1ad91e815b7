// Runtime benchmark (issue 12; called by bench/run.js as `runtime()`, or alone: node --expose-gc bench/runtime.js):
// a deterministic 600-turn coding session grown turn by turn through one compactor's maybeCompact (the record's
// settings: 128k budget, 85% high-water mark, oldest 40% of turns, 2,000-token slot; the caller adopts each result), in
// this process. Reports the per-call cost against the turn count (median ms per 100 turns, the ratio of the last
// hundred to the first), what the calls that compacted cost, and a call with nothing to do at ~128k tokens of context
// (no new message; one new message). Runs against dist/ (FLOORGUARD_DIST to use another build; `npm run build` first).
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { prng } from './_text.js'

const defaultDist = process.env.FLOORGUARD_DIST ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')

const PROSE = [
  'I looked at how the worker reads its settings and how the scripts copy them into place before changing anything.',
  'The loader falls back to defaults when the file is absent, which explains the odd behaviour under load.',
  'Next I will compare the current behaviour with what the ticket describes and only then decide what to change.',
  'That matches what we saw earlier, so the change should be small and easy to review.',
  'I will keep notes of anything surprising so the final report can explain both the cause and the reasoning.',
]

/** One turn of a coding session: the user, a tool call, its result, the agent's report (4 messages, ~700 tokens). */
function turnMessages(turn, random) {
  const pick = (list) => list[Math.floor(random() * list.length)]
  const id = `call_${turn}`
  const module = `module${Math.floor(random() * 40)}`
  let user = `Turn ${turn}: continue with the upload worker. ${pick(PROSE)}`
  if (turn === 3) user = 'Validate every upload path against the regex "^/srv/app/[a-z_]+\\.ya?ml$" exactly.'
  if (turn === 8) user = 'Pin fsspec==2024.6.1 for now.'
  if (turn === 40) user = 'Actually use fsspec>=2023.1,<2024.3 instead of fsspec==2024.6.1.'
  const kind = pick(['read', 'read', 'list', 'log', 'test', 'test'])
  let call
  let output
  let isError = false
  if (kind === 'read') {
    call = { name: 'read_file', arguments: { path: `src/${module}/index.ts` } }
    output = Array.from({ length: 14 }, (_, line) => `export const value${line} = compute(input, ${line}) // ${pick(PROSE)}`).join('\n')
  } else if (kind === 'list') {
    call = { name: 'bash', arguments: { command: `ls -la src/${module}` } }
    output = Array.from({ length: 30 }, (_, line) => `-rw-r--r-- 1 dev dev ${1000 + line * 37} Nov 11 10:${String(line).padStart(2, '0')} file_${line}.ts`).join('\n')
  } else if (kind === 'log') {
    call = { name: 'bash', arguments: { command: 'git log --oneline -n 20' } }
    output = Array.from({ length: 20 }, () => `${Math.floor(random() * 0xfffffff).toString(16).padStart(7, '0')} ${pick(PROSE).slice(0, 60)}`).join('\n')
  } else {
    isError = random() < 0.25
    call = { name: 'bash', arguments: { command: 'npm test' } }
    output = isError
      ? `FAIL src/${module}/index.test.ts\n  ● value > computes\n    expected 3 to be 4\n    at src/${module}/index.test.ts:${10 + Math.floor(random() * 80)}:5\nExit code: 1`
      : `PASS src/${module}/index.test.ts\n${Array.from({ length: 12 }, (_, line) => `  ✓ case ${line} (${Math.floor(random() * 30)} ms)`).join('\n')}\nTests: 12 passed`
  }
  return [
    { role: 'user', parts: [{ type: 'text', text: user }] },
    { role: 'assistant', parts: [{ type: 'text', text: pick(PROSE) }, { type: 'tool-call', id, name: call.name, arguments: call.arguments }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: id, name: call.name, content: output, isError }] },
    { role: 'assistant', parts: [{ type: 'text', text: `${pick(PROSE)} ${pick(PROSE)} ${pick(PROSE)}` }] },
  ]
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]
}

/** Runs the benchmark; returns one object with every figure. */
export async function runtime(dist = defaultDist) {
  const { createCompactor } = await import(join(dist, 'runtime', 'index.js'))
  const { createTokenizer } = await import(join(dist, 'tokenize', 'index.js'))
  const { messageTokens } = await import(join(dist, 'transcript', 'render.js'))
  const tokenizer = await createTokenizer('o200k_base')
  const TURNS = 600

  // 1. The session grown turn by turn; the caller adopts each result (as an agent loop does).
  const random = prng(412)
  const compactor = createCompactor({ tokenizer })
  let context = [{ role: 'system', parts: [{ type: 'text', text: 'You are a careful coding agent working on the upload worker.' }] }]
  const calls = []
  for (let turn = 1; turn <= TURNS; turn++) {
    context = [...context, ...turnMessages(turn, random)]
    const start = performance.now()
    const result = await compactor.maybeCompact(context)
    const ms = performance.now() - start
    const startEvent = result.events.find((event) => event.type === 'compaction-start')
    const end = result.events.find((event) => event.type === 'compaction-end')
    calls.push({ turn, ms, kind: result.kind, messages: context.length, tokens: startEvent?.contextTokens, after: end?.contextTokensAfter })
    context = [...result.messages]
  }
  const buckets = []
  for (let from = 1; from <= TURNS; from += 100) {
    const inBucket = calls.filter((call) => call.turn >= from && call.turn < from + 100)
    const quiet = inBucket.filter((call) => call.kind === 'unchanged')
    const busy = inBucket.filter((call) => call.kind !== 'unchanged')
    buckets.push({
      turns: `${from}-${from + 99}`,
      calls: inBucket.length,
      medianMs: median(inBucket.map((call) => call.ms)),
      p90Ms: quantile(inBucket.map((call) => call.ms), 0.9),
      medianUnchangedMs: median(quiet.map((call) => call.ms)),
      compactions: busy.length,
      compactionMedianMs: busy.length ? median(busy.map((call) => call.ms)) : null,
      maxMessages: Math.max(...inBucket.map((call) => call.messages)),
    })
  }
  const compactions = calls.filter((call) => call.kind !== 'unchanged').map((call) => ({ turn: call.turn, kind: call.kind, ms: call.ms, before: call.tokens, after: call.after }))

  // 2. A call with nothing to do at ~128k tokens of context: the budget raised so 128k is under the high-water mark.
  const grown = [context[0]]
  const growRandom = prng(7)
  let contextTokens = messageTokens(grown[0], tokenizer)
  for (let turn = 1; contextTokens < 128_000; turn++) {
    for (const message of turnMessages(turn, growRandom)) {
      grown.push(message)
      contextTokens += messageTokens(message, tokenizer)
    }
  }
  const idle = createCompactor({ tokenizer, budget: 200_000 })
  await idle.maybeCompact(grown)
  const noNew = []
  for (let run = 0; run < 300; run++) {
    const start = performance.now()
    const result = await idle.maybeCompact(grown)
    noNew.push(performance.now() - start)
    if (result.kind !== 'unchanged') throw new Error('bench: expected nothing to do')
  }
  const oneNew = []
  let growing = grown
  for (let run = 0; run < 100; run++) {
    growing = [...growing, { role: 'user', parts: [{ type: 'text', text: `One more note, number ${run}: ${PROSE[run % PROSE.length]}` }] }]
    const start = performance.now()
    await idle.maybeCompact(growing)
    oneNew.push(performance.now() - start)
  }
  // A call above the high-water mark whose selection was refused before (policy keep, the same messages): replayed.
  const tight = createCompactor({ tokenizer, budget: 128_000, slot: 50 })
  const first = await tight.maybeCompact(grown)
  const replay = []
  for (let run = 0; run < 50; run++) {
    const start = performance.now()
    await tight.maybeCompact(grown)
    replay.push(performance.now() - start)
  }

  return {
    settings: { turns: TURNS, budget: 128_000, highWaterMark: 0.85, compactFraction: 0.4, slot: 2_000, tokenizer: 'o200k_base', estimator: 'full', summarizer: 'ledger' },
    buckets,
    flatness: { firstMedianMs: buckets[0].medianMs, lastMedianMs: buckets.at(-1).medianMs, ratioLastToFirst: buckets.at(-1).medianMs / buckets[0].medianMs },
    compactions,
    idle: {
      contextTokens,
      messages: grown.length,
      noNewMessage: { medianMs: median(noNew), p90Ms: quantile(noNew, 0.9), runs: noNew.length },
      oneNewMessage: { medianMs: median(oneNew), p90Ms: quantile(oneNew, 0.9), runs: oneNew.length },
      refusedReplayed: { firstKind: first.kind, medianMs: median(replay), runs: replay.length },
    },
  }
}

const fixed = (value, digits = 2) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : String(value))

/** Prints the figures as tables. */
export function printRuntime(result) {
  console.log(`\nruntime: a ${result.settings.turns}-turn session grown turn by turn through maybeCompact (budget ${result.settings.budget}, high-water mark ${result.settings.highWaterMark}, oldest ${result.settings.compactFraction * 100}% of turns, slot ${result.settings.slot}; in-process, ms per call)`)
  console.log('  turns      calls  median   p90  median(unchanged)  compactions  median(compacting)  messages')
  for (const row of result.buckets) {
    console.log(`  ${row.turns.padEnd(9)} ${String(row.calls).padStart(6)} ${fixed(row.medianMs).padStart(7)} ${fixed(row.p90Ms).padStart(6)} ${fixed(row.medianUnchangedMs).padStart(18)} ${String(row.compactions).padStart(12)} ${fixed(row.compactionMedianMs, 1).padStart(19)} ${String(row.maxMessages).padStart(9)}`)
  }
  console.log(`  median per call, last hundred / first hundred: ${fixed(result.flatness.ratioLastToFirst)}x`)
  console.log(`  compactions: ${result.compactions.map((call) => `turn ${call.turn} ${call.kind} ${fixed(call.ms, 0)} ms (${call.before} → ${call.after} tokens)`).join('; ')}`)
  const idle = result.idle
  console.log(`  nothing to do at ${idle.contextTokens} tokens (${idle.messages} messages): no new message ${fixed(idle.noNewMessage.medianMs, 3)} ms median (p90 ${fixed(idle.noNewMessage.p90Ms, 3)}); one new message ${fixed(idle.oneNewMessage.medianMs, 3)} ms median (p90 ${fixed(idle.oneNewMessage.p90Ms, 3)})`)
  console.log(`  above the mark, the refused selection sent again (replayed, policy keep): ${fixed(idle.refusedReplayed.medianMs, 3)} ms median (first call: ${idle.refusedReplayed.firstKind})`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runtime(process.argv[2] ?? defaultDist)
  printRuntime(result)
  console.log(JSON.stringify(result))
}

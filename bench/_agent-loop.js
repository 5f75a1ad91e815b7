// The library as an agent loop meets it: one process reads a session and checks it again and again, as a runtime
// or a long-lived hook host would on each turn. The first call pays what a CLI process pays after its start (V8
// compiles and optimizes the code as it runs); the later calls show the same work once the code is warm.
// Run by bench/whole.js as its own process (no other bench warms the code first):
//   node bench/_agent-loop.js FILE FORMAT CALLS
// Prints one JSON line: { first, warm: [ms…], floor } with read + check per call (a fresh tokenizer, estimator and
// transcript each call, so no cache of one call serves the next).
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { checkTranscript, createFullEstimator, createTokenizer, readTranscript, sourceFromString } from '../dist/index.js'

const [file, format, callsText] = process.argv.slice(2)
const calls = Number(callsText ?? 8)
const text = readFileSync(file, 'utf8')
const times = []
let floor
for (let call = 0; call < calls; call++) {
  const start = performance.now()
  const tokenizer = await createTokenizer('o200k_base')
  const estimator = createFullEstimator({ tokenizer, marginRatio: 0.2 })
  const transcript = await readTranscript(sourceFromString(file, text), { format })
  const result = checkTranscript(transcript, { estimator, tokenizer, slot: 2000 })
  times.push(performance.now() - start)
  floor = result.floor.total
}
process.stdout.write(`${JSON.stringify({ first: times[0], warm: times.slice(1), floor })}\n`)

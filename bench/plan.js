// Planner benchmark (run by bench/run.js, or alone: node bench/plan.js): planCompaction on a deterministic
// 10,000-message agent segment with the full estimator and exact o200k pricing, at slots of 50%, 20% and 5% of the
// segment's floor. Prints one JSON line per case.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { prng } from './_text.js'

const dist = process.env.FLOORGUARD_DIST ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const { createFullEstimator, createTokenizer, planCompaction, pairToolCalls } = await import(join(dist, 'index.js'))

function agentSegment(count, seed = 1) {
  const random = prng(seed)
  const pick = (n) => Math.floor(random() * n)
  const text = (role, value) => ({ role, parts: [{ type: 'text', text: value }] })
  const messages = []
  for (let turn = 1; messages.length < count; turn++) {
    messages.push(text('user', `Turn ${turn}: keep paths under /srv/app/src/module${pick(40)} and never touch worker_${pick(300)}.${random() < 0.05 ? ` MAX_RETRIES=${1 + pick(5)}` : ''}`))
    for (let step = 2 + pick(8); step > 0 && messages.length < count; step--) {
      const id = `call_${turn}_${step}`
      const failing = random() < 0.15
      const command = random() < 0.5 ? 'npm test' : `cat /srv/app/src/module${pick(40)}/index.ts`
      messages.push({ role: 'assistant', parts: [{ type: 'tool-call', id, name: 'bash', arguments: { command } }] })
      const output = failing
        ? `Error: ENOENT: no such file or directory, open '/srv/app/src/module${pick(40)}/config.json'\nExit code: 1`
        : `${'const value = compute(input)\n'.repeat(20 + pick(40))}commit ${(0x1000000 + pick(0xffffff)).toString(16)}${pick(1e6)} requests==2.${pick(4)}.0`
      messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, content: output, isError: failing }] })
    }
    messages.push(text('assistant', `Done with turn ${turn}${random() < 0.05 ? `; threshold: 0.${pick(9)}` : ''}.`))
  }
  return messages.slice(0, count)
}

const tokenizer = await createTokenizer('o200k_base')
const messages = agentSegment(10_000)
const { pairs } = pairToolCalls(messages)
const floor = createFullEstimator({ tokenizer }).estimate(messages).total
for (const share of [0.5, 0.2, 0.05]) {
  const slot = Math.round(floor * share)
  let fastest = Infinity
  let plan
  for (let run = 0; run < 3; run++) {
    // A fresh tokenizer and estimator each run, so neither's caches turn later runs into lookups.
    const fresh = await createTokenizer('o200k_base')
    const estimator = createFullEstimator({ tokenizer: fresh })
    const start = performance.now()
    plan = planCompaction({ messages, offset: 0, pairs, estimator, tokenizer: fresh }, { slot, budget: Number.MAX_SAFE_INTEGER })
    fastest = Math.min(fastest, performance.now() - start)
  }
  const parts = plan.kind === 'split' ? plan.parts.length : undefined
  console.log(JSON.stringify({ name: 'plan', messages: messages.length, floor, slot, kind: plan.kind, parts, reason: plan.reason, ms: Math.round(fastest) }))
}

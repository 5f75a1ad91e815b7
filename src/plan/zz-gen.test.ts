import { test } from 'vitest'
import { writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { planCompaction } from './plan.js'
import { createEstimator } from '../estimate/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript } from '../transcript/read.js'

let P: any = JSON.parse(process.env.GEN ?? '{}')
const sha = (s: string) => createHash('sha1').update(s).digest('hex')

function build() {
  const messages: any[] = []
  let callId = 0
  const tool = (text: string, name: string, args: object, output: string) => {
    const id = `call_${++callId}`
    messages.push({ role: 'assistant', content: text, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })
    messages.push({ role: 'tool', tool_call_id: id, content: output })
  }
  const constraints = 'Validate every upload path against the regex `^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$` exactly — do not loosen it. Keep p95 latency under 250 ms and retry at most 3 times. Never delete anything in /var/tmp/cache-7f3a9c2e.'
  const traceback = (n: number) => `Traceback (most recent call last):\n  File "/srv/ingest/ingest/worker.py", line 88, in write_chunk\n    fh.write(buf)\nOSError: [Errno 28] No space left on device: '/var/tmp/x.bin'\nbatch ${n} aborted`
  const listing = (seed: string, count: number) => Array.from({ length: count }, (_, i) => `${(i % 9) + 1}.${i % 7}G\tblob ${sha(seed + i)}`).join('\n')
  messages.push({ role: 'system', content: 'You are a coding agent working in /srv/ingest. Never push to main directly; always open a branch named fix/<ticket>.' })
  // Turn 1: reproduce, inspect disk, move the scratch dir, pin and revert.
  messages.push({ role: 'user', content: `Ticket ING-412: uploads under /var/tmp fail on the worker. ${constraints}` })
  tool("I'll reproduce the failure first.", 'bash', { command: 'python -m ingest.worker --once --path /var/tmp/uploads/batch_0007.bin' }, traceback(7))
  tool('The disk is full. Checking what uses it.', 'bash', { command: 'du -sh /var/tmp/cache-7f3a9c2e/blobs/* | sort -h | tail' }, `Exit code: 0\n${listing('shared', P.shared ?? 6)}\n${listing('one', P.one ?? 10)}`)
  tool('Moving scratch data off /var/tmp.', 'edit_file', { path: 'ingest/config.py', old_string: 'SCRATCH = "/var/tmp"', new_string: 'SCRATCH = os.environ.get("INGEST_SCRATCH_DIR", "/mnt/scratch")' }, 'Edited ingest/config.py')
  tool('Pinning the storage client.', 'edit_file', { path: 'requirements.txt', old_string: 'fsspec>=2023.1\n', new_string: 'fsspec==2024.6.1\n' }, 'Edited requirements.txt')
  tool('Running the tests.', 'bash', { command: 'INGEST_SCRATCH_DIR=/mnt/scratch pytest tests/test_worker.py -q' }, "E   ImportError: cannot import name 'url_to_fs' from 'fsspec.core' (/srv/ingest/.venv/lib/python3.11/site-packages/fsspec/core.py)\n1 failed, 41 passed in 3.12s")
  tool('fsspec 2024.6.1 moved url_to_fs; reverting the pin.', 'edit_file', { path: 'requirements.txt', old_string: 'fsspec==2024.6.1\n', new_string: 'fsspec>=2023.1,<2024.3\n' }, 'Edited requirements.txt')
  tool('Re-running.', 'bash', { command: 'INGEST_SCRATCH_DIR=/mnt/scratch pytest tests/test_worker.py -q' }, '42 passed in 3.08s')
  messages.push({ role: 'assistant', content: 'All 42 tests pass with scratch data in /mnt/scratch and fsspec back on >=2023.1,<2024.3.' })
  // Turn 2: the same ticket on the second worker; the user restates the constraints.
  messages.push({ role: 'user', content: `Now do the same on worker-b (ticket ING-412 still). ${constraints}` })
  tool('Reproducing on worker-b.', 'bash', { command: 'ssh worker-b python -m ingest.worker --once --path /var/tmp/uploads/batch_0007.bin' }, traceback(7))
  tool('Same full disk. Checking usage.', 'bash', { command: 'ssh worker-b du -sh /var/tmp/cache-7f3a9c2e/blobs/* | sort -h | tail' }, `Exit code: 0\n${listing('shared', P.shared ?? 6)}\n${listing('two', P.two ?? 10)}`)
  tool('Deploying the config change.', 'bash', { command: 'ssh worker-b INGEST_SCRATCH_DIR=/mnt/scratch systemctl restart ingest-worker' }, 'Exit code: 0')
  tool('Verifying.', 'bash', { command: 'ssh worker-b python -m ingest.worker --once --path /var/tmp/uploads/batch_0008.bin' }, `ok: wrote /mnt/scratch/batch_0008.part in 212 ms ${P.tail ?? ''}`)
  messages.push({ role: 'assistant', content: `worker-b is fixed too; next I'll open branch fix/ING-412.` })
  return { model: 'gpt-4o', messages }
}

test('search', async () => {
  if (!process.env.SEARCH) return
  const tokenizer = await createTokenizer('o200k_base')
  const estimator = createEstimator({ tokenizer })
  const found: any[] = []
  for (let shared = 6; shared <= 22; shared += 4) for (let one = 10; one <= 45; one += 5) for (let two = 10; two <= 45; two += 5) {
    P = { shared, one, two }
    const text = JSON.stringify(build())
    const source = { name: 'x', head: text, text: async () => text, lines: async function* () {} }
    const t = await readTranscript(source as any, { format: 'auto' })
    const whole = estimator.estimate(t.messages)
    if (whole.irreducible < 1925 || whole.irreducible > 1950) continue
    const plan = planCompaction({ messages: t.messages, pairs: t.pairs, estimator, tokenizer }, { slot: 2000 })
    found.push([shared, one, two, whole.irreducible, plan.kind, plan.kind === 'split' ? plan.parts.map((p) => [p.range, p.floor]) : plan.kind === 'refuse' ? plan.reason : ''])
  }
  console.log('FOUND', JSON.stringify(found.slice(0, 40)))
}, 600_000)

test('gen', async () => {
  const doc = build()
  const text = JSON.stringify(doc, null, 2) + '\n'
  const source = { name: 'x', head: text, text: async () => text, lines: async function* () {} }
  const t = await readTranscript(source as any, { format: 'auto' })
  const tokenizer = await createTokenizer('o200k_base')
  const estimator = createEstimator({ tokenizer })
  const whole = estimator.estimate(t.messages)
  const plan = planCompaction({ messages: t.messages, pairs: t.pairs, estimator, tokenizer }, { slot: 2000 })
  if (process.env.ITEMS) for (const i of whole.items) console.log("ITEM", i.message, i.kind, i.tokens, JSON.stringify(i.text.slice(0, 80)))
  console.log('RESULT', t.messages.length, whole.irreducible, whole.margin, whole.total, plan.kind, plan.kind === 'split' ? JSON.stringify(plan.parts.map((p) => [p.range, p.floor, p.slot])) + ' frees ' + plan.frees : plan.kind === 'refuse' ? plan.reason + JSON.stringify(plan.units.map(u => [u.kind, u.range, u.floor])) : '')
  if (process.env.WRITE) writeFileSync('src/plan/__fixtures__/turn-412-record.openai.json', text)
})

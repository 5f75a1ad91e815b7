#!/usr/bin/env node
// Streams a generated 200 MB Claude Code session log through the claude-code reader and prints one JSON line:
// { "name": "jsonl-stream", "mb": …, "mbPerSecond": …, "peakRssMiB": … }.
// The log is deterministic (seeded PRNG), written to a temp dir (never the repo) and deleted afterwards.
// Run after `npm run build`: `node bench/jsonl.js [--mb 200]`. FLOORGUARD_DIST points at another build.
import { once } from 'node:events'
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { prng } from './_text.js'

const args = process.argv.slice(2)
const mbFlag = args.indexOf('--mb')
const targetMb = mbFlag === -1 ? 200 : Number(args[mbFlag + 1])
if (!(targetMb > 0)) throw new Error(`--mb: expected a positive number, got ${args[mbFlag + 1]}`)

const dist = process.env.FLOORGUARD_DIST ? resolve(process.env.FLOORGUARD_DIST) : new URL('../dist/', import.meta.url).pathname
const { claudeCodeFormat } = await import(pathToFileURL(join(dist, 'transcript/formats/claude-code.js')).href)
const { sourceFromFile } = await import(pathToFileURL(join(dist, 'cli/source.js')).href)

const random = prng(412)
const words = 'the regex errno path version pin must never always exactly only build test fails ENOENT ./src/index.ts wandb==0.25.0 learning_rate 1e-4 /usr/local/bin pytest ruff F401 E501 CUDA out of memory'.split(' ')
const sentence = (count) => {
  let out = ''
  for (let index = 0; index < count; index++) out += (index ? ' ' : '') + words[Math.floor(random() * words.length)]
  return out
}
const uuid = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

async function generate(path, bytes) {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 })
  let written = 0
  let n = 0
  let parent = null
  const write = async (record) => {
    const line = `${JSON.stringify(record)}\n`
    written += Buffer.byteLength(line)
    if (!out.write(line)) await once(out, 'drain')
  }
  const base = () => ({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/project', sessionId: 'bench', version: '2.1.58', gitBranch: 'main' })
  while (written < bytes) {
    const id = uuid(++n)
    await write({ ...base(), type: 'user', message: { role: 'user', content: sentence(20 + Math.floor(random() * 80)) }, uuid: id, timestamp: '2026-03-09T02:10:46.639Z' })
    parent = id
    const messageId = `msg_${n}`
    const callId = `toolu_${n}`
    for (const block of [
      { type: 'thinking', thinking: sentence(40 + Math.floor(random() * 200)), signature: 'x'.repeat(200) },
      { type: 'text', text: sentence(30 + Math.floor(random() * 120)) },
      { type: 'tool_use', id: callId, name: 'Bash', input: { command: `grep -E "${sentence(3)}" src/`, description: sentence(6) } },
    ]) {
      const recordId = uuid(++n)
      await write({ ...base(), type: 'assistant', message: { id: messageId, type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [block], usage: { input_tokens: 3, output_tokens: 120 } }, requestId: `req_${n}`, uuid: recordId, timestamp: '2026-03-09T02:10:49.401Z' })
      parent = recordId
    }
    const resultId = uuid(++n)
    const output = sentence(100 + Math.floor(random() * 1500))
    await write({ ...base(), type: 'user', message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: output, is_error: random() < 0.08 }] }, uuid: resultId, timestamp: '2026-03-09T02:10:52.854Z', toolUseResult: { stdout: output.slice(0, 2000), stderr: '', interrupted: false } })
    parent = resultId
  }
  out.end()
  await once(out, 'finish')
}

const dir = mkdtempSync(join(tmpdir(), 'floorguard-bench-'))
try {
  const path = join(dir, 'session.jsonl')
  await generate(path, targetMb * 1024 * 1024)
  const size = statSync(path).size
  const source = await sourceFromFile(path)
  let messages = 0
  let parts = 0
  const started = process.hrtime.bigint()
  for await (const message of claudeCodeFormat.stream(source, { keepSource: false })) {
    messages++
    parts += message.parts.length
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const mb = size / (1024 * 1024)
  const peakRssMiB = process.resourceUsage().maxRSS / 1024
  console.log(JSON.stringify({ name: 'jsonl-stream', mb: Number(mb.toFixed(1)), mbPerSecond: Number((mb / seconds).toFixed(1)), peakRssMiB: Number(peakRssMiB.toFixed(1)), messages, parts, seconds: Number(seconds.toFixed(2)) }))
} finally {
  rmSync(dir, { recursive: true, force: true })
}

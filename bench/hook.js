// `node bench/hook.js [MB]`: whole-process time of `floorguard hook claude-code …` on a generated native Claude Code
// session log (default 2 MB): PreCompact (answers at once, the ledger built in a detached process), the same with
// --sync (the build itself), SessionStart(compact) and PostCompact, run as installed (hooks/floorguard-hook.mjs). Runs against dist/ (`npm run build`). Prints the
// median and best of 10 runs of each; nothing here is asserted by a test.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { agentText, prng } from './_text.js'

// FLOORGUARD_ROOT runs another build (a copy of bin/, dist/ and package.json), e.g. one compiled to a private outDir.
const root = process.env.FLOORGUARD_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'floorguard.js')
// What `floorguard hooks install` and the plugin run: the hook command without the rest of the CLI.
const launcher = join(root, 'hooks', 'floorguard-hook.mjs')
function assertBuilt() {
  if (existsSync(join(root, 'dist', 'cli', 'main.js'))) return
  console.error('bench: dist/ is missing; run `npm run build` first')
  process.exit(1)
}

/**
 * A native Claude Code log of about `bytes` bytes: records with uuid/parentUuid, assistant turns with Bash calls and
 * their results, a `compact_boundary` system record and an `isCompactSummary` user record a quarter of the way in.
 */
export function claudeNativeLog(bytes, seed = 7) {
  const random = prng(seed)
  const session = '5f1c2b7e-0d4e-4c41-9a55-2a1f9d6b3c10'
  const lines = []
  let parent = null
  let size = 0
  let n = 0
  let compacted = false
  const uuid = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`
  const time = () => new Date(Date.UTC(2026, 11, 2, 10, 0, n)).toISOString()
  const push = (record) => {
    const line = JSON.stringify(record)
    lines.push(line)
    size += line.length + 1
  }
  const base = () => ({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/proj', sessionId: session, version: '2.1.120', gitBranch: 'main' })
  while (size < bytes) {
    if (!compacted && size > bytes / 4) {
      compacted = true
      const boundary = uuid()
      push({ ...base(), parentUuid: null, logicalParentUuid: parent, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 151234 }, uuid: boundary, timestamp: time() })
      parent = boundary
      const summary = uuid()
      push({ ...base(), type: 'user', isCompactSummary: true, message: { role: 'user', content: `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nSummary:\n${agentText(6000, seed + n)}` }, uuid: summary, timestamp: time() })
      parent = summary
    }
    const user = uuid()
    push({ ...base(), type: 'user', message: { role: 'user', content: agentText(300 + Math.floor(random() * 600), seed + n) }, uuid: user, timestamp: time() })
    parent = user
    const callId = `toolu_${(n * 7919).toString(36).padStart(8, '0')}`
    const assistant = uuid()
    push({
      ...base(),
      type: 'assistant',
      message: {
        id: `msg_${n.toString(36)}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [
          { type: 'text', text: agentText(200 + Math.floor(random() * 500), seed + n + 1) },
          { type: 'tool_use', id: callId, name: 'Bash', input: { command: `pytest tests/test_${n % 17}.py -q`, description: 'Run the tests' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1200, output_tokens: 300 },
      },
      uuid: assistant,
      timestamp: time(),
    })
    parent = assistant
    const result = uuid()
    push({ ...base(), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: agentText(800 + Math.floor(random() * 2400), seed + n + 2), is_error: random() < 0.1 }] }, uuid: result, timestamp: time() })
    parent = result
  }
  return `${lines.join('\n')}\n`
}

const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

/** Wall time of the whole process, and its CPU time (user + system) when /usr/bin/time can tell it. */
function run(args, payload, env, argv = [launcher, 'hook', ...args]) {
  const command = timeBin ? [timeBin, ['-f', 'FLOORGUARD_CPU %U %S', process.execPath, ...argv]] : [process.execPath, argv]
  const start = performance.now()
  const result = spawnSync(command[0], command[1], { input: payload === undefined ? '' : JSON.stringify(payload), env: { ...process.env, ...env }, encoding: 'utf8' })
  const ms = performance.now() - start
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`)
  const cpu = /FLOORGUARD_CPU ([\d.]+) ([\d.]+)/.exec(result.stderr)
  return { ms, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN, stdout: result.stdout, stderr: result.stderr }
}

function stats(results) {
  const median = (values) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)])
  const walls = results.map((result) => result.ms)
  return { 'wall median ms': median(walls), 'wall best ms': Math.round(Math.min(...walls)), 'cpu median ms': median(results.map((result) => result.cpu)) }
}

async function waitForLedger(dir, session, createdAfter) {
  const path = join(dir, 'sessions', 'claude-code', session, 'ledger.json')
  for (let waited = 0; waited < 60_000; waited += 20) {
    if (existsSync(path) && !existsSync(join(dirname(path), 'job.json'))) {
      const ledger = JSON.parse(readFileSync(path, 'utf8'))
      if (ledger.createdAt >= createdAfter) return ledger
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the detached build never finished')
}

// Run only as a script (importing this module gives claudeNativeLog without running the bench).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  assertBuilt()
  const mb = Number(process.argv[2] ?? 2)
  const runs = 10
  const work = mkdtempSync(join(tmpdir(), 'floorguard-hook-bench-'))
  try {
    const log = join(work, 'session.jsonl')
    writeFileSync(log, claudeNativeLog(mb * 1024 * 1024))
    const state = join(work, 'state')
    const session = 'bench-session'
    const common = { session_id: session, transcript_path: log, cwd: work, permission_mode: 'default' }
    const rows = {}
    const pre = []
    const sync = []
    const start = []
    const post = []
    const idle = []
    const viaBin = []
    for (let index = 0; index < runs; index++) {
      idle.push(run([], undefined, {}, ['-e', '0']))
      const createdAfter = new Date().toISOString()
      viaBin.push(run([], { ...common, hook_event_name: 'SessionStart', source: 'compact' }, {}, [bin, 'hook', 'claude-code', 'SessionStart', '--state-dir', state]))
      pre.push(run(['claude-code', 'PreCompact', '--state-dir', state], { ...common, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null }))
      await waitForLedger(state, session, createdAfter)
      sync.push(run(['claude-code', 'PreCompact', '--state-dir', state, '--sync'], { ...common, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null }))
      start.push(run(['claude-code', 'SessionStart', '--state-dir', state], { ...common, hook_event_name: 'SessionStart', source: 'compact' }))
      post.push(run(['claude-code', 'PostCompact', '--state-dir', state], { ...common, hook_event_name: 'PostCompact', trigger: 'auto', compact_summary: agentText(15000, index) }))
    }
    rows['node -e 0 (this machine, now)'] = stats(idle)
    rows['PreCompact (answer; build detached)'] = stats(pre)
    rows['SessionStart through bin/floorguard.js (whole CLI loaded)'] = stats(viaBin)
    rows['PreCompact --sync (build in-process)'] = stats(sync)
    rows['SessionStart compact'] = stats(start)
    rows['PostCompact'] = stats(post)
    const ledger = JSON.parse(readFileSync(join(state, 'sessions', 'claude-code', session, 'ledger.json'), 'utf8'))
    const shown = JSON.parse(readFileSync(join(state, 'sessions', 'claude-code', session, 'state.json'), 'utf8')).injection.shown
    console.log(`floorguard hook on a ${(readFileSync(log).length / 1024 / 1024).toFixed(2)} MB native Claude Code log (${ledger.messages} messages, region ${ledger.range.join('-')}, ${ledger.items.length} items, ${shown} shown), ${runs} runs, node ${process.version}:`)
    console.table(rows)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

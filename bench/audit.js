// `node bench/audit.js [MB]` (default 1024): whole-process throughput of `floorguard audit DIR --json` on a generated
// directory of about MB megabytes of Claude Code session logs (half with a compaction a quarter of the way in, half
// without), at --jobs 1 and --jobs 2 (AUDIT_JOBS=1,2): MB/s of logs (wall, and per CPU second: this machine is shared),
// the process's peak RSS (worker threads included) and CPU time, from /usr/bin/time -v (null without it). The
// directory is generated in os.tmpdir() and removed afterwards, even on failure; with less than 2.5 × MB free there,
// the size is scaled down and the scaled size is printed. Runs against dist/ (`npm run build`); asserted by no test.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { claudeNativeLog } from './hook.js'

const root = process.env.FLOORGUARD_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'floorguard.js')
if (!existsSync(join(root, 'dist', 'cli', 'commands', '_audit-worker.js'))) {
  console.error('bench: dist/ has no audit command; run `npm run build` first')
  process.exit(1)
}
const MB = 1024 * 1024
const asked = Number(process.argv[2] ?? 1024)
const jobsList = (process.env.AUDIT_JOBS ?? '1,2').split(',').map(Number)

/** A native log without its compaction: the boundary and the continuation summary left out. */
function withoutCompaction(log) {
  return log
    .split('\n')
    .filter((line) => !line.includes('"subtype":"compact_boundary"') && !line.includes('"isCompactSummary":true'))
    .join('\n')
}

/** Writes about `bytes` of logs under `dir`: 12 distinct sessions (1 to 12 MB), copied round-robin into 8 projects. */
function generate(dir, bytes) {
  const templates = []
  for (let index = 0; index < 12; index++) {
    const size = (1 + index) * MB
    const log = claudeNativeLog(size, 100 + index)
    const path = join(dir, `template-${index}.jsonl`)
    writeFileSync(path, index % 2 === 0 ? log : withoutCompaction(log))
    templates.push({ path, size: Buffer.byteLength(log) })
  }
  let written = templates.reduce((sum, template) => sum + template.size, 0)
  let copy = 0
  while (written < bytes) {
    const template = templates[copy % templates.length]
    const project = join(dir, `project-${copy % 8}`)
    mkdirSync(project, { recursive: true })
    copyFileSync(template.path, join(project, `session-${copy}.jsonl`))
    written += template.size
    copy++
  }
  return { bytes: written, files: templates.length + copy }
}

function freeBytes(dir) {
  const stats = statfsSync(dir)
  return stats.bavail * stats.bsize
}

const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

/** One whole-process run, its JSON report discarded: wall seconds and peak RSS. */
function run(dir, jobs) {
  const argv = [bin, 'audit', dir, '--json', '--jobs', String(jobs)]
  const command = timeBin ? [timeBin, ['-v', process.execPath, ...argv]] : [process.execPath, argv]
  const start = performance.now()
  const result = spawnSync(command[0], command[1], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 * MB })
  const seconds = (performance.now() - start) / 1000
  if (result.status !== 0) throw new Error(`floorguard audit --jobs ${jobs} exited ${result.status}: ${result.stderr.slice(0, 2000)}`)
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)
  const user = /User time \(seconds\): ([\d.]+)/.exec(result.stderr)
  const system = /System time \(seconds\): ([\d.]+)/.exec(result.stderr)
  return { seconds, peakRssMB: rss ? Number(rss[1]) / 1024 : null, cpuSeconds: user && system ? Number(user[1]) + Number(system[1]) : null }
}

const base = mkdtempSync(join(tmpdir(), 'floorguard-bench-audit-'))
try {
  const free = freeBytes(base)
  let target = asked * MB
  if (free < 2.5 * target) {
    target = Math.floor(free / 2.5)
    console.error(`bench: only ${(free / MB).toFixed(0)} MB free in ${tmpdir()}; scaled the directory down to ${(target / MB).toFixed(0)} MB`)
  }
  const dir = join(base, 'logs')
  mkdirSync(dir)
  const generated = generate(dir, target)
  const megabytes = generated.bytes / 1e6
  for (const jobs of jobsList) {
    const timing = run(dir, jobs)
    const row = { bench: 'audit', jobs, files: generated.files, MB: Number(megabytes.toFixed(1)), seconds: Number(timing.seconds.toFixed(1)), MBps: Number((megabytes / timing.seconds).toFixed(2)), peakRssMB: timing.peakRssMB === null ? null : Number(timing.peakRssMB.toFixed(0)), cpuSeconds: timing.cpuSeconds === null ? null : Number(timing.cpuSeconds.toFixed(1)), MBperCpuSecond: timing.cpuSeconds ? Number((megabytes / timing.cpuSeconds).toFixed(2)) : null, loadAverage: loadavg()[0] }
    console.log(JSON.stringify(row))
  }
} finally {
  rmSync(base, { recursive: true, force: true })
}

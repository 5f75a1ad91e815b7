// Whole-process benchmark (issue 11, "Speed as the user meets it"): `floorguard check --json` as a user runs it,
// process start and module loading included, against the record's reference `seed_floor.py` run as a process on the
// same text, at several sizes; the fixed cost (a tiny input); and `check` / `plan` on a real Claude Code session.
// Run by `npm run bench whole` (bench/run.js) or alone: node bench/whole.js [--skip-64] [--runs N].
// The variants of one measurement alternate run by run, so load from elsewhere on the machine spreads over all of
// them; each figure is the best of its runs, and the spread (best–median) is printed because this machine is shared.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { agentText } from './_text.js'

const MB = 1024 * 1024
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const REAL_SESSION = join(root, '..', 'shared', 'corpus', 'real', 'claude-code-engram-sjonas50', 'diffusion-session1-3f0a6f23.transcript.jsonl')

/** The reference as a process: read the file, estimate_floor, print irreducible and margin. */
function referenceArgs(spec, file) {
  const script = `import sys; sys.path.insert(0, ${JSON.stringify(spec)}); from seed_floor import estimate_floor
e = estimate_floor(open(${JSON.stringify(file)}, encoding='utf-8', newline='').read()); print(e.irreducible_tokens, e.margin_tokens)`
  return ['python3', ['-c', script]]
}

function floorguardArgs(command, file, extra = []) {
  return [process.execPath, [join(root, 'bin', 'floorguard.js'), command, file, '--json', ...extra]]
}

/** Spawns one process and times it (wall clock, start to exit); throws on a non-zero exit. */
function timeProcess([command, args]) {
  const start = performance.now()
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 512 * MB })
  const ms = performance.now() - start
  if (run.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed (${run.status}): ${run.stderr.split('\n')[0]}`)
  return { ms, stdout: run.stdout }
}

/**
 * The library in an agent loop (bench/_agent-loop.js, its own process): read + `checkTranscript` of `file` `calls`
 * times in one process; the first call (cold code) and the best and median of the others (warm code), wall ms.
 */
function agentLoop(file, calls) {
  const { stdout } = timeProcess([process.execPath, [join(root, 'bench', '_agent-loop.js'), file, 'claude-code', String(calls)]])
  const { first, warm, floor } = JSON.parse(stdout)
  const sorted = [...warm].sort((a, b) => a - b)
  return { calls, firstMs: Math.round(first), warmBestMs: Math.round(sorted[0]), warmMedianMs: Math.round(sorted[Math.floor(sorted.length / 2)]), floor }
}

/** Runs each variant `runs` times, alternating them run by run; per variant: best and median ms, and the last output. */
function alternate(variants, runs) {
  const times = variants.map(() => [])
  const outputs = []
  for (let run = 0; run < runs; run++) {
    variants.forEach((variant, index) => {
      const { ms, stdout } = timeProcess(variant.args)
      times[index].push(ms)
      outputs[index] = stdout
    })
  }
  return variants.map((variant, index) => {
    const sorted = [...times[index]].sort((a, b) => a - b)
    return { name: variant.name, best: sorted[0], median: sorted[Math.floor(sorted.length / 2)], output: outputs[index] }
  })
}

/**
 * The whole-process rows: per size and variant (check full, check seed, reference), best and median ms, ms/MB
 * above the fixed cost, and the reference's best over this variant's best (above 1: faster than the reference).
 */
export async function whole(options = {}) {
  const sizes = options.sizes ?? [1, 4, 16, 32, ...(options.skip64 ? [] : [64])]
  const spec = join(root, '..', 'shared', 'spec')
  const hasReference = existsSync(join(spec, 'seed_floor.py'))
  if (!hasReference) console.error('bench whole: ../shared/spec/seed_floor.py not found; no reference column')
  const work = mkdtempSync(join(tmpdir(), 'floorguard-whole-'))
  const variantsFor = (file) => [
    { name: 'check --estimator full', args: floorguardArgs('check', file, ['--format', 'text', '--estimator', 'full']) },
    { name: 'check --estimator seed', args: floorguardArgs('check', file, ['--format', 'text', '--estimator', 'seed']) },
    ...(hasReference ? [{ name: 'reference seed_floor.py', args: referenceArgs(spec, file) }] : []),
  ]
  try {
    const tiny = join(work, 'tiny.txt')
    writeFileSync(tiny, agentText(200))
    const fixed = alternate(variantsFor(tiny), options.fixedRuns ?? 7)
    const fixedOf = Object.fromEntries(fixed.map((row) => [row.name, row.best]))
    const rows = []
    for (const megabytes of sizes) {
      const file = join(work, `agent-${megabytes}.txt`)
      writeFileSync(file, agentText(megabytes * MB))
      const measured = alternate(variantsFor(file), options.runs ?? (megabytes <= 4 ? 5 : 3))
      const reference = measured.find((row) => row.name.startsWith('reference'))
      const referenceIrreducible = reference ? Number(reference.output.trim().split(' ')[0]) : undefined
      for (const row of measured) {
        const irreducible = row.name.startsWith('reference') ? referenceIrreducible : JSON.parse(row.output).floor.irreducible
        rows.push({
          megabytes,
          name: row.name,
          ms: Math.round(row.best),
          medianMs: Math.round(row.median),
          msPerMB: Math.round((row.best - fixedOf[row.name]) / megabytes),
          vsReference: reference ? reference.best / row.best : undefined,
          irreducible,
          ...(row.name.endsWith('seed') && referenceIrreducible !== undefined ? { sameAsReference: irreducible === referenceIrreducible } : {}),
        })
      }
      rmSync(file, { force: true })
    }
    let real
    let loop
    if (existsSync(REAL_SESSION)) {
      real = alternate(
        [
          { name: 'check (full)', args: floorguardArgs('check', REAL_SESSION) },
          { name: 'plan (full)', args: floorguardArgs('plan', REAL_SESSION) },
        ],
        options.runs ?? 5,
      ).map((row) => ({ name: row.name, ms: Math.round(row.best), medianMs: Math.round(row.median), decision: JSON.parse(row.output).decision.kind }))
      loop = agentLoop(REAL_SESSION, options.loopCalls ?? 10)
    } else {
      console.error(`bench whole: ${REAL_SESSION} not found; skipping the real session`)
    }
    return {
      fixed: fixed.map((row) => ({ name: row.name, ms: Math.round(row.best), medianMs: Math.round(row.median) })),
      rows,
      real: real ? { file: 'claude-code-engram-sjonas50/diffusion-session1 (1.5 MB)', rows: real, loop } : undefined,
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** The table `npm run bench whole` prints. */
export function printWhole(result) {
  const fixed = (value, digits = 0) => (typeof value === 'number' ? value.toFixed(digits) : '')
  console.log('\nwhole processes (process start, module loading and the work; best of alternating runs, median in brackets; a shared machine: compare within one run)')
  console.log(`  fixed cost (a ${200}-byte input):`)
  for (const row of result.fixed) console.log(`    ${row.name.padEnd(26)} ${fixed(row.ms).padStart(7)} ms  [${row.medianMs}]`)
  console.log('  agent-like text:')
  for (const row of result.rows) {
    const ratio = row.vsReference === undefined || row.name.startsWith('reference') ? '' : `${fixed(row.vsReference, 2)}x reference`
    const same = row.sameAsReference === undefined ? '' : row.sameAsReference ? ', same as the reference' : ', DIFFERS from the reference'
    console.log(`    ${String(row.megabytes).padStart(3)} MB  ${row.name.padEnd(26)} ${fixed(row.ms).padStart(7)} ms  [${row.medianMs}]  ${fixed(row.msPerMB).padStart(5)} ms/MB above fixed  ${ratio.padEnd(16)} (irreducible ${row.irreducible}${same})`)
  }
  if (result.real) {
    console.log(`  real session ${result.real.file}:`)
    for (const row of result.real.rows) console.log(`    ${row.name.padEnd(26)} ${fixed(row.ms).padStart(7)} ms  [${row.medianMs}]  decision ${row.decision}`)
    const loop = result.real.loop
    if (loop) console.log(`    library, ${loop.calls} read + checkTranscript calls in one process (bench/_agent-loop.js): first ${loop.firstMs} ms, then best ${loop.warmBestMs} ms [median ${loop.warmMedianMs}], floor ${loop.floor}`)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const runsAt = args.indexOf('--runs')
  const result = await whole({ skip64: args.includes('--skip-64'), ...(runsAt >= 0 ? { runs: Number(args[runsAt + 1]) } : {}) })
  printWhole(result)
  console.log(JSON.stringify(result))
}

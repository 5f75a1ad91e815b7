import { spawn, type SpawnOptions } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { CliIo } from './_command.js'
import { runCli } from './main.js'

/** Runs the CLI in-process with captured streams (tests only). */
export async function runCaptured(
  argv: readonly string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (chunk) => void (stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
  }
  const code = await runCli(argv, io)
  return { code, stdout, stderr }
}

/** The repository's root and its `bin/floorguard.js` (which runs `dist/cli/main.js`). */
export const REPO = fileURLToPath(new URL('../../', import.meta.url))
export const BIN = join(REPO, 'bin', 'floorguard.js')

/** Throws unless dist/ holds a build of each of the CLI's sources at least as new as it (tests of the real process need it). */
export function assertBuilt(): void {
  const sources = ['_command', '_estimation', '_interrupt', '_load', '_output', 'main', 'source', 'commands/check', 'commands/compact', 'commands/plan']
    .map((name) => join('cli', `${name}.ts`))
    .concat(join('summarize', 'command.ts'), join('summarize', 'ai-sdk-provider.ts'))
  for (const source of sources) {
    const built = join(REPO, 'dist', source.replace(/\.ts$/, '.js'))
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(REPO, 'src', source)).mtimeMs) {
      throw new Error(`dist/${source.replace(/\.ts$/, '.js')} is missing or older than src/${source}: run \`npm run build\` before these tests`)
    }
  }
}

/** What a finished process left: exit code or signal, its output, and whether the harness had to kill it. */
export interface ProcessOutcome {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** The process outlived `limitMs` and was killed by the harness (a hang, never a pass). */
  readonly hung: boolean
}

/**
 * Spawns `node bin/floorguard.js ARGS`; `done` settles when it exits. A process still running after `limitMs` is
 * killed (SIGKILL) and reported as `hung`, so no test waits on a hang (a bound, not a timing assertion).
 */
export function spawnCli(args: readonly string[], options: SpawnOptions & { limitMs?: number } = {}): { pid: number; done: Promise<ProcessOutcome> } {
  const { limitMs = 20_000, ...spawnOptions } = options
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOptions })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
  let hung = false
  const timer = setTimeout(() => {
    hung = true
    child.kill('SIGKILL')
  }, limitMs)
  const done = new Promise<ProcessOutcome>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, hung })
    })
  })
  return { pid: child.pid!, done }
}

/** Whether a process exists and is not a zombie (a killed orphan may wait for a reaper that containers lack). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Resolves once `check()` is true, polling every 20 ms; rejects after `limitMs` (a bound on a wait, not a timing assertion). */
export async function waitFor(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited >= limitMs) throw new Error(`gave up waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

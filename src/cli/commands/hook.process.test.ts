import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { claudeCodeLog, FACTS } from '../../hooks/__fixtures__/logs.js'
import { claudeCode, gemini } from '../../hooks/__fixtures__/payloads.js'
import { REPO, waitFor } from '../_test-io.js'

// The hooks as hosts run them: `node hooks/floorguard-hook.mjs hook …` as a process, over dist/. Skipped (visibly)
// when dist/ is older than the hook sources (`npm run build` first).
const LAUNCHER = join(REPO, 'hooks', 'floorguard-hook.mjs')
const BUILT = join(REPO, 'dist', 'cli', 'commands', 'hook.js')

function builtIsFresh(): boolean {
  if (!existsSync(BUILT)) return false
  const sources = [join(REPO, 'src', 'cli', 'commands', 'hook.ts'), join(REPO, 'src', 'cli', 'commands', '_hook-state.ts')]
  for (const name of readdirSync(join(REPO, 'src', 'hooks'))) if (name.endsWith('.ts') && !name.endsWith('.test.ts')) sources.push(join(REPO, 'src', 'hooks', name))
  const newest = Math.max(...sources.map((path) => statSync(path).mtimeMs))
  return statSync(BUILT).mtimeMs >= newest
}

const fresh = builtIsFresh()
if (!fresh) console.log('hook.process.test.ts: skipping the hook process runs, dist/ is missing or older than src/hooks (npm run build)')

let work: string
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'floorguard-hook-process-'))
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

/** Runs the launcher as a process (killed after 20 s: a bound on a hang, not a timing assertion). */
function launch(launcher: string, args: string[], input: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [launcher, 'hook', ...args], { input, env, encoding: 'utf8', timeout: 20_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe.skipIf(!fresh)('hooks/floorguard-hook.mjs as a process', () => {
  it('answers garbage with exit 0 and one line on stderr', () => {
    const state = join(work, 'state')
    expect(launch(LAUNCHER, ['claude-code', 'PreCompact', '--state-dir', state], 'not json')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'floorguard hook: standard input: expected the host\'s hook JSON, got "not json"\n',
    })
    expect(readFileSync(join(state, 'faults.log'), 'utf8')).toContain('expected the host\'s hook JSON')
  })

  it('PreCompact returns before the detached build, which then writes the ledger the next hooks use', async () => {
    const state = join(work, 'state')
    const log = join(work, 's.jsonl')
    writeFileSync(log, claudeCodeLog())
    expect(launch(LAUNCHER, ['claude-code', 'PreCompact', '--state-dir', state], JSON.stringify(claudeCode.PreCompact(log)))).toEqual({ code: 0, stdout: '', stderr: '' })
    const dir = join(state, 'sessions', 'claude-code', 'cc-session-1')
    await waitFor(() => existsSync(join(dir, 'state.json')) && !existsSync(join(dir, 'job.json')), 'the detached build', 20_000)
    const start = launch(LAUNCHER, ['claude-code', 'SessionStart', '--state-dir', state], JSON.stringify(claudeCode.SessionStart(log)))
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain(FACTS.constraint)
    const post = launch(LAUNCHER, ['claude-code', 'PostCompact', '--state-dir', state], JSON.stringify(claudeCode.PostCompact(log, FACTS.constraint)))
    expect(JSON.parse(post.stdout).systemMessage).toMatch(/^floorguard: the summary kept 1 of \d+ state items verbatim; all \d+ were put back/)
    await waitFor(() => existsSync(join(state, 'audit.jsonl')), 'the detached audit', 20_000)
    expect(JSON.parse(readFileSync(join(state, 'audit.jsonl'), 'utf8'))).toMatchObject({ kept: 1, session: 'cc-session-1' })
    expect(existsSync(join(state, 'faults.log'))).toBe(false)
  }, 60_000)
})

describe('hooks/floorguard-hook.mjs without a build next to it', () => {
  it('falls back to the floorguard on PATH, and without one says so and exits 0', () => {
    const bare = join(work, 'plugin', 'hooks')
    mkdirSync(bare, { recursive: true })
    copyFileSync(LAUNCHER, join(bare, 'floorguard-hook.mjs'))
    const env = { PATH: join(work, 'empty-path') }
    const claude = launch(join(bare, 'floorguard-hook.mjs'), ['claude-code', 'PreCompact'], JSON.stringify(claudeCode.PreCompact('/x')), env)
    expect(claude).toEqual({ code: 0, stdout: '', stderr: 'floorguard hook: floorguard is not installed (npm install -g floorguard) and this plugin has no build of its own\n' })
    const geminiAnswer = launch(join(bare, 'floorguard-hook.mjs'), ['gemini', 'BeforeAgent'], JSON.stringify(gemini.BeforeAgent('/x')), env)
    expect(geminiAnswer.stdout).toBe('{}\n')
    expect(geminiAnswer.code).toBe(0)
  })
})

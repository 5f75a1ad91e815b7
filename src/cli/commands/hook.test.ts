import { appendFileSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { claudeCodeLog, codexCompacted, codexRollout, FACTS, geminiSessionDocument, geminiSessionJsonl, geminiSnapshotLine, OLD_PATH } from '../../hooks/__fixtures__/logs.js'
import { claudeCode, codex, gemini } from '../../hooks/__fixtures__/payloads.js'
import type { CliIo } from '../_command.js'
import { createHookCommand } from './hook.js'

let work: string
let state: string
let spawned: string[][]

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'floorguard-hook-'))
  state = join(work, 'state')
  spawned = []
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

const clock = () => new Date('2026-12-02T10:00:00.000Z')
const command = createHookCommand({
  now: clock,
  spawnJob: (args) => {
    spawned.push([...args])
    return { on: () => undefined }
  },
})

async function hook(args: string[], payload: unknown, options: { raw?: string } = {}) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (chunk) => void (stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from([Buffer.from(options.raw ?? JSON.stringify(payload))]),
    cwd: work,
    env: {},
  }
  const code = await command.run([...args, '--state-dir', state], io)
  return { code, stdout, stderr }
}

/** Runs the jobs the hooks started, as the detached processes would. */
async function runJobs() {
  const jobs = spawned
  spawned = []
  for (const args of jobs) {
    const result = await hook(args.slice(1, args.indexOf('--state-dir')), undefined, { raw: '' })
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
  }
  return jobs.length
}

function sessionFiles(host: string, session: string) {
  const dir = join(state, 'sessions', host, session)
  const read = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'))
  return { dir, ledger: () => read('ledger.json'), state: () => read('state.json') }
}

function audit(): Array<Record<string, unknown>> {
  const path = join(state, 'audit.jsonl')
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : []
}

function faults(): string[] {
  const path = join(state, 'faults.log')
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : []
}

/** The independent count: ledger texts found in the summary, by a plain loop over the stored items. */
function countInSummary(items: Array<{ text: string }>, summary: string): number {
  let kept = 0
  for (const item of items) if (summary.split(item.text).length > 1) kept++
  return kept
}

function write(name: string, text: string): string {
  const path = join(work, name)
  writeFileSync(path, text)
  return path
}

describe('floorguard hook claude-code', () => {
  it('PreCompact answers at once and leaves the build to a detached job, which writes the ledger', async () => {
    const log = write('s.jsonl', claudeCodeLog())
    const result = await hook(['claude-code', 'PreCompact'], claudeCode.PreCompact(log))
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
    const files = sessionFiles('claude-code', 'cc-session-1')
    expect(existsSync(join(files.dir, 'job.json'))).toBe(true)
    expect(spawned).toEqual([['hook', 'claude-code', 'PreCompact', '--job', join(files.dir, 'job.json'), '--state-dir', state]])
    expect(await runJobs()).toBe(1)
    expect(existsSync(join(files.dir, 'job.json'))).toBe(false)
    const ledger = files.ledger()
    expect(ledger.items.map((item: { text: string }) => item.text)).toEqual(expect.arrayContaining([FACTS.constraint, FACTS.newPin, FACTS.error]))
    expect(JSON.stringify(ledger.items)).not.toContain(OLD_PATH)
    expect(ledger.transcript).toMatchObject({ path: log, bytes: statSync(log).size, from: 0, truncated: false })
    expect(readFileSync(join(files.dir, 'ledger.md'), 'utf8')).toContain(FACTS.constraint)
  })

  it('SessionStart(compact) puts the ledger back once; PostCompact counts what the summary kept and audits it', async () => {
    const log = write('s.jsonl', claudeCodeLog({ turns: 4 }))
    expect((await hook(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(log))).stdout).toBe('')
    expect(spawned).toEqual([])
    const files = sessionFiles('claude-code', 'cc-session-1')

    const start = await hook(['claude-code', 'SessionStart'], claudeCode.SessionStart(log, 'compact'))
    expect(start.code).toBe(0)
    const context = JSON.parse(start.stdout).hookSpecificOutput
    expect(context.hookEventName).toBe('SessionStart')
    expect(context.additionalContext).toBe(files.state().injection.text)
    expect(context.additionalContext.length).toBeLessThanOrEqual(9500)
    expect(context.additionalContext).toContain(FACTS.constraint)
    expect(files.state().injectedAt).toBe('2026-12-02T10:00:00.000Z')
    expect((await hook(['claude-code', 'SessionStart'], claudeCode.SessionStart(log, 'compact'))).stdout).toBe('')
    expect((await hook(['claude-code', 'SessionStart'], claudeCode.SessionStart(log, 'startup'))).stdout).toBe('')

    const summary = `Summary: the user said "${FACTS.constraint}" and pinned ${FACTS.newPin}.`
    const post = await hook(['claude-code', 'PostCompact'], claudeCode.PostCompact(log, summary))
    const items = files.ledger().items
    const kept = countInSummary(items, summary)
    expect(kept).toBeGreaterThanOrEqual(2)
    expect(JSON.parse(post.stdout)).toEqual({ systemMessage: `floorguard: the summary kept ${kept} of ${items.length} state items verbatim; all ${items.length} were put back` })
    // The audit record waits for its exact summary token count in a detached job.
    expect(audit()).toEqual([])
    expect(await runJobs()).toBe(1)
    const [record] = audit()
    expect(record).toMatchObject({ session: 'cc-session-1', host: 'claude-code', trigger: 'auto', items: items.length, kept, event: 'PostCompact' })
    expect(record!['summaryTokens']).toBeGreaterThan(5)
    expect((record!['lost'] as unknown[]).length).toBe(items.length - kept)
    // A second PostCompact for the same compaction adds nothing.
    expect((await hook(['claude-code', 'PostCompact'], claudeCode.PostCompact(log, summary))).stdout).toBe('')
    expect(faults()).toEqual([])
  })

  it('PostCompact before SessionStart says the ledger goes back when the session resumes', async () => {
    const log = write('s.jsonl', claudeCodeLog())
    await hook(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(log))
    const post = await hook(['claude-code', 'PostCompact', '--sync'], claudeCode.PostCompact(log, 'nothing kept'))
    expect(JSON.parse(post.stdout).systemMessage).toMatch(/^floorguard: the summary kept 0 of \d+ state items verbatim; all \d+ go back into context when the session resumes/)
    expect(audit()[0]).toMatchObject({ kept: 0 })
    const start = await hook(['claude-code', 'SessionStart'], claudeCode.SessionStart(log))
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain(FACTS.constraint)
  })

  it('--block manual stops a manual compaction whose floor exceeds --slot, never an automatic one', async () => {
    const log = write('s.jsonl', claudeCodeLog())
    const blocked = await hook(['claude-code', 'PreCompact', '--block', 'manual', '--slot', '5'], claudeCode.PreCompact(log, 'manual'))
    const answer = JSON.parse(blocked.stdout)
    expect(answer.decision).toBe('block')
    expect(answer.reason).toMatch(/^floorguard: the \d+ state items .* need \d+ tokens verbatim, more than the 5-token summary holds; this manual compaction was blocked by --block manual/)
    expect(blocked.code).toBe(0)
    expect((await hook(['claude-code', 'PreCompact', '--block', 'manual', '--slot', '5'], claudeCode.PreCompact(log, 'auto'))).stdout).toBe('')
    expect((await hook(['claude-code', 'PreCompact', '--block', 'manual', '--slot', '100000', '--sync'], claudeCode.PreCompact(log, 'manual'))).stdout).toBe('')
    expect((await hook(['claude-code', 'PreCompact', '--slot', '5', '--sync'], claudeCode.PreCompact(log, 'manual'))).stdout).toBe('')
  })

  it('--instructions prints must-keep instructions listing the items verbatim (undocumented channel, opt-in)', async () => {
    const log = write('s.jsonl', claudeCodeLog())
    const result = await hook(['claude-code', 'PreCompact', '--instructions'], claudeCode.PreCompact(log))
    expect(result.stdout.startsWith('Copy the floorguard state block below into the summary unchanged')).toBe(true)
    expect(result.stdout).toContain(FACTS.constraint)
    expect(result.stdout.length).toBeLessThanOrEqual(9501)
  })

  it('reads a log whose last line is still being written', async () => {
    const log = write('s.jsonl', `${claudeCodeLog()}{"parentUuid":"x","type":"user","message":{"role":"user","content":"half`)
    await hook(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(log))
    const ledger = sessionFiles('claude-code', 'cc-session-1').ledger()
    expect(ledger.transcript.skipped).toBe(1)
    expect(ledger.items.length).toBeGreaterThan(3)
  })
})

describe('floorguard hook codex', () => {
  it('builds before, puts back on SessionStart(compact), and checks the summary Codex appended to the rollout', async () => {
    const log = write('rollout.jsonl', codexRollout())
    expect((await hook(['codex', 'PreCompact', '--sync'], codex.PreCompact(log))).stdout).toBe('')
    const start = await hook(['codex', 'SessionStart'], codex.SessionStart(log, 'compact'))
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain(FACTS.constraint)
    const summary = `Earlier work: the user said ${FACTS.constraint} and pinned ${FACTS.newPin}.`
    appendFileSync(log, codexCompacted(summary))
    const post = await hook(['codex', 'PostCompact', '--sync'], codex.PostCompact(log))
    const items = sessionFiles('codex', 'codex-session-1').ledger().items
    const kept = countInSummary(items, summary)
    expect(kept).toBeGreaterThanOrEqual(2)
    expect(JSON.parse(post.stdout).systemMessage).toBe(`floorguard: the summary kept ${kept} of ${items.length} state items verbatim; all ${items.length} were put back`)
    expect(audit()[0]).toMatchObject({ host: 'codex', kept })
  })

  it('says so when the summary is encrypted (a server-side compaction) and never blocks', async () => {
    const log = write('rollout.jsonl', codexRollout())
    expect((await hook(['codex', 'PreCompact', '--sync', '--block', 'manual', '--slot', '1'], { ...codex.PreCompact(log), trigger: 'manual' })).stdout).toBe('')
    appendFileSync(log, codexCompacted(''))
    const post = await hook(['codex', 'PostCompact'], codex.PostCompact(log))
    expect(JSON.parse(post.stdout).systemMessage).toMatch(/^floorguard: the summary is encrypted \(a server-side compaction\); all \d+ state items go back into context/)
    expect(audit()[0]).toMatchObject({ kept: null, note: 'the summary is encrypted (a server-side compaction)' })
  })
})

describe('floorguard hook gemini', () => {
  it('PreCompress builds; the next BeforeAgent puts the ledger back once; other prompts get {}', async () => {
    const log = write('session.json', geminiSessionDocument())
    expect(await hook(['gemini', 'BeforeAgent'], gemini.BeforeAgent(log))).toEqual({ code: 0, stdout: '{}\n', stderr: '' })
    expect((await hook(['gemini', 'PreCompress', '--sync'], gemini.PreCompress(log))).stdout).toBe('{}\n')
    const first = JSON.parse((await hook(['gemini', 'BeforeAgent'], gemini.BeforeAgent(log))).stdout)
    expect(first.hookSpecificOutput.hookEventName).toBe('BeforeAgent')
    expect(first.hookSpecificOutput.additionalContext).toContain(FACTS.constraint)
    expect(first.systemMessage).toMatch(/^floorguard: the session log holds no summary of this compaction; all \d+ state items were put back/)
    expect((await hook(['gemini', 'BeforeAgent'], gemini.BeforeAgent(log))).stdout).toBe('{}\n')
    expect(audit()[0]).toMatchObject({ host: 'gemini', kept: null, event: 'BeforeAgent' })
  })

  it('a session file with no message (binary, cut, another format) is a fault, never an empty ledger', async () => {
    // A black-box re-test: PreCompress recorded a 0-message ledger and the next turn told the model nothing needed keeping.
    const before = faults().length
    for (const text of ['\u0000\u0001 not a session\n\u0002\n', '{"type":"init","session_id":"x"}\n{"type":"result","status":"success"}\n']) {
      const log = write('not-a-session.jsonl', text)
      const result = await hook(['gemini', 'PreCompress', '--sync'], gemini.PreCompress(log))
      expect(result).toMatchObject({ code: 0, stdout: '{}\n' })
      expect(result.stderr).toMatch(/expected a Gemini CLI session, got no message record/)
    }
    expect(faults().length).toBe(before + 2)
  })

  it('counts what the <state_snapshot> kept when the session file records it', async () => {
    const log = write('session.jsonl', geminiSessionJsonl())
    await hook(['gemini', 'PreCompress', '--sync'], gemini.PreCompress(log))
    const body = `Constraint: ${FACTS.constraint}`
    appendFileSync(log, geminiSnapshotLine(body))
    const answer = JSON.parse((await hook(['gemini', 'BeforeAgent', '--sync'], gemini.BeforeAgent(log))).stdout)
    const items = sessionFiles('gemini', 'gemini-session-1').ledger().items
    const kept = countInSummary(items, body)
    expect(kept).toBeGreaterThanOrEqual(1)
    expect(answer.systemMessage).toBe(`floorguard: the summary kept ${kept} of ${items.length} state items verbatim; all ${items.length} were put back`)
  })
})

describe('a hook never harms its host', () => {
  it.each([
    ['garbage on stdin', ['claude-code', 'PreCompact'], 'this is not json', ''],
    ['nothing on stdin', ['claude-code', 'PostCompact'], '', ''],
    ['garbage for Gemini (still answers {})', ['gemini', 'BeforeAgent'], '{"half":', '{}\n'],
    ['a payload of the wrong shape', ['claude-code', 'PreCompact'], JSON.stringify({ session_id: 's', hook_event_name: 'PreCompact' }), ''],
    ['an unknown host', ['cursor', 'PreCompact'], '{}', ''],
    ['an unknown event', ['claude-code', 'Stop'], '{}', ''],
    ['a bad flag', ['claude-code', 'PreCompact', '--block', 'sometimes'], '{}', ''],
  ])('%s: exit 0, one line on stderr, the fault logged', async (_name, args, raw, stdout) => {
    const result = await hook(args, undefined, { raw })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(stdout)
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    expect(result.stderr.startsWith('floorguard hook: ')).toBe(true)
    expect(faults()).toHaveLength(1)
    expect(faults()[0]).toContain(result.stderr.trim().slice('floorguard hook: '.length))
  })

  it('a missing or unreadable transcript: exit 0, the fault names the path', async () => {
    const missing = await hook(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(join(work, 'gone.jsonl')))
    expect(missing).toMatchObject({ code: 0, stdout: '' })
    expect(missing.stderr).toBe(`floorguard hook: transcript_path ${join(work, 'gone.jsonl')}: cannot read it (ENOENT)\n`)
    mkdirSync(join(work, 'a-directory'))
    const directory = await hook(['claude-code', 'PreCompact'], claudeCode.PreCompact(join(work, 'a-directory')))
    expect(directory).toMatchObject({ code: 0, stdout: '' })
    expect(directory.stderr).toContain('cannot read it (not a file)')
    expect(faults()).toHaveLength(2)
  })

  it('a transcript that is not a session log: exit 0, the fault logged, no ledger', async () => {
    const log = write('binary.jsonl', '\u0000\u0001 not a log at all\n{"type":7}\n')
    const result = await hook(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(log))
    expect(result).toMatchObject({ code: 0, stdout: '' })
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    expect(faults()).toHaveLength(1)
  })

  it('a last record longer than --max-bytes: the fault says so (a re-test: it said "empty input")', async () => {
    const huge = JSON.stringify({ type: 'user', uuid: 'u-huge', parentUuid: null, message: { role: 'user', content: 'x'.repeat(4096) } })
    const log = write('tail.jsonl', `${claudeCodeLog()}${huge}\n`)
    const result = await hook(['claude-code', 'PreCompact', '--sync', '--max-bytes', '2048'], claudeCode.PreCompact(log))
    expect(result).toMatchObject({ code: 0, stdout: '' })
    expect(result.stderr).toBe(`floorguard hook: ${log}: expected a whole record in the last 2048 bytes, got part of one longer record (raise --max-bytes)\n`)
    expect(faults()).toHaveLength(1)
  })

  it('after-hooks without a ledger say so instead of failing', async () => {
    const log = write('s.jsonl', claudeCodeLog())
    const start = await hook(['claude-code', 'SessionStart'], claudeCode.SessionStart(log))
    expect(start).toMatchObject({ code: 0, stdout: '' })
    expect(start.stderr).toContain('no ledger recorded for session cc-session-1')
    const post = await hook(['claude-code', 'PostCompact'], claudeCode.PostCompact(log, 's'))
    expect(JSON.parse(post.stdout).systemMessage).toBe('floorguard: no state ledger was recorded before this compaction (the PreCompact hook did not run, or failed: see faults.log)')
  })

  it('a session id cannot lead the state files out of the state directory', async () => {
    const log = write('s.jsonl', claudeCodeLog())
    await hook(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(log, 'auto', '../../escape'))
    expect(existsSync(join(work, 'escape'))).toBe(false)
    const [dir] = readdirSync(join(state, 'sessions', 'claude-code'))
    expect(dir).toMatch(/^id-[0-9a-f]{32}$/)
  })

  it('a 100 MB log: the answer reads only the last --max-bytes of it', async () => {
    const log = join(work, 'big.jsonl')
    const filler = claudeCodeLog({ boundary: false, turns: 2000 })
    const fd = openSync(log, 'w')
    try {
      for (let written = 0; written < 100 * 1024 * 1024; written += Buffer.byteLength(filler)) writeSync(fd, filler)
      writeSync(fd, claudeCodeLog({ turns: 3 }))
    } finally {
      closeSync(fd)
    }
    const size = statSync(log).size
    expect(size).toBeGreaterThan(100 * 1024 * 1024)
    // The default answer only stats the log: the detached build reads the tail.
    expect(await hook(['claude-code', 'PreCompact'], claudeCode.PreCompact(log))).toEqual({ code: 0, stdout: '', stderr: '' })
    expect(spawned).toHaveLength(1)
    spawned = []
    const result = await hook(['claude-code', 'PreCompact', '--sync', '--max-bytes', String(256 * 1024)], claudeCode.PreCompact(log))
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
    const ledger = sessionFiles('claude-code', 'cc-session-1').ledger()
    expect(ledger.transcript).toMatchObject({ bytes: size, from: size - 256 * 1024, truncated: true })
    expect(ledger.items.map((item: { text: string }) => item.text)).toContain(FACTS.constraint)
  }, 120_000)
})

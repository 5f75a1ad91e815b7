import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codexSiblingsLog } from '../../audit/__fixtures__/codex-siblings.js'
import { createRandom } from '../../_random.js'
import { REPO } from '../_test-io.js'

// `floorguard audit` as a process over dist/ (its files run on worker threads, which load the compiled worker).
// Skipped, visibly, when dist/ is missing or older than the audit's sources (`npm run build` first).
// FLOORGUARD_ROOT runs another build (a copy of bin/, dist/ and package.json, e.g. one compiled to a private outDir).
const ROOT = process.env.FLOORGUARD_ROOT ?? REPO
const BIN = join(ROOT, 'bin', 'floorguard.js')
const BUILT = join(ROOT, 'dist', 'cli', 'commands', '_audit-worker.js')

function builtIsFresh(): boolean {
  if (!existsSync(BUILT)) return false
  const sources = [join(REPO, 'src', 'cli', 'commands', 'audit.ts'), join(REPO, 'src', 'cli', 'commands', '_audit-worker.ts')]
  for (const name of readdirSync(join(REPO, 'src', 'audit'))) if (name.endsWith('.ts') && !name.endsWith('.test.ts')) sources.push(join(REPO, 'src', 'audit', name))
  return statSync(BUILT).mtimeMs >= Math.max(...sources.map((path) => statSync(path).mtimeMs))
}

const fresh = builtIsFresh()
if (!fresh) console.log('audit.test.ts: skipping the audit process runs, dist/ is missing or older than src/audit (npm run build)')

const lines = (records: readonly unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`
const CONTINUATION = 'This session is being continued from a previous conversation that ran out of context. Summary: we edited src/app.ts.'
const engram = (role: string, content: unknown) => ({ timestamp: '2026-03-09T02:10:00Z', role, content })

let work: string
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'floorguard-audit-cli-'))
  const logs = join(work, 'logs')
  mkdirSync(join(logs, 'project-b'), { recursive: true })
  writeFileSync(
    join(logs, 'a-session.jsonl'),
    lines([
      engram('user', { type: 'text', text: 'Fix src/app.ts; never touch config/prod.yaml. Pin numpy==1.26.4.' }),
      engram('assistant', { type: 'tool_use', tool_name: 'Bash', tool_id: 't1', input: { command: 'pytest tests/test_app.py -x' } }),
      engram('tool', { type: 'tool_result', tool_id: 't1', output: 'ModuleNotFoundError: No module named yaml', is_error: true }),
      engram('user', { type: 'text', text: CONTINUATION }),
      engram('user', { type: 'text', text: 'Is config/prod.yaml still untouched? Keep numpy==1.26.4.' }),
      // A long tail, so this first file finishes last with --jobs 2 and the report's order is put to the test.
      ...Array.from({ length: 1500 }, (_, index) =>
        engram(index % 2 === 0 ? 'assistant' : 'user', { type: 'text', text: `Step ${index}: looked at src/part${index}.ts and docs/page${index}.md, all fine.` }),
      ),
    ]),
  )
  writeFileSync(
    join(logs, 'project-b', 'rollout.jsonl'),
    lines([
      { timestamp: 't', type: 'session_meta', payload: { id: 's', cwd: '/tmp', cli_version: '0.46.0' } },
      { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Rename FOO_LIMIT in src/limits.rs.' }] } },
      { timestamp: 't', type: 'compacted', payload: { message: 'Renamed it.' } },
      { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Check src/limits.rs.' }] } },
    ]),
  )
  writeFileSync(join(logs, 'project-b', 'chat.json'), JSON.stringify([{ role: 'user', content: 'Fix src/app.ts.' }, { role: 'assistant', content: 'Done.' }]))
  writeFileSync(join(logs, 'notes.txt'), 'not a transcript by name\n')
  writeFileSync(join(logs, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0' }))
  writeFileSync(join(logs, 'README.md'), '# notes\n\nplain text, found by the walk\n')
  // An OpenCode data directory: its JSON storage (the fixture of src/audit/opencode.test.ts, which says what it follows).
  cpSync(join(REPO, 'src', 'audit', '__fixtures__', 'opencode-storage', 'storage'), join(work, 'opencode-data', 'storage'), { recursive: true })
  writeFileSync(join(work, 'broken.jsonl'), `${JSON.stringify(engram('user', { type: 'text', text: 'hi' }))}\n{"timestamp": "t", "role": "user", "content": 7}\n`)
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

/**
 * A session of `steps` tool-using turns in `format` (openai, claude-code or codex), each turn with its own constraint,
 * command, error and paths: enough distinct items that compact at a small slot splits it.
 */
function splitSession(format: string, steps: number): string {
  const turns = Array.from({ length: steps }, (_, index) => ({
    ask: `Step ${index}: edit src/mod${index}.ts. Do not delete config/prod${index}.yaml.`,
    command: `cat src/mod${index}.ts && grep -n TODO${index} src/lib${index}/x.py`,
    output: `Error: ModuleNotFoundError: No module named pkg${index}`,
    answer: `I will use /opt/data/run${index}.csv.`,
  }))
  if (format === 'openai') {
    const messages: unknown[] = [{ role: 'system', content: 'You are a coding agent. Never push to main.' }]
    turns.forEach((turn, index) => {
      messages.push({ role: 'user', content: turn.ask })
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: turn.command }) } }] })
      messages.push({ role: 'tool', tool_call_id: `c${index}`, content: turn.output })
      messages.push({ role: 'assistant', content: turn.answer })
    })
    return JSON.stringify({ messages })
  }
  if (format === 'claude-code') {
    const records: unknown[] = []
    let parent: string | null = null
    const add = (type: 'user' | 'assistant', content: unknown) => {
      const uuid = `00000000-0000-4000-8000-${String(records.length).padStart(12, '0')}`
      records.push({ parentUuid: parent, isSidechain: false, sessionId: 's1', type, uuid, timestamp: '2026-01-01T00:00:00Z', message: { role: type, content } })
      parent = uuid
    }
    turns.forEach((turn, index) => {
      add('user', turn.ask)
      add('assistant', [{ type: 'tool_use', id: `t${index}`, name: 'Bash', input: { command: turn.command } }])
      add('user', [{ type: 'tool_result', tool_use_id: `t${index}`, content: turn.output, is_error: true }])
      add('assistant', [{ type: 'text', text: turn.answer }])
    })
    return lines(records)
  }
  const item = (payload: unknown) => ({ timestamp: '2026-01-01T00:00:00Z', type: 'response_item', payload })
  const records: unknown[] = [{ timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 's1', cwd: '/tmp' } }]
  turns.forEach((turn, index) => {
    records.push(item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.ask }] }))
    records.push(item({ type: 'function_call', name: 'shell', call_id: `c${index}`, arguments: JSON.stringify({ command: ['bash', '-lc', turn.command] }) }))
    records.push(item({ type: 'function_call_output', call_id: `c${index}`, output: turn.output }))
    records.push(item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: turn.answer }] }))
  })
  return lines(records)
}

/** Runs `floorguard audit ARGS` as a process (killed after 60 s: a bound on a hang, not a timing assertion). */
function audit(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, 'audit', ...args], { cwd: work, encoding: 'utf8', timeout: 60_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe.skipIf(!fresh)('floorguard audit as a process', () => {
  it('--json prints one object with exactly the contract keys; a directory is walked and non-transcripts are skipped, each listed with the reason', () => {
    const { code, stdout, stderr } = audit(['logs', '--json', '--jobs', '2'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(Object.keys(report)).toEqual(['version', 'files', 'totals', 'failed', 'skipped'])
    expect(report.version).toBe(1)
    expect(report.files.map((file: { file: string; format: string }) => [file.file, file.format])).toEqual([
      ['logs/a-session.jsonl', 'claude-code'],
      ['logs/project-b/chat.json', 'openai'],
      ['logs/project-b/rollout.jsonl', 'codex'],
    ])
    for (const file of report.files) {
      for (const key of ['file', 'format', 'summaries', 'wouldSplit', 'wouldRefuse']) expect(file).toHaveProperty(key)
      for (const summary of file.summaries) {
        for (const key of ['message', 'replaced', 'items', 'survived', 'survival', 'futureReferenced', 'futureLost', 'lost', 'counterfactual', 'floor', 'summaryTokens']) expect(summary).toHaveProperty(key)
        for (const item of summary.lost) expect(Object.keys(item).sort()).toEqual(['kind', 'text', 'usedAgainAt'])
      }
    }
    const [session] = report.files[0].summaries
    expect(session).toMatchObject({ message: 3, replaced: [0, 3], counterfactual: true })
    expect(session.lost.find((item: { text: string }) => item.text === 'numpy==1.26.4')).toEqual({ kind: 'version', text: 'numpy==1.26.4', usedAgainAt: 4 })
    expect(report.totals).toMatchObject({ files: 3, failed: 0, skipped: 3, summaries: 2 })
    expect(report.skipped.map((skip: { file: string }) => skip.file)).toEqual(['logs/README.md', 'logs/notes.txt', 'logs/package.json'])
    expect(report.skipped[0].reason).toMatch(/^plain text/)
    expect(report.skipped[1].reason).toMatch(/^not a transcript by its name/)
    expect(report.skipped[2].reason).toMatch(/^no transcript format detected: expected an input whose format can be detected, got JSON that no format claims/)
  })

  it('the table names every file a walk skipped, one line each with the reason (a re-test: they were only counted)', () => {
    const { code, stdout } = audit(['logs'])
    expect(code).toBe(0)
    const listed = stdout.slice(stdout.indexOf('skipped, not read as transcripts:')).split('\n').slice(1, 4)
    expect(listed).toEqual([
      '  logs/README.md: plain text, no transcript format detected (--format text audits it)',
      '  logs/notes.txt: not a transcript by its name (a walk reads *.jsonl, *.json, *.traj, *.md, *.af)',
      expect.stringMatching(/^ {2}logs\/package\.json: no transcript format detected: .*JSON that no format claims.* \(--format NAME reads it as NAME\)$/),
    ])
    expect(stdout).toMatch(/\n3 files audited \([\d.]+ MB\), 3 skipped, 0 failed;/)
  })

  it('a walk reads Letta agent files (*.af) and OpenCode exports with their "Exporting session:" line, and finds their summaries (a re-test)', () => {
    // G1: the export was read as plain text and its compaction missed; G3: *.af was skipped by its name.
    const fixtures = join(REPO, 'src', 'transcript', 'formats', '__fixtures__')
    mkdirSync(join(work, 'agents'), { recursive: true })
    cpSync(join(fixtures, 'letta', 'agent.af'), join(work, 'agents', 'exporter.af'))
    cpSync(join(fixtures, 'opencode', 'export.json'), join(work, 'agents', 'session.json'))
    writeFileSync(join(work, 'agents', 'preamble.json'), `Exporting session: ses_7a1c0e2d4ffeQx2MbN8kLp3RsT\n${readFileSync(join(fixtures, 'opencode', 'export.json'), 'utf8')}`)
    const { code, stdout, stderr } = audit(['agents', '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.files.map((file: { file: string; format: string; summaries: unknown[] }) => [file.file, file.format, file.summaries.length])).toEqual([
      ['agents/exporter.af', 'letta', 1],
      ['agents/preamble.json', 'opencode', 1],
      ['agents/session.json', 'opencode', 1],
    ])
    expect(report.skipped).toEqual([])
  })

  it('a walk skips a Git LFS pointer with that reason; named alone it is refused in one line (a re-test: read as text, exit 0)', () => {
    mkdirSync(join(work, 'lfs'), { recursive: true })
    writeFileSync(join(work, 'lfs', 'session.jsonl'), `version https://git-lfs.github.com/spec/v1\noid sha256:${'9c2e'.repeat(16)}\nsize 52844\n`)
    const walked = audit(['lfs', '--json'])
    expect(walked.code).toBe(0)
    const report = JSON.parse(walked.stdout)
    expect(report.files).toEqual([])
    expect(report.skipped).toEqual([{ file: 'lfs/session.jsonl', reason: expect.stringMatching(/^a Git LFS pointer\b.*git lfs pull/) }])
    const named = audit(['lfs/session.jsonl'])
    expect(named.code).toBe(2)
    expect(named.stderr.trim()).toMatch(/^floorguard audit: lfs\/session\.jsonl: expected a transcript, got a Git LFS pointer\b.*`git lfs pull`[^\n]*$/)
  })

  it('--lenient reports every line it skipped, as check does (a final re-test: audit skipped them silently)', () => {
    mkdirSync(join(work, 'lenient'), { recursive: true })
    const good = (uuid: string, parent: string | null, text: string) => ({ type: 'user', uuid, parentUuid: parent, sessionId: 's', isSidechain: false, message: { role: 'user', content: text } })
    const text = lines([good('u1', null, 'first'), { type: 'user', uuid: 'u2', parentUuid: 'u1', sessionId: 's', isSidechain: false, message: { role: 'user', contenst: 'typo' } }, good('u3', 'u1', 'second')])
    writeFileSync(join(work, 'lenient', 'session.jsonl'), `${text}{"truncated": \n`)
    const run = audit(['lenient/session.jsonl', '--lenient'])
    expect(run.code).toBe(0)
    expect(run.stderr).toMatch(/^floorguard audit: warning: lenient\/session\.jsonl:2: \/message\/content: .*: line skipped$/m)
    expect(run.stderr).toMatch(/^floorguard audit: warning: lenient\/session\.jsonl:4:\d+: .*: line skipped$/m)
  })

  it('--format NAME reads every file as NAME, as check does: the advice of a refused file works (a re-test: audit rejected --format)', () => {
    writeFileSync(join(work, 'quoted.json'), JSON.stringify('Fix src/app.ts; never push to main.'))
    const refused = audit(['quoted.json'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^floorguard audit: quoted\.json: .*; pass --format text to read it as plain text\n$/)
    const read = audit(['quoted.json', '--format', 'text', '--json'])
    expect(read.stderr).toBe('')
    expect(read.code).toBe(0)
    expect(JSON.parse(read.stdout).files.map((file: { file: string; format: string }) => [file.file, file.format])).toEqual([['quoted.json', 'text']])
    // Forced on a walk, the format reads every file (a package.json is no openai transcript: a bad file, not a skip).
    const forced = audit(['logs/project-b', '--format', 'openai', '--json'])
    expect(forced.code).toBe(2)
    expect(JSON.parse(forced.stdout).files.map((file: { file: string }) => file.file)).toEqual(['logs/project-b/chat.json'])
    expect(forced.stderr, forced.stderr).toMatch(/^floorguard audit: logs\/project-b\/rollout\.jsonl[:\d]*: expected /)
    const unknown = audit(['logs', '--format', 'nope'])
    expect(unknown).toMatchObject({ code: 2, stdout: '' })
    expect(unknown.stderr).toMatch(/^floorguard audit: unknown transcript format "nope": expected auto or one of openai, .*codex/)
  })

  it('counts in its totals the cuts of every file (a long session crosses the high-water mark several times)', () => {
    // A black-box re-test found `totals.cuts` always 0: the CLI dropped each file's cuts before summing.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'iota', 'kappa', 'lambda', 'sigma', 'omega']
    const random = createRandom(3)
    const messages = Array.from({ length: 240 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: Array.from({ length: 900 }, () => `${random.pick(words)}${random.chance(0.1) ? random.int(0, 999) : ''}`).join(' '),
    }))
    mkdirSync(join(work, 'long'), { recursive: true })
    writeFileSync(join(work, 'long', 'session.json'), JSON.stringify({ model: 'gpt-4o', messages }))
    const { code, stdout } = audit(['long', '--json'])
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    const [file] = report.files
    expect(file.cuts.length).toBeGreaterThan(1)
    expect(report.totals).toMatchObject({ cuts: file.cuts.length, wouldCompact: file.wouldCompact, wouldSplit: file.wouldSplit, wouldRefuse: file.wouldRefuse })
    expect(file.wouldCompact + file.wouldSplit + file.wouldRefuse).toBe(file.cuts.length)
  })

  it('a compaction whose summary the log lacks shows no kept count and no decision (a re-test: "kept 0/1", "refuse")', () => {
    const file = join(work, 'boundary-only.jsonl')
    const record = (type: string, uuid: string, parentUuid: string | null, extra: object) => ({ type, uuid, parentUuid, sessionId: 's', isSidechain: false, timestamp: '2026-03-09T02:10:00Z', ...extra })
    writeFileSync(
      file,
      lines([
        record('user', 'u1', null, { message: { role: 'user', content: 'Fix main.go.' } }),
        record('assistant', 'u2', 'u1', { message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Fixed main.go.' }] } }),
        record('system', 'b1', null, { subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 900 } }),
        record('user', 'u3', 'b1', { message: { role: 'user', content: 'Next.' } }),
      ]),
    )
    const run = spawnSync(process.execPath, [BIN, 'audit', file], { encoding: 'utf8', timeout: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    const row = run.stdout.split('\n').find((line) => line.includes('boundary-only.jsonl'))!
    expect(row).toContain('(summary not in log)')
    expect(row).toMatch(/ -\/\d+ /)
    expect(row.trimEnd().endsWith(' -')).toBe(true)
  })

  it('--jobs 1 and --jobs 2 print the same report', () => {
    const one = audit(['logs', 'broken.jsonl', '--json', '--jobs', '1'])
    const two = audit(['logs', 'broken.jsonl', '--json', '--jobs', '2'])
    expect(one.code).toBe(2)
    expect(two.stdout).toBe(one.stdout)
    expect(two.stderr).toBe(one.stderr)
  })

  it('a bad file: one line naming it and what was expected, the others still audited, exit 2, no stack trace', () => {
    const { code, stdout, stderr } = audit(['broken.jsonl', 'logs'])
    expect(code).toBe(2)
    expect(stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/^floorguard audit: broken\.jsonl:2: .*expected/)
    expect(stderr).not.toMatch(/\n\s+at /)
    expect(stdout).toContain('logs/a-session.jsonl')
    expect(stdout).toContain('3 files audited')
  })

  it('bad usage and a missing path exit 2 with one line', () => {
    expect(audit([])).toMatchObject({ code: 2, stdout: '' })
    const jobs = audit(['logs', '--jobs', '0'])
    expect(jobs.code).toBe(2)
    expect(jobs.stderr).toMatch(/^floorguard audit: --jobs: expected a positive integer/)
    const missing = audit(['nowhere.jsonl', 'logs', '--json'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe('floorguard audit: nowhere.jsonl: expected a file or a directory, got no such file or directory\n')
    expect(JSON.parse(missing.stdout).failed).toHaveLength(1)
  })

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal, a progress bar on stderr, erased before the table', () => {
    // util-linux `script` gives the command a pseudo-terminal; its stderr and stdout both come back on our stdout.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} audit logs --jobs 1`
    const result = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: work, encoding: 'utf8', timeout: 60_000 })
    expect(result.status).toBe(0)
    // Five candidate files: the three transcripts, package.json and README.md (skipped once read).
    expect(result.stdout).toMatch(/\r\[#*\.+\] 1\/5 files/)
    expect(result.stdout).toMatch(/\r\[#{24}\] 5\/5 files, [\d.]+\/[\d.]+ MB\r\u001b\[K/)
    expect(result.stdout).toContain('3 files audited')
  })

  it('a reader that closes standard output ends the audit quietly', async () => {
    const child = spawn(process.execPath, [BIN, 'audit', 'logs', '--json', '--jobs', '1'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const code = await new Promise<number | null>((done) => child.on('close', done))
    expect(stderr).toBe('')
    expect(code).toBe(141)
  })

  it.each(['openai', 'claude-code', 'codex'])("floorguard's own split output (%s) audits as summaries over messages no longer in the file, nothing lost (a re-test: 16 of a Codex split's 17 parts lost state)", (format) => {
    const input = join(work, `split-input.${format === 'openai' ? 'json' : 'jsonl'}`)
    const output = join(work, `split-output.${format === 'openai' ? 'json' : 'jsonl'}`)
    writeFileSync(input, splitSession(format, 40))
    const compact = spawnSync(process.execPath, [BIN, 'compact', input, '--slot', '1200', '-o', output], { encoding: 'utf8', timeout: 60_000 })
    expect(compact.status, compact.stderr).toBe(0)
    const { code, stdout, stderr } = audit([output, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const [file] = JSON.parse(stdout).files
    const summaries = file.summaries as Array<{ message: number; replaced: number[]; lost: unknown[]; replacedNotInFile?: { range: number[] } }>
    expect(file.format).toBe(format)
    expect(summaries.length).toBeGreaterThan(1)
    for (const summary of summaries) {
      expect(summary.replaced).toEqual([summary.message, summary.message])
      expect(summary.lost).toEqual([])
    }
    // The parts are siblings: their ranges tile the compacted range.
    const ranges = summaries.map((summary) => summary.replacedNotInFile!.range)
    for (let index = 1; index < ranges.length; index++) expect(ranges[index]![0]).toBe(ranges[index - 1]![1])
    expect(JSON.parse(stdout).totals).toMatchObject({ summaries: summaries.length, replacedNotInFile: summaries.length, items: 0, counterfactual: 0 })
    expect(audit([output]).stdout).toContain(`${summaries.length} not audited: ${summaries.length} floorguard wrote over messages no longer in the file`)
  })

  it("reads what a Codex compaction kept (replacement_history) though the worker reads no record's source: a kept summary is a sibling", () => {
    writeFileSync(join(work, 'siblings.jsonl'), codexSiblingsLog())
    const { code, stdout } = audit(['siblings.jsonl', '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).files[0].summaries.map((summary: { replaced: number[]; items: number }) => [summary.replaced, summary.items])).toEqual([
      [[0, 0], 0],
      [[1, 1], 0],
    ])
  })

  it('an OpenCode storage directory is audited session by session (each with its message and part files), not file by file', () => {
    const project = '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750'
    const { code, stdout, stderr } = audit(['opencode-data', '--json', '--jobs', '2'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.files.map((file: { file: string; format: string }) => [file.file, file.format])).toEqual([
      [`opencode-data/storage/session/${project}/ses_63749ebbffffPz3LxQ7nBc1sHe.json`, 'opencode'],
      [`opencode-data/storage/session/${project}/ses_637d33ffffffJq8ZKd2mVt4rYw.json`, 'opencode'],
    ])
    expect(report.files[0].summaries).toEqual([])
    expect(report.files[1].summaries).toMatchObject([{ message: 6, replaced: [0, 6], source: 'opencode', counterfactual: true }])
    expect(report.totals).toMatchObject({ files: 2, failed: 0, summaries: 1 })

    // A session file named on the command line is read with its messages and parts too.
    const one = audit([`opencode-data/storage/session/${project}/ses_637d33ffffffJq8ZKd2mVt4rYw.json`, '--json'])
    expect(one.code).toBe(0)
    expect(JSON.parse(one.stdout).files[0]).toMatchObject({ format: 'opencode', messages: 9, summaries: [{ message: 6 }] })
  })
})

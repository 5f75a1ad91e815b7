import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { claudeCode } from '../../hooks/__fixtures__/payloads.js'
import { parseStateBlock } from '../../state-block/index.js'
import type { CliIo } from '../_command.js'
import { createHookCommand } from './hook.js'

// Real Claude Code sessions (Engram-flattened logs with three of Claude Code's own compactions each), read from
// shared/, never copied into the repository.
const corpus = fileURLToPath(new URL('../../../../shared/corpus/real/claude-code-engram-sjonas50/', import.meta.url))
const files = existsSync(corpus) ? readdirSync(corpus).filter((name) => name.endsWith('.jsonl')) : []
if (files.length === 0) console.log(`hook.real.test.ts: skipping the real-session hook runs, ${corpus} is absent`)

const PREFIX = 'This session is being continued from a previous conversation that ran out of context.'
const work = mkdtempSync(join(tmpdir(), 'floorguard-hook-real-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

// The issue's priority order, written out (not imported from the code under test).
const SECTION_ORDER = ['constraints', 'decisions and pins', 'errors', 'tool calls', 'literals', 'paths and urls', 'identifiers and values']
function expectedRank(item: { kind: string; key?: string; status: string }): number {
  if (item.status === 'superseded') return 7
  if (item.kind === 'constraint') return 0
  if (item.kind === 'version' || item.key !== undefined) return 1
  if (item.kind === 'error') return 2
  if (item.kind === 'tool-argument') return 3
  if (item.kind === 'regex' || item.kind === 'quoted') return 4
  if (item.kind === 'path' || item.kind === 'url') return 5
  return 6
}

async function run(args: string[], payload: unknown, state: string, jobs: string[][]) {
  const command = createHookCommand({ spawnJob: (jobArgs) => (jobs.push([...jobArgs]), { on: () => undefined }) })
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (chunk) => void (stdout += String(chunk)),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from([Buffer.from(payload === undefined ? '' : JSON.stringify(payload))]),
    cwd: work,
    env: {},
  }
  const code = await command.run([...args, '--state-dir', state], io)
  return { code, stdout, stderr }
}

describe.skipIf(files.length === 0)('PreCompact, SessionStart(compact), PostCompact around a real Claude Code compaction', () => {
  it.each(files)('%s, cut just before its second compaction', async (name) => {
    const lines = readFileSync(join(corpus, name), 'utf8').split('\n')
    const summaries = lines.flatMap((line, index) => (line.includes(PREFIX) ? [index] : []))
    expect(summaries.length).toBeGreaterThanOrEqual(2)
    const cut = summaries[1]!
    const summary = (JSON.parse(lines[cut]!) as { content: { text: string } }).content.text
    expect(summary.startsWith(PREFIX)).toBe(true)
    const log = join(work, `${name}.before-compaction.jsonl`)
    writeFileSync(log, `${lines.slice(0, cut).join('\n')}\n`)
    const state = join(work, `${name}.state`)
    const jobs: string[][] = []

    expect(await run(['claude-code', 'PreCompact', '--sync'], claudeCode.PreCompact(log), state, jobs)).toEqual({ code: 0, stdout: '', stderr: '' })
    const dir = join(state, 'sessions', 'claude-code', 'cc-session-1')
    const ledger = JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')) as { items: Array<{ kind: string; text: string; status: string; key?: string }>; range: [number, number] }
    expect(ledger.items.length).toBeGreaterThan(50)

    const start = await run(['claude-code', 'SessionStart'], claudeCode.SessionStart(log), state, jobs)
    const context = JSON.parse(start.stdout).hookSpecificOutput.additionalContext as string
    expect(context.length).toBeLessThanOrEqual(9500)
    expect(context.length).toBeLessThan(10_000)
    const block = parseStateBlock(context)!
    const shown = new Set(block.entries.map((entry) => entry.text))
    const sections = [...new Set(block.entries.map((entry) => entry.section))]
    expect(sections).toEqual(SECTION_ORDER.filter((section) => sections.includes(section)))
    const worstShown = Math.max(...ledger.items.filter((item) => shown.has(item.text)).map(expectedRank))
    const bestOmitted = Math.min(8, ...ledger.items.filter((item) => !shown.has(item.text)).map(expectedRank))
    expect(worstShown).toBeLessThanOrEqual(bestOmitted)
    for (const text of shown) expect(ledger.items.some((item) => item.text === text)).toBe(true)

    const post = await run(['claude-code', 'PostCompact'], claudeCode.PostCompact(log, summary), state, jobs)
    let kept = 0
    for (const item of ledger.items) if (summary.indexOf(item.text) !== -1) kept++
    expect(JSON.parse(post.stdout).systemMessage).toBe(
      `floorguard: the summary kept ${kept} of ${ledger.items.length} state items verbatim; all ${ledger.items.length} were put back${
        ledger.items.length > block.entries.length ? ` (${ledger.items.length - block.entries.length} of them in the ledger file)` : ''
      }`,
    )
    expect(jobs).toHaveLength(1)
    await run(jobs[0]!.slice(1, jobs[0]!.indexOf('--state-dir')), undefined, state, [])
    const record = JSON.parse(readFileSync(join(state, 'audit.jsonl'), 'utf8').trim())
    expect(record).toMatchObject({ items: ledger.items.length, kept, range: ledger.range })
    expect(record.lost).toHaveLength(ledger.items.length - kept)
    console.log(`hook.real.test.ts: ${name}: Claude Code's summary kept ${kept} of ${ledger.items.length} ledger items verbatim; ${block.entries.length} went back inline (${context.length} characters)`)
  }, 120_000)
})

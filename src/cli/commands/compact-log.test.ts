import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import type { CliIo } from '../_command.js'
import { compactCommand } from './compact.js'

const NARRATIVE = ' The agent looked through the repository, read the notes on how the modules are laid out and talked the plan over with the user.'.repeat(10)

const OPENAI = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Paths must match the regex "^/srv/app/[a-z]+\\.ya?ml$" exactly. Never touch /etc.' },
    { role: 'assistant', content: 'Reading the config.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"/srv/app/config.yaml"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: "ENOENT: no such file or directory, open '/srv/app/config.yaml'" },
    { role: 'assistant', content: `I pinned lodash@4.17.20 and then reverted to lodash@4.17.21. I will create the file.${NARRATIVE}` },
    { role: 'assistant', content: `Created /srv/app/config.yaml with timeout_ms: 2500. Done.${NARRATIVE}` },
    { role: 'user', content: 'Thanks. Next, run the tests.' },
  ],
}

// Every case's directory is made under one root, removed when the file's tests end: a test leaves no temp file behind.
const work = mkdtempSync(join(tmpdir(), 'floorguard-compact-log-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function setup() {
  const dir = mkdtempSync(join(work, 'case-'))
  writeFileSync(join(dir, 'chat.json'), JSON.stringify(OPENAI))
  let stdout = ''
  let stderr = ''
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), stdin: Readable.from([]), cwd: dir, env: { PATH: process.env.PATH } }
  return { dir, io, out: () => stdout, err: () => stderr }
}

/** The log read back as plain JSON lines (not with the module that wrote it). */
function readLog(path: string): Array<Record<string, unknown>> {
  const text = readFileSync(path, 'utf8')
  expect(text.endsWith('\n')).toBe(true)
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
}

describe('floorguard compact --log FILE', () => {
  it('writes the run events as JSON Lines, in order, with their numbers', async () => {
    const { dir, io } = setup()
    expect(await compactCommand.run(['chat.json', '--range', '1:6', '--log', 'events.jsonl', '-o', 'out.json'], io)).toBe(0)
    const events = readLog(join(dir, 'events.jsonl'))
    expect(events.map((event) => event.type)).toEqual(['compaction-start', 'plan-end', 'summary-end', 'compaction-end'])
    expect(events[0]).toMatchObject({ range: [1, 6], budget: 0, threshold: 0, call: 1 })
    // The planned slot: 2000, capped below the tokens the range holds (a summary must cost less).
    expect(events[1]).toMatchObject({ decision: 'compact', parts: [[1, 6]] })
    expect(events[1]!.slot as number).toBeLessThan(events[0]!.contextTokens as number)
    const summary = events[2]!
    expect(summary.survived).toBe(summary.items)
    expect(summary.items as number).toBeGreaterThan(0)
    const end = events[3]!
    expect(end).toMatchObject({ kind: 'compacted' })
    expect(end.contextTokensAfter as number).toBeLessThan(end.contextTokensBefore as number)
    expect(end.contextTokensBefore).toBe(events[0]!.contextTokens)
    for (const event of events) expect(typeof event.time).toBe('number')
  })

  it('logs a refusal too (nothing else is written), with the signal and its numbers', async () => {
    const { dir, io } = setup()
    expect(await compactCommand.run(['chat.json', '--range', '1:6', '--slot', '10', '--log', 'events.jsonl', '-o', 'out.json'], io)).toBe(3)
    expect(existsSync(join(dir, 'out.json'))).toBe(false)
    const events = readLog(join(dir, 'events.jsonl'))
    expect(events.map((event) => event.type)).toEqual(['compaction-start', 'plan-end', 'refusal', 'compaction-end'])
    const signal = events[2]!.signal as Record<string, unknown>
    expect(signal).toMatchObject({ type: 'budget-infeasible', slot: 10, range: [1, 6] })
    expect(signal.floor as number).toBeGreaterThan(10)
    expect(events[2]!.policy).toBe('keep')
    expect(events[3]).toMatchObject({ kind: 'refused' })
  })

  it('refuses a log that is a directory, standard output, the input or OUT, before any summarizer runs (exit 2 by UsageError)', async () => {
    const { dir, io } = setup()
    mkdirSync(join(dir, 'logs'))
    await expect(compactCommand.run(['chat.json', '--log', 'logs', '-o', 'out.json'], io)).rejects.toThrow(/^--log logs: is a directory/)
    await expect(compactCommand.run(['chat.json', '--log', '-', '-o', 'out.json'], io)).rejects.toThrow(/--log -: standard output/)
    await expect(compactCommand.run(['chat.json', '--log', 'chat.json', '-o', 'out.json'], io)).rejects.toThrow(/refusing to overwrite the input/)
    await expect(compactCommand.run(['chat.json', '--log', 'out.json', '-o', 'out.json'], io)).rejects.toThrow(/is also -o/)
    expect(readFileSync(join(dir, 'chat.json'), 'utf8')).toBe(JSON.stringify(OPENAI))
  })
})

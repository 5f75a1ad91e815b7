import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createTokenizer } from '../tokenize/index.js'
import { conformanceItems, conformanceMessages, createSummarizeRequest, testSummarizer } from '../test-utils/summarizer.js'
import { verifySummary } from '../verify/verify.js'

// The cases' directories are made under one root, removed when the file's tests end.
const work = mkdtempSync(join(tmpdir(), 'floorguard-cmd-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
import { createCommandSummarizer, type CommandSummaryRequest } from './command.js'

const tokenizer = await createTokenizer('o200k_base')
const script = fileURLToPath(new URL('./__fixtures__/summarizer-command.mjs', import.meta.url))
const command = (mode: string, ...args: string[]): string => [process.execPath, script, mode, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ')

testSummarizer({ name: 'command (faithful script)', createSummarizer: () => createCommandSummarizer({ command: command('copy') }), createTokenizer: () => tokenizer })

describe('command summarizer', () => {
  const messages = conformanceMessages()
  const items = conformanceItems(messages, tokenizer)
  const request = createSummarizeRequest({ messages, items, slot: 2000, tokenizer, offset: 7 })

  it('sends a versioned JSON request with groups, the state block and ready prompts', async () => {
    const result = await createCommandSummarizer({ command: command('echo-request') }).summarize(request)
    if (result.kind !== 'summary') throw new Error(result.reason)
    const sent = JSON.parse(result.text) as CommandSummaryRequest
    expect(sent).toMatchObject({ version: 1, slot: 2000, tokenizer: 'o200k_base', attempt: 1, offset: 7, missing: [], feedback: null })
    expect(sent.messages.map((message) => message.index)).toEqual([7, 8, 9, 10, 11])
    expect(sent.groups.flatMap((group) => group.items.map((item) => item.text)).sort()).toEqual(items.map((item) => item.text).sort())
    expect(sent.groups[0]?.kind).toBe('constraint')
    expect(sent.prompt).toContain(sent.stateBlock)
    expect(sent.system).toMatch(/transcript data, not instructions/)
  })

  it('strips trailing line breaks only', async () => {
    const result = await createCommandSummarizer({ command: "printf '  two spaces\\n\\n'" }).summarize(request)
    expect(result).toEqual({ kind: 'summary', text: '  two spaces' })
  })

  it('reports a non-zero exit with the first line of stderr', async () => {
    const result = await createCommandSummarizer({ command: command('crash') }).summarize(request)
    expect(result).toEqual({ kind: 'failure', reason: 'command summarizer cmd: exited with code 3: runner: model file not found', retryable: true })
  })

  it('kills the whole process group on timeout', async () => {
    const pids = join(mkdtempSync(join(work, 'case-')), 'pids.json')
    const result = await createCommandSummarizer({ command: command('hang', pids), timeoutMs: 1500 }).summarize(request)
    expect(result).toMatchObject({ kind: 'failure', retryable: true })
    if (result.kind === 'failure') expect(result.reason).toMatch(/timed out after 1500 ms \(process group killed\)/)
    expect(existsSync(pids)).toBe(true)
    const { pid, child } = JSON.parse(readFileSync(pids, 'utf8')) as { pid: number; child: number }
    await expectGone([pid, child])
  })

  // Issue 11: "a background grandchild survives a successful run".
  it('kills a background job the command leaves behind when it succeeds', async () => {
    const job = join(mkdtempSync(join(work, 'case-')), 'job.pid')
    const result = await createCommandSummarizer({ command: `sleep 60 >/dev/null 2>&1 & echo $! > '${job}'; printf summary` }).summarize(request)
    expect(result).toEqual({ kind: 'summary', text: 'summary' })
    await expectGone([Number(readFileSync(job, 'utf8'))])
  })

  it('returns when the command exits, even if a background job still holds its stdout', async () => {
    const job = join(mkdtempSync(join(work, 'case-')), 'job.pid')
    // Without the group kill at exit the call would wait for the job's 60 s, then for the 20 s timeout.
    const result = await createCommandSummarizer({ command: `sleep 60 & echo $! > '${job}'; printf summary`, timeoutMs: 20_000 }).summarize(request)
    expect(result).toEqual({ kind: 'summary', text: 'summary' })
    await expectGone([Number(readFileSync(job, 'utf8'))])
  })

  it('waits at most 2^31 - 1 ms instead of timing out at once on a larger timeout', async () => {
    const result = await createCommandSummarizer({ command: 'sleep 1; printf late', timeoutMs: 99_999_999_999 }).summarize(request)
    expect(result).toEqual({ kind: 'summary', text: 'late' })
  })

  it('stops on abort and on runaway output', async () => {
    const controller = new AbortController()
    const pending = createCommandSummarizer({ command: 'sleep 20' }).summarize({ ...request, abortSignal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    expect(await pending).toEqual({ kind: 'failure', reason: 'command summarizer cmd: aborted', retryable: true })
    const runaway = await createCommandSummarizer({ command: 'yes floorguard', maxOutputBytes: 10_000 }).summarize(request)
    expect(runaway).toEqual({ kind: 'failure', reason: 'command summarizer cmd: printed more than 10000 bytes', retryable: true })
  })

  it.each(['empty', 'over', 'paraphrase', 'drop', 'inject'])('a %s answer comes back as text that fails verification', async (mode) => {
    const result = await createCommandSummarizer({ command: command(mode) }).summarize({ ...request, slot: 400 })
    expect(result.kind).toBe('summary')
    if (result.kind === 'summary') expect(verifySummary({ summary: result.text, items, slot: 400, tokenizer }).ok).toBe(false)
  })
})

/** Resolves once none of `pids` runs; fails after a bound of 5 s (a bound on a wait, not a timing assertion). */
async function expectGone(pids: readonly number[]): Promise<void> {
  for (const pid of pids) {
    for (let waited = 0; isRunning(pid); waited += 20) {
      if (waited >= 5000) expect.fail(`process ${pid} still running`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

/** Whether a process exists and is not a zombie (a killed orphan may wait for a reaper that containers lack). */
function isRunning(pid: number): boolean {
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

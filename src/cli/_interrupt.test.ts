import { EventEmitter, getEventListeners } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCommandSummarizer } from '../summarize/command.js'
import { conformanceItems, conformanceMessages, createSummarizeRequest } from '../test-utils/summarizer.js'
import { createTokenizer } from '../tokenize/index.js'
import type { CliIo } from './_command.js'
import { compactableDocument } from './__fixtures__/transcripts.js'
import { abortableSummarizer, installInterrupts, type SignalTarget } from './_interrupt.js'
import { resolveOutput, writeOutput } from './_output.js'
import { assertBuilt, isRunning, spawnCli, waitFor } from './_test-io.js'

// Regression tests of issue 11 ("Interrupts"): a summarizer's process group and temp files never outlive the CLI.

const OPENAI = compactableDocument()
const faithful = fileURLToPath(new URL('../summarize/__fixtures__/summarizer-command.mjs', import.meta.url))
const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`
const work = mkdtempSync(join(tmpdir(), 'floorguard-interrupt-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
beforeAll(() => assertBuilt())

let counter = 0
function setup(document: unknown = OPENAI): string {
  const dir = mkdtempSync(join(work, `case-${counter++}-`))
  writeFileSync(join(dir, 'chat.json'), JSON.stringify(document))
  return dir
}

/** The pid a summarizer wrote to `file`, once the whole line is there. */
function pidIn(file: string): number | undefined {
  if (!existsSync(file)) return undefined
  const match = /^(\d+)\n$/.exec(readFileSync(file, 'utf8'))
  return match ? Number(match[1]) : undefined
}

async function expectGone(pids: readonly number[]): Promise<void> {
  for (const pid of pids) await waitFor(() => !isRunning(pid), `process ${pid} to end`, 5000)
}

describe('the real CLI and its command summarizer', () => {
  it('kills a background job of the summarizer when the run succeeds', async () => {
    const dir = setup()
    const job = join(dir, 'job.pid')
    const command = `sleep 60 >/dev/null 2>&1 & echo $! > ${quote(job)}; ${quote(process.execPath)} ${quote(faithful)} copy`
    const run = await spawnCli(['compact', 'chat.json', '--range', '0:4', '--summarizer', `cmd:${command}`, '-o', 'out.json'], { cwd: dir }).done
    expect(run.hung).toBe(false)
    expect(run.code).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')).messages).toHaveLength(2)
    const pid = pidIn(job)
    expect(pid).toBeDefined()
    await expectGone([pid!])
  })

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('on %s mid-summary kills the summarizer group, writes nothing and exits %i', async (signal, status) => {
    const dir = setup()
    const shell = join(dir, 'shell.pid')
    const job = join(dir, 'job.pid')
    const command = `sleep 60 >/dev/null 2>&1 & echo $! > ${quote(job)}; echo $$ > ${quote(shell)}; cat >/dev/null; sleep 60`
    const cli = spawnCli(['compact', 'chat.json', '--range', '0:4', '--summarizer', `cmd:${command}`, '-o', 'out.json'], { cwd: dir })
    await waitFor(() => pidIn(job) !== undefined && pidIn(shell) !== undefined, 'the summarizer to start')
    process.kill(cli.pid, signal)
    const run = await cli.done
    expect(run.hung).toBe(false)
    expect([run.code, run.signal]).toEqual([status, null])
    expect(run.stderr).not.toMatch(/\n\s+at /)
    await expectGone([pidIn(shell)!, pidIn(job)!])
    expect(readdirSync(dir).sort()).toEqual(['chat.json', 'job.pid', 'shell.pid'])
  })

  it('on SIGTERM mid-summary writes --log with what was logged so far, atomically (a re-test: no log after an interrupt)', async () => {
    const dir = setup()
    const shell = join(dir, 'shell.pid')
    const command = `echo $$ > ${quote(shell)}; cat >/dev/null; sleep 60`
    const cli = spawnCli(['compact', 'chat.json', '--range', '0:4', '--summarizer', `cmd:${command}`, '-o', 'out.json', '--log', 'run.jsonl'], { cwd: dir })
    await waitFor(() => pidIn(shell) !== undefined, 'the summarizer to start')
    process.kill(cli.pid, 'SIGTERM')
    const run = await cli.done
    expect([run.code, run.signal, run.hung]).toEqual([143, null, false])
    expect(readdirSync(dir).sort()).toEqual(['chat.json', 'run.jsonl', 'shell.pid'])
    const types = readFileSync(join(dir, 'run.jsonl'), 'utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { type: string }).type)
    expect(types[0]).toBe('compaction-start')
    expect(types).toContain('plan-end')
    expect(types).not.toContain('compaction-end')
  })

  it('on SIGTERM while OUT is being written removes the temp file and exits 143', async () => {
    // A 16 MB message outside the range makes the write long; the summarizer stops the CLI (SIGSTOP) as it ends, and
    // from there the CLI runs in short slices, looked at only while stopped, until its temp file exists.
    const dir = setup(compactableDocument([{ role: 'user', content: 'x'.repeat(16 << 20) }]))
    const command = `${quote(process.execPath)} ${quote(faithful)} copy; kill -STOP $PPID`
    const cli = spawnCli(['compact', 'chat.json', '--range', '0:4', '--summarizer', `cmd:${command}`, '-o', 'out.json'], { cwd: dir, limitMs: 60_000 })
    let exited = false
    void cli.done.then(() => (exited = true))
    await waitFor(() => exited || isStopped(cli.pid), 'the summarizer to stop the CLI', 30_000)
    const temp = () => readdirSync(dir).find((name) => /^\.out\.json\.floorguard-\d+-[0-9a-f]+\.tmp$/.test(name))
    let caught = false
    while (!exited) {
      if (temp() !== undefined && !existsSync(join(dir, 'out.json'))) {
        caught = true
        process.kill(cli.pid, 'SIGTERM')
        process.kill(cli.pid, 'SIGCONT')
        break
      }
      process.kill(cli.pid, 'SIGCONT')
      await new Promise((resolve) => setTimeout(resolve, 1))
      process.kill(cli.pid, 'SIGSTOP')
      while (!exited && !isStopped(cli.pid)) await new Promise((resolve) => setImmediate(resolve))
    }
    const run = await cli.done
    expect(caught, 'the CLI was stopped after its temp file was created and before the rename').toBe(true)
    expect([run.code, run.signal]).toEqual([143, null])
    expect(readdirSync(dir)).toEqual(['chat.json'])
  })
})

/** Whether every thread of a process is stopped (`T` in /proc), so nothing it does can happen while we look. */
function isStopped(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).every((task) => {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')
      return stat[stat.lastIndexOf(')') + 2] === 'T'
    })
  } catch {
    return false
  }
}

describe('a signal during synchronous work (a re-test: check and plan finished, printed everything and exited 0)', () => {
  /** Characters read and CPU ticks used by a process so far (/proc), or zeros once it is gone. */
  function progress(pid: number): { read: number; ticks: number } {
    try {
      const read = Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0)
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const [utime, stime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 13).map(Number)
      return { read, ticks: utime! + stime! }
    } catch {
      return { read: 0, ticks: 0 }
    }
  }

  let big = ''
  beforeAll(() => {
    // One long line of text whose estimate takes seconds of synchronous work after the read.
    const unit = 'Edit src/app.ts line 42: TypeError: x is undefined at /srv/a.py; never push to main. '
    big = join(work, 'big.txt')
    writeFileSync(big, unit.repeat(Math.ceil(30e6 / unit.length)))
  })

  it.each([
    ['check', 'SIGINT', 130],
    ['plan', 'SIGTERM', 143],
  ] as const)('%s: %s once the file is read and the estimate runs exits %i, nothing on standard output', async (command, signal, status) => {
    const size = statSync(big).size
    const run = spawnCli([command, big, '--json'], { limitMs: 60_000 })
    // The whole file read, then a third of a second more of CPU: the estimate, which never yields, is running.
    await waitFor(() => progress(run.pid).read >= size, 'the file to be read', 30_000)
    const start = progress(run.pid).ticks
    await waitFor(() => progress(run.pid).ticks >= start + 30, 'the estimate to run', 30_000)
    process.kill(run.pid, signal)
    const outcome = await run.done
    expect(outcome.hung).toBe(false)
    expect({ code: outcome.code, stdout: outcome.stdout }).toEqual({ code: status, stdout: '' })
  })
})

describe('installInterrupts (a fake process)', () => {
  function fakeProcess() {
    const emitter = new EventEmitter()
    const exits: number[] = []
    const target = Object.assign(emitter, { exit: (code: number) => void exits.push(code) }) as EventEmitter & SignalTarget
    return { target, exits }
  }

  it('on SIGTERM in the middle of writing OUT: aborts, removes the temp file, exits 143; the write then fails', async () => {
    const dir = setup()
    const { target, exits } = fakeProcess()
    const interrupts = installInterrupts(target)
    const io = { stdout: () => {}, stderr: () => {}, stdin: process.stdin, cwd: dir, env: {}, signal: interrupts.signal, trackTempFile: interrupts.trackTempFile } satisfies CliIo
    const watcher = watch(dir, (_event, name) => {
      if (name?.endsWith('.tmp') && existsSync(join(dir, name)) && exits.length === 0) target.emit('SIGTERM', 'SIGTERM')
    })
    try {
      const written = writeOutput(await resolveOutput('out.json', dir), Buffer.alloc(32 << 20, 'x'), io)
      await expect(written).rejects.toThrow(/^cannot write out\.json: /)
    } finally {
      watcher.close()
      interrupts.dispose()
    }
    expect(exits).toEqual([143])
    expect(interrupts.signal.aborted).toBe(true)
    expect(readdirSync(dir)).toEqual(['chat.json'])
  })

  it('maps SIGINT and SIGHUP to 130 and 129, cleans up at exit, and gives the signals back on dispose', () => {
    const { target, exits } = fakeProcess()
    const interrupts = installInterrupts(target)
    const temp = join(setup(), 'leftover.tmp')
    writeFileSync(temp, 'partial')
    interrupts.trackTempFile(temp)
    target.emit('exit', 0)
    expect(existsSync(temp)).toBe(false)
    expect(interrupts.signal.aborted).toBe(true)
    target.emit('SIGINT', 'SIGINT')
    target.emit('SIGHUP', 'SIGHUP')
    expect(exits).toEqual([130, 129])
    interrupts.dispose()
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit']) expect(target.listenerCount(name), name).toBe(0)
  })
})

describe('abortableSummarizer', () => {
  it('kills a command summarizer group when the CLI signal aborts, and leaves no listener behind', async () => {
    const tokenizer = await createTokenizer('o200k_base')
    const messages = conformanceMessages()
    const request = createSummarizeRequest({ messages, items: conformanceItems(messages, tokenizer), slot: 2000, tokenizer })
    const dir = setup()
    const shell = join(dir, 'shell.pid')
    const job = join(dir, 'job.pid')
    const controller = new AbortController()
    const summarizer = abortableSummarizer(
      createCommandSummarizer({ command: `sleep 60 >/dev/null 2>&1 & echo $! > ${quote(job)}; echo $$ > ${quote(shell)}; sleep 60` }),
      controller.signal,
    )
    const pending = summarizer.summarize(request)
    await waitFor(() => pidIn(job) !== undefined && pidIn(shell) !== undefined, 'the summarizer to start')
    controller.abort()
    expect(await pending).toEqual({ kind: 'failure', reason: 'command summarizer cmd: aborted', retryable: true })
    await expectGone([pidIn(shell)!, pidIn(job)!])
    const kept = new AbortController()
    const result = await abortableSummarizer(createCommandSummarizer({ command: 'printf summary' }), kept.signal).summarize(request)
    expect(result).toEqual({ kind: 'summary', text: 'summary' })
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0)
  })
})

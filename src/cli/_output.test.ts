import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, closeSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compactableDocument, largeDocument } from './__fixtures__/transcripts.js'
import { assertBuilt, BIN, runCaptured, spawnCli } from './_test-io.js'

// Regression tests of issue 11 ("-o replaces whatever is there", "OUT written non-atomically").

const OPENAI = compactableDocument()
const INPUT = JSON.stringify(OPENAI, null, 2)
const ARGS = ['compact', 'chat.json', '--range', '0:4']
const root = process.getuid?.() === 0
const work = mkdtempSync(join(tmpdir(), 'floorguard-output-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let counter = 0
/** A fresh directory holding chat.json (world-readable, for the run as nobody). */
function setup(): string {
  const dir = join(work, `case-${counter++}`)
  mkdirSync(dir, { mode: 0o755 })
  chmodSync(dir, 0o755)
  writeFileSync(join(dir, 'chat.json'), INPUT, { mode: 0o644 })
  return dir
}

/** What `compact … -o FILE` writes into a fresh regular file (the oracle for the other kinds of OUT). */
let expected: string
beforeAll(async () => {
  const dir = setup()
  const run = await runCaptured([...ARGS, '-o', 'plain.json'], { cwd: dir })
  expect(run.code).toBe(0)
  expected = readFileSync(join(dir, 'plain.json'), 'utf8')
  expect(JSON.parse(expected).messages).toHaveLength(2)
})

/** Names of temp files left in a directory. */
const temps = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp'))

/** A character device node of our own (root) or the system's, so a broken build never replaces /dev/null itself. */
function characterDevice(dir: string, name: 'null' | 'full'): string {
  if (!root) return `/dev/${name}`
  const path = join(dir, name)
  const made = spawnSync('mknod', [path, 'c', '1', name === 'null' ? '3' : '7'])
  if (made.status !== 0) throw new Error(`mknod failed: ${made.stderr}`)
  chmodSync(path, 0o666)
  return path
}

function expectOneLine(stderr: string, pattern: RegExp): void {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1)
  expect(stderr.trimEnd()).toMatch(pattern)
}

describe('compact -o: what is there is never replaced by something else', () => {
  it('-o - writes the transcript to standard output (no file named -), the report to stderr', async () => {
    const dir = setup()
    const run = await runCaptured([...ARGS, '-o', '-'], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe(expected)
    expect(run.stderr).toMatch(/written to <stdout>/)
    expect(existsSync(join(dir, '-'))).toBe(false)
    const both = await runCaptured([...ARGS, '-o', '-', '--json'], { cwd: dir })
    expect(both.code).toBe(2)
    expectOneLine(both.stderr, /-o - and --json both write to standard output/)
  })

  it('-o /dev/stdout (a pipe, or the file of `> OUT`) writes standard output itself', async () => {
    assertBuilt()
    const dir = setup()
    const piped = spawnSync(process.execPath, [BIN, ...ARGS, '-o', '/dev/stdout'], { cwd: dir, encoding: 'utf8', timeout: 30_000 })
    expect(piped.status).toBe(0)
    expect(piped.stdout).toBe(expected)
    expect(piped.stderr).toMatch(/written to <stdout>/)
    const redirected = spawnSync('sh', ['-c', '"$0" "$@" > out.json', process.execPath, BIN, ...ARGS, '-o', 'out.json'], { cwd: dir, encoding: 'utf8', timeout: 30_000 })
    expect(redirected.status).toBe(0)
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe(expected)
    expect(redirected.stderr).toMatch(/written to <stdout>/)
  })

  it('writes through a character device (/dev/null) and leaves the node a device', async () => {
    const dir = setup()
    const device = characterDevice(dir, 'null')
    const before = statSync(device)
    const run = await runCaptured([...ARGS, '-o', device], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`written to ${device}`)
    const after = lstatSync(device)
    expect(after.isCharacterDevice()).toBe(true)
    expect([after.ino, after.rdev]).toEqual([before.ino, before.rdev])
    expect(temps(dir)).toEqual([])
  })

  it('reports a device that refuses the bytes (/dev/full) in one line, exit 1, and claims nothing', async () => {
    const dir = setup()
    const device = characterDevice(dir, 'full')
    const run = await runCaptured([...ARGS, '-o', device], { cwd: dir })
    expect(run.code).toBe(1)
    expectOneLine(run.stderr, new RegExp(`^floorguard: cannot write ${device}: no space left on device$`))
    expect(run.stdout).not.toMatch(/written to/)
    expect(lstatSync(device).isCharacterDevice()).toBe(true)
  })

  it('writes through a FIFO to its reader and leaves it a FIFO', async () => {
    const dir = setup()
    const fifo = join(dir, 'pipe')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    // The reader is a process of its own with a bound: if OUT were replaced, it would wait on the old FIFO forever.
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 })
    let received = ''
    reader.stdout.setEncoding('utf8').on('data', (chunk: string) => void (received += chunk))
    const closed = new Promise<number | null>((resolve) => reader.on('close', resolve))
    const run = await runCaptured([...ARGS, '-o', fifo], { cwd: dir })
    expect(run.code).toBe(0)
    expect(await closed).toBe(0)
    expect(received).toBe(expected)
    expect(lstatSync(fifo).isFIFO()).toBe(true)
  })

  it('waits for a FIFO\'s reader and for it to read: a reader that comes late gets all of a large output', async () => {
    assertBuilt()
    const dir = setup()
    writeFileSync(join(dir, 'chat.json'), JSON.stringify(largeDocument()))
    const fifo = join(dir, 'pipe')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const cli = spawnCli([...ARGS, '-o', fifo], { cwd: dir, limitMs: 30_000 })
    // The reader comes late, opens the FIFO and waits before it reads: the compacted copy (about 250 KB) is larger than
    // a pipe's buffer, so the writer waits for a reader, then for reads.
    await new Promise((resolve) => setTimeout(resolve, 700))
    const reader = spawnSync('sh', ['-c', 'exec 3<"$0"; sleep 1; cat <&3', fifo], { encoding: 'utf8', timeout: 20_000, maxBuffer: 16 * 1024 * 1024 })
    const run = await cli.done
    expect([run.hung, run.code]).toEqual([false, 0])
    const written = JSON.parse(reader.stdout) as { messages: unknown[] }
    expect(written.messages).toHaveLength(largeDocument().messages.length - 4 + 1)
    expect(lstatSync(fifo).isFIFO()).toBe(true)
  })

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('ends on %s while OUT is a FIFO no one reads (exit %i), and leaves it a FIFO', async (signal, status) => {
    assertBuilt()
    const dir = setup()
    const fifo = join(dir, 'pipe')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const cli = spawnCli([...ARGS, '-o', fifo], { cwd: dir, limitMs: 20_000 })
    // Long enough for the summary to be made and the write to wait for a reader (a blocking open would hang here).
    await new Promise((resolve) => setTimeout(resolve, 1500))
    process.kill(cli.pid, signal)
    const run = await cli.done
    expect([run.hung, run.code, run.signal]).toEqual([false, status, null])
    expect(run.stderr).toBe('')
    expect(lstatSync(fifo).isFIFO()).toBe(true)
    expect(readdirSync(dir).sort()).toEqual(['chat.json', 'pipe'])
  })

  it('follows a symbolic link: the target is replaced atomically (its mode kept), the link stays a link', async () => {
    const dir = setup()
    mkdirSync(join(dir, 'real'))
    writeFileSync(join(dir, 'real', 'target.json'), 'old\n', { mode: 0o600 })
    chmodSync(join(dir, 'real', 'target.json'), 0o600)
    symlinkSync(join('real', 'target.json'), join(dir, 'link.json'))
    const run = await runCaptured([...ARGS, '-o', 'link.json'], { cwd: dir })
    expect(run.code).toBe(0)
    expect(lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(dir, 'link.json'))).toBe(join('real', 'target.json'))
    expect(readFileSync(join(dir, 'real', 'target.json'), 'utf8')).toBe(expected)
    expect(statSync(join(dir, 'real', 'target.json')).mode & 0o777).toBe(0o600)
    expect([...temps(dir), ...temps(join(dir, 'real'))]).toEqual([])
  })

  it('refuses an OUT that standard input is redirected from (compact - and report - with < OUT): exit 2, one line, input kept (a re-test: compact - -o in.json < in.json replaced it)', async () => {
    assertBuilt()
    const dir = setup()
    for (const [args, message] of [
      [['compact', '-', '--range', '0:4', '-o', 'chat.json'], /^floorguard compact: -o chat\.json: refusing to overwrite the input file \(standard input is redirected from it\); write the compacted copy elsewhere$/],
      [['report', '-', '-o', 'chat.json'], /^floorguard report: -o chat\.json: refusing to overwrite the input file \(standard input is redirected from it\); write the report elsewhere$/],
    ] as const) {
      const stdin = openSync(join(dir, 'chat.json'), 'r')
      try {
        const run = await spawnCli(args, { cwd: dir, stdio: [stdin, 'pipe', 'pipe'] }).done
        expect([args[0], run.code]).toEqual([args[0], 2])
        expectOneLine(run.stderr, message)
        expect(run.stdout).toBe('')
      } finally {
        closeSync(stdin)
      }
      expect(readFileSync(join(dir, 'chat.json'), 'utf8')).toBe(INPUT)
    }
    // Standard input from another file: written as before.
    const other = openSync(join(dir, 'chat.json'), 'r')
    try {
      const run = await spawnCli(['compact', '-', '--range', '0:4', '-o', 'copy.json'], { cwd: dir, stdio: [other, 'pipe', 'pipe'] }).done
      expect(run.code).toBe(0)
    } finally {
      closeSync(other)
    }
    expect(readFileSync(join(dir, 'copy.json'), 'utf8')).toBe(expected)
  })

  it('refuses a link to a missing file, a link to the input, a directory, a socket and a missing directory (exit 2, one line)', async () => {
    const dir = setup()
    symlinkSync('nowhere.json', join(dir, 'dangling.json'))
    symlinkSync('chat.json', join(dir, 'input-link.json'))
    mkdirSync(join(dir, 'folder'))
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve))
    try {
      const cases: Array<[string, RegExp]> = [
        ['dangling.json', /-o dangling\.json: a symbolic link to a missing file/],
        ['input-link.json', /-o input-link\.json: refusing to overwrite the input file/],
        ['folder', /-o folder: is a directory/],
        ['sock', /-o sock: is a socket/],
        [join('missing', 'out.json'), /-o missing\/out\.json: cannot create a file in .*missing: no such file or directory/],
      ]
      for (const [out, message] of cases) {
        const run = await runCaptured([...ARGS, '-o', out], { cwd: dir })
        expect(run.code, out).toBe(2)
        expectOneLine(run.stderr, message)
      }
      expect(lstatSync(join(dir, 'sock')).isSocket()).toBe(true)
    } finally {
      server.close()
    }
    expect(readFileSync(join(dir, 'chat.json'), 'utf8')).toBe(INPUT)
    expect(lstatSync(join(dir, 'dangling.json')).isSymbolicLink()).toBe(true)
    expect(lstatSync(join(dir, 'folder')).isDirectory()).toBe(true)
    expect(temps(dir)).toEqual([])
  })

  it('refuses an OUT in a directory it cannot write, before any summarizer runs (exit 2, one line)', async () => {
    const dir = setup()
    const locked = join(dir, 'locked')
    mkdirSync(locked)
    chmodSync(locked, 0o555)
    const marker = join(dir, 'summarizer-ran')
    const args = [...ARGS, '--summarizer', `cmd:touch '${marker}'; cat >/dev/null; echo summary`, '-o', join('locked', 'out.json')]
    let code: number | null
    let stderr: string
    if (root) {
      // root writes anywhere: run the binary as nobody, for whom the directory is read-only.
      assertBuilt()
      chmodSync(work, 0o755)
      chmodSync(dir, 0o777)
      const run = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, uid: 65534, gid: 65534, encoding: 'utf8', timeout: 30_000 })
      code = run.status
      stderr = run.stderr
    } else {
      ;({ code, stderr } = await runCaptured(args, { cwd: dir, env: { PATH: process.env.PATH } }))
    }
    expect(code).toBe(2)
    expectOneLine(stderr, /-o locked\/out\.json: cannot create a file in .*locked: permission denied/)
    expect(readdirSync(locked)).toEqual([])
    expect(existsSync(marker)).toBe(false)
  })

  it.skipIf(!existsSync('/proc/version'))('refuses a directory that takes no new files whatever its permission bits say (/proc), before any summarizer runs', async () => {
    // A black-box re-test: `-o /proc/version` passed the checks (as root) and failed at the write, exit 1, naming a
    // file that exists as missing.
    const dir = setup()
    const marker = join(dir, 'summarizer-ran')
    const { code, stderr } = await runCaptured([...ARGS, '--summarizer', `cmd:touch '${marker}'; cat >/dev/null; echo summary`, '-o', '/proc/version'], { cwd: dir, env: { PATH: process.env.PATH } })
    expect(code).toBe(2)
    expectOneLine(stderr, /-o \/proc\/version: cannot create a file in \/proc: /)
    expect(existsSync(marker)).toBe(false)
    // In a directory that takes files, the probe leaves nothing behind.
    expect((await runCaptured([...ARGS, '-o', 'out.json'], { cwd: dir, env: { PATH: process.env.PATH } })).code).toBe(0)
    expect(readdirSync(dir).filter((name) => name.includes('probe') || name.endsWith('.tmp'))).toEqual([])
  })
})

describe('compact -o: a regular OUT is replaced atomically', () => {
  it('renames a new file over OUT: another link to the old file keeps the old bytes (an in-place write changes both)', async () => {
    const dir = setup()
    writeFileSync(join(dir, 'out.json'), 'old\n')
    linkSync(join(dir, 'out.json'), join(dir, 'old-link.json'))
    const before = statSync(join(dir, 'out.json')).ino
    const run = await runCaptured([...ARGS, '-o', 'out.json'], { cwd: dir })
    expect(run.code).toBe(0)
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe(expected)
    expect(readFileSync(join(dir, 'old-link.json'), 'utf8')).toBe('old\n')
    expect(statSync(join(dir, 'out.json')).ino).not.toBe(before)
    expect(temps(dir)).toEqual([])
  })

  it('a write cut short (file size limit) leaves OUT as it was, no temp file, one line and exit 1', () => {
    assertBuilt()
    const dir = setup()
    // A transcript whose compacted copy (about 250 KB) is larger than the 64 KiB the limit allows.
    writeFileSync(join(dir, 'chat.json'), JSON.stringify(largeDocument()))
    writeFileSync(join(dir, 'out.json'), 'old\n')
    const run = spawnSync('bash', ['-c', `ulimit -f 64 && exec "$0" "$@"`, process.execPath, BIN, ...ARGS, '-o', 'out.json'], { cwd: dir, encoding: 'utf8', timeout: 30_000 })
    expect(run.status).toBe(1)
    expectOneLine(run.stderr, /^floorguard: cannot write out\.json: file too large$/)
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('old\n')
    expect(temps(dir)).toEqual([])
  })
})

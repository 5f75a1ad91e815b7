import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { largeDocument } from './__fixtures__/transcripts.js'
import { assertBuilt, BIN, REPO, spawnCli } from './_test-io.js'

// Regression tests of issue 11 ("Closed or full stdout"): one line or silence, never a stack trace, and nothing
// reported as written before the write succeeded.

const example = join(REPO, 'examples', 'turn-412.openai.json')
const work = mkdtempSync(join(tmpdir(), 'floorguard-main-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
beforeAll(() => assertBuilt())

/** A transcript whose compacted copy (about 250 KB) is larger than a pipe's buffer. */
const big = join(work, 'big.json')
writeFileSync(big, JSON.stringify(largeDocument()))

describe('standard output that fails', () => {
  it.each([
    ['check --json', ['check', example, '--json']],
    ['plan', ['plan', example]],
    ['compact without -o', ['compact', big, '--range', '0:4']],
  ])('%s > /dev/full: one line, exit 1, and no report of success', async (_name, args) => {
    const full = openSync('/dev/full', 'w')
    try {
      const run = await spawnCli(args, { stdio: ['ignore', full, 'pipe'] }).done
      expect(run.code).toBe(1)
      expect(run.stderr).toBe('floorguard: cannot write <stdout>: no space left on device\n')
    } finally {
      closeSync(full)
    }
  })

  it('a reader that is gone before anything is written (EPIPE) ends the run quietly with 141', async () => {
    const child = spawn(process.execPath, [BIN, 'check', example, '--json'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 })
    child.stdout.destroy()
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (...result) => resolve(result)))
    expect([code, signal]).toEqual([141, null])
    expect(stderr).toBe('')
  })

  it('compact | head -c 100: the transcript is cut, compact exits 141 and says nothing', () => {
    const run = spawnSync('bash', ['-c', '"$0" "$@" | head -c 100; echo "status ${PIPESTATUS[0]}" >&2', process.execPath, BIN, 'compact', big, '--range', '0:4'], {
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(run.stdout).toHaveLength(100)
    expect(run.stderr).toBe('status 141\n')
  })
})

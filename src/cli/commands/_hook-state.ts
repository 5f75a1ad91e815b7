import { createHash, randomBytes } from 'node:crypto'
import { appendFile, mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { AuditRecord, HostName, StoredItem } from '../../hooks/index.js'

/**
 * The state directory: `--state-dir`, else `$FLOORGUARD_STATE_DIR`, else `$XDG_STATE_HOME/floorguard`, else
 * `~/.local/state/floorguard`. A relative path is taken from `cwd`.
 */
export function resolveStateRoot(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string, home = homedir()): string {
  const chosen = flag || env['FLOORGUARD_STATE_DIR'] || (env['XDG_STATE_HOME'] ? join(env['XDG_STATE_HOME'], 'floorguard') : join(home, '.local', 'state', 'floorguard'))
  return isAbsolute(chosen) ? chosen : resolve(cwd, chosen)
}

/** A session id as a directory name: itself when it is a plain name, else `id-` and a hash (no path can escape). */
export function sessionDirName(sessionId: string): string {
  if (/^[A-Za-z0-9._-]{1,128}$/.test(sessionId) && sessionId !== '.' && sessionId !== '..') return sessionId
  return `id-${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`
}

/** `ROOT/sessions/HOST/SESSION`. */
export function sessionDir(root: string, host: HostName, sessionId: string): string {
  return join(root, 'sessions', host, sessionDirName(sessionId))
}

/** What `ledger.json` holds: the ledger a `before` hook built (written once, read by the verifying hook). */
export interface StoredLedger {
  readonly v: 1
  readonly host: HostName
  readonly session: string
  readonly event: string
  readonly trigger: string | null
  /** ISO time the `before` hook fired (the job's time, for a detached build). */
  readonly createdAt: string
  readonly transcript: { readonly path: string; readonly bytes: number; readonly from: number; readonly truncated: boolean; readonly skipped: number }
  readonly range: readonly [number, number]
  readonly messages: number
  readonly floor: { readonly irreducible: number; readonly margin: number; readonly total: number; readonly estimator: string; readonly tokenizer: string }
  readonly tokens: number
  readonly items: readonly StoredItem[]
  /** The complete ledger, named by the injected text. */
  readonly file: string
}

/**
 * What `state.json` holds: the small, changing part of a session's ledger (read on every after-hook, so kept apart
 * from the items): its injected text and whether it was put back and checked.
 */
export interface LedgerState {
  readonly v: 1
  /** The ledger's `createdAt`. */
  readonly createdAt: string
  readonly items: number
  readonly injection: { readonly text: string; readonly shown: number; readonly total: number; readonly detail: string; readonly cap: number }
  readonly file: string
  /** A hash of the summary that opened the region (Gemini: tells a new summary from the old one). */
  readonly boundarySummary: string | null
  readonly injectedAt: string | null
  readonly verifiedAt: string | null
}

/** A detached build waiting to run: what `job.json` holds. */
export interface LedgerJob {
  readonly v: 1
  readonly kind?: 'build'
  readonly host: HostName
  readonly event: string
  readonly session: string
  readonly trigger: string | null
  readonly transcript: string
  /** Size of the log when the `before` hook fired: the build reads up to here, whatever the host appends later. */
  readonly bytes: number
  readonly createdAt: string
  readonly options: { readonly cap: number; readonly tokenizer: string; readonly estimator: string; readonly maxBytes: number }
}

/**
 * A detached audit waiting to run (`audit-*.json`): the record of a checked compaction, whose summary tokens are
 * counted there (loading an exact tokenizer takes longer than a hook may).
 */
export interface AuditJob {
  readonly v: 1
  readonly kind: 'audit'
  readonly tokenizer: string
  readonly summary: string
  readonly record: AuditRecord
}

/** Reads and parses a JSON file, or undefined when it does not exist. */
export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return JSON.parse(text) as T
}

/** Writes a file through a temp file and a rename (a reader sees the old or the new file), creating its directory. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  try {
    await writeFile(temp, text, { mode: 0o600 })
    await rename(temp, path)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
}

/** Appends one line (one `write`, so concurrent hooks do not interleave lines), creating the directory. */
export async function appendLine(path: string, line: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await appendFile(path, line.endsWith('\n') ? line : `${line}\n`, { mode: 0o600 })
}

/** Removes a file if it exists. */
export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error
  })
}

/** Reads bytes `[from, to)` of a file as UTF-8. */
export async function readRange(path: string, from: number, to: number): Promise<string> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(Math.max(0, to - from))
    let filled = 0
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return buffer.subarray(0, filled).toString('utf8')
  } finally {
    await handle.close()
  }
}

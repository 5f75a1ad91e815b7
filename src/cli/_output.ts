import { randomBytes } from 'node:crypto'
import { closeSync, constants as fsConstants, fstatSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs'
import { access, lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { describeSystemError, OutputWriteError, UsageError, type CliIo } from './_command.js'

/**
 * Where `-o OUT` writes, decided before any summarizer runs:
 * - `stdout`: `-o -`, or an OUT that is the file standard output is open on (`-o /dev/stdout`);
 * - `replace`: a regular file or a new name; written to a temp file in `path`'s directory, then renamed over `path`
 *   (readers see the old file or the new one, never half of one). For a symbolic link, `path` is its target;
 * - `through`: a character device (`/dev/null`, a terminal) or a FIFO; opened and written, as a shell's `>` does,
 *   never replaced.
 */
export type OutputTarget =
  | { readonly kind: 'stdout'; readonly display: '<stdout>' }
  | { readonly kind: 'replace'; readonly path: string; readonly display: string; readonly mode: number | undefined }
  | { readonly kind: 'through'; readonly path: string; readonly display: string; readonly fifo: boolean }

/**
 * Resolves `-o VALUE` relative to `cwd`, or refuses it with a one-line UsageError (exit 2): a directory, a socket, a
 * block device, a symbolic link whose target is missing, a directory floorguard cannot create files in.
 */
export async function resolveOutput(value: string, cwd: string): Promise<OutputTarget> {
  if (value === '-') return { kind: 'stdout', display: '<stdout>' }
  const path = resolve(cwd, value)
  const refuse = (reason: string): UsageError => new UsageError(`-o ${value}: ${reason}`)
  let info: Stats
  try {
    info = await lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw refuse(describeSystemError(error))
    await checkDirectory(dirname(path), refuse)
    return { kind: 'replace', path, display: value, mode: undefined }
  }
  let real = path
  if (info.isSymbolicLink()) {
    try {
      info = await stat(path)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw refuse(code === 'ENOENT' ? 'a symbolic link to a missing file; give the path of the file to create' : `a symbolic link that cannot be followed (${describeSystemError(error)})`)
    }
    // A /proc fd link to a pipe (/dev/stdout in `| less`) has no path to resolve: it is opened as it is.
    real = await realpath(path).catch(() => path)
  }
  if (isStandardOutput(info)) return { kind: 'stdout', display: '<stdout>' }
  if (info.isDirectory()) throw refuse('is a directory; give a file name')
  if (info.isFile()) {
    await checkDirectory(dirname(real), refuse)
    await checkWritable(real, refuse)
    return { kind: 'replace', path: real, display: value, mode: info.mode & 0o7777 }
  }
  if (info.isCharacterDevice() || info.isFIFO()) {
    await checkWritable(real, refuse)
    return { kind: 'through', path: real, display: value, fifo: info.isFIFO() }
  }
  throw refuse(`is a ${info.isSocket() ? 'socket' : info.isBlockDevice() ? 'block device' : 'special file'}; floorguard writes regular files, character devices and FIFOs`)
}

/** Whether `info` is the file standard output is open on (`-o /dev/stdout`, or OUT also named in `> OUT`). */
function isStandardOutput(info: Stats): boolean {
  try {
    const stdout = fstatSync(1)
    return stdout.dev === info.dev && stdout.ino === info.ino
  } catch {
    return false
  }
}

/** What a command reads, for {@link refuseInputAsOutput}: files by path and, when `stdin` is true, standard input. */
export interface CommandInputs {
  /** Every file the command reads (a walk: each file it reads), as paths it opens. */
  readonly paths: readonly string[]
  /**
   * Whether the command reads standard input (`-`): a regular file it is redirected from (`- < in.json`) is an input.
   * @default false
   */
  readonly stdin?: boolean
  /**
   * Whether `paths` are the files of a directory walk (the refusal then names the file).
   * @default false
   */
  readonly walk?: boolean
}

/** A file's identity, device and inode (a hard link, a symbolic link, a bind mount: one file), or undefined. */
type FileIdentity = { readonly dev: number; readonly ino: number } | undefined

async function identityOf(path: string): Promise<FileIdentity> {
  try {
    const info = await stat(path)
    return { dev: info.dev, ino: info.ino }
  } catch {
    return undefined
  }
}

/** The regular file standard input is redirected from, or undefined (a terminal, a pipe, no fd 0). */
function stdinIdentity(): FileIdentity {
  try {
    const info = fstatSync(0)
    return info.isFile() ? { dev: info.dev, ino: info.ino } : undefined
  } catch {
    return undefined
  }
}

const realOrResolved = async (path: string): Promise<string> => realpath(path).catch(() => resolve(path))

/**
 * sameFile(a, b) = a and b name one file: the same device and inode, or (either missing) the same path once symbolic
 * links are resolved.
 */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [first, second] = await Promise.all([identityOf(a), identityOf(b)])
  if (first && second) return first.dev === second.dev && first.ino === second.ino
  return (await realOrResolved(a)) === (await realOrResolved(b))
}

/**
 * Refuses (UsageError, exit 2, one line) a `target` that is a file the command reads: any of `inputs.paths` (the same
 * file by device and inode, or by resolved path) or the regular file standard input is redirected from. Every command
 * that writes OUT calls it before it writes anything, so no input is ever replaced by its own output. `flag` and
 * `value` name the option as given (`-o in.json`); `advice` ends the line (`write the report elsewhere`).
 */
export async function refuseInputAsOutput(
  target: OutputTarget,
  inputs: CommandInputs,
  options: { readonly flag: string; readonly value: string; readonly advice: string },
): Promise<void> {
  if (target.kind !== 'replace') return
  const refuse = (what: string): UsageError => new UsageError(`${options.flag} ${options.value}: refusing to overwrite ${what}; ${options.advice}`)
  const out = await identityOf(target.path)
  if (inputs.stdin && out) {
    const input = stdinIdentity()
    if (input && input.dev === out.dev && input.ino === out.ino) throw refuse('the input file (standard input is redirected from it)')
  }
  const outPath = out ? undefined : await realOrResolved(target.path)
  for (const path of inputs.paths) {
    const same = out ? await identityOf(path).then((input) => input !== undefined && input.dev === out.dev && input.ino === out.ino) : (await realOrResolved(path)) === outPath
    if (same) throw refuse(inputs.walk ? `the input file ${path}, which the walk reads` : 'the input file')
  }
}

async function checkDirectory(directory: string, refuse: (reason: string) => UsageError): Promise<void> {
  let info: Stats
  try {
    info = await stat(directory)
  } catch (error) {
    throw refuse(`cannot create a file in ${directory}: ${describeSystemError(error)}`)
  }
  if (!info.isDirectory()) throw refuse(`cannot create a file in ${directory}: not a directory`)
  try {
    await access(directory, fsConstants.W_OK | fsConstants.X_OK)
  } catch (error) {
    throw refuse(`cannot create a file in ${directory}: ${describeSystemError(error)}`)
  }
  // Permission bits do not say it all (root passes them; /proc and /sys take no new files; a read-only bind mount):
  // create and remove the empty file the write's own temp file would be, so a directory that takes none is refused
  // here, with exit 2, before any summarizer runs.
  const probe = join(directory, `.floorguard-probe-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    await (await open(probe, 'wx')).close()
  } catch (error) {
    throw refuse(`cannot create a file in ${directory}: ${describeSystemError(error)}`)
  }
  await unlink(probe).catch(() => undefined)
}

async function checkWritable(path: string, refuse: (reason: string) => UsageError): Promise<void> {
  try {
    await access(path, fsConstants.W_OK)
  } catch (error) {
    throw refuse(describeSystemError(error))
  }
}

/**
 * Writes `bytes` where {@link resolveOutput} said; a failure is an {@link OutputWriteError} (a temp file is removed
 * first). The temp file of a `replace` is registered with `io.trackTempFile`, so an interrupt removes it too; it is
 * flushed to disk before the rename and takes the replaced file's permission bits.
 */
export async function writeOutput(target: OutputTarget, bytes: Uint8Array, io: CliIo): Promise<void> {
  if (target.kind === 'stdout') {
    await io.stdout(bytes)
    return
  }
  if (target.kind === 'through') {
    if (await writeThrough(target, bytes)) return
    // Replaced by a regular file since it was resolved: never write a regular file in place.
    return writeOutput({ kind: 'replace', path: target.path, display: target.display, mode: undefined }, bytes, io)
  }
  const temp = join(dirname(target.path), `.${basename(target.path)}.floorguard-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
  const untrack = io.trackTempFile?.(temp) ?? (() => {})
  try {
    const handle = await open(temp, 'wx', target.mode ?? 0o666)
    try {
      await handle.writeFile(bytes)
      if (target.mode !== undefined) await handle.chmod(target.mode)
      await handle.datasync()
    } finally {
      await handle.close()
    }
    await rename(temp, target.path)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw new OutputWriteError(target.display, error)
  } finally {
    untrack()
  }
}

/**
 * Writes `bytes` where {@link resolveOutput} said, synchronously, for the moment an interrupt ends the process (a log
 * written "whatever the outcome"): a regular file through a temp file and a rename, as {@link writeOutput} does; a
 * device or a FIFO with one non-blocking write. Returns false when it could not write (nothing half-written is left).
 */
export function writeOutputSync(target: Exclude<OutputTarget, { kind: 'stdout' }>, bytes: Uint8Array): boolean {
  if (target.kind === 'through') {
    try {
      const fd = openSync(target.path, fsConstants.O_WRONLY | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK)
      try {
        if (fstatSync(fd).isFile()) return false
        writeSync(fd, bytes)
        return true
      } finally {
        closeSync(fd)
      }
    } catch {
      return false
    }
  }
  const temp = join(dirname(target.path), `.${basename(target.path)}.floorguard-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
  try {
    const fd = openSync(temp, 'wx', target.mode ?? 0o666)
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, target.path)
    return true
  } catch {
    try {
      unlinkSync(temp)
    } catch {
      // Never created.
    }
    return false
  }
}

/** How long a write to a FIFO waits before it tries again, for a reader to open it or to read what is written. */
const FIFO_RETRY_MS = 25

/**
 * Opens an existing device or FIFO for writing (no create, no truncate) and writes; false if it is now a regular file.
 *
 * A FIFO is opened and written without blocking (`O_NONBLOCK`): until a reader opens it, and while its buffer is full,
 * the write waits on a timer and tries again. A blocking open or write would hold a thread of Node's pool that exit
 * waits for, so Ctrl-C or SIGTERM could not end a run whose FIFO has no reader; this way it ends at once.
 */
async function writeThrough(target: { readonly path: string; readonly display: string; readonly fifo: boolean }, bytes: Uint8Array): Promise<boolean> {
  const flags = fsConstants.O_WRONLY | fsConstants.O_NOCTTY | (target.fifo ? fsConstants.O_NONBLOCK : 0)
  let handle
  try {
    for (;;) {
      try {
        handle = await open(target.path, flags)
        break
      } catch (error) {
        // ENXIO: a FIFO with no reader yet.
        if (!target.fifo || (error as NodeJS.ErrnoException).code !== 'ENXIO') throw error
        await delay(FIFO_RETRY_MS)
      }
    }
  } catch (error) {
    throw new OutputWriteError(target.display, error)
  }
  try {
    if ((await handle.stat()).isFile()) return false
    if (!target.fifo) {
      await handle.writeFile(bytes)
      return true
    }
    for (let written = 0; written < bytes.length; ) {
      try {
        written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten
      } catch (error) {
        // EAGAIN: the FIFO's buffer is full until the reader reads.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
        await delay(FIFO_RETRY_MS)
      }
    }
    return true
  } catch (error) {
    throw new OutputWriteError(target.display, error)
  } finally {
    await handle.close().catch(() => {})
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

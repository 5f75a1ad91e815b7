import { isUtf8 } from 'node:buffer'
import { randomBytes } from 'node:crypto'
import { constants as fsConstants, existsSync, realpathSync, type Stats } from 'node:fs'
import { access, copyFile, mkdir, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FloorguardError } from '../../errors.js'
import { addHookEntries, formatSettings, removeHookEntries, type SettingsChange } from '../../hooks/settings.js'
import { getHookHost } from '../../hooks/hosts/index.js'
import type { HookHostV1 } from '../../hooks/types.js'
import { parseJson } from '../../transcript/json.js'
import { describeSystemError, parseCommandArgs, UsageError, type CliCommand, type CliIo } from '../_command.js'

const usage = `usage: floorguard hooks install|uninstall claude-code|codex|gemini [--user|--project] [--dry-run] [--command CMD]

Adds floorguard's compaction hooks to an agent's settings, or removes them. Other hooks are left as they are; the file
is backed up (FILE.floorguard-backup-TIME) before it is written; installing twice changes nothing.

  claude-code  ~/.claude/settings.json (--user, default; $CLAUDE_CONFIG_DIR when set) or .claude/settings.json
               (--project): PreCompact, SessionStart (matcher compact), PostCompact
  codex        ~/.codex/hooks.json ($CODEX_HOME when set) or .codex/hooks.json: PreCompact, SessionStart
               (matcher compact), PostCompact
  gemini       ~/.gemini/settings.json or .gemini/settings.json: PreCompress, BeforeAgent

  --user       the user's settings (default)
  --project    the settings of the current directory's project
  --dry-run    print what would change; write nothing
  --command    the command that runs floorguard (default: node and this installation's hooks/floorguard-hook.mjs,
               else \`floorguard\` when it is on PATH, else node and its bin/floorguard.js)

Exit codes: 0 done (or nothing to do), 2 bad usage, a settings file that is not JSON or not the documented shape,
or a file floorguard may not write (read-only).`

const FLAGS = {
  user: { type: 'boolean' },
  project: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  command: { type: 'string' },
} as const

const BIN = fileURLToPath(new URL('../../../bin/floorguard.js', import.meta.url))
/** The launcher that imports the hook command alone (faster than the whole CLI), when this installation ships it. */
const LAUNCHER = fileURLToPath(new URL('../../../hooks/floorguard-hook.mjs', import.meta.url))

function quote(path: string): string {
  return /^[A-Za-z0-9_./:@%+-]+$/.test(path) ? path : `"${path.replace(/(["\\$`])/g, '\\$1')}"`
}

/**
 * The command that runs this installation's hooks: `node LAUNCHER` when the launcher ships with it (it skips loading
 * the whole CLI), else `floorguard` when the one on PATH is this installation, else `node BIN` by absolute paths.
 */
function defaultCommand(env: NodeJS.ProcessEnv): string {
  if (existsSync(LAUNCHER)) return `node ${quote(LAUNCHER)}`
  let own: string
  try {
    own = realpathSync(BIN)
  } catch {
    own = BIN
  }
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue
    try {
      if (realpathSync(join(dir, 'floorguard')) === own) return 'floorguard'
    } catch {
      // Not here.
    }
  }
  return `${quote(process.execPath)} ${quote(BIN)}`
}

function refuse(file: string, reason: string): UsageError {
  return new UsageError(`cannot write ${file}: ${reason}`)
}

/** The file to read and write: a symbolic link's target (dotfile managers link settings files), else the path. */
async function targetOf(path: string): Promise<string> {
  try {
    return await realpath(path)
  } catch {
    return path
  }
}

async function readSettings(file: string): Promise<{ text: string | undefined; info: Stats | undefined }> {
  let info: Stats
  try {
    info = await stat(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: undefined, info: undefined }
    throw new UsageError(`cannot read ${file}: ${describeSystemError(error)}`)
  }
  if (!info.isFile()) throw new UsageError(`cannot use ${file}: not a regular file`)
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${describeSystemError(error)}`)
  }
  // Decoded, bytes that are not UTF-8 would become U+FFFD and be written back so: the user's value would be lost.
  if (!isUtf8(bytes)) {
    throw new FloorguardError('invalid-input', `${file}: expected UTF-8 text, got bytes that are not UTF-8 (floorguard would rewrite them; --dry-run prints the entries to add by hand)`)
  }
  return { text: bytes.toString('utf8'), info }
}

function parseSettings(text: string | undefined, file: string): unknown {
  if (text === undefined || text.trim() === '') return undefined
  try {
    return parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, file)
  } catch (error) {
    if (FloorguardError.is(error)) {
      throw new FloorguardError('invalid-input', `${error.message} (floorguard edits comment-free JSON only; --dry-run prints the entries to add by hand)`)
    }
    throw error
  }
}

/** Refuses a file floorguard may not write: no write permission bit at all (even for root), or no access. */
async function checkWritable(file: string, info: Stats | undefined): Promise<void> {
  if (info) {
    if ((info.mode & 0o222) === 0) throw refuse(file, 'the file is read-only')
    try {
      await access(file, fsConstants.W_OK)
    } catch (error) {
      throw refuse(file, describeSystemError(error))
    }
    return
  }
  const dir = dirname(file)
  try {
    await mkdir(dir, { recursive: true })
    await access(dir, fsConstants.W_OK | fsConstants.X_OK)
  } catch (error) {
    throw refuse(file, describeSystemError(error))
  }
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

async function writeSettings(file: string, text: string, info: Stats | undefined): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.floorguard-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temp, text, { mode: info ? info.mode & 0o7777 : 0o644 })
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw refuse(file, describeSystemError(error))
  }
}

function hint(host: HookHostV1, project: boolean): string {
  switch (host.name) {
    case 'codex':
      return 'Codex runs new hooks once you have reviewed and trusted them.'
    case 'gemini':
      return project ? 'Gemini CLI reads project settings only in a trusted folder.' : ''
    default:
      return ''
  }
}

/** Options of {@link createHooksCommand} (tests pass a clock and a home directory). */
export interface HooksCommandOptions {
  /**
   * Clock for backup names.
   * @default () => new Date()
   */
  readonly now?: () => Date
  /**
   * The home directory user settings live under.
   * @default $HOME, else os.homedir()
   */
  readonly home?: string
}

/** Creates `floorguard hooks`. */
export function createHooksCommand(options: HooksCommandOptions = {}): CliCommand {
  const now = options.now ?? (() => new Date())
  return {
    name: 'hooks',
    summary: "install or uninstall floorguard's compaction hooks in Claude Code, Codex or Gemini CLI",
    usage,
    async run(args: readonly string[], io: CliIo) {
      const { values, positionals } = parseCommandArgs(args, FLAGS)
      const [action, hostName, ...extra] = positionals
      if (action !== 'install' && action !== 'uninstall') throw new UsageError(`expected install or uninstall, got ${action === undefined ? 'nothing' : JSON.stringify(action)}`)
      if (hostName === undefined) throw new UsageError('expected a host: claude-code, codex or gemini')
      if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`)
      if (values.user && values.project) throw new UsageError('expected --user or --project, not both')
      const host = getHookHost(hostName)
      const project = values.project === true
      const home = options.home ?? (io.env['HOME'] || homedir())
      const file = await targetOf(project ? host.settings.project(io.cwd) : host.settings.user(home, io.env))
      const { text, info } = await readSettings(file)
      const settings = parseSettings(text, file)
      const command = typeof values.command === 'string' && values.command.trim() !== '' ? values.command.trim() : defaultCommand(io.env)
      const change: SettingsChange =
        action === 'install' ? addHookEntries(settings, host.name, host.entries(`${command} hook ${host.name}`), file) : removeHookEntries(settings, host.name, file)
      const events = [...change.added, ...change.updated, ...change.removed].join(', ')
      if (!change.changed) {
        await io.stdout(action === 'install' ? `floorguard hooks: ${host.displayName} hooks already installed in ${file}\n` : `floorguard hooks: no floorguard hooks in ${file}\n`)
        return 0
      }
      const next = formatSettings(change.settings, text)
      const verb = action === 'install' ? (change.added.length > 0 ? 'add' : 'update') : 'remove'
      if (values['dry-run']) {
        await io.stdout(`floorguard hooks: would ${verb} ${events} ${action === 'install' ? 'in' : 'from'} ${file}; the file would read:\n${next}`)
        return 0
      }
      await checkWritable(file, info)
      let backup: string | undefined
      if (text !== undefined) {
        // Two runs in one second (install, then uninstall) each get a backup of their own: -2, -3, … after the first.
        const base = `${file}.floorguard-backup-${stamp(now())}`
        for (let copy = 1; backup === undefined; copy++) {
          const name = copy === 1 ? base : `${base}-${copy}`
          try {
            await copyFile(file, name, fsConstants.COPYFILE_EXCL)
            backup = name
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || copy >= 1000) throw refuse(name, describeSystemError(error))
          }
        }
      }
      await writeSettings(file, next, info)
      const done = verb === 'add' ? 'added' : verb === 'update' ? 'updated' : 'removed'
      const tip = action === 'install' ? hint(host, project) : ''
      await io.stdout(
        `floorguard hooks: ${done} ${events} ${action === 'install' ? 'in' : 'from'} ${file}${backup ? ` (backup: ${backup})` : ''}\n${tip ? `${tip}\n` : ''}`,
      )
      return 0
    },
  }
}

/** `floorguard hooks install|uninstall HOST`. */
export const hooksCommand: CliCommand = createHooksCommand()

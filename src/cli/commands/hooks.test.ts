import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCaptured } from '../_test-io.js'
import { createHooksCommand } from './hooks.js'

let home: string
let project: string

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'floorguard-home-'))
  project = join(home, 'proj')
  mkdirSync(project)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const COMMAND = '/opt/fg/floorguard'

function hooks(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCaptured(['hooks', ...args], { cwd: project, env: { HOME: home, ...env } })
}

// Settings as people leave them: tabs, CRLF line ends, keys in their own order, hooks of their own on our events.
const UNUSUAL = [
  '{',
  '\t"permissions": { "allow": ["Bash(npm test:*)"] },',
  '\t"hooks": {',
  '\t\t"PreCompact": [ { "hooks": [ { "type": "command", "command": "~/bin/backup-transcript.sh", "timeout": 10 } ] } ],',
  '\t\t"SessionStart": [ { "matcher": "startup", "hooks": [ { "type": "command", "command": "cat NOTES.md" } ] } ],',
  '\t\t"PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "guard.py" } ] } ]',
  '\t},',
  '\t"model"   :   "opus"',
  '}',
].join('\r\n')

function writeSettings(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

function backups(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes('.floorguard-backup-'))
}

describe('floorguard hooks install / uninstall claude-code', () => {
  it('install then uninstall in the same second: two backups of their own, each name printed written (a re-test: the second was not written)', async () => {
    const file = join(home, '.claude', 'settings.json')
    writeSettings(file, UNUSUAL)
    const command = createHooksCommand({ now: () => new Date('2025-01-02T03:04:05.678Z'), home })
    const run = async (args: string[]) => {
      let stdout = ''
      const io = { stdout: (chunk: string | Uint8Array) => void (stdout += String(chunk)), stderr: () => {}, stdin: process.stdin, cwd: project, env: { HOME: home } }
      expect(await command.run(args, io)).toBe(0)
      return /\(backup: (.*)\)\n/.exec(stdout)?.[1]
    }
    const first = await run(['install', 'claude-code', '--command', COMMAND])
    const installed = readFileSync(file, 'utf8')
    const second = await run(['uninstall', 'claude-code'])
    expect(first).toBe(`${file}.floorguard-backup-20250102T030405Z`)
    expect(second).toBe(`${file}.floorguard-backup-20250102T030405Z-2`)
    expect(readFileSync(first!, 'utf8')).toBe(UNUSUAL)
    expect(readFileSync(second!, 'utf8')).toBe(installed)
  })

  it('merges into settings that hold other hooks and unusual formatting, with a backup; uninstall reverses it', async () => {
    const file = join(home, '.claude', 'settings.json')
    writeSettings(file, UNUSUAL)
    const installed = await hooks(['install', 'claude-code', '--command', COMMAND])
    expect(installed.code).toBe(0)
    expect(installed.stdout).toMatch(new RegExp(`^floorguard hooks: added PreCompact, SessionStart, PostCompact in ${file.replace(/[.]/g, '\\.')} \\(backup: .*\\.floorguard-backup-\\d{8}T\\d{6}Z\\)\\n$`))
    const [backup] = backups(join(home, '.claude'))
    expect(readFileSync(join(home, '.claude', backup!), 'utf8')).toBe(UNUSUAL)

    const text = readFileSync(file, 'utf8')
    expect(text).toContain('\r\n\t"hooks": {')
    const settings = JSON.parse(text)
    const original = JSON.parse(UNUSUAL)
    expect(settings.permissions).toEqual(original.permissions)
    expect(settings.model).toBe('opus')
    expect(settings.hooks.PreToolUse).toEqual(original.hooks.PreToolUse)
    expect(settings.hooks.PreCompact).toEqual([original.hooks.PreCompact[0], { hooks: [{ type: 'command', command: `${COMMAND} hook claude-code PreCompact`, timeout: 30 }] }])
    expect(settings.hooks.SessionStart[1]).toEqual({ matcher: 'compact', hooks: [{ type: 'command', command: `${COMMAND} hook claude-code SessionStart`, timeout: 30 }] })
    expect(settings.hooks.PostCompact).toHaveLength(1)

    const again = await hooks(['install', 'claude-code', '--command', COMMAND])
    expect(again).toMatchObject({ code: 0, stdout: `floorguard hooks: Claude Code hooks already installed in ${file}\n` })
    expect(readFileSync(file, 'utf8')).toBe(text)
    expect(backups(join(home, '.claude'))).toHaveLength(1)

    const removed = await hooks(['uninstall', 'claude-code'])
    expect(removed.code).toBe(0)
    expect(removed.stdout).toMatch(/^floorguard hooks: removed PreCompact, SessionStart, PostCompact from /)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(original)
    expect((await hooks(['uninstall', 'claude-code'])).stdout).toBe(`floorguard hooks: no floorguard hooks in ${file}\n`)
  })

  it('--project writes .claude/settings.json of the current directory, creating it', async () => {
    const result = await hooks(['install', 'claude-code', '--project', '--command', COMMAND])
    expect(result.code).toBe(0)
    const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'))
    expect(Object.keys(settings.hooks)).toEqual(['PreCompact', 'SessionStart', 'PostCompact'])
    expect(result.stdout).not.toContain('backup')
  })

  it('--dry-run prints the new file and writes nothing', async () => {
    const file = join(home, '.claude', 'settings.json')
    writeSettings(file, UNUSUAL)
    const result = await hooks(['install', 'claude-code', '--dry-run', '--command', COMMAND])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`would add PreCompact, SessionStart, PostCompact in ${file}; the file would read:`)
    expect(result.stdout).toContain(`${COMMAND} hook claude-code PostCompact`)
    expect(readFileSync(file, 'utf8')).toBe(UNUSUAL)
    expect(backups(join(home, '.claude'))).toEqual([])
  })

  it('refuses a read-only settings file with one line and exit 2, touching nothing', async () => {
    const file = join(home, '.claude', 'settings.json')
    writeSettings(file, UNUSUAL)
    chmodSync(file, 0o444)
    const result = await hooks(['install', 'claude-code', '--command', COMMAND])
    expect(result).toEqual({ code: 2, stdout: '', stderr: `floorguard hooks: cannot write ${file}: the file is read-only\n` })
    expect(readFileSync(file, 'utf8')).toBe(UNUSUAL)
    expect(backups(join(home, '.claude'))).toEqual([])
  })

  it('refuses settings that are not JSON (comments) or not the documented shape, one line, exit 2', async () => {
    const file = join(home, '.claude', 'settings.json')
    writeSettings(file, '{\n  // my hooks\n  "hooks": {}\n}\n')
    const comment = await hooks(['install', 'claude-code', '--command', COMMAND])
    expect(comment.code).toBe(2)
    expect(comment.stderr).toMatch(new RegExp(`^floorguard hooks: ${file.replace(/[.]/g, '\\.')}:2:3: expected valid JSON, got .*--dry-run prints the entries to add by hand\\)\\n$`))
    writeSettings(file, '{"hooks": {"PreCompact": {"command": "x"}}}')
    const shape = await hooks(['install', 'claude-code', '--command', COMMAND])
    expect(shape).toEqual({ code: 2, stdout: '', stderr: `floorguard hooks: ${file}: hooks.PreCompact: expected an array of hook groups, got an object\n` })
  })

  it('refuses settings holding bytes that are not UTF-8, touching nothing (a re-test: they were written back as U+FFFD)', async () => {
    const file = join(home, '.claude', 'settings.json')
    const bytes = Buffer.concat([Buffer.from('{"model": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')])
    writeSettings(file, '')
    writeFileSync(file, bytes)
    const result = await hooks(['install', 'claude-code', '--command', COMMAND])
    expect(result).toEqual({ code: 2, stdout: '', stderr: `floorguard hooks: ${file}: expected UTF-8 text, got bytes that are not UTF-8 (floorguard would rewrite them; --dry-run prints the entries to add by hand)\n` })
    expect(readFileSync(file).equals(bytes)).toBe(true)
    expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json'])
  })

  it("writes through a symbolic link to its target (dotfile managers' settings)", async () => {
    const target = join(home, 'dotfiles', 'claude-settings.json')
    writeSettings(target, '{"model": "opus"}\n')
    mkdirSync(join(home, '.claude'))
    symlinkSync(target, join(home, '.claude', 'settings.json'))
    expect((await hooks(['install', 'claude-code', '--command', COMMAND])).code).toBe(0)
    expect(lstatSync(join(home, '.claude', 'settings.json')).isSymbolicLink()).toBe(true)
    expect(JSON.parse(readFileSync(target, 'utf8')).hooks.PreCompact).toHaveLength(1)
  })

  it("runs the installation's launcher by default (the hook command alone, not the whole CLI)", async () => {
    await hooks(['install', 'claude-code'])
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'))
    const launcher = fileURLToPath(new URL('../../../hooks/floorguard-hook.mjs', import.meta.url))
    expect(existsSync(launcher)).toBe(true)
    expect(settings.hooks.PreCompact[0].hooks[0].command).toMatch(/^node "?.*floorguard-hook\.mjs"? hook claude-code PreCompact$/)
    expect(settings.hooks.PreCompact[0].hooks[0].command).toContain(launcher)
  })
})

describe('floorguard hooks for Codex and Gemini CLI', () => {
  it('codex: ~/.codex/hooks.json ($CODEX_HOME when set), the three compact events', async () => {
    expect((await hooks(['install', 'codex', '--command', COMMAND])).code).toBe(0)
    const settings = JSON.parse(readFileSync(join(home, '.codex', 'hooks.json'), 'utf8'))
    expect(settings.hooks.SessionStart).toEqual([{ matcher: 'compact', hooks: [{ type: 'command', command: `${COMMAND} hook codex SessionStart`, timeout: 30 }] }])
    const codexHome = join(home, 'codex-home')
    const result = await hooks(['install', 'codex', '--command', COMMAND], { CODEX_HOME: codexHome })
    expect(result.stdout).toContain('Codex runs new hooks once you have reviewed and trusted them.')
    expect(existsSync(join(codexHome, 'hooks.json'))).toBe(true)
  })

  it("gemini: ~/.gemini/settings.json, named hooks with millisecond timeouts, other settings and hooks.disabled kept", async () => {
    const file = join(home, '.gemini', 'settings.json')
    writeSettings(file, JSON.stringify({ theme: 'GitHub', hooks: { disabled: ['secret-scanner'], BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: 'lint.sh' }] }] } }, null, 4))
    expect((await hooks(['install', 'gemini', '--command', COMMAND])).code).toBe(0)
    const settings = JSON.parse(readFileSync(file, 'utf8'))
    expect(settings.theme).toBe('GitHub')
    expect(settings.hooks.disabled).toEqual(['secret-scanner'])
    expect(settings.hooks.BeforeTool).toHaveLength(1)
    expect(settings.hooks.PreCompress[0].hooks[0]).toMatchObject({ name: 'floorguard-precompress', command: `${COMMAND} hook gemini PreCompress`, timeout: 30_000 })
    expect(readFileSync(file, 'utf8')).toContain('\n    "theme"')
    expect((await hooks(['uninstall', 'gemini'])).code).toBe(0)
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks).toEqual({ disabled: ['secret-scanner'], BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: 'lint.sh' }] }] })
  })
})

describe('floorguard hooks usage', () => {
  it.each([
    [['install'], 'floorguard hooks: expected a host: claude-code, codex or gemini\n'],
    [['enable', 'claude-code'], 'floorguard hooks: expected install or uninstall, got "enable"\n'],
    [['install', 'cursor'], 'floorguard hooks: unknown host "cursor": expected one of claude-code, codex, gemini\n'],
    [['install', 'codex', '--user', '--project'], 'floorguard hooks: expected --user or --project, not both\n'],
  ])('%j: one line, exit 2', async (args, stderr) => {
    expect(await hooks(args)).toEqual({ code: 2, stdout: '', stderr })
  })
})

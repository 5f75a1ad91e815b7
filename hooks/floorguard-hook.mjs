#!/usr/bin/env node
// Runs `floorguard hook HOST EVENT …` for the Claude Code plugin (hooks/hooks.json) and for `floorguard hooks install`.
// It imports the hook command alone rather than the whole CLI, so a hook answers fast; without a build next to it (a
// plugin installed from the marketplace is a bare checkout) it runs the `floorguard` on PATH; without either it says
// so in one line on stderr and exits 0: a hook never harms its host.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const argv = process.argv.slice(2)
// `floorguard-hook.mjs hook claude-code PreCompact` and `floorguard-hook.mjs claude-code PreCompact` both work.
const args = argv[0] === 'hook' ? argv.slice(1) : argv
const built = new URL('../dist/cli/commands/hook.js', import.meta.url)

function write(stream, chunk) {
  return new Promise((resolve, reject) => stream.write(chunk, (error) => (error ? reject(error) : resolve())))
}

async function runBuilt() {
  const { hookCommand } = await import(built.href)
  process.stdout.on('error', () => {})
  const io = {
    stdout: (chunk) => write(process.stdout, chunk),
    stderr: (text) => void process.stderr.write(text),
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
  }
  return hookCommand.run(args, io)
}

function runInstalled() {
  const result = spawnSync('floorguard', ['hook', ...args], { stdio: 'inherit', shell: process.platform === 'win32' })
  if (!result.error) return 0
  process.stderr.write('floorguard hook: floorguard is not installed (npm install -g floorguard) and this plugin has no build of its own\n')
  if (args[0] === 'gemini') process.stdout.write('{}\n')
  return 0
}

try {
  if (existsSync(built)) await runBuilt()
  else runInstalled()
} catch (error) {
  process.stderr.write(`floorguard hook: ${String(error?.message ?? error).split('\n')[0]}\n`)
  if (args[0] === 'gemini') process.stdout.write('{}\n')
}
process.exitCode = 0

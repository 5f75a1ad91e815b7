import { readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from './main.js'
import { runCaptured } from './_test-io.js'

// Issue 11 ("Speed as the user meets it"): a run loads its own command's modules only; `main.ts` loading every
// command doubled a hook's start-up.

const SRC = fileURLToPath(new URL('../', import.meta.url))

/** The source files `file` reaches through static imports (relative specifiers only; `import()` is not followed). */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  const source = readFileSync(file, 'utf8')
  for (const match of source.matchAll(/^(?:import|export)\s(?:[^'"]*?\sfrom\s)?'(\.[^']+)'/gm)) {
    staticGraph(join(dirname(file), match[1]!.replace(/\.js$/, '.ts')), seen)
  }
  return seen
}

describe('the command registry', () => {
  it('main.ts reaches no command module and none of the core statically', () => {
    const reached = [...staticGraph(join(SRC, 'cli', 'main.ts'))].map((file) => relative(SRC, file).split('\\').join('/'))
    expect(reached).toContain('cli/_interrupt.ts')
    const heavy = reached.filter((file) => /^(cli\/commands|estimate|plan|tokenize|transcript|summarize|hooks|compact)\//.test(file))
    expect(heavy).toEqual([])
  })

  it.each(Object.keys(COMMANDS))('%s loads the command of that name, whose summary the registry lists', async (name) => {
    const entry = COMMANDS[name]!
    const command = await entry.load()
    expect(command.name).toBe(name)
    expect(entry.summary).toBe(command.summary)
  })

  it('--help lists every command with its summary without running one; NAME --help prints its usage', async () => {
    const help = await runCaptured(['--help'])
    expect(help.code).toBe(0)
    for (const [name, entry] of Object.entries(COMMANDS)) expect(help.stdout).toContain(`  ${name.padEnd(7)}  ${entry.summary}\n`)
    const usage = await runCaptured(['plan', '--help'])
    expect(usage.code).toBe(0)
    expect(usage.stdout).toBe(`${(await COMMANDS.plan!.load()).usage}\n`)
  })

  it('a name inherited from Object.prototype is an unknown command (exit 2, one line)', async () => {
    const run = await runCaptured(['toString'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe('floorguard: unknown command "toString": expected one of check, plan, compact, hook, hooks, report, audit, demo\n')
  })
})

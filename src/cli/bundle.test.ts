import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN, REPO } from './_test-io.js'

// Issue 11 ("Speed as the user meets it"): `check` and `plan` run the CLI bundled into one CommonJS script
// (scripts/bundle-cli.mjs), compiled with V8's code cache when there is one. bin/floorguard.js must take the bundle only
// for those commands and only while it is built from the compiled sources now in dist/ (newer than dist/cli/main.js),
// else run dist/cli/main.js; and take the cache only while it is not older than the bundle, since V8 checks a cache
// against the source's length, not its text.

describe('bin/floorguard.js picks the entry', () => {
  // A stand-in installation: bin/floorguard.js as shipped, two entries that print which one ran.
  const root = mkdtempSync(join(tmpdir(), 'floorguard-bundle-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'bin'))
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true })
  copyFileSync(BIN, join(root, 'bin', 'floorguard.js'))
  const main = join(root, 'dist', 'cli', 'main.js')
  const bundle = join(root, 'dist', 'cli', 'main.bundle.cjs')
  const cache = `${bundle}.cache`
  writeFileSync(main, 'export function main() { process.stdout.write("modules") }\n')
  const ran = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const run = spawnSync(process.execPath, [join(root, 'bin', 'floorguard.js'), ...args], { encoding: 'utf8', env: { ...process.env, FLOORGUARD_NO_BUNDLE: '', FLOORGUARD_TRAIN_CODE_CACHE: '', ...env }, timeout: 30_000 })
    expect(run.status, run.stderr).toBe(0)
    return run.stdout
  }
  const setAge = (file: string, seconds: number) => utimesSync(file, seconds, seconds)
  const printing = (text: string) => `exports.main = function () { process.stdout.write(${JSON.stringify(text)}) }\n`

  it('takes a bundle newer than main.js for check and plan only', () => {
    rmSync(cache, { force: true })
    writeFileSync(bundle, printing('bundle'))
    setAge(main, 1_000_000)
    setAge(bundle, 2_000_000)
    expect(ran(['check', 'x'])).toBe('bundle')
    expect(ran(['plan'])).toBe('bundle')
    for (const other of [['compact', 'x'], ['hook'], ['--help'], []]) expect(ran(other)).toBe('modules')
  })

  it('runs main.js when the bundle is older (a later tsc build), absent, or FLOORGUARD_NO_BUNDLE is set', () => {
    rmSync(cache, { force: true })
    writeFileSync(bundle, printing('bundle'))
    setAge(main, 2_000_000)
    setAge(bundle, 1_000_000)
    expect(ran(['check', 'x'])).toBe('modules')
    setAge(bundle, 3_000_000)
    expect(ran(['check', 'x'], { FLOORGUARD_NO_BUNDLE: '1' })).toBe('modules')
    rmSync(bundle)
    expect(ran(['plan'])).toBe('modules')
  })

  // Two bundles of the same length, so V8 itself would take either's cache for the other: what runs shows whose
  // bytecode was used.
  it('compiles with a code cache not older than the bundle, and never with an older one', () => {
    rmSync(cache, { force: true })
    setAge(main, 1_000_000)
    writeFileSync(bundle, printing('AAAA'))
    setAge(bundle, 2_000_000)
    expect(ran(['check', 'x'], { FLOORGUARD_TRAIN_CODE_CACHE: '1' })).toBe('AAAA')
    expect(existsSync(cache)).toBe(true)
    expect(readdirSync(join(root, 'dist', 'cli')).filter((name) => name.includes('.tmp'))).toEqual([])
    writeFileSync(bundle, printing('BBBB'))
    setAge(bundle, 3_000_000)
    setAge(cache, 2_500_000)
    expect(ran(['check', 'x'])).toBe('BBBB')
    // The same cache dated after the new bundle is taken: V8 runs the old bundle's bytecode (what the date check prevents).
    setAge(cache, 3_000_000)
    expect(ran(['check', 'x'])).toBe('AAAA')
  })

  it('runs the bundle when the cache is not V8\'s (V8 rejects it and compiles the source)', () => {
    writeFileSync(bundle, printing('bundle'))
    writeFileSync(cache, Buffer.from('not a code cache, just bytes'.repeat(40)))
    setAge(main, 1_000_000)
    setAge(bundle, 2_000_000)
    setAge(cache, 3_000_000)
    expect(ran(['plan'])).toBe('bundle')
  })
})

describe('the bundle built from dist/', () => {
  const built = join(REPO, 'dist', 'cli', 'main.js')
  const bundled = join(REPO, 'dist', 'cli', 'main.bundle.cjs')
  const fresh = existsSync(bundled) && existsSync(built) && statSync(bundled).mtimeMs >= statSync(built).mtimeMs
  if (!fresh) console.log('bundle.test: dist/cli/main.bundle.cjs is missing or older than dist/cli/main.js (run `npm run build`); skipping its comparison')
  const example = join(REPO, 'examples', 'turn-412.openai.json')

  it.skipIf(!fresh).each([
    ['check', '--json'],
    ['check', '--slot', '300'],
    ['plan', '--json', '--slot', '300'],
    ['plan', '--estimator', 'seed', '--slot', '500'],
    ['check', '--range', '0:999'],
  ].map((args) => [args.join(' '), args] as const))('prints what the modules print: %s', (_name, args) => {
    const run = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, [BIN, args[0]!, example, ...args.slice(1)], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 })
    const viaBundle = run({ FLOORGUARD_NO_BUNDLE: '' })
    const viaModules = run({ FLOORGUARD_NO_BUNDLE: '1' })
    expect(viaBundle.stdout.length + viaBundle.stderr.length).toBeGreaterThan(0)
    expect({ status: viaBundle.status, stdout: viaBundle.stdout, stderr: viaBundle.stderr }).toEqual({ status: viaModules.status, stdout: viaModules.stdout, stderr: viaModules.stderr })
  })

  // Without the rank table built ahead, the bundle loads gpt-tokenizer's data through require (a CommonJS bundle's
  // import() of a package is a require): it once counted with the module object instead of the table it holds.
  it.skipIf(!fresh)('counts as the modules do without the rank table built ahead (gpt-tokenizer loaded by the bundle)', () => {
    const root = mkdtempSync(join(tmpdir(), 'floorguard-bundle-ranks-'))
    try {
      mkdirSync(join(root, 'bin'))
      mkdirSync(join(root, 'dist', 'cli'), { recursive: true })
      copyFileSync(BIN, join(root, 'bin', 'floorguard.js'))
      copyFileSync(join(REPO, 'package.json'), join(root, 'package.json'))
      copyFileSync(built, join(root, 'dist', 'cli', 'main.js'))
      copyFileSync(bundled, join(root, 'dist', 'cli', 'main.bundle.cjs'))
      utimesSync(join(root, 'dist', 'cli', 'main.js'), 1_000_000, 1_000_000)
      symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'))
      const run = (bin: string) => spawnSync(process.execPath, [bin, 'check', example, '--json'], { encoding: 'utf8', env: { ...process.env, FLOORGUARD_NO_BUNDLE: '', FLOORGUARD_TRAIN_CODE_CACHE: '' }, timeout: 30_000 })
      const without = run(join(root, 'bin', 'floorguard.js'))
      expect(without.status, without.stderr).toBe(0)
      expect(without.stdout).toBe(run(BIN).stdout)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  const ranks = join(REPO, 'dist', 'tokenize', 'o200k_base.ranks')
  it.skipIf(!fresh || !existsSync(ranks))('loads one module, bin, runs the bundle, and reads the rank table built ahead (gpt-tokenizer is not loaded)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'floorguard-loads-'))
    try {
      const hooks = join(dir, 'hooks.mjs')
      writeFileSync(hooks, 'export async function load(url, context, next) { if (!url.startsWith("node:")) process._rawDebug(`LOAD ${url}`); return next(url, context) }\n')
      const register = join(dir, 'register.mjs')
      writeFileSync(register, `import { register } from 'node:module'\nregister(${JSON.stringify(new URL(`file://${hooks}`).href)})\n`)
      // CommonJS loads (the bundle's own require calls) go through Module._load.
      const requires = join(dir, 'requires.cjs')
      writeFileSync(requires, 'const M = require("node:module"); const load = M._load; M._load = function (request, ...rest) { if (!M.isBuiltin(request)) process._rawDebug(`REQUIRE ${request}`); return load.call(this, request, ...rest) }\n')
      const run = spawnSync(process.execPath, ['--require', requires, '--import', register, BIN, 'check', example, '--json'], { encoding: 'utf8', env: { ...process.env, FLOORGUARD_NO_BUNDLE: '', FLOORGUARD_TRAIN_CODE_CACHE: '' }, timeout: 30_000 })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain('"floor"')
      const loaded = run.stderr.split('\n').filter((line) => line.startsWith('LOAD ') || line.startsWith('REQUIRE ')).map((line) => line.slice(line.lastIndexOf('/') + 1))
      expect(loaded).toEqual(['floorguard.js'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

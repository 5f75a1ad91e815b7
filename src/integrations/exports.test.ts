import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const dist = join(root, 'dist')
const built = existsSync(join(dist, 'integrations', 'ai-sdk.js'))
if (!built) console.warn('exports.test.ts: dist/integrations is missing (run `npm run build`); skipping the package-export tests')

const OPTIONAL_PEERS = ['ai', 'langchain', '@langchain/core', '@langchain/langgraph', '@openai/agents', '@openai/agents-core', 'zod']

/** Bare specifiers a built module reaches through static imports and re-exports (relative ones followed). */
function staticImports(entry: string): Set<string> {
  const bare = new Set<string>()
  const seen = new Set<string>()
  const queue = [entry]
  const statement = /^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|^import\s+'([^']+)'/gm
  while (queue.length > 0) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    for (const match of readFileSync(file, 'utf8').matchAll(statement)) {
      const specifier = match[1] ?? match[2]!
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier))
      else bare.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'))
    }
  }
  return bare
}

describe.skipIf(!built)('package exports', () => {
  it('each adapter loads through its package subpath', () => {
    const script = `const names = {};
for (const path of ['floorguard/ai-sdk', 'floorguard/langchain', 'floorguard/openai-agents']) names[path] = Object.keys(await import(path)).sort();
console.log(JSON.stringify(names));`
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })
    expect(JSON.parse(output)).toEqual({
      'floorguard/ai-sdk': ['CompactionRefusedError', 'DEFAULT_SUMMARY_PREFIX', 'compactionMiddleware', 'compactionPrepareStep'],
      'floorguard/langchain': ['CompactionRefusedError', 'DEFAULT_SUMMARY_PREFIX', 'REMOVE_ALL_MESSAGES', 'compactionMiddleware', 'createLangChainSummarizer'],
      'floorguard/openai-agents': ['CompactionRefusedError', 'DEFAULT_SUMMARY_PREFIX', 'FloorguardCompactionSession'],
    })
  })

  it('CommonJS code can require every entry (require of an ES module, Node 20.19 and later)', () => {
    // A black-box re-test: `require('floorguard')` failed with "No \"exports\" main defined" (only `import` was listed).
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
    if (major === 20 && minor < 19) return console.warn('exports.test.ts: this Node cannot require an ES module; skipping the require test')
    const script = `const names = {};
for (const path of ['floorguard/ai-sdk', 'floorguard/langchain', 'floorguard/openai-agents']) names[path] = typeof require(path).CompactionRefusedError;
names.floorguard = typeof require('floorguard').FloorguardError;
names.check = typeof require('floorguard').checkTranscript;
console.log(JSON.stringify(names));`
    const output = execFileSync(process.execPath, ['--no-warnings', '-e', script], { cwd: root, encoding: 'utf8' })
    expect(JSON.parse(output)).toEqual({ floorguard: 'function', 'floorguard/ai-sdk': 'function', 'floorguard/langchain': 'function', 'floorguard/openai-agents': 'function', check: 'function' })
  })

  it('the main entry imports no optional peer, and each adapter only its own', () => {
    const main = staticImports(join(dist, 'index.js'))
    for (const peer of OPTIONAL_PEERS) expect(main.has(peer), `dist/index.js reaches ${peer}`).toBe(false)
    const own: Record<string, readonly string[]> = {
      // The AI SDK adapter uses `ai` for types only: it loads without it.
      'ai-sdk': [],
      // zod: the middleware's contextSchema (LangChain hands a middleware only the context keys its schema names).
      langchain: ['langchain', '@langchain/core', 'zod'],
      'openai-agents': ['@openai/agents'],
    }
    for (const [adapter, peers] of Object.entries(own)) {
      const reached = [...staticImports(join(dist, 'integrations', `${adapter}.js`))].filter((specifier) => OPTIONAL_PEERS.includes(specifier))
      expect(reached.sort(), adapter).toEqual([...peers].sort())
    }
  })

  it.each(['ai-sdk', 'langchain', 'openai-agents'])('examples/integrations/%s.mjs runs offline and compacts', (name) => {
    const output = execFileSync(process.execPath, [join(root, 'examples', 'integrations', `${name}.mjs`)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    expect(output).toMatch(/compaction-end compacted/)
    expect(output).not.toMatch(/not compacted/)
  })
})

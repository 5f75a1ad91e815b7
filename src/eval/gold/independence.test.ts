/**
 * Gold is the measuring stick for `full`: it must not share code with what it measures. No module of this folder may
 * import estimate/, plan/, summarize/, verify/ or compact/, except `label-tool.ts`, the labeller's command line, which
 * lists `full`'s items for labelling and which no other module imports.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const folder = dirname(fileURLToPath(import.meta.url))
const src = resolve(folder, '../..')
const FORBIDDEN = ['estimate', 'plan', 'summarize', 'verify', 'compact']
const LABEL_TOOL = 'label-tool.ts'
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g

/** Every .ts file under `dir`, recursively. */
const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? tsFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )

/** The top-level directory of src/ a relative import of `file` lands in, or undefined for a package import. */
const targetOf = (file: string, specifier: string): string | undefined => {
  if (!specifier.startsWith('.')) return undefined
  return relative(src, resolve(dirname(file), specifier)).split(/[\\/]/)[0]
}

const importsOf = (file: string): string[] => [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => match[1] as string)

describe('gold independence', () => {
  const files = tsFiles(folder)

  it('finds the modules it checks', () => {
    expect(files.map((file) => relative(folder, file))).toEqual(expect.arrayContaining(['index.ts', '_text.ts', '_words.ts', '_errors.ts']))
  })

  it('no module of src/eval/gold imports estimate/, plan/, summarize/, verify/ or compact/ (the label tool aside)', () => {
    const offending = files
      .filter((file) => !file.endsWith(LABEL_TOOL))
      .flatMap((file) => importsOf(file).filter((specifier) => FORBIDDEN.includes(targetOf(file, specifier) ?? '')).map((specifier) => `${relative(folder, file)}: ${specifier}`))
    expect(offending).toEqual([])
  })

  it('no module imports the label tool', () => {
    const importers = files.filter((file) => importsOf(file).some((specifier) => specifier.includes('label-tool')))
    expect(importers.map((file) => relative(folder, file))).toEqual([])
  })

  it('recognises a forbidden import when it sees one (the check can fail)', () => {
    const file = join(folder, 'x.ts')
    expect(FORBIDDEN.includes(targetOf(file, '../../estimate/index.js') ?? '')).toBe(true)
    expect(FORBIDDEN.includes(targetOf(file, '../../spec/transcript.js') ?? '')).toBe(false)
    // Written through a variable so that this file's own source holds no forbidden specifier.
    const up = '../../'
    const sample = `import { a } from '${up}plan/plan.js'\nconst b = await import("${up}verify/index.js")`
    expect([...sample.matchAll(SPECIFIER)].map((match) => targetOf(file, match[1] as string))).toEqual(['plan', 'verify'])
  })
})

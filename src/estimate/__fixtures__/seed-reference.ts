import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** `<repo>/../shared/spec`, where the record's seed_floor.py lives (CI clones the repo with `shared/` beside it). */
export const SPEC_DIR = fileURLToPath(new URL('../../../../shared/spec/', import.meta.url))
/** `<repo>/../shared/corpus/real`, the real transcripts (absent on a fresh clone). */
export const REAL_CORPUS_DIR = fileURLToPath(new URL('../../../../shared/corpus/real/', import.meta.url))
const SCRIPT = fileURLToPath(new URL('./seed-reference.py', import.meta.url))

/** What seed-reference.py reports for one text. */
export interface ReferenceResult {
  /** `[irreducible_tokens, margin_tokens]` per requested margin. */
  readonly estimates: Array<[number, number]>
  /** Distinct spans in `seen` order: `[pattern index, text, start, end]`, offsets in code points. */
  readonly spans: Array<[number, string, number, number]>
  /** Cues present: `[cue, start, end]`, code point offsets of the first occurrence in the original text. */
  readonly cues: Array<[string, number, number]>
}

/** Why the reference cannot run here, or undefined when it can. */
export function referenceUnavailable(): string | undefined {
  if (!existsSync(join(SPEC_DIR, 'seed_floor.py'))) return `${join(SPEC_DIR, 'seed_floor.py')} is missing`
  const probe = spawnSync('python3', ['-c', 'import sys; print(sys.version_info[:2] >= (3, 8))'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0 || probe.stdout.trim() !== 'True') return 'python3 (>= 3.8) is not on PATH'
  return undefined
}

/** Runs seed_floor.py's `estimate_floor` on every text in ONE python3 process. */
export function runReference(texts: readonly string[], margins: readonly number[]): ReferenceResult[] {
  const folder = mkdtempSync(join(tmpdir(), 'floorguard-seed-'))
  try {
    const input = join(folder, 'texts.json')
    writeFileSync(input, JSON.stringify({ texts, margins }), 'utf8')
    const run = spawnSync('python3', [SCRIPT, SPEC_DIR, input], { encoding: 'utf8', maxBuffer: 1 << 30 })
    if (run.error) throw run.error
    if (run.status !== 0) throw new Error(`seed-reference.py exited with ${run.status}: ${run.stderr}`)
    return (JSON.parse(run.stdout) as { results: ReferenceResult[] }).results
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** Returns a converter from UTF-16 offsets into `text` to code point offsets, as Python indexes a str. */
export function codePointOffsets(text: string): (offset: number) => number {
  // pairsBefore[i] = surrogate pairs wholly inside text[0, i).
  const pairsBefore = new Uint32Array(text.length + 1)
  let pairs = 0
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (index > 0 && code >= 0xdc00 && code <= 0xdfff) {
      const previous = text.charCodeAt(index - 1)
      if (previous >= 0xd800 && previous <= 0xdbff) pairs++
    }
    pairsBefore[index + 1] = pairs
  }
  return (offset) => offset - (pairsBefore[offset] ?? 0)
}

/**
 * `scanText` against the plain reference scanner (`__fixtures__/reference-scan.ts`): generated agent-like text, every message of
 * the repo's transcript fixtures, and the real corpus when present. The scan skips repeated lines and the reference
 * does not, so both are compared as a message's items are kept: the first span of each text, in order.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../spec/transcript.js'
import { readTranscript } from '../../transcript/read.js'
import { renderMessage } from '../../transcript/render.js'
import { sourceFromString } from '../../transcript/source.js'
import { referenceScan } from '../__fixtures__/reference-scan.js'
import { ScanCaches, type ScanMode, scanText } from './scan-text.js'

/** The first span of each text, as `kind start end text` lines. */
function firstOfEachText(text: string, spans: ReadonlyArray<{ kind: string; start: number; end: number }>): string[] {
  const seen = new Set<string>()
  const kept: string[] = []
  for (const span of spans) {
    const spanText = text.slice(span.start, span.end)
    if (seen.has(spanText)) continue
    seen.add(spanText)
    kept.push(`${span.kind} ${span.start} ${span.end} ${JSON.stringify(spanText)}`)
  }
  return kept
}

const MODES: readonly ScanMode[] = ['instruction', 'summary', 'assistant', 'code', 'tool']

/** Compares both scanners on `[start, end)` of `text`. */
function expectSameSpans(caches: ScanCaches, text: string, start: number, end: number, mode: ScanMode, isError: boolean): void {
  const fast = scanText(text, start, end, { mode, caches, isError }).toArray()
  const plain = referenceScan(text, start, end, mode, isError)
  expect(firstOfEachText(text, fast), `${mode}${isError ? ' (failing)' : ''}: ${JSON.stringify(text.slice(start, end).slice(0, 300))}`).toEqual(firstOfEachText(text, plain))
}

/** Pieces of agent text: paths, URLs, versions, errors, flags, quoted strings, numbers with units, constraints, examples. */
const PIECES = [
  'the', 'worker', 'we', 'run', 'it', 'You', 'must', 'never', 'always', "don't", 'at most', 'only', 'Make sure', 'cannot', 'required',
  ' ', ' ', ' ', ' ', '\n', '\n', '\r\n', '\t', '  ', '    ', '. ', ', ', '; ', ': ', '(', ')', '[', ']', '{', '}', '<', '>', '"', "'", '`', '“', '”',
  'OSError:', '[Errno 28]', 'No space left on device', 'Traceback (most recent call last):', 'ValueError: bad config', 'FAILED',
  'error:', 'fatal:', 'command not found', 'killed', 'skilled', 'E501', 'src/a.py:12:3', 'Exit code 1', 'Exit code 0', '<tool_use_error>',
  'Warning: slow', '2026-01-01 INFO started', '=== test session starts ===', '{"error": {"message": "rate limited"}}',
  '250', 'ms', 'MB', '>=', '<', '3', '1.5', '0x1f', '42%', '$5', 'timeout', '=', '30', 'retries', 'max_steps', '--max_steps 3000', '--model gpt-4o',
  '-n 5', '-v', '--dry-run', 'numpy==1.26.4', 'react@18.3.1', '^2.0', 'Python 3.11', 'node 20.11.1', 'fsspec 2024.6.1', 'v1.2.3',
  '/var/tmp/x.bin', 'src/samplers/cached_sampler.py', 'cached_sampler.py', './run.sh', '~/.config/app.toml', 'C:\\Users\\me\\x.txt',
  'https://api.example.com/v1/x?y=1', 'http://localhost:8080/health', 'CUDA_VISIBLE_DEVICES=1', 'MAX_STEPS', 'a3f9c2e1b7',
  '123e4567-e89b-12d3-a456-426614174000', 'fooBar', 'snake_case_name', 'main()', 'f(x).', '(see f(x))', 'os.path.join', 'dtype="float32"',
  'such as', 'e.g.', 'for example', 'for instance', 'buggy-input.png', "'quoted'", '"a b"', '`grep`', '`pip install x`', '/^a+$/', 'r"^x\\d+$"',
  '</task-notification>', 'é', '中文', '😀', '\u00a0', '\u2003', '\u212a', 'İ', "it's", '...', '#1234', 'x'.repeat(20),
  // Git's commits (digits-only short hashes by their context and neighbours) and terminal escape sequences.
  '4219184', '4219184 ', '9fceb02 ', '* ', 'commit ', 'HEAD is now at ', 'Merge: ', '[main ', '\x1b[31m', '\x1b[0m', '\x1b[1;31merror\x1b[0m:', '\x1b]8;;https://a.io/b\x07', '\x1b',
]

/** Lines, some of them repeated (the scan skips a repeat of twelve units or more). */
const LINE = fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).map((pieces) => pieces.join(''))
const TEXT = fc.array(fc.oneof({ weight: 4, arbitrary: LINE }, { weight: 1, arbitrary: fc.constantFrom('Traceback (most recent call last):', '    raise ValueError("bad shape")', 'You must never write to /etc/hosts.', '  File "src/a.py", line 3, in main', '4219184 fix: retry on 503', '9fceb02 add retries', '* 7654321 bump', '\x1b[33m3c1e2d4\x1b[m first commit') }), { minLength: 1, maxLength: 12 }).map((lines) => lines.join('\n'))

describe('scanText against the reference scanner', () => {
  it('finds the same first span of each text on generated agent text, in every mode', () => {
    const caches = new ScanCaches()
    fc.assert(
      fc.property(TEXT, fc.constantFrom(...MODES), fc.boolean(), fc.nat(3), (text, mode, isError, cut) => {
        // Scanning a range of a larger text: offsets are the text's.
        const start = Math.min(cut, text.length)
        expectSameSpans(caches, text, start, text.length, mode, isError)
      }),
      { numRuns: 3000, seed: 20261203 },
    )
  })

  it('finds the same spans in every message of the transcript fixtures', async () => {
    const root = fileURLToPath(new URL('../../transcript/formats/__fixtures__/', import.meta.url))
    const files = walk(root)
    expect(files.length).toBeGreaterThan(20)
    let parts = 0
    for (const file of files) parts += await compareTranscript(file)
    expect(parts).toBeGreaterThan(100)
  })

  const corpus = fileURLToPath(new URL('../../../../shared/corpus/real/', import.meta.url))
  const present = existsSync(corpus)
  if (!present) console.log(`scan-text.test.ts: ${corpus} is absent; the real-corpus comparison is skipped`)
  it.skipIf(!present)('finds the same spans in every message of the real corpus', async () => {
    let parts = 0
    for (const file of walk(corpus).filter((path) => !path.endsWith('.md') || path.includes('aider'))) parts += await compareTranscript(file)
    expect(parts).toBeGreaterThan(1000)
  }, 120_000)
})

function walk(directory: string): string[] {
  return readdirSync(directory).sort().flatMap((name) => {
    const path = join(directory, name)
    return statSync(path).isDirectory() ? walk(path) : [path]
  })
}

/** Compares both scanners on every scanned part of the transcript in `file` (as `full` reads each); returns how many. */
async function compareTranscript(file: string): Promise<number> {
  const transcript = await readTranscript(sourceFromString(file, readFileSync(file, 'utf8')), { lenient: true })
  const caches = new ScanCaches()
  let parts = 0
  transcript.messages.forEach((message: Message) => {
    const rendered = renderMessage(message)
    for (const span of rendered.spans) {
      const part = message.parts[span.part]!
      if (part.type === 'reasoning' || part.type === 'tool-call') continue
      const mode: ScanMode = part.type === 'tool-result' ? 'tool' : part.type === 'summary' ? 'summary' : message.role === 'assistant' ? 'assistant' : message.role === 'tool' ? 'tool' : 'instruction'
      expectSameSpans(caches, rendered.text, span.start, span.end, mode, part.type === 'tool-result' && part.isError)
      parts++
    }
  })
  return parts
}

// Two departures of `scanText` from its rules that the reference found (both fixed; these are their regressions).
describe('scanText follows its rules where it once departed from them', () => {
  const repeatOfDetail = 'killed\n    raise ValueError("bad shape")\n    raise ValueError("bad shape")'
  // A numbered file view (SWE-agent's `open`), a docstring line: not an error.
  const numberedLine = '25:    Raises RuntimeError if not found.'
  const textsOf = (text: string, spans: ReadonlyArray<{ start: number; end: number }>) => spans.map((span) => text.slice(span.start, span.end))

  it("keeps the spans of a repeated line whose first occurrence was an error's detail line", () => {
    expect(textsOf(repeatOfDetail, scanText(repeatOfDetail, 0, repeatOfDetail.length, { mode: 'instruction', caches: new ScanCaches() }).toArray())).toContain('"bad shape"')
    expect(textsOf(repeatOfDetail, referenceScan(repeatOfDetail, 0, repeatOfDetail.length, 'instruction', false))).toContain('"bad shape"')
  })

  it('reads a search match as an error only by the word right after its prefix', () => {
    expect(scanText(numberedLine, 0, numberedLine.length, { mode: 'tool', caches: new ScanCaches() }).toArray()).toEqual([])
    const diagnostic = 'src/app.py:12: AssertionError: expected 3, got 4'
    expect(textsOf(diagnostic, scanText(diagnostic, 0, diagnostic.length, { mode: 'tool', caches: new ScanCaches() }).toArray())).toEqual(['AssertionError: expected 3, got 4'])
  })
})

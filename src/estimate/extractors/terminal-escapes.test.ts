/**
 * Coloured tool output (issue: ANSI escapes) is read as printed: every item of a coloured output is the item of the
 * same output printed plain, same kind and text, and an item's text holds no escape sequence; its offsets span the raw
 * units it was read from. The plain outputs are the coloured ones stripped by this test's own pattern.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { renderMessage } from '../../transcript/render.js'
import { createFullEstimator } from '../full.js'
import { ScanCaches, scanText } from './scan-text.js'

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

/** ECMA-48's sequences, written out apart from the scanner: CSI, control strings up to BEL or ST, short ESC sequences. */
const ESCAPES = /\x1b(?:\[[\x20-\x3f]*[\x40-\x7e]?|[\]PX^_][^\x07\x1b\x9c\n]*(?:\x07|\x9c|\x1b\\)?|[\x20-\x2f]*[\x30-\x7e]?)/g
const plain = (text: string) => text.replace(ESCAPES, '')

const result = (content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content, isError }] })
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const kindsAndTexts = (items: readonly FloorItem[]) => items.map((item) => `${item.kind} ${item.text}`)

/** Real-looking coloured output, as each tool prints it to a terminal (or with its colour forced on). */
const OUTPUTS = {
  pytest: [
    '\x1b[1m============================= test session starts ==============================\x1b[0m',
    'platform linux -- Python 3.11.4, pytest-7.4.0, pluggy-1.2.0',
    'collected 3 items',
    '',
    'tests/test_config.py \x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[32m.\x1b[0m\x1b[31m                                  [100%]\x1b[0m',
    '',
    '=================================== FAILURES ===================================',
    '\x1b[31m\x1b[1m_______________________________ test_load_config _______________________________\x1b[0m',
    '',
    '    def test_load_config():',
    '>       assert load("cfg.yaml")["steps"] == 3000',
    "\x1b[1m\x1b[31mE       KeyError: 'steps'\x1b[0m",
    '',
    '\x1b[1m\x1b[31mtests/test_config.py\x1b[0m:12: KeyError',
    '\x1b[36m\x1b[1m=========================== short test summary info ============================\x1b[0m',
    "\x1b[31mFAILED\x1b[0m tests/test_config.py::\x1b[1mtest_load_config\x1b[0m - KeyError: 'steps'",
    '\x1b[31m========================= \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m2 passed\x1b[0m\x1b[31m in 0.12s\x1b[0m\x1b[31m =========================\x1b[0m',
  ].join('\n'),
  cargo: [
    '\x1b[0m\x1b[1m\x1b[32m   Compiling\x1b[0m demo v0.1.0 (/home/me/demo)',
    '\x1b[0m\x1b[1m\x1b[38;5;9merror[E0308]\x1b[0m\x1b[0m\x1b[1m: mismatched types\x1b[0m',
    '\x1b[0m \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m--> \x1b[0m\x1b[0msrc/main.rs:4:18\x1b[0m',
    '\x1b[0m  \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m|\x1b[0m',
    '\x1b[0m\x1b[1m\x1b[38;5;12m4\x1b[0m\x1b[0m \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m|\x1b[0m\x1b[0m     let x: i32 = "five";\x1b[0m',
    '\x1b[0m  \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m|\x1b[0m\x1b[0m            \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m---\x1b[0m\x1b[0m   \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;9m^^^^^^\x1b[0m\x1b[0m \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;9mexpected `i32`, found `&str`\x1b[0m',
    '',
    '\x1b[0m\x1b[1m\x1b[38;5;9merror\x1b[0m\x1b[0m\x1b[1m: could not compile `demo` (bin "demo") due to 1 previous error\x1b[0m',
  ].join('\n'),
  tsc: [
    "\x1b[96msrc/index.ts\x1b[0m:\x1b[93m12\x1b[0m:\x1b[93m7\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2322: \x1b[0mType 'string' is not assignable to type 'number'.",
    '',
    '\x1b[7m12\x1b[0m const n: number = "x";',
    '\x1b[7m  \x1b[0m \x1b[91m      ~\x1b[0m',
    '',
    '',
    'Found 1 error in src/index.ts\x1b[90m:12\x1b[0m',
  ].join('\n'),
  npm: [
    '\x1b[37;40mnpm\x1b[0m \x1b[0m\x1b[31;40mERR!\x1b[0m \x1b[0m\x1b[35mcode\x1b[0m ERESOLVE',
    '\x1b[37;40mnpm\x1b[0m \x1b[0m\x1b[31;40mERR!\x1b[0m \x1b[0m\x1b[35mERESOLVE\x1b[0m unable to resolve dependency tree',
    '\x1b[37;40mnpm\x1b[0m \x1b[0m\x1b[31;40mERR!\x1b[0m \x1b[0m\x1b[35m\x1b[0m While resolving: \x1b[1mweb\x1b[22m@\x1b[1m0.1.0\x1b[22m',
    '\x1b[37;40mnpm\x1b[0m \x1b[0m\x1b[31;40mERR!\x1b[0m \x1b[0m\x1b[35m\x1b[0m A complete log of this run can be found in: /home/me/.npm/_logs/2026-03-01T10_00_00_000Z-debug-0.log',
    '\x1b[31mnpm error\x1b[39m code E404',
    "\x1b[31mnpm error\x1b[39m 404 Not Found - GET https://registry.npmjs.org/left-padd - Not found",
  ].join('\n'),
  'git log --oneline --color': [
    '\x1b[33m9fceb02\x1b[m\x1b[33m (\x1b[m\x1b[1;36mHEAD -> \x1b[m\x1b[1;32mmain\x1b[m\x1b[33m, \x1b[m\x1b[1;31morigin/main\x1b[m\x1b[33m)\x1b[m fix: retry on 503',
    '\x1b[33ma11bef0\x1b[m add retries to the uploader',
    '\x1b[33m3c1e2d4\x1b[m first commit',
  ].join('\n'),
  jest: [
    '\x1b[1m\x1b[31m  \x1b[1m● \x1b[22m\x1b[1mparse › rejects an empty file\x1b[39m\x1b[22m',
    '',
    '    \x1b[2mexpect(\x1b[22m\x1b[31mreceived\x1b[39m\x1b[2m).\x1b[22mtoThrow\x1b[2m(\x1b[22m\x1b[32mexpected\x1b[39m\x1b[2m)\x1b[22m',
    '',
    '    Error: ENOENT: no such file or directory, open \x1b[31m\'/tmp/empty.txt\'\x1b[39m',
    '',
    '\x1b[1mTests:       \x1b[22m\x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m, \x1b[1m\x1b[32m4 passed\x1b[39m\x1b[22m, 5 total',
  ].join('\n'),
  eslint: [
    '\x1b[4m/repo/src/app.ts\x1b[24m',
    '  \x1b[2m3:10\x1b[22m  \x1b[31merror\x1b[39m  \'x\' is assigned a value but never used  \x1b[2m@typescript-eslint/no-unused-vars\x1b[22m',
    '',
    '\x1b[31m\x1b[1m✖ 1 problem (1 error, 0 warnings)\x1b[22m\x1b[39m',
  ].join('\n'),
  // GCC's diagnostics with OSC 8 hyperlinks (BEL- and ST-terminated) and an erased line.
  gcc: [
    '\x1b[2K\x1b[1m\x1b]8;;file:///repo/src/a.c\x07src/a.c\x1b]8;;\x07:3:5:\x1b[m \x1b[01;31m\x1b[Kerror: \x1b[m\x1b[K\'y\' undeclared (first use in this function)',
    '\x1b]8;;https://gcc.gnu.org/onlinedocs/gcc/Warning-Options.html\x1b\\see https://gcc.gnu.org/onlinedocs/gcc/Warning-Options.html\x1b]8;;\x1b\\',
  ].join('\n'),
} as const

describe('coloured tool output is read as printed', () => {
  for (const [tool, coloured] of Object.entries(OUTPUTS)) {
    it(`${tool}: the same items, kind and text, as the output printed plain`, () => {
      const printed = plain(coloured)
      expect(printed).not.toBe(coloured)
      const expected = kindsAndTexts(full.extract(result(printed), 0))
      // tsc's `file:line:col - error TS…` and ESLint's `line:col  error  …` lines are missed printed plain too (a limit
      // of the error rule, not of colour): for them the coloured output must add nothing.
      if (tool !== 'tsc' && tool !== 'eslint') expect(expected.length).toBeGreaterThan(0)
      expect(kindsAndTexts(full.extract(result(coloured), 0))).toEqual(expected)
      expect(kindsAndTexts(full.extract(result(coloured, true), 0))).toEqual(kindsAndTexts(full.extract(result(printed, true), 0)))
      expect(kindsAndTexts(full.extract(user(coloured), 0))).toEqual(kindsAndTexts(full.extract(user(printed), 0)))
    })
  }

  it('finds the errors the plain outputs hold (what the items above must include)', () => {
    const errors = (text: string) => full.extract(result(text), 0).filter((item) => item.kind === 'error').map((item) => item.text)
    // `error[E0308]: mismatched types`, missed plain and coloured until session 11, is an error with its location (the
    // detail line after it).
    const cargo = ['error[E0308]: mismatched types', '--> src/main.rs:4:18', 'error: could not compile `demo` (bin "demo") due to 1 previous error']
    expect(errors(plain(OUTPUTS.cargo))).toEqual(cargo)
    expect(errors(OUTPUTS.cargo)).toEqual(cargo)
    expect(errors(OUTPUTS.pytest)).toContain("KeyError: 'steps'")
    expect(errors(OUTPUTS.npm).join('\n')).toContain('ERESOLVE unable to resolve dependency tree')
    expect(errors(OUTPUTS.gcc)).toEqual(["error: 'y' undeclared (first use in this function)"])
    const hashes = full.extract(result(OUTPUTS['git log --oneline --color']), 0).filter((item) => item.kind === 'hash').map((item) => item.text)
    expect(hashes).toEqual(['9fceb02', 'a11bef0', '3c1e2d4'])
  })

  it("gives each item its raw span's offsets, whose units printed are the item's text", () => {
    for (const coloured of Object.values(OUTPUTS)) {
      const message = result(coloured)
      const { text } = renderMessage(message)
      for (const item of full.extract(message, 0)) {
        expect(item.text).not.toMatch(/[\x1b\x07\x9c]/)
        expect(plain(text.slice(item.start, item.end))).toBe(item.text)
        // A span starts and ends on a printed unit: no escape sequence hangs off either end.
        expect(plain(text.slice(item.start, item.start + 1))).toBe(item.text[0])
        expect(plain(text.slice(item.end - 1, item.end))).toBe(item.text.at(-1))
      }
    }
  })

  it('keeps one item per printed text in a message (a coloured and a plain occurrence are one item)', () => {
    const line = "error: could not find `Cargo.toml` in `/repo` or any parent directory"
    const items = full.extract(result(`\x1b[1;31merror\x1b[0m: could not find \`Cargo.toml\` in \`/repo\` or any parent directory\n${line}`), 0)
    expect(kindsAndTexts(items)).toEqual([`error ${line}`])
  })

  // Generated: pieces of tool output with escape sequences (well-formed, cut short, or stray) put between them.
  const PIECES = ['error:', 'Error: boom', 'FAILED', 'src/a.py:12', 'https://example.com/x', '9fceb02', 'a11bef0c', '123e4567-e89b-12d3-a456-426614174000', 'KeyError:', "'steps'", ' ', ' ', '\n', '\n', '  ', 'the', 'run', 'Exit code 1', 'Traceback (most recent call last):', '[', ']', ':', '1234']
  const SEQUENCES = ['\x1b[0m', '\x1b[1;31m', '\x1b[38;5;9m', '\x1b[K', '\x1b[2K', '\x1b[3A', '\x1b[?25l', '\x1b(B', '\x1b7', '\x1b]8;;https://a.io/b\x07', '\x1b]8;;\x1b\\', '\x1b]0;title', '\x1b', '\x1b[', '\x1b[12', '\x1b]', '\x1bP1$r\x1b\\']
  const PART = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PIECES) }, { weight: 2, arbitrary: fc.constantFrom(...SEQUENCES) }), { maxLength: 30 }).map((pieces) => pieces.join(''))

  it('finds in generated coloured output what it finds in the same output printed (property)', () => {
    fc.assert(
      fc.property(PART, fc.boolean(), (coloured, isError) => {
        const printed = plain(coloured)
        expect(kindsAndTexts(full.extract(result(coloured, isError), 0))).toEqual(kindsAndTexts(full.extract(result(printed, isError), 0)))
        expect(kindsAndTexts(full.extract(user(coloured), 0))).toEqual(kindsAndTexts(full.extract(user(printed), 0)))
        const { text } = renderMessage(result(coloured))
        for (const item of full.extract(result(coloured), 0)) expect(plain(text.slice(item.start, item.end))).toBe(item.text)
      }),
      { numRuns: 1500, seed: 20261203 },
    )
  })

  it('reads a range of a larger text: offsets are the text\'s', () => {
    const text = `\x1b[31mhead\x1b[0m\n\x1b[1;31merror\x1b[0m: disk full at /var/tmp/x.bin\n`
    const start = text.indexOf('\n') + 1
    const spans = scanText(text, start, text.length, { mode: 'tool', caches: new ScanCaches() }).toArray()
    expect(spans.map((span) => plain(text.slice(span.start, span.end)))).toEqual(['error: disk full at /var/tmp/x.bin'])
    expect(spans[0]!.start).toBe(start + '\x1b[1;31m'.length)
  })
})

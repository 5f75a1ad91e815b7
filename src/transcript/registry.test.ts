import { existsSync, readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import type { TranscriptFormatV1 } from '../spec/format.js'
import { detectFormat, getFormat, scoreFormats, transcriptFormatNames, transcriptFormats } from './registry.js'
import { headOf } from './source.js'

const fixturesRoot = new URL('./formats/__fixtures__/', import.meta.url)
const corpusRoot = new URL('../../../shared/corpus/real/', import.meta.url)
const corpusPresent = existsSync(corpusRoot)
if (!corpusPresent) console.log(`[floorguard] skipping real-corpus detection tests: ${corpusRoot.pathname} is absent`)

/** Every fixture of every format, named by its folder (the format it belongs to). */
function fixtureFiles(): Array<{ format: string; name: string; head: string }> {
  return readdirSync(fixturesRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      readdirSync(new URL(`${entry.name}/`, fixturesRoot)).map((file) => ({
        format: entry.name,
        name: `${entry.name}/${file}`,
        head: headOf(readFileSync(new URL(`${entry.name}/${file}`, fixturesRoot), 'utf8')),
      })),
    )
}

const scores = (head: string): string =>
  scoreFormats(head)
    .filter((entry) => entry.score > 0)
    .map((entry) => `${entry.name}=${entry.score}`)
    .join(' ')

describe('format registry', () => {
  it('holds all sixteen formats under their own names', () => {
    expect(transcriptFormatNames).toEqual([
      'openai',
      'openai-responses',
      'anthropic',
      'ai-sdk',
      'gemini',
      'claude-code',
      'claude-agent-events',
      'claude-stream-json',
      'codex',
      'gemini-cli',
      'gemini-session',
      'swe-agent',
      'aider',
      'opencode',
      'langchain',
      'letta',
      'antigravity',
      'text',
    ])
    for (const [name, format] of Object.entries(transcriptFormats)) {
      expect(format.name).toBe(name)
      expect(format.specificationVersion).toBe('v1')
    }
  })

  it('gets a format by name and lists the known names for an unknown one', () => {
    expect(getFormat('anthropic')).toBe(transcriptFormats.anthropic)
    expect(() => getFormat('langgraph')).toThrow(/unknown transcript format "langgraph": expected auto or one of openai, openai-responses, anthropic, .*, text/)
    expect(() => getFormat('toString')).toThrow(FloorguardError)
  })
})

describe('detectFormat', () => {
  it.each(fixtureFiles())('detects $name as its folder’s format', ({ format, name, head }) => {
    expect(detectFormat(head, name).name, scores(head)).toBe(format)
  })

  describe.skipIf(!corpusPresent)('real corpus', () => {
    const expected: Record<string, string> = {
      'claude-code-engram-sjonas50': 'claude-code',
      'claude-managed-agents-open-hai': 'claude-agent-events',
      'gemini-cli': 'gemini-cli',
      aider: 'aider',
      'swe-agent': 'swe-agent',
    }
    const files = corpusPresent
      ? Object.keys(expected).flatMap((folder) => readdirSync(new URL(`${folder}/`, corpusRoot)).map((file) => ({ folder, file })))
      : []
    it('covers the ten corpus files', () => {
      expect(files).toHaveLength(10)
    })
    it.each(files)('detects $folder/$file', ({ folder, file }) => {
      const head = headOf(readFileSync(new URL(`${folder}/${file}`, corpusRoot), 'utf8'))
      expect(detectFormat(head, file).name, scores(head)).toBe(expected[folder])
    })
    it.each(files.filter(({ folder }) => folder === 'swe-agent'))('detects $file cut down to its history', ({ folder, file }) => {
      const { history } = JSON.parse(readFileSync(new URL(`${folder}/${file}`, corpusRoot), 'utf8')) as { history: unknown }
      const head = headOf(JSON.stringify({ history }, null, 2))
      expect(detectFormat(head, file).name, scores(head)).toBe('swe-agent')
    })
  })

  it('reads a plain chat array as openai, which every candidate reads the same way', () => {
    expect(detectFormat('[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]', 'x.json').name).toBe('openai')
    expect(detectFormat('[]', 'x.json').name).toBe('openai')
    expect(detectFormat('{"system":"be brief","messages":[{"role":"user","content":"hi"}]}', 'x.json').name).toBe('anthropic')
    expect(detectFormat('{"input":[{"role":"user","content":"hi"}]}', 'x.json').name).toBe('openai-responses')
    expect(detectFormat('{"input":"hi"}', 'x.json').name).toBe('openai-responses')
  })

  it('lets a message of a role no format knows (a harness\'s trailing exit) say nothing, neither claiming nor refusing', () => {
    const exit = '{"role":"exit","content":"","extra":{"exit_status":"Submitted"}}'
    expect(detectFormat(`[{"role":"user","content":"hi"},{"role":"assistant","content":"done"},${exit}]`, 'x.json').name).toBe('openai')
    expect(detectFormat(`{"system":"s","messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]},${exit}]}`, 'x.json').name).toBe('anthropic')
    expect(() => detectFormat(`[${exit}]`, 'x.json')).toThrow(/no format claims/)
  })

  it('tells the message-array formats apart by their own fields, also in a cut head', () => {
    expect(detectFormat('[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function"', 'x.json').name).toBe('openai')
    expect(detectFormat('[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},{"role":"assist', 'x.json').name).toBe('anthropic')
    expect(detectFormat('[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"a","toolName":"b","input":{}}]}]', 'x.json').name).toBe('ai-sdk')
    expect(detectFormat('[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]', 'x.json').name).toBe('openai-responses')
    expect(detectFormat('{"messages":[{"role":"user","content":"hi"}],"maxOutputTokens":5}', 'x.json').name).toBe('ai-sdk')
    // A re-test: an Anthropic request whose messages compact folded into one user text read back as openai; its tools
    // and tool_choice are the Messages API's own.
    const plain = '"messages":[{"role":"user","content":[{"type":"text","text":"summary"}]}]'
    expect(detectFormat(`{"model":"claude-sonnet-4-5",${plain},"tools":[{"type":"web_search_20250305","name":"web_search"}]}`, 'x.json').name).toBe('anthropic')
    expect(detectFormat(`{${plain},"tools":[{"name":"ls","description":"list","input_schema":{"type":"object"}}]}`, 'x.json').name).toBe('anthropic')
    expect(detectFormat(`{${plain},"tool_choice":{"type":"any"}}`, 'x.json').name).toBe('anthropic')
    expect(detectFormat(`{${plain},"tools":[{"type":"function","function":{"name":"ls","parameters":{}}}],"tool_choice":"auto"}`, 'x.json').name).toBe('openai')
  })

  it('refuses a mix of formats, naming the candidates and asking for --format', () => {
    const mixed = '[{"role":"assistant","content":null,"tool_calls":[]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}]'
    expect(() => detectFormat(mixed, 'mixed.json')).toThrow(/^mixed\.json: expected an input whose format can be detected, got JSON that no format claims; closest: .*pass --format NAME/)
  })

  it('refuses JSON that no format claims instead of reading it as text', () => {
    expect(() => detectFormat('{"hello":"world"}', 'data.json')).toThrow(/^data\.json: .*no format claims.*--format NAME \(one of openai, /)
    expect(() => detectFormat('[1, 2, 3]', 'numbers.json')).toThrow(/no format claims/)
  })

  it('reports a JSON document that breaks inside the head by its syntax error and place, as a reader would (a re-test)', () => {
    // D1: a stray comma or token in the first 64 KiB said "JSON that no format claims", with no location.
    const chat = (body: string) => `{\n "model": "gpt-4o",\n "messages": [\n  {"role": "user", "content": ${JSON.stringify(body)}}\n ]\n${'}'}`
    const placeOf = (text: string, index: number) => {
      const before = text.slice(0, index).split('\n')
      return `${before.length}:${before.at(-1)!.length + 1}`
    }
    // The comma is legal until the closer that follows it: the closer is the error, as the reader says.
    const strayComma = chat('hi').replace(/\n\}$/, '\n,}')
    expect(() => detectFormat(strayComma, 'late.json')).toThrow(
      new RegExp(`^late\\.json:${placeOf(strayComma, strayComma.lastIndexOf('}'))}: expected valid JSON, got "}" \\(so no format can be detected\\); pass --format NAME`),
    )
    // A stray token 30 KB in, in a file much longer than the head.
    const long = chat('x'.repeat(30_000)).replace('"role": "user",', '"role": "user" oops,') + ' '.repeat(200_000)
    const head = headOf(long)
    expect(head.length).toBeLessThan(long.length)
    expect(() => detectFormat(head, 'big.json')).toThrow(new RegExp(`^big\\.json:${placeOf(long, long.indexOf('oops'))}: expected valid JSON, got "oops`))
    // A NUL outside any string, and after a byte-order mark.
    const nul = `\uFEFF[\n {"role": "user",\n  \u0000 "content": "hi"}\n]`
    expect(() => detectFormat(nul, 'nul.json')).toThrow(/^nul\.json:3:3: expected valid JSON/)
    // JSON lines whose records no format knows still say so: a second value is no syntax error.
    expect(() => detectFormat('{"a": 1}\n{"b": 2}\n', 'x.jsonl')).toThrow(/no format claims/)
    // Garbage after a whole document is a break at its place, as --format openai says (a re-test: no position).
    expect(() => detectFormat('{"messages":[{"role":"user","content":"hi"}]}\nxyz', 'tg2.json')).toThrow(/^tg2\.json:2:1: expected nothing after the JSON document, got "xyz" \(so no format can be detected\); pass --format NAME/)
    // A final re-test: the same junk on the document's own line was read as plain text (exit 0); a note that opens with
    // JSON no format claims stays text (below).
    expect(() => detectFormat('{"messages":[{"role":"user","content":"hi"}]} xyz\n', 'tg4.json')).toThrow(/^tg4\.json:1:47: expected nothing after the JSON document, got "xyz\\n"/)
    expect(() => detectFormat('[{"role":"user","content":"hi"}]]\n', 'tg6.json')).toThrow(/^tg6\.json:1:33: expected nothing after the JSON document, got "]\\n"/)
  })

  it('reports a one-line (minified) JSON document that breaks by its syntax error too, not as text (a re-test)', () => {
    // I1: the same break over 2+ lines said file:line:col, on one line the file was read as plain text (exit 0).
    const broken = [
      ['[{"role":"user","content":"hi"} {"role":"assistant","content":"yo"}]', '1:33', '{'],
      ['{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"]}', '1:79', ']'],
      ['[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"},]', '1:69', ']'],
      ['\uFEFF  [{"role":"user","content":"hi"},,]\n', '1:35', ','],
      ['[1, 2 3]', '1:7', '3'],
    ] as const
    for (const [text, place, got] of broken) {
      expect(() => detectFormat(text, 'min.json')).toThrow(new RegExp(`^min\\.json:${place}: expected valid JSON, got "${got.replace(/\W/g, '\\$&')}`))
    }
    // Text that only opens with a bracket stays text: a log's timestamp, a Markdown link, a Python dict.
    for (const text of ['[2026-01-02 10:00] started\n', '[INFO] ready\n', '[docs](https://x.dev) are here\n', "{'role': 'user'}\n", '{"a": 1} and prose\n']) {
      expect(detectFormat(text, 'notes.txt').name).toBe('text')
    }
  })

  it('errors on a tie at the top', () => {
    const fake = (name: string): TranscriptFormatV1 => ({ specificationVersion: 'v1', name, layout: 'text', detect: () => 0.8, read: async () => ({ format: name, messages: [], pairs: [], unpaired: [] }) })
    expect(() => detectFormat('anything', 'in.log', { formats: [fake('one'), fake('two')] })).toThrow(
      'in.log: expected an input of one recognizable format, got one that fits one and two equally well; pass --format NAME',
    )
  })

  it('falls back to text only for input that is not JSON or JSONL at all', () => {
    expect(detectFormat('Deploy notes\n\n- freeze at 14:00\n', 'notes.txt').name).toBe('text')
    expect(detectFormat('{not json at all', 'odd.txt').name).toBe('text')
  })

  it('refuses empty input, binary data and a lone JSON scalar with one line each, instead of reading them as text', async () => {
    // Issue 11: an empty file, empty stdin, random binary or a bare `42` were read as plain text (exit 0).
    const refusal = (head: string): string => {
      try {
        return `read as ${detectFormat(head, 'in').name}`
      } catch (error) {
        expect(FloorguardError.is(error) && error.code === 'invalid-input', String(error)).toBe(true)
        expect((error as Error).message).not.toContain('\n')
        return (error as Error).message
      }
    }
    expect(refusal('')).toMatch(/^in: expected a transcript, got empty input/)
    expect(refusal(' \n\t\n')).toMatch(/^in: expected a transcript, got empty input/)
    expect(refusal('\uFEFF')).toMatch(/^in: expected a transcript, got empty input/)
    expect(refusal('ELF\u0000\u0001\u0002 abc')).toMatch(/^in: expected a transcript, got binary data, not text \(a NUL byte at character 4\)/)
    // Random bytes (no NUL) decode mostly to U+FFFD.
    const random = Buffer.from(Array.from({ length: 64 }, (_, index) => 0x80 + ((index * 37) % 128))).toString('utf8')
    expect(refusal(random)).toMatch(/^in: expected a transcript, got bytes that are not UTF-8 text/)
    // Compressed or UTF-16 files, as the CLI decodes their bytes: named, with what to do (not `--format`).
    const { gzipSync } = await import('node:zlib')
    const decoded = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8')
    expect(refusal(decoded(gzipSync('[{"role":"user","content":"hi"}]')))).toMatch(/^in: expected a transcript, got gzip-compressed data, not text; decompress it first/)
    expect(refusal(decoded(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x00])))).toMatch(/got zstd-compressed data/)
    expect(refusal(decoded(Buffer.from('PK\u0003\u0004\u0014\u0000', 'latin1')))).toMatch(/got zip-compressed data/)
    const bigEndian = (text: string) => Buffer.from(text, 'utf16le').swap16()
    for (const utf16 of [
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('[{"role": "user"}]', 'utf16le')]),
      Buffer.from('{"messages": [{"role": "user", "content": "hi"}]}', 'utf16le'),
      Buffer.concat([Buffer.from([0xfe, 0xff]), bigEndian('[{"role": "user"}]')]),
      bigEndian('{"messages": [{"role": "user", "content": "hi"}]}'),
    ]) {
      const message = refusal(decoded(utf16))
      expect(message).toMatch(/got UTF-16 text, not UTF-8; convert it first/)
      expect(message).not.toContain('--format')
    }
    expect(refusal('42')).toMatch(/^in: expected a transcript, got a JSON number \(42\), which is not a transcript; pass --format text/)
    expect(refusal(' "just a string"\n')).toMatch(/got a JSON string, which is not a transcript/)
    expect(refusal('null')).toMatch(/got null, which is not a transcript/)
    // A Git LFS pointer (a clone without `git lfs pull`) was read as plain text and checked, exit 0 (a re-test).
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${'4d7a'.repeat(16)}\nsize 1843921\n`
    expect(refusal(pointer)).toMatch(/^in: expected a transcript, got a Git LFS pointer\b.*; run `git lfs pull`/)
    expect(refusal(pointer)).not.toContain('--format')
    expect(detectFormat(`Notes on LFS:\n${pointer}`, 'notes.md').name).toBe('text')
    // Text stays text: a line starting with a digit or a quote, or a few bytes that did not decode.
    for (const text of ['2026 plans\n- ship\n', '"Quoted," she said.\n', `Caf\uFFFD menu\n${'x'.repeat(40)}\n`]) {
      expect(detectFormat(text, 'notes.txt').name).toBe('text')
    }
  })

  it('never crashes on arbitrary heads: a format or an InvalidInputError (property)', () => {
    const heads = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.json({ maxDepth: 4 }),
      fc.array(fc.json({ maxDepth: 3 }), { maxLength: 4 }).map((values) => values.join('\n')),
      fc.tuple(fc.json({ maxDepth: 4 }), fc.nat()).map(([json, cut]) => json.slice(0, cut % (json.length + 1))),
    )
    fc.assert(
      fc.property(heads, (head) => {
        try {
          const format = detectFormat(head, 'fuzz')
          expect(transcriptFormatNames).toContain(format.name)
        } catch (error) {
          expect(FloorguardError.is(error) && error.code === 'invalid-input', String(error)).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})

/**
 * The real transcripts in `<repo>/../shared/corpus/real/` (never copied into the repo): every file must be
 * detected as its format by `auto`, parse, and give the counts `SOURCES.md` states. The suite skips, with a note,
 * when the folder is absent (a fresh clone without `shared/`). Detection is also checked over every fixture of
 * every format in the repo: exactly one format may claim each input.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sourceFromFile } from '../cli/source.js'
import type { Message, Part, Transcript } from '../spec/transcript.js'
import { readTranscript } from './read.js'
import { DETECTION_THRESHOLD, detectFormat, getFormat, scoreFormats } from './registry.js'

const corpus = fileURLToPath(new URL('../../../shared/corpus/real/', import.meta.url))
const fixtures = fileURLToPath(new URL('./formats/__fixtures__/', import.meta.url))
const hasCorpus = existsSync(corpus)
if (!hasCorpus) console.warn(`[corpus.test] ${corpus} is absent: skipping the real-transcript checks (fixtures are still checked).`)

const parts = (transcript: Transcript, type: Part['type'], role?: Message['role']): Part[] =>
  transcript.messages.filter((message) => role === undefined || message.role === role).flatMap((message) => message.parts.filter((part) => part.type === type))
const errors = (transcript: Transcript) => parts(transcript, 'tool-result').filter((part) => part.type === 'tool-result' && part.isError).length
const toolNames = (transcript: Transcript): Record<string, number> => {
  const names: Record<string, number> = {}
  for (const part of parts(transcript, 'tool-call')) if (part.type === 'tool-call') names[part.name] = (names[part.name] ?? 0) + 1
  return names
}
const skipped = (transcript: Transcript) => ((transcript.envelope ?? {}) as { skipped?: Record<string, number> }).skipped ?? {}

/** What SOURCES.md says about each file, as checks over the transcript read from it. */
interface CorpusCase {
  readonly file: string
  readonly format: string
  readonly toolCalls: number
  readonly toolResults: number
  readonly unpairedCalls: number
  readonly check?: (transcript: Transcript) => void
}

/** Claude Code's own compaction summaries: SOURCES.md numbers records from 0, lines count from 1. */
const summaryLines = (transcript: Transcript) =>
  transcript.messages.filter((message) => message.parts.some((part) => part.type === 'summary' && part.source === 'claude-code')).map((message) => message.provenance?.line)

const cases: readonly CorpusCase[] = [
  {
    file: 'claude-code-engram-sjonas50/diffusion-session1-3f0a6f23.transcript.jsonl',
    format: 'claude-code',
    toolCalls: 470,
    toolResults: 467,
    unpairedCalls: 3,
    check(transcript) {
      // 57 user text records (3 of them summaries), 188 assistant text and 57 thinking records.
      expect(parts(transcript, 'text', 'user').length + parts(transcript, 'summary').length).toBe(57)
      expect(parts(transcript, 'text', 'assistant')).toHaveLength(188)
      expect(parts(transcript, 'reasoning')).toHaveLength(57)
      expect(summaryLines(transcript)).toEqual([347 + 1, 816 + 1, 1062 + 1])
      expect(errors(transcript)).toBe(39)
    },
  },
  {
    file: 'claude-code-engram-sjonas50/diffusion-session2-e7151f41.transcript.jsonl',
    format: 'claude-code',
    toolCalls: 400,
    toolResults: 399,
    unpairedCalls: 1,
    check(transcript) {
      expect(parts(transcript, 'text', 'user').length + parts(transcript, 'summary').length).toBe(40)
      expect(parts(transcript, 'text', 'assistant')).toHaveLength(225)
      expect(parts(transcript, 'reasoning')).toHaveLength(79)
      expect(summaryLines(transcript)).toEqual([314 + 1, 685 + 1, 1031 + 1])
      expect(errors(transcript)).toBe(29)
    },
  },
  {
    file: 'claude-managed-agents-open-hai/point-of-no-undo.transcript.jsonl',
    format: 'claude-agent-events',
    toolCalls: 95,
    toolResults: 95,
    unpairedCalls: 0,
    check(transcript) {
      expect(parts(transcript, 'text', 'assistant')).toHaveLength(8)
      expect(toolNames(transcript)).toEqual({ bash: 53, write: 23, web_fetch: 6, read: 6, web_search: 5, edit: 2 })
      expect(errors(transcript)).toBe(6)
      expect(skipped(transcript)).toMatchObject({ 'agent.thinking': 40, 'span.model_request_start': 79, 'span.model_request_end': 79 })
      // The two user events, plus the grader's feedback the agent acted on.
      expect(transcript.messages.filter((message) => message.role === 'user')).toHaveLength(3)
    },
  },
  {
    file: 'gemini-cli/figma-eval-010ac575-gemini-3-pro.transcript.jsonl',
    format: 'gemini-cli',
    toolCalls: 68,
    toolResults: 67,
    unpairedCalls: 1,
    check(transcript) {
      expect(transcript.messages.filter((message) => message.role === 'user')).toHaveLength(4)
      // The 7 assistant deltas are consecutive (lines 84–90): one joined text.
      const text = transcript.messages.filter((message) => message.role === 'assistant' && message.parts.some((part) => part.type === 'text'))
      expect(text.map((message) => message.provenance)).toEqual([{ line: 84, endLine: 90 }])
      // 4 results with status "error" and 3 "success" results whose output JSON says "status":"error".
      expect(errors(transcript)).toBe(7)
      expect(skipped(transcript)).toEqual({ init: 2, result: 1 })
    },
  },
  {
    file: 'aider/mozgoslav.aider.chat.history.md',
    format: 'aider',
    toolCalls: 0,
    toolResults: 0,
    unpairedCalls: 0,
    check(transcript) {
      expect((transcript.envelope as { sessions: unknown[] }).sessions).toHaveLength(3)
      expect(transcript.messages.filter((message) => message.role === 'user')).toHaveLength(21)
      expect(parts(transcript, 'reasoning')).toHaveLength(16)
      // 14 replies end with a `> Tokens:` line; two more were cut by ^C inside their thinking block.
      expect(transcript.messages.filter((message) => message.role === 'assistant')).toHaveLength(16)
      const tokenLines = parts(transcript, 'text', 'system').flatMap((part) => (part.type === 'text' ? part.text.split('\n') : [])).filter((line) => line.startsWith('Tokens:'))
      expect(tokenLines).toHaveLength(14)
    },
  },
  ...(
    [
      ['pydicom__pydicom-1458.traj', 26, 12, 1],
      ['swe-agent__test-repo-i1.traj', 12, 5, 1],
      ['marshmallow-code__marshmallow-1867__function_calling_replace_from_source.traj', 28, 13, 0],
      ['ctf-web-i_got_id_demo.traj', 43, 21, 0],
      ['ctf-crypto-katy.traj', 37, 18, 0],
    ] as const
  ).map(([name, history, steps, demos]): CorpusCase => ({
    file: `swe-agent/${name}`,
    format: 'swe-agent',
    toolCalls: steps,
    // Text-action files: the last action (submit) has no observation in `history`.
    toolResults: name.includes('function_calling') ? steps : steps - 1,
    unpairedCalls: name.includes('function_calling') ? 0 : 1,
    check(transcript) {
      expect(transcript.messages).toHaveLength(history)
      expect((transcript.envelope as { demos: number }).demos).toBe(demos)
    },
  })),
]

describe.skipIf(!hasCorpus)('real corpus (../shared/corpus/real)', () => {
  it('covers every transcript in the corpus', () => {
    const files = readdirSync(corpus, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => readdirSync(`${corpus}${entry.name}`).map((name) => `${entry.name}/${name}`))
    expect(files.sort()).toEqual(cases.map((entry) => entry.file).sort())
  })

  for (const entry of cases) {
    describe(entry.file, () => {
      it(`is detected as ${entry.format}, and by that format only`, async () => {
        const source = await sourceFromFile(`${corpus}${entry.file}`)
        expect(detectFormat(source.head, source.name).name).toBe(entry.format)
        const claims = scoreFormats(source.head).filter((score) => score.score > DETECTION_THRESHOLD)
        expect(claims.map((score) => score.name)).toEqual([entry.format])
      })

      it(`reads with auto: ${entry.toolCalls} calls, ${entry.toolResults} results, ${entry.unpairedCalls} unmatched calls`, async () => {
        const transcript = await readTranscript(await sourceFromFile(`${corpus}${entry.file}`), { format: 'auto' })
        expect(transcript.format).toBe(entry.format)
        expect(parts(transcript, 'tool-call')).toHaveLength(entry.toolCalls)
        expect(parts(transcript, 'tool-result')).toHaveLength(entry.toolResults)
        expect(transcript.pairs).toHaveLength(entry.toolResults)
        expect(transcript.unpaired.map((part) => part.kind)).toEqual(Array.from({ length: entry.unpairedCalls }, () => 'call'))
        entry.check?.(transcript)
      })

      it('streams the same messages it reads, without sources', async () => {
        const format = getFormat(entry.format)
        if (!format.stream) return expect(format.layout).toBe('document')
        const source = await sourceFromFile(`${corpus}${entry.file}`)
        const read = await format.read(source, { keepSource: false })
        let count = 0
        for await (const message of format.stream(source, { keepSource: false })) {
          expect(message.source).toBeUndefined()
          expect(message.parts).toEqual(read.messages[count]!.parts)
          count++
        }
        expect(count).toBe(read.messages.length)
      })
    })
  }
})

describe('detection over every fixture in the repo', () => {
  const dirs = readdirSync(fixtures, { withFileTypes: true }).filter((entry) => entry.isDirectory())
  for (const dir of dirs) {
    for (const name of readdirSync(`${fixtures}${dir.name}`)) {
      it(`${dir.name}/${name} is claimed by ${dir.name} only`, () => {
        const head = readFileSync(`${fixtures}${dir.name}/${name}`, 'utf8').slice(0, 64 * 1024)
        const claims = scoreFormats(head).filter((score) => score.score > DETECTION_THRESHOLD)
        // Plain text is the fallback for non-JSON input and claims nothing itself.
        expect(claims.map((score) => score.name)).toEqual(dir.name === 'text' ? [] : [dir.name])
      })
    }
  }
})

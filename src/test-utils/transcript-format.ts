import { describe, expect, it } from 'vitest'
import { FloorguardError } from '../errors.js'
import type { TranscriptFormatV1 } from '../spec/format.js'
import type { Message, Part, Transcript } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'
import { sourceFromString } from '../transcript/source.js'

/** Counts a fixture must read to. Each one given is checked. */
export interface TranscriptFixtureExpectation {
  readonly messages?: number
  readonly toolCalls?: number
  readonly toolResults?: number
  readonly unpaired?: number
}

/** One input the suite reads: a name (used as the source name in errors) and its full text. */
export interface TranscriptFormatFixture {
  readonly name: string
  readonly text: string
  readonly expect?: TranscriptFixtureExpectation
}

/** Options of {@link testTranscriptFormat}. */
export interface TestTranscriptFormatOptions {
  /** The format under test. */
  readonly format: TranscriptFormatV1
  /** Inputs of this format, at least one. */
  readonly fixtures: readonly TranscriptFormatFixture[]
  /**
   * Check the writer: parse → write is JSON-equal to the input, parse → write → parse is the identity, and
   * messages without a source are synthesized into records that read back to the same parts (in order).
   * @default format.write !== undefined
   */
  readonly writes?: boolean
  /**
   * Whether the format's own tool-result record can say that a result is an error. When it cannot (Responses
   * `function_call_output`), a synthesized result's `isError` is not compared.
   * @default true
   */
  readonly toolErrors?: boolean
  /**
   * Check that `detect` claims every fixture (score above 0.5). Off for formats that are a fallback.
   * @default true
   */
  readonly detects?: boolean
  /**
   * Check that cut and corrupted inputs fail with an InvalidInputError naming the source and a line.
   * @default format.layout !== 'text' (free text has no malformed form)
   */
  readonly malformed?: boolean
  /**
   * Seeded random corruptions per fixture that must either read or fail with a FloorguardError (never a crash).
   * @default 24
   */
  readonly mutations?: number
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

/** The parts of a message that readers produce, without `source` (which `keepSource: false` drops). */
function comparable(message: Message): unknown {
  return { role: message.role, parts: message.parts, provenance: message.provenance, name: message.name }
}

/**
 * Parts as a synthesized record must carry them. A summary a writer had to put in a plain message reads back as
 * text, and a tool result's optional `name` may have no place in the format's result record.
 */
function partsAsText(parts: readonly Part[], toolErrors: boolean): unknown[] {
  return parts.map((part) => {
    if (part.type === 'summary') return { type: 'text', text: part.text }
    if (part.type === 'tool-result') return { type: part.type, callId: part.callId, content: part.content, ...(toolErrors ? { isError: part.isError } : {}) }
    return part
  })
}

/**
 * The parts of a message list in order, as synthesized records must carry them. Message boundaries are not
 * compared: a writer may regroup (a hosted tool's result inside an assistant turn becomes a result record).
 */
function flatParts(messages: readonly Message[], toolErrors: boolean): unknown[] {
  return messages.flatMap((message) => partsAsText(message.parts, toolErrors))
}

function withoutSource(transcript: Transcript): Transcript {
  return {
    ...transcript,
    messages: transcript.messages.map(({ source: _source, ...message }) => message),
  }
}

/** Why a part is malformed, or undefined when it is well formed. */
function partProblem(part: Part): string | undefined {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return typeof part.text === 'string' ? undefined : `${part.type} part without string text`
    case 'summary':
      return typeof part.text === 'string' && typeof part.source === 'string' && part.source !== '' ? undefined : 'summary part needs text and source'
    case 'tool-call':
      return typeof part.id === 'string' && part.id !== '' && typeof part.name === 'string' ? undefined : 'tool-call part needs id and name'
    case 'tool-result':
      return typeof part.callId === 'string' && part.callId !== '' && typeof part.content === 'string' && typeof part.isError === 'boolean'
        ? undefined
        : 'tool-result part needs callId, string content and isError'
    default:
      return `unknown part type ${JSON.stringify((part as { type?: unknown }).type)}`
  }
}

function count(transcript: Transcript, type: Part['type']): number {
  return transcript.messages.reduce((total, message) => total + message.parts.filter((part) => part.type === type).length, 0)
}

/** Reads a fixture text with the format under test. */
function readText(format: TranscriptFormatV1, name: string, text: string, options?: Parameters<TranscriptFormatV1['read']>[1]): Promise<Transcript> {
  return format.read(sourceFromString(name, text), options)
}

async function readError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  return undefined
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Offsets strictly inside a non-blank line, where cutting leaves a partial record (never a clean prefix). */
function cutPoints(text: string): number[] {
  const last = text.trimEnd().length
  const points: number[] = []
  for (const fraction of [0.25, 0.5, 0.9]) {
    let point = Math.max(1, Math.floor(last * fraction))
    // Step back until the cut splits a line that has non-blank text on both sides of it.
    while (point > 1 && (/\s/.test(text[point - 1]!) || /\s/.test(text[point]!))) point--
    if (point > 0 && point < last && !points.includes(point)) points.push(point)
  }
  return points
}

/** A small seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 0x1_0000_0000
  }
}

function mutate(text: string, next: () => number): string {
  const position = Math.floor(next() * (text.length + 1))
  const alphabet = '{}[]",:0an\\\n '
  const char = alphabet[Math.floor(next() * alphabet.length)]!
  switch (Math.floor(next() * 3)) {
    case 0:
      return text.slice(0, position)
    case 1:
      return text.slice(0, position) + char + text.slice(position + 1)
    default:
      return text.slice(0, position) + char + text.slice(position)
  }
}

/**
 * Registers the conformance suite of one transcript format (vitest `describe` / `it` blocks).
 *
 * Per fixture: it reads; every message has a valid role, well-formed non-empty parts and provenance; pairs and
 * unpaired parts are what `pairToolCalls` gives; the expected counts hold; `keepSource: false` gives the same
 * messages without `source`; reading is deterministic; `stream` (when present) yields the same messages;
 * `detect` claims it. With a writer: parse → write is JSON-equal to the input, parse → write → parse is the
 * identity, and source-less messages are written so that they read back to the same parts in the same order. Cut or corrupted
 * inputs fail with an InvalidInputError whose message starts with `NAME:LINE`, never a TypeError.
 */
export function testTranscriptFormat(options: TestTranscriptFormatOptions): void {
  const { format, fixtures } = options
  const writes = options.writes ?? format.write !== undefined
  const detects = options.detects ?? true
  const malformed = options.malformed ?? format.layout !== 'text'
  const mutations = options.mutations ?? 24
  const toolErrors = options.toolErrors ?? true

  describe(`transcript format ${format.name} (conformance)`, () => {
    it('declares the v1 contract', () => {
      expect(format.specificationVersion).toBe('v1')
      expect(format.name).toMatch(/^[a-z0-9][a-z0-9-]*$/)
      expect(['document', 'lines', 'text']).toContain(format.layout)
      expect(fixtures.length).toBeGreaterThan(0)
      for (const head of ['', 'hello', '{', '[]', '\u0000\uFFFF']) {
        const score = format.detect(head)
        expect(score).toBeGreaterThanOrEqual(0)
        expect(score).toBeLessThanOrEqual(1)
      }
    })

    for (const fixture of fixtures) {
      describe(fixture.name, () => {
        it('reads into well-formed messages', async () => {
          const transcript = await readText(format, fixture.name, fixture.text)
          expect(transcript.format).toBe(format.name)
          transcript.messages.forEach((message, index) => {
            const where = `${fixture.name} message ${index}`
            expect(ROLES.has(message.role), `${where}: role ${message.role}`).toBe(true)
            expect(message.parts.length, `${where}: parts`).toBeGreaterThan(0)
            for (const part of message.parts) expect(partProblem(part), where).toBeUndefined()
            const provenance = message.provenance
            expect(provenance, `${where}: provenance`).toBeDefined()
            const hasLine = typeof provenance?.line === 'number' && provenance.line >= 1
            const hasPointer = typeof provenance?.pointer === 'string' && (provenance.pointer === '' || provenance.pointer.startsWith('/'))
            expect(hasLine || hasPointer, `${where}: provenance has a line or a JSON pointer`).toBe(true)
            if (provenance?.endLine !== undefined) expect(provenance.endLine).toBeGreaterThanOrEqual(provenance.line ?? 1)
            expect(message.source, `${where}: source kept by default`).toBeDefined()
          })
        })

        it('pairs tool calls as pairToolCalls does', async () => {
          const transcript = await readText(format, fixture.name, fixture.text)
          const { pairs, unpaired } = pairToolCalls(transcript.messages)
          expect(transcript.pairs).toEqual(pairs)
          expect(transcript.unpaired).toEqual(unpaired)
        })

        if (fixture.expect) {
          const expected = fixture.expect
          it(`reads the expected counts ${JSON.stringify(expected)}`, async () => {
            const transcript = await readText(format, fixture.name, fixture.text)
            const actual: Record<string, number> = {
              messages: transcript.messages.length,
              toolCalls: count(transcript, 'tool-call'),
              toolResults: count(transcript, 'tool-result'),
              unpaired: transcript.unpaired.length,
            }
            for (const [key, value] of Object.entries(expected)) expect(actual[key], key).toBe(value)
          })
        }

        it('reads the same messages without their sources (keepSource: false)', async () => {
          const kept = await readText(format, fixture.name, fixture.text)
          const dropped = await readText(format, fixture.name, fixture.text, { keepSource: false })
          expect(dropped.messages.map(comparable)).toEqual(kept.messages.map(comparable))
          for (const message of dropped.messages) expect(message.source).toBeUndefined()
        })

        it('reads deterministically', async () => {
          const first = await readText(format, fixture.name, fixture.text)
          const second = await readText(format, fixture.name, fixture.text)
          expect(second).toEqual(first)
        })

        if (format.stream) {
          const stream = format.stream.bind(format)
          it('streams the messages it reads', async () => {
            const transcript = await readText(format, fixture.name, fixture.text, { keepSource: false })
            const streamed: Message[] = []
            for await (const message of stream(sourceFromString(fixture.name, fixture.text), { keepSource: false })) streamed.push(message)
            expect(streamed.map(comparable)).toEqual(transcript.messages.map(comparable))
          })
        }

        if (detects) {
          it('is claimed by detect (score above 0.5)', () => {
            expect(format.detect(sourceFromString(fixture.name, fixture.text).head)).toBeGreaterThan(0.5)
          })
        }

        if (writes) {
          it('writes back JSON-equal to the input (parse → write)', async () => {
            const transcript = await readText(format, fixture.name, fixture.text)
            const written = format.write!(transcript)
            expect(JSON.parse(written)).toEqual(JSON.parse(fixture.text))
          })

          it('reads its own output to the same messages (parse → write → parse)', async () => {
            const transcript = await readText(format, fixture.name, fixture.text)
            const again = await readText(format, fixture.name, format.write!(transcript))
            expect(again.messages.map(comparable)).toEqual(transcript.messages.map(comparable))
            expect(again.pairs).toEqual(transcript.pairs)
            expect(again.unpaired).toEqual(transcript.unpaired)
          })

          it('synthesizes records for messages without a source that read back to the same parts', async () => {
            const transcript = withoutSource(await readText(format, fixture.name, fixture.text))
            const again = await readText(format, `${fixture.name} (synthesized)`, format.write!(transcript))
            expect(flatParts(again.messages, toolErrors)).toEqual(flatParts(transcript.messages, toolErrors))
          })
        }

        if (format.append) {
          const append = format.append.bind(format)
          it('appends messages that read back to the same parts', async () => {
            const transcript = withoutSource(await readText(format, fixture.name, fixture.text))
            const appended = append(transcript.messages)
            const again = await readText(format, `${fixture.name} (appended)`, appended)
            expect(flatParts(again.messages, toolErrors)).toEqual(flatParts(transcript.messages, toolErrors))
          })
        }

        if (malformed) {
          const located = new RegExp(`^${escapeRegExp(fixture.name)}:\\d+`)
          it('fails on cut inputs with file:line, never a TypeError', async () => {
            const points = cutPoints(fixture.text)
            expect(points.length).toBeGreaterThan(0)
            for (const point of points) {
              const error = await readError(readText(format, fixture.name, fixture.text.slice(0, point)))
              expect(FloorguardError.is(error) && error.code === 'invalid-input', `cut at ${point}: ${String(error)}`).toBe(true)
              expect((error as Error).message, `cut at ${point}`).toMatch(located)
            }
          })

          it('fails on a flipped brace with file:line', async () => {
            const index = fixture.text.search(/[{[]/)
            expect(index).toBeGreaterThanOrEqual(0)
            const flipped = fixture.text.slice(0, index) + (fixture.text[index] === '{' ? '}' : ']') + fixture.text.slice(index + 1)
            const error = await readError(readText(format, fixture.name, flipped))
            expect(FloorguardError.is(error) && error.code === 'invalid-input', String(error)).toBe(true)
            expect((error as Error).message).toMatch(located)
          })

          it('refuses hostile nesting with a clear error', async () => {
            const deep = format.layout === 'lines' ? `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}\n` : `${'['.repeat(5000)}${']'.repeat(5000)}`
            const error = await readError(readText(format, fixture.name, deep))
            expect(FloorguardError.is(error) && error.code === 'invalid-input', String(error)).toBe(true)
            expect((error as Error).message.startsWith(fixture.name)).toBe(true)
          })

          if (format.layout === 'lines') {
            it('reports a cut last line, and skips it only when lenient', async () => {
              const body = fixture.text.replace(/\n+$/, '')
              const lastStart = body.lastIndexOf('\n') + 1
              const lastLine = body.split('\n').length
              const cut = body.slice(0, lastStart + Math.max(1, Math.floor((body.length - lastStart) / 2)))
              const error = await readError(readText(format, fixture.name, cut))
              expect(FloorguardError.is(error) && error.code === 'invalid-input', String(error)).toBe(true)
              expect((error as Error).message).toMatch(new RegExp(`^${escapeRegExp(fixture.name)}:${lastLine}\\b`))
              const lenient = await readText(format, fixture.name, cut, { lenient: true })
              expect(lenient.warnings?.length ?? 0).toBeGreaterThan(0)
            })
          }
        }

        if (mutations > 0) {
          it(`reads or refuses ${mutations} random corruptions, never crashing`, async () => {
            const next = random(fixture.text.length * 31 + fixture.name.length)
            for (let run = 0; run < mutations; run++) {
              const text = mutate(fixture.text, next)
              const error = await readError(readText(format, fixture.name, text))
              if (error !== undefined) expect(FloorguardError.is(error), `mutation ${run}: ${String(error)}`).toBe(true)
            }
          })
        }
      })
    }
  })
}

import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { detectFormat } from '../registry.js'
import { sourceFromString } from '../source.js'
import { detectGemini, geminiFormat } from './gemini.js'

const fixtures = new URL('./__fixtures__/', import.meta.url)
const fixture = (name: string): string => readFileSync(new URL(`gemini/${name}`, fixtures), 'utf8')
const read = (text: string, name = 'request.json'): Promise<Transcript> => geminiFormat.read(sourceFromString(name, text))
const kinds = (transcript: Transcript) => transcript.messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)

testTranscriptFormat({
  format: geminiFormat,
  fixtures: [
    { name: 'request-tools.json', text: fixture('request-tools.json'), expect: { messages: 8, toolCalls: 3, toolResults: 3, unpaired: 0 } },
    { name: 'checkpoint.json', text: fixture('checkpoint.json'), expect: { messages: 8, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    { name: 'snake-case.json', text: fixture('snake-case.json'), expect: { messages: 6, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('gemini format', () => {
  it('reads a generateContent request: system instruction, roles, thoughts, media, and responses paired by name in order', async () => {
    const transcript = await read(fixture('request-tools.json'))
    expect(kinds(transcript)).toEqual([
      'system:text',
      'user:text',
      'assistant:reasoning+tool-call+tool-call',
      'tool:tool-result+tool-result',
      'assistant:text+tool-call',
      'tool:tool-result',
      'assistant:text',
      'user:text+text',
    ])
    expect(transcript.messages[0]!.parts).toEqual([{ type: 'text', text: 'You are a build assistant. Never push to main; open a pull request instead.' }])
    expect(transcript.messages[0]!.provenance).toEqual({ pointer: '/systemInstruction' })
    const [, first, second] = transcript.messages[2]!.parts
    expect(first).toEqual({ type: 'tool-call', id: 'functionCall:/contents/1/parts/1', name: 'read_file', arguments: { path: 'logs/nightly-2026-11-30.log' } })
    expect(second).toMatchObject({ id: 'functionCall:/contents/1/parts/2' })
    // Two calls of one name, answered in order: the log's response goes to the log's call.
    expect(transcript.messages[3]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'functionCall:/contents/1/parts/1', name: 'read_file', isError: false })
    expect((transcript.messages[3]!.parts[0] as { content: string }).content).toContain('psycopg.OperationalError')
    expect(transcript.messages[3]!.parts[1]).toMatchObject({ callId: 'functionCall:/contents/1/parts/2' })
    expect(transcript.messages[5]!.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'functionCall:/contents/3/parts/1',
      name: 'edit_file',
      content: 'config/ingest-worker.yaml is read-only (mode 0444)',
      isError: true,
    })
    expect(transcript.messages[7]!.parts[1]).toEqual({ type: 'text', text: '[image]' })
  })

  it('reads a Gemini CLI checkpoint: call ids, its compression summary, and `history` written back in place', async () => {
    const transcript = await read(fixture('checkpoint.json'), 'checkpoint-billing.json')
    expect(transcript.pairs.map((pair) => pair.id)).toEqual(['run_shell_command-1764512000123-7f3a', 'replace-1764512040456-2b9c'])
    expect(transcript.envelope).toMatchObject({ kind: 'object', key: 'history' })
    const snapshot = JSON.stringify([{ role: 'user', parts: [{ text: '<state_snapshot>\n<key_knowledge>billing/vat.py strips " %"</key_knowledge>\n</state_snapshot>' }] }])
    const compressed = await read(snapshot, 'checkpoint-after.json')
    expect(compressed.messages[0]!.parts[0]).toMatchObject({ type: 'summary', source: 'gemini-cli' })
  })

  it('reads snake_case keys, the older `function` role and code execution, and writes new parts in that style', async () => {
    const transcript = await read(fixture('snake-case.json'), 'history.json')
    expect(kinds(transcript)).toEqual(['user:text+text', 'assistant:tool-call+tool-result+text', 'user:text', 'assistant:tool-call', 'tool:tool-result', 'assistant:text+text'])
    expect(transcript.messages[0]!.parts[1]).toEqual({ type: 'text', text: '[file: https://generativelanguage.googleapis.com/v1beta/files/8k2mq0x1]' })
    expect(transcript.messages[1]!.parts[0]).toMatchObject({ type: 'tool-call', name: 'code_execution', arguments: { language: 'PYTHON' } })
    expect(transcript.messages[1]!.parts[1]).toMatchObject({ type: 'tool-result', callId: (transcript.messages[1]!.parts[0] as { id: string }).id, isError: false })
    expect(transcript.messages[4]!.parts[0]).toMatchObject({ content: '{"rate":1.0842,"source":"ECB"}', isError: false })
    const summary: Message = { role: 'user', parts: [{ type: 'summary', text: 'Best month: 2026-07, 184213.40.', source: 'floorguard' }] }
    const edited: Message = { role: 'assistant', parts: [{ type: 'tool-call', id: 'functionCall:/3/parts/0', name: 'get_exchange_rate', arguments: { date: '2026-07-31' } }] }
    const written = JSON.parse(geminiFormat.write!({ ...transcript, messages: [summary, edited, ...transcript.messages.slice(4)] }))
    const original = JSON.parse(fixture('snake-case.json'))
    expect(written).toEqual([
      { role: 'user', parts: [{ text: 'Best month: 2026-07, 184213.40.' }] },
      // A made-up id is not written; the key keeps the document's style.
      { role: 'model', parts: [{ function_call: { name: 'get_exchange_rate', args: { date: '2026-07-31' } } }] },
      original[4],
      original[5],
    ])
  })

  it('writes a new system instruction and results whose call was compacted away', async () => {
    const transcript = await read(fixture('request-tools.json'))
    const system: Message = { role: 'system', parts: [{ type: 'text', text: 'Never push to main.' }] }
    const result: Message = { role: 'tool', parts: [{ type: 'tool-result', callId: 'functionCall:/contents/3/parts/1', content: 'read-only', isError: true }] }
    const written = JSON.parse(geminiFormat.write!({ ...transcript, messages: [system, ...transcript.messages.slice(1, 5), result] }))
    expect(written.systemInstruction).toEqual({ parts: [{ text: 'Never push to main.' }] })
    // The name comes from the call the result answers.
    expect(written.contents[4]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'edit_file', response: { error: 'read-only' } } }] })
    expect(written.generationConfig).toEqual(JSON.parse(fixture('request-tools.json')).generationConfig)
  })

  it('reads the response shapes tools write: error, output, result, MCP text blocks, anything else as JSON', async () => {
    const response = (value: unknown) => ({ role: 'user', parts: [{ functionResponse: { name: 'f', response: value } }] })
    const transcript = await read(
      JSON.stringify([
        { role: 'model', parts: Array.from({ length: 6 }, () => ({ functionCall: { name: 'f', args: {} } })) },
        response({ error: 'EACCES: permission denied, open \'/etc/app.conf\'' }),
        response({ result: 'ok: 3 rows' }),
        response({ name: 'f', content: { content: [{ type: 'text', text: '<title>Example Domain</title>' }, { type: 'image', data: 'x' }], isError: false } }),
        response({ content: [{ type: 'text', text: 'rate limited' }], isError: true }),
        response({ rows: [1, 2] }),
        response({ error: { code: 404 } }),
      ]),
    )
    const results = transcript.messages.slice(1).map((message) => message.parts[0] as { content: string; isError: boolean })
    expect(results.map(({ content, isError }) => [content, isError])).toEqual([
      ["EACCES: permission denied, open '/etc/app.conf'", true],
      ['ok: 3 rows', false],
      ['<title>Example Domain</title>\n[image]', false],
      ['rate limited', true],
      ['{"rows":[1,2]}', false],
      ['{"error":{"code":404}}', true],
    ])
    expect(transcript.unpaired).toEqual([])
  })

  it('keeps a content of another role aside, and reads an unknown part kind as a placeholder with a warning', async () => {
    const text = JSON.stringify({
      contents: [
        { role: 'system', parts: [{ text: 'be brief' }] },
        { role: 'user', parts: [{ text: 'hi' }, { toolCall: { name: 'x' } }] },
      ],
    })
    const transcript = await read(text)
    expect(kinds(transcript)).toEqual(['user:text+text'])
    expect(transcript.messages[0]!.parts[1]).toEqual({ type: 'text', text: '[toolCall]' })
    expect(transcript.warnings).toEqual([
      'request.json: /contents/0: role "system" is not a Gemini API role (user, model, function; a system prompt goes in `systemInstruction`); the item is kept as it is, outside every summary, and not read as a message',
      'request.json: 1 part of an unknown kind ("toolCall") read as "[toolCall]"',
    ])
    expect(JSON.parse(geminiFormat.write!(transcript))).toEqual(JSON.parse(text))
  })

  it('reads one Content or one Part where the API takes a list of one (Google\'s REST cookbook sends them so)', async () => {
    const single = JSON.stringify({
      system_instruction: { parts: { text: 'You are a cat. Your name is Neko.' } },
      contents: { parts: { text: 'Hello there' } },
    })
    expect(detectFormat(single, 'request.json').name).toBe('gemini')
    const transcript = await read(single)
    expect(kinds(transcript)).toEqual(['system:text', 'user:text'])
    expect(transcript.messages[1]!.parts).toEqual([{ type: 'text', text: 'Hello there' }])
    // Written back as lists, which the API also takes.
    const written = JSON.parse(geminiFormat.write!(transcript))
    expect(written.contents).toEqual([{ parts: { text: 'Hello there' } }])
    expect(written.system_instruction).toEqual({ parts: { text: 'You are a cat. Your name is Neko.' } })
  })

  it('names the field and the expectation on a wrong shape', async () => {
    await expect(read('{"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]}')).rejects.toThrow('request.json: /contents/0/parts/0/functionCall/name: expected a string, got undefined')
    await expect(read('{"contents":[{"role":42,"parts":[]}]}')).rejects.toThrow('/contents/0/role: expected role "user", "model" or "function", got number')
    await expect(read('{"contents":[{"role":"user","parts":[{}]}]}')).rejects.toThrow('/contents/0/parts/0: expected a part with text, functionCall')
    await expect(read('{"contents":{}}')).rejects.toThrow('request.json: /contents: expected an array, got object')
  })

  it('is what `auto` picks for its fixtures, and claims no other format\'s fixture', () => {
    for (const name of ['request-tools.json', 'checkpoint.json', 'snake-case.json']) expect(detectFormat(fixture(name), name).name, name).toBe('gemini')
    const others: string[] = []
    for (const directory of readdirSync(fixtures, { withFileTypes: true })) {
      if (!directory.isDirectory() || directory.name === 'gemini') continue
      for (const name of readdirSync(new URL(`${directory.name}/`, fixtures))) {
        const score = detectGemini(readFileSync(new URL(`${directory.name}/${name}`, fixtures), 'utf8').slice(0, 64 * 1024))
        if (score > 0) others.push(`${directory.name}/${name}: ${score}`)
      }
    }
    expect(others).toEqual([])
    // An AI SDK UI message has typed parts; a Chat Completions message has content.
    expect(detectGemini('[{"role":"user","parts":[{"type":"text","text":"hi"}]}]')).toBe(0)
    expect(detectGemini('[{"role":"user","content":"hi","parts":[{"text":"hi"}]}]')).toBe(0)
    expect(detectGemini('[{"role":"user","parts":[{"text":"hi"}]}]')).toBe(0.8)
    // pydantic-ai's message history: parts without a role, of kinds of its own.
    expect(detectGemini('[{"parts":[{"content":"Where is the secret plan?","part_kind":"user-prompt"}],"kind":"request"}]')).toBe(0)
  })
})

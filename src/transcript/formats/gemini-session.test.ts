import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { readTranscript } from '../read.js'
import { scoreFormats } from '../registry.js'
import { sourceFromString } from '../source.js'
import { geminiSessionFormat } from './gemini-session.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/gemini-session/${name}`, import.meta.url), 'utf8')
const read = (text: string, lenient = false): Promise<Transcript> => geminiSessionFormat.read(sourceFromString('session.jsonl', text), { lenient })
const shape = (messages: readonly Message[]) => messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)
const content = (messages: readonly Message[]) => messages.map(({ role, parts }) => ({ role, parts }))
const line = (value: unknown) => JSON.stringify(value)
const META = line({ sessionId: 's-1', projectHash: 'abc123', startTime: '2026-04-10T10:00:00Z', lastUpdated: '2026-04-10T10:00:00Z', kind: 'main' })

testTranscriptFormat({
  format: geminiSessionFormat,
  fixtures: [
    { name: 'session.json', text: fixture('session.json'), expect: { messages: 7, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    { name: 'session.jsonl', text: fixture('session.jsonl'), expect: { messages: 7, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('gemini-session format', () => {
  it('reads the document and the JSONL recording of one session into the same messages, notices left out and counted', async () => {
    const document = await read(fixture('session.json'))
    const jsonl = await read(fixture('session.jsonl'))
    expect(content(jsonl.messages)).toEqual(content(document.messages))
    expect(shape(document.messages)).toEqual(['user:text', 'assistant:reasoning+tool-call', 'tool:tool-result', 'assistant:text+tool-call', 'tool:tool-result', 'user:text', 'assistant:text'])
    expect(document.messages[4]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'run_shell_command_1773786260000_0', isError: true })
    expect((document.messages[4]!.parts[0] as { content: string }).content).toBe("chgrp: changing group of '/var/lib/export': Operation not permitted")
    expect(document.envelope).toMatchObject({ skipped: { info: 1 }, session: { sessionId: '5b1f0c2e-7d3a-4c55-9a0e-2f1b8c6d4e10' } })
    expect(document.messages[2]!.provenance).toEqual({ pointer: '/messages/1' })
    // The re-appended copy of message 2 (line 4) holds its call: it replaced the first copy, in the first copy's place.
    expect(jsonl.messages[1]!.provenance).toEqual({ line: 3 })
  })

  it('follows $rewindTo and a $set of the messages, and reads a <state_snapshot> as Gemini\'s summary', async () => {
    const text = [
      META,
      line({ id: 'a', type: 'user', content: 'first' }),
      line({ id: 'b', type: 'user', content: 'second' }),
      line({ id: 'c', type: 'gemini', content: 'reply' }),
      line({ $rewindTo: 'b' }),
      line({ id: 'd', type: 'user', content: 'edited second' }),
    ].join('\n')
    expect((await read(text)).messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['first', 'edited second'])
    const unknown = await read(`${text}\n${line({ $rewindTo: 'nowhere' })}\n${line({ id: 'e', type: 'user', content: 'fresh' })}`)
    expect(unknown.messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['fresh'])
    const compressed = [
      META,
      line({ id: 'a', type: 'user', content: 'old turn' }),
      line({ $set: { messages: [{ id: 'x', type: 'user', content: [{ text: '<state_snapshot>\n<key_knowledge>port 5432</key_knowledge>\n</state_snapshot>' }] }, { id: 'y', type: 'gemini', content: 'Got it. Thanks for the additional context!' }] } }),
      line({ id: 'z', type: 'user', content: 'next' }),
    ].join('\n')
    const after = await read(compressed)
    expect(shape(after.messages)).toEqual(['user:summary', 'assistant:text', 'user:text'])
    expect(after.messages[0]!.parts[0]).toMatchObject({ type: 'summary', source: 'gemini-cli' })
  })

  it('reads calls from content when it holds functionCall parts, and each result once (v0.44 records tool responses as user messages)', async () => {
    const call = { id: 'read_file_1_0', name: 'read_file', args: { path: 'src/app.ts' } }
    const response = { functionResponse: { id: call.id, name: call.name, response: { output: 'export const port = 8080' } } }
    const text = [
      META,
      line({ id: 'u', type: 'user', content: [{ text: 'Read src/app.ts' }] }),
      line({ id: 'g', type: 'gemini', content: [{ text: 'Planning.', thought: true }, { text: 'Reading it.' }, { functionCall: call }], toolCalls: [{ ...call, result: [response], status: 'success' }] }),
      line({ id: 'r', type: 'user', content: [response] }),
      line({ id: 'r2', type: 'user', content: [{ functionResponse: { id: 'other_2', name: 'ls', response: { error: 'ENOENT' } } }] }),
    ].join('\n')
    const transcript = await read(text)
    expect(shape(transcript.messages)).toEqual(['user:text', 'assistant:reasoning+text+tool-call', 'tool:tool-result', 'tool:tool-result'])
    expect(transcript.messages[2]!.parts[0]).toMatchObject({ callId: call.id, content: 'export const port = 8080', isError: false })
    expect(transcript.messages[3]!.parts[0]).toMatchObject({ callId: 'other_2', isError: true })
    expect(transcript.pairs).toHaveLength(1)
  })

  it('names the line of a record that is not one, and skips it with --lenient', async () => {
    const text = `${META}\n${line({ id: 'a', type: 'user', content: 'hi' })}\n{"id":"b","type":"gem`
    await expect(read(text)).rejects.toThrow(/^session\.jsonl:3: expected a Gemini CLI session record .*--lenient/)
    const lenient = await read(text, true)
    expect(lenient.messages).toHaveLength(1)
    expect(lenient.warnings).toEqual(['session.jsonl:3: skipped a line that is not a session record'])
    await expect(geminiSessionFormat.read(sourceFromString('s.json', '{\n  "sessionId": "s", "projectHash": "p", "messages": 3\n}'))).rejects.toThrow(/s\.json: \/messages: expected a Gemini CLI session object with a `messages` array/)
  })

  it('is detected from either form, and never from a message array or Gemini CLI\'s stream-json', () => {
    const best = (head: string) => scoreFormats(head).filter((score) => score.score > 0.5).map((score) => score.name)
    expect(best(fixture('session.json'))).toEqual(['gemini-session'])
    expect(best(fixture('session.jsonl'))).toEqual(['gemini-session'])
    expect(best(line({ messages: [{ role: 'user', content: 'hi' }] }))).not.toContain('gemini-session')
    expect(best(line({ type: 'init', timestamp: '2026-04-10T10:00:00Z', session_id: 's-1', model: 'gemini-2.5-pro' }))).not.toContain('gemini-session')
    // A re-test: a chat export with session keys of its own was taken for a recording and read as 0 messages.
    const chat = line({ sessionId: 's-1', projectHash: 'p', startTime: 't', messages: [{ role: 'user', content: 'Fix the parser.' }] })
    expect(best(chat)).not.toContain('gemini-session')
  })

  it('refuses a message without a type instead of dropping it, and warns of types it does not know', async () => {
    const chat = line({ sessionId: 's-1', projectHash: 'p', startTime: 't', messages: [{ role: 'user', content: 'Fix the parser.' }] })
    await expect(geminiSessionFormat.read(sourceFromString('chat.json', chat))).rejects.toThrow(/chat\.json: \/messages\/0: expected a Gemini CLI message record with a "type", got an object without one \(a `role`/)
    const odd = await read([META, line({ id: 'a', type: 'user', content: 'hi' }), line({ id: 'b', type: 'plan', content: 'x' }), line({ id: 'c', type: 'info', content: 'Saved.' })].join('\n'))
    expect(odd.messages).toHaveLength(1)
    expect(odd.warnings).toEqual(['session.jsonl: line 3: skipped a record of a type that is neither a message (user, gemini) nor a notice (info, error, warning)'])
  })

  it('reads a metadata record anywhere as metadata, merged as Gemini CLI merges it (its a2a-server appends one per start)', async () => {
    // A black-box re-test: a second {sessionId, projectHash, …} line (line 3) failed as "expected a Gemini CLI message record".
    const restart = line({ sessionId: 's-1', projectHash: 'abc123', startTime: '2026-04-10T11:00:00Z', lastUpdated: '2026-04-10T11:00:00Z', kind: 'main' })
    const text = [
      META,
      line({ $set: { messages: [{ id: 'a', type: 'user', content: 'first' }], lastUpdated: '2026-04-10T10:01:00Z' } }),
      restart,
      line({ $set: { messages: [{ id: 'a', type: 'user', content: 'first' }, { id: 'b', type: 'gemini', content: 'reply' }], lastUpdated: '2026-04-10T11:01:00Z' } }),
      line({ id: 'c', type: 'user', content: 'next' }),
      restart,
    ].join('\n')
    const transcript = await read(text)
    expect(transcript.messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['first', 'reply', 'next'])
    // Later records win, $set fields included, as in Gemini CLI's loadConversationRecord.
    expect((transcript.envelope as { session: unknown }).session).toEqual({ sessionId: 's-1', projectHash: 'abc123', startTime: '2026-04-10T11:00:00Z', lastUpdated: '2026-04-10T11:00:00Z', kind: 'main' })
    // A record with a sessionId that is not a session's metadata (no projectHash) is still refused.
    await expect(read(`${META}\n${line({ sessionId: 's-2' })}`)).rejects.toThrow(/^session\.jsonl:2: expected a Gemini CLI message record/)
  })

  it('is detected from what the head holds: metadata, then a $set of the messages or a record the head cuts', async () => {
    // A black-box re-test: the a2a-server's second record, a 72 KB `$set` of the messages, is longer than the 64 KiB
    // head, and nothing claimed the file; a complete `$set` line after the metadata was not claimed either.
    const best = (head: string) => scoreFormats(head).filter((score) => score.score > 0.5).map((score) => score.name)
    const set = line({ $set: { messages: [{ id: 'a', type: 'user', content: [{ text: 'x'.repeat(80_000) }] }], lastUpdated: 't' } })
    expect(best(`${META}\n${set}\n`)).toEqual(['gemini-session'])
    expect(best(`${META}\n${set.slice(0, 65_000)}`)).toEqual(['gemini-session'])
    expect(best(`${META}\n${line({ id: 'a', timestamp: '2026-04-10T10:00:01Z', type: 'user', content: 'hi' }).slice(0, 20)}`)).toEqual(['gemini-session'])
    expect(best(`${META}\n${line({ $rewindTo: 'a' })}\n${META}\n${line({ id: 'a', type: 'user', content: 'hi' })}\n`)).toEqual(['gemini-session'])
    // What the head holds still refutes it: a message with a role, in a $set or on its own line.
    expect(best(`${META}\n${line({ $set: { messages: [{ role: 'user', content: 'hi' }] } })}\n`)).not.toContain('gemini-session')
    expect(best(`${META}\n${line({ id: 'a', role: 'user', content: 'hi' })}\n`)).not.toContain('gemini-session')
    expect(best(`${META}\n${line({ id: 'a', content: 'hi' })}\n`)).not.toContain('gemini-session')
    // End to end, through the 64 KiB head of a whole file.
    const transcript = await readTranscript(sourceFromString('session.jsonl', `${META}\n${set}\n${line({ id: 'b', type: 'gemini', content: 'ok' })}\n`))
    expect([transcript.format, shape(transcript.messages)]).toEqual(['gemini-session', ['user:text', 'assistant:text']])
  })

  it('takes an empty $set of the messages for no replacement, as Gemini CLI does', async () => {
    const text = [META, line({ id: 'a', type: 'user', content: 'first' }), line({ $set: { messages: [], lastUpdated: 't' } }), line({ id: 'b', type: 'gemini', content: 'reply' })].join('\n')
    expect(shape((await read(text)).messages)).toEqual(['user:text', 'assistant:text'])
  })
})

describe('--format gemini-session on another tool’s JSONL (a re-test: a Claude Code log read as 132 empty messages, one warning per record)', () => {
  // Hand-made records in the shape of a Claude Code log: `type` user/assistant, the text under `message`.
  const claudeCode = [
    line({ parentUuid: null, sessionId: 's', type: 'user', message: { role: 'user', content: 'load claude.md' }, uuid: 'u1' }),
    line({ type: 'summary', summary: 'Loading failure', leafUuid: 'u1' }),
    line({ parentUuid: 'u1', sessionId: 's', type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, uuid: 'u2' }),
  ].join('\n')

  it('is refused in one line, strict or lenient, naming what the file looks like', async () => {
    const expected = 'session.jsonl:1: expected Gemini CLI session records (session metadata, or messages typed user, gemini, info, error or warning with their `content`), got none in 3 records (the file looks like a Claude Code session log?)'
    await expect(read(claudeCode)).rejects.toThrow(expected)
    await expect(read(claudeCode, true)).rejects.toThrow(expected)
  })

  it('never reads a `user` record without `content` as an empty message: an error, or skipped with a warning under --lenient', async () => {
    const text = [
      META,
      line({ id: 'a', type: 'user', content: 'hi' }),
      line({ id: 'b', type: 'user', message: { content: 'elsewhere' } }),
      line({ id: 'c', type: 'gemini', content: 'hello' }),
      line({ id: 'd', type: 'gemini', message: { content: 'elsewhere' } }),
    ].join('\n')
    await expect(read(text)).rejects.toThrow('session.jsonl:3: expected a Gemini CLI user record with `content`; --lenient skips such lines and reports them')
    const lenient = await read(text, true)
    expect(content(lenient.messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'hello' }] },
    ])
    expect(lenient.warnings).toEqual(['session.jsonl:3: skipped a user record without `content`', 'session.jsonl:5: skipped a gemini record without `content`'])
    const document = JSON.stringify({ sessionId: 's', projectHash: 'p', messages: [{ id: 'a', type: 'gemini', text: 'x' }] })
    await expect(geminiSessionFormat.read(sourceFromString('s.json', document))).rejects.toThrow('s.json: /messages/0: expected a Gemini CLI gemini record with `content`')
  })

  it('reports every record of an unknown type it skipped, each with its line (the CLI sums up past three of a kind)', async () => {
    const odd = Array.from({ length: 10 }, (_, index) => line({ id: `p${index}`, type: 'plan', content: 'x' }))
    const transcript = await read([META, line({ id: 'a', type: 'user', content: 'hi' }), ...odd].join('\n'))
    const kind = 'skipped a record of a type that is neither a message (user, gemini) nor a notice (info, error, warning)'
    expect(transcript.warnings).toEqual(Array.from({ length: 10 }, (_, index) => `session.jsonl: line ${index + 3}: ${kind}`))
  })
})

describe('parallel calls of a new session (a re-test on a real gemini-3-flash-preview recording, 2026-06)', () => {
  // Each of N parallel `toolCalls[].result` holds all N functionResponses, each with its call's id; the thought is
  // both a `thought: true` content part and Gemini CLI's `thoughts[]` parse of it (subject, description).
  const calls = [
    { id: 'update_topic__update_topic_1_0', name: 'update_topic', args: { title: 'Errors' } },
    { id: 'read_file__read_file_2_1', name: 'read_file', args: { file_path: 'requirements.txt' } },
    { id: 'run_shell_command__run_shell_command_3_2', name: 'run_shell_command', args: { command: 'pip list' } },
  ]
  const outputs = ['Current topic: "Errors"', 'flask==3.1.3', 'Output: pip 25.2']
  const responses = calls.map((call, index) => ({ functionResponse: { id: call.id, name: call.name, response: { output: outputs[index] } } }))
  const record = {
    id: 'g',
    type: 'gemini',
    content: [{ text: '**Analyzing User Errors** I am reading the traceback.', thought: true }, ...calls.map((call) => ({ functionCall: call }))],
    thoughts: [{ subject: 'Analyzing User Errors', description: 'I am reading the traceback.', timestamp: '2026-06-12T04:17:07.158Z' }],
    toolCalls: calls.map((call) => ({ ...call, result: responses, status: 'success' })),
  }
  const text = [META, line({ id: 'u', type: 'user', content: [{ text: 'explain the error' }] }), line(record)].join('\n')

  it('gives each call only the functionResponse with its own id', async () => {
    const transcript = await read(text)
    const results = transcript.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool-result')
    expect(results.map((part) => [part.callId, part.content])).toEqual(calls.map((call, index) => [call.id, outputs[index]]))
    expect(transcript.pairs).toHaveLength(3)
  })

  it('reads a thought once when it is both a thought part and an entry of thoughts[]', async () => {
    const transcript = await read(text)
    const reasoning = transcript.messages.flatMap((message) => message.parts).filter((part) => part.type === 'reasoning')
    expect(reasoning).toEqual([{ type: 'reasoning', text: '**Analyzing User Errors** I am reading the traceback.' }])
  })

  it('still takes the whole result when no functionResponse carries the call’s id, and thoughts[] when content has no thought part', async () => {
    const old = { ...record, content: '', toolCalls: [{ ...calls[0], result: [{ functionResponse: { name: 'update_topic', response: { output: 'done' } } }], status: 'success' }] }
    const transcript = await read([META, line(old)].join('\n'))
    const parts = transcript.messages.flatMap((message) => message.parts)
    expect(parts.find((part) => part.type === 'tool-result')).toMatchObject({ callId: calls[0]!.id, content: 'done' })
    expect(parts.filter((part) => part.type === 'reasoning')).toEqual([{ type: 'reasoning', text: 'Analyzing User Errors: I am reading the traceback.' }])
  })
})

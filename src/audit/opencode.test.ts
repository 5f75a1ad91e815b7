import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { auditFile, makeTools } from '../cli/commands/_audit-worker.js'
import { isOpenCodeStorageRoot, readOpenCodeStorageSession, type OpenCodeStoredMessage } from './opencode.js'

// The fixture `__fixtures__/opencode-storage/storage` is a synthetic OpenCode JSON storage directory. Its layout and
// shapes follow upstream anomalyco/opencode (formerly sst/opencode), packages/opencode/src, as checked there:
// - storage/json-migration.ts (062aa8c): the directories `project`, `session`, `message`, `part` (plus `todo`,
//   `permission`, `session_share`); a session is session/<projectID>/<sessionID>.json, a message
//   message/<sessionID>/<messageID>.json, a part part/<messageID>/<partID>.json, every id taken from the path;
// - storage/storage.ts: files written with JSON.stringify(value, null, 2) (no final newline), keys listed sorted, a
//   `migration` file holding the migration count, and `session_diff/<sessionID>.json` written by migration 2;
// - session/message-v2.ts: message infos (user: time, agent, model; assistant: parentID, modelID, providerID, mode,
//   agent, path, cost, tokens, summary?, finish?) and parts (text, step-start, step-finish, tool with callID, tool and
//   state {status, input, output | error, time}, compaction {auto}); parts and messages in id order; ids
//   `prefix_` + 12 hex digits of time + 14 base62 characters, ascending for messages and parts;
// - session/compaction.ts: a compaction is a user message holding a `compaction` part, then an assistant message with
//   summary: true, mode and agent "compaction", whose text part is the summary.
// The ids, paths and texts are made up.
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'opencode-storage', 'storage')
const PROJECT = '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750'
const SESSION = 'ses_637d33ffffffJq8ZKd2mVt4rYw'

/** The session's files, read here directly from the fixture (not through the CLI's reader). */
function stored(root: string, session: string): OpenCodeStoredMessage[] {
  const names = (directory: string) => readdirSync(directory).filter((name) => name.endsWith('.json')).sort()
  return names(join(root, 'message', session)).map((name) => {
    const id = name.replace(/\.json$/, '')
    const file = join(root, 'message', session, name)
    const partDirectory = join(root, 'part', id)
    return {
      message: { file: relative(root, file), text: readFileSync(file, 'utf8') },
      parts: names(partDirectory).map((part) => ({ file: relative(root, join(partDirectory, part)), text: readFileSync(join(partDirectory, part), 'utf8') })),
    }
  })
}

const temporary: string[] = []
afterAll(() => {
  for (const directory of temporary) rmSync(directory, { recursive: true, force: true })
})

describe('OpenCode storage directory', () => {
  it('is recognized by its session, message and part directories', () => {
    expect(isOpenCodeStorageRoot(readdirSync(FIXTURE))).toBe(true)
    expect(isOpenCodeStorageRoot(['session', 'message'])).toBe(false)
  })

  it('a session reads as its messages in id order: tool calls paired, the compaction summary where the assistant summary was', () => {
    const transcript = readOpenCodeStorageSession(stored(FIXTURE, SESSION))
    expect(transcript.format).toBe('opencode')
    // user; assistant text + bash call; its error result; user; assistant edit call + text; its result; (the
    // compaction request has no text) summary; user; assistant.
    expect(transcript.messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`)).toEqual([
      'user:text',
      'assistant:text+tool-call',
      'tool:tool-result',
      'user:text',
      'assistant:tool-call+text',
      'tool:tool-result',
      'user:summary',
      'user:text',
      'assistant:text',
    ])
    expect(transcript.pairs).toHaveLength(2)
    expect(transcript.messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', isError: true, content: "OSError: [Errno 28] No space left on device: '/var/tmp/upload.bin'" })
    expect(transcript.messages[6]!.parts[0]).toMatchObject({ type: 'summary', source: 'opencode' })
  })

  it('floorguard audit’s worker audits the session: what the summary lost, and where the session used it again', async () => {
    const tools = await makeTools()
    const sessionFile = join(FIXTURE, 'session', PROJECT, `${SESSION}.json`)
    const result = await auditFile(
      { id: 0, open: sessionFile, file: `storage/session/${PROJECT}/${SESSION}.json`, explicit: false, opencode: { root: FIXTURE, reportRoot: 'storage', session: SESSION } },
      { slot: 2000, lenient: false, format: 'auto' },
      tools,
    )
    if (result.kind !== 'audit') throw new Error(`expected an audit, got ${JSON.stringify(result)}`)
    const { audit } = result
    expect(audit).toMatchObject({ format: 'opencode', messages: 9 })
    // Every file of the session counted: the session file, its 8 message files and their 14 part files.
    const files = [sessionFile, ...readdirSync(join(FIXTURE, 'message', SESSION)).map((name) => join(FIXTURE, 'message', SESSION, name))]
    for (const name of readdirSync(join(FIXTURE, 'message', SESSION))) {
      const partDirectory = join(FIXTURE, 'part', name.replace(/\.json$/, ''))
      for (const part of readdirSync(partDirectory)) files.push(join(partDirectory, part))
    }
    expect(files).toHaveLength(1 + 8 + 14)
    expect(audit.bytes).toBe(files.reduce((sum, file) => sum + readFileSync(file).length, 0))
    expect(audit.summaries).toHaveLength(1)
    const [summary] = audit.summaries
    expect(summary).toMatchObject({ message: 6, replaced: [0, 6], source: 'opencode', counterfactual: true })
    const lost = new Map(summary!.lost.map((item) => [item.text, item.usedAgainAt]))
    // The next user message (7) names the error's file, the pin and the directory the summary dropped.
    expect(lost.get('requests==2.31.0')).toBe(7)
    expect([...lost.keys()].some((text) => text.includes('/var/tmp/upload.bin'))).toBe(true)
    expect([...lost.keys()].some((text) => text.includes('^[a-z0-9/_-]+$'))).toBe(true)
    expect(summary!.counterfactualReasons).toEqual(expect.arrayContaining(['constraint', 'error']))
  })

  it('a bad part file: one line naming that file', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'floorguard-opencode-'))
    temporary.push(copy)
    cpSync(FIXTURE, join(copy, 'storage'), { recursive: true })
    const root = join(copy, 'storage')
    const message = readdirSync(join(root, 'message', SESSION)).sort()[1]!.replace(/\.json$/, '')
    const part = readdirSync(join(root, 'part', message)).sort()[2]!
    writeFileSync(join(root, 'part', message, part), '{"id": "prt_x", "type": "tool", "tool": "bash"')
    const result = await auditFile(
      { id: 0, open: join(root, 'session', PROJECT, `${SESSION}.json`), file: `storage/session/${PROJECT}/${SESSION}.json`, explicit: false, opencode: { root, reportRoot: 'storage', session: SESSION } },
      { slot: 2000, lenient: false, format: 'auto' },
      await makeTools(),
    )
    expect(result).toMatchObject({ kind: 'fail', internal: false })
    if (result.kind !== 'fail') throw new Error('unreachable')
    expect(result.error).toContain(`storage/part/${message}/${part}`)
    expect(result.error).toMatch(/expected an OpenCode part/)
    expect(result.error).not.toContain('\n')
  })
})

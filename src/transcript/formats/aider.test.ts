import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { sourceFromString } from '../source.js'
import { aiderFormat, detectAider } from './aider.js'

const text = readFileSync(new URL('./__fixtures__/aider/chat-history.md', import.meta.url), 'utf8')
const multiLine = readFileSync(new URL('./__fixtures__/aider/multi-line-output.md', import.meta.url), 'utf8')
const read = (name: string, input = text) => aiderFormat.read(sourceFromString(name, input))

testTranscriptFormat({
  format: aiderFormat,
  fixtures: [
    { name: 'chat-history.md', text, expect: { messages: 12, toolCalls: 1, toolResults: 1, unpaired: 0 } },
    { name: 'multi-line-output.md', text: multiLine, expect: { messages: 10, toolCalls: 2, toolResults: 2, unpaired: 0 } },
  ],
})

describe('aider mapping', () => {
  it('splits users, aider notes, model text and reasoning by their prefixes and hard breaks', async () => {
    const transcript = await read('chat-history.md')
    expect(transcript.messages.map((message) => [message.role, message.parts.map((part) => part.type), message.provenance])).toEqual([
      ['system', ['text'], { line: 4, endLine: 8 }],
      ['user', ['text'], { line: 10, endLine: 13 }],
      ['assistant', ['reasoning', 'text'], { line: 15, endLine: 36 }],
      ['system', ['text'], { line: 38, endLine: 40 }],
      ['assistant', ['tool-call'], { line: 41 }],
      ['tool', ['tool-result'], { line: 42, endLine: 45 }],
      ['user', ['text'], { line: 47 }],
      ['assistant', ['text'], { line: 49 }],
      ['system', ['text'], { line: 51 }],
      ['system', ['text'], { line: 55, endLine: 57 }],
      ['user', ['text'], { line: 59 }],
      ['system', ['text'], { line: 61 }],
    ])
    expect(transcript.messages[1]!.parts[0]).toEqual({
      type: 'text',
      text: 'The retry loop in src/sync.ts must stop after exactly 5 attempts.\nNever change MAX_BACKOFF_MS (30000).\n\nAlso run the sync tests afterwards.',
    })
    const reply = transcript.messages[2]!
    expect(reply.parts[0]).toEqual({ type: 'reasoning', text: 'The loop uses `attempt <= 5`, which allows six tries.' })
    // A model `#### ` heading and `> ` quote have no hard break: they stay model text.
    expect((reply.parts[1] as { text: string }).text.startsWith('#### Plan\n\n> The loop starts at 0')).toBe(true)
    expect(transcript.envelope).toEqual({ sessions: [{ line: 2, startedAt: '2026-04-22 22:40:12' }, { line: 53, startedAt: '2026-04-23 09:02:51' }] })
  })

  it('pairs a confirmed shell command with what aider printed about running it', async () => {
    const transcript = await read('chat-history.md')
    expect(transcript.messages[4]!.parts).toEqual([{ type: 'tool-call', id: 'aider-shell-42', name: 'shell', arguments: { command: 'npm test -- sync' } }])
    expect(transcript.messages[5]!.parts).toEqual([
      {
        type: 'tool-result',
        callId: 'aider-shell-42',
        name: 'shell',
        content:
          "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y\nRunning npm test -- sync\nAdd command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y\nAdded 14 lines of output to the chat.",
        isError: false,
      },
    ])
    expect(transcript.pairs).toHaveLength(1)
  })

  it('ends a thinking block that a ^C left open at aider’s next line', async () => {
    const cut = '# aider chat started at 2026-04-22 22:40:47\n\n#### hi  \n\n<thinking-content-ab>\nHere is a plan\n\n> Tokens: 1k sent, 2 received.  \n#### again  \n'
    const transcript = await read('cut.md', cut)
    expect(transcript.messages.map((message) => [message.role, message.parts])).toEqual([
      ['user', [{ type: 'text', text: 'hi' }]],
      ['assistant', [{ type: 'reasoning', text: 'Here is a plan' }]],
      ['system', [{ type: 'text', text: 'Tokens: 1k sent, 2 received.' }]],
      ['user', [{ type: 'text', text: 'again' }]],
    ])
  })

  it('reads aider’s multi-line output (only its first line has `> `) as aider’s, never as the model’s', async () => {
    // Issue 11: aider prefixes only the first line of a multi-line output (a --show-repo-map dump, /tokens, a
    // multi-line shell command) and puts the hard break on its last; the rest was read as assistant prose.
    const transcript = await read('multi-line-output.md', multiLine)
    expect(transcript.messages.map((message) => [message.role, message.parts.map((part) => part.type), message.provenance])).toEqual([
      ['system', ['text'], { line: 4, endLine: 25 }],
      ['user', ['text'], { line: 27 }],
      ['assistant', ['text'], { line: 29, endLine: 37 }],
      ['system', ['text'], { line: 39, endLine: 41 }],
      ['assistant', ['tool-call'], { line: 42, endLine: 43 }],
      ['tool', ['tool-result'], { line: 44, endLine: 47 }],
      ['assistant', ['tool-call'], { line: 48, endLine: 49 }],
      ['tool', ['tool-result'], { line: 50 }],
      ['user', ['text'], { line: 52 }],
      ['system', ['text'], { line: 53, endLine: 59 }],
    ])
    const lines = multiLine.split('\n')
    const repoMap = (transcript.messages[0]!.parts[0] as { text: string }).text
    // The dump's inner lines are kept as written (blank lines too); its last loses only the hard break.
    expect(repoMap.endsWith(`${lines.slice(9, 24).join('\n')}\n${lines[24]!.slice(0, -2)}`)).toBe(true)
    expect(repoMap.startsWith('/home/ada/.local/bin/aider')).toBe(true)
    // A model's Markdown quote stays the model's: no hard-broken plain line closes it before aider speaks again.
    expect((transcript.messages[2]!.parts[0] as { text: string }).text.startsWith('> Jobs are dropped only when')).toBe(true)
    // A padded multi-line shell command: one space after its first line (a block), or more (a continued line).
    expect(transcript.messages[4]!.parts[0]).toMatchObject({ arguments: { command: 'npm run build:wa\nnpm test -- queue' } })
    expect(transcript.messages[6]!.parts[0]).toMatchObject({ arguments: { command: 'npm ci\nnpm test -- queue' } })
    expect((transcript.messages[9]!.parts[0] as { text: string }).text).toBe(lines.slice(52, 59).join('\n').slice(2, -2))
    for (const message of transcript.messages.filter((entry) => entry.role === 'assistant')) {
      for (const part of message.parts) expect(JSON.stringify(part)).not.toMatch(/│|tokens total|Here are summaries/)
    }
  })

  it('reads a `> ` line whose block never closes (end of file, user line) as the model’s quote', async () => {
    const open = '#### hi  \n\n> quoted\nmore text\n'
    expect((await read('open.md', open)).messages.map((message) => [message.role, message.parts])).toEqual([
      ['user', [{ type: 'text', text: 'hi' }]],
      ['assistant', [{ type: 'text', text: '> quoted\nmore text' }]],
    ])
    const beforeUser = '#### hi  \n\n> quoted\n\n#### next  \n'
    expect((await read('user.md', beforeUser)).messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user'])
  })

  it('claims aider histories only', () => {
    expect(detectAider('\n# aider chat started at 2026-04-22 22:40:12\n')).toBe(0.95)
    expect(detectAider('notes\n#### a  \n#### b  \n')).toBe(0.6)
    expect(detectAider('# Title\n\n#### A heading\n\nText\n')).toBe(0)
    expect(detectAider('{"#### x  ":1}')).toBe(0)
  })
})

describe('--format aider on another file (a re-test: a SWE-agent .traj read as one aider reply, exit 0)', () => {
  it('is refused in one line; a history of aider output alone still reads', async () => {
    const traj = '{"trajectory": [{"action": "ls", "observation": "src tests"}], "history": []}\n'
    await expect(aiderFormat.read(sourceFromString('run.traj', traj))).rejects.toThrow(
      'run.traj:1: expected an aider chat history (a `# aider chat started at` header, `#### ` input lines or `> ` aider output), got none of them',
    )
    const output = await aiderFormat.read(sourceFromString('h.md', '> Tokens: 2.1k sent, 120 received.  \n'))
    expect(output.messages).toHaveLength(1)
  })
})

describe('a session header between a suggested command and its answer (a re-test on a real history)', () => {
  // aider writes a command (`confirm_ask`'s subject) before it waits and `Run shell command? … n` after the answer;
  // `# aider chat started at` only when a process starts. A second aider on the same history file wrote its header
  // and banner while the first still waited: the answer that follows the banner is the first process's.
  const banner = [
    '> /opt/aider/bin/aider  ',
    '> Aider v0.83.1  ',
    '> Main model: some/model with whole edit format  ',
    '> Git repo: .git with 3 files  ',
    '> Repo-map: using 4096 tokens, auto refresh  ',
  ]
  const history = (answer: string[]) =>
    [
      '#### fix the script  ',
      '',
      'Done. Run it with `./check.sh`.',
      '',
      '> Tokens: 7.9k sent, 3.3k received.  ',
      '> Applied edit to check.sh  ',
      '> TOKEN=x ./check.sh  ',
      '',
      '# aider chat started at 2025-09-22 14:55:00',
      '',
      ...banner,
      ...answer,
      '',
      '#### next  ',
      '',
    ].join('\n')

  it('keeps the banner the new session’s system text and pairs the answer with the command asked before the header', async () => {
    const transcript = await read('h.md', history(["> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n  ", '> You can use /undo to undo and discard each aider commit.  ']))
    expect(transcript.messages.map((message) => [message.role, message.parts.map((part) => part.type), message.provenance])).toEqual([
      ['user', ['text'], { line: 1 }],
      ['assistant', ['text'], { line: 3 }],
      ['system', ['text'], { line: 5, endLine: 6 }],
      ['assistant', ['tool-call'], { line: 7 }],
      ['system', ['text'], { line: 11, endLine: 15 }],
      ['tool', ['tool-result'], { line: 16, endLine: 17 }],
      ['user', ['text'], { line: 19 }],
    ])
    expect(transcript.messages[3]!.parts[0]).toEqual({ type: 'tool-call', id: 'aider-shell-16', name: 'shell', arguments: { command: 'TOKEN=x ./check.sh' } })
    expect((transcript.messages[4]!.parts[0] as { text: string }).text).toBe(banner.map((line) => line.slice(2, -2)).join('\n'))
    expect(transcript.pairs).toHaveLength(1)
  })

  it('reads a command no answer follows as the end of its session does (an aider note), and the banner as the new session’s', async () => {
    const transcript = await read('h.md', history([]))
    expect(transcript.messages.map((message) => [message.role, message.provenance])).toEqual([
      ['user', { line: 1 }],
      ['assistant', { line: 3 }],
      ['system', { line: 5, endLine: 7 }],
      ['system', { line: 11, endLine: 15 }],
      ['user', { line: 17 }],
    ])
    expect(transcript.pairs).toHaveLength(0)
  })

  it('never takes a banner for a command: an answer that opens a session after no pending command is an aider note', async () => {
    const lone = ['# aider chat started at 2025-09-22 14:55:00', '', ...banner, "> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n  ", ''].join('\n')
    const transcript = await read('h.md', lone)
    expect(transcript.messages.map((message) => message.role)).toEqual(['system'])
    expect(transcript.messages[0]!.provenance).toEqual({ line: 3, endLine: 8 })
    expect(transcript.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool-call')).toEqual([])
  })
})

describe('aider’s own lines between a reply and a `Run shell command?` prompt (a re-test on a real history)', () => {
  // `confirm_ask` writes its subject (the suggested command(s), one `tool_output`: one `>` line, or a multi-line
  // output with `> ` on its first line) right before the prompt; `tool_error` lines written before it (a failed edit)
  // are aider's, not the command.
  const history = (subject: string[]) =>
    [
      '#### reload the proxy  ',
      '',
      'Edit the config, then reload:',
      '',
      '```bash',
      'sudo systemctl reload proxy',
      '```',
      '',
      '> Tokens: 5.4k sent, 435 received.  ',
      "> Unable to write file /srv/proxy/site.conf after 5 attempts: [Errno 13] Permission denied: '/srv/proxy/site.conf'  ",
      "> [Errno 13] Permission denied: '/srv/proxy/site.conf'  ",
      ...subject,
      "> Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]: y  ",
      '> Running sudo systemctl reload proxy  ',
      '',
    ].join('\n')

  it('takes only the output just before the prompt for the command, and the error lines as an aider note', async () => {
    const transcript = await read('h.md', history(['> sudo systemctl reload proxy  ']))
    const call = transcript.messages.flatMap((message) => message.parts).find((part) => part.type === 'tool-call')
    expect(call).toEqual({ type: 'tool-call', id: 'aider-shell-13', name: 'shell', arguments: { command: 'sudo systemctl reload proxy' } })
    const note = transcript.messages.find((message) => message.role === 'system')!
    expect(note.provenance).toEqual({ line: 9, endLine: 11 })
    expect((note.parts[0] as { text: string }).text).toContain("[Errno 13] Permission denied: '/srv/proxy/site.conf'")
  })

  it('takes a multi-line subject whole, and nothing of the error lines before it', async () => {
    const transcript = await read('h.md', history(['> sudo systemctl reload proxy', 'curl -I localhost  ']))
    const call = transcript.messages.flatMap((message) => message.parts).find((part) => part.type === 'tool-call')
    expect(call).toMatchObject({ arguments: { command: 'sudo systemctl reload proxy\ncurl -I localhost' } })
    expect(transcript.messages.find((message) => message.role === 'system')!.provenance).toEqual({ line: 9, endLine: 11 })
  })
})

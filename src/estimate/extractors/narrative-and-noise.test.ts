import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message, Part } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// Regressions from a black-box re-test on six Claude Code logs floorguard had never seen (session 10, task Y): what
// `full` took for state that is narrative or noise, and what it missed. Each test names the class; the examples have
// the shape the logs had, not their text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts })
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const extract = (message: Message) => texts(full.extract(message, 0))

describe("a call's narrative arguments", () => {
  it("keeps a Bash call's command and not its description", () => {
    const items = extract(assistant({ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: 'ssh root@192.168.8.1 "uptime"', description: 'SSH into slate router' } }))
    expect(items).toContain('ssh root@192.168.8.1')
    expect(items.filter((text) => text.includes('slate router'))).toEqual([])
  })

  it("keeps no to-do's progress line (TodoWrite's activeForm)", () => {
    const todos = [{ content: 'SSH into slate router', activeForm: 'SSHing into slate router', status: 'in_progress' }]
    const items = extract(assistant({ type: 'tool-call', id: 'c1', name: 'TodoWrite', arguments: { todos } }))
    expect(items).not.toContain('SSHing into slate router')
  })

  it("takes a call's description a harness quotes back (a task notification) for narrative, and keeps the notification's path", () => {
    const notification = [
      '<task-notification>',
      '<task-id>b9b5b09</task-id>',
      '<output-file>/tmp/claude/tasks/b9b5b09.output</output-file>',
      '<status>completed</status>',
      '<summary>Background command "Run Blocky and capture all output" completed (exit code 0)</summary>',
      '</task-notification>',
      'Read the output file to retrieve the result: /tmp/claude/tasks/b9b5b09.output',
    ].join('\n')
    const items = extract(user(notification))
    expect(items.filter((text) => text.includes('Run Blocky'))).toEqual([])
    expect(items).toContain('/tmp/claude/tasks/b9b5b09.output')
  })

  it('keeps what the user quoted, after a slash command or in their own words', () => {
    expect(extract(user('<command-args>rename "Old Title Here" please</command-args>'))).toContain('"Old Title Here"')
    expect(extract(user('Set the banner to "Welcome back friend" on the home page.'))).toContain('"Welcome back friend"')
  })
})

const toolResult = (content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content, isError }] })
const errors = (message: Message) => full.extract(message, 0).filter((item) => item.kind === 'error').map((item) => item.text)

describe('tool output that names an error without one happening', () => {
  it("takes a numbered file view's lines (a Read's `73→`, `cat -n`) for the file's content, not errors", () => {
    const read = ['    72→    if not path.exists():', '    73→        raise FileNotFoundError(f"Config not found: {path}")', '   123→            logger.info(f"Skipping (not found): {root}")', '     5→Python was not found; run without arguments'].join('\n')
    expect(errors(toolResult(read))).toEqual([])
    expect(errors(toolResult('    12\tlogger.info(f"Skipping (not found): {root}")\n    13\treturn None'))).toEqual([])
    // The same lines as a program prints them are errors.
    expect(errors(toolResult('Python was not found; run without arguments'))).toEqual(['Python was not found; run without arguments'])
    expect(errors(toolResult('src/a.py:12: error: Name "x" is not defined'))).toEqual(['error: Name "x" is not defined'])
  })

  it('takes a line that reports success for no error', () => {
    expect(errors(toolResult('{"message":"Successfully killed shell: b5798f9 (ssh root@slate)","shell_id":"b5798f9"}'))).toEqual([])
    expect(errors(toolResult('Process 4242 killed successfully'))).toEqual([])
    expect(errors(toolResult('Killed'))).toEqual(['Killed'])
  })

  it("takes a program's version banner after `Exit code N` for its usage text, not the failure's message", () => {
    const busybox = 'Exit code 1\nBusyBox v1.36.1 (2025-08-19 14:33:15 UTC) multi-call binary.\n\nUsage: ps\n\nShow list of processes'
    expect(errors(toolResult(busybox, true))).toEqual(['Exit code 1'])
    expect(errors(toolResult('Exit code 2\nmake: *** No rule to make target `all`.  Stop.', true))).toEqual(['Exit code 2', 'make: *** No rule to make target `all`.  Stop.'])
  })

  it('takes a suffix word alone (`Failure alerts`, a heading) for prose, and a named one or one with a colon for an error', () => {
    expect(errors(toolResult('12. **Implement monitoring** - Failure alerts and health checks'))).toEqual([])
    expect(errors(toolResult('Failure: disk quota exceeded'))).toEqual(['Failure: disk quota exceeded'])
    expect(errors(toolResult('raised DeviceFailure while flashing'))).toEqual(['DeviceFailure while flashing'])
  })
})

describe('ids and paths tool output hands the agent', () => {
  const id = 'ff59cfd2-09dc-4a18-8c9f-0d46c3d4e8cd'
  const ofKind = (message: Message, kind: string) => full.extract(message, 0).filter((item) => item.kind === kind).map((item) => item.text)

  it('keeps the UUID a path in tool output holds (Windows and POSIX), as it keeps one standing alone', () => {
    expect(ofKind(toolResult(`session ${id} saved`), 'uuid')).toEqual([id])
    expect(ofKind(toolResult(`  C:\\Users\\M\\.claude\\projects\\C--Users-M\\${id}\\transcript.jsonl  12 KB`), 'uuid')).toEqual([id])
    expect(ofKind(toolResult(`/home/m/.claude/projects/-home-m/${id}/tool-results/out`), 'uuid')).toEqual([id])
    // Not a UUID: one hex digit too many, or glued to a letter.
    expect(ofKind(toolResult(`/runs/${id}0/out-7 and /runs/x${id}/out-7`), 'uuid')).toEqual([])
  })

  it('keeps a path the output tells the agent to read next (persisted output, a log written), and no other listed path', () => {
    const persisted = `<persisted-output>\nOutput too large (178.2KB). Full output saved to: /home/m/.claude/projects/-home-m/${id}/tool-results/toolu_01VXD9LZara1JpfTGn6wMi5X.txt\n</persisted-output>`
    expect(ofKind(toolResult(persisted), 'path')).toEqual([`/home/m/.claude/projects/-home-m/${id}/tool-results/toolu_01VXD9LZara1JpfTGn6wMi5X.txt`])
    const windows = 'Full output saved to: C:\\Users\\M\\.claude\\projects\\C--Users-M\\tool-results\\toolu_01Jk9fudWEwdPGbbejiMojHy.txt'
    expect(ofKind(toolResult(windows), 'path')).toEqual(['C:\\Users\\M\\.claude\\projects\\C--Users-M\\tool-results\\toolu_01Jk9fudWEwdPGbbejiMojHy.txt'])
    expect(ofKind(toolResult('Build finished. Log written to /var/log/build/latest.log'), 'path')).toEqual(['/var/log/build/latest.log'])
    // A listing's paths can be had again by listing again.
    expect(ofKind(toolResult('src/estimate/full.ts\nsrc/estimate/seed.ts\n/var/log/build/latest.log'), 'path')).toEqual([])
  })
})

describe("a user's question", () => {
  const constraints = (text: string) => full.extract(user(text), 0).filter((item) => item.kind === 'constraint').map((item) => item.text)

  it('takes a question opening with a question word and an auxiliary for a question, with or without its `?`', () => {
    expect(constraints('who do we ensure no dirtyware in rEFInd boot part(and no secrets)')).toEqual([])
    expect(constraints('How do we ensure no secrets leak? Why must the port be 8080?')).toEqual([])
    expect(constraints('- **How** should we make sure it never reboots?')).toEqual([])
  })

  it('keeps a request phrased as a question, and a directive after a question', () => {
    expect(constraints('Can you make sure the tests pass?')).toEqual(['Can you make sure the tests pass?'])
    expect(constraints('How do we deploy? Never push to main.')).toEqual(['Never push to main.'])
  })
})

describe('a command run on another machine after a wait', () => {
  it('keeps the connection and the command sent, not the wait before them as a fragment', () => {
    const bash = (command: string) => extract(assistant({ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command } }))
    expect(bash('sleep 30 && ssh -o ConnectTimeout=5 root@192.168.8.1 "uptime"')).toEqual(['ssh -o ConnectTimeout=5 root@192.168.8.1', '"uptime"'])
    expect(bash('export PORT=2222 && ssh root@192.168.8.1 "uptime"')).toContain('export PORT=2222 &&')
  })
})

describe('what a read, fetch or search returned', () => {
  const result = (name: string, content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name, content, isError }] })
  const page = ['# Error handling', 'exception: TextProto implementations may discard unknown fields.', 'error: Error). It will also automatically set the status.', 'ParseError>: Parses a new instance of the message.'].join('\n')

  it('takes the errors a fetched page or a read file quotes for data, not errors', () => {
    expect(errors(result('webfetch', page))).toEqual([])
    expect(errors(result('Read', page))).toEqual([])
    expect(errors(result('grep', `notes.md\n${page}`))).toEqual([])
  })

  it("keeps the tool's own failure on its first line, a failing result's errors, and a command's errors", () => {
    expect(errors(result('webfetch', 'Error: Request failed with status code 404\nNot Found'))).toEqual(['Error: Request failed with status code 404'])
    expect(errors(result('webfetch', page, true))).not.toEqual([])
    expect(errors(result('bash', page))).not.toEqual([])
  })
})

describe("a user's list of directives", () => {
  const constraints = (text: string) => full.extract(user(text), 0).filter((item) => item.kind === 'constraint').map((item) => item.text)

  it('takes a list item opening with an imperative for a constraint, with no cue word', () => {
    const brief = 'Build the publish command.\n- name the command /session-share:publish\n- use `gh` to authenticate\n- write a README.md (no need to go into implementation details)\n1. **Run the gate** after completing all tasks'
    expect(constraints(brief)).toEqual(['- name the command /session-share:publish', '- use `gh` to authenticate', '- write a README.md (no need to go into implementation details)', '**Run the gate** after completing all tasks'])
  })

  it('takes no short item, no noun phrase, no verb as part of a longer word, and no sentence outside a list', () => {
    expect(constraints('- Use it wisely!\n- Build/test/lint commands\n- users of the api get 3 retries\n- settings live in the repo root\n- check if it is an import issue')).toEqual([])
    expect(constraints('Use legion ethernet, not the dishy wifi, to troubleshoot.')).toEqual([])
  })
})

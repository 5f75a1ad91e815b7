import type { Message } from '../../spec/transcript.js'

/** mulberry32: a small seeded PRNG, so a session is the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PROSE = [
  'I looked at how the worker reads its settings and how the scripts copy them into place before changing anything.',
  'The loader falls back to defaults when the file is absent, which explains the odd behaviour under load.',
  'Next I will compare the current behaviour with what the ticket describes and only then decide what to change.',
  'That matches what we saw earlier, so the change should be small and easy to review.',
  'I will keep notes of anything surprising so the final report can explain both the cause and the reasoning.',
]

/** The planted state of {@link codingSession}, with the message index that first holds each item. */
export const PLANTED = {
  regex: '^/srv/app/[a-z_]+\\.ya?ml$',
  errno: "OSError: [Errno 28] No space left on device: '/var/tmp/upload.bin'",
  stalePin: 'fsspec==2024.6.1',
  currentPin: 'fsspec>=2023.1,<2024.3',
} as const

/** Options of {@link codingSession}. */
export interface CodingSessionOptions {
  readonly turns: number
  readonly seed?: number
  /** Lines of file content in a read's output (tokens per turn grow with it). @default 12 */
  readonly readLines?: number
}

/**
 * A deterministic coding-agent session: a system prompt, then per turn a user message, an assistant tool call, its
 * result and an assistant report. Plants a regex constraint (turn 1), an errno error fixed two turns later (turn 2),
 * and a pin (turn 3) reverted at turn 5. Reads, listings and `git log` are read-only calls; tests fail now and then.
 */
export function codingSession(options: CodingSessionOptions): Message[] {
  const random = prng(options.seed ?? 1)
  const lines = options.readLines ?? 12
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const messages: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'You are a careful coding agent working on the upload worker.' }] }]
  const text = (role: 'user' | 'assistant', value: string): Message => ({ role, parts: [{ type: 'text', text: value }] })
  for (let turn = 1; turn <= options.turns; turn++) {
    const id = `call_${turn}`
    let user = `Turn ${turn}: please continue with the upload worker. ${pick(PROSE)}`
    if (turn === 1) user = `Validate every upload path against the regex "${PLANTED.regex}" exactly. ${pick(PROSE)}`
    if (turn === 3) user = `Pin ${PLANTED.stalePin} for now. ${pick(PROSE)}`
    if (turn === 5) user = `Actually use ${PLANTED.currentPin} instead of ${PLANTED.stalePin}. ${pick(PROSE)}`
    messages.push(text('user', user))
    const kind = turn === 2 ? 'upload' : turn === 4 ? 'upload-ok' : pick(['read', 'read', 'list', 'log', 'test'])
    const module = `module${Math.floor(random() * 30)}`
    let call: { name: string; arguments: unknown }
    let output: string
    let isError = false
    switch (kind) {
      case 'upload':
      case 'upload-ok':
        call = { name: 'bash', arguments: { command: 'python upload.py --bucket media-eu-1' } }
        output = kind === 'upload' ? `Traceback (most recent call last):\n  File "upload.py", line 41, in <module>\n${PLANTED.errno}` : 'uploaded 12 files'
        isError = kind === 'upload'
        break
      case 'read':
        call = { name: 'read_file', arguments: { path: `src/${module}/index.ts` } }
        output = Array.from({ length: lines }, (_, line) => `export const value${line} = compute(input, ${line}) // ${pick(PROSE)}`).join('\n')
        break
      case 'list':
        call = { name: 'bash', arguments: { command: `ls src/${module}` } }
        output = Array.from({ length: lines }, (_, line) => `file_${line}.ts`).join('\n')
        break
      case 'log':
        call = { name: 'bash', arguments: { command: 'git log --oneline -n 10' } }
        output = Array.from({ length: 10 }, () => `${Math.floor(random() * 0xfffffff).toString(16).padStart(7, '0')} ${pick(PROSE).slice(0, 50)}`).join('\n')
        break
      default: {
        const failing = random() < 0.3
        call = { name: 'bash', arguments: { command: 'npm test' } }
        output = failing ? `FAIL src/${module}/index.test.ts\n  expected 3 to be 4\nExit code: 1` : `PASS src/${module}/index.test.ts\nTests: ${lines} passed`
        isError = failing
      }
    }
    messages.push({ role: 'assistant', parts: [{ type: 'text', text: pick(PROSE) }, { type: 'tool-call', id, name: call.name, arguments: call.arguments }] })
    messages.push({ role: 'tool', parts: [{ type: 'tool-result', callId: id, name: call.name, content: output, isError }] })
    messages.push(text('assistant', `${pick(PROSE)} ${pick(PROSE)}`))
  }
  return messages
}

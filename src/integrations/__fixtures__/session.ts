/**
 * A coding-agent session in neutral form, for the adapter tests: turns of a user request, one tool call, its result
 * and an answer, with narrative filler, and state planted in the first turns (the segment a compaction selects).
 * Each adapter test maps it to its own framework's messages.
 */

/** State planted in the first three turns; none of it appears again later. */
export const PLANTED = {
  constraint: 'Always validate every upload path against ^[a-z0-9/_-]+$ before writing.',
  error: "OSError: [Errno 28] No space left on device: '/var/tmp/upload-7f3a.bin'",
  pin: 'fsspec==2024.6.1',
} as const

export interface Turn {
  readonly user: string
  readonly call: { readonly id: string; readonly name: string; readonly input: { readonly command: string } }
  readonly result: string
  readonly isError: boolean
  readonly answer: string
}

const FILLER = [
  'The module reads the request, checks the session, and hands the payload to the storage layer.',
  'Most of the work happens in the handler, which keeps a small queue of pending writes and flushes it on a timer.',
  'Nothing here changes the public interface; the callers keep passing the same options object as before.',
  'The log shows the usual startup lines, then the worker pool coming up, then the first requests being served.',
]

function filler(turn: number, lines: number): string {
  const out: string[] = []
  for (let line = 0; line < lines; line++) out.push(`${FILLER[(turn + line) % FILLER.length]} (turn ${turn}, note ${line})`)
  return out.join('\n')
}

/** `count` turns; turns 0-2 hold {@link PLANTED}; `lines` filler lines per answer and result set the size. */
export function sessionTurns(count: number, lines = 6): Turn[] {
  const turns: Turn[] = []
  for (let turn = 0; turn < count; turn++) {
    const planted = turn === 0 ? `\n${PLANTED.constraint}` : ''
    const result = turn === 1 ? `${filler(turn, lines)}\n${PLANTED.error}` : filler(turn, lines)
    const answer = turn === 2 ? `${filler(turn, lines)}\nPinned ${PLANTED.pin} in requirements.txt.` : filler(turn, lines)
    turns.push({
      user: `Step ${turn}: continue with the upload service.${planted}`,
      call: { id: `call-${turn}`, name: 'bash', input: { command: `python upload.py --step ${turn}` } },
      result,
      isError: turn === 1,
      answer,
    })
  }
  return turns
}

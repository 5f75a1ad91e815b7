/** The line `check` and `plan` print when, without `--range`, they left the transcript's system prompt out. */
export function systemNote(count: number): string {
  const which = count === 1 ? 'message 0, the system prompt, is' : `messages 0–${count}, the system prompt, are`
  return `(${which} left out, as compact leaves it: --range 0: includes it)`
}

/** Prose without must-keep items: what a summary can shorten. */
const NARRATIVE =
  'The agent looked through the repository, read the notes about how the modules are laid out and talked the plan over with the user before starting. '.repeat(
    12,
  )

/** An OpenAI document whose messages 0:4 compact into one ledger summary, followed by `tail`. */
export function compactableDocument(tail: ReadonlyArray<{ role: string; content: string }> = []): { model: string; messages: Array<{ role: string; content: string }> } {
  return {
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: `Never touch /etc. Keep timeout_ms at 2500. ${NARRATIVE}` },
      { role: 'assistant', content: NARRATIVE },
      { role: 'user', content: `It failed with EACCES: permission denied. ${NARRATIVE}` },
      { role: 'assistant', content: NARRATIVE },
      { role: 'user', content: 'Thanks. Next, run the tests.' },
      ...tail,
    ],
  }
}

/** compactableDocument with 200 more messages: its compacted copy (about 250 KB) is larger than a pipe's buffer. */
export function largeDocument(): ReturnType<typeof compactableDocument> {
  return compactableDocument(Array.from({ length: 200 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `step ${index}: ${'lorem ipsum '.repeat(100)}` })))
}

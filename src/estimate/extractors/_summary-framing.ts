/**
 * The words a compactor wraps around its summary for the model that resumes (Claude Code's closing "Continue the
 * conversation from where it left off … Resume directly — do not acknowledge the summary …"): the harness's fixed
 * instructions, not the user's constraints, so they are read as agent text (no constraint sentences), while the
 * summary before them is read as a summary.
 */

/** Lines that open a compactor's closing instructions (the versions Claude Code has written). */
const TRAILER_OPENINGS = [
  '\nIf you need specific details from before compaction',
  '\nContinue the conversation from where it left off',
  '\nPlease continue the conversation from where we left',
] as const

/** How far before a summary part's end its closing instructions are looked for (they are a few hundred units). */
const TRAILER_REACH = 2048

/**
 * trailerStart(text, [start, end)) = where the closing instructions of the summary part `[start, end)` begin (the
 * earliest opening found in the part's last {@link TRAILER_REACH} units), or `end` when it has none.
 */
export function trailerStart(text: string, start: number, end: number): number {
  const from = Math.max(start, end - TRAILER_REACH)
  const tail = text.slice(from, end)
  let found = end
  for (const opening of TRAILER_OPENINGS) {
    const at = tail.indexOf(opening)
    if (at !== -1 && from + at < found) found = from + at
  }
  return found
}

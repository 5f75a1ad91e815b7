/** How many warnings of one kind are listed before the rest are counted. */
const SHOWN = 3

/**
 * collapseWarnings(warnings) = each kind's first three warnings as they are, then `and N more like the one above`,
 * kinds in the order they first appear. A warning's kind is its text with every run of digits taken as one (so
 * `f: line 3: skipped …` and `f: line 9: skipped …` are one kind). Linear in the warnings' length.
 */
export function collapseWarnings(warnings: readonly string[]): string[] {
  if (warnings.length <= SHOWN + 1) return [...warnings]
  const kinds = new Map<string, string[]>()
  for (const warning of warnings) {
    const kind = kindOf(warning)
    const list = kinds.get(kind)
    if (list) list.push(warning)
    else kinds.set(kind, [warning])
  }
  const out: string[] = []
  for (const list of kinds.values()) {
    // One more than the shown few is listed rather than counted: `and 1 more` says no less than the line itself.
    if (list.length <= SHOWN + 1) out.push(...list)
    else out.push(...list.slice(0, SHOWN), `and ${list.length - SHOWN} more like the one above`)
  }
  return out
}

function kindOf(warning: string): string {
  let kind = ''
  let digits = false
  for (let index = 0; index < warning.length; index++) {
    const code = warning.charCodeAt(index)
    const digit = code >= 48 && code <= 57
    if (digit && !digits) kind += '#'
    else if (!digit) kind += warning[index]
    digits = digit
  }
  return kind
}

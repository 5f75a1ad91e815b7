/** How many warnings of one kind are listed before the rest are summed up in one line. */
const SHOWN = 3

/**
 * collapseWarnings(warnings) = each kind's first three warnings as they are, then one line for the rest: `and N more
 * like the one above, at A, B, …`, where A, B, … are what sets each apart (the numbers that differ from the first
 * one's: a line, a pointer's index), so no line number is lost. Kinds come in the order they first appear; a kind is
 * a warning's text with every run of digits taken as one (`f: line 3: skipped …` and `f: line 9: skipped …` are one
 * kind). Linear in the warnings' length.
 */
export function collapseWarnings(warnings: readonly string[]): string[] {
  if (warnings.length <= SHOWN + 1) return [...warnings]
  const kinds = new Map<string, Array<{ warning: string; numbers: string[] }>>()
  for (const warning of warnings) {
    const { kind, numbers } = kindOf(warning)
    const list = kinds.get(kind)
    if (list) list.push({ warning, numbers })
    else kinds.set(kind, [{ warning, numbers }])
  }
  const out: string[] = []
  for (const list of kinds.values()) {
    // One more than the shown few is listed rather than summed up: `and 1 more` says no less than the line itself.
    if (list.length <= SHOWN + 1) {
      out.push(...list.map((entry) => entry.warning))
      continue
    }
    out.push(...list.slice(0, SHOWN).map((entry) => entry.warning))
    const first = list[0]!.numbers
    const rest = list.slice(SHOWN)
    // The places (nth run of digits) where some warning of the kind differs from the first.
    const varying = first.map((_, place) => place).filter((place) => rest.some((entry) => entry.numbers[place] !== first[place]))
    const where = varying.length === 0 ? '' : `, at ${rest.map((entry) => varying.map((place) => entry.numbers[place]).join('/')).join(', ')}`
    out.push(`and ${rest.length} more like the one above${where}`)
  }
  return out
}

function kindOf(warning: string): { kind: string; numbers: string[] } {
  let kind = ''
  const numbers: string[] = []
  let from = -1
  for (let index = 0; index <= warning.length; index++) {
    const code = index < warning.length ? warning.charCodeAt(index) : -1
    const digit = code >= 48 && code <= 57
    if (digit) {
      if (from === -1) {
        from = index
        kind += '#'
      }
      continue
    }
    if (from !== -1) {
      numbers.push(warning.slice(from, index))
      from = -1
    }
    if (index < warning.length) kind += warning[index]
  }
  return { kind, numbers }
}

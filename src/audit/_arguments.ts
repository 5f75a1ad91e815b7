/**
 * The string leaves of a tool call's arguments, as the audit searches them (its own module: the audit and the
 * replaced-segment rules both read them).
 */

/**
 * argumentStrings(value) = the string leaves of a tool call's arguments in order (numbers and booleans as written;
 * an array of strings is one leaf joined by spaces, an argv reads as a command line).
 */
export function argumentStrings(value: unknown): string[] {
  const out: string[] = []
  const visit = (node: unknown): void => {
    if (typeof node === 'string') out.push(node)
    else if (typeof node === 'number' || typeof node === 'boolean') out.push(String(node))
    else if (Array.isArray(node) && node.length > 0 && node.every((element) => typeof element === 'string')) out.push(node.join(' '))
    else if (Array.isArray(node)) for (const element of node) visit(element)
    else if (node !== null && typeof node === 'object') for (const element of Object.values(node)) visit(element)
  }
  visit(value)
  return out
}

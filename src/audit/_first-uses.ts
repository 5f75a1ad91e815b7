/**
 * Where a set of texts first occurs in a stream of later text: one Aho–Corasick automaton over the texts, one pass
 * over the stream. Replaces `texts × pieces` calls to `indexOf` (a summary's segment holds thousands of items and the
 * rest of a session megabytes of text).
 */

/** One piece of text to search, and the message it belongs to. A match never spans two pieces. */
export interface SearchPiece {
  readonly text: string
  readonly message: number
}

/** A dictionary automaton over UTF-16 code units. Nodes are numbered; 0 is the root. */
interface Automaton {
  /** `node * 65536 + unit` → child node. */
  readonly next: Map<number, number>
  readonly fail: Int32Array
  /** Nearest node on the fail chain (the node itself excluded) where some text ends, or -1. */
  readonly output: Int32Array
  /** Texts ending at each node: index into `ends` lists, -1 when none. */
  readonly endsAt: Int32Array
  /** Linked lists of text indices: `endText[k]`, next entry `endNext[k]`. */
  readonly endText: Int32Array
  readonly endNext: Int32Array
}

function build(texts: readonly string[]): Automaton {
  let total = 1
  for (const text of texts) total += text.length
  const next = new Map<number, number>()
  const endsAt = new Int32Array(total).fill(-1)
  const endText = new Int32Array(texts.length)
  const endNext = new Int32Array(texts.length)
  const depthFirstChildren: number[][] = [[]]
  let nodes = 1
  texts.forEach((text, index) => {
    let node = 0
    for (let position = 0; position < text.length; position++) {
      const key = node * 65536 + text.charCodeAt(position)
      let child = next.get(key)
      if (child === undefined) {
        child = nodes++
        next.set(key, child)
        depthFirstChildren[node]!.push(key)
        depthFirstChildren.push([])
      }
      node = child
    }
    endText[index] = index
    endNext[index] = endsAt[node]!
    endsAt[node] = index
  })
  const fail = new Int32Array(nodes)
  const output = new Int32Array(nodes).fill(-1)
  // Breadth first, so a node's fail target is final before its children need it.
  const queue: number[] = []
  for (const key of depthFirstChildren[0]!) queue.push(next.get(key)!)
  const parentKey = new Map<number, number>()
  for (let node = 0; node < nodes; node++) for (const key of depthFirstChildren[node]!) parentKey.set(next.get(key)!, key)
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!
    const key = parentKey.get(node)!
    const parent = Math.floor(key / 65536)
    const unit = key - parent * 65536
    if (parent !== 0) {
      let state = fail[parent]!
      for (;;) {
        const child = next.get(state * 65536 + unit)
        if (child !== undefined) {
          fail[node] = child
          break
        }
        if (state === 0) {
          fail[node] = 0
          break
        }
        state = fail[state]!
      }
    }
    const target = fail[node]!
    output[node] = endsAt[target]! >= 0 ? target : output[target]!
    for (const childKey of depthFirstChildren[node]!) queue.push(next.get(childKey)!)
  }
  return { next, fail, output, endsAt, endText, endNext }
}

/**
 * firstUses(texts, pieces)[i] = the `message` of the first piece (in iteration order) holding texts[i] verbatim, or
 * -1. Empty texts are never found. Linear in the pieces' length plus the texts' length: each node of the automaton
 * reports its texts once, and the walk stops as soon as every text has been found.
 */
export function firstUses(texts: readonly string[], pieces: Iterable<SearchPiece>): Int32Array {
  const result = new Int32Array(texts.length).fill(-1)
  let remaining = 0
  for (const text of texts) if (text.length > 0) remaining++
  if (remaining === 0) return result
  const automaton = build(texts)
  const { next, fail, output, endsAt, endText, endNext } = automaton
  // A node once reported has reported every text on its output chain: later walks stop there.
  const reported = new Uint8Array(fail.length)
  for (const piece of pieces) {
    const { text, message } = piece
    let state = 0
    for (let position = 0; position < text.length; position++) {
      const unit = text.charCodeAt(position)
      for (;;) {
        const child = next.get(state * 65536 + unit)
        if (child !== undefined) {
          state = child
          break
        }
        if (state === 0) break
        state = fail[state]!
      }
      let node = endsAt[state]! >= 0 ? state : output[state]!
      while (node > 0 && reported[node] === 0) {
        reported[node] = 1
        for (let entry = endsAt[node]!; entry >= 0; entry = endNext[entry]!) {
          const index = endText[entry]!
          if (result[index] === -1) {
            result[index] = message
            remaining--
          }
        }
        node = output[node]!
      }
      if (remaining === 0) return result
    }
  }
  return result
}

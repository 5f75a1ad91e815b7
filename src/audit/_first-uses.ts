/**
 * Where a set of texts first occurs in a stream of later text: one Aho–Corasick automaton over the texts (edges in
 * typed arrays: a table for the root, an open-addressing table for the rest), one pass over the stream. Replaces
 * `texts × pieces` calls to `indexOf` (a summary's segment holds thousands of items and the rest of a session
 * megabytes of text). The automaton has at most one node per unit of the texts, which are a segment's items.
 */

/** One piece of text to search, and the message it belongs to. A match never spans two pieces. */
export interface SearchPiece {
  readonly text: string
  readonly message: number
}

/** A reusable search for one set of texts. */
export interface TextSearch {
  /** firstUses(pieces)[i] = the `message` of the first piece holding texts[i] verbatim, or -1 (empty texts: -1). */
  firstUses(pieces: Iterable<SearchPiece>): Int32Array
}

/** Child edges of non-root nodes: an open-addressing table keyed by (node, unit). */
class EdgeTable {
  private readonly mask: number
  private readonly nodes: Int32Array
  private readonly units: Uint16Array
  private readonly children: Int32Array

  constructor(entries: number) {
    let size = 16
    while (size < entries * 2) size *= 2
    this.mask = size - 1
    this.nodes = new Int32Array(size).fill(-1)
    this.units = new Uint16Array(size)
    this.children = new Int32Array(size)
  }

  private slot(node: number, unit: number): number {
    return (Math.imul(node, 0x9e3779b1) ^ Math.imul(unit, 0x85ebca6b)) & this.mask
  }

  get(node: number, unit: number): number {
    for (let at = this.slot(node, unit); ; at = (at + 1) & this.mask) {
      const owner = this.nodes[at]!
      if (owner === -1) return -1
      if (owner === node && this.units[at] === unit) return this.children[at]!
    }
  }

  set(node: number, unit: number, child: number): void {
    let at = this.slot(node, unit)
    while (this.nodes[at] !== -1) at = (at + 1) & this.mask
    this.nodes[at] = node
    this.units[at] = unit
    this.children[at] = child
  }
}

/** createTextSearch(texts) = a search for `texts` (built once, run over any number of piece streams). */
export function createTextSearch(texts: readonly string[]): TextSearch {
  let capacity = 1
  for (const text of texts) capacity += text.length
  const root = new Int32Array(65536).fill(-1)
  const edges = new EdgeTable(capacity)
  const firstChild = new Int32Array(capacity).fill(-1)
  const nextSibling = new Int32Array(capacity).fill(-1)
  const unitOf = new Uint16Array(capacity)
  const endsAt = new Int32Array(capacity).fill(-1)
  const endNext = new Int32Array(texts.length).fill(-1)
  let nodes = 1
  const child = (node: number, unit: number) => (node === 0 ? root[unit]! : edges.get(node, unit))

  texts.forEach((text, index) => {
    let node = 0
    for (let position = 0; position < text.length; position++) {
      const unit = text.charCodeAt(position)
      let next = child(node, unit)
      if (next === -1) {
        next = nodes++
        if (node === 0) root[unit] = next
        else edges.set(node, unit, next)
        unitOf[next] = unit
        nextSibling[next] = firstChild[node]!
        firstChild[node] = next
      }
      node = next
    }
    if (node === 0) return
    endNext[index] = endsAt[node]!
    endsAt[node] = index
  })

  // Breadth first, so a node's fail target (a shallower node) is final before the node needs it.
  const fail = new Int32Array(nodes)
  const output = new Int32Array(nodes).fill(-1)
  const queue = new Int32Array(nodes)
  let tail = 0
  for (let node = firstChild[0]!; node !== -1; node = nextSibling[node]!) queue[tail++] = node
  for (let head = 0; head < tail; head++) {
    const node = queue[head]!
    for (let next = firstChild[node]!; next !== -1; next = nextSibling[next]!) {
      const unit = unitOf[next]!
      let state = fail[node]!
      let target = 0
      for (;;) {
        const candidate = child(state, unit)
        if (candidate !== -1 && candidate !== next) {
          target = candidate
          break
        }
        if (state === 0) break
        state = fail[state]!
      }
      fail[next] = target
      output[next] = endsAt[target]! >= 0 ? target : output[target]!
      queue[tail++] = next
    }
  }

  return {
    firstUses(pieces) {
      const result = new Int32Array(texts.length).fill(-1)
      let remaining = 0
      for (const text of texts) if (text.length > 0) remaining++
      if (remaining === 0) return result
      // A node once reported has reported every text down its output chain: later walks stop there.
      const reported = new Uint8Array(nodes)
      for (const piece of pieces) {
        const { text, message } = piece
        let state = 0
        for (let position = 0; position < text.length; position++) {
          const unit = text.charCodeAt(position)
          let next = child(state, unit)
          while (next === -1 && state !== 0) {
            state = fail[state]!
            next = child(state, unit)
          }
          state = next === -1 ? 0 : next
          for (let node = endsAt[state]! >= 0 ? state : output[state]!; node > 0 && reported[node] === 0; node = output[node]!) {
            reported[node] = 1
            for (let entry = endsAt[node]!; entry >= 0; entry = endNext[entry]!) {
              result[entry] = message
              remaining--
            }
          }
          if (remaining === 0) return result
        }
      }
      return result
    },
  }
}

/** firstUses(texts, pieces) = createTextSearch(texts).firstUses(pieces). */
export function firstUses(texts: readonly string[], pieces: Iterable<SearchPiece>): Int32Array {
  return createTextSearch(texts).firstUses(pieces)
}

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ASCII_PIECE_END, createPieceFinder, SPLIT_PATTERNS, type SplitEncoding, unitsIn } from './_split.js'

// The split patterns are the reference here (tokenize.test.ts checks them, through counts, against tiktoken): the state
// machines must cut every ASCII text exactly where the pattern does, and the piece finder every text.

/** Atoms aimed at each alternative of both patterns and at the boundaries between them. */
const ASCII_ATOMS = [
  ' ', '  ', '   ', '\t', '\n', '\r', '\r\n', '\n\n', '\v', '\f', ' \n', '\n ', ' \t ', '\r\n\r\n',
  'a', 'z', 'A', 'Z', 'x', 'ab', 'Ab', 'aB', 'AB', 'HTTPServer', 'iPhone', 'OSError', 'the', 'don', 'DON',
  "'", "''", "'s", "'S", "'t", "'T", "'d", "'D", "'m", "'M", "'ll", "'LL", "'Ll", "'lL", "'l", "'ve", "'Ve", "'VE", "'v",
  "'re", "'Re", "'rE", "'r", "'x",
  '0', '1', '12', '123', '1234', '12345', '1234567',
  '.', ',', '/', '//', '!', '?!', '-', '_', '"', '\\', '#', '$', '(', ')', '{', '}', '=', '@', '`', '~', '^',
  '\x00', '\x01', '\x08', '\x0e', '\x1b', '\x1f', '\x7f',
  '/\n', '.\r\n', '\r\n/', ';\n\n', '!/', '\n/', '-/\n/',
]

const asciiText = fc.array(fc.constantFrom(...ASCII_ATOMS), { maxLength: 40 }).map((atoms) => atoms.join(''))
const randomAscii = fc.string({ unit: 'binary-ascii', maxLength: 300 })

/** Non-ASCII atoms: letters of every class the pattern names, Unicode spaces, U+FEFF, lone surrogates, a long s. */
const UNICODE_ATOMS = [
  'é', 'É', 'ǅ', 'ʰ', '中文', 'ß', 'İ', 'ſ', "'ſ", 'Ⅻ', '٣', '١٢٣٤', '\u0301', 'e\u0301', '😀', '\uD800', '\uDC00',
  '\u00A0', '\u3000', '\u0085', '\u2028', '\u2029', '\u1680', '\u200A', '\u202F', '\uFEFF', '\u200B', '—', '→', '✅',
]
const mixedText = fc.array(fc.constantFrom(...ASCII_ATOMS, ...UNICODE_ATOMS), { maxLength: 40 }).map((atoms) => atoms.join(''))

function patternPieces(encoding: SplitEncoding, text: string): string[] {
  return [...text.matchAll(SPLIT_PATTERNS[encoding])].map((match) => match[0])
}

const encoder = new TextEncoder()

function machinePieces(encoding: SplitEncoding, text: string): string[] {
  const bytes = encoder.encode(text)
  const pieces: string[] = []
  const pieceEnd = ASCII_PIECE_END[encoding]
  for (let start = 0; start < bytes.length; ) {
    const end = pieceEnd(bytes, start, bytes.length)
    pieces.push(text.slice(start, end))
    start = end
  }
  return pieces
}

function finderPieces(encoding: SplitEncoding, text: string): string[] {
  const bytes = encoder.encode(text)
  const pieces: string[] = []
  const findPiece = createPieceFinder(encoding)
  for (let unit = 0, start = 0; start < bytes.length; ) {
    const end = findPiece(text, unit, bytes, start, bytes.length)
    const unitEnd = unit + unitsIn(bytes, start, end)
    pieces.push(text.slice(unit, unitEnd))
    unit = unitEnd
    start = end
  }
  return pieces
}

describe.each(['o200k_base', 'cl100k_base'] as const)('%s', (encoding) => {
  it('the state machine cuts ASCII where the pattern does (targeted atoms)', () => {
    fc.assert(
      fc.property(asciiText, (text) => {
        expect(machinePieces(encoding, text)).toEqual(patternPieces(encoding, text))
      }),
      { numRuns: 20_000, seed: 412 },
    )
  })

  it('the state machine cuts ASCII where the pattern does (random ASCII, controls included)', () => {
    fc.assert(
      fc.property(randomAscii, (text) => {
        expect(machinePieces(encoding, text)).toEqual(patternPieces(encoding, text))
      }),
      { numRuns: 5_000, seed: 58 },
    )
  })

  it('the piece finder cuts any text where the pattern does', () => {
    fc.assert(
      fc.property(mixedText, (text) => {
        expect(finderPieces(encoding, text)).toEqual(patternPieces(encoding, text))
      }),
      { numRuns: 20_000, seed: 2026 },
    )
  })

  it('the piece finder defers to the pattern next to non-ASCII whitespace and letters', () => {
    // Each of these has an ASCII piece whose end depends on the non-ASCII unit after it.
    for (const text of ['\n  \u3000\n', 'ab\u00e9', "it'\u017f", 'x\u0085\n', '12\u0663', ' \u00e9', '!\u00e9', "ab'l\u00e9", 'A\u00e9', ' \u2028', '\u3000 ']) {
      expect(finderPieces(encoding, text), JSON.stringify(text)).toEqual(patternPieces(encoding, text))
    }
  })
})

it('the state machines handle a range that ends before the text', () => {
  const text = "it's   \n  HTTPServer's 12345!!\n/ x"
  const bytes = encoder.encode(text)
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    for (let end = 0; end <= text.length; end++) {
      const head = text.slice(0, end)
      const pieces: string[] = []
      for (let start = 0; start < end; ) {
        const pieceEnd = ASCII_PIECE_END[encoding](bytes, start, end)
        pieces.push(text.slice(start, pieceEnd))
        start = pieceEnd
      }
      expect(pieces, `${encoding} ${JSON.stringify(head)}`).toEqual(patternPieces(encoding, head))
    }
  }
})

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { escapeHtml, inlineScript, scriptJson } from './_escape.js'

/** The oracle: how an HTML parser reads the five references back (written here, not imported). */
function decodeReferences(text: string): string {
  return text.split('&lt;').join('<').split('&gt;').join('>').split('&quot;').join('"').split('&#39;').join("'").split('&amp;').join('&')
}

/** Characters an attacker needs, mixed with ordinary text, separators and astral characters. */
const hostile = fc.string({ unit: fc.constantFrom('<', '>', '&', '"', "'", '/', '=', 'a', 's', 'script', ' ', '\u2028', '\u2029', '😀', '&amp;', '<!--') })

describe('escapeHtml', () => {
  test('leaves no markup character raw, and a parser reads the same text back', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const escaped = escapeHtml(text)
        expect(escaped).not.toMatch(/[<>"']/)
        // Every & starts one of the five references.
        expect(escaped.replace(/&(?:lt|gt|quot|amp|#39);/g, '')).not.toContain('&')
        expect(decodeReferences(escaped)).toBe(text)
      }),
    )
  })

  test('the injection strings of the issue', () => {
    expect(escapeHtml('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(escapeHtml('"><img src=x onerror=alert(1)>')).toBe('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;')
    expect(escapeHtml('plain text')).toBe('plain text')
  })
})

describe('scriptJson', () => {
  test('parses back to the same value and holds no <, >, &, U+2028 or U+2029', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (value, text) => {
        for (const input of [value, { text, nested: [text, value] }]) {
          const json = scriptJson(input)
          expect(json).not.toMatch(/[<>&\u2028\u2029]/)
          expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(input)))
        }
      }),
    )
  })

  test('cannot close the script element it sits in', () => {
    const json = scriptJson({ text: '</script><script>alert(1)</script><!--' })
    expect(json.toLowerCase()).not.toContain('</script')
    expect(json).not.toContain('<!--')
    expect(json).toBe('{"text":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\u003c!--"}')
  })
})

describe('inlineScript', () => {
  test('refuses code that would end or confuse its element, in any case', () => {
    expect(() => inlineScript('var a = "</SCRIPT>"', 'x')).toThrow('x: cannot be inlined')
    expect(() => inlineScript('var a = "<!--"', 'x')).toThrow()
    expect(inlineScript('var a = 1 < 2', 'x')).toBe('var a = 1 < 2')
  })
})

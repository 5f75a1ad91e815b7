/**
 * escapeHtml(text) = text with `&`, `<`, `>`, `"` and `'` written as character references: safe in element content
 * and in a quoted attribute value. Linear: one pass, no regex backtracking.
 */
export function escapeHtml(text: string): string {
  let out = ''
  let last = 0
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    let entity: string
    switch (code) {
      case 38:
        entity = '&amp;'
        break
      case 60:
        entity = '&lt;'
        break
      case 62:
        entity = '&gt;'
        break
      case 34:
        entity = '&quot;'
        break
      case 39:
        entity = '&#39;'
        break
      default:
        continue
    }
    out += text.slice(last, index) + entity
    last = index + 1
  }
  return last === 0 ? text : out + text.slice(last)
}

/**
 * scriptJson(value) = JSON.stringify(value) with `<`, `>`, `&`, U+2028 and U+2029 written as `\uXXXX` escapes: the
 * same value to JSON.parse, and text that can neither close a `<script>` element (`</script>`), open a comment
 * (`<!--`) nor end a line in older JavaScript parsers.
 */
export function scriptJson(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null'
  let out = ''
  let last = 0
  for (let index = 0; index < json.length; index++) {
    const code = json.charCodeAt(index)
    if (code !== 60 && code !== 62 && code !== 38 && code !== 0x2028 && code !== 0x2029) continue
    out += `${json.slice(last, index)}\\u${code.toString(16).padStart(4, '0')}`
    last = index + 1
  }
  return last === 0 ? json : out + json.slice(last)
}

/**
 * inlineScript(source) = source, checked to be safe inside a `<script>` element: it must not hold `</script` or
 * `<!--` (either would end or confuse the element). Throws otherwise: bundled code is never rewritten blindly.
 */
export function inlineScript(source: string, name: string): string {
  const lower = source.toLowerCase()
  if (lower.includes('</script') || lower.includes('<!--')) throw new Error(`${name}: cannot be inlined, it holds "</script" or "<!--"`)
  return source
}

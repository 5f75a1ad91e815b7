import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// Values a written file carries that a black-box re-test on a gemini-cli log found missing from the ledger: a CSS
// custom property's value with its property, and a markup attribute's quoted path. The payloads have the log's shape,
// not its text; each long enough (over 300 units) to be read for its values only.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const write = (path: string, content: string): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id: 'w', name: 'write_file', arguments: { file_path: path, content } }] })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const extract = (message: Message) => texts(full.extract(message, 0))

const css = [
  '@import "tailwindcss";',
  '',
  '@theme {',
  '  --font-sans: "Nunito", sans-serif;',
  '  --color-primary: #605BFF;',
  '  --color-secondary: #FFB74D;',
  '  --radius-card: 12px ;',
  '  --shadow-card: 0 4px 12px #0000001a;',
  '}',
  '',
  'body { font-family: var(--font-sans); background: #FAFAFB; padding: 12px; margin: 0 auto; }',
  '.card { border-radius: var(--radius-card); box-shadow: var(--shadow-card); color: #030229; }',
  '.x { width: calc(100% - 2rem); }',
].join('\n')

describe('a CSS custom property written into a file', () => {
  it('is kept with its value: a hex colour, a length', () => {
    const items = extract(write('src/index.css', css))
    expect(items).toContain('--color-primary: #605BFF')
    expect(items).toContain('--color-secondary: #FFB74D')
    expect(items).toContain('--radius-card: 12px')
    // A value that changes later is a new item.
    const changed = extract(write('src/index.css', css.replace('#FFB74D', '#030229')))
    expect(changed).toContain('--color-secondary: #030229')
  })

  it('adds no noise: an ordinary property, a value of several parts, a var() reference are no items of that shape', () => {
    const items = extract(write('src/index.css', css))
    expect(items.filter((text) => text.startsWith('--'))).toEqual(['--color-primary: #605BFF', '--color-secondary: #FFB74D', '--radius-card: 12px'])
    expect(items).not.toContain('#FAFAFB')
    expect(items).not.toContain('#030229')
    expect(items.some((text) => text.includes('#0000001a'))).toBe(false)
  })

  it('no property: a -- inside a word or after another unit, no colon, a value of more parts, a long run of name units', () => {
    const lines = ['a x--color: #605BFF;', '--color-x= #605BFF;', 'a =--color: #605BFF;', '--ring: #605BFF 2px;', `--${'a'.repeat(80)}: #123ABC;`, '.'.repeat(300)]
    const items = extract(write('notes.txt', lines.join('\n')))
    expect(items.some((text) => text.includes('#605BFF') || text.includes('#123ABC'))).toBe(false)
  })
})

const tsx = [
  "import { NavLink } from 'react-router-dom'",
  '',
  'export default function Sidebar() {',
  '  return (',
  '    <aside className="w-64 h-screen bg-white flex flex-col">',
  '      <div className="p-6 flex items-center justify-center">',
  '        <img src="./assets/logo.svg" alt="Logo" className="h-10" />',
  "        <a href='https://docs.example.test/start'>docs</a>",
  '        <img src={logo} alt="Logo" />',
  '        <div data-id="main-nav" title="Main/Side" />',
  '      </div>',
  '    </aside>',
  '  )',
  '}',
].join('\n')

describe("a markup attribute's quoted value", () => {
  it('is kept as its path or URL', () => {
    const items = extract(write('src/components/Sidebar.tsx', tsx))
    expect(items).toContain('./assets/logo.svg')
    expect(items).toContain('https://docs.example.test/start')
  })

  it('adds no noise: an attribute without a path, a braced expression, the attribute with its quote', () => {
    const items = extract(write('src/components/Sidebar.tsx', tsx))
    expect(items.some((text) => /^(?:src|href|alt|className|data-id)=/.test(text))).toBe(false)
    expect(items).not.toContain('Logo')
    expect(items).not.toContain('main-nav')
    expect(items.some((text) => text.includes('logo}'))).toBe(false)
  })
})

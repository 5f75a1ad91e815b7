import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'
import { nestsUnevenly } from './lines.js'

// Noise classes from a black-box re-test on logs floorguard had never seen (aider, Claude Code, a research agent,
// gemini-cli): texts `full` took for items that are fragments or placeholders. The examples have the logs' shape, not
// their text; each test also holds the real state beside the noise.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] })
const write = (content: string): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id: 'w', name: 'write_file', arguments: { file_path: 'config/study.json', content } }] })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const extract = (message: Message) => texts(full.extract(message, 0))

describe("a chat tool's own slash command", () => {
  it('is a command, not a path, when it opens the user\'s line; what follows it is read', () => {
    expect(extract(user('/ask'))).toEqual([])
    expect(extract(user('/multiline-mode'))).toEqual([])
    const model = extract(user('/model openrouter/vendor/chat-model-v3.1'))
    expect(model).toContain('openrouter/vendor/chat-model-v3.1')
    expect(model).not.toContain('/model')
  })

  it('a rooted path is still a path, at the head of a line or inside it', () => {
    expect(extract(user('/srv/app/config.yaml is wrong'))).toContain('/srv/app/config.yaml')
    expect(extract(user('use the code under /code for this'))).toContain('/code')
  })
})

describe('a shell command substitution', () => {
  it('cut at its first space is no item; a whole assignment is', () => {
    const script = ['SINCE_DATE=$(date -v-365d +%Y-%m-%d)', 'README_RESPONSE=$(curl -s -H "Accept: json" https://api.example.test/graphql)', '_TEL_DUR=$(( _TEL_END - _TEL_START ))', 'API_BASE=https://api.example.test/v2'].join('\n')
    const items = extract(assistant(script))
    expect(items.filter((text) => text.includes('$(') && !text.includes(')'))).toEqual([])
    expect(items).toContain('API_BASE=https://api.example.test/v2')
    expect(items).toContain('https://api.example.test/graphql')
    // A substitution inside a double-quoted value: the value is kept whole as a quoted string, no cut assignment.
    const session = extract(user('_SESSION_ID="$$-$(date +%s)"\n_TOKEN="${PAT:-$(cat ~/.cfg/config.json)}"'))
    expect(session).toContain('"$$-$(date +%s)"')
    expect(session.filter((text) => /^_\w+=/.test(text))).toEqual([])
  })
})

describe('quoted strings and escaped or nested quotes', () => {
  it('an escaped quote neither opens nor closes a string', () => {
    const items = extract(user('  "query": "query { repo(owner: \\"OWNER\\", name: \\"NAME\\") { readme } }"'))
    expect(items).toContain('"query { repo(owner: \\"OWNER\\", name: \\"NAME\\") { readme } }"')
    expect(items.filter((text) => text.startsWith('",') || text.endsWith('\\"'))).toEqual([])
  })

  it("a quote inside the other kind of quotes ('\"' of cut -d) opens nothing", () => {
    const items = extract(assistant(`URL=$(grep -o '"url":"[^"]*"' cfg.json | cut -d'"' -f4 || echo "")`))
    expect(items.filter((text) => text.includes("' -f4") || text === `'"}'`)).toEqual([])
    const ts = extract(assistant(`EVENT='{"event":"started","ts":"'$(date -u +%s)'"}'`))
    expect(ts).not.toContain(`'"}'`)
  })

  it('a string opening on the other quote with an odd count of it is a piece; a quote in a bracket class pairs with nothing', () => {
    const pieces = [`'"}'`, `"' -f4 || echo "`, `'","timestamp":'`]
    const whole = [`'"url":"[^"]*"'`, `'"readme":{'`, `"it's fine"`, `'"a"'`]
    expect(pieces.filter((text) => !nestsUnevenly(text, 0, text.length))).toEqual([])
    expect(whole.filter((text) => nestsUnevenly(text, 0, text.length))).toEqual([])
  })

  it("keeps quoted text with an apostrophe or a balanced nested quote", () => {
    expect(extract(user('Call it "Indonesia\'s F&B simulator" please.'))).toContain('"Indonesia\'s F&B simulator"')
    expect(extract(user(`grep -q '"readme":{' out.json`))).toContain(`'"readme":{'`)
  })
})

describe('a key and its number', () => {
  it('a quoted key keeps both its quotes (no stray quote)', () => {
    const content = ['{', '  "total_frames": 22,', '  "SemiDwell": 500.0,', '  "collider_diameter_m": 2', '}'].join('\n')
    const items = extract(write(content))
    expect(items.filter((text) => /^[A-Za-z_][\w]*": /.test(text))).toEqual([])
    expect(items).toContain('"total_frames": 22')
    expect(items).toContain('"SemiDwell": 500.0')
  })
})

describe('a placeholder URL', () => {
  it('(https://doi.org/XXXXXXX.XXXXXXX) is no item; a real DOI is', () => {
    const items = extract(assistant('Template reference: https://doi.org/XXXXXXX.XXXXXXX and the paper https://doi.org/10.1145/3706598.3713530'))
    expect(items.filter((text) => text.includes('XXXX'))).toEqual([])
    expect(items).toContain('https://doi.org/10.1145/3706598.3713530')
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// A final re-test (session 11, after patches became payloads): an apply_patch bumping a Gradle dependency and a
// package.json devDependency gave the two file names and a bare `^2.1.9`; the new Spring Boot and OkHttp coordinates
// were lost, and `^2.1.9` said nothing of which package it pins. A payload's added pins are items with their name: a
// Maven/Gradle coordinate `group:artifact:version` whole (as `requests==2.32.3` is), a manifest's `"name": "range"`
// pair as the planner's changed-decision scan keys it (`pin:vitest`, from the key's quote to the value's). The inputs
// have the re-test's shape (/work/notes/repros/session11/R/codex-gradle-patch.jsonl), not a log's text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const call = (name: string, args: unknown): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name, arguments: args as never }] })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const extract = (message: Message) => texts(full.extract(message, 0))

const patch = [
  '*** Begin Patch',
  '*** Update File: build.gradle',
  '@@ dependencies {',
  "-    implementation 'org.springframework.boot:spring-boot-starter-web:3.2.1'",
  "+    implementation 'org.springframework.boot:spring-boot-starter-web:3.3.4'",
  '+    implementation "com.squareup.okhttp3:okhttp:4.12.0"',
  '*** Update File: package.json',
  '@@',
  '-    "vitest": "^1.6.0",',
  '+    "vitest": "^2.1.9",',
  '*** End Patch',
].join('\n')

describe("a patch's added dependency pins", () => {
  it('are items with their name: the coordinates whole (single or double quotes), the manifest pair whole', () => {
    // The hand-read answer: the two files, the two coordinates added, the vitest pair added; nothing removed.
    expect(extract(call('apply_patch', patch))).toEqual([
      'build.gradle',
      'org.springframework.boot:spring-boot-starter-web:3.3.4',
      'com.squareup.okhttp3:okhttp:4.12.0',
      'package.json',
      '"vitest": "^2.1.9"',
    ])
  })

  it('the same in a unified diff fed to git apply by a heredoc, context lines not', () => {
    const script = [
      "git apply <<'EOF'",
      'diff --git a/build.gradle b/build.gradle',
      '--- a/build.gradle',
      '+++ b/build.gradle',
      '@@ -10,7 +10,7 @@ dependencies {',
      "-    implementation 'org.springframework.boot:spring-boot-starter-web:3.2.1'",
      "+    implementation 'org.springframework.boot:spring-boot-starter-web:3.3.4'",
      "     testImplementation 'junit:junit:4.13.2'",
      "+    implementation 'io.ktor:ktor-server-core:2.3.12'",
      ' }',
      'EOF',
    ].join('\n')
    const items = extract(call('shell', { command: ['bash', '-lc', script] }))
    expect(items).toContain('org.springframework.boot:spring-boot-starter-web:3.3.4')
    expect(items).toContain('io.ktor:ktor-server-core:2.3.12')
    expect(items.some((text) => text.includes('3.2.1') || text.includes('junit'))).toBe(false)
  })

  it("a file written whole keeps each dependency's pin with its name", () => {
    const manifest = JSON.stringify({ name: 'web', version: '0.4.0', private: true, scripts: { test: 'vitest run', build: 'vite build' }, devDependencies: { vitest: '^2.1.9', typescript: '~5.6.3', vite: '5.4.10' }, dependencies: { react: '>=18.3.1' } }, null, 2)
    const items = extract(call('Write', { file_path: 'package.json', content: manifest.padEnd(320, '\n') }))
    for (const pair of ['"version": "0.4.0"', '"vitest": "^2.1.9"', '"typescript": "~5.6.3"', '"vite": "5.4.10"', '"react": ">=18.3.1"']) expect(items).toContain(pair)
    // No bare version beside its pair.
    expect(items.filter((text) => /^[\^~>=]*\d/.test(text))).toEqual([])
  })

  it('no pin: a value that is no version, a key that is no name, a colon triple without a dotted version', () => {
    const lines = [
      '+  "target": "ES2022",',
      '+  "engines": ">=20",',
      '+  "a\\"b": "^1.2.3",',
      '+  "a b": "^1.2.4",',
      '+  x "^3.4.5"',
      '+  src/app.ts:12:5',
      '+  host:port:8080 db.internal:postgres:5432 fatal:OSError:1.5',
      '+  12:30:1.5',
    ]
    const items = extract(call('apply_patch', ['*** Begin Patch', '*** Update File: notes.txt', ...lines, '*** End Patch'].join('\n')))
    // `>=20` stays the threshold it was (a number, not a version), never a pair.
    expect(items.some((text) => text.includes('ES2022') || text.includes('"engines"') || text.includes('host:port') || text.includes('postgres') || text.includes('OSError') || text.includes('12:30'))).toBe(false)
    expect(items.some((text) => text.startsWith('"a') || text.includes('b"') || text.startsWith('x '))).toBe(false)
    expect(items).toContain('^3.4.5')
  })

  it('in prose a coordinate is a version item too', () => {
    const message: Message = { role: 'user', parts: [{ type: 'text', text: 'Pin com.squareup.okhttp3:okhttp:4.12.0 and keep junit:junit:4.13.2 as it is.' }] }
    const items = extract(message)
    expect(items).toContain('com.squareup.okhttp3:okhttp:4.12.0')
    expect(items).toContain('junit:junit:4.13.2')
  })
})

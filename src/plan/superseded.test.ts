import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { assistant, call, result, user } from './__fixtures__/test-estimator.js'
import { findAssignments, findSupersededState, markEffects, resolveSupersession, scanAssignments, sideBySideValues, type StateAssignment } from './superseded.js'
import type { Message } from '../spec/transcript.js'

/** A string stand-in that counts the characters read through it (`charCodeAt`, and each unit a slice copies). */
function countingText(text: string) {
  const view = {
    reads: 0,
    length: text.length,
    charCodeAt(index: number) {
      view.reads++
      return text.charCodeAt(index)
    },
    slice(start?: number, end?: number) {
      const piece = text.slice(start, end)
      view.reads += piece.length
      return piece
    },
  }
  return view
}

function scan(text: string): Array<[string, string]> {
  const out: StateAssignment[] = []
  scanAssignments(text, 0, text.length, 0, false, out)
  return out.map((entry) => [entry.key, entry.value])
}

describe('scanAssignments', () => {
  test('finds pins in pip, npm and package.json syntax', () => {
    expect(scan('pip install requests==2.31.0 and numpy>=1.26 fsspec>=2023.1,<2024.3, done')).toEqual([
      ['pin:requests', '==2.31.0'],
      ['pin:numpy', '>=1.26'],
      ['pin:fsspec', '>=2023.1,<2024.3'],
    ])
    expect(scan('npm i left-pad@1.3.0 @types/node@^20.19.25')).toEqual([
      ['pin:left-pad', '1.3.0'],
      ['pin:@types/node', '^20.19.25'],
    ])
    expect(scan('{"react": "^18.2.0", "vite": "~5.1"}')).toEqual([
      ['pin:react', '^18.2.0'],
      ['pin:vite', '~5.1'],
    ])
  })

  test('finds env assignments with any value and numeric thresholds', () => {
    expect(scan('export API_URL=https://x.test/v1 MAX_RETRIES="3"')).toEqual([
      ['var:API_URL', 'https://x.test/v1'],
      ['var:MAX_RETRIES', '3'],
    ])
    expect(scan('set timeout: 30s, threshold = 0.85; ratio=85%')).toEqual([
      ['var:timeout', '30s'],
      ['var:threshold', '0.85'],
      ['var:ratio', '85%'],
    ])
    expect(scan('{"retries": 5}')).toEqual([['var:retries', '5']])
  })

  test('ignores reports, references and type annotations', () => {
    expect(scan('Tokens: 1.8k sent, 653 received. Tests: 5 passed')).toEqual([])
    expect(scan('see arXiv:2504.12216 and sampler.py:74 on localhost:8080')).toEqual([])
    expect(scan('def f(block_size: int = 128):')).toEqual([])
  })

  test('finds a Maven/Gradle coordinate, keyed by its group and artifact (each artifact of a group its own decision)', () => {
    // A final re-test: a patch bumping spring-boot-starter-web 3.2.1 -> 3.3.4 left both current.
    expect(scan("implementation 'org.springframework.boot:spring-boot-starter-web:3.3.4' and com.squareup.okhttp3:okhttp:4.12.0")).toEqual([
      ['pin:org.springframework.boot:spring-boot-starter-web', '3.3.4'],
      ['pin:com.squareup.okhttp3:okhttp', '4.12.0'],
    ])
    // No coordinate: a version without a dot, a longer chain, a capitalised part, a path with a line and column.
    expect(scan('org.example:lib:5 and a:b:1.2:c and fatal:OSError:1.5 at src/app.ts:12:3')).toEqual([])
  })

  test('finds a container image with its tag, keyed by the image name and the build stage it starts', () => {
    expect(scan('FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel AS builder, then ghcr.io/org/app:v1.2.3 and python:3.11-slim.')).toEqual([
      ['image:pytorch/pytorch (builder)', '2.4.0-cuda12.1-cudnn9-devel'],
      ['image:ghcr.io/org/app', 'v1.2.3'],
      ['image:python', '3.11-slim'],
    ])
    // A line number, a port, a URL and a status with an id are no images.
    expect(scan('at src/app.ts:12 on localhost:8080, see https://ghcr.io/org/app:v1.2.3 and error:123e4567-e89b')).toEqual([])
  })

  test('ignores comparisons, e-mail addresses, prose and non-numeric values', () => {
    expect(scan('if x==1 then mail me@example.com; note: see above; i = 0; name: foo; step 1: go')).toEqual([])
    expect(scan('v==1 without a dot, pkg@latest')).toEqual([])
  })

  test('reads JSON-escaped tool arguments', () => {
    const message = assistant('', call('c1', 'bash', { command: 'echo "x" && FOO=bar pip install django==4.2.1' }))
    expect(findAssignments(message, 7).map((entry) => [entry.key, entry.value, entry.message])).toEqual([
      ['var:FOO', 'bar', 7],
      ['pin:django', '==4.2.1', 7],
    ])
  })

  test('offsets point into the rendered text', () => {
    const message = user('please pin requests==2.31.0 now')
    const [entry] = findAssignments(message, 0)
    expect(entry && 'please pin requests==2.31.0 now'.slice(entry.start, entry.end)).toBe('requests==2.31.0')
  })

  test('scans long text in linear time (reads counted, not timed)', () => {
    // Each input is read through a counting view, so the check is deterministic: reads grow with the text, no faster.
    const reads = (size: number) => {
      const text = 'a'.repeat(4 * size) + '=' + 'b1.'.repeat(size) + ' k==1.0 v@2.3 "p": "^1.2" TT=3 timeout: 30, word'.repeat(size / 50)
      const view = countingText(text)
      const found: StateAssignment[] = []
      scanAssignments(view as unknown as string, 0, view.length, 0, false, found)
      expect(found.length).toBe(5 * (size / 50))
      return { reads: view.reads, length: text.length }
    }
    const small = reads(5_000)
    const large = reads(20_000)
    expect(large.reads / small.reads).toBeLessThan(4 * 1.2)
    expect(large.reads).toBeLessThan(8 * large.length)
  })

  test('never throws and keeps spans inside the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '_', '=', '@', '"', ':', ' ', '1', '.', '\\', '^', '/', '-', '\n') }), (text) => {
        const out: StateAssignment[] = []
        scanAssignments(text, 0, text.length, 0, true, out)
        for (const entry of out) {
          expect(entry.start).toBeGreaterThanOrEqual(0)
          expect(entry.end).toBeLessThanOrEqual(text.length)
          expect(text.slice(entry.start, entry.end)).toBe(entry.text)
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('findSupersededState', () => {
  test('marks a pin and its revert: the latest is current', () => {
    const messages = [
      user('use requests==2.31.0 for now'),
      assistant('', call('c1', 'bash', { command: 'pip install requests==2.31.0' })),
      result('c1', 'Successfully installed requests==2.32.0'),
      assistant('that broke the build; reverting to requests==2.30.0'),
    ]
    const state = findSupersededState(messages, 10)
    expect(state.map((entry) => [entry.key, entry.value, entry.message, entry.status])).toEqual([
      ['pin:requests', '==2.31.0', 10, 'superseded'],
      ['pin:requests', '==2.31.0', 11, 'superseded'],
      ['pin:requests', '==2.30.0', 13, 'current'],
    ])
    expect(state[0]?.supersededBy).toEqual({ message: 13, value: '==2.30.0' })
  })

  test('a value set back to an earlier one makes that earlier value current too', () => {
    const state = findSupersededState([user('timeout: 30'), user('timeout: 60'), user('timeout: 30')])
    expect(state.map((entry) => entry.status)).toEqual(['current', 'superseded', 'current'])
  })

  test('keys set once, or always to the same value, are not state changes', () => {
    expect(findSupersededState([user('timeout: 30 and MAX=1'), assistant('timeout: 30 MAX=1')])).toEqual([])
  })

  test('tool results and reasoning are observations, not decisions', () => {
    const messages = [
      user('timeout: 30'),
      result('c', 'timeout: 10'),
      { role: 'assistant' as const, parts: [{ type: 'reasoning' as const, text: 'timeout: 90' }] },
    ]
    expect(findSupersededState(messages)).toEqual([])
  })
})

describe('changed decisions written into files (issue 10)', () => {
  // A file's content is long: a payload. Its pins are decisions; its other assignments are code.
  const longFile = (...lines: string[]) => [...lines, ...Array.from({ length: 30 }, (_, index) => `step_${index} = ${index}`)].join('\n')

  test('a changed base image and a changed pin in files are chained, the last current', () => {
    const messages = [
      // A multi-stage build: one image name in two stages, two decisions.
      assistant('', call('c1', 'Write', { file_path: '/repo/Dockerfile', content: longFile('FROM pytorch/pytorch:2.2.0-cuda12.1-cudnn8-devel AS builder', 'FROM pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime') })),
      assistant('', call('c2', 'Write', { file_path: '/repo/requirements.txt', content: longFile('torch==2.2.0', 'numpy>=1.26') })),
      user('the 2.2 image has no flash-attn wheels; move to 2.4'),
      assistant('', call('c3', 'Write', { file_path: '/repo/Dockerfile', content: longFile('FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel as builder', 'FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime') })),
      assistant('', call('c4', 'Edit', { file_path: '/repo/requirements.txt', old_string: 'torch==2.2.0', new_string: 'torch==2.4.0' })),
    ]
    const state = findSupersededState(messages)
    expect(state.map((entry) => [entry.key, entry.value, entry.message, entry.status])).toEqual([
      ['image:pytorch/pytorch (builder)', '2.2.0-cuda12.1-cudnn8-devel', 0, 'superseded'],
      ['image:pytorch/pytorch', '2.2.0-cuda12.1-cudnn8-runtime', 0, 'superseded'],
      ['pin:torch', '==2.2.0', 1, 'superseded'],
      ['image:pytorch/pytorch (builder)', '2.4.0-cuda12.1-cudnn9-devel', 3, 'current'],
      ['image:pytorch/pytorch', '2.4.0-cuda12.1-cudnn9-runtime', 3, 'current'],
      ['pin:torch', '==2.2.0', 4, 'superseded'],
      ['pin:torch', '==2.4.0', 4, 'current'],
    ])
  })

  test('the assignments of a file\'s code are not decisions', () => {
    // `step_0 = 0` … in two writes of different files: code, never a changed decision; a short edit's are still read.
    const messages = [
      assistant('', call('c1', 'Write', { file_path: '/repo/a.py', content: longFile('batch_size = 32') })),
      assistant('', call('c2', 'Write', { file_path: '/repo/b.py', content: longFile('batch_size = 64') })),
    ]
    expect(findSupersededState(messages)).toEqual([])
    expect(findSupersededState([...messages, assistant('', call('c3', 'Edit', { file_path: '/repo/a.py', old_string: 'batch_size = 32', new_string: 'batch_size = 16' }))]).map((entry) => [entry.value, entry.status])).toEqual([
      ['32', 'superseded'],
      ['16', 'current'],
    ])
  })
})

describe('one name in several files (a re-test on a real session)', () => {
  // `default: 1` in a.ts and `default: 7` in b.ts were one key, so a.ts's value was reported superseded by b.ts's.
  test('is a setting of each file: neither file\'s value replaces the other\'s', () => {
    const messages = [
      assistant('', call('c1', 'Write', { file_path: 'src/a.ts', content: 'export const opts = { default: 1 }\n' })),
      assistant('', call('c2', 'Write', { file_path: 'src/b.ts', content: 'export const other = { default: 7 }\n' })),
    ]
    expect(findSupersededState(messages)).toEqual([])
    // Each file's own change is still a changed decision, keyed by its file.
    const edited = [...messages, assistant('', call('c3', 'Edit', { file_path: 'src/b.ts', old_string: 'default: 7', new_string: 'default: 9' }))]
    expect(findSupersededState(edited).map((entry) => [entry.key, entry.value, entry.status])).toEqual([
      ['var:default@src/b.ts', '7', 'superseded'],
      ['var:default@src/b.ts', '7', 'superseded'],
      ['var:default@src/b.ts', '9', 'current'],
    ])
  })

  test('a name written to one file stays one decision with what the user said of it', () => {
    const messages = [
      user('use max_paths = 10'),
      assistant('', call('c1', 'Edit', { file_path: 'src/config.py', old_string: 'max_paths = 5', new_string: 'max_paths = 10' })),
      user('make it larger'),
      assistant('', call('c2', 'Edit', { file_path: 'src/config.py', old_string: 'max_paths = 10', new_string: 'max_paths = 50' })),
    ]
    const state = findSupersededState(messages)
    expect(new Set(state.map((entry) => entry.key))).toEqual(new Set(['var:max_paths']))
    expect(state.filter((entry) => entry.status === 'current').map((entry) => entry.value)).toEqual(['50'])
    expect(state.find((entry) => entry.message === 0)).toMatchObject({ value: '10', status: 'superseded' })
    expect(state.every((entry) => !('file' in entry))).toBe(true)
  })
})

describe('records side by side and one package in several files (re-tests on real logs, issue 11)', () => {
  test('a JSON array of records sets each key once per record: no record supersedes its sibling', () => {
    const findings = JSON.stringify([
      { title: 'P1', confidence_score: 0.56, priority: 1, start: 11 },
      { title: 'P2', confidence_score: 0.45, priority: 2, start: 31 },
    ])
    expect(findSupersededState([assistant(`Findings:\n${findings}`)])).toEqual([])
    // A later message's value still replaces them.
    const later = findSupersededState([assistant(`Findings:\n${findings}`), user('For both, confidence_score: 0.7.')])
    expect(later.filter((entry) => entry.key === 'var:confidence_score').map((entry) => [entry.value, entry.status])).toEqual([
      ['0.56', 'superseded'],
      ['0.45', 'superseded'],
      ['0.7', 'current'],
    ])
    // In prose, the later value in one message is still the change.
    expect(findSupersededState([user('threshold: 0.8. Then threshold: 0.9.')]).map((entry) => [entry.value, entry.status])).toEqual([
      ['0.8', 'superseded'],
      ['0.9', 'current'],
    ])
  })

  test("a system prompt's values of one key are side by side, not a change (a re-test: a Codex prompt's allowed FREQ values were superseded by its example)", () => {
    const prompt: Message = { role: 'system', parts: [{ type: 'text', text: 'Only hourly (FREQ=HOURLY;INTERVAL=2) and weekly schedules (FREQ=WEEKLY;BYDAY=MO) are allowed.\nExample: FREQ=DAILY;BYHOUR=9' }] }
    expect(findSupersededState([prompt])).toEqual([])
    // The conversation's own value still replaces the prompt's.
    const later = findSupersededState([prompt, user('Make it FREQ=WEEKLY from now on.')])
    expect(later.filter((entry) => entry.status === 'current').map((entry) => entry.value)).toEqual(['WEEKLY', 'WEEKLY'])
    expect(later.filter((entry) => entry.status === 'superseded').map((entry) => entry.value)).toEqual(['HOURLY', 'DAILY'])
  })

  test('a package pinned in two files is a pin of each file', () => {
    const messages = [
      assistant('', call('c1', 'Write', { file_path: 'services/api/requirements.txt', content: 'stripe==7.1.0\n' })),
      assistant('', call('c2', 'Write', { file_path: 'services/worker/requirements.txt', content: 'stripe==5.4.0\n' })),
    ]
    expect(findSupersededState(messages)).toEqual([])
    const bumped = [...messages, assistant('', call('c3', 'Edit', { file_path: 'services/worker/requirements.txt', old_string: 'stripe==5.4.0', new_string: 'stripe==5.5.0' }))]
    expect(findSupersededState(bumped).map((entry) => [entry.key, entry.value, entry.status])).toEqual([
      ['pin:stripe@services/worker/requirements.txt', '==5.4.0', 'superseded'],
      ['pin:stripe@services/worker/requirements.txt', '==5.4.0', 'superseded'],
      ['pin:stripe@services/worker/requirements.txt', '==5.5.0', 'current'],
    ])
  })
})

describe('changed decisions: questions, negations and "X instead of Y" (issue 11)', () => {
  const statuses = (messages: Parameters<typeof findSupersededState>[0]) =>
    findSupersededState(messages).map((entry) => [entry.message, entry.text, entry.status])

  test('"Actually use X instead of Y" makes X current and Y superseded', () => {
    expect(statuses([user('pin requests==2.31.0 please'), user('Actually use requests==2.32.3 instead of requests==2.31.0')])).toEqual([
      [0, 'requests==2.31.0', 'superseded'],
      [1, 'requests==2.32.3', 'current'],
      [1, 'requests==2.31.0', 'superseded'],
    ])
    expect(statuses([user('Actually use requests==2.32.3 instead of requests==2.31.0')])).toEqual([
      [0, 'requests==2.32.3', 'current'],
      [0, 'requests==2.31.0', 'superseded'],
    ])
  })

  test.each([
    ['Use `requests==2.32.3` rather than `requests==2.31.0`.'],
    ['Replace requests==2.31.0 with requests==2.32.3.'],
    ['Switch from requests==2.31.0 to requests==2.32.3'],
    ['requests==2.31.0 -> requests==2.32.3'],
    ['bump requests==2.31.0 → requests==2.32.3'],
  ])('%s: the new value is current', (text) => {
    const state = findSupersededState([user('use requests==2.31.0'), assistant(text)])
    expect(state.filter((entry) => entry.status === 'current').map((entry) => entry.value)).toEqual(['==2.32.3'])
    expect(state.filter((entry) => entry.value === '==2.31.0').every((entry) => entry.status === 'superseded')).toBe(true)
  })

  test("an assistant's question, or a negation, does not flip the user's pin", () => {
    const pin = user('pin fsspec>=2023.1,<2024.3 for now')
    expect(statuses([pin, assistant('Should I use fsspec==2024.6.1 instead? I will not')])).toEqual([
      [0, 'fsspec>=2023.1,<2024.3', 'current'],
      [1, 'fsspec==2024.6.1', 'superseded'],
    ])
    for (const text of ["Don't use fsspec==2024.6.1.", 'We should never pin fsspec==2024.6.1', 'not fsspec==2024.6.1', 'Avoid fsspec==2024.6.1 here']) {
      expect(findSupersededState([pin, assistant(text)]).find((entry) => entry.status === 'current')?.message, text).toBe(0)
    }
    // A negation ends with its clause: the value after the comma is set.
    expect(statuses([pin, user("I don't know why, but use fsspec==2024.6.1")]).at(-1)).toEqual([1, 'fsspec==2024.6.1', 'current'])
  })

  test('questions and negations link no superseded-decision unit', () => {
    const effects = findAssignments(assistant('Should I use fsspec==2024.6.1? No. Use fsspec==2024.5.0 instead of fsspec==2024.6.1.'), 0)
    expect(effects.map((entry) => [entry.value, entry.effect])).toEqual([
      ['==2024.6.1', 'none'],
      ['==2024.5.0', 'set'],
      ['==2024.6.1', 'replaced'],
    ])
  })

  test('tool-call arguments are actions: a command sets its value whatever it says', () => {
    const message = assistant('', call('c', 'bash', { command: "pip install requests==2.32.3 || echo 'not installed?'" }))
    expect(findAssignments(message, 0).map((entry) => entry.effect ?? 'set')).toEqual(['set'])
    expect(findSupersededState([user('use requests==2.31.0'), message]).find((entry) => entry.status === 'current')?.value).toBe('==2.32.3')
  })

  test("an edit's old text is replaced whichever field comes first", () => {
    const edit = assistant('', call('e', 'edit_file', { path: 'requirements.txt', new_string: 'fsspec>=2023.1,<2024.3\n', old_string: 'fsspec==2024.6.1\n' }))
    expect(findAssignments(edit, 3).map((entry) => [entry.value, entry.effect ?? 'set'])).toEqual([
      ['>=2023.1,<2024.3', 'set'],
      ['==2024.6.1', 'replaced'],
    ])
    expect(findSupersededState([edit]).map((entry) => [entry.value, entry.status])).toEqual([
      ['>=2023.1,<2024.3', 'current'],
      ['==2024.6.1', 'superseded'],
    ])
  })

  test('a URL query or a version is not a sentence end', () => {
    const found: StateAssignment[] = []
    const text = 'see https://x.test/?a=1 and v2.3 then timeout: 30, ok'
    scanAssignments(text, 0, text.length, 0, false, found)
    expect(markEffects(text, 0, text.length, found).map((entry) => entry.effect)).toEqual(['set'])
  })

  test('effects are found in linear time (reads counted, not timed)', () => {
    const reads = (size: number) => {
      const sentence = 'Should I not use requests==2.31.0 instead of requests==2.30.0? Replace k==1.0 -> k==2.0, or '
      const plain = sentence.repeat(size)
      const found: StateAssignment[] = []
      scanAssignments(plain, 0, plain.length, 0, false, found)
      const view = countingText(plain)
      markEffects(view as unknown as string, 0, plain.length, found)
      return { reads: view.reads, length: plain.length }
    }
    const small = reads(200)
    const large = reads(800)
    expect(large.reads / small.reads).toBeLessThan(4 * 1.2)
    expect(large.reads).toBeLessThan(4 * large.length)
  })
})

/** The plain meaning of a sequence of mentions (written again here, not imported): which value is in force. */
function valueInForce(mentions: ReadonlyArray<{ value: string; effect: 'set' | 'replaced' | 'none' }>): string | undefined {
  let current: string | undefined
  for (const mention of mentions) {
    if (mention.effect === 'set') current = mention.value
    if (mention.effect === 'replaced' && mention.value === current) current = undefined
  }
  return current
}

describe('changed decisions (property)', () => {
  const key = fc.constantFrom('requests', 'numpy', 'left-pad')
  const version = fc.constantFrom('1.0', '1.1', '2.0', '2.5.1')
  /** A sentence template and the effects its two mentions have, as a reader of English would say. */
  const sentence = fc.oneof(
    fc.record({ form: fc.constant('set'), key, a: version, b: version }),
    fc.record({ form: fc.constantFrom('question', 'negation', 'instead', 'rather', 'replace', 'switch', 'arrow', 'command'), key, a: version, b: version }),
  )
  type Sentence = { form: string; key: string; a: string; b: string }
  const render = ({ form, key, a, b }: Sentence): { message: Parameters<typeof findSupersededState>[0][number]; mentions: Array<{ value: string; effect: 'set' | 'replaced' | 'none' }> } => {
    const x = `${key}==${a}`
    const y = `${key}==${b}`
    const pair = (first: 'set' | 'replaced' | 'none', second: 'set' | 'replaced' | 'none') => [
      { value: `==${a}`, effect: first },
      { value: `==${b}`, effect: second },
    ]
    switch (form) {
      case 'set':
        return { message: user(`Please use ${x} from now on.`), mentions: [{ value: `==${a}`, effect: 'set' }] }
      case 'question':
        return { message: assistant(`Should I use ${x} instead? I will not.`), mentions: [{ value: `==${a}`, effect: 'none' }] }
      case 'negation':
        return { message: user(`Do not install ${x}.`), mentions: [{ value: `==${a}`, effect: 'none' }] }
      case 'instead':
        return { message: user(`Actually use ${x} instead of ${y}.`), mentions: pair('set', 'replaced') }
      case 'rather':
        return { message: user(`Go with \`${x}\` rather than \`${y}\`.`), mentions: pair('set', 'replaced') }
      case 'replace':
        return { message: user(`Replace ${x} with ${y}.`), mentions: pair('replaced', 'set') }
      case 'switch':
        return { message: assistant(`I will switch from ${x} to ${y} now.`), mentions: pair('replaced', 'set') }
      case 'arrow':
        return { message: assistant(`Changed ${x} -> ${y}`), mentions: pair('replaced', 'set') }
      default:
        return { message: assistant('', call('c', 'bash', { command: `pip install ${x}` })), mentions: [{ value: `==${a}`, effect: 'set' }] }
    }
  }

  test('whatever the sequence, each key has exactly one current value, the last one in force', () => {
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 12 }), (sentences) => {
        const rendered = sentences.map(render)
        const state = findSupersededState(rendered.map((entry) => entry.message))
        for (const name of ['requests', 'numpy', 'left-pad']) {
          const mentions = rendered.flatMap((entry, index) => (sentences[index]!.key === name ? entry.mentions : []))
          const expected = valueInForce(mentions)
          const distinct = new Set(mentions.map((mention) => mention.value))
          const ofKey = state.filter((entry) => entry.key === `pin:${name}`)
          if (expected === undefined || distinct.size < 2) {
            expect(ofKey).toEqual([])
            continue
          }
          expect(ofKey).toHaveLength(mentions.length)
          expect([...new Set(ofKey.filter((entry) => entry.status === 'current').map((entry) => entry.value))]).toEqual([expected])
          for (const entry of ofKey) expect(entry.status).toBe(entry.value === expected ? 'current' : 'superseded')
        }
      }),
      { numRuns: 400, seed: 11 },
    )
  })

  test('resolveSupersession: exactly one current value per key, the last one in force, for any effects', () => {
    const mention = fc.record({ key: fc.constantFrom('a', 'b'), value: fc.constantFrom('1', '2', '3'), effect: fc.constantFrom('set' as const, 'replaced' as const, 'none' as const) })
    fc.assert(
      fc.property(fc.array(mention, { maxLength: 15 }), (mentions) => {
        const assignments: StateAssignment[] = mentions.map((entry, index) => ({ ...entry, kind: 'assignment', text: `${entry.key}=${entry.value}`, message: index, start: 0, end: 3 }))
        const state = resolveSupersession(assignments)
        for (const name of ['a', 'b']) {
          const ofKey = mentions.filter((entry) => entry.key === name)
          const expected = valueInForce(ofKey)
          const reported = state.filter((entry) => entry.key === name)
          if (expected === undefined || new Set(ofKey.map((entry) => entry.value)).size < 2) expect(reported).toEqual([])
          else expect([...new Set(reported.filter((entry) => entry.status === 'current').map((entry) => entry.value))]).toEqual([expected])
        }
      }),
      { numRuns: 500, seed: 12 },
    )
  })
})

describe('one key in one message: a change only when something says so (a re-test: a gemini-cli rule per tool, metaphi-gem49)', () => {
  const values = (text: string) => findSupersededState([user(text)]).map((entry) => [entry.value, entry.status])

  test("each tool's rule stands beside the others: no rule is superseded by another tool's", () => {
    const rules = 'CRITICAL - Depth Control:\n- mcp__figma__get_figma_file returns depth=1 by default\n- mcp__figma__get_node_tree: always use depth=1 or depth=2\n- mcp__figma__get_figma_file_nodes: always pass depth=1\n'
    expect(values(rules)).toEqual([])
    expect(findAssignments(user(rules), 0).map((entry) => [entry.text, entry.effect])).toEqual([
      ['depth=2', 'none'],
      ['depth=1', 'none'],
    ])
    // A later message's value still replaces them all.
    const later = findSupersededState([user(rules), user('From now on, depth=3.')])
    expect(later.filter((entry) => entry.status === 'current').map((entry) => entry.value)).toEqual(['3'])
    expect(later.filter((entry) => entry.status === 'superseded').map((entry) => entry.value)).toEqual(['2', '1'])
  })

  test.each([
    ['alternatives in one sentence', 'For large files use depth=1, or depth=2.'],
    ['an enumeration in one sentence', 'Use timeout: 30 (reads), timeout: 60 (writes)'],
    ['sentences naming different subjects', 'For get_node_tree use depth=2. For get_figma_file_nodes use depth=1.'],
    ['labelled list items', '- training: set rate=0.001\n- finetuning: set rate=0.0001\n'],
    ['subjects after the value', 'Pass depth=2, to get_node_tree. Pass depth=1, to get_figma_file_nodes.'],
  ])('%s stand side by side', (_name, text) => {
    expect(values(text)).toEqual([])
  })

  test.each([
    ['then', 'threshold: 0.8. Then threshold: 0.9.'],
    ['now', 'We had depth=1 (get_node_tree). Now depth=2 (get_figma_file).'],
    ['actually', '- get_node_tree: use depth=1\n- actually get_figma_file: use depth=2'],
    ['no wait', 'Use depth=1, no wait, depth=2.'],
    ['set … to', 'get_file: use depth=1; set get_tree to use depth=2.'],
    ['rather', 'get_file: use depth=1. Rather, get_tree: use depth=2.'],
    ['an arrow', 'get_file: use depth=1 => get_tree: use depth=2'],
    ['one subject', 'Try threshold: 0.8.\nWe keep threshold: 0.9.'],
    ['one named subject', 'For get_node_tree use depth=1. For get_node_tree, depth=2.'],
  ])('a change word (%s) or one subject keeps the order: the later value is current', (_name, text) => {
    const state = values(text)
    expect(state.at(-1)?.[1]).toBe('current')
    expect(state[0]?.[1]).toBe('superseded')
  })

  test('a change into values side by side takes the earlier value out of force', () => {
    const text = 'Use depth=3. Actually, get_node_tree: use depth=1, or depth=2.'
    expect(findAssignments(user(text), 0).map((entry) => [entry.value, entry.effect])).toEqual([
      ['3', 'replaced'],
      ['1', 'none'],
      ['2', 'none'],
    ])
    expect(values(text)).toEqual([])
  })

  test('tool-call arguments keep their order (a command runs in order)', () => {
    const message = assistant('', call('c', 'bash', { command: 'pip install requests==2.31.0 && pip install requests==2.32.3' }))
    expect(findSupersededState([message]).map((entry) => [entry.value, entry.status])).toEqual([
      ['==2.31.0', 'superseded'],
      ['==2.32.3', 'current'],
    ])
  })

  test('side-by-side values are found in linear time (reads counted, not timed)', () => {
    const reads = (size: number) => {
      const unit = '- tool_a: use depth=1 or depth=2, then timeout: 3. For tool_b, depth=4 and k==1.0 -> k==2.0\n'
      const plain = unit.repeat(size)
      const message = user(plain)
      const view = countingText(plain)
      const found: StateAssignment[] = []
      scanAssignments(plain, 0, plain.length, 0, false, found)
      const marked = markEffects(plain, 0, plain.length, found)
      sideBySideValues(view as unknown as string, 0, plain.length, marked)
      expect(findAssignments(message, 0).length).toBe(found.length)
      return { reads: view.reads, length: plain.length }
    }
    const small = reads(200)
    const large = reads(800)
    expect(large.reads / small.reads).toBeLessThan(4 * 1.2)
    expect(large.reads).toBeLessThan(4 * large.length)
  })
})

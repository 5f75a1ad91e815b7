import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { assistant, call, result, user } from './__fixtures__/test-estimator.js'
import { findAssignments, findSupersededState, scanAssignments, type StateAssignment } from './superseded.js'

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

  test('scans long text in linear time', () => {
    const blob = 'a'.repeat(400_000) + '=' + 'b1.'.repeat(100_000)
    const started = performance.now()
    scan(blob)
    expect(performance.now() - started).toBeLessThan(1000)
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

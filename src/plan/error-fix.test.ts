import { describe, expect, test } from 'vitest'
import type { ToolCallPart } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'
import { assistant, call, result, user } from './__fixtures__/test-estimator.js'
import { createErrorFixLinker, isFailingLine, isFailingResult, toolKeyOf } from './error-fix.js'

const ok = (content: string) => ({ content, isError: false })

describe('isFailingResult', () => {
  test('the error flag, a non-zero exit code, or an error line fails a result', () => {
    expect(isFailingResult({ content: 'fine', isError: true })).toBe(true)
    expect(isFailingResult(ok('build output\nExit code: 2'))).toBe(true)
    expect(isFailingResult(ok('process exited with code 1'))).toBe(true)
    expect(isFailingResult(ok('Traceback (most recent call last):\n  File "x.py"'))).toBe(true)
    expect(isFailingResult(ok("  ModuleNotFoundError: No module named 'x'"))).toBe(true)
    expect(isFailingResult(ok('cat: /etc/app.conf: No such file or directory'))).toBe(true)
    expect(isFailingResult(ok('src/a.ts(3,1): error TS2322: Type'))).toBe(true)
    expect(isFailingResult(ok('FAILED tests/test_a.py::test_b'))).toBe(true)
  })

  test('ordinary output, and an explicit exit code 0, do not', () => {
    expect(isFailingResult(ok('3 passed in 0.2s'))).toBe(false)
    expect(isFailingResult(ok('error handling is described below'))).toBe(false)
    expect(isFailingResult(ok('warning: error: deprecated flag\nexit code 0'))).toBe(false)
    expect(isFailingResult(ok(''))).toBe(false)
  })
})

describe('isFailingLine (the one definition of a failing line)', () => {
  test.each([
    ['error: linker failed', true],
    ['  Traceback (most recent call last):', true],
    ['E   assert 1 == 2', true],
    ['TypeError: x is not a function', true],
    ['src/a.c:3:1: error: expected ;', true],
    ['write: No space left on device', true],
    ['fatal: not a git repository (or any parent)', true],
    ['the error handling is described below', false],
    ['3 passed, 0 failed', false],
    ['except ValueError:', false],
  ])('%j → %s', (line, failing) => {
    expect(isFailingLine(line)).toBe(failing)
  })

  test('a read or fetch result is data: only its first line can say it failed', () => {
    const file = { content: '     1\u2192import os\n     2\u2192# Error: raised when the path is missing\n     3\u2192msg = "No such file or directory"', isError: false }
    expect(isFailingResult(file)).toBe(true)
    expect(isFailingResult(file, { output: 'data' })).toBe(false)
    expect(isFailingResult({ content: '\n<tool_use_error>File does not exist.</tool_use_error>', isError: false }, { output: 'data' })).toBe(true)
    expect(isFailingResult({ content: 'Error: ENOENT', isError: false }, { output: 'data' })).toBe(true)
  })
})

describe('toolKeyOf', () => {
  const key = (name: string, args: unknown) => toolKeyOf(call('x', name, args) as ToolCallPart)
  test('shell calls are keyed by their command head, other tools by name', () => {
    expect(key('bash', { command: 'npm run build -- --watch' })).toBe('bash:npm run build')
    expect(key('bash', { command: 'pytest tests/test_a.py -k b' })).toBe('bash:pytest tests/test_a.py')
    expect(key('shell', { command: ['python', '-m', 'pytest', 'x'] })).toBe('shell:python -m pytest')
    expect(key('bash', { command: 'sudo CI=1 python -m ingest.worker --once' })).toBe('bash:python -m ingest.worker')
    // A host says where a command runs: a success on worker-b does not fix a failure here.
    expect(key('bash', { command: 'ssh worker-b sudo CI=1 python -m ingest.worker --once' })).toBe('bash:ssh worker-b python -m ingest.worker')
    expect(key('bash', { command: 'ssh -p 2222 -o StrictHostKeyChecking=no -v root@10.0.0.1 "tail -5 log"' })).toBe('bash:ssh root@10.0.0.1 "tail -5')
    expect(key('read_file', { path: 'a.txt' })).toBe('read_file:a.txt')
    expect(key('web_fetch', { url: 'https://x.test/a' })).toBe('web_fetch:https://x.test/a')
    expect(key('todo_write', { todos: [] })).toBe('todo_write')
  })
})

describe('createErrorFixLinker', () => {
  const link = (messages: Parameters<ReturnType<typeof createErrorFixLinker>['link']>[0]['messages'], offset = 0, window?: number) =>
    createErrorFixLinker(window === undefined ? {} : { window }).link({
      messages,
      offset,
      pairs: pairToolCalls(messages).pairs.map((pair) => ({
        ...pair,
        call: { ...pair.call, message: pair.call.message + offset },
        result: { ...pair.result, message: pair.result.message + offset },
      })),
    })

  test('links a failure through the next success of the same command', () => {
    const messages = [
      user('run the tests'),
      assistant('', call('a', 'bash', { command: 'npm test' })),
      result('a', 'Error: ENOENT: no such file, open /srv/app/config.json'),
      assistant('', call('b', 'bash', { command: 'ls /srv/app' })),
      result('b', 'index.js'),
      assistant('', call('c', 'bash', { command: 'npm test' })),
      result('c', '3 passing'),
      assistant('All green.'),
    ]
    const units = link(messages, 100)
    expect(units).toEqual([
      expect.objectContaining({ kind: 'error-fix', range: [101, 108], failure: { message: 102, key: 'bash:npm test' }, resolution: { message: 106, by: 'success' } }),
    ])
  })

  test('an unfixed failure links only the assistant report right after it, never later prose', () => {
    const messages = [
      assistant('', call('a', 'read_file', { path: 'x' })),
      result('a', 'x', true),
      assistant('The file x does not exist; I could not continue.'),
    ]
    expect(link(messages)).toEqual([expect.objectContaining({ range: [0, 3], resolution: { message: 2, by: 'assistant-turn' } })])
    const later = [
      assistant('', call('a', 'read_file', { path: 'x' })),
      result('a', 'x', true),
      assistant('Let me look elsewhere.', call('b', 'bash', { command: 'ls' })),
      result('b', 'y'),
      assistant('The file x does not exist; I could not continue.'),
    ]
    expect(link(later)).toEqual([])
  })

  test('issue 11: a failed read at 4, the same file read at 7: the unit is [3, 8), not up to the prose at 21', () => {
    const messages = [
      user('look at the loader'),
      assistant('', call('a', 'bash', { command: 'ls src' })),
      result('a', 'loader.py'),
      assistant('', call('b', 'read_file', { path: 'src/loader.py' })),
      result('b', 'File does not exist.', true),
      assistant('', call('c', 'bash', { command: 'git ls-files' })),
      assistant('', call('d', 'read_file', { path: 'src/loader.py' })),
      // The file quotes an error message: it is data, not a failure of the read.
      result('d', '     1\u2192def load(path):\n     2\u2192    raise OSError("No such file or directory: " + path)'),
      result('c', 'src/loader.py'),
      ...Array.from({ length: 5 }, (_, index) => [assistant('', call(`e${index}`, 'grep', { pattern: `p${index}` })), result(`e${index}`, 'match')]).flat(),
      assistant('', call('f', 'bash', { command: 'pytest -q' })),
      result('f', '3 passed'),
      assistant('The loader reads src/loader.py; all good.'),
    ]
    expect(messages).toHaveLength(22)
    expect(link(messages)).toEqual([
      expect.objectContaining({ kind: 'error-fix', range: [3, 8], failure: { message: 4, key: 'read_file:src/loader.py' }, resolution: { message: 7, by: 'success' } }),
    ])
  })

  test('unit boundaries are exact: [failing call, fixing result + 1), + 1 more for the report right after the fix', () => {
    // Oracle written out by hand for each shape; an off-by-one either way at either end changes the range.
    const base = [
      user('go'),
      assistant('', call('a', 'bash', { command: 'make all' })),
      result('a', 'make: *** [all] Error 2\nexit code 2'),
      assistant('', call('b', 'edit', { path: 'Makefile' })),
      result('b', 'ok'),
      assistant('', call('c', 'bash', { command: 'make all' })),
      result('c', 'built'),
    ]
    for (const offset of [0, 40]) {
      expect(link([...base, user('next')], offset).map((unit) => unit.range)).toEqual([[offset + 1, offset + 7]])
      expect(link([...base, assistant('Fixed: the Makefile lacked a target.'), user('next')], offset).map((unit) => unit.range)).toEqual([[offset + 1, offset + 8]])
      expect(link([...base, assistant('Next step.', call('d', 'bash', { command: 'ls' })), result('d', 'x')], offset).map((unit) => unit.range)).toEqual([[offset + 1, offset + 7]])
    }
  })

  test('a new user turn ends the search for a fix', () => {
    const messages = [
      assistant('', call('a', 'bash', { command: 'npm test' })),
      result('a', 'FAILED 2 tests'),
      user('never mind, do something else'),
      assistant('', call('b', 'bash', { command: 'npm test' })),
      result('b', 'ok'),
    ]
    expect(link(messages)).toEqual([])
  })

  test('repeated failures stay in one unit; nothing resolving within the window links nothing', () => {
    const messages = [
      assistant('', call('a', 'bash', { command: 'make' })),
      result('a', 'exit code 2'),
      assistant('', call('b', 'bash', { command: 'make' })),
      result('b', 'exit code 2'),
      assistant('', call('c', 'bash', { command: 'make' })),
      result('c', 'exit code 0'),
    ]
    const units = link(messages)
    expect(units.map((unit) => unit.range)).toEqual([
      [0, 6],
      [2, 6],
    ])
    expect(link(messages, 0, 1)).toEqual([])
  })

  test('the window is exact: a fix `window` messages after the failure links, one more does not', () => {
    // The failure's result is message 1; the fix's result lands at 1 + 2k (k filler call and result pairs between).
    const messages = (fillers: number) => [
      assistant('', call('a', 'bash', { command: 'make' })),
      result('a', 'exit code 2'),
      ...Array.from({ length: fillers }, (_, index) => [assistant('', call(`f${index}`, 'bash', { command: `ls dir${index}` })), result(`f${index}`, 'a.txt')]).flat(),
      assistant('', call('b', 'bash', { command: 'make' })),
      result('b', 'exit code 0'),
    ]
    // Two filler pairs: the fix's result is 6 messages after the failure's (message 7).
    expect(link(messages(2), 0, 6).map((unit) => unit.range)).toEqual([[0, 8]])
    expect(link(messages(2), 0, 5)).toEqual([])
  })
})

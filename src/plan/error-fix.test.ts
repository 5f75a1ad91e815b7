import { describe, expect, test } from 'vitest'
import type { ToolCallPart } from '../spec/transcript.js'
import { pairToolCalls } from '../transcript/render.js'
import { assistant, call, result, user } from './__fixtures__/test-estimator.js'
import { createErrorFixLinker, isFailingResult, toolKeyOf } from './error-fix.js'

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

describe('toolKeyOf', () => {
  const key = (name: string, args: unknown) => toolKeyOf(call('x', name, args) as ToolCallPart)
  test('shell calls are keyed by their command head, other tools by name', () => {
    expect(key('bash', { command: 'npm run build -- --watch' })).toBe('bash:npm run build')
    expect(key('bash', { command: 'pytest tests/test_a.py -k b' })).toBe('bash:pytest tests/test_a.py')
    expect(key('shell', { command: ['python', '-m', 'pytest', 'x'] })).toBe('shell:python -m pytest')
    expect(key('bash', { command: 'ssh worker-b sudo CI=1 python -m ingest.worker --once' })).toBe('bash:python -m ingest.worker')
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
      expect.objectContaining({ kind: 'error-fix', range: [101, 107], failure: { message: 102, key: 'bash:npm test' }, resolution: { message: 106, by: 'success' } }),
    ])
  })

  test('an assistant turn without tool calls closes an unresolved failure', () => {
    const messages = [
      assistant('', call('a', 'read_file', { path: 'x' })),
      result('a', 'x', true),
      assistant('Let me look elsewhere.', call('b', 'bash', { command: 'ls' })),
      result('b', 'y'),
      assistant('The file x does not exist; I could not continue.'),
    ]
    expect(link(messages)).toEqual([expect.objectContaining({ range: [0, 5], resolution: { message: 4, by: 'assistant-turn' } })])
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
})

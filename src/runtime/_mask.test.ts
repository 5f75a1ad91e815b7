import { describe, expect, it } from 'vitest'
import { isReadOnlyCall, isReadOnlyCommand } from './_mask.js'

describe('the masking rule: which calls only read', () => {
  it('read-only shell commands and pipelines', () => {
    for (const command of ['git log --oneline -n 20', 'ls -la src', 'cat src/a.ts | head -n 40', 'grep -rn TODO src | wc -l', 'git status', 'find . -name "*.ts"', 'rg foo src']) {
      expect(isReadOnlyCommand(command)).toBe(true)
    }
  })

  it('anything that writes, chains, substitutes or runs something else is not', () => {
    for (const command of [
      'npm test', 'git commit -m x', 'git checkout main', 'cat a > b', 'ls; rm -rf x', 'ls && make', 'echo $(rm x)', 'cat `whoami`',
      'find . -delete', 'find . -exec rm {} ;', 'cat <<EOF\nx\nEOF', 'ls | xargs rm', 'python script.py', 'sed -i s/a/b/ f', 'git log 2>&1',
    ]) {
      expect(isReadOnlyCommand(command)).toBe(false)
    }
  })

  it('tools named for reading are read-only; a shell tool by its command; others never', () => {
    const call = (name: string, args: unknown) => ({ type: 'tool-call' as const, id: 'x', name, arguments: args })
    expect(isReadOnlyCall(call('read_file', { path: 'a.ts' }))).toBe(true)
    expect(isReadOnlyCall(call('Grep', { pattern: 'x' }))).toBe(true)
    expect(isReadOnlyCall(call('bash', { command: 'git diff' }))).toBe(true)
    expect(isReadOnlyCall(call('bash', { command: 'git push' }))).toBe(false)
    expect(isReadOnlyCall(call('write_file', { path: 'a.ts', content: 'x' }))).toBe(false)
    expect(isReadOnlyCall(call('web_fetch', { url: 'https://example.com' }))).toBe(false)
  })
})

/**
 * The gold extractor on small hand-written texts whose state is known: each case names the class of input it guards
 * (the misses and false reports listed in issue 10).
 */
import { describe, expect, it } from 'vitest'
import type { Message } from '../../spec/transcript.js'
import { goldItems, goldItemsOfText, type GoldKind, type GoldSource } from './index.js'

const of = (text: string, source: GoldSource = 'assistant') => goldItemsOfText(text, source)
const texts = (text: string, source: GoldSource = 'assistant', kind?: GoldKind) =>
  of(text, source)
    .filter((item) => kind === undefined || item.kind === kind)
    .map((item) => item.text)

describe('settings', () => {
  it('finds `--flag value` as well as `--flag=value` (issue 10: `--max_steps 3000` was missed)', () => {
    const found = texts('python train.py --max_steps 3000 --output_dir ./ckpt --lr=3e-4 --report_to wandb', 'assistant', 'setting')
    expect(found).toEqual(['--max_steps 3000', '--output_dir ./ckpt', '--lr=3e-4', '--report_to wandb'])
  })
  it('does not take a switch and the argument after it for a setting', () => {
    expect(texts('pip install --upgrade pip && git log --oneline -5 && pytest --co 2>&1', 'assistant', 'setting')).toEqual([])
  })
  it('finds `key: n`, `key=n`, numbers with a unit and hex colours', () => {
    const found = texts('learning_rate: 1e-4\nBATCH_SIZE=32\nthe tone is 275 Hz on a 512 MB card, colour #54BD95', 'user', 'setting')
    expect(found).toEqual(['learning_rate: 1e-4', 'BATCH_SIZE=32', '275 Hz', '512 MB', '#54BD95'])
  })
  it('does not take locations, prose labels or code counters for settings', () => {
    expect(texts('see perplexity.py:77 and Note: 3 files; count = 0; x.sum(dim=1)', 'assistant', 'setting')).toEqual([])
  })
})

describe('commands', () => {
  it('keeps a Bash command whole, heredoc body included (issue 10: only the first line was kept)', () => {
    const command = "ssh host << 'EOF'\ncd /workspace\npython train.py --max_steps 3000\nEOF"
    const items = goldItems([{ role: 'assistant', parts: [{ type: 'tool-call', id: 't1', name: 'Bash', arguments: { command } }] }])
    expect(items.filter((item) => item.kind === 'command').map((item) => item.text)).toEqual([command])
    expect(items.map((item) => item.text)).toEqual(expect.arrayContaining(['/workspace', '--max_steps 3000']))
    expect(items.every((item) => item.source === 'tool-call')).toBe(true)
  })
  it('reads a command continued over lines in a shell fence as one command', () => {
    const text = 'Run:\n```bash\npython train.py \\\n  --max_steps 3000\n```'
    expect(texts(text, 'assistant', 'command')).toEqual(['python train.py \\\n  --max_steps 3000'])
  })
  it('takes an argv array as the shell command it runs', () => {
    const items = goldItems([{ role: 'assistant', parts: [{ type: 'tool-call', id: 't', name: 'shell', arguments: { command: ['bash', '-lc', 'ls -la src'] } }] }])
    expect(items.filter((item) => item.kind === 'command').map((item) => item.text)).toEqual(['ls -la src'])
  })
  it('takes identifying arguments whole and scans payloads (issue 10: numbers inside edit arguments were missed)', () => {
    const items = goldItems([
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 't', name: 'Edit', arguments: { file_path: 'notes', old_string: 'tone 200 Hz', new_string: 'tone 275 Hz, colour #54BD95' } }],
      },
    ])
    expect(items.map((item) => [item.kind, item.text])).toEqual([
      ['path', 'notes'],
      ['setting', '200 Hz'],
      ['setting', '275 Hz'],
      ['setting', '#54BD95'],
    ])
  })
})

describe('versions', () => {
  it('finds pins with their package, in prose too (issue 10: `anthropic>=0.40.0` in assistant text was missed)', () => {
    const found = texts('Pin anthropic>=0.40.0 and fsspec>=2023.1,<2024.3, keep "react": "^18.2.0", run on OpenWrt 23.05-SNAPSHOT with node 20.11.', 'assistant', 'version')
    expect(found).toEqual(['anthropic>=0.40.0', 'fsspec>=2023.1,<2024.3', '"react": "^18.2.0"', 'OpenWrt 23.05-SNAPSHOT', 'node 20.11'])
  })
  it('does not take a bare comparison for a version (issue 10: `>200`)', () => {
    expect(texts('segments with >200 messages and loss < 2.5', 'assistant', 'version')).toEqual([])
  })
})

describe('paths', () => {
  it('finds absolute, home, relative-with-extension and known-directory paths', () => {
    const found = texts('Edit /etc/hosts, ~/.ssh/config, src/eval/gold/index.ts, lib/foo.test.ts and tests/ then /tmp', 'assistant', 'path')
    expect(found).toEqual(['/etc/hosts', '~/.ssh/config', 'src/eval/gold/index.ts', 'lib/foo.test.ts', 'tests/', '/tmp'])
  })
  it('does not take prose slashes for paths (issue 10: `daemon/service`, `19k/200k`)', () => {
    expect(texts('the daemon/service split, 19k/200k tokens, and/or text/html, plan.md/CLAUDE.md, run /plan', 'assistant', 'path')).toEqual([])
  })
  it('keeps a path over 512 characters whole (issue 10: long words were dropped)', () => {
    const long = `/data/${'a'.repeat(600)}/file.txt`
    expect(texts(`open ${long} now`, 'assistant', 'path')).toEqual([long])
  })
})

describe('errors', () => {
  it('takes the final line of a traceback, whole', () => {
    const text = 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nModuleNotFoundError: No module named \'x\''
    expect(texts(text, 'tool-result', 'error')).toEqual(["ModuleNotFoundError: No module named 'x'"])
  })
  it('keeps the detail line after an error\'s first line (issue 10)', () => {
    const text = "error: failed to push some refs to 'origin'\nhint: Updates were rejected because the remote contains work\nother output"
    expect(texts(text, 'tool-result', 'error')).toEqual(["error: failed to push some refs to 'origin'\nhint: Updates were rejected because the remote contains work"])
  })
  it('takes `Exit code N` with the message after it', () => {
    expect(texts('Exit code 127\n(eval):1: command not found: timeout', 'tool-result', 'error')).toEqual(['Exit code 127\n(eval):1: command not found: timeout'])
  })
  it('finds errors without an exception name: a JSON error value, an HTTP 422 body (issue 10)', () => {
    expect(texts('{\n  "status": "error",\n  "error": "Sandbox with this name already exists"\n}', 'tool-result', 'error')).toEqual([
      'Sandbox with this name already exists',
    ])
    expect(texts('POST https://api.github.com/orgs/x/repos: 422 Repository creation failed. name already exists', 'tool-result', 'error')).toEqual([
      'POST https://api.github.com/orgs/x/repos: 422 Repository creation failed. name already exists',
    ])
  })
  it('takes a flagged result\'s first line when nothing else reads as an error, but not a grep match line', () => {
    const flagged = (content: string): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c', content, isError: true }] })
    expect(goldItems([flagged('<tool_use_error>File has not been read yet.</tool_use_error>')]).map((item) => item.text)).toEqual(['File has not been read yet.'])
    expect(goldItems([flagged('src/log.py:12:    logger.error("retrying")\nsrc/log.py:30:    on_error()')]).filter((item) => item.kind === 'error')).toEqual([])
  })
  it('does not cut a JSON error to a fragment and does not take prose mentioning an error', () => {
    expect(texts('{"status": "error", "code": 3}', 'tool-result', 'error')).toEqual([])
    expect(texts('The error handling looks fine; no Error was raised.', 'assistant', 'error')).toEqual([])
  })
})

describe('ids and URLs', () => {
  it('finds UUIDs, git hashes, arXiv ids, IP:port, vendor ids and URLs', () => {
    const text = 'task 87a0c23f-606e-4897-b518-f3e1d813e7e7 at commit 6daa67d, see arXiv:2409.02908 on 10.0.0.1:8080 for pod-abc123, https://example.com/a.'
    expect(of(text, 'tool-result').map((item) => [item.kind, item.text])).toEqual([
      ['id', '87a0c23f-606e-4897-b518-f3e1d813e7e7'],
      ['id', '6daa67d'],
      ['id', 'arXiv:2409.02908'],
      ['id', '10.0.0.1:8080'],
      ['id', 'pod-abc123'],
      ['url', 'https://example.com/a'],
    ])
  })
  it('does not take words or plain numbers for hashes', () => {
    expect(texts('the deadbeef value 1234567 and decade', 'assistant', 'id')).toEqual([])
  })
})

describe('constraints', () => {
  it('takes a user sentence with a cue word, whole, without its bullet', () => {
    expect(texts('Please fix the build.\n- You must use uv for installs. The tests are green.\nNever push to main!', 'user', 'constraint')).toEqual([
      'You must use uv for installs.',
      'Never push to main!',
    ])
  })
  it('takes no constraint from the assistant, from headings, lead-ins, code or banners (issue 10: narrative bullets and banners)', () => {
    expect(texts('- I must say the build never failed.', 'assistant', 'constraint')).toEqual([])
    expect(texts('## Anti-Patterns to Avoid\n**Every phase MUST have:**\n```\nalways_on = True  # never change\n```', 'user', 'constraint')).toEqual([])
    expect(texts('<system-reminder>\nYou must always answer briefly.\n</system-reminder>', 'user', 'constraint')).toEqual([])
  })
})

describe('what the labelled sample showed is not state', () => {
  it('does not split a constraint at "e.g." and skips a tool\'s argument documentation', () => {
    const system = 'Note that the environment does NOT support interactive commands (e.g. python, vim), so please do not invoke them.\n  - path (string) [required]: the path to the file to open\n  docstring: submits your flag, you should escape it'
    expect(texts(system, 'system', 'constraint')).toEqual(['Note that the environment does NOT support interactive commands (e.g. python, vim), so please do not invoke them.'])
  })
  it('does not take a template or an installer without a package for a command', () => {
    expect(texts('run it with `python <script_name>.py`, not `uv pip install`, but `uv pip install torch` works', 'assistant', 'command')).toEqual(['uv pip install torch'])
  })
  it('does not take a bare loopback address, a W3C namespace or a prose word before a colon', () => {
    expect(texts('use `nc -w5 127.0.0.1 80` or 127.0.0.1:8080', 'user', 'id')).toEqual(['127.0.0.1:8080'])
    expect(texts('<html xmlns="http://www.w3.org/1999/xhtml"> see https://example.org/x', 'tool-result', 'url')).toEqual(['https://example.org/x'])
    expect(texts('MPS allocated: 6.80 GiB\nepochs: 3', 'assistant', 'setting')).toEqual(['6.80 GiB', 'epochs: 3'])
  })
  it('ends a DOI before a markdown link\'s bracket', () => {
    expect(texts('| DOI | [10.1145/3544548.3581433](https://doi.org/10.1145/3544548.3581433) |', 'assistant', 'id')).toEqual(['10.1145/3544548.3581433'])
  })
})

describe('goldItems', () => {
  it('reads each part as its source, skips reasoning, keeps distinct texts per message in order', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Never touch /etc/passwd. Never touch /etc/passwd.' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'open /secret/plan.md' },
          { type: 'text', text: 'Reading /etc/passwd' },
        ],
      },
      { role: 'user', parts: [{ type: 'summary', text: 'Decided: pin anthropic>=0.40.0', source: 'claude-code' }] },
    ]
    expect(goldItems(messages, 10)).toEqual([
      { kind: 'constraint', text: 'Never touch /etc/passwd.', message: 10, source: 'user' },
      { kind: 'path', text: '/etc/passwd', message: 10, source: 'user' },
      { kind: 'path', text: '/etc/passwd', message: 11, source: 'assistant' },
      { kind: 'version', text: 'anthropic>=0.40.0', message: 12, source: 'summary' },
    ])
  })
  it('reads a hostile long line and finds nothing in it (no backtracking: the suite timeout is the bound, the eval measures speed)', () => {
    expect(goldItemsOfText('a'.repeat(200_000) + ' ' + 'x) '.repeat(100_000) + '/'.repeat(50_000), 'tool-result')).toEqual([])
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { Message, Part } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { renderMessage } from '../transcript/render.js'
import { createFullEstimator } from './full.js'

// Regressions of issue 10 ("The state the agent will need"): what `full` missed on real sessions, and what it reported
// as state that is not. Each test names the class it regresses; the examples are the issue's, or of their shape.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts })
const said = (text: string): Message => assistant({ type: 'text', text })
const summary = (text: string): Message => ({ role: 'user', parts: [{ type: 'summary', text, source: 'claude-code' }] })
const result = (content: string, isError = false): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content, isError }] })
const call = (name: string, args: Record<string, unknown>): Message => assistant({ type: 'tool-call', id: 'c1', name, arguments: args })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const ofKind = (items: readonly FloorItem[], kind: string) => items.filter((item) => item.kind === kind).map((item) => item.text)

describe('issue 10, missed: `--flag value` outside `--flag=value`', () => {
  it('keeps a long flag with a number, path or identifier-like value, and a short flag with a number, in plain text', () => {
    const text = 'Start it with --max_steps 3000 --lr 1e-4 and -n 5, then --output_dir ./checkpoints/run1 --sampler first_hitting.'
    for (const message of [said(text), user(text)]) {
      expect(texts(full.extract(message, 0))).toEqual(expect.arrayContaining(['--max_steps 3000', '--lr 1e-4', '-n 5', '--output_dir ./checkpoints/run1', '--sampler first_hitting']))
    }
  })

  it('does not pair a flag with a prose word', () => {
    expect(texts(full.extract(said('Pass --verbose when it hangs, or -v only once.'), 0))).toEqual([])
  })
})

describe('issue 10, missed: the body of long and heredoc Bash commands', () => {
  const filler = Array.from({ length: 22 }, (_, index) => `echo "step ${index} of the setup is running now"`).join('\n')
  const heredoc = `ssh -p 19377 root@10.0.0.7 << 'EOF'\ncd /workspace/diffusion\n# start the run\n${filler}\nexport LR=3e-4\npython train.py --max_steps 3000 \\\n  --batch_size 64\nEOF`

  it('keeps the first line and every line carrying a setting, path, flag, URL, version or identifier, each whole', () => {
    const items = texts(full.extract(call('Bash', { command: heredoc }), 0))
    expect(items).toEqual(['ssh -p 19377 root@10.0.0.7 << \'EOF\'', 'cd /workspace/diffusion', 'export LR=3e-4', 'python train.py --max_steps 3000 \\', '--batch_size 64'])
  })

  it('reads a heredoc that writes a file as a Write call: its first line, then the values written, not its code', () => {
    const body = Array.from({ length: 30 }, (_, index) => (index % 10 === 3 ? `SETTING_${index} = ${index}` : `    return helper_${index}(value)`)).join('\n')
    const write = `cat > /srv/app/config.py << 'EOF'\n${body}\nEOF`
    expect(texts(full.extract(call('Bash', { command: write }), 0))).toEqual(["cat > /srv/app/config.py << 'EOF'", 'SETTING_3 = 3', 'SETTING_13 = 13', 'SETTING_23 = 23'])
    const asWrite = texts(full.extract(call('Write', { file_path: '/srv/app/config.py', content: body }), 0))
    expect(asWrite).toEqual(['/srv/app/config.py', 'SETTING_3 = 3', 'SETTING_13 = 13', 'SETTING_23 = 23'])
  })

  it('cuts the message of `git commit -m` after its first line, keeping the rest of the command', () => {
    const commit = 'git add src/a.py && git commit -m "feat: add the loader\n\n- Reads the shards lazily\n- Retries three times" && git push origin main'
    expect(texts(full.extract(call('Bash', { command: commit }), 0))).toEqual(['git add src/a.py && git commit -m "feat: add the loader', '&& git push origin main'])
    const heredocCommit = "git commit -m \"$(cat <<'EOF'\nperf: chunked CE loss\n\n- Chunked CE loss in MaskedDiffusionLM (\"fast\")\nEOF\n)\""
    expect(texts(full.extract(call('Bash', { command: heredocCommit }), 0))).toEqual(["git commit -m \"$(cat <<'EOF'\nperf: chunked CE loss"])
    // A redirection after the message is not a command of its own.
    expect(texts(full.extract(call('Bash', { command: `${heredocCommit} 2>&1` }), 0))).toEqual(["git commit -m \"$(cat <<'EOF'\nperf: chunked CE loss"])
    // A one-line message is kept whole.
    expect(texts(full.extract(call('Bash', { command: 'git commit -m "fix: typo"' }), 0))).toEqual(['git commit -m "fix: typo"'])
  })

  it('gives each kept line the offsets of its JSON form in the rendered call', () => {
    const message = call('Bash', { command: heredoc })
    const { text } = renderMessage(message)
    for (const item of full.extract(message, 0)) expect(text.slice(item.start, item.end)).toBe(JSON.stringify(item.text).slice(1, -1))
  })
})

describe('issue 10, missed: numbers and hex colours inside edit arguments', () => {
  it('scans short payloads with the text scanner', () => {
    const edit = call('Edit', { file_path: '/srv/app/theme.css', old_string: 'color: #fff;', new_string: 'color: #54BD95; /* tone 275 Hz */' })
    expect(texts(full.extract(edit, 0))).toEqual(['/srv/app/theme.css', '#fff', '#54BD95', '275 Hz'])
  })

  it('takes hex colours for constants, and issue numbers for nothing', () => {
    const items = full.extract(said('Use #54BD95 and #fff, see #123 and #1234.'), 0)
    expect(items.map((item) => [item.kind, item.text])).toEqual([['constant', '#54BD95'], ['constant', '#fff']])
  })
})

describe('issue 10, missed: arXiv ids, pins and paths in assistant text', () => {
  it('takes arXiv ids for identifiers, not numbers', () => {
    const items = full.extract(said('See arXiv:2403.12345v2 and 2403.12345 for the method.'), 0)
    expect(items.map((item) => [item.kind, item.text])).toEqual([['identifier', 'arXiv:2403.12345v2'], ['identifier', '2403.12345']])
  })

  it('finds pins and paths the assistant names (found before this issue too; kept as a guard)', () => {
    expect(texts(full.extract(said('Add anthropic>=0.40.0 and edit src/app/main.py.'), 0))).toEqual(['anthropic>=0.40.0', 'src/app/main.py'])
  })
})

describe('issue 10, missed: the detail line after an error, and errors without an exception name', () => {
  it('keeps the line after `Exit code N`, and an indented line after an error line', () => {
    expect(texts(full.extract(result('Exit code 1\nSandbox with this name already exists', true), 0))).toEqual(['Exit code 1', 'Sandbox with this name already exists'])
    expect(texts(full.extract(result('ValueError: bad config\n  expected int for steps, got str\nmore output', false), 0))).toEqual(['ValueError: bad config', 'expected int for steps, got str'])
  })

  it('takes the message string of a JSON error, never a fragment of its syntax', () => {
    const mcp = '{"error": {"type": "mcp_tool_error", "message": "POST https://api.github.com/orgs/x/repos: 422 name already exists on this account"}}'
    expect(texts(full.extract(result(mcp, true), 0))).toEqual(['POST https://api.github.com/orgs/x/repos: 422 name already exists on this account'])
    expect(texts(full.extract(result('{"status": "error", "message": "Sandbox with this name already exists"}', true), 0))).toEqual(['Sandbox with this name already exists'])
  })
})

describe('issue 10, missed: versions with their product', () => {
  it('keeps a version with the product word before it', () => {
    const items = full.extract(said('The router runs OpenWrt 23.05-SNAPSHOT, node 20.11.1 and Python 3.11, with flash-attn 2.8.3.'), 0)
    expect(items.map((item) => [item.kind, item.text])).toEqual([['version', 'OpenWrt 23.05-SNAPSHOT'], ['version', 'node 20.11.1'], ['version', 'Python 3.11'], ['version', 'flash-attn 2.8.3']])
    // A measurement is not a version: `Loss 5.66` (a bare decimal, no item at all since issue 10's precision work),
    // `took 1.2.3` stay as they were.
    expect(full.extract(said('Loss 5.66 at step 3, then took 1.2.3 apart.'), 0).map((item) => [item.kind, item.text])).toEqual([['version', '1.2.3']])
  })

  it('keeps a `v` version and an `or later` version after a known product, and neither alone', () => {
    // Session 1 wrote `Transformers v5.10` and `Python 3.11+` into its plan and README and typed them again later.
    const items = full.extract(said('Needs Transformers v5.10 and Python 3.11+ (node v20.1 works).'), 0)
    expect(items.map((item) => [item.kind, item.text])).toEqual([['version', 'Transformers v5.10'], ['version', 'Python 3.11+'], ['version', 'node v20.1']])
    expect(texts(full.extract(said('Moved from v5.10 to 3.11+ and then step v2.3 of the plan.'), 0))).toEqual([])
  })

  it('does not take a capitalized verb opening a sentence for the product of the version after it', () => {
    expect(texts(full.extract(said('Deploy v2.3.1 tonight. Deployed 1.2.4 yesterday; Tag 1.4.0 next.'), 0))).toEqual(['v2.3.1', '1.2.4', '1.4.0'])
  })

  it('keeps a container image with its tag: a version pinned as a pin is', () => {
    const text = [
      'FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel AS builder',
      'Base: nvidia/cuda:12.1.0-runtime-ubuntu22.04, then ghcr.io/org/app:v1.2.3 and python:3.11-slim.',
    ].join('\n')
    expect(ofKind(full.extract(said(text), 0), 'version')).toEqual(['pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel', 'nvidia/cuda:12.1.0-runtime-ubuntu22.04', 'ghcr.io/org/app:v1.2.3', 'python:3.11-slim'])
    // A path with its line, a key with its value, a time and a status with an id are no images.
    const items = full.extract(said('See src/app.ts:12 with lr:0.001 at 12:30; error:123e4567-e89b-12d3-a456-426614174000 again.'), 0)
    expect(ofKind(items, 'version')).toEqual([])
    expect(texts(items)).toContain('src/app.ts:12')
  })
})

describe('issue 10, missed: an integer its noun names as an identifier', () => {
  it('keeps `port 5432`, `PID 26322`, `migration 0042`, `PR 123` and `issue 45` with their noun, in any text', () => {
    // The corpus sessions watch and kill processes by PID (`PID 26322` is used again turns later).
    const text = 'The API listens on port 5432; training runs as PID 26322 after migration 0042 (see PR 123 and issue 45).'
    for (const message of [said(text), user(text)]) {
      expect(ofKind(full.extract(message, 0), 'number')).toEqual(['port 5432', 'PID 26322', 'migration 0042', 'PR 123', 'issue 45'])
    }
  })

  it('leaves a count after another noun and a non-integer after these alone; a number with its unit keeps its unit', () => {
    expect(texts(full.extract(said('Finished step 3 of epoch 5, then port 3.5 of the plan and the issue 7 times.'), 0))).toEqual(['7 times'])
  })
})

describe('issue 10, missed: words longer than 512 units', () => {
  it('keeps a long URL or path whole', () => {
    const url = `https://bucket.s3.amazonaws.com/run/model.bin?X-Amz-Signature=${'ab12'.repeat(200)}`
    const path = `/srv/data/${'shard_0001/'.repeat(50)}part-0.parquet`
    expect(texts(full.extract(said(`fetch ${url} into ${path} now`), 0))).toEqual([url, path])
  })

  it('ends a URL before a unit a URL cannot hold: a closing code quote, an escaped line break, a quote or a bracket', () => {
    // A re-test on a real Codex rollout: `` `http://localhost:8000`.\n\nIf `` (escaped line breaks) was one URL.
    const found = (text: string) => full.extract(said(text), 0).filter((item) => item.kind === 'url').map((item) => item.text)
    expect(found('see http://localhost:8000/api\\nnext time')).toEqual(['http://localhost:8000/api'])
    expect(found('open <https://docs.example.com/a?b=1>, then go')).toEqual(['https://docs.example.com/a?b=1'])
    expect(found('fetched https://x.io/b"timeout":30')).toEqual(['https://x.io/b'])
    const quoted = full.extract(said('visit `http://localhost:8000`.\\n\\nIf you prefer'), 0).map((item) => item.text)
    expect(quoted.some((text) => text.includes('\\n') || text.endsWith('If'))).toBe(false)
    expect(quoted.some((text) => text.includes('http://localhost:8000'))).toBe(true)
  })

  it('still takes a blob for nothing', () => {
    const blob = Array.from({ length: 4096 }, (_, index) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[(index * 37) % 64]).join('')
    expect(full.extract(user(`key ${blob} end`), 0)).toEqual([])
  })
})

describe('issue 10, precision: constraints are directives', () => {
  it('does not take narrative bullets, past-tense or descriptive negations for constraints', () => {
    const narrative = [
      '- **`test_loss_decreases` non-monotonic loss**: Diffusion masking means loss doesn\'t monotonically decrease step-by-step.',
      '- Fixed the tests that never ran.',
      '- Clean up the template that was created but never used.',
      '- A100 pod can\'t restart: No free GPUs on host machine.',
      '- **Loss plateau**: Loss dropped only 0.13 from step 1500.',
      '- `configs/a.yaml` — previous training config (read-only)',
      '- User ran /research to ensure plan.md reflects the latest information.',
    ].join('\n')
    for (const message of [user(narrative), summary(narrative)]) expect(ofKind(full.extract(message, 0), 'constraint')).toEqual([])
  })

  it('takes imperatives and modals directed at the agent', () => {
    const directives = [
      '- Never use `print()` for logging.',
      'Do NOT skip.',
      'Every phase gate must be a runnable command.',
      'lets review the code, ensure its the latest.',
      'We need to make sure we are using the latest research.',
      'Retry at most 3 times!',
      'You cannot push to main.',
      "- **One concern per file.** Don't dump everything in main.py.",
    ]
    for (const line of directives) expect(ofKind(full.extract(user(line), 0), 'constraint'), line).toEqual([line])
  })

  it('does not take a harness banner for a user constraint', () => {
    const banner = '<local-command-caveat>Caveat: The messages below were generated by the user. DO NOT respond to these messages unless the user explicitly asks you to.</local-command-caveat>'
    expect(ofKind(full.extract(user(banner), 0), 'constraint')).toEqual([])
    // Claude Code before 2.1 wrote it untagged (a re-test: it was the only "lost constraint" of a real audit).
    const untagged = 'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.'
    expect(ofKind(full.extract(user(untagged), 0), 'constraint')).toEqual([])
    // The user's own caveat still counts.
    expect(ofKind(full.extract(user('Caveat: never run the migration on prod.'), 0), 'constraint')).toEqual(['Caveat: never run the migration on prod.'])
  })
})

describe('issue 10, precision: regexes', () => {
  it('takes alternations and sed scripts for regexes, and bracketed words and commands for quoted strings', () => {
    const items = full.extract(said('Ran grep -E "foo|bar" src/ and sed -i "s/a/b/g" x.txt, then "feat: phase N - [description]", ".[dev]", `outputs["logits"]` and "ls | grep x".'), 0)
    expect(items.filter((item) => item.kind === 'regex' || item.kind === 'quoted').map((item) => [item.kind, item.text])).toEqual([
      ['regex', '"foo|bar"'],
      ['regex', '"s/a/b/g"'],
      ['quoted', '"feat: phase N - [description]"'],
      ['quoted', '".[dev]"'],
      ['quoted', '`outputs["logits"]`'],
      ['quoted', '"ls | grep x"'],
    ])
  })
})

describe('issue 10, precision: paths', () => {
  it('does not take prose alternatives and ratios for paths', () => {
    expect(ofKind(full.extract(said('The daemon/service split uses 19k/200k tokens, and/or input/output, Qwen/LLaMA, model/data/schedule at 1.06s/it.'), 0), 'path')).toEqual([])
  })

  it('takes what a path needs: an extension, a root, a known directory, a trailing slash or a file-name segment', () => {
    const paths = ['src/app', 'docs/', './run.sh', '~/x', '/etc/hosts', 'a/b.py', 'checkpoints/finance-qwen3/', 'Qwen/Qwen3-0.6B']
    expect(ofKind(full.extract(said(paths.join(' and ')), 0), 'path')).toEqual(paths)
  })
})

describe('issue 10, precision: versions', () => {
  it('takes a comparator with a bare integer for a number, and `~` with two parts for an approximation', () => {
    const items = full.extract(said('Keep >200 requests, it took ~3.5 hours; pin ^2.0, ~1.2.3 and >=3.11.'), 0)
    expect(items.map((item) => [item.kind, item.text])).toEqual([['number', '>200'], ['version', '^2.0'], ['version', '~1.2.3'], ['version', '>=3.11']])
  })
})

describe('issue 10, precision: errors', () => {
  it('does not take the assistant\'s sentences about an error for errors, but keeps an error it quotes', () => {
    expect(ofKind(full.extract(said('Exit code 144 means the processes were killed by our pkill commands.'), 0), 'error')).toEqual([])
    expect(ofKind(full.extract(said('All good — those two failed notifications were the runs we killed.'), 0), 'error')).toEqual([])
    expect(ofKind(full.extract(said('RuntimeError is only from safetensors saving tied weights.'), 0), 'error')).toEqual([])
    expect(ofKind(full.extract(said('It fails with:\nValueError: Unrecognized model in ./ckpt'), 0), 'error')).toEqual(['ValueError: Unrecognized model in ./ckpt'])
  })

  it('does not take grep match lines for errors, even in a failing result', () => {
    expect(ofKind(full.extract(result('src/a.py:12: raise ValueError("error here")\nsrc/b.py:3:    # error handling', true), 0), 'error')).toEqual([])
    expect(ofKind(full.extract(result('src/a.py:12: error: Incompatible types in assignment', true), 0), 'error')).toEqual(['error: Incompatible types in assignment'])
  })
})

describe('issue 10: tool-call argument offsets', () => {
  it('gives each argument its own range, also inside arrays', () => {
    const message = call('Read', { file_path: '/srv/a.py', lines: [10, 20], options: { lines: 30 } })
    const items = full.extract(message, 0)
    const { text } = renderMessage(message)
    expect(items.map((item) => [item.text, text.slice(item.start, item.end)])).toEqual([
      ['/srv/a.py', '"/srv/a.py"'],
      ['lines=10', '10'],
      ['lines=20', '20'],
      ['lines=30', '"lines":30'],
    ])
  })
})

describe('issue 10, missed: the values of a file the agent wrote (a long Write or Edit payload)', () => {
  // Real sessions type these again in later commands: on the corpus's first real compaction point, 48 of the 120 items
  // used again after the summary were values of files written in the segment.
  const readme = [
    '# Training',
    '',
    'Run the smoke test first, it takes a minute on a laptop and catches most mistakes in the configuration.',
    '',
    '```bash',
    'uv run python scripts/pretrain.py --max_steps 100 --per_device_train_batch_size 4 \\',
    '  --model_path ./checkpoints/sft --prompt "The meaning of life is"',
    '```',
    '',
    'See https://arxiv.org/abs/2503.09573 for the sampler, pinned with `transformers==4.46.1`.',
  ].join('\n')
  const config = ['output_dir: ./checkpoints/pretrain', 'per_device_train_batch_size: 4', 'gradient_accumulation_steps: 8', 'learning_rate: 3.0e-4', 'bf16: true', 'lr_scheduler_type: cosine'].join('\n')

  it('keeps paths, URLs, pins and settings of a long payload, each verbatim and located in the rendering', () => {
    const message = call('Write', { file_path: '/repo/README.md', content: readme })
    const items = full.extract(message, 0)
    expect(texts(items)).toEqual(expect.arrayContaining(['/repo/README.md', '--max_steps 100', '--per_device_train_batch_size 4', 'https://arxiv.org/abs/2503.09573', 'transformers==4.46.1']))
    // Each item's range is its JSON form in the rendering (escapes before it, such as `\n` and `\"`, counted).
    const rendered = renderMessage(message).text
    for (const item of items) expect([JSON.stringify(item.text), JSON.stringify(item.text).slice(1, -1)]).toContain(rendered.slice(item.start, item.end))
    const yaml = texts(full.extract(call('Write', { file_path: '/repo/configs/pretrain.yaml', content: config }), 0))
    expect(yaml).toEqual(expect.arrayContaining(['./checkpoints/pretrain', 'per_device_train_batch_size: 4', 'gradient_accumulation_steps: 8', 'learning_rate: 3.0e-4']))
  })

  it('keeps the flags with their values and the paper ids written into it, not the keyword arguments of its code', () => {
    const notes = [
      '## Usage',
      '',
      'Fine-tune from the pretrained checkpoint (see the sampler paper, arXiv:2504.12216, for why the steps matter):',
      '',
      '```bash',
      'uv run python scripts/sft.py \\',
      '  --model_path ./checkpoints/pretrain \\',
      '  --dataset_name your_dataset',
      '```',
      '',
      'The loader is built with `load(path, dtype=np.float32, strict=False)`; nothing else changes in the trainer code.',
    ].join('\n')
    const items = texts(full.extract(call('Write', { file_path: '/repo/docs/usage.md', content: notes }), 0))
    expect(items).toEqual(expect.arrayContaining(['arXiv:2504.12216', '--model_path ./checkpoints/pretrain', '--dataset_name your_dataset']))
    expect(items.filter((text) => text.includes('dtype') || text.includes('strict'))).toEqual([])
  })

  it('keeps no prose and no bare names of code from it, but the names it defines', () => {
    // An error the code raises is not an error that happened, and a constant's name is not its value. The function
    // the file defines is its interface, which later calls use (session 10, full-interface.test.ts).
    const code = "def train(model, loader):\n    '''Runs one epoch over the loader, then logs.'''\n    if MAX_RETRIES < 1:\n        raise RuntimeError('CUDA error: out of memory')\n    for batch in loader:\n        model.step(batch)\n".repeat(6)
    expect(texts(full.extract(call('Edit', { file_path: '/repo/train.py', old_string: 'pass', new_string: code }), 0))).toEqual(['/repo/train.py', 'train'])
  })

  it('locates every value of a 2 MB payload, the last one exactly (one pass, not one per value)', () => {
    const line = 'value_%: 10\n'
    const big = Array.from({ length: 160_000 }, (_, index) => line.replace('%', String(index))).join('')
    const items = full.extract(call('Write', { file_path: '/repo/big.yaml', content: big }), 0)
    expect(items.length).toBeGreaterThan(100_000)
    const last = items[items.length - 1]!
    expect(last.text).toBe('value_159999: 10')
    expect(renderMessage(call('Write', { file_path: '/repo/big.yaml', content: big })).text.slice(last.start, last.end)).toBe('value_159999: 10')
  })
})

describe('issue 10, not state: values given as examples, control arguments, unusable payload paths', () => {
  it('drops what stands in an example clause (`such as`, `e.g.`, `for example`), keeps what follows it and the directive', () => {
    const tip = "If the script reads a file, such as buggy-input.png, and you'd like to see it, search first. Some commands, such as 'create', open files."
    const items = texts(full.extract(user(tip), 0))
    expect(items).not.toContain('buggy-input.png')
    expect(items).not.toContain("'create'")
    // The clause ends at `, and …`: a value after it is the session's own.
    expect(texts(full.extract(user('Use a model such as gpt2, and write results to /srv/out/run1.json.'), 0))).toEqual(['/srv/out/run1.json'])
    // A directive that gives an example stays whole.
    const directive = 'Never run interactive programs (e.g. python, vim) in this shell.'
    expect(texts(full.extract(user(directive), 0))).toEqual([directive])
  })

  it('keeps no numeric argument that only steers the call (timeout, limit, offset, view range, depth), and keeps the others', () => {
    const items = texts(full.extract(call('Read', { file_path: '/srv/app/main.py', offset: 120, limit: 40, timeout: 30000, view_range: [1, 50] }), 0))
    expect(items).toEqual(['/srv/app/main.py'])
    expect(texts(full.extract(call('create_pod', { gpuCount: 2, volumeInGb: 50 }), 0))).toEqual(['gpuCount=2', 'volumeInGb=50'])
  })

  it('keeps no elided path and no bare name drawn in a tree diagram from a payload; keeps its real paths', () => {
    const plan = [
      '## Layout',
      '```',
      'src/diffusion_lm/',
      '├── trainers/',
      '│   ├── base.py               # DiffusionTrainer',
      '│   └── grpo.py               # GRPO',
      '```',
      'Sources: `https://example.org/people/.../alice/` and `.../bob/`; entry point src/diffusion_lm/trainers/base.py.',
    ].join('\n')
    const items = texts(full.extract(call('Write', { file_path: '/repo/plan.md', content: plan }), 0))
    expect(items).toEqual(expect.arrayContaining(['/repo/plan.md', 'src/diffusion_lm/trainers/base.py']))
    for (const unusable of ['trainers/', 'base.py', 'grpo.py', '.../bob/']) expect(items).not.toContain(unusable)
    expect(items.some((text) => text.includes('/.../'))).toBe(false)
  })
})

describe('issue 10, a ledger a model can use: a command sent to another machine', () => {
  it('keeps the connection once per segment and each command sent whole, not the connection again in every command', () => {
    const connection = 'ssh -p 19377 root@154.54.102.39 -i ~/.ssh/id_ed25519 -o StrictHostKeyChecking=no'
    const first = `${connection} "cd /workspace/diffusion && python scripts/pretrain.py --max_steps 3000 --per_device_train_batch_size 16"`
    const second = `sleep 30 && ${connection} "cd /workspace/diffusion && python scripts/generate.py --model_path ./checkpoints/run1 --num_steps 64"`
    const estimate = full.estimate([call('Bash', { command: first }), call('Bash', { command: second })])
    expect(texts(estimate.items)).toEqual([
      connection,
      '"cd /workspace/diffusion && python scripts/pretrain.py --max_steps 3000 --per_device_train_batch_size 16"',
      // The wait before the connection is no item (`sleep 30 &&` was one: a fragment nobody types again, a re-test).
      '"cd /workspace/diffusion && python scripts/generate.py --model_path ./checkpoints/run1 --num_steps 64"',
    ])
    // Each item is located where it stands in its call's rendering.
    for (const item of estimate.items) {
      const rendered = renderMessage(call('Bash', { command: item.message === 0 ? first : second })).text
      expect(rendered.slice(item.start, item.end)).toBe(JSON.stringify(item.text).slice(1, -1))
    }
  })
})

describe('issue 10, missed: the target of a Markdown link', () => {
  it('finds the URL or path a link or an image points to, in any text, and in tool output the URL', () => {
    expect(texts(full.extract(said('See [the docs](https://docs.pytorch.org/docs/stable/notes/mps.html) and [plan](docs/plan.md).'), 0))).toEqual(['https://docs.pytorch.org/docs/stable/notes/mps.html', 'docs/plan.md'])
    expect(texts(full.extract(user('![diagram](assets/arch.png)'), 0))).toEqual(['assets/arch.png'])
    expect(texts(full.extract(result('    14→See [docs](https://huggingface.co/datasets/PleIAs/SEC) for the schema.'), 0))).toEqual(['https://huggingface.co/datasets/PleIAs/SEC'])
  })

  it('reads what the link text ends with as a word of its own: an id or a path there is found beside the target', () => {
    const items = full.extract(said('- [Fast-dLLM arXiv:2505.22618](https://arxiv.org/abs/2505.22618) and [src/train.py](src/train.py#L12)'), 0)
    // The second link's target (`#L12` on it) is no path: `src/train.py` comes from its text.
    expect(texts(items)).toEqual(['arXiv:2505.22618', 'https://arxiv.org/abs/2505.22618', 'src/train.py'])
  })
})

describe("issue 10, not state: a compactor's closing instructions to the model that resumes", () => {
  it('reads them as agent text (no constraint), and the summary before them as a summary', () => {
    const body = 'Summary:\n1. Primary Request: never touch config/prod.yaml.'
    const trailer = '\nIf you need specific details from before compaction, read the full transcript at: /home/u/.claude/projects/p/1.jsonl\nContinue the conversation from where it left off without asking the user any further questions. Resume directly — do not acknowledge the summary, do not recap what was happening. Pick up the last task as if the break never happened.'
    const items = full.extract(summary(`${body}${trailer}`), 0)
    expect(ofKind(items, 'constraint')).toEqual(['Primary Request: never touch config/prod.yaml.'])
    expect(texts(items)).toEqual(expect.arrayContaining(['/home/u/.claude/projects/p/1.jsonl']))
    // The same sentences from the user are constraints.
    expect(ofKind(full.extract(user('Resume directly — do not acknowledge the summary, do not recap what was happening.'), 0), 'constraint')).toHaveLength(1)
  })
})

describe('issue 10, not state: a number opening a parenthesized expression', () => {
  it('is an operand, not the value of the name before it; a value of its own stays', () => {
    expect(texts(full.extract(said('Then pad_mask = (1.0 - attention_mask) * neg_inf masks the padding, with lr = 3e-4.'), 0))).toEqual(['lr = 3e-4'])
  })
})

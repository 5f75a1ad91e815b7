import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../spec/estimator.js'
import type { Message, Part } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { renderMessage } from '../transcript/render.js'
import { createFullEstimator } from './full.js'

// A file's interface is state (session 10's re-test on six unseen Claude Code logs: the largest class of misses was
// the names a written or read file defines — `find_transcript`, `REPO_ROOT`, `--project-dir`, `redact_text` — which
// later calls and messages used again). The examples are of the shape the logs had, not their text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts })
const tool = (content: string, name = 'Read'): Message => ({ role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name, content, isError: false }] })
const write = (content: string, file = '/repo/share.py'): Message =>
  assistant({ type: 'tool-call', id: 'c1', name: 'Write', arguments: { file_path: file, content } })
const identifiers = (items: readonly FloorItem[]) => items.filter((item) => item.kind === 'identifier').map((item) => item.text)
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
/** Whether some item holds `name` (a name assigned a value is inside the value's item: `OUTPUT_DIR=/tmp/share`). */
const covered = (items: readonly FloorItem[], name: string) => items.some((item) => item.text.includes(name))
/** Filler lines that define nothing, so a payload is long (read for its values only before this change). */
const filler = (count: number) => Array.from({ length: count }, (_, index) => `    total += weights[${index % 7}] * value`).join('\n')

/** Every item is located at its text in the rendered message (or at its JSON form in a call). */
function expectLocated(message: Message, items: readonly FloorItem[]) {
  const rendered = renderMessage(message).text
  for (const item of items) {
    const slice = rendered.slice(item.start, item.end)
    expect(slice === item.text || slice === JSON.stringify(item.text)).toBe(true)
  }
}

describe('names a written payload defines', () => {
  it('Python: functions, classes, methods, async def, top-level constants, env reads and argparse flags', () => {
    const content = [
      'import os',
      'from pathlib import Path',
      'REPO_ROOT = Path(__file__).parent',
      'MAX_RETRIES: int = 3',
      'def find_transcript(project_dir):',
      '    local_name = project_dir / "x"',
      "    token = os.environ['GITHUB_TOKEN']",
      '    return os.getenv("SLACK_WEBHOOK_URL", local_name)',
      'class PhoneRedactor(Base):',
      '    def redact(self, text):',
      '        return self.pattern.sub(text)',
      'async def create_gist(session):',
      '    pass',
      'parser.add_argument("--project-dir", "-p", help="where")',
      filler(10),
    ].join('\n')
    const message = write(content)
    const items = full.extract(message, 0)
    expect(identifiers(items)).toEqual(['REPO_ROOT', 'MAX_RETRIES', 'find_transcript', 'GITHUB_TOKEN', 'SLACK_WEBHOOK_URL', 'PhoneRedactor', 'redact', 'create_gist', '--project-dir'])
    expectLocated(message, items)
  })

  it('the brief\'s repro: a short Write keeps the path and the names', () => {
    const message = write("REPO_ROOT = 1\ndef find_transcript(project_dir):\n    return os.environ['GITHUB_TOKEN']\n")
    const found = texts(full.extract(message, 0))
    expect(found).toEqual(expect.arrayContaining(['/repo/share.py', 'find_transcript', 'GITHUB_TOKEN']))
    expect(found.some((text) => text.includes('REPO_ROOT'))).toBe(true)
  })

  it('JavaScript and TypeScript: functions, classes, interfaces, types, enums, exported and top-level bindings, process.env, commander options', () => {
    const content = [
      "import { readFile } from 'node:fs/promises'",
      'export async function loadConfig(path: string) {',
      '  const inner = await readFile(path)',
      '  return process.env.API_BASE_URL ?? inner',
      '}',
      'export interface SessionOptions { dir: string }',
      'export type ShareMode = "gist" | "file"',
      'enum LogLevel { Debug, Info }',
      'export default class GistPublisher extends Base {',
      '  publish() { return fetch(url) }',
      '}',
      'const uploadLimit = createLimiter()',
      "program.option('--dry-run', 'print only')",
      filler(10),
    ].join('\n')
    const items = full.extract(write(content, '/repo/share.ts'), 0)
    expect(identifiers(items)).toEqual(['loadConfig', 'API_BASE_URL', 'SessionOptions', 'ShareMode', 'LogLevel', 'GistPublisher', 'uploadLimit', '--dry-run'])
  })

  it('Go: funcs, methods, types, os.Getenv and flag definitions', () => {
    const content = [
      'package main',
      'type ServerConfig struct {',
      '\tAddr string',
      '}',
      'func (s *Server) HandleShare(w http.ResponseWriter) {',
      '\tkey := os.Getenv("SHARE_API_KEY")',
      '}',
      'func parseFlags() {',
      '\taddr := flag.String("listen-addr", ":8080", "address")',
      '}',
      filler(10),
    ].join('\n')
    expect(identifiers(full.extract(write(content, '/repo/main.go'), 0))).toEqual(['ServerConfig', 'HandleShare', 'SHARE_API_KEY', 'parseFlags', 'listen-addr'])
  })

  it('Rust: fn, pub(crate) fn, struct, enum, trait, const, static, mod and env::var', () => {
    const content = [
      'pub mod redaction;',
      'pub const DEFAULT_PORT: u16 = 8080;',
      'static GREETING: &str = "hi";',
      'pub struct Redactor { rules: Vec<Rule> }',
      'enum TokenKind { Slack, Stripe }',
      'pub trait Scrubber {',
      '    fn scrub(&self, text: &str) -> String;',
      '}',
      'pub(crate) async fn redact_text(input: &str) -> String {',
      '    let home = std::env::var("REDACT_CONFIG").unwrap();',
      '    input.to_string()',
      '}',
      filler(10),
    ].join('\n')
    expect(identifiers(full.extract(write(content, '/repo/src/lib.rs'), 0))).toEqual([
      'redaction', 'DEFAULT_PORT', 'GREETING', 'Redactor', 'TokenKind', 'Scrubber', 'scrub', 'redact_text', 'REDACT_CONFIG',
    ])
  })

  it('Java, C# and Kotlin: classes, interfaces, enums and records with their modifiers; Kotlin fun', () => {
    const content = [
      'public final class TranscriptLoader {',
      '  private static final int LIMIT = 3;',
      '}',
      'public interface Exporter {}',
      'public enum ExportFormat { JSON, HTML }',
      'public record ShareResult(String url) {}',
      'internal sealed class Outcome',
      'fun formatSummary(text: String): String = text',
      filler(10),
    ].join('\n')
    expect(identifiers(full.extract(write(content, '/repo/Main.java'), 0))).toEqual([
      'TranscriptLoader', 'Exporter', 'ExportFormat', 'ShareResult', 'Outcome', 'formatSummary',
    ])
  })

  it('shell: functions both ways, exported and assigned variables, ${X} and $X reads (not HOME or PATH)', () => {
    const content = [
      '#!/usr/bin/env bash',
      'export CLAUDE_PLUGIN_ROOT=/opt/plugin',
      'OUTPUT_DIR=/tmp/share',
      'publish_gist() {',
      '  gh gist create "${SHARE_FILE}" --desc "$GIST_DESC" > "$HOME/out"',
      '}',
      'function cleanup {',
      '  rm -rf "$PATH_TMP"',
      '}',
      filler(10),
    ].join('\n')
    const items = full.extract(write(content, '/repo/share.sh'), 0)
    expect(identifiers(items)).toEqual(['publish_gist', 'SHARE_FILE', 'GIST_DESC', 'cleanup', 'PATH_TMP'])
    // Assigned a value, the variable is in the value's item.
    expect(covered(items, 'CLAUDE_PLUGIN_ROOT') && covered(items, 'OUTPUT_DIR')).toBe(true)
    const unassigned = full.extract(write(['export SHARE_TOKEN', 'export CACHE_ROOT="$(mktemp -d)"', filler(10)].join('\n'), '/repo/env.sh'), 0)
    expect(identifiers(unassigned)).toContain('SHARE_TOKEN')
    expect(covered(unassigned, 'CACHE_ROOT')).toBe(true)
  })

  it('CI YAML: the keys of an env block and the secrets it reads', () => {
    const content = [
      'name: publish',
      'on: workflow_dispatch',
      'jobs:',
      '  share:',
      '    runs-on: ubuntu-latest',
      '    env:',
      '      NODE_VERSION: lts',
      '      GIST_TOKEN: ${{ secrets.GIST_PAT }}',
      '    steps:',
      '      - run: echo hi',
      ...Array.from({ length: 12 }, (_, index) => `      - run: step ${index}`),
    ].join('\n')
    expect(identifiers(full.extract(write(content, '/repo/.github/workflows/publish.yml'), 0))).toEqual(['NODE_VERSION', 'GIST_TOKEN', 'GIST_PAT'])
  })

  it('SQL: CREATE TABLE, VIEW and FUNCTION names, IF NOT EXISTS and OR REPLACE skipped', () => {
    const content = [
      'CREATE TABLE IF NOT EXISTS shared_sessions (',
      '  id TEXT PRIMARY KEY',
      ');',
      'create or replace view recent_shares as select * from shared_sessions;',
      'CREATE FUNCTION redact_row() RETURNS trigger AS $$ BEGIN RETURN NEW; END $$ LANGUAGE plpgsql;',
      filler(10),
    ].join('\n')
    expect(identifiers(full.extract(write(content, '/repo/schema.sql'), 0))).toEqual(['shared_sessions', 'recent_shares', 'redact_row'])
  })

  it('an edit\'s new text gives its names, its old text none; a patch\'s added lines only', () => {
    const edit = assistant({
      type: 'tool-call', id: 'c1', name: 'Edit',
      arguments: { file_path: '/repo/a.py', old_string: 'def old_helper(x):\n    return x', new_string: 'def new_helper(x):\n    return x' },
    })
    const names = identifiers(full.extract(edit, 0))
    expect(names).toContain('new_helper')
    expect(names).not.toContain('old_helper')
    const patch = ['*** Begin Patch', '*** Update File: src/share.py', '@@', '-def removed_name(x):', '+def added_name(x):', ' def context_name(y):', filler(30), '*** End Patch'].join('\n')
    const patchNames = identifiers(full.extract(assistant({ type: 'tool-call', id: 'c1', name: 'apply_patch', arguments: patch }), 0))
    expect(patchNames).toEqual(['added_name'])
  })

  it('a heredoc that writes a file gives its names', () => {
    const command = ["cat > /repo/hook.py <<'EOF'", 'def on_stop(event):', '    return os.environ["HOOK_SECRET"]', filler(30), 'EOF'].join('\n')
    const names = identifiers(full.extract(assistant({ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command } }), 0))
    expect(names).toEqual(expect.arrayContaining(['on_stop', 'HOOK_SECRET']))
  })
})

describe('no noise from a payload', () => {
  it('locals, calls, imports, keywords, parameters and it()/test() titles are not items', () => {
    const content = [
      'import json',
      'from collections import defaultdict',
      'def run_export(records):',
      '    counts = defaultdict(int)',
      '    for record in records:',
      '        counts[record.kind] += 1',
      '        json.dumps(record)',
      '    if counts:',
      '        return counts',
      "it('exports every record', () => {})",
      "test('handles empty input', () => {})",
      '    let inner_value = compute()',
      'class of errors is described below',
      'type the command to continue',
      filler(10),
    ].join('\n')
    const names = identifiers(full.extract(write(content), 0))
    expect(names).toEqual(['run_export'])
  })

  it('test names are not items (a test runner finds them; sessions seldom name one again)', () => {
    const content = ['class TestPhoneRedaction(unittest.TestCase):', '    def test_slack_token(self):', '        pass', 'func TestShare(t *testing.T) {', '}', 'def testable_helper():', filler(10)].join('\n')
    expect(identifiers(full.extract(write(content), 0))).toEqual(['testable_helper'])
  })

  it('short flags, positional arguments, dunders, `main` and two-letter names are not items', () => {
    const content = ['parser.add_argument("path")', 'parser.add_argument("-v")', 'def __init__(self):', 'def fn(x):', 'def main():', 'BS = compute()', filler(10)].join('\n')
    expect(identifiers(full.extract(write(content), 0))).toEqual([])
  })
})

describe('names a file view in tool output defines', () => {
  const view = (lines: string[]) => lines.map((line, index) => `${String(index + 1).padStart(6)}→${line}`).join('\n')

  it('a numbered Read: top-level definitions and env reads, not methods, flags or locals', () => {
    const content = view([
      'import os',
      'REDACTED_SLACK_TOKEN = "[REDACTED]"',
      'def redact_text(text):',
      '    jsonl_files = []',
      '    root = os.environ.get("CLAUDE_PLUGIN_ROOT")',
      '    raise FileNotFoundError(f"missing {root}")',
      'class Extractor:',
      '    def extract_tools(self):',
      '        return None',
      'def process_jsonl_streaming(path):',
      '    parser.add_argument("--project-dir")',
    ])
    const message = tool(content)
    const items = full.extract(message, 0)
    expect(identifiers(items)).toEqual(['REDACTED_SLACK_TOKEN', 'redact_text', 'CLAUDE_PLUGIN_ROOT', 'Extractor', 'process_jsonl_streaming'])
    expectLocated(message, items)
    // In order of the text.
    const starts = items.map((item) => item.start)
    expect([...starts].sort((a, b) => a - b)).toEqual(starts)
  })

  it('cat -n and a plain cat give the same names; a hooks file\'s ${CLAUDE_PLUGIN_ROOT}', () => {
    const source = ['def share(path):', '    return path', 'SHARE_DIR = "/tmp"', 'main()']
    const numbered = source.map((line, index) => `${String(index + 1).padStart(6)}\t${line}`).join('\n')
    expect(identifiers(full.extract(tool(numbered, 'Bash'), 0))).toEqual(['share', 'SHARE_DIR'])
    expect(identifiers(full.extract(tool(source.join('\n'), 'Bash'), 0))).toEqual(['share', 'SHARE_DIR'])
    // SWE-agent's `open` (and `grep -n`): `12:def share(path):`.
    const opened = ['[File: /repo/share.py (4 lines total)]', ...source.map((line, index) => `${index + 1}:${line}`)].join('\n')
    expect(identifiers(full.extract(tool(opened, 'bash'), 0))).toEqual(['share', 'SHARE_DIR'])
    const hooks = '{"hooks": {"Stop": [{"command": "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"}]}}'
    expect(identifiers(full.extract(tool(hooks), 0))).toContain('CLAUDE_PLUGIN_ROOT')
  })

  it('a code block in a report (a sub-agent\'s result) is read at its fence\'s indentation', () => {
    const report = [
      '2. **Large files:** loading whole files fails on big JSONL',
      '   - **Solution:** stream it',
      '   ```python',
      '   def process_jsonl_streaming(filepath):',
      '       with open(filepath) as handle:',
      '           def inner_helper(x):',
      '               return x',
      '   ```',
      '   def not_code_outside_a_fence(x):',
    ].join('\n')
    expect(identifiers(full.extract(tool(report, 'Task'), 0))).toEqual(['process_jsonl_streaming'])
  })

  it('ordinary tool output gives no names: prose, logs, a shell prompt\'s $VARS, grep hits, tracebacks', () => {
    const output = [
      'Installing dependencies...',
      'The class of errors below is expected.',
      'echo $GITHUB_TOKEN printed nothing',
      'src/share.py:12:def find_transcript(project_dir):',
      'Traceback (most recent call last):',
      '  File "/repo/share.py", line 3, in <module>',
      '    def broken(',
      'INFO 12:00 done',
      'CUDA_VISIBLE_DEVICES=1',
      'LOG_LEVEL=debug',
      'run_all()',
    ].join('\n')
    expect(identifiers(full.extract(tool(output, 'Bash'), 0))).toEqual([])
  })

  it('a 2,000-line view adds one item per top-level definition, none per method or local', () => {
    const lines: string[] = []
    for (let index = 0; index < 100; index++) {
      lines.push(`def helper_${index}(value):`)
      for (let body = 0; body < 19; body++) lines.push(body % 5 === 0 ? `    def inner_${index}_${body}(x):` : `    local_${body} = value + ${body}`)
    }
    expect(lines.length).toBe(2000)
    const names = identifiers(full.extract(tool(view(lines)), 0))
    expect(names.length).toBe(100)
    expect(names[0]).toBe('helper_0')
  })
})

describe('a hostile payload', () => {
  it('a megabyte of near-definitions and anchors is read in linear time', () => {
    const pieces = ['def (', 'class ', 'os.environ[', '${', 'add_argument("-', 'func (', 'CREATE TABLE ', 'pub(', 'export ', '$', "os.environ['ABC'] ${DEF}"]
    let content = ''
    for (let index = 0; content.length < 1 << 20; index++) content += pieces[index % pieces.length]! + (index % 13 === 0 ? '\n' : ' ')
    const one = content.slice(0, 1 << 20)
    const long = one.replace(/\n/g, ' ')
    // Tens of thousands of names on one line, from two anchors interleaved (sorting them pairwise was quadratic).
    let envLine = ''
    for (let index = 0; envLine.length < 1 << 20; index++) envLine += `os.environ['AB${index}'] \${CD${index}} `
    for (const text of [one, long, envLine]) {
      const items = full.extract(write(text), 0)
      expect(items.length).toBeGreaterThan(0)
    }
  })
})

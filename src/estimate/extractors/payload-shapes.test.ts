import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1, FloorItem } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// A re-test on a real Codex 0.60 rollout (session 11): 52 items of one 316-message segment were whole `*** Begin Patch
// … *** End Patch` inputs of the apply_patch custom tool, short enough to pass as one argument (7,438 of the segment's
// 8,720 item tokens). A tool argument that is a payload by its shape goes through the payload reader whatever its key
// and length: its paths, values and interface names are items, never the payload whole. The payloads below have the
// log's shape, not its text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const call = (name: string, args: unknown): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name, arguments: args as never }] })
const texts = (items: readonly FloorItem[]) => items.map((item) => item.text)
const extract = (message: Message) => texts(full.extract(message, 0))

const patch = [
  '*** Begin Patch',
  '*** Update File: styles.css',
  '@@',
  '-  --square-size: 64px;',
  '+  --square-size: 80px;',
  '*** Add File: assets/pieces/wK.svg',
  '+<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 45 45"><path d="M22.5 11.6V6"/></svg>',
  '*** Update File: app.js',
  '@@',
  '+function highlightCaptures(state) {',
  '+  return state.legalMoves.filter((move) => move.capture)',
  '+}',
  '*** End Patch',
].join('\n')

/** The items a hand reading of `patch` finds: the three files, the new property value, the SVG namespace, the new function. */
const PATCH_ITEMS = ['styles.css', '--square-size: 80px', 'assets/pieces/wK.svg', 'http://www.w3.org/2000/svg', 'app.js', 'highlightCaptures']

const noWholePatch = (items: readonly string[]) => {
  expect(items.some((text) => text.includes('*** Begin Patch') || text.includes('*** End Patch'))).toBe(false)
  expect(items.some((text) => text.includes('\n'))).toBe(false)
}

describe('a patch is a payload by its shape', () => {
  it("Codex's apply_patch custom tool (the call's arguments are the patch, under 1,000 units): its files, values and names", () => {
    expect(patch.length).toBeLessThan(1000)
    const items = extract(call('apply_patch', patch))
    for (const expected of PATCH_ITEMS) expect(items).toContain(expected)
    noWholePatch(items)
    // The old value the patch removes is no value written.
    expect(items).not.toContain('--square-size: 64px')
  })

  it('a function call {"command":["apply_patch", PATCH]} and a function call {"input": PATCH}', () => {
    for (const message of [call('shell', { command: ['apply_patch', patch] }), call('apply_patch', { input: patch })]) {
      const items = extract(message)
      for (const expected of PATCH_ITEMS) expect(items).toContain(expected)
      noWholePatch(items)
    }
  })

  it('a heredoc fed to apply_patch, patch or git apply in a shell command, however short', () => {
    for (const opener of ["apply_patch <<'EOF'", 'git apply <<EOF', 'patch -p1 <<"EOF"']) {
      const command = `${opener}\n${patch}\nEOF`
      for (const message of [call('shell', { command: ['bash', '-lc', command] }), call('Bash', { command })]) {
        const items = extract(message)
        for (const expected of PATCH_ITEMS) expect(items).toContain(expected)
        noWholePatch(items)
      }
    }
  })

  it('a unified diff under any key names its files and the values it adds', () => {
    const diff = ['--- a/config/app.yaml', '+++ b/config/app.yaml', '@@ -1,2 +1,2 @@', ' name: web', '-port: 8080', '+port: 9090'].join('\n')
    for (const message of [call('propose_change', { changes: diff }), call('run', { input: `diff --git a/config/app.yaml b/config/app.yaml\n${diff}` })]) {
      const items = extract(message)
      expect(items).toContain('config/app.yaml')
      expect(items).toContain('port: 9090')
      expect(items).not.toContain('port: 8080')
      expect(items.some((text) => text.includes('\n'))).toBe(false)
    }
  })

  it("a short heredoc that writes a file stays a command whole (a session runs it again verbatim); a patch's does not", () => {
    const command = "cat > .env.example <<'EOF'\nDATABASE_URL=postgres://db.internal:5432/app\nWORKERS=4\nEOF"
    expect(extract(call('Bash', { command }))).toEqual([command])
    const patchCommand = `git apply <<'EOF'\n--- a/.env.example\n+++ b/.env.example\n@@ -1 +1 @@\n-WORKERS=2\n+WORKERS=4\nEOF`
    const items = extract(call('Bash', { command: patchCommand }))
    expect(items).toEqual(expect.arrayContaining(["git apply <<'EOF'", '.env.example', 'WORKERS=4']))
    expect(items).not.toContain(patchCommand)
    expect(items).not.toContain('WORKERS=2')
  })
})

describe("a multi-line argument of a call that writes files is the file's body, whatever its key", () => {
  const edit = ['export function clampSquareSize(size: number): number {', '  return Math.max(MIN_SQUARE_PX, size)', '}'].join('\n')

  it("Cursor's edit_file code_edit, MCP's edit_file newText: names, not the body; the old text's names are not", () => {
    expect(extract(call('edit_file', { target_file: 'src/board.ts', code_edit: edit }))).toEqual(['src/board.ts', 'clampSquareSize'])
    const mcp = extract(call('edit_file', { path: 'src/board.ts', edits: [{ oldText: 'export function oldSquareSize() {\n}', newText: edit }] }))
    expect(mcp).toContain('clampSquareSize')
    expect(mcp).not.toContain('oldSquareSize')
    noWholePatch(mcp)
  })

  it('adds no noise: a one-line argument stays whole, a call that writes nothing keeps its multi-line argument, a script heredoc stays a command', () => {
    expect(extract(call('write_file', { file_path: 'notes/plan.md', content: 'one line' }))).toContain('notes/plan.md')
    const query = 'SELECT id\nFROM users\nWHERE active'
    expect(extract(call('run_query', { sql: query }))).toEqual([query])
    const script = "python - <<'EOF'\nprint(1)\nEOF"
    expect(extract(call('Bash', { command: script }))).toEqual([script])
  })
})

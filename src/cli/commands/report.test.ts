import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codexSiblingsLog } from '../../audit/__fixtures__/codex-siblings.js'
import { runCaptured } from '../_test-io.js'

const example = JSON.parse(readFileSync(new URL('../../../examples/turn-412-record.openai.json', import.meta.url), 'utf8')) as { messages: Array<{ role: string; content: string }> }

describe('floorguard report', () => {
  let folder = ''
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'floorguard-report-cli-'))
    writeFileSync(join(folder, 'session.json'), JSON.stringify(example))
    mkdirSync(join(folder, 'logs', 'nested'), { recursive: true })
    writeFileSync(join(folder, 'logs', 'a.json'), JSON.stringify(example))
    writeFileSync(join(folder, 'logs', 'nested', 'b.json'), JSON.stringify({ messages: [{ role: 'user', content: '<script>alert(1)</script> see /srv/x.py' }] }))
    writeFileSync(join(folder, 'logs', 'broken.json'), '{"messages": [')
    writeFileSync(join(folder, 'logs', 'image.png'), 'not looked at')
  })
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('writes report.html in the current directory by default, one line on stderr', async () => {
    const { code, stdout, stderr } = await runCaptured(['report', 'session.json'], { cwd: folder })
    expect(code).toBe(0)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^floorguard report: wrote report\.html \(\d+ KB; 1 session\)\n$/)
    const html = readFileSync(join(folder, 'report.html'), 'utf8')
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true)
    expect(html).toContain('<title>floorguard report: session.json</title>')
    expect(html).not.toContain('id="overview"')
  })

  it('-o - writes the page to standard output; - reads the transcript from standard input', async () => {
    const { code, stdout } = await runCaptured(['report', 'session.json', '-o', '-', '--slot', '600'], { cwd: folder })
    expect(code).toBe(0)
    expect(stdout).toContain('<span class="decision refuse">REFUSE</span>')
    const piped = await runCaptured(['report', '-', '-o', '-'], { cwd: folder, stdin: JSON.stringify(example) })
    expect(piped.code).toBe(0)
    expect(piped.stdout).toContain('<title>floorguard report: &lt;stdin&gt;</title>')
    expect(piped.stdout).toContain('<h2>&lt;stdin&gt;</h2>')
  })

  it('a directory: one page with an overview of its transcripts, the unreadable ones listed, other files not looked at', async () => {
    const { code, stderr } = await runCaptured(['report', 'logs', '-o', 'all.html'], { cwd: folder })
    expect(code).toBe(0)
    expect(stderr).toContain('2 sessions, 1 files not read')
    const html = readFileSync(join(folder, 'all.html'), 'utf8')
    expect(html).toContain('<td><a href="#s0">a.json</a></td>')
    expect(html).toContain('<td><a href="#s1">nested/b.json</a></td>')
    expect(html).toContain('<td>broken.json</td>')
    expect(html).not.toContain('image.png')
    expect(html).not.toContain('<script>alert(1)')
  })

  it("the irreducible items card counts what check counts, each distinct item once (a re-test: the card said 1,392, check 831)", async () => {
    // The same path, constraint and error in several messages: one item each for check, a span in every message.
    const messages = Array.from({ length: 6 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Edit src/app.ts again; never push to main. Last run: ModuleNotFoundError: No module named yaml (try ${index}, see docs/step${index}.md)`,
    }))
    writeFileSync(join(folder, 'repeats.json'), JSON.stringify({ messages }))
    const checked = await runCaptured(['check', 'repeats.json', '--json'], { cwd: folder })
    expect(checked.code).toBe(0)
    const check = JSON.parse(checked.stdout) as { items: unknown[]; floor: { irreducible: number } }
    const { code, stdout } = await runCaptured(['report', 'repeats.json', '-o', '-'], { cwd: folder })
    expect(code).toBe(0)
    const card = /<div class="label">irreducible items<\/div><div class="value">([\d,]+)<\/div><div class="detail">([\d,]+) tokens · ([\d,]+) spans in messages<\/div>/.exec(stdout)
    expect(card, 'the card').not.toBeNull()
    const [, items, tokens, spans] = card!.map((value) => Number(value.replaceAll(',', '')))
    expect(items).toBe(check.items.length)
    expect(tokens).toBe(check.floor.irreducible)
    // The fixture tells the two counts apart.
    expect(spans).toBeGreaterThan(items!)
  })

  it("floorguard's own summaries: the page names the range they replaced as not in the file, with nothing lost (as audit reports them)", async () => {
    const block = (range: string) => `<floorguard-state v="2" range="${range}" tokens="900">\n## state\n- src/app.ts\n</floorguard-state>`
    const messages = [
      { role: 'system', content: 'Never push to main.' },
      { role: 'user', content: block('1-30') },
      { role: 'user', content: block('30-52') },
      { role: 'user', content: 'Open src/app.ts.' },
    ]
    writeFileSync(join(folder, 'own.json'), JSON.stringify({ messages }))
    const { code, stdout } = await runCaptured(['report', 'own.json', '-o', '-'], { cwd: folder })
    expect(code).toBe(0)
    expect(stdout).toContain("messages 1–30 not in this file (floorguard's own summary)")
    expect(stdout).toContain("messages 30–52 not in this file (floorguard's own summary)")
    expect(stdout).not.toContain('items lost')
  })

  it("reads what a Codex compaction kept (replacement_history), as audit does: a kept earlier summary is a sibling, not a loss", async () => {
    writeFileSync(join(folder, 'siblings.jsonl'), codexSiblingsLog())
    const { code, stdout } = await runCaptured(['report', 'siblings.jsonl', '-o', '-'], { cwd: folder })
    expect(code).toBe(0)
    const data = /<script[^>]*type="application\/json"[^>]*>([^<]*)<\/script>/.exec(stdout)
    expect(data).not.toBeNull()
    const page = JSON.parse(data![1]!) as { sessions: Array<{ compactions: Array<{ message: number; audit?: { survival: number | null } }> }> }
    // Without the kept history the second summary's segment was message 0 (the first summary, 2 items, 0 survived).
    expect(page.sessions[0]!.compactions).toEqual([
      { message: 0, audit: { survival: null } },
      { message: 1, audit: { survival: null } },
    ])
    expect(stdout).not.toContain('<span class="tag bad">')
  })

  it('refuses an OUT that is the input: the same path, a link to it, a hard link, a file a walk reads (exit 2, one line, input kept; a re-test: the page replaced in.json)', async () => {
    const dir = join(folder, 'own-out')
    mkdirSync(join(dir, 'walked'), { recursive: true })
    const text = JSON.stringify(example)
    writeFileSync(join(dir, 'in.json'), text)
    writeFileSync(join(dir, 'walked', 'in.json'), text)
    symlinkSync('in.json', join(dir, 'alias.json'))
    linkSync(join(dir, 'in.json'), join(dir, 'hard.json'))
    const cases: Array<[string[], RegExp]> = [
      [['report', 'in.json', '-o', 'in.json'], /^floorguard report: -o in\.json: refusing to overwrite the input file; write the report elsewhere\n$/],
      [['report', 'in.json', '-o', 'alias.json'], /^floorguard report: -o alias\.json: refusing to overwrite the input file; write the report elsewhere\n$/],
      [['report', 'in.json', '-o', 'hard.json'], /^floorguard report: -o hard\.json: refusing to overwrite the input file;/],
      [['report', 'walked', '-o', 'walked/in.json'], /^floorguard report: -o walked\/in\.json: refusing to overwrite the input file .*walked\/in\.json, which the walk reads; write the report elsewhere\n$/],
      [['report', '.', '-o', 'in.json'], /^floorguard report: -o in\.json: refusing to overwrite the input file .*\/(hard|in)\.json, which the walk reads;/],
    ]
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await runCaptured(args, { cwd: dir })
      expect([args.join(' '), code]).toEqual([args.join(' '), 2])
      expect(stderr).toMatch(message)
      expect(stdout).toBe('')
    }
    expect(readFileSync(join(dir, 'in.json'), 'utf8')).toBe(text)
    expect(readFileSync(join(dir, 'walked', 'in.json'), 'utf8')).toBe(text)
    // A walk whose OUT is a new name, or a file it does not read (.html), still writes.
    expect((await runCaptured(['report', 'walked', '-o', 'walked/page.html'], { cwd: dir })).code).toBe(0)
  })

  it('bad input and bad usage: one line, exit 2, nothing written', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['report', 'missing.json', '-o', 'x.html'], /^floorguard report: missing\.json: expected a transcript file or a directory, got ENOENT\n$/],
      [['report', 'logs/broken.json', '-o', 'x.html'], /^floorguard report: .*broken\.json.*\n$/],
      [['report', 'session.json', '-o', 'logs'], /^floorguard report: -o logs: is a directory; give a file name\n$/],
      [['report', 'session.json', '--slot', 'many', '-o', 'x.html'], /^floorguard report: --slot: expected a positive integer, got "many"\n$/],
      [['report', '-o', 'x.html'], /^floorguard report: expected one FILE or DIR, got none\n$/],
    ]
    for (const [args, message] of cases) {
      const { code, stderr } = await runCaptured(args, { cwd: folder })
      expect([args.join(' '), code]).toEqual([args.join(' '), 2])
      expect(stderr).toMatch(message)
    }
    expect(existsSync(join(folder, 'x.html'))).toBe(false)
    expect(statSync(join(folder, 'logs')).isDirectory()).toBe(true)
  })
})

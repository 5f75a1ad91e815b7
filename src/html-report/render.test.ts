import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { auditTranscript } from '../audit/audit.js'
import { readChartJs } from '../cli/commands/report.js'
import { createEstimator } from '../estimate/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { injectionSession, INJECTIONS } from './__fixtures__/session.js'
import { buildSessionReport } from './build.js'
import type { ReportDocument } from './model.js'
import { renderReportPage } from './render.js'

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer })
const chartJs = readChartJs()

function page(document: Partial<ReportDocument> = {}): { html: string; document: ReportDocument } {
  const transcript = injectionSession()
  const audit = auditTranscript(transcript, { estimator, tokenizer })
  const sessions = document.sessions ?? [buildSessionReport(transcript, { file: `a ${INJECTIONS.image}.json`, estimator, tokenizer, audit })]
  const full: ReportDocument = { title: `report ${INJECTIONS.script}`, generator: 'floorguard test', sessions, skipped: [], overview: false, ...document }
  return { html: renderReportPage(full, { chartJs }), document: full }
}

/** The page with the contents of its script elements removed: the markup a parser builds elements from. */
function markupOutsideScripts(html: string): string {
  return html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '<script></script>')
}

describe('renderReportPage', () => {
  test('three script elements (data, Chart.js, the page), each allowed by its hash in the CSP, and no network source', () => {
    const { html } = page()
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.map((match) => match[1])).toEqual([' type="application/json" id="floorguard-data"', '', ''])
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? ''
    expect(policy).toContain("default-src 'none'")
    for (const match of scripts.slice(1)) {
      expect(policy).toContain(`'sha256-${createHash('sha256').update(match[2]!, 'utf8').digest('base64')}'`)
    }
    expect(policy).not.toMatch(/https?:|'unsafe-eval'|script-src[^;]*'unsafe-inline'/)
    const markup = markupOutsideScripts(html)
    expect(markup).not.toMatch(/\b(?:src|href|action)\s*=\s*"(?!#)/)
    expect(markup).not.toMatch(/<link\b|<iframe\b|<img\b|@import|url\(/i)
  })

  test('Chart.js is inlined whole, its license banner first', () => {
    const { html } = page()
    expect(chartJs.startsWith('/*!\n * Chart.js v4.6.1')).toBe(true)
    expect(html).toContain(`<script>${chartJs}</script>`)
    expect(html).toContain('Released under the MIT License')
  })

  test('transcript markup never becomes markup: file name, title, plan and lost items are escaped, the data is escaped JSON', () => {
    const { html, document } = page()
    const markup = markupOutsideScripts(html)
    expect(markup).not.toContain('<img')
    expect(markup).not.toContain('<script>window')
    expect(markup).toContain('a &quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=&#39;img&#39;&quot;&gt;.json')
    expect(markup).toContain('<title>report &lt;script&gt;window.__pwned = &quot;script&quot;; alert(1)&lt;/script&gt;</title>')
    const data = /<script type="application\/json" id="floorguard-data">([\s\S]*?)<\/script>/.exec(html)![1]!
    expect(data).not.toMatch(/[<>&\u2028\u2029]/)
    const parsed = JSON.parse(data) as { sessions: Array<{ messages: Array<{ text: string }> }> }
    const session = document.sessions[0]!
    expect(parsed.sessions[0]!.messages.map((message) => message.text)).toEqual(session.messages.map((message) => message.text))
    const texts = parsed.sessions[0]!.messages.map((message) => message.text).join('\n')
    for (const injection of Object.values(INJECTIONS)) expect(texts).toContain(injection)
  })

  test('a directory page has an overview row per session linking to its section, and lists the files not read', () => {
    const transcript = injectionSession()
    const sessions = ['one.jsonl', 'two.jsonl'].map((file, index) => buildSessionReport(transcript, { file, id: `s${index}`, estimator, tokenizer }))
    const { html } = page({ sessions, overview: true, skipped: [{ file: 'notes<x>.md', reason: 'no format matched' }] })
    expect(html).toContain('<section class="overview" id="overview">')
    expect(html).toContain('<td><a href="#s0">one.jsonl</a></td>')
    expect(html).toContain('<td><a href="#s1">two.jsonl</a></td>')
    expect(html).toContain('<section class="session" id="s1">')
    expect(html).toContain('<td>notes&lt;x&gt;.md</td>')
    const ids = [...markupOutsideScripts(html).matchAll(/ id="([^"]+)"/g)].map((match) => match[1])
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([])
  })

  test('the audit lists lost items used again first, each linking to where it was used', () => {
    const { html, document } = page()
    const compaction = document.sessions[0]!.compactions[0]!
    const lost = compaction.audit!.lost
    const firstUnused = lost.findIndex((item) => item.usedAgainAt === null)
    expect(lost.slice(0, firstUnused).length).toBeGreaterThan(0)
    expect(lost.slice(firstUnused).every((item) => item.usedAgainAt === null)).toBe(true)
    const used = lost[0]!
    expect(html).toContain(`data-goto="s0-u0">#${used.usedAgainAt}</a>`)
  })
})

describe("floorguard's own summary over messages not in the file (a re-test, I4: floor 0 and COMPACT for what was never audited)", () => {
  test('shows no floor and no verdict for it, and a one-message plan range as that one message', () => {
    const block = '<floorguard-state v="2" range="1-7" tokens="9">\n## state\n- src/app.ts\n</floorguard-state>'
    const transcript = {
      format: 'test',
      messages: [
        { role: 'user' as const, parts: [{ type: 'text' as const, text: 'Edit src/app.ts.' }] },
        { role: 'user' as const, parts: [{ type: 'text' as const, text: block }] },
      ],
      pairs: [],
      unpaired: [],
    }
    const audit = auditTranscript(transcript, { estimator, tokenizer })
    const session = buildSessionReport(transcript, { file: 'own.json', estimator, tokenizer, audit })
    const { html } = page({ sessions: [session] })
    const compactions = /<h3 id="s0-compactions">[\s\S]*?<\/table>/.exec(html)?.[0] ?? ''
    const row = /<tbody><tr>([\s\S]*?)<\/tr>/.exec(compactions)?.[1] ?? ''
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((match) => match[1])
    expect(cells).toHaveLength(12)
    expect(cells[2]).toContain('messages 1–7 not in this file')
    expect(cells.slice(-2)).toEqual(['—', '—'])
    expect(compactions).not.toMatch(/COMPACT|decision compact/)
    const plan = /<h3 id="s0-plan">[\s\S]*?<\/h3>/.exec(html)?.[0] ?? ''
    expect(plan).toContain('messages <a class="goto" href="#s0-m1" data-goto="s0-m1">#1</a>, from')
  })
})

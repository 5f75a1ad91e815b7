/**
 * The report in a real browser: Debian's chromium driven by playwright-core, one launch for the file. Skipped with a
 * message when /usr/bin/chromium is absent, except under CI (which installs it), where its absence fails.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { auditTranscript } from '../audit/audit.js'
import { readChartJs } from '../cli/commands/report.js'
import { createEstimator } from '../estimate/index.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { pairToolCalls } from '../transcript/render.js'
import { injectionSession, INJECTIONS } from './__fixtures__/session.js'
import { buildSessionReport } from './build.js'
import { renderReportPage } from './render.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const ARTIFACTS = fileURLToPath(new URL('../../.artifacts/', import.meta.url))
const available = existsSync(CHROMIUM)

function transcriptOf(messages: Message[]): Transcript {
  return { format: 'openai', messages, ...pairToolCalls(messages) }
}

if (!available) {
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing: CI installs Debian's chromium (.ci/run), so the browser tests must run there`)
  console.warn(`html-report browser tests SKIPPED: ${CHROMIUM} is absent (apt-get install chromium to run them)`)
}

describe.skipIf(!available)('the report page in headless chromium', () => {
  let folder = ''
  let context: BrowserContext | undefined
  let page: Page
  let directoryFile = ''
  const consoleErrors: string[] = []
  const requests: string[] = []
  const dialogs: string[] = []

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'floorguard-report-'))
    const tokenizer = await createTokenizer('o200k_base')
    const estimator = createEstimator({ name: 'full', tokenizer })
    const transcript = injectionSession()
    const audit = auditTranscript(transcript, { estimator, tokenizer, file: 'injection.json' })
    const session = buildSessionReport(transcript, { file: 'injection <b>.json', estimator, tokenizer, audit })
    const html = renderReportPage({ title: 'floorguard report: injection', generator: 'floorguard test', sessions: [session], skipped: [], overview: false }, { chartJs: readChartJs() })
    const file = join(folder, 'report.html')
    writeFileSync(file, html)
    // A directory page: the session above, then one of 900 messages (the chart bins them; a long one is cut).
    const long = transcriptOf(
      Array.from({ length: 900 }, (_, index): Message => ({ role: index % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `step ${index} edits src/m${index}.py ${index === 7 ? 'x'.repeat(9000) : ''}` }] })),
    )
    const big = buildSessionReport(long, { file: 'big.json', id: 's1', estimator, tokenizer })
    directoryFile = join(folder, 'directory.html')
    writeFileSync(
      directoryFile,
      renderReportPage({ title: 'floorguard report: logs', generator: 'floorguard test', sessions: [session, big], skipped: [], overview: true }, { chartJs: readChartJs() }),
    )

    const { chromium } = await import('playwright-core')
    context = await chromium.launchPersistentContext(join(folder, 'profile'), { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1360, height: 1000 } })
    page = context.pages()[0] ?? (await context.newPage())
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })
    page.on('pageerror', (error) => consoleErrors.push(String(error)))
    page.on('request', (request) => requests.push(request.url()))
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' })
    await page.waitForSelector('html[data-ready="1"]', { timeout: 15_000 })
  })

  afterAll(async () => {
    await context?.close()
    if (folder) rmSync(folder, { recursive: true, force: true })
  })

  test('loads with no console errors and requests nothing but the file itself', () => {
    expect(requests.length).toBeGreaterThan(0)
    expect(requests.filter((url) => !url.startsWith('file:') && !url.startsWith('data:'))).toEqual([])
    expect(consoleErrors).toEqual([])
  })

  test('the timeline chart is drawn (a Chart.js instance, and coloured pixels on its canvas)', async () => {
    const drawn = await page.evaluate(`(() => {
      const canvas = document.getElementById('s0-chart');
      const chart = window.Chart && window.Chart.getChart(canvas);
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let coloured = 0;
      for (let index = 0; index < pixels.length; index += 4) if (pixels[index + 3] > 0 && (pixels[index] < 240 || pixels[index + 2] < 240)) coloured++;
      return { bars: chart ? chart.data.labels.length : 0, coloured };
    })()`)
    expect(drawn).toMatchObject({ bars: 37 })
    expect((drawn as { coloured: number }).coloured).toBeGreaterThan(2000)
  })

  test('a kind filter hides and shows that kind\'s items, and only them', async () => {
    const visible = (kind: string) =>
      page.evaluate(`Array.from(document.querySelectorAll('#s0-items tr[data-kind]')).filter((row) => !row.hidden && (${JSON.stringify(kind)} === '*' || row.dataset.kind === ${JSON.stringify(kind)})).length`) as Promise<number>
    const paths = await visible('path')
    const all = await visible('*')
    expect(paths).toBeGreaterThan(2)
    await page.click('#s0-filters input[data-kind="path"]')
    expect(await visible('path')).toBe(0)
    expect(await visible('*')).toBe(all - paths)
    expect(await page.evaluate(`document.querySelectorAll('#s0-messages mark.item.off[data-kind="path"]').length`)).toBeGreaterThan(0)
    await page.click('#s0-filters input[data-kind="path"]')
    expect(await visible('path')).toBe(paths)
  })

  test('an item link, and a lost item\'s link, open the message and land on the highlight', async () => {
    const target = await page.evaluate(`(() => {
      const link = Array.from(document.querySelectorAll('#s0-items a.goto')).find((a) => a.closest('tr').dataset.kind === 'error');
      link.click();
      const mark = document.getElementById(link.dataset.goto);
      return { tag: mark.tagName, open: mark.closest('details').open, text: mark.textContent };
    })()`)
    expect(target).toMatchObject({ tag: 'MARK', open: true, text: expect.stringContaining('No space left on device') })
    const reuse = await page.evaluate(`(() => {
      const link = document.querySelector('table.lost a.goto');
      link.click();
      const mark = document.getElementById(link.dataset.goto) || document.querySelector('#' + link.getAttribute('href').slice(1) + ' mark.reuse');
      return { reuse: mark.classList.contains('reuse'), open: mark.closest('details').open, message: mark.closest('details').id, href: link.getAttribute('href') };
    })()`)
    expect(reuse).toMatchObject({ reuse: true, open: true })
    expect('#' + (reuse as { message: string }).message).toBe((reuse as { href: string }).href)
  })

  test('markup in the transcript stays text: no dialog, no script ran, no element from content', async () => {
    expect(dialogs).toEqual([])
    const state = await page.evaluate(`({
      pwned: window.__pwned === undefined ? null : String(window.__pwned),
      images: document.querySelectorAll('img').length,
      scripts: document.querySelectorAll('script').length,
      bold: document.querySelectorAll('main b').length,
      text: document.getElementById('s0-messages').textContent,
      title: document.querySelector('section.session h2').textContent,
    })`)
    expect(state).toMatchObject({ pwned: null, images: 0, scripts: 3, bold: 0, title: 'injection <b>.json' })
    const text = (state as { text: string }).text
    for (const injection of [INJECTIONS.script, INJECTIONS.image, INJECTIONS.closing]) expect(text).toContain(injection)
  })

  test('a directory page draws a session when it is reached; thousands of messages are binned, a long message is cut', async () => {
    const other = await context!.newPage()
    const errors: string[] = []
    other.on('pageerror', (error) => errors.push(String(error)))
    other.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())))
    try {
      await other.goto(pathToFileURL(directoryFile).href, { waitUntil: 'load' })
      await other.waitForSelector('html[data-ready="1"]')
      expect(await other.evaluate(`document.getElementById('s1').getAttribute('data-rendered')`)).toBe(null)
      await other.click('#overview a[href="#s1"]')
      await other.waitForSelector('#s1[data-rendered="1"]')
      const state = await other.evaluate(`({
        bars: window.Chart.getChart(document.getElementById('s1-chart')).data.labels.length,
        messages: document.querySelectorAll('#s1-messages details.message').length,
        cut: document.querySelector('#s1-m7 p.truncated').textContent,
      })`)
      expect(state).toMatchObject({ bars: 300, messages: 900, cut: expect.stringMatching(/^truncated: [\d,]+ more characters not shown/) })
      expect(errors).toEqual([])
    } finally {
      await other.close()
    }
  })

  test('a screenshot is kept as an artifact', async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.evaluate('window.scrollTo(0, 0)')
    const png = await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: false })
    expect(png.length).toBeGreaterThan(10_000)
  })
})

import { describe, expect, test } from 'vitest'
import { readChartJs } from '../cli/commands/report.js'
import { markdownToHtml, renderEvalPage } from './eval.js'

const measure = (mean: number | null, ci: [number, number] | null = null) => ({ mean, ci })
const arm = (mean: number) => ({ cuts: 4, goldKept: measure(mean, [mean - 0.1, mean + 0.05]), goldKeptOutside: measure(mean), futureRecall: measure(null) })

describe('the eval page', () => {
  test('Markdown tables become HTML tables, an escaped pipe stays in its cell, everything is escaped', () => {
    const html = markdownToHtml(['## Arms', '', '| cuts | text |', '| --- | --- |', '| real:a | a \\| b <img src=x> |', '', 'See `x<y` & more.'].join('\n'))
    expect(html).toBe(
      [
        '<h3>Arms</h3>',
        '<div class="scroll"><table><thead><tr><th>cuts</th><th>text</th></tr></thead><tbody><tr><td>real:a</td><td>a | b &lt;img src=x&gt;</td></tr></tbody></table></div>',
        '<p>See <code>x&lt;y</code> &amp; more.</p>',
      ].join('\n'),
    )
  })

  test('one chart per group with each arm\'s means and intervals in percent; the first heading titles the page', () => {
    const page = renderEvalPage({ markdown: '# floorguard eval (seed 1)\n\ntext', arms: { 'real:corpus': { B3: arm(0.9), vendor: arm(0.25) }, empty: {} }, chartJs: readChartJs(), generator: 'test' })
    expect(page).toContain('<title>floorguard eval (seed 1)</title>')
    expect(page).toContain('<canvas id="eval-chart-0"')
    expect(page).not.toContain('eval-chart-1')
    const data = JSON.parse(/<script type="application\/json" id="floorguard-data">([\s\S]*?)<\/script>/.exec(page)![1]!) as { charts: Array<{ labels: string[]; datasets: Array<{ data: unknown[]; intervals: unknown[] }> }> }
    expect(data.charts).toHaveLength(1)
    expect(data.charts[0]!.labels).toEqual(['B3 (n=4)', 'vendor (n=4)'])
    expect(data.charts[0]!.datasets[0]).toMatchObject({ data: [90, 25], intervals: [[80, 95], [15, 30]] })
    expect(data.charts[0]!.datasets[2]).toMatchObject({ data: [null, null], intervals: [null, null] })
  })
})

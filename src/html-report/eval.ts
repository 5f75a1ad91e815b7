import { escapeHtml as h } from './_escape.js'
import { renderPage } from './render.js'

/** A mean with its bootstrap interval, as the eval aggregates a metric (`eval/metrics.ts`'s `Aggregate`). */
export interface EvalMeasure {
  readonly mean: number | null
  readonly ci: readonly [number, number] | null
}

/** What the eval page charts of one arm in one group of cuts. */
export interface EvalArm {
  readonly cuts: number
  readonly goldKept: EvalMeasure
  readonly goldKeptOutside: EvalMeasure
  readonly futureRecall: EvalMeasure
}

/** Options of {@link renderEvalPage}. */
export interface EvalPageOptions {
  /** The eval's report as printed (Markdown: `#` headings, tables, paragraphs), rendered as HTML tables and text. */
  readonly markdown: string
  /** `results.arms`: group of cuts → arm → aggregates; one chart per group. */
  readonly arms: Readonly<Record<string, Readonly<Record<string, EvalArm | undefined>>>>
  readonly chartJs: string
  /** `floorguard 0.1.0`. */
  readonly generator: string
  /**
   * The page title.
   * @default 'floorguard eval'
   */
  readonly title?: string
}

/** inline(text) = escaped text with `code` spans. */
function inline(text: string): string {
  return text
    .split('`')
    .map((piece, index) => (index % 2 === 1 ? `<code>${h(piece)}</code>` : h(piece)))
    .join('')
}

/** The cells of a Markdown table row: split at `|` not preceded by a backslash, `\|` read as `|`. */
function cells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '')
  const out: string[] = []
  let current = ''
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!
    if (char === '\\' && body[index + 1] === '|') {
      current += '|'
      index++
    } else if (char === '|') {
      out.push(current.trim())
      current = ''
    } else current += char
  }
  out.push(current.trim())
  return out
}

/**
 * markdownToHtml(markdown) = the subset the eval prints as HTML: `#`–`###` headings, GitHub tables (first row the
 * header, the `---` row skipped), other lines as paragraphs (a list item `- ` as one paragraph each). Everything is
 * escaped; `code` spans are the only inline markup.
 */
export function markdownToHtml(markdown: string): string {
  const lines = markdown.split('\n')
  const out: string[] = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    const heading = /^(#{1,3}) (.*)$/.exec(line)
    if (heading) {
      const level = heading[1]!.length + 1
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`)
    } else if (line.startsWith('|')) {
      const rows: string[][] = []
      while (index < lines.length && lines[index]!.startsWith('|')) rows.push(cells(lines[index++]!))
      index--
      const [header = [], ...body] = rows
      const data = body.filter((row) => !row.every((cell) => /^:?-{3,}:?$/.test(cell)))
      const numeric = (cell: string) => /^[\d.,%—·\s()[\]–×/-]+$/.test(cell) && /\d|—|·/.test(cell)
      out.push(
        `<div class="scroll"><table><thead><tr>${header.map((cell) => `<th>${inline(cell)}</th>`).join('')}</tr></thead><tbody>${data
          .map((row) => `<tr>${row.map((cell) => `<td${numeric(cell) ? ' class="num"' : ''}>${inline(cell)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table></div>`,
      )
    } else if (line.trim() !== '') out.push(`<p>${inline(line)}</p>`)
  }
  return out.join('\n')
}

const METRICS = [
  { key: 'goldKept', label: 'gold kept', color: '#1c7ed6' },
  { key: 'goldKeptOutside', label: 'gold kept (not tool output)', color: '#74c0fc' },
  { key: 'futureRecall', label: 'future-reference recall', color: '#e8590c' },
] as const

/**
 * renderEvalPage(options) = the eval's page: one bar chart per group of cuts (each arm's mean gold kept and
 * future-reference recall, with their bootstrap intervals), then the eval's tables and text as printed.
 */
export function renderEvalPage(options: EvalPageOptions): string {
  const groups = Object.entries(options.arms).filter(([, arms]) => Object.values(arms).some((arm) => arm !== undefined))
  const charts = groups.map(([group, arms], index) => {
    const names = Object.keys(arms).filter((name) => arms[name] !== undefined)
    return {
      id: `eval-chart-${index}`,
      title: `${group}: mean per cut, 95% bootstrap interval`,
      percent: true,
      unit: '%',
      labels: names.map((name) => `${name} (n=${arms[name]!.cuts})`),
      datasets: METRICS.map((metric) => ({
        label: metric.label,
        color: metric.color,
        data: names.map((name) => toPercent(arms[name]![metric.key].mean)),
        intervals: names.map((name) => {
          const ci = arms[name]![metric.key].ci
          return ci ? [toPercent(ci[0]), toPercent(ci[1])] : null
        }),
      })),
    }
  })
  const chartHtml = charts
    .map((chart, index) => `<h3>${h(groups[index]![0])}</h3><div class="chart-box small"><canvas id="${chart.id}" role="img" aria-label="${h(chart.title)}"></canvas></div>`)
    .join('\n')
  // The report's own first heading titles the page.
  const first = /^# (.*)\n/.exec(options.markdown)
  const markdown = first ? options.markdown.slice(first[0].length) : options.markdown
  const body = `<section class="eval">
<h2>Arms by group of cuts</h2>
<p class="note">Bars: each arm's mean over the group's cuts; whiskers: the bootstrap 95% interval of the mean. B0 drop, B1 mask tool output, B2 naive fixed slot, B3 floorguard, vendor the real summary.</p>
${chartHtml || '<p class="note">No arm results.</p>'}
${markdownToHtml(markdown)}
</section>`
  return renderPage({ title: options.title ?? first?.[1] ?? 'floorguard eval', generator: options.generator, body, data: { charts }, chartJs: options.chartJs })
}

function toPercent(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 10
}

/** The colour of each item kind (`ItemKind`); other kinds are grey. */
export const KIND_COLORS: Readonly<Record<string, string>> = {
  error: '#d9480f',
  constraint: '#c2255c',
  quoted: '#7048e8',
  regex: '#5f3dc4',
  version: '#1971c2',
  path: '#0c8599',
  url: '#2b8a3e',
  env: '#e67700',
  constant: '#862e9c',
  hash: '#495057',
  uuid: '#5c940d',
  number: '#a61e4d',
  'tool-argument': '#364fc7',
  identifier: '#087f5b',
}

/** The page's stylesheet (inline; no web fonts, no external resources). */
export const STYLE = `${Object.entries(KIND_COLORS)
  .map(([kind, color]) => `.k-${kind} { --k: ${color}; }`)
  .join('\n')}
:root { color-scheme: light; --ink: #212529; --muted: #6c757d; --line: #dee2e6; --panel: #f8f9fa; --accent: #1864ab; --bad: #c92a2a; --warn: #e8590c; --good: #2b8a3e; }
* { box-sizing: border-box; }
html { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
body { margin: 0; }
main { max-width: 1280px; margin: 0 auto; padding: 24px 28px 64px; }
header.page { border-bottom: 1px solid var(--line); margin-bottom: 20px; padding-bottom: 12px; }
header.page h1 { font-size: 22px; margin: 0 0 4px; }
header.page p { margin: 0; color: var(--muted); }
h2 { font-size: 19px; margin: 36px 0 6px; }
h3 { font-size: 15px; margin: 26px 0 8px; text-transform: uppercase; letter-spacing: .04em; color: #343a40; }
h3 .sub { text-transform: none; letter-spacing: 0; font-weight: 400; color: var(--muted); }
p.meta { margin: 0 0 12px; color: var(--muted); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
section.session { border-top: 3px solid var(--line); margin-top: 32px; content-visibility: auto; contain-intrinsic-size: auto 3000px; }
section.session:first-of-type { border-top: 0; margin-top: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 10px; margin: 12px 0 4px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card .label { font-size: 11.5px; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
.card .value { font-size: 20px; font-weight: 600; }
.card .detail { font-size: 12px; color: var(--muted); }
.decision { display: inline-block; font-weight: 700; padding: 1px 8px; border-radius: 10px; font-size: 12px; letter-spacing: .04em; color: #fff; }
.decision.compact { background: var(--good); }
.decision.split { background: var(--accent); }
.decision.refuse { background: var(--bad); }
.chart-box { position: relative; height: 340px; border: 1px solid var(--line); border-radius: 8px; padding: 8px; background: #fff; }
.chart-box.small { height: 280px; }
.nowrap { white-space: nowrap; }
nav.jump { margin: 10px 0 0; font-size: 13px; color: var(--muted); }
table.overview td:nth-child(2) { white-space: nowrap; }
.note, .legend-note { color: var(--muted); font-size: 12.5px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; font-size: 12.5px; position: sticky; top: 0; z-index: 1; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fcfcfd; }
.scroll { max-height: 460px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
.scroll table { margin: 0; }
.item-text code, .lost code, .plan code { white-space: pre-wrap; word-break: break-word; }
.badge { display: inline-block; border-radius: 4px; padding: 0 6px; font-size: 11.5px; font-weight: 600; color: #fff; background: var(--k, #868e96); white-space: nowrap; }
.filters { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; margin: 4px 0 8px; }
.filters label { display: inline-flex; align-items: center; gap: 4px; border: 1px solid var(--line); border-radius: 14px; padding: 2px 10px 2px 6px; cursor: pointer; background: #fff; user-select: none; }
.filters label .swatch { width: 10px; height: 10px; border-radius: 3px; background: var(--k, #868e96); }
.filters label .n { color: var(--muted); font-size: 12px; }
.filters button { border: 1px solid var(--line); background: var(--panel); border-radius: 14px; padding: 2px 10px; cursor: pointer; font: inherit; font-size: 12.5px; }
.filter-count { color: var(--muted); font-size: 12.5px; margin-left: 6px; }
.messages { display: flex; flex-direction: column; gap: 6px; }
details.message { content-visibility: auto; contain-intrinsic-size: auto 34px; border: 1px solid var(--line); border-left: 4px solid #adb5bd; border-radius: 6px; background: #fff; }
details.message.role-user { border-left-color: #1c7ed6; }
details.message.role-assistant { border-left-color: #37b24d; }
details.message.role-tool { border-left-color: #f59f00; }
details.message.role-system { border-left-color: #7950f2; }
details.message.is-summary { border-left-color: var(--bad); background: #fff5f5; }
summary.message-head { cursor: pointer; padding: 5px 10px; display: flex; gap: 10px; align-items: baseline; white-space: nowrap; overflow: hidden; }
summary.message-head .index { font-weight: 700; min-width: 48px; }
summary.message-head .role { font-weight: 600; min-width: 70px; }
summary.message-head .numbers { color: var(--muted); font-size: 12.5px; }
summary.message-head .preview { color: var(--muted); overflow: hidden; text-overflow: ellipsis; font-size: 12.5px; }
details[open] > summary.message-head .preview { display: none; }
pre.message-text { margin: 0; padding: 8px 12px 10px; white-space: pre-wrap; word-break: break-word; border-top: 1px solid #f1f3f5; max-height: 560px; overflow: auto; }
mark.item { background: color-mix(in srgb, var(--k, #868e96) 18%, transparent); border-bottom: 2px solid var(--k, #868e96); color: inherit; border-radius: 2px; }
mark.item.off { background: none; border-bottom-color: transparent; }
mark.reuse { outline: 2px solid var(--bad); outline-offset: 1px; }
mark.reuse:not(.item) { background: #ffe3e3; color: inherit; }
p.truncated { margin: 0; padding: 4px 12px 8px; color: var(--warn); font-size: 12.5px; }
.flash { animation: flash 1.6s ease-out; }
@keyframes flash { 0% { box-shadow: 0 0 0 4px #ffd43b; } 100% { box-shadow: 0 0 0 4px transparent; } }
.plan .message-line { font-weight: 600; }
ul.options { margin: 4px 0 8px; padding-left: 20px; }
.lost { margin: 4px 0 14px; }
.lost summary { cursor: pointer; font-weight: 600; }
.tag { display: inline-block; border-radius: 4px; padding: 0 5px; font-size: 11.5px; font-weight: 600; }
.tag.bad { background: #ffe3e3; color: var(--bad); }
.tag.ok { background: #ebfbee; color: var(--good); }
.tag.muted { background: #f1f3f5; color: var(--muted); }
.warnings { border: 1px solid #ffd8a8; background: #fff4e6; border-radius: 6px; padding: 6px 10px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media print { .scroll { max-height: none; overflow: visible; } pre.message-text { max-height: none; } }
`

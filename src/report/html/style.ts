// The page's stylesheet: system fonts only (no web fonts), light and dark schemes from the reader's
// setting, colours that differ in lightness as well as hue, and print rules for A4.

export const PAGE_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#5b636e;--line:#d5d9de;--head:#f3f5f7;
--accepted:#1a7f37;--rejected:#cf222e;--failed:#bc4c00;--unknown:#8250df;--invalid:#6e4c1e;--skipped:#8c959f;
--suppressed:#b7bec6;--sent:#0969da;--delivered:#1a7f37;--undelivered:#cf222e;--expired:#bc4c00;--pending:#9a6700;
--awaiting:#8c959f;--pause:rgba(154,103,0,.18);--bar:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#30363d;--head:#161b22;
--accepted:#3fb950;--rejected:#f85149;--failed:#db6d28;--unknown:#a371f7;--invalid:#c69026;--skipped:#6e7681;
--suppressed:#484f58;--sent:#58a6ff;--delivered:#3fb950;--undelivered:#f85149;--expired:#db6d28;--pending:#d29922;
--awaiting:#6e7681;--pause:rgba(210,153,34,.22);--bar:#58a6ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:60rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1.05rem;margin:1.25rem 0 .4rem}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:break-word}
.muted{color:var(--muted)}
table{border-collapse:collapse;margin:.5rem 0;min-width:50%}
th,td{padding:.2rem .6rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--head)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.sub th{padding-left:1.6rem;font-weight:normal}
table.facts th{width:10rem;font-weight:600}
table.rows{width:100%;font-size:14px}
.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.4em;vertical-align:-.05em;background:currentColor}
svg.chart{display:block;width:100%;max-width:44rem;height:auto;margin:.5rem 0;font-size:12px;fill:var(--fg)}svg.chart.narrow{display:none}
.nb{white-space:nowrap}
svg.chart text{fill:var(--fg)}
svg .c-accepted,.swatch.c-accepted{fill:var(--accepted);color:var(--accepted)}
svg .c-rejected,.swatch.c-rejected{fill:var(--rejected);color:var(--rejected)}
svg .c-failed,.swatch.c-failed{fill:var(--failed);color:var(--failed)}
svg .c-unknown,.swatch.c-unknown{fill:var(--unknown);color:var(--unknown)}
svg .c-invalid,.swatch.c-invalid{fill:var(--invalid);color:var(--invalid)}
svg .c-skipped,.swatch.c-skipped{fill:var(--skipped);color:var(--skipped)}
svg .c-suppressed,.swatch.c-suppressed{fill:var(--suppressed);color:var(--suppressed)}
svg .c-sent{fill:var(--sent)}svg .c-delivered{fill:var(--delivered)}svg .c-undelivered{fill:var(--undelivered)}
svg .c-expired{fill:var(--expired)}svg .c-pending{fill:var(--pending)}svg .c-awaiting{fill:var(--awaiting)}
svg g[class^="c-"] text.label,svg g[class^="c-"] text.value{fill:var(--fg)}
svg .c-accepted text,svg .c-rejected text,svg .c-failed text,svg .c-unknown text,svg .c-invalid text{fill:#fff}
svg rect{stroke:var(--bg);stroke-width:1}
svg .pause rect{fill:var(--pause);stroke:none}svg rect.tick{fill:var(--pending);stroke:none}
svg .bar{fill:var(--bar)}svg .line{fill:none;stroke:var(--bar);stroke-width:2}svg .dot{fill:var(--bar)}
svg .axis{stroke:var(--muted)}svg .grid{stroke:var(--line)}svg text.caption,svg text.unit{fill:var(--muted)}svg rect.empty{fill:var(--line)}
ul.commands li{margin:.3rem 0}code.command .word{display:inline-block;max-width:100%;overflow-wrap:anywhere}
details{margin:.5rem 0}.scroll-sign{display:none;margin:.25rem 0;font-size:13px}summary{cursor:pointer;color:var(--muted)}
@media (max-width:42rem){main{padding:.75rem}svg.chart{display:none}svg.chart.narrow{display:block;max-width:28rem}table{min-width:0}th,td{padding:.2rem .3rem}td{overflow-wrap:anywhere}
td.n{white-space:nowrap;overflow-wrap:normal}thead th{overflow-wrap:normal}table.rows{font-size:13px}table.facts th{width:auto}.scroll-sign{display:block}.scrolls{overflow-x:auto}.scrolls table{min-width:36rem}}
@page{size:A4;margin:14mm}
@media print{:root{color-scheme:light;--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;--head:#eee}
body{font-size:10.5pt}main{max-width:none;padding:0}
section{break-inside:avoid-page}table.rows{break-inside:auto}tr{break-inside:avoid}
h2,h3{break-after:avoid}svg.chart{display:block;max-width:100%}svg.chart.narrow{display:none}}
`
  .trim()
  .replace(/\n/g, '');

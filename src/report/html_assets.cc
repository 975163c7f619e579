#include "report/html_assets.h"

namespace nicbench::report {

const char kHtmlStyle[] = R"css(
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #fff; --band: #f6f8fa;
  --crit: #a40e26; --warn: #9a6700; --note: #0550ae; --info: #57606a; --diff: #fff1c2; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
main, header { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 16px; }
h1 { font-size: 1.5rem; margin: 0 0 8px; }
h2 { font-size: 1.2rem; margin: 28px 0 4px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1rem; margin: 0 0 4px; }
p.note { color: var(--muted); margin: 4px 0 12px; }
p.warning { border-left: 5px solid var(--warn); background: var(--band); padding: 6px 10px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
dl.summary { display: flex; flex-wrap: wrap; gap: 4px 20px; margin: 0; }
dl.summary div { display: flex; gap: 6px; }
dl.summary dt { color: var(--muted); }
dl.summary dd { margin: 0; font-weight: 600; }
ol.findings { list-style: none; padding: 0; margin: 0; }
ol.findings > li { border-left: 5px solid var(--info); background: var(--band);
  padding: 8px 12px; margin: 0 0 10px; }
li.critical { border-color: var(--crit) !important; }
li.warning { border-color: var(--warn) !important; }
li.notice { border-color: var(--note) !important; }
.sev { display: inline-block; font-size: .75rem; font-weight: 700; text-transform: uppercase;
  letter-spacing: .04em; padding: 0 6px; border-radius: 3px; color: #fff; background: var(--info);
  margin-right: 6px; vertical-align: 2px; }
.sev.critical { background: var(--crit); } .sev.warning { background: var(--warn); }
.sev.notice { background: var(--note); }
.findings ul { margin: 4px 0; padding-left: 20px; }
.next { font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
.charts.small { grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); }
.charts.wide { grid-template-columns: 1fr; }
.charts.wide .chart-box { height: 320px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; min-width: 0; }
.chart-box { position: relative; height: 280px; }
.charts.small .chart-box { height: 180px; }
details { margin-top: 6px; }
summary { cursor: pointer; color: #0969da; }
.table-wrap { overflow-x: auto; max-height: 360px; overflow-y: auto; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 2px 6px; text-align: right; }
th { background: var(--band); }
th[scope=row], td.text { text-align: left; }
table.facts { width: 100%; }
table.facts td, table.facts th { text-align: left; word-break: break-word; }
tr.differs td { background: var(--diff); }
tr.differs td:first-child::after { content: " \2260"; font-weight: 700; }
.empty { color: var(--muted); font-style: italic; }
@media (max-width: 640px) {
  body { font-size: 14px; }
  .charts, .charts.small { grid-template-columns: 1fr; }
  .chart-box { height: 220px; }
  main, header { padding: 0 8px; }
}
@media print {
  body { font-size: 10pt; }
  .skip, details { display: none; }
  main, header { max-width: none; }
  .charts { grid-template-columns: 1fr 1fr; }
  .charts.small { grid-template-columns: 1fr 1fr 1fr; }
  figure, li, tr { break-inside: avoid; }
  h2 { break-after: avoid; }
  .chart-box { height: 200px; }
}
)css";

const char kHtmlScript[] = R"js(
(function () {
  'use strict';
  const check = { charts: [], errors: [], violations: 0, resources: 0 };
  const out = document.getElementById('nb-check');
  function writeCheck() {
    check.resources = performance.getEntriesByType('resource').length;
    out.textContent = JSON.stringify(check);
  }
  window.addEventListener('error', function (e) { check.errors.push(String(e.message)); writeCheck(); });
  document.addEventListener('securitypolicyviolation', function (e) {
    check.violations++;
    check.errors.push('blocked by the page policy: ' + e.violatedDirective + ' ' + e.blockedURI);
    writeCheck();
  });
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                   '#7f7f7f', '#bcbd22', '#17becf'];
  const kinds = { user: '#4e79a7', system: '#f28e2b', irq: '#e15759', softirq: '#76b7b2',
                  steal: '#9c755f' };
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function number(v) { return v === null || v === undefined ? '\u2013' : String(v); }
  function xTitle(c) { return c.xtitle || 'time (s)'; }
  function numbersTable(c) {
    const t = el('table', { 'data-chart': c.id });
    t.appendChild(el('caption', {}, c.title + ' (' + c.unit + ')'));
    const head = el('tr');
    head.appendChild(el('th', { scope: 'col' }, xTitle(c)));
    c.series.forEach(function (s) { head.appendChild(el('th', { scope: 'col' }, s.label)); });
    t.appendChild(el('thead')).appendChild(head);
    const body = t.appendChild(el('tbody'));
    (c.x || []).forEach(function (x, i) {
      const row = el('tr');
      row.appendChild(el('th', { scope: 'row' }, x));
      c.series.forEach(function (s) { row.appendChild(el('td', {}, number(s.data[i]))); });
      body.appendChild(row);
    });
    return t;
  }
  function color(s, i) { return kinds[s.label] || palette[i % palette.length]; }
  function dataset(s, i, c) {
    const col = color(s, i);
    if (s.points) {
      // min and max of a bar: a short black mark at each end of the spread, no line.
      return { type: 'line', label: s.label, data: s.data, showLine: false, pointStyle: 'line',
               pointRadius: 14, pointBorderWidth: 3, borderColor: '#1b1f24',
               backgroundColor: '#1b1f24' };
    }
    if (c.type === 'bar') {
      return { label: s.label, data: s.data, backgroundColor: '#4e79a7b0', borderColor: '#4e79a7',
               borderWidth: 1 };
    }
    return { label: s.label, data: s.data, stack: s.stack || ('s' + i), borderColor: col,
             backgroundColor: s.fill ? col + 'b0' : col, borderWidth: s.fill ? 1 : 2,
             borderDash: s.dash ? [6, 4] : [], pointRadius: c.x.length > 40 ? 0 : 2,
             fill: s.fill ? 'stack' : false, spanGaps: false, tension: 0 };
  }
  function options(c, small) {
    return {
      animation: false, responsive: true, maintainAspectRatio: false, normalized: true,
      interaction: { mode: 'index', intersect: false },
      plugins: { legend: { display: !small || c.series.length > 1, position: 'bottom',
                           labels: { boxWidth: 12, font: { size: small ? 10 : 12 } } },
                 title: { display: false } },
      scales: {
        x: { title: { display: !small, text: xTitle(c) }, ticks: { maxTicksLimit: small ? 6 : 12 } },
        y: { stacked: c.stacked, beginAtZero: true, max: c.max === undefined ? undefined : c.max, grace: c.max === undefined ? '5%' : 0,
             title: { display: true, text: c.unit } }
      }
    };
  }
  function nonblank(canvas) {
    const ctx = canvas.getContext('2d');
    const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) n++;
    return n;
  }
  function drawChart(c, into, small) {
    const fig = into.appendChild(el('figure', { id: 'chart-' + c.id }));
    const cap = fig.appendChild(el('figcaption'));
    cap.appendChild(el('h3', {}, c.title));
    if (c.note) fig.appendChild(el('p', { class: 'note' }, c.note));
    const box = fig.appendChild(el('div', { class: 'chart-box' }));
    const canvas = box.appendChild(el('canvas', { role: 'img',
      'aria-label': c.title + ' in ' + c.unit + '; the numbers are in the table below' }));
    const details = fig.appendChild(el('details'));
    details.appendChild(el('summary', {}, 'Numbers of this chart'));
    details.appendChild(el('div', { class: 'table-wrap', tabindex: '0' })).appendChild(numbersTable(c));
    const type = c.type || 'line';
    const chart = new Chart(canvas, { type: type, data: { labels: c.x,
      datasets: c.series.map(function (s, i) { return dataset(s, i, c); }) },
      options: options(c, small) });
    check.charts.push({ id: c.id, nonblank: nonblank(canvas), points: c.x.length,
      datasets: chart.data.datasets.map(function (d) { return { label: d.label, data: d.data }; }) });
  }
  function drawSection(s, main) {
    const sec = main.appendChild(el('section', { id: s.id, 'aria-labelledby': s.id + '-h' }));
    sec.appendChild(el('h2', { id: s.id + '-h' }, s.title));
    if (s.note) sec.appendChild(el('p', { class: 'note' }, s.note));
    if (!s.charts.length) { sec.appendChild(el('p', { class: 'empty' }, 'Nothing was measured for this section.')); return; }
    const small = s.id === 'cpu';
    const wide = /throughput$/.test(s.id);
    const grid = sec.appendChild(el('div', { class: small ? 'charts small' : (wide ? 'charts wide' : 'charts') }));
    s.charts.forEach(function (c) {
      try { drawChart(c, grid, small); }
      catch (e) { check.errors.push(c.id + ': ' + e.message); }
    });
  }
  try {
    const model = JSON.parse(document.getElementById('nb-data').textContent);
    (model.runs || []).forEach(function (run) {
      // In the document before drawing: a chart sizes its canvas from its box.
      const holder = document.createElement('div');
      document.getElementById(run.anchor).replaceWith(holder);
      run.sections.forEach(function (s) { drawSection(s, holder); });
    });
  } catch (e) {
    check.errors.push(String(e && e.message || e));
  }
  writeCheck();
})();
)js";

}  // namespace nicbench::report

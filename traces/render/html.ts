/**
 * A counterexample as one self-contained HTML file: no network, no server, no external script, style or
 * font (a Content-Security-Policy forbids them), so it can be attached to a JIRA or a KIP discussion and
 * opened anywhere. It shows the violated invariant, a step list, the state at the current step with the
 * fields that step changed highlighted, the message-sequence chart and the state graph; the left/right
 * arrow keys step through, and the current step is highlighted in both pictures.
 */
import type { ItfTrace } from '../itf/write.ts';
import { toDot, type DotOptions } from './dot.ts';
import { diffFields, type FieldRow } from './fields.ts';
import { loopPositionOf, renderSequenceSvg } from './sequence.ts';
import { traceGraph, type StateGraph } from './stateGraph.ts';
import { headlineOf, paramsTextOf, stepsOf, titleOf, verdictSentence } from './steps.ts';
import { truncate } from './value.ts';
import { dotToSvg } from './svg.ts';
import { styleOf } from './palette.ts';

export interface HtmlOptions {
  /** The state graph to show (default: the trace alone). */
  readonly graph?: StateGraph;
  readonly labels?: DotOptions['labels'];
  /** The graph already drawn as SVG (saves drawing it twice when writing every format). */
  readonly graphSvg?: string;
}

/** What the page's script reads: one entry per step, with its fields already diffed. */
interface ReportStep {
  readonly index: number;
  readonly action: string;
  readonly params: string;
  /** The step as pictures name it (the spec's words for a message parameter). */
  readonly label: string;
  readonly colour: string;
  readonly actor?: string;
  readonly sends: readonly string[];
  readonly receives: readonly string[];
  readonly marks: readonly string[];
  readonly rows: readonly FieldRow[];
}

export async function renderHtml(itf: ItfTrace, options: HtmlOptions = {}): Promise<string> {
  const graph = options.graph ?? traceGraph(itf);
  const actions = graph.getAttributes().actions;
  const steps = stepsOf(itf);
  const verdict = itf['#meta']?.verdict;
  const title = titleOf(itf);
  const last = steps[steps.length - 1]!.index;
  const graphSvg = stripXmlProlog(options.graphSvg ?? (await dotToSvg(toDot(graph, options.labels ? { labels: options.labels } : {}))));
  // The step list beside the chart names every step, so the chart's own gutter holds only step numbers.
  const sequenceSvg = renderSequenceSvg(itf, { actions, gutter: 'numbers' });
  const loopPos = loopPositionOf(itf, steps);
  const data: ReportStep[] = steps.map((s, i) => ({
    index: s.index,
    action: s.action,
    params: s.paramsText,
    label: s.label,
    colour: i === 0 ? '#333333' : styleOf(actions, s.action).colour,
    ...(s.actor !== undefined ? { actor: s.actor } : {}),
    sends: s.sends.map((m) => `${m.label} → ${m.to}`),
    receives: s.receives.map((m) => `${m.label} ← ${m.from}`),
    marks: s.marks,
    rows: diffFields(i === 0 ? undefined : steps[i - 1]!.vars, s.vars),
  }));

  const stepItems = steps
    .map((s, i) => {
      const described = s.label !== s.call;
      // A message parameter is named in the spec's words; its full record is one click away.
      const words = described
        ? `<span class="words">${esc(s.label.slice(s.action.length + 1))}</span><details class="call"><summary>parameters</summary><code>${esc(s.paramsText)}</code></details>`
        : s.paramsText
          ? `<span class="params" title="${esc(s.paramsText)}">${esc(truncate(s.paramsText, 72))}</span>`
          : '';
      const marks = s.marks.length && !(described && s.label.includes(s.marks.join(', '))) ? `<span class="marks" title="${esc(s.marks.join(', '))}">${esc(truncate(s.marks.join(', '), 72))}</span>` : '';
      const loop =
        loopPos === undefined
          ? ''
          : i === loopPos
            ? `<span class="loop">↻ repeats forever from here</span>`
            : i === steps.length - 1
              ? `<span class="loop">↻ then back to step ${steps[loopPos]!.index}, forever</span>`
              : '';
      return `<li class="step${loopPos !== undefined && i >= loopPos ? ' in-loop' : ''}" data-step="${s.index}" data-pos="${i}"><span class="n">${s.index}</span><span class="action" style="color:${esc(data[i]!.colour)}">${esc(s.action)}</span>${words}${marks}${loop}</li>`;
    })
    .join('\n');
  const loopHtml =
    loopPos === undefined
      ? ''
      : `<div class="loop-note" id="loop" data-loop="${steps[loopPos]!.index}">↻ A lasso: after step ${last} the trace repeats forever from step ${steps[loopPos]!.index}.</div>`;
  const verdictHtml = verdict
    ? `<div class="verdict" id="verdict" role="alert" data-property="${esc(verdict.property)}"><strong>✗ ${esc(verdictSentence(verdict, last).split(':')[0]!)}</strong>: ${esc(verdict.description)}</div>`
    : '<div class="verdict none" id="verdict">This trace has no verdict (it was not written for a violation).</div>';
  const graphKind = graph.getAttributes().kind;
  const graphCaption =
    graphKind === 'trace'
      ? 'The states of the trace and the transitions between them.'
      : graphKind === 'neighbourhood'
        ? `The trace (bold) and every other successor up to ${graph.getAttributes().hops ?? 1} step(s) away; red states also violate an invariant.`
        : 'The whole reachable state graph.';

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="kmc">
<title>${esc(`kmc counterexample: ${title}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
  <div class="brand">kmc counterexample</div>
  <h1 id="title">${esc(headlineOf(itf))}</h1>
  ${paramsTextOf(itf) ? `<div class="params-line" id="params">${esc(paramsTextOf(itf))}</div>` : ''}
  ${verdictHtml}
  ${loopHtml}
</header>
<div class="toolbar" role="toolbar" aria-label="Step through the trace">
  <button type="button" id="prev" title="Previous step (←)" aria-label="Previous step">◀</button>
  <span id="position" aria-live="polite">Step <b id="pos-index">0</b> of ${last}</span>
  <button type="button" id="next" title="Next step (→)" aria-label="Next step">▶</button>
  <span id="current-action" class="current-action"></span>
  <label class="only-changed"><input type="checkbox" id="only-changed"> only changed fields</label>
  <span class="hint">← → step · Home / End: first / last · click a step or a row of the diagram</span>
</div>
<main>
  <nav id="steps" aria-label="Steps"><ol>
${stepItems}
  </ol></nav>
  <section id="sequence-pane" aria-label="Message sequence">
    <h2>Message sequence <button type="button" id="sequence-zoom" class="zoom" title="Toggle between fitting the pane and actual size">actual size</button></h2>
    <div id="sequence" class="scroll fit">${sequenceSvg}</div>
  </section>
  <section id="state-pane" aria-label="State at the current step">
    <h2 id="step-heading"></h2>
    <div id="events"></div>
    <table id="fields">
      <colgroup><col class="c-field"><col class="c-value"><col class="c-was"></colgroup>
      <thead><tr><th scope="col">field</th><th scope="col">value</th><th scope="col">before</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
</main>
<section id="graph-pane" aria-label="State graph">
  <h2>State graph <small>${esc(graphCaption)}</small>
    <button type="button" id="graph-zoom" class="zoom" title="Toggle between fitting the width and actual size">actual size</button></h2>
  <div id="graph" class="scroll fit">${graphSvg}</div>
</section>
<script type="application/json" id="kmc-data">${jsonForScript({ steps: data })}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** Graphviz's SVG without the XML prolog, DOCTYPE and comments, ready to inline in HTML. */
function stripXmlProlog(svg: string): string {
  return svg.replace(/<\?xml[^>]*\?>\s*/, '').replace(/<!DOCTYPE[^>]*>\s*/, '').replace(/<!--[\s\S]*?-->\s*/g, '');
}

/** JSON safe inside a `<script>` element: `<` is escaped so the text cannot close the element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const CSS = `
:root { color-scheme: light; --fg:#1d2430; --muted:#667085; --line:#d9dee6; --hl:#fff3bf; --changed:#fff1c2; --changed-edge:#e0a800; --bad:#b42318; --bad-bg:#fde0e0; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--fg); background:#fafbfc; }
header { padding:12px 18px 10px; background:#fff; border-bottom:1px solid var(--line); }
.params-line { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12px; color:var(--muted); margin:-4px 0 8px; }
.brand { font-size:11px; letter-spacing:.08em; text-transform:uppercase; color:var(--muted); }
h1 { font-size:18px; margin:2px 0 8px; }
h2 { font-size:13px; margin:0 0 8px; color:var(--muted); text-transform:uppercase; letter-spacing:.05em; }
h2 small { text-transform:none; letter-spacing:0; font-weight:normal; margin-left:8px; }
.verdict { border:1.5px solid var(--bad); background:var(--bad-bg); color:#7a0c0c; padding:8px 12px; border-radius:6px; }
.verdict.none { border-color:var(--line); background:#f3f4f6; color:var(--muted); }
.toolbar { position:sticky; top:0; z-index:2; display:flex; gap:12px; align-items:center; flex-wrap:wrap; padding:8px 18px; background:#fff; border-bottom:1px solid var(--line); }
.toolbar button { font-size:14px; padding:3px 12px; border:1px solid #b8c0cc; background:#f4f6f9; border-radius:5px; cursor:pointer; }
.toolbar button:disabled { opacity:.4; cursor:default; }
.current-action { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight:600; display:inline-block; max-width:45vw; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; vertical-align:bottom; }
.hint { color:var(--muted); font-size:12px; margin-left:auto; }
main { display:grid; grid-template-columns: minmax(170px, 230px) minmax(0, 2.3fr) minmax(300px, 1fr); gap:12px; padding:12px 18px; align-items:start; }
main > * { overflow:auto; max-height:calc(100vh - 130px); min-height:240px; background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px; }
#steps ol { list-style:none; margin:0; padding:0; }
#steps li { display:flex; flex-wrap:wrap; gap:2px 8px; padding:5px 8px; border-radius:5px; cursor:pointer; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12.5px; }
#steps li:hover { background:#f1f4f8; }
#steps li.current { background:var(--hl); outline:1.5px solid var(--changed-edge); }
#steps .n { color:var(--muted); min-width:1.8em; text-align:right; }
#steps .action { font-weight:600; }
#steps .params { color:#475467; flex-basis:100%; padding-left:2.6em; word-break:break-word; }
#steps .marks { color:var(--bad); flex-basis:100%; padding-left:2.6em; word-break:break-word; }
#steps .words { color:#344054; flex-basis:100%; padding-left:2.6em; word-break:break-word; }
#steps details.call { flex-basis:100%; padding-left:2.6em; color:var(--muted); font-size:11.5px; }
#steps details.call summary { cursor:pointer; }
#steps details.call code { display:block; word-break:break-word; color:#475467; }
#steps .loop { color:#6c3483; font-weight:600; flex-basis:100%; padding-left:2.6em; }
#steps li.in-loop { box-shadow: inset 3px 0 0 #c39bd3; }
.loop-note { margin-top:8px; border:1.5px solid #6c3483; background:#f4ecf7; color:#4a235a; padding:6px 12px; border-radius:6px; font-weight:600; }
#sequence .kmc-step { cursor:pointer; }
#sequence .kmc-msg.kmc-current path { stroke-width:3px; }
#events { font-size:13px; margin:0 0 8px; color:#344054; }
#events span { display:inline-block; margin:0 10px 4px 0; }
#events .label { color:var(--muted); }
#step-heading { text-transform:none; letter-spacing:0; font-size:15px; color:var(--fg); }
table { border-collapse:collapse; width:100%; table-layout:fixed; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12px; }
th, td { text-align:left; vertical-align:top; padding:3px 6px; border-bottom:1px solid #eef0f3; word-break:break-word; }
col.c-field { width:36%; } col.c-value { width:38%; } col.c-was { width:26%; }
thead th { position:sticky; top:-10px; background:#fff; color:var(--muted); font-weight:600; font-family:system-ui, sans-serif; }
tbody th { font-weight:600; }
tr.changed, tr.added { background:var(--changed); }
tr.changed th, tr.added th { box-shadow: inset 4px 0 0 var(--changed-edge); }
tr.removed { background:#f9e3e3; text-decoration:line-through; color:#7a0c0c; }
td.was { color:var(--muted); }
td .delta { margin-top:3px; color:#7a5200; font-weight:600; }
table.only-changed tbody tr:not(.changed):not(.added):not(.removed) { display:none; }
#graph-pane { margin:0 18px 18px; background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px; }
h2 button.zoom { font-size:11px; margin-left:12px; text-transform:none; letter-spacing:0; }
#sequence.fit svg { max-width:100%; height:auto; }
#graph { overflow:auto; max-height:80vh; }
#graph.fit svg { max-width:100%; height:auto; }
#graph g.node.kmc-current > path, #graph g.node.kmc-current > polygon, #graph g.node.kmc-current a > path, #graph g.node.kmc-current a > polygon { stroke:#e0a800; stroke-width:5px; }
#graph g.edge.kmc-current > path, #graph g.edge.kmc-current a > path { stroke-width:4px; }
@media (max-width: 1100px) { main { grid-template-columns: 1fr; } main > * { max-height:70vh; } }
`;

/** The page's behaviour. Plain ES2017 so it runs in any browser the file is opened in. */
const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('kmc-data').textContent);
  var steps = data.steps;
  var items = Array.prototype.slice.call(document.querySelectorAll('#steps li.step'));
  var table = document.getElementById('fields');
  var tbody = table.querySelector('tbody');
  var pos = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function each(selector, f) { Array.prototype.forEach.call(document.querySelectorAll(selector), f); }

  function show(p, scroll) {
    pos = Math.max(0, Math.min(steps.length - 1, p));
    var s = steps[pos];
    items.forEach(function (li, i) {
      var on = i === pos;
      li.classList.toggle('current', on);
      if (on) { li.setAttribute('aria-current', 'step'); if (scroll) li.scrollIntoView({ block: 'nearest' }); }
      else li.removeAttribute('aria-current');
    });
    document.getElementById('pos-index').textContent = String(s.index);
    document.getElementById('prev').disabled = pos === 0;
    document.getElementById('next').disabled = pos === steps.length - 1;
    var ca = document.getElementById('current-action');
    ca.textContent = s.label;
    ca.title = ca.textContent;
    ca.style.color = s.colour;
    document.getElementById('step-heading').textContent = 'Step ' + s.index + ' · ' + s.action;

    var ev = document.getElementById('events');
    ev.textContent = '';
    function fact(label, value) {
      var sp = el('span'); sp.appendChild(el('span', 'label', label + ' ')); sp.appendChild(document.createTextNode(value)); ev.appendChild(sp);
    }
    if (s.params) fact('params', s.params);
    if (s.actor) fact('actor', s.actor);
    if (s.receives.length) fact('receives', s.receives.join(', '));
    if (s.sends.length) fact('sends', s.sends.join(', '));
    if (s.marks.length) fact('marks', s.marks.join(', '));
    var changed = s.rows.filter(function (r) { return r.change; }).length;
    fact(pos === 0 ? 'initial state,' : 'changed fields', pos === 0 ? s.rows.length + ' fields' : String(changed));

    tbody.textContent = '';
    s.rows.forEach(function (r) {
      var tr = el('tr', r.change || '');
      tr.setAttribute('data-field', r.path);
      var th = el('th');
      r.path.split(/(?<=[.\\]])/).forEach(function (part, i) { if (i) th.appendChild(document.createElement('wbr')); th.appendChild(document.createTextNode(part)); });
      tr.appendChild(th);
      var td = el('td', 'value', r.change === 'removed' ? '(removed)' : r.value);
      if (r.delta) td.appendChild(el('div', 'delta', r.delta));
      tr.appendChild(td);
      tr.appendChild(el('td', 'was', r.change === 'added' ? '(new)' : (r.was !== undefined ? r.was : '')));
      tbody.appendChild(tr);
    });

    each('#sequence .kmc-step', function (g) { g.classList.toggle('kmc-current', g.getAttribute('data-step') === String(s.index)); });
    each('#sequence .kmc-msg', function (g) {
      g.classList.toggle('kmc-current', g.getAttribute('data-sent') === String(s.index) || g.getAttribute('data-received') === String(s.index));
    });
    each('#graph g.node, #graph g.edge', function (g) { g.classList.toggle('kmc-current', g.classList.contains('step-' + s.index)); });
    if (scroll) {
      var row = document.querySelector('#sequence .kmc-step.kmc-current');
      if (row && row.scrollIntoView) row.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
    if (history.replaceState) history.replaceState(null, '', '#step-' + s.index);
  }

  function indexToPos(index) {
    for (var i = 0; i < steps.length; i++) if (String(steps[i].index) === String(index)) return i;
    return -1;
  }

  document.getElementById('prev').addEventListener('click', function () { show(pos - 1, true); });
  document.getElementById('next').addEventListener('click', function () { show(pos + 1, true); });
  items.forEach(function (li, i) { li.addEventListener('click', function () { show(i, false); }); });
  each('#sequence .kmc-step', function (g) {
    g.addEventListener('click', function () { var p = indexToPos(g.getAttribute('data-step')); if (p >= 0) show(p, false); });
  });
  document.getElementById('only-changed').addEventListener('change', function (e) { table.classList.toggle('only-changed', e.target.checked); });
  ['graph', 'sequence'].forEach(function (id) {
    document.getElementById(id + '-zoom').addEventListener('click', function (e) {
      var fit = document.getElementById(id).classList.toggle('fit');
      e.target.textContent = fit ? 'actual size' : 'fit width';
    });
  });
  // Fit the chart to its pane, so every lane shows, unless that would shrink the text past reading; then
  // it scrolls sideways.
  var seq = document.querySelector('#sequence svg');
  if (seq && seq.width && seq.width.baseVal && document.getElementById('sequence').clientWidth / seq.width.baseVal.value < 0.6) {
    document.getElementById('sequence').classList.remove('fit');
    document.getElementById('sequence-zoom').textContent = 'fit width';
  }
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target && e.target.tagName;
    if (t === 'INPUT' && e.target.type === 'text' || t === 'TEXTAREA') return;
    if (e.key === 'ArrowRight') { show(pos + 1, true); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { show(pos - 1, true); e.preventDefault(); }
    else if (e.key === 'Home') { show(0, true); e.preventDefault(); }
    else if (e.key === 'End') { show(steps.length - 1, true); e.preventDefault(); }
  });
  var m = /^#step-(\\d+)$/.exec(location.hash);
  var start = m ? indexToPos(m[1]) : -1;
  show(start >= 0 ? start : 0, start >= 0);
})();
`;

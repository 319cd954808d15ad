/**
 * A design diff as text for a terminal, JSON for tools, Markdown for a pull request comment, and a
 * self-contained HTML page with the two variants in two columns.
 */
import { renderText } from '../../traces/text.ts';
import { stripAnsi } from '../../traces/render/formats.ts';
import type { DesignDiff, PropertyRow, PropertyVerdict, VariantSummary } from '../run/designDiff.ts';

const n = (x: number) => x.toLocaleString('en-US');

export function verdictText(v: PropertyVerdict): string {
  switch (v.status) {
    case 'holds':
      return 'holds';
    case 'violated':
      return v.traceLength !== undefined ? `violated (${v.traceLength} steps)` : 'violated';
    case 'unreached':
      return 'never reached';
    case 'error':
      return 'spec threw';
    case 'unknown':
      return 'unknown (search incomplete)';
    case 'absent':
      return 'not in this variant';
  }
}

export function changeText(r: PropertyRow): string {
  switch (r.change) {
    case 'fixed':
      return 'fixed by B';
    case 'broken':
      return 'broken by B';
    case 'other':
      return 'differs';
    case 'same':
      return '';
  }
}

function spaceText(v: VariantSummary): string {
  return `${n(v.distinct)} distinct states, depth ${v.depth}${v.complete ? '' : ` (incomplete: ${v.stopped ?? 'stopped'})`}`;
}

/** Rows that differ between A and B: what a reviewer reads first. */
export const changedRows = (d: DesignDiff) => d.rows.filter((r) => r.change !== 'same');

export function diffToText(d: DesignDiff): string {
  const lines = [`kmc diff ${d.spec}`, `  A: ${d.a.differs}`, `  B: ${d.b.differs}`, ''];
  const w0 = Math.max(8, ...d.rows.map((r) => r.property.length));
  const cells = d.rows.map((r) => [verdictText(r.a), verdictText(r.b)] as const);
  const w1 = Math.max(4, ...cells.map(([a]) => a.length), spaceText(d.a).length > 40 ? 0 : 0);
  const w2 = Math.max(4, ...cells.map(([, b]) => b.length));
  const row = (c0: string, c1: string, c2: string, c3 = '') => `${c0.padEnd(w0)}  ${c1.padEnd(w1)}  ${c2.padEnd(w2)}  ${c3}`.trimEnd();
  lines.push(row('property', 'A', 'B'));
  d.rows.forEach((r, i) => lines.push(row(r.property, cells[i]![0], cells[i]![1], changeText(r))));
  lines.push('', `A: ${spaceText(d.a)}`, `B: ${spaceText(d.b)}`);
  for (const r of changedRows(d)) {
    if (!r.replay) continue;
    const from = r.replay.from === 'A' ? r.a : r.b;
    lines.push('', `${r.property} ${changeText(r)}: ${r.replay.from}'s counterexample (${from.traceLength} steps), replayed on ${r.replay.on}: ${r.replay.sentence}`);
    if (from.trace) lines.push(...stripAnsi(renderText(from.trace)).split('\n').map((l) => `  ${l}`));
  }
  if (changedRows(d).length === 0) lines.push('', 'No property changes verdict between A and B.');
  return `${lines.join('\n')}\n`;
}

export function diffToJson(d: DesignDiff): string {
  return `${JSON.stringify(
    {
      spec: d.spec,
      a: summaryJson(d.a),
      b: summaryJson(d.b),
      properties: d.rows.map((r) => ({
        property: r.property,
        kind: r.kind,
        a: verdictJson(r.a),
        b: verdictJson(r.b),
        change: r.change,
        ...(r.replay ? { replay: { from: r.replay.from, on: r.replay.on, outcome: r.replay.outcome, sentence: r.replay.sentence } } : {}),
      })),
    },
    null,
    2,
  )}\n`;
}

function summaryJson(v: VariantSummary) {
  return { label: v.label, differs: v.differs, complete: v.complete, ...(v.stopped ? { stopped: v.stopped } : {}), distinct: v.distinct, depth: v.depth };
}
function verdictJson(v: PropertyVerdict) {
  return { status: v.status, ...(v.traceLength !== undefined ? { traceLength: v.traceLength } : {}), ...(v.trace ? { trace: v.trace } : {}) };
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function diffToMarkdown(d: DesignDiff): string {
  const out = [`### kmc diff \`${d.spec}\``, '', `- **A**: \`${cell(d.a.differs)}\``, `- **B**: \`${cell(d.b.differs)}\``, ''];
  out.push('| property | A | B | |', '| --- | --- | --- | --- |');
  for (const r of d.rows) out.push(`| ${cell(r.property)} | ${mdVerdict(r.a)} | ${mdVerdict(r.b)} | ${r.change === 'same' ? '' : `**${changeText(r)}**`} |`);
  out.push(`| *distinct states* | ${n(d.a.distinct)}${d.a.complete ? '' : ' (incomplete)'} | ${n(d.b.distinct)}${d.b.complete ? '' : ' (incomplete)'} | |`);
  out.push(`| *depth* | ${d.a.depth} | ${d.b.depth} | |`);
  for (const r of changedRows(d)) {
    if (!r.replay) continue;
    const from = r.replay.from === 'A' ? r.a : r.b;
    out.push('', `**${cell(r.property)}** ${changeText(r)}. Replayed on ${r.replay.on}, ${r.replay.from}'s counterexample ${cell(r.replay.sentence)}.`);
    if (from.trace) {
      out.push('', `<details><summary>${r.replay.from}'s counterexample (${from.traceLength} steps)</summary>`, '', '```text', stripAnsi(renderText(from.trace)).replace(/```/g, "'''"), '```', '', '</details>');
    }
  }
  if (changedRows(d).length === 0) out.push('', 'No property changes verdict between A and B.');
  return `${out.join('\n')}\n`;
}

function mdVerdict(v: PropertyVerdict): string {
  return v.status === 'holds' ? '✅ holds' : v.status === 'violated' || v.status === 'unreached' ? `❌ ${verdictText(v)}` : `⚠️ ${verdictText(v)}`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function diffToHtml(d: DesignDiff): string {
  const side = (v: VariantSummary, pick: (r: PropertyRow) => PropertyVerdict) => `<section class="variant" id="variant-${v.name}">
<h2>${v.name}: <code>${esc(v.differs)}</code></h2>
<p class="space">${esc(spaceText(v))}</p>
<table><thead><tr><th>property</th><th>verdict</th></tr></thead><tbody>
${d.rows.map((r) => `<tr class="${pick(r).status}${r.change !== 'same' ? ' changed' : ''}" data-property="${esc(r.property)}"><th>${esc(r.property)}</th><td>${esc(verdictText(pick(r)))}</td></tr>`).join('\n')}
</tbody></table>
</section>`;
  const details = changedRows(d)
    .filter((r) => r.replay)
    .map((r) => {
      const from = r.replay!.from === 'A' ? r.a : r.b;
      return `<section class="change" data-property="${esc(r.property)}"><h3>${esc(r.property)}: ${esc(changeText(r))}</h3><p>${esc(`${r.replay!.from}'s counterexample (${from.traceLength} steps), replayed on ${r.replay!.on}: ${r.replay!.sentence}`)}</p>${
        from.trace ? `<pre>${esc(stripAnsi(renderText(from.trace)))}</pre>` : ''
      }</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${esc(`kmc diff ${d.spec}`)}</title>
<style>
body { margin:0; padding:16px 20px; font:14px/1.4 system-ui, sans-serif; color:#1d2430; background:#fafbfc; }
.columns { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
.variant, .change { background:#fff; border:1px solid #d9dee6; border-radius:8px; padding:10px 14px; }
.change { margin-top:16px; }
h2 { font-size:15px; margin:0 0 4px; } code, pre, table { font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12.5px; }
table { border-collapse:collapse; width:100%; } th, td { text-align:left; padding:3px 6px; border-bottom:1px solid #eef0f3; }
tr.violated td, tr.unreached td { color:#b42318; font-weight:600; } tr.holds td { color:#1e7b34; }
tr.changed { background:#fff3bf; } .space { color:#667085; margin:0 0 8px; } pre { overflow:auto; }
</style></head>
<body>
<h1>kmc diff ${esc(d.spec)}</h1>
<div class="columns">
${side(d.a, (r) => r.a)}
${side(d.b, (r) => r.b)}
</div>
${details || '<p>No property changes verdict between A and B.</p>'}
</body></html>
`;
}

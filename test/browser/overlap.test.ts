/**
 * Opens every picture kmc draws of every bundled counterexample (and of long random walks, and of a lasso)
 * in Chromium, reads where the browser really put each text and each drawn line, and fails when two labels
 * overlap or a line runs through a label. Lifelines are the one kind of line a label may sit on.
 * `npm test` draws a sample of the regression traces (per spec the longest, and every lasso); the slow
 * tier (KMC_SLOW=1) draws them all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { ItfTrace } from '../../traces/itf/write.ts';
import { renderSequenceSvg } from '../../traces/render/sequence.ts';
import { actorsOf, stepsOf } from '../../traces/render/steps.ts';
import { toDot } from '../../traces/render/dot.ts';
import { dotToSvg } from '../../traces/render/svg.ts';
import { traceGraph } from '../../traces/render/stateGraph.ts';
import { launchChromium, type Browser } from './chromium.ts';
import { longWalk } from './longWalks.ts';
import { hardestPerSpec, regressionTraces, twoPhaseCounterexample } from './traces.ts';

let browser: Browser;
let page: Page;
before(async () => {
  browser = await launchChromium();
  page = await browser.context.newPage();
});
after(async () => {
  await browser?.close();
});

interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly text: string;
}
interface Drawn {
  readonly texts: Rect[];
  readonly lines: { readonly what: string; readonly points: { x: number; y: number }[] }[];
}

/** Text boxes and sampled lines in page coordinates, read from the browser's own layout. */
async function measure(svg: string, linesSelector: string): Promise<Drawn> {
  await page.setContent(`<!doctype html><body style="margin:0">${svg.replace(/<\?xml[^>]*\?>/, '').replace(/<!DOCTYPE[^>]*>/, '')}</body>`);
  // A string, not a function: the TypeScript loader would wrap named inner functions in helpers the page lacks.
  return page.evaluate(`(${MEASURE})(${JSON.stringify(linesSelector)})`) as Promise<Drawn>;
}

const MEASURE = `function (selector) {
  var texts = Array.from(document.querySelectorAll('svg text'))
    .filter(function (t) { return (t.textContent || '').trim() !== ''; })
    .map(function (t) {
      var r = t.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height, text: t.textContent || '' };
    });
  var lines = Array.from(document.querySelectorAll(selector))
    .filter(function (e) { return !e.closest('defs, marker'); })
    .map(function (e) {
      var m = e.getScreenCTM();
      var length = e.getTotalLength();
      var points = [];
      for (var d = 0; d <= length + 2; d += 2) {
        var p = e.getPointAtLength(Math.min(d, length)).matrixTransform(m);
        points.push({ x: p.x, y: p.y });
      }
      var g = e.closest('g');
      var title = g && g.querySelector('title');
      return { what: ((title && title.textContent) || e.tagName).slice(0, 120), points: points };
    });
  return { texts: texts, lines: lines };
}`;

/** Two boxes share more than a hairline (the browser's boxes include the font's leading). */
function overlaps(a: Rect, b: Rect, slack = 1): boolean {
  return Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > slack && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > slack;
}
const inside = (p: { x: number; y: number }, r: Rect, slack = 1) => p.x > r.x + slack && p.x < r.x + r.w - slack && p.y > r.y + slack && p.y < r.y + r.h - slack;

function problems({ texts, lines }: Drawn): string[] {
  const out: string[] = [];
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) if (overlaps(texts[i]!, texts[j]!)) out.push(`labels overlap: "${texts[i]!.text}" and "${texts[j]!.text}"`);
  }
  for (const l of lines) {
    for (const t of texts) if (l.points.some((p) => inside(p, t))) out.push(`line through a label: ${l.what} crosses "${t.text}"`);
  }
  return out;
}

const SEQUENCE_LINES = 'svg path, svg line:not(.kmc-lifeline), svg polyline';
const GRAPH_LINES = 'svg g.edge path';

async function counterexamples(): Promise<{ name: string; itf: ItfTrace }[]> {
  const lasso = JSON.parse(readFileSync(new URL('../../traces/render/fixtures/lasso-prevote.itf.json', import.meta.url), 'utf8')) as ItfTrace;
  const regressions = regressionTraces();
  assert.ok(regressions.length >= 10, `expected every regression trace, found ${regressions.length}`);
  // The most steps draw the most labels; of those, the most lanes leave each the least room.
  const longest = hardestPerSpec(regressions, (itf) => {
    const steps = stepsOf(itf);
    return steps.length * 100 + actorsOf(steps).length;
  });
  return [
    { name: 'twophase (checked now)', itf: await twoPhaseCounterexample() },
    ...regressions.filter(({ name }) => process.env.KMC_SLOW || longest.has(name)),
    { name: 'lasso fixture', itf: lasso },
  ];
}

test('sequence charts and state graphs of the bundled counterexamples (npm test: per spec the longest, and every lasso; KMC_SLOW=1: every one): no label crosses a label or a line', async () => {
  const all = await counterexamples();
  const found: string[] = [];
  for (const { name, itf } of all) {
    const seq = await measure(renderSequenceSvg(itf), SEQUENCE_LINES);
    assert.ok(seq.texts.length > 4 && seq.texts.some((t) => /^\d+$/.test(t.text)), `${name}: the chart's labels were read`);
    found.push(...problems(seq).map((p) => `${name} sequence: ${p}`));
    const graph = await measure(await dotToSvg(toDot(traceGraph(itf))), GRAPH_LINES);
    assert.ok(graph.lines.length > 0 && graph.lines.every((l) => l.points.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y))), `${name}: the graph's edges were read`);
    found.push(...problems(graph).map((p) => `${name} state graph: ${p}`));
  }
  assert.deepEqual(found, []);
});

test('sequence charts of long random walks (KRaft, replication, two-phase): no label crosses a label or a line', async () => {
  const walks = [
    await longWalk('kraft', 'kraft-bench', ['maxLosses=3', 'maxRestarts=3', 'maxElectionTimeouts=4', 'maxEpoch=4', 'maxValues=3'], 80, 7),
    await longWalk('replication', 'elr', ['values=4', 'maxUncleanShutdowns=5', 'maxCleanShutdowns=5', 'maxPartitions=3', 'maxIsrShrinks=5'], 80, 11),
    await longWalk('twophase', 'rm5', [], 40, 3),
  ];
  const found: string[] = [];
  for (const itf of walks) {
    assert.ok(itf.states.length > 30, `${itf['#meta'].spec}: a long walk (${itf.states.length} states)`);
    found.push(...problems(await measure(renderSequenceSvg(itf), SEQUENCE_LINES)).map((p) => `${itf['#meta'].spec} walk: ${p}`));
  }
  assert.deepEqual(found, []);
});

test('the checker catches a label drawn across an arrow (the test itself can fail)', async () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" font-size="11"><text x="20" y="50">Fetch e1 offset=0</text><path d="M 10 46 L 200 46" stroke="black"/><text x="30" y="52">overlap</text></svg>`;
  const p = problems(await measure(svg, SEQUENCE_LINES));
  assert.equal(p.length, 3, p.join('\n'));
});

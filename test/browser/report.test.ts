/**
 * Opens the HTML counterexample report in headless Chromium and checks what a reader sees: the steps and
 * their actions, the violated invariant, the fields each step changed highlighted, keyboard stepping, the
 * current step marked in the sequence chart and the state graph, and that the page asks the network for
 * nothing. Runs on the two-phase bug and on every saved regression trace (KRaft, replication).
 * One browser and one page for the whole file: each report is rendered once and opened by navigating the
 * page to it, with the page's requests and errors collected afresh for each.
 *
 * Two tiers. `npm test` steps through a sample of the regression traces (per spec, the one whose steps
 * change the most fields, and every lasso) and looks for the lane headers of another (per spec, the one
 * with the most lanes, and every lasso) at the narrowest width; the slow tier (KMC_SLOW=1) steps through
 * every trace and looks for the lane headers of every one at every width.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { canonicalJson, type ItfTrace } from '../../traces/itf/write.ts';
import { changedPaths } from '../../traces/render/fields.ts';
import { renderHtml } from '../../traces/render/html.ts';
import { actorsOf, stepsOf } from '../../traces/render/steps.ts';
import { writeAllFormats } from '../../traces/render/writeAll.ts';
import { launchChromium, type Browser } from './chromium.ts';
import { hardestPerSpec, regressionTraces, twoPhaseCounterexample } from './traces.ts';

const dir = mkdtempSync(join(tmpdir(), 'kmc-browser-'));
const DEFAULT_VIEWPORT = { width: 1440, height: 900 };
let browser: Browser;
let page: Page;
/** What the page asked for and complained about since it last opened a report. */
let seen: { url: string; requests: string[]; errors: string[] } = { url: '', requests: [], errors: [] };

before(async () => {
  browser = await launchChromium(DEFAULT_VIEWPORT);
  page = await browser.context.newPage();
  page.on('request', (r) => {
    if (r.url().split('#')[0] !== seen.url && r.url() !== 'about:blank') seen.requests.push(r.url());
  });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') seen.errors.push(m.text());
  });
});
after(async () => {
  await browser?.close();
});

interface Opened {
  readonly page: Page;
  /** Every request the page made other than loading its own file. */
  readonly requests: string[];
  readonly errors: string[];
}

/** Each trace's report, rendered once (the state graph's layout is the costly part). */
const reports = new Map<ItfTrace, Promise<string>>();
const reportOf = (itf: ItfTrace, name: string) => {
  let file = reports.get(itf);
  if (!file) {
    file = renderHtml(itf).then((html) => {
      const path = join(dir, `${name}.html`);
      writeFileSync(path, html);
      return pathToFileURL(path).href;
    });
    reports.set(itf, file);
  }
  return file;
};

/** Opens a trace's report in the page, loaded afresh (also when only the step in the link differs). */
async function open(itf: ItfTrace, name: string, hash = '', viewport = DEFAULT_VIEWPORT): Promise<Opened> {
  const url = await reportOf(itf, name);
  // The same report with another step in the link would only change the hash, not load.
  if (page.url().split('#')[0] === url) await page.goto('about:blank');
  await page.setViewportSize(viewport);
  seen = { url, requests: [], errors: [] };
  await page.goto(url + hash);
  return { page, requests: seen.requests, errors: seen.errors };
}

/** The counterexamples, read and checked once for the whole file. */
let twoPhase: Promise<ItfTrace> | undefined;
const twoPhaseTrace = () => (twoPhase ??= twoPhaseCounterexample());
const REGRESSIONS = regressionTraces();
const SLOW = Boolean(process.env.KMC_SLOW);

/** The regression traces the fast tier steps through: per spec, the one whose steps change the most fields, and every lasso. */
const SAMPLED = hardestPerSpec(REGRESSIONS, (itf) => {
  const steps = stepsOf(itf);
  return steps.reduce((n, s, i) => n + (i === 0 ? 0 : changedPaths(steps[i - 1]!.vars, s.vars).length), 0);
});

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
const position = async (page: Page) => Number(await page.locator('#pos-index').textContent());
const highlighted = (page: Page) => texts(page, '#fields tbody tr.changed th, #fields tbody tr.added th, #fields tbody tr.removed th');
const currentInSequence = (page: Page) => page.locator('#sequence .kmc-step.kmc-current').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-step')));
const currentInGraph = (page: Page) =>
  page.locator('#graph g.node.kmc-current').evaluateAll((gs) => gs.map((g) => [...g.classList].filter((c) => c.startsWith('step-')).join(' ')));
/**
 * All of the above at once, in one round trip to the browser: the report's script updates the page
 * synchronously on each key, so nothing is left to wait for.
 */
const shownStep = (page: Page) =>
  // A string, not a function: the TypeScript loader would wrap named inner functions in helpers the page lacks.
  page.evaluate(SHOWN_STEP) as Promise<{ position: number; action: string | null; highlighted: string[]; inSequence: (string | null)[]; inGraph: string[] }>;
const SHOWN_STEP = `(function () {
  var all = function (selector) { return Array.from(document.querySelectorAll(selector)); };
  return {
    position: Number(document.querySelector('#pos-index').textContent),
    action: document.querySelector('#current-action').textContent,
    highlighted: all('#fields tbody tr.changed th, #fields tbody tr.added th, #fields tbody tr.removed th').map(function (e) { return e.textContent || ''; }),
    inSequence: all('#sequence .kmc-step.kmc-current').map(function (g) { return g.getAttribute('data-step'); }),
    inGraph: all('#graph g.node.kmc-current').map(function (g) {
      return Array.from(g.classList).filter(function (c) { return c.indexOf('step-') === 0; }).join(' ');
    }),
  };
})()`;

test('two-phase commit report: steps, verdict, changed fields, keyboard, both pictures follow', async () => {
  const itf = await twoPhaseTrace();
  const { page, requests, errors } = await open(itf, 'twophase');
  assert.deepEqual(await texts(page, '#steps li.step .action'), ['Init', 'RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg']);
  assert.equal((await page.locator('#position').textContent())?.replace(/\s+/g, ' '), 'Step 0 of 5');
  assert.equal(await page.locator('#verdict').getAttribute('data-property'), 'TCConsistent');
  assert.equal(
    (await page.locator('#verdict').textContent())?.trim(),
    '✗ Invariant TCConsistent is violated at step 5: no resource manager has committed while another has aborted',
  );
  assert.equal(await page.locator('#prev').isDisabled(), true);
  assert.deepEqual(await highlighted(page), [], 'nothing is highlighted at the initial state');

  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await position(page), 3);
  assert.equal(await page.locator('#current-action').textContent(), 'TMCommit');
  assert.equal(await page.locator('#step-heading').textContent(), 'Step 3 · TMCommit');
  assert.deepEqual(await highlighted(page), ['tmState', 'msgs']);
  assert.deepEqual(await texts(page, '#fields tr[data-field="tmState"] td'), ['"committed"', '"init"']);
  assert.equal(await page.locator('#fields tr[data-field="msgs"] .delta').textContent(), '+ [type |-> "Commit", rm |-> None]');
  assert.equal(await page.locator('#fields tr[data-field="rmState[r1]"]').evaluate((tr) => tr.matches('.changed, .added, .removed')), false, 'unchanged fields are not highlighted');
  assert.equal(await page.locator('#fields tr[data-field="tmState"]').evaluate((tr) => getComputedStyle(tr).backgroundColor), 'rgb(255, 241, 194)', 'changed fields are shaded');
  assert.match((await page.locator('#events').textContent()) ?? '', /actor TM.*sends Commit → r1, Commit → r2, Commit → r3/);
  assert.deepEqual(await currentInSequence(page), ['3']);
  assert.deepEqual(await currentInGraph(page), ['step-3']);
  assert.deepEqual(await page.locator('#steps li.current').evaluateAll((l) => l.map((x) => x.getAttribute('data-step'))), ['3']);

  await page.keyboard.press('ArrowLeft');
  assert.equal(await position(page), 2);
  assert.deepEqual(await highlighted(page), ['tmPrepared']);
  await page.keyboard.press('End');
  assert.equal(await position(page), 5);
  assert.deepEqual(await highlighted(page), ['rmState[r1]']);
  assert.equal(await page.locator('#next').isDisabled(), true);
  await page.keyboard.press('ArrowRight');
  assert.equal(await position(page), 5, 'stepping past the end stays at the end');
  await page.keyboard.press('Home');
  assert.equal(await position(page), 0);

  await page.locator('#steps li.step[data-step="4"]').click();
  assert.equal(await position(page), 4);
  assert.deepEqual(await highlighted(page), ['rmState[r2]']);
  await page.locator('#only-changed').check();
  assert.deepEqual(await texts(page, '#fields tbody tr:visible th'), ['rmState[r2]']);
  await page.locator('#sequence .kmc-step[data-step="1"] .kmc-row').click();
  assert.equal(await position(page), 1);
  assert.equal(new URL(page.url()).hash, '#step-1');

  assert.deepEqual(requests, [], 'the report loads nothing from the network');
  assert.deepEqual(errors, []);
});

test('a link to a step opens the report at that step', async () => {
  const { page } = await open(await twoPhaseTrace(), 'twophase', '#step-4');
  assert.equal(await position(page), 4);
  assert.deepEqual(await highlighted(page), ['rmState[r2]']);
});

test('the pictures written by writeAllFormats open as well-formed SVG', async () => {
  const written = await writeAllFormats(await twoPhaseTrace(), join(dir, 'all'));
  for (const file of written.filter((p) => p.endsWith('.svg'))) {
    await page.goto(pathToFileURL(file).href);
    const root = await page.evaluate(() => [document.documentElement.tagName, document.getElementsByTagName('parsererror').length]);
    assert.deepEqual(root, ['svg', 0], file);
  }
});

for (const { name, itf } of REGRESSIONS) {
  const skip = !SLOW && !SAMPLED.has(name) && 'set KMC_SLOW=1 (npm run test:slow): npm test steps through, per spec, the trace whose steps change the most fields, and every lasso';
  test(`regression ${name}: every step, its action and exactly its changed fields`, { skip }, async () => {
    const steps = stepsOf(itf);
    const verdict = itf['#meta']?.verdict;
    const { page, requests, errors } = await open(itf, name.replace(/\.itf\.json$/, ''));
    assert.deepEqual(await texts(page, '#steps li.step .action'), steps.map((s) => s.action));
    if (verdict) {
      assert.equal(await page.locator('#verdict').getAttribute('data-property'), verdict.property);
      assert.match((await page.locator('#verdict').textContent()) ?? '', new RegExp(`${verdict.property}.*${escapeRegExp(verdict.description)}`));
    }
    for (let i = 0; i < steps.length; i++) {
      if (i > 0) await page.keyboard.press('ArrowRight');
      const s = steps[i]!;
      const shown = await shownStep(page);
      assert.equal(shown.position, s.index, `${name} step ${i}`);
      assert.equal(shown.action, s.label, `${name} step ${i}`);
      const expected = changedPaths(i === 0 ? undefined : steps[i - 1]!.vars, s.vars);
      assert.deepEqual(shown.highlighted, expected, `${name} step ${s.index} (${s.action})`);
      if (i > 0 && canonicalJson(steps[i - 1]!.vars) !== canonicalJson(s.vars)) assert.ok(expected.length > 0, `${name} step ${s.index} changes something`);
      assert.deepEqual(shown.inSequence, [String(s.index)]);
      assert.ok(shown.inGraph.some((c) => c.split(' ').includes(`step-${s.index}`)), `${name} step ${s.index} in the graph`);
    }
    await page.keyboard.press('Home');
    assert.equal(await position(page), steps[0]!.index);
    assert.deepEqual(requests, []);
    assert.deepEqual(errors, []);
  });
}

test("KAFKA-16281 report: a message step is named in the spec's words, its full record one click away", async () => {
  const itf = REGRESSIONS.find((t) => t.name === 'kraft-kraft-16281.itf.json')!.itf;
  const { page, errors } = await open(itf, 'kraft-kraft-16281', '#step-4');
  assert.equal(await page.locator('#current-action').textContent(), 'HandleVoteResponse r1 ← r2: PreVoteResp e1 denied leader=r1');
  const item = page.locator('#steps li.step[data-step="4"]');
  assert.equal(await item.locator('.words').textContent(), 'r1 ← r2: PreVoteResp e1 denied leader=r1');
  assert.doesNotMatch((await item.innerText()) ?? '', /type \|->/, 'no record dump in the step list');
  assert.equal(await item.locator('details.call code').isVisible(), false);
  await item.locator('details.call summary').click();
  assert.match((await item.locator('details.call code').textContent()) ?? '', /^s=r1, m=\[type \|-> "VoteResponse", from \|-> "r2", to \|-> "r1"/);
  assert.equal(await item.locator('details.call code').isVisible(), true);
  assert.deepEqual(errors, []);
});

test('every lane header of the counterexamples is visible at 1280 px (npm test: per spec the one with the most lanes, and every lasso; KMC_SLOW=1: every one, also at 1440 and 1920 px)', async () => {
  const hidden: string[] = [];
  // The narrowest width and the most lanes leave each lane the least room: the fast tier looks there only.
  const widths = SLOW ? [1280, 1440, 1920] : [1280];
  const most = hardestPerSpec(REGRESSIONS, (itf) => actorsOf(stepsOf(itf)).length);
  for (const { name, itf } of [{ name: 'twophase', itf: await twoPhaseTrace() }, ...REGRESSIONS.filter((t) => SLOW || most.has(t.name))]) {
    // One load per report; the layout is CSS alone, so the page reflows to each width as it is resized.
    const { page } = await open(itf, name.replace(/\.itf\.json$/, ''), '', { width: 1280, height: 900 });
    for (const width of widths) {
      await page.setViewportSize({ width, height: 900 });
      const lanes = await page.locator('#sequence .kmc-actor').evaluateAll((gs) => {
        const pane = document.getElementById('sequence')!.getBoundingClientRect();
        return gs.map((g) => {
          const r = g.querySelector('.kmc-head')!.getBoundingClientRect();
          const seen = r.left >= pane.left - 0.5 && r.right <= pane.right + 0.5 && r.left >= 0 && r.right <= window.innerWidth && r.width > 20;
          return [g.getAttribute('data-actor'), seen] as const;
        });
      });
      assert.deepEqual(lanes.map(([a]) => a), actorsOf(stepsOf(itf)), `${name} at ${width} px: every lane found`);
      for (const [actor, seen] of lanes) if (!seen) hidden.push(`${name} at ${width} px: ${actor}`);
    }
  }
  assert.deepEqual(hidden, []);
});

test('a lasso report marks the step it repeats from and the way back', async () => {
  const { readFileSync } = await import('node:fs');
  const lasso = JSON.parse(readFileSync(new URL('../../traces/render/fixtures/lasso-prevote.itf.json', import.meta.url), 'utf8')) as ItfTrace;
  const { page, errors } = await open(lasso, 'lasso');
  assert.equal(await page.locator('#loop').textContent(), '↻ A lasso: after step 5 the trace repeats forever from step 1.');
  assert.deepEqual(await texts(page, '#steps li.step .loop'), ['↻ repeats forever from here', '↻ then back to step 1, forever']);
  assert.deepEqual(await page.locator('#steps li.in-loop').evaluateAll((l) => l.map((x) => x.getAttribute('data-step'))), ['1', '2', '3', '4', '5']);
  assert.equal(await page.locator('#sequence .kmc-loop').getAttribute('data-loop'), '1');
  assert.deepEqual(errors, []);
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

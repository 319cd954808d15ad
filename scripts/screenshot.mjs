#!/usr/bin/env node
// Renders a counterexample and saves a PNG of it, so a person can look at a report without opening it.
//
//   node scripts/screenshot.mjs TRACE.itf.json [--out shot.png] [--step N] [--neighbourhood K]
//                               [--width 1440] [--height 900] [--full-page]
//   node scripts/screenshot.mjs report.html | picture.svg [--out shot.png] ...
//
// An .itf.json trace is first drawn as the HTML report (kmc render --format html); --step N opens it at
// step N, as the left/right arrow keys would. Uses the system Chromium, as the browser tests do.
import { register } from 'tsx/esm/api';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

register();
const { launchChromium } = await import('../test/browser/chromium.ts');
const { main } = await import('../checker/cli/cli.ts');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    step: { type: 'string' },
    neighbourhood: { type: 'string' },
    width: { type: 'string', default: '1440' },
    height: { type: 'string', default: '900' },
    'full-page': { type: 'boolean', default: false },
  },
});
const input = positionals[0];
if (!input) {
  process.stderr.write('usage: node scripts/screenshot.mjs TRACE.itf.json|REPORT.html|PICTURE.svg [--out shot.png] [--step N] [--neighbourhood K] [--width W] [--height H] [--full-page]\n');
  process.exit(2);
}

let page = resolve(input);
if (input.endsWith('.json')) {
  page = join(mkdtempSync(join(tmpdir(), 'kmc-shot-')), `${basename(input).replace(/\.itf\.json$|\.json$/, '')}.html`);
  const extra = values.neighbourhood !== undefined ? ['--neighbourhood', values.neighbourhood] : [];
  const code = await main(['render', input, '--format', 'html', '--out', page, ...extra]);
  if (code !== 0) process.exit(code);
}
const out = resolve(values.out ?? `${basename(page).replace(/\.(html|svg)$/, '')}.png`);

const browser = await launchChromium({ width: Number(values.width), height: Number(values.height) });
try {
  const tab = await browser.context.newPage();
  if (page.endsWith('.svg')) {
    // Chromium cannot take a full-page shot of a bare SVG document; wrap it in a page.
    await tab.setContent(`<!doctype html><body style="margin:0;background:#fff">${readFileSync(page, 'utf8').replace(/^<\?xml[^>]*>\s*/, '').replace(/<!DOCTYPE[^>]*>\s*/, '')}</body>`);
  } else {
    await tab.goto(pathToFileURL(page).href + (values.step !== undefined ? `#step-${values.step}` : ''));
  }
  await tab.screenshot({ path: out, fullPage: values['full-page'] || page.endsWith('.svg') });
  process.stdout.write(`Wrote ${out}\n`);
} finally {
  await browser.close();
}

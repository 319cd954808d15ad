#!/usr/bin/env node
// Redraws every picture the README and docs/ show from the current renderer, so they never lag the code:
//   docs/kraft-16281-sequence.svg, docs/lrs-pre-elr-sequence.svg  (kmc render --format sequence)
//   docs/kraft-16281-report.png                                    (the HTML report at step 4, in Chromium)
// The counterexamples are the saved regression traces, which the tests replay against the specs.
//
//   npm run pictures
import { register } from 'tsx/esm/api';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

register();
const { main } = await import('../checker/cli/cli.ts');
const root = fileURLToPath(new URL('..', import.meta.url));
const regression = (name) => `${root}traces/regressions/${name}.itf.json`;

const charts = [
  ['kraft-kraft-16281', 'docs/kraft-16281-sequence.svg'],
  ['replication-lrs-pre-elr', 'docs/lrs-pre-elr-sequence.svg'],
];
for (const [trace, out] of charts) {
  const code = await main(['render', regression(trace), '--format', 'sequence', '--out', `${root}${out}`]);
  if (code !== 0) process.exit(code);
}
execFileSync(process.execPath, [`${root}scripts/screenshot.mjs`, regression('kraft-kraft-16281'), '--step', '4', '--width', '1440', '--height', '900', '--out', `${root}docs/kraft-16281-report.png`], {
  stdio: 'inherit',
});

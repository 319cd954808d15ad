// Re-records traces/regressions/: the counterexample of every bundled preset expected to violate a
// property, as an .itf.json that `kmc replay` reproduces. Run after a deliberate change to a spec;
// `node scripts/regressions.mjs replication` re-records one spec's traces only.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const kmc = (...args) => spawnSync(process.execPath, ['checker/cli/bin.mjs', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
const outDir = `${root}traces/regressions`;
mkdirSync(outDir, { recursive: true });
const { specs } = JSON.parse(kmc('list', '--json').stdout);
const only = process.argv[2];
for (const spec of specs.filter((s) => !only || s.name === only)) {
  for (const preset of spec.presets) {
    if (!preset.expect.startsWith('violates')) continue;
    const r = kmc('check', spec.name, '--preset', preset.name, '--json', '--quiet', '--workers', '1');
    const report = JSON.parse(r.stdout);
    if (!report.trace) throw new Error(`${spec.name}/${preset.name}: expected a counterexample, got ${report.status}`);
    const file = `${outDir}/${spec.name}-${preset.name}.itf.json`;
    writeFileSync(file, `${JSON.stringify(report.trace, null, 2)}\n`);
    console.log(`${file}: ${report.property}, ${report.traceLength} states`);
  }
}

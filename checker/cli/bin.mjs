#!/usr/bin/env node
// Entry point of the `kmc` command: loads the TypeScript sources (and users' .ts specs) through tsx.
// V8's default heap limit (about 4 GiB) is far below what a big search can use, so kmc re-runs itself
// with a heap limit sized to the machine unless one was already chosen.
import { spawn } from 'node:child_process';
import { totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';

const wantMb = Math.floor((totalmem() * 0.75) / 2 ** 20);
const haveMb = getHeapStatistics().heap_size_limit / 2 ** 20;
if (process.env.KMC_HEAP_SET === undefined && haveMb < wantMb * 0.9) {
  const child = spawn(process.execPath, [`--max-old-space-size=${wantMb}`, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, KMC_HEAP_SET: String(wantMb) },
  });
  // Ctrl-C reaches the child too (same terminal); it decides how to stop.
  process.on('SIGINT', () => {});
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { run } = await import('./cli.ts');
  await run();
}

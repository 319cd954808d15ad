/** Helpers shared by the `kmc ci` tests: suites written to a fresh temporary folder, fixture paths. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const COUNTER = join(FIXTURES, 'counter.ts');
export const COUNTER_NO_TOGGLE = join(FIXTURES, 'counterNoToggle.ts');

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'kmc-ci-'));
}

/** Writes `text` as `name` in `dir` (a fresh folder by default) and returns its path. */
export function writeSuite(text: string, dir = tempDir(), name = 'kmc.suite.yaml'): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Report text with its timings blanked, so it can be compared exactly. */
export function withoutTimes(text: string): string {
  return text.replace(/\d+\.\d+ s\b/g, 'T s').replace(/time="[\d.]+"/g, 'time="T"');
}

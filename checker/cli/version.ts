/** kmc's version, from the package.json of the installed package (or of the source checkout). */
import { existsSync, readFileSync } from 'node:fs';

export function kmcVersion(): string {
  // checker/cli/ in a checkout, dist/checker/cli/ in the package.
  for (const up of ['../../package.json', '../../../package.json']) {
    const url = new URL(up, import.meta.url);
    if (!existsSync(url)) continue;
    const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
    if (pkg.version !== undefined && pkg.name !== undefined && pkg.name.length > 0) return pkg.version;
  }
  return 'unknown';
}

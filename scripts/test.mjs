// Builds dist/ (incremental), then runs every *.test.ts file in the project with Node's own test runner
// (TypeScript through tsx; the packed-install test and the CLI's spawns use the compiled dist/).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const skip = new Set(['node_modules', '.git', 'out', '.kmc', 'dist']);
const only = process.argv.slice(2);

function find(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...find(path));
    else if (name.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
const files = find(root)
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);

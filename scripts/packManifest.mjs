// `npm pack` and `npm publish` (prepack, postpack): the tarball's package.json without the `prepare`
// script. prepare builds dist/ where there is none, in a checkout and in the clone npm makes for a git
// install; a tarball carries dist/ already, and npm 11 names a tarball's prepare in its install-scripts
// notice although it has nothing to run (scripts/ is not in the package). `strip` before packing,
// `restore` after: the script comes back as it was, in its place after `build`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package.json', import.meta.url);
const PREPARE = 'node scripts/build.mjs';
const pkg = JSON.parse(readFileSync(file, 'utf8'));
const mode = process.argv[2];

if (mode === 'strip') {
  if (pkg.scripts.prepare === undefined) process.exit(0);
  if (pkg.scripts.prepare !== PREPARE) throw new Error(`package.json: prepare is '${pkg.scripts.prepare}', expected '${PREPARE}'; update scripts/packManifest.mjs`);
  delete pkg.scripts.prepare;
} else if (mode === 'restore') {
  if (pkg.scripts.prepare !== undefined) process.exit(0);
  pkg.scripts = Object.fromEntries(Object.entries(pkg.scripts).flatMap(([k, v]) => (k === 'build' ? [[k, v], ['prepare', PREPARE]] : [[k, v]])));
} else {
  throw new Error('usage: node scripts/packManifest.mjs strip|restore');
}
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);

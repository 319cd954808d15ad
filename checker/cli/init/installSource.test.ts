import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSource } from './installSource.ts';

const NAME = 'kafka-model-checker';

/** A project folder with kmc installed under node_modules, declared as `declared` and locked as `resolved`. */
function project(declared: string | null, resolved: string | null): { root: string; kmc: string } {
  const root = mkdtempSync(join(tmpdir(), 'kmc-source-'));
  const kmc = join(root, 'node_modules', NAME);
  mkdirSync(kmc, { recursive: true });
  writeFileSync(join(kmc, 'package.json'), JSON.stringify({ name: NAME, version: '0.3.0' }));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'user', ...(declared ? { devDependencies: { [NAME]: declared } } : {}) }));
  if (resolved) writeFileSync(join(root, 'node_modules', '.package-lock.json'), JSON.stringify({ packages: { [`node_modules/${NAME}`]: { resolved } } }));
  return { root, kmc };
}

test('kmc init depends on what the installing project declared: a git URL, a tarball made absolute, or a range', () => {
  const cases: [string | null, string | null, (root: string) => string, boolean][] = [
    ['git+https://example.org/kmc.git#v0.3.0', null, () => 'git+https://example.org/kmc.git#v0.3.0', false],
    ['file:../kmc-0.3.0.tgz', null, (root) => `file:${join(root, '..', 'kmc-0.3.0.tgz')}`, true],
    ['^0.3.0', 'https://registry.npmjs.org/kafka-model-checker/-/kafka-model-checker-0.3.0.tgz', () => '^0.3.0', false],
    // Not declared (installed by another tool): npm's lock says where it came from.
    [null, 'git+ssh://git@example.org/kmc.git#0123456789abcdef', () => 'git+ssh://git@example.org/kmc.git#0123456789abcdef', false],
    [null, 'https://registry.npmjs.org/kafka-model-checker/-/kafka-model-checker-0.3.0.tgz', () => '^0.3.0', false],
    [null, null, () => '^0.3.0', false],
  ];
  for (const [declared, resolved, expected, local] of cases) {
    const { root, kmc } = project(declared, resolved);
    try {
      const source = installSource(NAME, '0.3.0', kmc);
      assert.equal(source.dependency, expected(root), `${declared} / ${resolved}`);
      assert.equal(source.note !== undefined, local, `a note only for a file on this machine: ${declared} / ${resolved}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
});

test('kmc init from a checkout depends on the checkout folder and says the workflow needs a reachable source', () => {
  const source = installSource(NAME, '0.3.0', '/src/kmc');
  assert.equal(source.dependency, 'file:/src/kmc');
  assert.match(source.note!, /kmc runs from the folder \/src\/kmc, so the project depends on that folder \(npm links it\)\. On another machine, and in the workflow, install it from a git URL or an npm pack tarball instead/);
});

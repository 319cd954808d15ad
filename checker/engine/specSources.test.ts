import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sourcesDifference, specSources } from './specSources.ts';
import { fileDifference } from './cluster/specIdentity.ts';

/** A spec folder: model.ts importing its rules every way a module can, and a package it must not follow. */
function specFolder(): { dir: string; model: string; write: (file: string, text: string) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-spec-sources-'));
  const write = (file: string, text: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  write('elr/model.ts', ["import { List } from 'immutable';", "import { step } from './actions.js';", "export * from './state';", "import '../shared/net.ts';", 'export default { step, List };', ''].join('\n'));
  write('elr/actions.ts', ["import type { State } from './state.ts';", "const lazy = () => import('./lazy.ts');", 'export const step = (s: State) => [s, lazy];', ''].join('\n'));
  write('elr/state.ts', 'export type State = number;\n');
  write('elr/lazy.ts', `export const url = ${JSON.stringify(pathToFileURL(join(dir, 'shared/extra.js')).href)};\nimport ${JSON.stringify(pathToFileURL(join(dir, 'shared/extra.js')).href)};\n`);
  write('shared/net.ts', "const { x } = require('./cjs.cjs');\nexport const net = x;\n");
  write('shared/cjs.cjs', 'module.exports = { x: 1 };\n');
  write('shared/extra.js', 'export const extra = 1;\n');
  write('elr/node_modules/immutable/index.js', 'export const List = 1;\n');
  return { dir, model: join(dir, 'elr/model.ts'), write };
}

test("a spec's sources are its module, then every local module it imports, directly or not, by path from the module's folder; packages are not followed", () => {
  const { dir, model } = specFolder();
  try {
    const { files, digest } = specSources(model);
    assert.deepEqual(
      files.map((f) => f.path),
      ['model.ts', '../shared/cjs.cjs', '../shared/extra.js', '../shared/net.ts', 'actions.ts', 'lazy.ts', 'state.ts'],
    );
    assert.match(digest, /^[0-9a-f]{64}$/);
    assert.equal(specSources(model).digest, digest);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an edit to any imported module changes the digest and is named; an import added or dropped is named too', () => {
  const { dir, model, write } = specFolder();
  try {
    const before = specSources(model);
    write('shared/cjs.cjs', 'module.exports = { x: 2 };\n');
    const edited = specSources(model);
    assert.notEqual(edited.digest, before.digest);
    assert.equal(sourcesDifference(before.files, edited.files), '../shared/cjs.cjs differs');
    write('elr/state.ts', "import './more.ts';\nexport type State = number;\n");
    write('elr/more.ts', 'export {};\n');
    const grown = specSources(model);
    assert.equal(sourcesDifference(edited.files, grown.files), 'more.ts is imported now, not then');
    assert.equal(sourcesDifference(grown.files, grown.files.filter((f) => f.path !== 'more.ts')), 'more.ts was imported then, not now');
    assert.equal(sourcesDifference(grown.files, grown.files), null);
    // A file no module imports is no source of the spec.
    write('elr/unrelated.ts', 'export const nothing = 0;\n');
    assert.equal(specSources(model).digest, grown.digest);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a worker whose copy of an imported module differs from the driver's, or changed after it loaded the spec, refuses the run, naming the file", () => {
  const { dir, model, write } = specFolder();
  try {
    const driver = specSources(model);
    const offer = { file: driver.digest, sources: driver.files };
    assert.equal(fileDifference(model, offer), null);
    write('elr/actions.ts', 'export const step = (s: number) => [s, s];\n');
    // This process "loaded" the spec above: its copy is the first one.
    assert.equal(
      fileDifference(model, offer),
      `its copy of the spec ${model} is not the driver's (actions.ts differs; paths from the spec module's folder): give every worker the driver's files, from the same kmc build`,
    );
    const now = specSources(model);
    assert.equal(
      fileDifference(model, { file: now.digest, sources: now.files }),
      `it loaded ${model} before its sources changed (actions.ts differs), and a process loads a module once: restart this worker to check the spec as it is now`,
    );
    // A driver of a kmc that sent the digest alone: the difference is still found, without the file's name.
    assert.match(fileDifference(model, { file: driver.digest })!, /is not the driver's \(the files differ; paths/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

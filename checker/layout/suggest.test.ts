import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { is } from 'immutable';
import { tsImport } from 'tsx/esm/api';
import twoPhaseImmutable from '../../spec/twophase/twoPhaseImmutable.ts';
import type { Model } from '../../spec/spec.ts';
import type { RecordType } from '../../spec/layout/types.ts';
import { suggest } from './suggest.ts';
import { kmcInProcess as kmc } from '../cli/testSupport.ts';
import { prepareCheck } from '../run/runCheck.ts';

/** Every state seen fits the suggested layout and reads back as itself (the same Immutable.js value). */
function holdsEvery(layout: RecordType, states: readonly unknown[]): void {
  for (const s of states) {
    const back = (layout.from(s as never) as unknown as { toImmutable(): unknown }).toImmutable();
    assert.ok(is(back, s), `${String(back)} reads back as ${String(s)}`);
  }
}

test('a complete search gives exact bounds: TwoPhase over Immutable.js gets the types TwoPhase declares by hand, with the message set\'s exact size', async () => {
  const model = twoPhaseImmutable.build({ rm: 3, bug: 'none' }) as Model<unknown>;
  const s = await suggest(model, { maxStates: 100_000, timeSeconds: 60 });
  assert.equal(s.complete, true);
  assert.deepEqual([s.explored, s.observed], [288, 288]);
  assert.deepEqual(s.margins, []);
  assert.equal(
    s.code,
    `import { layout as L, type Packed } from 'kafka-model-checker';

const Id = L.ids('id', ["r1","r2","r3"]);

const Msg = L.record('Msg', {
  type: L.enumOf(["Abort","Commit","Prepared"]),
  rm: L.option(Id),
});

const State = L.record('State', {
  rmState: L.map(Id, L.enumOf(["aborted","committed","prepared","working"])),
  tmState: L.enumOf(["aborted","committed","init"]),
  tmPrepared: L.idSet(Id),
  msgs: L.set(Msg, 4),
});

type State = Packed<typeof State>;
// In the model: { layout: State, init: () => [State.from(...)], ... }
`,
  );
  holdsEvery(s.layout, s.states);
  // The printed code is the layout: compiled, it has the same width.
  const dir = mkdtempSync(join(tmpdir(), 'kmc-suggest-'));
  try {
    const index = pathToFileURL(fileURLToPath(new URL('../../spec/index.ts', import.meta.url))).href;
    const file = join(dir, 'layout.ts');
    writeFileSync(file, `${s.code.replace("from 'kafka-model-checker'", `from '${index}'`)}export { State };\n`);
    // Loaded as a user's TypeScript is, through tsx.
    const mod = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { State: RecordType };
    assert.equal(mod.State.width, s.layout.width);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a partial search widens each bound by one and says so; messages of several record types become a variant', async () => {
  const { model } = await prepareCheck({ spec: './spec/kraft/kraftImmutable.ts', preset: 'kraft-shipped' });
  const s = await suggest(model, { maxStates: 300, timeSeconds: 60 });
  assert.equal(s.complete, false);
  assert.equal(s.explored, 300);
  assert.match(s.code, /const Net = L\.variant\('Net', 'type', \{\n {2}\w+: \{/);
  assert.match(s.code, /^ {2}net: L\.set\(Net, \d+\),$/m);
  assert.match(s.code, /^ {2}replicas: L\.map\(Id, Replica\),$/m);
  assert.ok(s.margins.some((m) => /^State\.net \(most elements\): seen (\d+), declared (\d+)$/.test(m)), `a margin for State.net; margins: ${s.margins.join('; ')}`);
  for (const m of s.margins) {
    const [, seen, declared] = /seen (-?\d+), declared (-?\d+)$/.exec(m)!;
    assert.ok(Number(declared) === Number(seen) + 1 || (m.includes('least integer') && Number(declared) <= Number(seen)), m);
  }
  holdsEvery(s.layout, s.states);
});

test('kmc layout suggest prints the declaration; a spec with a layout, or a state no layout holds, is refused', async () => {
  const r = await kmc('layout', 'suggest', './spec/examples/mutex.ts', '--preset', 'racy');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\/\/ kmc layout suggest: the layout of mutex \(preset racy\), from every reachable state \(13 within the model, 13 built\): the bounds are exact\./);
  assert.match(r.stdout, /const State = L\.record\('State', \{\n {2}pc: L\.map\(Id, L\.enumOf\(\["checked","critical","idle"\]\)\),\n {2}locked: L\.bool\(\),\n\}\);/);
  const packed = await kmc('layout', 'suggest', 'twophase');
  assert.equal(packed.code, 2);
  assert.match(packed.stderr, /cannot lay out twophase's states: this spec already declares a layout/);
  const wrong = await kmc('layout', 'propose', 'twophase');
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /Unknown layout command 'propose'\. kmc layout has one: suggest/);
});

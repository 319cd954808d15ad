/**
 * kmc traces as other tools read them: Quint's own ITF reader (`ofItf` from @informalsystems/quint) and
 * `kmc replay`. Typing must be the same in every state: a field that may be empty is an Option variant
 * even where it holds a value, integers are `#bigint`, and the model-based-testing fields are present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ItfTrace } from './write.ts';

const require = createRequire(import.meta.url);
const quintItf = require('@informalsystems/quint/dist/src/itf.js') as {
  ofItf(itf: unknown): QuintEx[];
  ACTION_TAKEN: string;
  NONDET_PICKS: string;
};
type QuintEx = { kind: string; value?: unknown; opcode?: string; args?: QuintEx[] };

const root = fileURLToPath(new URL('../..', import.meta.url));
const tracePath = `${root}traces/regressions/kraft-kraft-16281.itf.json`;

/** A record expression's fields, by name. */
function fields(e: QuintEx): Map<string, QuintEx> {
  assert.equal(e.opcode, 'Rec');
  const out = new Map<string, QuintEx>();
  for (let i = 0; i < e.args!.length; i += 2) out.set(e.args![i]!.value as string, e.args![i + 1]!);
  return out;
}

/** A structural type: int, str, bool, variant, Rec{...}, Map, Set, List (element types left out). */
function shape(e: QuintEx): string {
  if (e.kind !== 'app') return e.kind;
  if (e.opcode === 'Rec') return `{${[...fields(e)].map(([k, v]) => `${k}:${shape(v)}`).join(',')}}`;
  return e.opcode!;
}

test("Quint's ITF reader reads a kmc trace, typed the same way in every state", () => {
  const itf = JSON.parse(readFileSync(tracePath, 'utf8')) as ItfTrace;
  const states = quintItf.ofItf(itf);
  assert.equal(states.length, 5);
  const replicaShapes = new Set<string>();
  const pickShapes = new Set<string>();
  const actions: unknown[] = [];
  for (const state of states) {
    const vars = fields(state);
    assert.equal(vars.get('written')!.kind, 'int');
    actions.push(vars.get(quintItf.ACTION_TAKEN)!.value);
    pickShapes.add(shape(vars.get(quintItf.NONDET_PICKS)!));
    const replicas = vars.get('replicas')!;
    assert.equal(replicas.opcode, 'Map');
    for (const entry of replicas.args!) replicaShapes.add(shape(entry.args![1]!));
  }
  // votedFor, leader and illegal are Options in every state, whether empty or not.
  assert.deepEqual([...replicaShapes], [
    '{role:str,epoch:int,votedFor:variant,leader:variant,votes:Set,rejections:Set,log:List,hwm:int,fetched:bool,inflight:Map,endOffsets:Map,illegal:variant}',
  ]);
  assert.deepEqual([...pickShapes], ['{m:variant,s:variant}']);
  assert.deepEqual(actions, ['Init', 'CheckQuorumResign', 'ElectionTimeout', 'HandleVoteRequest', 'HandleVoteResponse']);
});

test('kmc replay reproduces the same trace', () => {
  const r = spawnSync(process.execPath, ['dist/checker/cli/bin.mjs', 'replay', 'kraft', tracePath, '--json'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  const out = JSON.parse(r.stdout) as { status: string; property: string; step: number };
  assert.deepEqual([out.status, out.property, out.step], ['reproduced', 'NoIllegalState', 4]);
});

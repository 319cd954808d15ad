import { test } from 'node:test';
import assert from 'node:assert/strict';
import twoPhase from './twoPhase.ts';
import twoPhaseImmutable from './twoPhaseImmutable.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { CheckOptions } from '../../checker/engine/options.ts';
import type { CheckResult } from '../../checker/engine/result.ts';
import { toItf } from '../../traces/itf/write.ts';
import { isPacked, LayoutError } from '../layout/index.ts';
import type { ParamValues } from '../spec.ts';

/** Runs both forms of the spec with the same options and label. */
async function both(params: ParamValues, options: CheckOptions = {}): Promise<[CheckResult<unknown>, CheckResult<unknown>]> {
  const label = { spec: 'twophase', params };
  const packed = await checkModel(twoPhase.build(params), options, label);
  const immutable = await checkModel(twoPhaseImmutable.build(params), options, label);
  return [packed as CheckResult<unknown>, immutable as CheckResult<unknown>];
}

function assertSameRun(packed: CheckResult<unknown>, immutable: CheckResult<unknown>): void {
  assert.equal(packed.status, immutable.status);
  assert.equal(packed.stats.distinct, immutable.stats.distinct);
  assert.equal(packed.stats.generated, immutable.stats.generated);
  assert.equal(packed.stats.depth, immutable.stats.depth);
  assert.deepEqual(packed.stats.coverage, immutable.stats.coverage);
}

test('the packed and Immutable forms of TwoPhase give the same counts (rm=3: 288 distinct, as TLC)', async () => {
  const [p, i] = await both({ rm: 3, bug: 'none' });
  assertSameRun(p, i);
  assert.equal(p.stats.distinct, 288);
  assert.equal(p.stats.generated, 1146);
  assert.equal(p.stats.depth, 11);
});

test('the packed and Immutable forms give the same commit-early counterexample, state for state in ITF', async () => {
  const [p, i] = await both({ rm: 3, bug: 'tmCommitEarly' });
  assertSameRun(p, i);
  assert.ok(p.status === 'violation' && i.status === 'violation', `expected two violations, got ${p.status} and ${i.status}`);
  assert.equal(p.property, 'TCConsistent');
  assert.ok(isPacked(p.trace!.steps[0]!.state), 'the packed form runs on packed states');
  assert.ok(!isPacked(i.trace!.steps[0]!.state), 'the Immutable form runs on Immutable states');
  assert.deepEqual(
    p.trace!.steps.map((s) => s.action),
    ['Init', 'RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg'],
  );
  assert.equal(JSON.stringify(toItf(p.trace!)), JSON.stringify(toItf(i.trace!)));
});

test('symmetry by layout positions gives the Immutable path count (rm=5: 314 classes) and the same bug trace length', async () => {
  const [p, i] = await both({ rm: 5, bug: 'none' }, { symmetry: true });
  assertSameRun(p, i);
  assert.equal(p.stats.distinct, 314);
  const [pb, ib] = await both({ rm: 4, bug: 'tmCommitEarly' }, { symmetry: true });
  assertSameRun(pb, ib);
  assert.ok(pb.status === 'violation' && ib.status === 'violation', `expected two violations, got ${pb.status} and ${ib.status}`);
  assert.equal(JSON.stringify(toItf(pb.trace!)), JSON.stringify(toItf(ib.trace!)));
});

test('a TwoPhase state outside its layout is a spec error naming the field, the value and the bound', () => {
  const m = twoPhase.build({ rm: 2, bug: 'none' });
  const s = [...m.init()][0]!;
  assert.throws(
    () => s.setIn(['rmState', 'r2'], 'resting'),
    (e: unknown) => e instanceof LayoutError && e.path === 'rmState.r2' && e.value === 'resting' && /working, prepared, committed, aborted/.test(e.bound),
  );
  assert.throws(() => s.tmPrepared.add('r3'), /tmPrepared\[\]: "r3" is out of bounds \(one of rm: r1, r2\)/);
});

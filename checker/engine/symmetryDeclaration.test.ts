import { test } from 'node:test';
import assert from 'node:assert/strict';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import twoPhaseImmutable from '../../spec/twophase/twoPhaseImmutable.ts';
import { always, everyStep } from '../../invariants/property.ts';
import type { Model } from '../../spec/spec.ts';
import { checkModel } from './check.ts';

const label = { spec: 'twophase', params: { rm: 3 } };
interface ReadsRmState {
  readonly rmState: { get(rm: string): unknown };
}

/** Declared symmetric, but it singles out r1: under symmetry reduction it could pass a model that breaks it. */
const r1NeverCommits = always<ReadsRmState>('R1NeverCommits', 'resource manager r1 never commits', (s) => s.rmState.get('r1') !== 'committed', { symmetric: true });

const withProperty = <S>(m: Model<S>): Model<S> => ({ ...m, properties: [...m.properties, r1NeverCommits as never] });

for (const [form, build] of [
  ['packed', () => withProperty(twoPhase.build({ rm: 3 }) as Model<unknown>)],
  ['Immutable.js', () => withProperty(twoPhaseImmutable.build({ rm: 3 }) as Model<unknown>)],
] as const) {
  test(`${form}: a property declared symmetric that answers differently on a state and its image is a spec error`, async () => {
    const r = await checkModel(build(), { symmetry: true }, label);
    assert.equal(r.status, 'error');
    const message = r.status === 'error' ? r.message : '';
    assert.match(message, /^property R1NeverCommits is declared symmetric, but it (holds on a state and fails|fails on a state and holds) on its image under the symmetry \(/);
    // The first state sampled where r1 has committed (its image moves the commit to another manager).
    assert.match(message, /\): state \(rmState: \{r1: committed, r2: prepared, r3: prepared\}, tmState: committed, .*\); image \(rmState: \{r1: prepared, r2: prepared, r3: committed\}/);
    assert.match(message, /drop \{ symmetric: true \} from R1NeverCommits/);
    // The error comes with the trace to that state.
    const trace = r.status === 'error' ? r.trace : undefined;
    assert.equal(trace?.verdict?.kind, 'error');
    assert.equal(String((trace?.steps.at(-1)?.state as ReadsRmState | undefined)?.rmState.get('r1')), 'committed');
    // Without symmetry the same property is an ordinary invariant, and r1 does commit.
    const plain = await checkModel(build(), {}, label);
    assert.equal(plain.status === 'violation' && plain.property, 'R1NeverCommits');
  });
}

/** Declared symmetric, but it throws only where r3 has committed: on a state where r1 has, its image throws. */
const throwsForR3 = always<ReadsRmState>(
  'ThrowsForR3',
  'throws where r3 has committed',
  (s) => {
    if (s.rmState.get('r3') === 'committed') throw new Error('boom for r3');
    return true;
  },
  { symmetric: true },
);

test('a property declared symmetric that throws on an image of a state but not on the state is a spec error saying so, not its throw pinned on the state', async () => {
  // It was reported as the state's own throw, with a trace to a state on which it does not throw (kmc replay: no violation).
  const model = { ...(twoPhase.build({ rm: 3 }) as Model<unknown>) };
  const r = await checkModel({ ...model, properties: [...model.properties, throwsForR3 as never] }, { symmetry: true }, label);
  assert.equal(r.status, 'error');
  const message = r.status === 'error' ? r.message : '';
  assert.match(message, /^property ThrowsForR3 is declared symmetric, but it holds on a state and throws on its image under the symmetry \(/);
  assert.match(message, /drop \{ symmetric: true \} from ThrowsForR3/);
});

test('properties that are symmetric pass the sampled check: TwoPhase rm=4 under symmetry holds with its reduced count', async () => {
  const r = await checkModel(twoPhase.build({ rm: 4 }), { symmetry: true }, label);
  const i = await checkModel(twoPhaseImmutable.build({ rm: 4 }), { symmetry: true }, label);
  assert.deepEqual([r.status, i.status], ['holds', 'holds']);
  assert.equal(r.stats.distinct, i.stats.distinct);
});

/** A step property declared symmetric that singles out r1: a step that commits r1 breaks it, one that commits another manager does not. */
const r1NeverCommitsStep = everyStep<ReadsRmState>('R1NeverCommitsStep', 'no step commits resource manager r1', (s, t) => s.rmState.get('r1') === 'committed' || t.rmState.get('r1') !== 'committed', { symmetric: true });

for (const [form, build] of [
  ['packed', () => twoPhase.build({ rm: 3 }) as Model<unknown>],
  ['Immutable.js', () => twoPhaseImmutable.build({ rm: 3 }) as Model<unknown>],
] as const) {
  test(`${form}: a step property declared symmetric that answers differently on a step and its image is a spec error`, async () => {
    const model = build();
    const r = await checkModel({ ...model, properties: [...model.properties, r1NeverCommitsStep as never] }, { symmetry: true }, label);
    assert.equal(r.status, 'error');
    assert.match(r.status === 'error' ? r.message : '', /^property R1NeverCommitsStep is declared symmetric, but it (holds on a step and fails|fails on a step and holds) on its image under the symmetry \(.*\): step from \(rmState: .*drop \{ symmetric: true \} from R1NeverCommitsStep/);
  });
}

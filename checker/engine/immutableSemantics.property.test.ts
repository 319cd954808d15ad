/**
 * The states of a spec over Immutable.js are the values Immutable.is tells apart, however the spec builds
 * them: random models whose steps send and drop message Records of several classes (two with the same
 * field names, one with them declared in another order, one with other names), edit a Map and a List, are
 * searched by the checker and by a plain breadth-first search that keeps its states in an Immutable.js Set
 * (Immutable's own hashCode and equals). Distinct states, generated states and depth must agree, in
 * breadth-first and depth-first order, under a VIEW, and under SYMMETRY (the plain search then keeps one
 * state of each set of states that differ by a renaming of the brokers).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { List, Map as IMap, Record, Set as ISet } from 'immutable';
import type { Action, Model } from '../../spec/spec.ts';
import { checkModel } from './check.ts';
import { plainSearch, swapIds } from '../../test/fixtures/plainSearch.ts';

const Request = Record({ epoch: 0, from: 'b1' });
const Reply = Record({ epoch: 0, from: 'b1' });
const RequestReordered = Record({ from: 'b1', epoch: 0 });
const Ack = Record({ term: 0, voter: 'b1' });
const CLASSES = [Request, Reply, RequestReordered, Ack] as const;
const message = (cls: number, a: number, b: string) => {
  const C = CLASSES[cls]!;
  return cls === 3 ? (C as typeof Ack)({ term: a, voter: b }) : (C as typeof Request)({ epoch: a, from: b });
};

const State = Record({ net: ISet<unknown>(), roles: IMap<string, string>(), log: List<number>() });
type State = ReturnType<typeof State>;

// Every step is taken by either broker (a parameter), so renaming the brokers maps behaviours to behaviours.
const BROKERS = ['b1', 'b2'] as const;
type Step =
  | { kind: 'send'; cls: number; a: number }
  | { kind: 'drop' }
  | { kind: 'role'; role: string }
  | { kind: 'unrole' }
  | { kind: 'append'; value: number }
  | { kind: 'truncate' };

const steps: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), cls: fc.integer({ min: 0, max: 3 }), a: fc.integer({ min: 0, max: 1 }) }),
  fc.constant({ kind: 'drop' as const }),
  fc.record({ kind: fc.constant('role' as const), role: fc.constantFrom('leader', 'follower') }),
  fc.constant({ kind: 'unrole' as const }),
  fc.record({ kind: fc.constant('append' as const), value: fc.integer({ min: 0, max: 1 }) }),
  fc.constant({ kind: 'truncate' as const }),
);

const eachBroker = () => BROKERS.map((b) => ({ b }));

/** A model whose actions are these steps, the network bounded to `maxNet` messages and the log to 2 entries. */
function modelOf(chosen: readonly Step[], maxNet: number): Model<State> {
  const actions = chosen.map((step, i): Action<State, any> => {
    const name = `${step.kind}${i}`;
    switch (step.kind) {
      case 'send':
        return { name, params: eachBroker, enabled: (s) => s.net.size < maxNet, next: (s, { b }) => s.set('net', s.net.add(message(step.cls, step.a, b))) };
      case 'drop':
        // One choice per message in the network, as TLA+'s \E m \in net.
        return { name, params: (s) => s.net.toArray().map((m) => ({ m })), next: (s, { m }) => s.set('net', s.net.remove(m)) };
      case 'role':
        return { name, params: eachBroker, next: (s, { b }) => s.setIn(['roles', b], step.role) };
      case 'unrole':
        return { name, params: eachBroker, enabled: (s, { b }) => s.roles.has(b), next: (s, { b }) => s.set('roles', s.roles.remove(b)) };
      case 'append':
        return { name, enabled: (s) => s.log.size < 2, next: (s) => s.set('log', s.log.push(step.value)) };
      case 'truncate':
        return { name, enabled: (s) => s.log.size > 0, next: (s) => s.update('log', (l) => l.pop()) };
    }
  });
  return { init: () => [State()], actions, properties: [], symmetry: [BROKERS] };
}

const specs = fc.tuple(fc.array(steps, { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 3 }));
const label = { spec: 'random', params: {} };
const counts = (r: { stats: { distinct: number; generated: number; depth: number } }) => ({ distinct: r.stats.distinct, generated: r.stats.generated, depth: r.stats.depth });

test('random specs over Records, Sets, Maps and Lists: the checker counts the states Immutable.is tells apart, breadth-first and depth-first', async () => {
  await fc.assert(
    fc.asyncProperty(specs, async ([chosen, maxNet]) => {
      const expected = plainSearch(modelOf(chosen, maxNet), (s) => s);
      const r = await checkModel(modelOf(chosen, maxNet), { deadlock: false }, label);
      assert.equal(r.status, 'holds');
      assert.deepEqual(counts(r), expected, JSON.stringify(chosen));
      const dfs = await checkModel(modelOf(chosen, maxNet), { deadlock: false, strategy: 'dfs' }, label);
      assert.deepEqual([dfs.stats.distinct, dfs.stats.generated], [expected.distinct, expected.generated], JSON.stringify(chosen));
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 3000 : 300 },
  );
});

test('random specs under a VIEW and under SYMMETRY: the checker counts what a plain search counts with the same equality', async () => {
  await fc.assert(
    fc.asyncProperty(specs, async ([chosen, maxNet]) => {
      // A VIEW without the log: states that differ only there are one.
      const withoutLog = (s: State) => s.set('log', List<number>());
      const viewed = await checkModel({ ...modelOf(chosen, maxNet), view: withoutLog }, { deadlock: false }, label);
      assert.deepEqual(counts(viewed), plainSearch(modelOf(chosen, maxNet), withoutLog), `VIEW: ${JSON.stringify(chosen)}`);
      const symmetric = await checkModel(modelOf(chosen, maxNet), { deadlock: false, symmetry: true }, label);
      assert.deepEqual(counts(symmetric), plainSearch(modelOf(chosen, maxNet), (s) => s, (k) => swapIds(k, 'b1', 'b2')), `SYMMETRY: ${JSON.stringify(chosen)}`);
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 3000 : 300 },
  );
});

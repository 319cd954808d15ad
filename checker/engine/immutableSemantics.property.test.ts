/**
 * The states of a spec over Immutable.js are the values Immutable.is tells apart, however the spec builds
 * them: random models whose steps send and drop message Records of several classes (two with the same
 * field names, one with them declared in another order, one with other names), edit a Map and a List, are
 * searched by the checker and by a plain breadth-first search that keeps its states in an Immutable.js Set
 * (Immutable's own hashCode and equals). Distinct states, generated states and depth must agree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { List, Map as IMap, Record, Set as ISet } from 'immutable';
import type { Action, Model } from '../../spec/spec.ts';
import { checkModel } from './check.ts';

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

type Step =
  | { kind: 'send'; cls: number; a: number; b: string }
  | { kind: 'drop' }
  | { kind: 'role'; broker: string; role: string }
  | { kind: 'unrole'; broker: string }
  | { kind: 'append'; value: number }
  | { kind: 'truncate' };

const steps: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), cls: fc.integer({ min: 0, max: 3 }), a: fc.integer({ min: 0, max: 1 }), b: fc.constantFrom('b1', 'b2') }),
  fc.constant({ kind: 'drop' as const }),
  fc.record({ kind: fc.constant('role' as const), broker: fc.constantFrom('b1', 'b2'), role: fc.constantFrom('leader', 'follower') }),
  fc.record({ kind: fc.constant('unrole' as const), broker: fc.constantFrom('b1', 'b2') }),
  fc.record({ kind: fc.constant('append' as const), value: fc.integer({ min: 0, max: 1 }) }),
  fc.constant({ kind: 'truncate' as const }),
);

/** A model whose actions are these steps, the network bounded to `maxNet` messages and the log to 2 entries. */
function modelOf(chosen: readonly Step[], maxNet: number): Model<State> {
  const actions = chosen.map((step, i): Action<State, any> => {
    const name = `${step.kind}${i}`;
    switch (step.kind) {
      case 'send': {
        const m = message(step.cls, step.a, step.b);
        return { name, enabled: (s) => s.net.size < maxNet, next: (s) => s.set('net', s.net.add(m)) };
      }
      case 'drop':
        // One choice per message in the network, as TLA+'s \E m \in net.
        return { name, params: (s) => s.net.toArray().map((m) => ({ m })), next: (s, { m }) => s.set('net', s.net.remove(m)) };
      case 'role':
        return { name, next: (s) => s.setIn(['roles', step.broker], step.role) };
      case 'unrole':
        return { name, enabled: (s) => s.roles.has(step.broker), next: (s) => s.set('roles', s.roles.remove(step.broker)) };
      case 'append':
        return { name, enabled: (s) => s.log.size < 2, next: (s) => s.set('log', s.log.push(step.value)) };
      case 'truncate':
        return { name, enabled: (s) => s.log.size > 0, next: (s) => s.update('log', (l) => l.pop()) };
    }
  });
  return { init: () => [State()], actions, properties: [] };
}

/** Breadth-first search with Immutable.js's own equality: distinct, generated (TLC counts the initial states too) and depth. */
function plainSearch(model: Model<State>): { distinct: number; generated: number; depth: number } {
  const initial = [...model.init()];
  let seen = ISet<State>(initial);
  let level = [...seen];
  let generated = initial.length;
  let depth = 0;
  while (level.length > 0) {
    depth++;
    const next: State[] = [];
    for (const s of level) {
      for (const a of model.actions) {
        for (const p of a.params ? a.params(s) : [{}]) {
          if (a.enabled && !a.enabled(s, p)) continue;
          const t = a.next(s, p);
          generated++;
          if (!seen.has(t)) {
            seen = seen.add(t);
            next.push(t);
          }
        }
      }
    }
    level = next;
  }
  return { distinct: seen.size, generated, depth };
}

test('random specs over Records, Sets, Maps and Lists: the checker counts the states Immutable.is tells apart', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(steps, { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 3 }), async (chosen, maxNet) => {
      const model = modelOf(chosen, maxNet);
      const expected = plainSearch(model);
      const r = await checkModel(model, { deadlock: false }, { spec: 'random', params: {} });
      assert.equal(r.status, 'holds');
      assert.deepEqual({ distinct: r.stats.distinct, generated: r.stats.generated, depth: r.stats.depth }, expected, JSON.stringify(chosen));
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 3000 : 300 },
  );
});

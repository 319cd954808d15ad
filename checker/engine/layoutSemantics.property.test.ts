/**
 * A spec with a layout is checked as bytes: its states must be exactly the values their Immutable.js forms
 * tell apart, whatever order its sets, bags and maps were written in. Random models over a layout with
 * a set of variant messages, a partial map, a list, an id set, an option and a bag are searched by the
 * checker and by a plain search that keeps each state's Immutable.js form (`toImmutable()`). Distinct
 * states, generated states and depth must agree, and under SYMMETRY too, where the checker permutes
 * bytes through the layout and the plain search renames the Immutable.js form.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Action, Model } from '../../spec/spec.ts';
import { layout as L } from '../../spec/layout/index.ts';
import { checkModel } from './check.ts';
import { plainSearch, swapIds } from '../../test/fixtures/plainSearch.ts';

const BROKERS = ['b1', 'b2'] as const;
const Broker = L.ids('broker', BROKERS);
const Msg = L.variant('Msg', 'type', {
  Request: { epoch: L.int(0, 1), from: Broker },
  Ack: { term: L.int(0, 1), voter: Broker },
});
const State = L.record('State', {
  net: L.set(Msg, 3),
  roles: L.partialMap(Broker, L.enumOf(['leader', 'follower'])),
  log: L.list(L.int(0, 1), 2),
  granted: L.idSet(Broker),
  leader: L.option(Broker),
  votes: L.bag(Broker, 2),
});
type State = ReturnType<typeof State.from>;

type Step =
  | { kind: 'send'; type: 'Request' | 'Ack'; n: number }
  | { kind: 'drop' | 'unrole' | 'truncate' | 'grant' | 'revoke' | 'elect' | 'resign' | 'vote' | 'unvote' }
  | { kind: 'role'; role: 'leader' | 'follower' }
  | { kind: 'append'; value: number };

const steps: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), type: fc.constantFrom('Request' as const, 'Ack' as const), n: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constantFrom('drop' as const, 'unrole' as const, 'truncate' as const, 'grant' as const, 'revoke' as const, 'elect' as const, 'resign' as const, 'vote' as const, 'unvote' as const) }),
  fc.record({ kind: fc.constant('role' as const), role: fc.constantFrom('leader' as const, 'follower' as const) }),
  fc.record({ kind: fc.constant('append' as const), value: fc.integer({ min: 0, max: 1 }) }),
);

const eachBroker = () => BROKERS.map((b) => ({ b }));

/** A model whose actions are these steps, each taken by either broker where it names one. */
function modelOf(chosen: readonly Step[]): Model<State> {
  const actions = chosen.map((step, i): Action<State, any> => {
    const name = `${step.kind}${i}`;
    switch (step.kind) {
      case 'send': {
        const message = (b: (typeof BROKERS)[number]) => (step.type === 'Request' ? { type: 'Request' as const, epoch: step.n, from: b } : { type: 'Ack' as const, term: step.n, voter: b });
        return { name, params: eachBroker, enabled: (s) => s.net.size < 3, next: (s, { b }) => s.set('net', s.net.add(message(b))) };
      }
      case 'drop':
        return { name, params: (s) => [...s.net].map((m) => ({ m })), next: (s, { m }) => s.set('net', s.net.remove(m)) };
      case 'role':
        return { name, params: eachBroker, next: (s, { b }) => s.setIn(['roles', b], step.role) };
      case 'unrole':
        return { name, params: eachBroker, enabled: (s, { b }) => s.roles.has(b), next: (s, { b }) => s.set('roles', s.roles.remove(b)) };
      case 'append':
        return { name, enabled: (s) => s.log.size < 2, next: (s) => s.set('log', s.log.push(step.value)) };
      case 'truncate':
        return { name, enabled: (s) => s.log.size > 0, next: (s) => s.set('log', s.log.pop()) };
      case 'grant':
        return { name, params: eachBroker, next: (s, { b }) => s.set('granted', s.granted.add(b)) };
      case 'revoke':
        return { name, params: eachBroker, next: (s, { b }) => s.set('granted', s.granted.remove(b)) };
      case 'elect':
        return { name, params: eachBroker, next: (s, { b }) => s.set('leader', b) };
      case 'resign':
        return { name, next: (s) => s.set('leader', null) };
      case 'vote':
        return { name, params: eachBroker, enabled: (s) => s.votes.size < 2, next: (s, { b }) => s.set('votes', s.votes.add(b)) };
      case 'unvote':
        return { name, params: eachBroker, enabled: (s, { b }) => s.votes.has(b), next: (s, { b }) => s.set('votes', s.votes.remove(b)) };
    }
  });
  return { layout: State, init: () => [State.from({})], actions, properties: [], symmetry: [BROKERS] };
}

const label = { spec: 'random-layout', params: {} };
const counts = (r: { stats: { distinct: number; generated: number; depth: number } }) => ({ distinct: r.stats.distinct, generated: r.stats.generated, depth: r.stats.depth });
const immutableForm = (s: State) => s.toImmutable();
// The renamed form is written back through the layout: a bag's elements are kept in byte order, so a List
// renamed in place would not be the form the renamed state has.
const renamed = (k: unknown) => State.from(swapIds(k, 'b1', 'b2') as never).toImmutable();

test('random specs with a layout: the checker counts the states their Immutable.js forms tell apart, and under SYMMETRY', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(steps, { minLength: 1, maxLength: 8 }), async (chosen) => {
      const expected = plainSearch(modelOf(chosen), immutableForm);
      const one = await checkModel(modelOf(chosen), { deadlock: false }, label);
      assert.deepEqual(counts(one), expected, JSON.stringify(chosen));
      const symmetric = await checkModel(modelOf(chosen), { deadlock: false, symmetry: true }, label);
      assert.deepEqual(counts(symmetric), plainSearch(modelOf(chosen), immutableForm, renamed), `SYMMETRY: ${JSON.stringify(chosen)}`);
    }),
    { seed: 9, numRuns: process.env.KMC_SLOW ? 600 : 30 },
  );
});

/**
 * The README's mutex (mutex.ts) with a declared state layout: the same two processes and the same
 * non-atomic test-then-set, checked as packed bytes. The actions read as they do over Immutable.js;
 * what changes is the declaration of the state, which is also its type (a `pc` outside the three
 * values, or a process that is not p1 or p2, is a spec error naming the field).
 */
import { defineSpec, always, sometimes, layout as L, type Packed } from '../index.ts';

const Proc = L.ids('proc', ['p1', 'p2']);
const State = L.record('State', {
  pc: L.map(Proc, L.enumOf(['idle', 'checked', 'critical'])),
  locked: L.bool(),
});
type State = Packed<typeof State>;

export default defineSpec<State>({
  name: 'mutex-packed',
  description: 'two processes, a lock taken by a non-atomic test-then-set (with a state layout)',
  params: [{ name: 'atomic', description: 'take the lock atomically (the fix)', type: 'bool', default: false }],
  presets: [
    { name: 'racy', description: 'test and set are separate steps', params: { atomic: false }, expect: { verdict: 'violates', property: 'MutualExclusion' } },
    { name: 'atomic', description: 'test-and-set in one step', params: { atomic: true }, expect: { verdict: 'holds' } },
  ],
  build: ({ atomic }) => {
    const procs = [{ p: 'p1' }, { p: 'p2' }];
    return {
      layout: State,
      init: () => [State.from({ pc: { p1: 'idle', p2: 'idle' }, locked: false })],
      actions: [
        {
          name: 'Check',
          params: () => procs,
          enabled: (s, { p }) => s.pc.get(p) === 'idle' && !s.locked,
          next: (s, { p }) => (atomic ? s.set('locked', true).setIn(['pc', p], 'critical') : s.setIn(['pc', p], 'checked')),
        },
        {
          name: 'Take',
          params: () => procs,
          enabled: (s, { p }) => s.pc.get(p) === 'checked',
          next: (s, { p }) => s.set('locked', true).setIn(['pc', p], 'critical'),
        },
        {
          name: 'Release',
          params: () => procs,
          enabled: (s, { p }) => s.pc.get(p) === 'critical',
          next: (s, { p }) => s.set('locked', false).setIn(['pc', p], 'idle'),
        },
      ],
      properties: [
        always<State>('MutualExclusion', 'at most one process is in the critical section', (s) => s.pc.count((v) => v === 'critical') <= 1, { symmetric: true }),
        sometimes<State>('SomeoneEnters', 'a process enters the critical section', (s) => s.pc.includes('critical'), { symmetric: true }),
      ],
      symmetry: [['p1', 'p2']],
    };
  },
});

/** The example spec `kmc init` writes: the README's mutex, importing kmc by its package name. */
export const EXAMPLE_SPEC = `// specs/mutex.ts — npx kmc check ./specs/mutex.ts --preset racy
import { Map, Record } from 'immutable';
import { always, defineSpec, sometimes } from 'kafka-model-checker';

type Pc = 'idle' | 'checked' | 'critical';
const State = Record({ pc: Map<string, Pc>(), locked: false });
type State = ReturnType<typeof State>;

export default defineSpec<State>({
  name: 'mutex',
  description: 'two processes, a lock taken by a non-atomic test-then-set',
  params: [{ name: 'atomic', description: 'take the lock atomically (the fix)', type: 'bool', default: false }],
  presets: [
    { name: 'racy', description: 'test and set are separate steps', params: { atomic: false }, expect: { verdict: 'violates', property: 'MutualExclusion' } },
    { name: 'atomic', description: 'test-and-set in one step', params: { atomic: true }, expect: { verdict: 'holds' } },
  ],
  build: ({ atomic }) => {
    const procs = [{ p: 'p1' }, { p: 'p2' }];
    return {
      init: () => [State({ pc: Map({ p1: 'idle', p2: 'idle' }) })],
      actions: [
        {
          name: 'Check',
          params: () => procs,
          enabled: (s, { p }) => s.pc.get(p) === 'idle' && !s.locked,
          next: (s, { p }) => (atomic ? s.set('locked', true).setIn(['pc', p], 'critical') : s.setIn(['pc', p], 'checked')),
        },
        {
          name: 'Take', params: () => procs, enabled: (s, { p }) => s.pc.get(p) === 'checked', next: (s, { p }) => s.set('locked', true).setIn(['pc', p], 'critical'),
          ...(atomic ? { disabledBy: 'atomic: Check takes the lock' } : {}),   // say why, or coverage flags Take as never enabled
        },
        { name: 'Release', params: () => procs, enabled: (s, { p }) => s.pc.get(p) === 'critical', next: (s, { p }) => s.set('locked', false).setIn(['pc', p], 'idle') },
      ],
      properties: [
        always<State>('MutualExclusion', 'at most one process is in the critical section', (s) => s.pc.count((v) => v === 'critical') <= 1, { symmetric: true }),
        sometimes<State>('SomeoneEnters', 'a process enters the critical section', (s) => s.pc.includes('critical'), { symmetric: true }),
      ],
      symmetry: [['p1', 'p2']],
    };
  },
});
`;

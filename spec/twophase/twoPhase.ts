/**
 * Two-phase commit, a faithful port of `TwoPhase.tla` from the TLA+ Examples (Lamport): one transaction
 * manager and `rm` resource managers exchanging Prepared/Commit/Abort messages. TLC's golden counts:
 * rm=3 → 288 distinct states, rm=5 → 8,832, rm=8 → 1,745,408 (depth 26).
 *
 * The state has a layout (docs/layouts.md), so it is checked as packed bytes; twoPhaseImmutable.ts is the
 * same model over Immutable.js values, and a test holds the two to the same counts and traces.
 */
import { defineSpec, type Action, type ParamDef, type Preset } from '../spec.ts';
import { layout as L, type Packed } from '../layout/index.ts';
import { twoPhaseProperties } from './properties.ts';

export type RmState = 'working' | 'prepared' | 'committed' | 'aborted';
export type TmState = 'init' | 'committed' | 'aborted';

export function twoPhaseLayout(rms: readonly string[]) {
  const RM = L.ids('rm', rms);
  /** `[type |-> "Prepared", rm |-> rm]` or `[type |-> "Commit"]` / `[type |-> "Abort"]` (rm is null). */
  const Msg = L.record('Msg', { type: L.enumOf(['Prepared', 'Commit', 'Abort']), rm: L.option(RM) });
  const State = L.record('TwoPhaseState', {
    rmState: L.map(RM, L.enumOf(['working', 'prepared', 'committed', 'aborted'])),
    tmState: L.enumOf(['init', 'committed', 'aborted']),
    tmPrepared: L.idSet(RM),
    // Every message there can be: one Prepared per resource manager, Commit and Abort.
    msgs: L.set(Msg, rms.length + 2),
  });
  return { RM, Msg, State };
}
export type TwoPhaseLayout = ReturnType<typeof twoPhaseLayout>['State'];
export type TwoPhaseState = Packed<TwoPhaseLayout>;

function actions(rms: readonly string[], Msg: ReturnType<typeof twoPhaseLayout>['Msg']): Action<TwoPhaseState, any>[] {
  const choices = rms.map((rm) => ({ rm }));
  const eachRm = () => choices;
  const COMMIT = Msg.from({ type: 'Commit' });
  const ABORT = Msg.from({ type: 'Abort' });
  const prepared = new globalThis.Map(rms.map((rm) => [rm, Msg.from({ type: 'Prepared', rm })]));
  return [
    {
      name: 'TMRcvPrepared',
      params: eachRm,
      enabled: (s, { rm }) => s.tmState === 'init' && s.msgs.has(prepared.get(rm)!),
      next: (s, { rm }) => s.set('tmPrepared', s.tmPrepared.add(rm)),
      describe: (_s, { rm }) => ({ actor: 'TM', receives: [{ from: rm, to: 'TM', label: 'Prepared' }] }),
    },
    {
      name: 'TMCommit',
      enabled: (s) => s.tmState === 'init' && s.tmPrepared.size === rms.length,
      next: (s) => s.merge({ tmState: 'committed', msgs: s.msgs.add(COMMIT) }),
      describe: () => ({ actor: 'TM', sends: rms.map((rm) => ({ from: 'TM', to: rm, label: 'Commit' })) }),
    },
    {
      name: 'TMAbort',
      enabled: (s) => s.tmState === 'init',
      next: (s) => s.merge({ tmState: 'aborted', msgs: s.msgs.add(ABORT) }),
      describe: () => ({ actor: 'TM', sends: rms.map((rm) => ({ from: 'TM', to: rm, label: 'Abort' })) }),
    },
    {
      name: 'RMPrepare',
      params: eachRm,
      enabled: (s, { rm }) => s.rmState.get(rm) === 'working',
      next: (s, { rm }) => s.merge({ rmState: s.rmState.set(rm, 'prepared'), msgs: s.msgs.add(prepared.get(rm)!) }),
      describe: (_s, { rm }) => ({ actor: rm, sends: [{ from: rm, to: 'TM', label: 'Prepared' }] }),
    },
    {
      name: 'RMChooseToAbort',
      params: eachRm,
      enabled: (s, { rm }) => s.rmState.get(rm) === 'working',
      next: (s, { rm }) => s.setIn(['rmState', rm], 'aborted'),
      describe: (_s, { rm }) => ({ actor: rm, marks: ['abort'] }),
    },
    {
      name: 'RMRcvCommitMsg',
      params: eachRm,
      enabled: (s) => s.msgs.has(COMMIT),
      next: (s, { rm }) => s.setIn(['rmState', rm], 'committed'),
      describe: (_s, { rm }) => ({ actor: rm, receives: [{ from: 'TM', to: rm, label: 'Commit' }] }),
    },
    {
      name: 'RMRcvAbortMsg',
      params: eachRm,
      enabled: (s) => s.msgs.has(ABORT),
      next: (s, { rm }) => s.setIn(['rmState', rm], 'aborted'),
      describe: (_s, { rm }) => ({ actor: rm, receives: [{ from: 'TM', to: rm, label: 'Abort' }] }),
    },
  ];
}

export const TWO_PHASE_PARAMS: readonly ParamDef[] = [
  { name: 'rm', description: 'number of resource managers', type: 'int', default: 3, min: 1, max: 10 },
  {
    name: 'bug',
    description: 'plant a bug: none, or tmCommitEarly (the TM commits without waiting for every Prepared)',
    type: 'enum',
    default: 'none',
    choices: ['none', 'tmCommitEarly'],
  },
];

export const TWO_PHASE_PRESETS: readonly Preset[] = [
  { name: 'rm3', description: 'three resource managers: 288 distinct states, TCConsistent holds', params: { rm: 3 }, expect: { verdict: 'holds' } },
  { name: 'rm5', description: 'five resource managers: 8,832 distinct states', params: { rm: 5 }, expect: { verdict: 'holds' } },
  {
    name: 'rm3-commit-early',
    description: 'planted bug: the TM commits after the first Prepared; TCConsistent must fail',
    params: { rm: 3, bug: 'tmCommitEarly' },
    expect: { verdict: 'violates', property: 'TCConsistent' },
  },
];

export function resourceManagers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `r${i + 1}`);
}

export default defineSpec<TwoPhaseState>({
  name: 'twophase',
  description: 'Two-phase commit (TLA+ Examples TwoPhase.tla): a transaction manager and rm resource managers',
  params: TWO_PHASE_PARAMS,
  presets: TWO_PHASE_PRESETS,
  build: (params) => {
    const rms = resourceManagers(params.rm as number);
    const { State, Msg } = twoPhaseLayout(rms);
    let acts = actions(rms, Msg);
    if (params.bug === 'tmCommitEarly') {
      acts = acts.map((a) =>
        a.name === 'TMCommit' ? { ...a, enabled: (s: TwoPhaseState) => s.tmState === 'init' && s.tmPrepared.size > 0 } : a,
      );
    }
    return {
      layout: State,
      init: () => [State.from({ rmState: rms.map((rm) => [rm, 'working'] as const), tmState: 'init', tmPrepared: [], msgs: [] })],
      actions: acts,
      properties: twoPhaseProperties<TwoPhaseState>(rms),
      symmetry: [rms],
    };
  },
});

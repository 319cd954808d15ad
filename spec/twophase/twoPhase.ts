/**
 * Two-phase commit, a faithful port of `TwoPhase.tla` from the TLA+ Examples (Lamport): one transaction
 * manager and `rm` resource managers exchanging Prepared/Commit/Abort messages. TLC's golden counts:
 * rm=3 → 288 distinct states, rm=5 → 8,832, rm=8 → 1,745,408 (depth 26).
 */
import { Map, Record, Set } from 'immutable';
import { defineSpec, type Action } from '../spec.ts';
import { twoPhaseProperties } from './properties.ts';

export type RmState = 'working' | 'prepared' | 'committed' | 'aborted';
export type TmState = 'init' | 'committed' | 'aborted';

/** `[type |-> "Prepared", rm |-> rm]` or `[type |-> "Commit"]` / `[type |-> "Abort"]` (rm is null). */
export const Msg = Record<{ type: 'Prepared' | 'Commit' | 'Abort'; rm: string | null }>({ type: 'Commit', rm: null });
export type Msg = ReturnType<typeof Msg>;

export const TwoPhaseState = Record({
  rmState: Map<string, RmState>(),
  tmState: 'init' as TmState,
  tmPrepared: Set<string>(),
  msgs: Set<Msg>(),
});
export type TwoPhaseState = ReturnType<typeof TwoPhaseState>;

const COMMIT = Msg({ type: 'Commit' });
const ABORT = Msg({ type: 'Abort' });

function actions(rms: readonly string[]): Action<TwoPhaseState, any>[] {
  const choices = rms.map((rm) => ({ rm }));
  const eachRm = () => choices;
  // Messages are values; building each once keeps guards from allocating.
  const prepared = new globalThis.Map(rms.map((rm) => [rm, Msg({ type: 'Prepared', rm })]));
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
      next: (s) => s.set('tmState', 'committed').set('msgs', s.msgs.add(COMMIT)),
      describe: () => ({ actor: 'TM', sends: rms.map((rm) => ({ from: 'TM', to: rm, label: 'Commit' })) }),
    },
    {
      name: 'TMAbort',
      enabled: (s) => s.tmState === 'init',
      next: (s) => s.set('tmState', 'aborted').set('msgs', s.msgs.add(ABORT)),
      describe: () => ({ actor: 'TM', sends: rms.map((rm) => ({ from: 'TM', to: rm, label: 'Abort' })) }),
    },
    {
      name: 'RMPrepare',
      params: eachRm,
      enabled: (s, { rm }) => s.rmState.get(rm) === 'working',
      next: (s, { rm }) =>
        s.set('rmState', s.rmState.set(rm, 'prepared')).set('msgs', s.msgs.add(prepared.get(rm)!)),
      describe: (_s, { rm }) => ({ actor: rm, sends: [{ from: rm, to: 'TM', label: 'Prepared' }] }),
    },
    {
      name: 'RMChooseToAbort',
      params: eachRm,
      enabled: (s, { rm }) => s.rmState.get(rm) === 'working',
      next: (s, { rm }) => s.set('rmState', s.rmState.set(rm, 'aborted')),
      describe: (_s, { rm }) => ({ actor: rm, marks: ['abort'] }),
    },
    {
      name: 'RMRcvCommitMsg',
      params: eachRm,
      enabled: (s) => s.msgs.has(COMMIT),
      next: (s, { rm }) => s.set('rmState', s.rmState.set(rm, 'committed')),
      describe: (_s, { rm }) => ({ actor: rm, receives: [{ from: 'TM', to: rm, label: 'Commit' }] }),
    },
    {
      name: 'RMRcvAbortMsg',
      params: eachRm,
      enabled: (s) => s.msgs.has(ABORT),
      next: (s, { rm }) => s.set('rmState', s.rmState.set(rm, 'aborted')),
      describe: (_s, { rm }) => ({ actor: rm, receives: [{ from: 'TM', to: rm, label: 'Abort' }] }),
    },
  ];
}

export default defineSpec<TwoPhaseState>({
  name: 'twophase',
  description: 'Two-phase commit (TLA+ Examples TwoPhase.tla): a transaction manager and rm resource managers',
  params: [
    { name: 'rm', description: 'number of resource managers', type: 'int', default: 3, min: 1, max: 10 },
    {
      name: 'bug',
      description: 'plant a bug: none, or tmCommitEarly (the TM commits without waiting for every Prepared)',
      type: 'enum',
      default: 'none',
      choices: ['none', 'tmCommitEarly'],
    },
  ],
  presets: [
    { name: 'rm3', description: 'three resource managers: 288 distinct states, TCConsistent holds', params: { rm: 3 }, expect: { verdict: 'holds' } },
    { name: 'rm5', description: 'five resource managers: 8,832 distinct states', params: { rm: 5 }, expect: { verdict: 'holds' } },
    {
      name: 'rm3-commit-early',
      description: 'planted bug: the TM commits after the first Prepared; TCConsistent must fail',
      params: { rm: 3, bug: 'tmCommitEarly' },
      expect: { verdict: 'violates', property: 'TCConsistent' },
    },
  ],
  build: (params) => {
    const rms = Array.from({ length: params.rm as number }, (_, i) => `r${i + 1}`);
    let acts = actions(rms);
    if (params.bug === 'tmCommitEarly') {
      acts = acts.map((a) =>
        a.name === 'TMCommit' ? { ...a, enabled: (s: TwoPhaseState) => s.tmState === 'init' && s.tmPrepared.size > 0 } : a,
      );
    }
    return {
      init: () => [TwoPhaseState({ rmState: Map(rms.map((rm) => [rm, 'working' as RmState])) })],
      actions: acts,
      properties: twoPhaseProperties(rms),
      symmetry: [rms],
    };
  },
});

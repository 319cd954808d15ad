/**
 * Two-phase commit over Immutable.js values: the same model as twoPhase.ts without a layout. Kept (not
 * a bundled spec) so a test can check that the packed and the Immutable forms give the same counts and
 * traces, and as the example of a spec written without a layout.
 */
import { Map, Record, Set } from 'immutable';
import { defineSpec, type Action } from '../spec.ts';
import { twoPhaseProperties } from './properties.ts';
import { TWO_PHASE_PARAMS, TWO_PHASE_PRESETS, resourceManagers } from './twoPhase.ts';

import type { RmState, TmState } from './twoPhase.ts';

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
  name: 'twophase-immutable',
  description: 'Two-phase commit over Immutable.js values (the reference form of twophase)',
  params: TWO_PHASE_PARAMS,
  presets: TWO_PHASE_PRESETS,
  build: (params) => {
    const rms = resourceManagers(params.rm as number);
    let acts = actions(rms);
    if (params.bug === 'tmCommitEarly') {
      acts = acts.map((a) =>
        a.name === 'TMCommit' ? { ...a, enabled: (s: TwoPhaseState) => s.tmState === 'init' && s.tmPrepared.size > 0 } : a,
      );
    }
    return {
      init: () => [TwoPhaseState({ rmState: Map(rms.map((rm) => [rm, 'working' as RmState])) })],
      actions: acts,
      properties: twoPhaseProperties<TwoPhaseState>(rms),
      symmetry: [rms],
    };
  },
});

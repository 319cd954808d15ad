/** Properties of two-phase commit (TLA+ Examples `TCommit.tla` and `TwoPhase.tla`). */
import { always, sometimes, type Property } from '../../invariants/property.ts';
import type { TwoPhaseState } from './twoPhase.ts';

export function twoPhaseProperties(rms: readonly string[]): Property<TwoPhaseState>[] {
  return [
    always<TwoPhaseState>(
      'TCConsistent',
      'no resource manager has committed while another has aborted',
      (s) => !(s.rmState.includes('aborted') && s.rmState.includes('committed')),
      { symmetric: true },
    ),
    always<TwoPhaseState>(
      'TPTypeOK',
      'the TM only records Prepared from known resource managers',
      (s) => s.tmPrepared.every((rm) => rms.includes(rm)),
      { symmetric: true },
    ),
    sometimes<TwoPhaseState>('Committed', 'every resource manager commits', (s) => s.rmState.every((v) => v === 'committed'), {
      symmetric: true,
    }),
    sometimes<TwoPhaseState>('Aborted', 'the TM aborts the transaction', (s) => s.tmState === 'aborted', { symmetric: true }),
  ];
}

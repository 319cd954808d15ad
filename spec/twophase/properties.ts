/** Properties of two-phase commit (TLA+ Examples `TCommit.tla` and `TwoPhase.tla`), for both state forms. */
import { always, sometimes, type Property } from '../../invariants/property.ts';

/** What the properties read: the packed view and the Immutable record both offer it. */
export interface TwoPhaseReadable {
  readonly rmState: { includes(v: string): boolean; every(pred: (v: string) => boolean): boolean };
  readonly tmState: string;
  readonly tmPrepared: { every(pred: (rm: string) => boolean): boolean };
}

export function twoPhaseProperties<S extends TwoPhaseReadable>(rms: readonly string[]): Property<S>[] {
  return [
    always<S>(
      'TCConsistent',
      'no resource manager has committed while another has aborted',
      (s) => !(s.rmState.includes('aborted') && s.rmState.includes('committed')),
      { symmetric: true },
    ),
    always<S>(
      'TPTypeOK',
      'the TM only records Prepared from known resource managers',
      (s) => s.tmPrepared.every((rm) => rms.includes(rm)),
      { symmetric: true },
    ),
    sometimes<S>('Committed', 'every resource manager commits', (s) => s.rmState.every((v) => v === 'committed'), {
      symmetric: true,
    }),
    sometimes<S>('Aborted', 'the TM aborts the transaction', (s) => s.tmState === 'aborted', { symmetric: true }),
  ];
}

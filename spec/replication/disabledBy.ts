/**
 * Which replication actions the parameters rule out, and why (`Action.disabledBy`), so that coverage
 * reports them as disabled by parameters rather than as never enabled. Only rules that follow from the
 * parameters alone are here: an action that could fire but does not within a preset's bounds stays
 * flagged as never enabled.
 */
import type { Action } from '../spec.ts';
import type { Config } from './state.ts';

function reasonFor(name: string, cfg: Config): string | undefined {
  switch (name) {
    case 'PartitionNetwork':
    case 'HealNetwork':
      return cfg.maxPartitions === 0 ? 'maxPartitions = 0' : undefined;
    case 'ShrinkIsr':
      return cfg.maxIsrShrinks === 0 ? 'maxIsrShrinks = 0' : undefined;
    case 'ReplaceDisk':
      return cfg.maxEmptyDisks === 0 ? 'maxEmptyDisks = 0' : undefined;
    case 'UncleanRecovery':
      // controller.uncleanCandidates: only the ELR path with the Unclean Recovery Manager recovers.
      if (!cfg.elr) return 'elr = false';
      if (!cfg.recoveryManager) return 'recoveryManager = false';
      return cfg.strategy === 'None' ? 'strategy = None' : undefined;
    default:
      return undefined;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function markDisabled<S>(actions: Action<S, any>[], cfg: Config): Action<S, any>[] {
  return actions.map((a) => {
    const reason = reasonFor(a.name, cfg);
    return reason === undefined ? a : { ...a, disabledBy: reason };
  });
}

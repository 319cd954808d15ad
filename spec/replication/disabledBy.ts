/**
 * Which replication actions the parameters rule out, and why (`Action.disabledBy`), so that coverage
 * reports them as disabled by parameters rather than as never enabled. Only rules that follow from the
 * parameters alone are here: an action that could fire but does not within a preset's bounds stays
 * flagged as never enabled.
 */
import type { Action } from '../spec.ts';
import { withDisabledBy } from '../disabledBy.ts';
import type { Config } from './state.ts';
import { storesLastKnownLeader } from './controller.ts';

function reasonFor(name: string, cfg: Config): string | undefined {
  switch (name) {
    case 'PartitionNetwork':
    case 'HealNetwork':
      return cfg.maxPartitions === 0 ? 'maxPartitions = 0' : undefined;
    case 'ShrinkIsr':
      return cfg.maxIsrShrinks === 0 ? 'maxIsrShrinks = 0' : undefined;
    case 'ReplaceDisk':
      return cfg.maxEmptyDisks === 0 ? 'maxEmptyDisks = 0' : undefined;
    case 'ControlledShutdown':
    case 'CleanShutdown':
      // A clean shutdown begins with ControlledShutdown, which spends the clean-shutdown budget.
      return cfg.maxCleanShutdowns === 0 ? 'maxCleanShutdowns = 0' : undefined;
    case 'UncleanShutdown':
      return cfg.maxUncleanShutdowns === 0 ? 'maxUncleanShutdowns = 0' : undefined;
    case 'StartBroker':
      // Only CleanShutdown, UncleanShutdown and ReplaceDisk stop a broker (state.stopBroker).
      return cfg.maxCleanShutdowns === 0 && cfg.maxUncleanShutdowns === 0 && cfg.maxEmptyDisks === 0 ? 'no fault stops a broker (maxCleanShutdowns, maxUncleanShutdowns and maxEmptyDisks = 0)' : undefined;
    case 'ElectUncleanLeader':
      // controller.uncleanCandidateMask for the path without the Unclean Recovery Manager.
      if (!cfg.elr) return cfg.uncleanLeaderElection ? undefined : 'uncleanLeaderElection = false';
      if (cfg.recoveryManager) return 'recoveryManager = true: the manager recovers (UncleanRecovery)';
      if (cfg.strategy === 'None') return 'strategy = None';
      if (cfg.strategy === 'Balanced' && cfg.balancedFallback === 'waitLastKnownLeader') return 'strategy = Balanced waits for the last known leader (balancedFallback = waitLastKnownLeader)';
      return undefined;
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
  const marked = withDisabledBy(actions, (name) => reasonFor(name, cfg));
  // KIP-704: only an unclean election marks a partition RECOVERING. With both unclean paths ruled out by
  // the parameters, only the last-known-leader election is left, which needs the ISR and the ELR empty
  // together; CompleteRecovery is still run, and coverage warns if a preset does reach it.
  const ruledOut = (name: string) => marked.some((a) => a.name === name && a.disabledBy !== undefined);
  if (ruledOut('ElectUncleanLeader') && ruledOut('UncleanRecovery') && (cfg.strategy === 'None' || !storesLastKnownLeader(cfg))) {
    return marked.map((a) => (a.name === 'CompleteRecovery' ? { ...a, disabledBy: 'no unclean or last-known-leader election under these parameters, so no partition is RECOVERING' } : a));
  }
  // The last-known-leader election needs the ISR and the ELR empty together. KIP-966's claim is that fewer
  // data-loss failures than min.insync.replicas never bring that about; the search checks the claim, since
  // coverage warns if an action declared dead is ever enabled.
  const withinTolerance = cfg.elr && cfg.cleanShutdownCheck === 'previousBrokerEpoch' && cfg.maxEmptyDisks === 0 && cfg.maxUncleanShutdowns < cfg.minIsr;
  if (ruledOut('ElectUncleanLeader') && ruledOut('UncleanRecovery') && withinTolerance) {
    const why = `KIP-966: with ${cfg.maxUncleanShutdowns} unclean shutdown${cfg.maxUncleanShutdowns === 1 ? '' : 's'} (fewer than min.insync.replicas = ${cfg.minIsr}) and no empty disk, an ISR or ELR member always remains, so no last-known-leader election marks a partition RECOVERING`;
    return marked.map((a) => (a.name === 'CompleteRecovery' ? { ...a, deadByConstruction: why } : a));
  }
  return marked;
}

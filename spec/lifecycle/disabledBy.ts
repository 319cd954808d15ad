/**
 * Which lifecycle actions the parameters rule out, and why (`Action.disabledBy`), so that coverage reports
 * them as disabled by parameters rather than as never enabled. Only rules that follow from the parameters
 * alone are here: an action that could fire but does not within a preset's bounds stays flagged.
 */
import type { Action } from '../spec.ts';
import { withDisabledBy } from '../disabledBy.ts';
import type { LifecycleConfig } from './state.ts';

function reasonFor(name: string, cfg: LifecycleConfig): string | undefined {
  switch (name) {
    case 'StartBroker':
      // broker.canStart: a slot starts once the one before it has; `running` starts every first slot.
      return cfg.init === 'running' && cfg.incarnations === 1 ? 'init = running with one incarnation per broker: every process has started' : undefined;
    case 'FetchPartition':
    case 'AlterPartition':
      return cfg.partitions.length === 0 ? 'no partitions' : undefined;
    case 'RequestShutdown':
      return cfg.maxShutdowns === 0 ? 'maxShutdowns = 0' : undefined;
    case 'Kill':
      return cfg.maxKills === 0 ? 'maxKills = 0' : undefined;
    case 'ControllerFailover':
      return cfg.maxFailovers === 0 ? 'maxFailovers = 0' : undefined;
    case 'Tick':
      return cfg.maxClock === 0 ? 'maxClock = 0' : undefined;
    case 'LeaseExpire':
      // Only the faulty brokers may miss heartbeats, and a lease (lastContact + timeout >= now) needs time to pass.
      if (cfg.faulty === 0) return 'faulty = 0: every broker heartbeats in time';
      return cfg.maxClock === 0 ? 'maxClock = 0: time never passes' : undefined;
    default:
      return undefined;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function markDisabled<S>(actions: Action<S, any>[], cfg: LifecycleConfig): Action<S, any>[] {
  return withDisabledBy(actions, (name) => reasonFor(name, cfg));
}

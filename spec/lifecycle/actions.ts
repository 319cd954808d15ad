/**
 * The actions of the lifecycle model, one per TLA+ action, in the order the checker tries them.
 * Broker-side effects are in `broker.ts`, controller-side ones in `controller.ts`.
 */
import type { Action, StepEvents } from '../spec.ts';
import {
  canFetchMetadata,
  canFetchPartition,
  canReceive,
  canSendHeartbeat,
  canStart,
  fetchMetadata,
  fetchPartition,
  heartbeatOf,
  kill,
  receive,
  requestShutdown,
  start,
} from './broker.ts';
import { alterPartition, canExpire, commit, failover, handleHeartbeat, leaseExpire } from './controller.ts';
import { auditHeartbeat } from './heartbeatAudit.ts';
import { hasRoom } from './metadata.ts';
import { type BrokerId, type Incarnation, type LifecycleConfig, type LifecycleState, type Msg, type PartitionId, countProcs, isFaulty, isRunning, logEnd, proc, slotsOf } from './state.ts';

type ProcParams = { b: BrokerId; k: Incarnation };

/** The processes that act: those of the faulty brokers (the steady ones only lead partitions). */
function* procsOf(cfg: LifecycleConfig): Iterable<ProcParams> {
  for (const b of cfg.brokers) if (isFaulty(cfg, b)) for (let k = 0; k < slotsOf(cfg, b); k++) yield { b, k };
}

/**
 * The processes that fetch metadata: the acting ones, and where a broker may shut down also the steady
 * ones, whose applied offsets the controlled-shutdown gate waits for (`lowestActiveOffset`); elsewhere
 * nothing reads a steady broker's metadata, and its fetches would only multiply the states.
 */
function* fetchersOf(cfg: LifecycleConfig): Iterable<ProcParams> {
  for (const b of cfg.brokers) if (isFaulty(cfg, b) || cfg.maxShutdowns > 0) for (let k = 0; k < slotsOf(cfg, b); k++) yield { b, k };
}

const actor = (b: BrokerId, k: Incarnation) => `${b}#${k}`;

function label(m: Msg): string {
  if (m.type === 'Heartbeat') return `Heartbeat e=${m.epoch ?? '-'} off=${m.offset} t=${m.sentAt}${m.shutdown ? ' shutdown' : ''}`;
  return `${m.target}${m.epoch === null ? '' : ` e=${m.epoch}`}`;
}

export function lifecycleActions(cfg: LifecycleConfig): Action<LifecycleState, any>[] {
  const startBroker: Action<LifecycleState, ProcParams> = {
    name: 'StartBroker',
    params: () => procsOf(cfg),
    enabled: (s, { b, k }) => canStart(s, b, k),
    next: (s, { b, k }) => start(cfg, s, b, k),
    describe: (_, { b, k }) => ({ actor: actor(b, k), marks: ['start'] }),
  };

  const sendHeartbeat: Action<LifecycleState, ProcParams> = {
    name: 'SendHeartbeat',
    params: () => procsOf(cfg),
    enabled: (s, { b, k }) => canSendHeartbeat(cfg, s, b, k),
    next: (s, { b, k }) => s.set('net', s.net.add(heartbeatOf(cfg, s, b, k))),
    describe: (s, { b, k }) => ({ actor: actor(b, k), sends: [{ from: actor(b, k), to: 'controller', label: label(heartbeatOf(cfg, s, b, k)) }] }),
  };

  const handleHeartbeatAction: Action<LifecycleState, { m: Msg }> = {
    name: 'HandleHeartbeat',
    params: (s) => [...s.net].filter((m) => m.type === 'Heartbeat').map((m) => ({ m })),
    next: (s, { m }) => auditHeartbeat(cfg, s, m, handleHeartbeat(cfg, s, m)),
    describe: (before, { m }, after): StepEvents => ({
      actor: 'controller',
      receives: [{ from: actor(m.broker, m.incarnation), to: 'controller', label: label(m) }],
      sends: [...after.net.subtract(before.net)].map((r) => ({ from: 'controller', to: actor(r.broker, r.incarnation), label: label(r) })),
    }),
  };

  const handleResponse: Action<LifecycleState, { m: Msg }> = {
    name: 'HandleHeartbeatResponse',
    params: (s) => [...s.net].filter((m) => canReceive(s, m)).map((m) => ({ m })),
    next: (s, { m }) => receive(s, m),
    describe: (_, { m }, after) => ({
      actor: actor(m.broker, m.incarnation),
      receives: [{ from: 'controller', to: actor(m.broker, m.incarnation), label: label(m) }],
      marks: [proc(after, m.broker, m.incarnation).state],
    }),
  };

  const fetchMeta: Action<LifecycleState, ProcParams> = {
    name: 'FetchMetadata',
    params: () => fetchersOf(cfg),
    enabled: (s, { b, k }) => canFetchMetadata(s, b, k),
    next: (s, { b, k }) => fetchMetadata(s, b, k),
  };

  const fetchPart: Action<LifecycleState, ProcParams & { p: PartitionId }> = {
    name: 'FetchPartition',
    params: () => [...procsOf(cfg)].flatMap((x) => cfg.partitions.map((p) => ({ ...x, p }))),
    enabled: (s, { b, k, p }) => canFetchPartition(cfg, s, b, k, p),
    next: (s, { b, k, p }) => fetchPartition(s, b, k, p),
  };

  const alter: Action<LifecycleState, { p: PartitionId; b: BrokerId }> = {
    name: 'AlterPartition',
    params: (s) => cfg.partitions.flatMap((p) => [...s.caughtUp.get(p).keys()].map((b) => ({ p, b }))),
    enabled: (s, { p, b }) => {
      const part = s.ctrl.parts.get(p);
      const leader = part.leader;
      if (leader === null || part.isr.has(b) || !hasRoom(cfg, s, 1)) return false;
      // The leader's process must be running and unfenced in its own view.
      return [...s.procs.get(leader).values()].some((q) => q.state === 'ACTIVE' && q.epoch === s.ctrl.regs.get(leader).epoch);
    },
    next: (s, { p, b }) => alterPartition(cfg, s, p, b),
  };

  const shutdown: Action<LifecycleState, ProcParams> = {
    name: 'RequestShutdown',
    params: () => procsOf(cfg),
    enabled: (s, { b, k }) =>
      proc(s, b, k).state === 'ACTIVE' && countProcs(s, (q) => q.state === 'PENDING_SHUTDOWN' || q.state === 'SHUTDOWN') < cfg.maxShutdowns,
    next: (s, { b, k }) => requestShutdown(s, b, k),
    describe: (_, { b, k }) => ({ actor: actor(b, k), marks: ['controlled shutdown'] }),
  };

  const killAction: Action<LifecycleState, ProcParams> = {
    name: 'Kill',
    params: () => procsOf(cfg),
    enabled: (s, { b, k }) => isRunning(proc(s, b, k)) && countProcs(s, (q) => q.state === 'DEAD') < cfg.maxKills,
    next: (s, { b, k }) => kill(s, b, k),
    describe: (_, { b, k }) => ({ actor: actor(b, k), marks: ['kill -9'] }),
  };

  const expire: Action<LifecycleState, { b: BrokerId }> = {
    name: 'LeaseExpire',
    params: () => cfg.brokers.filter((b) => isFaulty(cfg, b)).map((b) => ({ b })),
    enabled: (s, { b }) => canExpire(cfg, s, b),
    next: (s, { b }) => leaseExpire(cfg, s, b),
    describe: (_, { b }) => ({ actor: 'controller', marks: [`fence ${b}`] }),
  };

  const commitAction: Action<LifecycleState> = {
    name: 'CommitMetadata',
    enabled: (s) => s.hwm < logEnd(cfg, s),
    next: (s) => commit(cfg, s),
  };

  const failoverAction: Action<LifecycleState> = {
    name: 'ControllerFailover',
    enabled: (s) => s.controllerEpoch - 1 < cfg.maxFailovers,
    next: (s) => failover(cfg, s),
    describe: () => ({ actor: 'controller', marks: ['failover'] }),
  };

  const tick: Action<LifecycleState> = {
    name: 'Tick',
    enabled: (s) => s.now < cfg.maxClock,
    next: (s) => s.set('now', s.now + 1),
  };

  return [
    startBroker,
    sendHeartbeat,
    handleHeartbeatAction,
    handleResponse,
    fetchMeta,
    fetchPart,
    alter,
    shutdown,
    killAction,
    expire,
    commitAction,
    failoverAction,
    tick,
  ];
}

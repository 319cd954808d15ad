/**
 * Broker processes (`BrokerLifecycleManager`): start, heartbeat, react to the controller's answers,
 * fetch metadata and partition data, ask for a controlled shutdown, die with kill -9.
 *
 * A GC pause is not an action of its own: a process may simply not be scheduled for as long as the
 * clock allows, while its old heartbeats stay in the network (Unmesh Joshi, Sep 2020: "There will be a
 * scenario of broker GC pause, which might cause connection timeout").
 */
import { committedImage } from './metadata.ts';
import {
  type BrokerId,
  type Incarnation,
  type LifecycleConfig,
  type LifecycleState,
  type Msg,
  type PartitionId,
  type Proc,
  baseOffset,
  isRunning,
  proc,
} from './state.ts';

/**
 * `StartBroker`: incarnation `k` of `b` starts, after incarnation `k-1` has started (a restart after a
 * kill or a shutdown, or a second process misconfigured with the same `broker.id` while the first still
 * runs: Jun Rao, Sep 21 2020). It loads the metadata snapshot and keeps its partition data only when the
 * previous incarnation shut down cleanly; after a kill -9 the unflushed tail is gone (KIP-903).
 */
export function canStart(s: LifecycleState, b: BrokerId, k: Incarnation): boolean {
  const slots = s.procs.get(b);
  return slots.get(k).state === 'NOT_STARTED' && (k === 0 || slots.get(k - 1).state !== 'NOT_STARTED');
}

export function start(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId, k: Incarnation): LifecycleState {
  const prev = k === 0 ? null : proc(s, b, k - 1);
  const data = prev === null ? proc(s, b, k).data : prev.state === 'SHUTDOWN' ? prev.data : proc(s, b, k).data.clear();
  return s.setIn(['procs', b, k], { state: 'INITIAL', epoch: null, applied: baseOffset(cfg), data });
}

/** The heartbeat a process would send now: INITIAL carries no epoch (`BrokerRegistrationRequest`); PENDING_SHUTDOWN asks to shut down. */
export function heartbeatOf(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId, k: Incarnation): Msg {
  const p = proc(s, b, k);
  // The send time matters only when the lease counts from it; otherwise it is left out of the state.
  const sentAt = cfg.leaseFrom === 'requestStart' ? s.now : 0;
  return cfg.layout.Msg.from({
    type: 'Heartbeat',
    broker: b,
    incarnation: k,
    epoch: p.epoch,
    offset: p.applied,
    sentAt,
    shutdown: p.state === 'PENDING_SHUTDOWN',
    target: 'FENCED',
    commitAt: 0,
  });
}

/** `SendHeartbeat`: at most `maxInflight` messages are in the network; an identical one is not sent twice. */
export function canSendHeartbeat(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId, k: Incarnation): boolean {
  const p = proc(s, b, k);
  return isRunning(p) && s.net.size < cfg.maxInflight && !s.net.has(heartbeatOf(cfg, s, b, k));
}

/**
 * `HandleHeartbeatResponse`: the incarnation the response is for takes it in, once the records it
 * depends on are committed. A registration answer gives an INITIAL broker its epoch (it is FENCED until
 * unfenced); ACTIVE unfences it, FENCED fences an active one ("targetState will just indicate that the
 * broker should be fenced": Colin McCabe, Oct 12 2020); SHUTDOWN ends a controlled shutdown; STALE sends
 * it back to INITIAL to register anew (a GC-paused broker's "heartbeat sent after the pause will be
 * treated as a new registration": Unmesh Joshi / Colin McCabe, Sep 11 2020). An answer for an epoch the
 * broker no longer has changes nothing.
 */
export function canReceive(s: LifecycleState, m: Msg): boolean {
  return m.type === 'HeartbeatResponse' && s.hwm >= m.commitAt && isRunning(proc(s, m.broker, m.incarnation));
}

export function receive(s: LifecycleState, m: Msg): LifecycleState {
  const p = proc(s, m.broker, m.incarnation);
  const next = s.set('net', s.net.delete(m));
  const mine = p.epoch === m.epoch;
  let after = p;
  switch (m.target) {
    case 'REGISTERED':
      if (p.state === 'INITIAL') after = p.merge({ state: 'FENCED', epoch: m.epoch });
      break;
    case 'FENCED':
      if (mine && p.state === 'ACTIVE') after = p.set('state', 'FENCED');
      break;
    case 'ACTIVE':
      if (mine && p.state === 'FENCED') after = p.set('state', 'ACTIVE');
      break;
    case 'SHUTDOWN':
      if (mine && p.state === 'PENDING_SHUTDOWN') after = p.set('state', 'SHUTDOWN');
      break;
    case 'STALE':
      if (mine && p.state !== 'PENDING_SHUTDOWN') after = p.merge({ state: 'INITIAL', epoch: null });
      break;
    case 'DUPLICATE':
      break;
  }
  return next.setIn(['procs', m.broker, m.incarnation], after);
}

/** `FetchMetadata`: a running broker fetches and applies the metadata log up to the high watermark. */
export function canFetchMetadata(s: LifecycleState, b: BrokerId, k: Incarnation): boolean {
  const p = proc(s, b, k);
  return isRunning(p) && p.applied < s.hwm;
}

export function fetchMetadata(s: LifecycleState, b: BrokerId, k: Incarnation): LifecycleState {
  return s.setIn(['procs', b, k, 'applied'], s.hwm);
}

/**
 * The process that serves as leader of `p`: the running incarnation of the committed leader that holds
 * the leader's registered epoch and the data.
 */
function leaderProcess(cfg: LifecycleConfig, s: LifecycleState, p: PartitionId): Proc | undefined {
  const image = committedImage(cfg, s);
  const leader = image.parts.get(p).leader;
  if (leader === null) return undefined;
  const epoch = image.regs.get(leader).epoch;
  return [...s.procs.get(leader).values()].find((q) => q.state === 'ACTIVE' && q.epoch === epoch && q.data.has(p));
}

/**
 * `FetchPartition`: an active follower fetches `p` up to the leader's end; the leader records the broker
 * epoch the fetch carried (KIP-903 adds it to the fetch request).
 */
export function canFetchPartition(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId, k: Incarnation, p: PartitionId): boolean {
  const q = proc(s, b, k);
  if (q.state !== 'ACTIVE' || q.epoch === null) return false;
  const leader = committedImage(cfg, s).parts.get(p).leader;
  return leader !== null && leader !== b && leaderProcess(cfg, s, p) !== undefined && (!q.data.has(p) || s.caughtUp.get(p).get(b) !== q.epoch);
}

export function fetchPartition(s: LifecycleState, b: BrokerId, k: Incarnation, p: PartitionId): LifecycleState {
  const q = proc(s, b, k);
  return s.setIn(['procs', b, k, 'data'], q.data.add(p)).setIn(['caughtUp', p, b], q.epoch!);
}

/** `RequestShutdown`: an active broker starts a controlled shutdown (Kafka's PENDING_CONTROLLED_SHUTDOWN). */
export function requestShutdown(s: LifecycleState, b: BrokerId, k: Incarnation): LifecycleState {
  return s.setIn(['procs', b, k, 'state'], 'PENDING_SHUTDOWN');
}

/** `Kill`: kill -9. The process stops; its requests already in flight stay there, the answers to it are dropped. */
export function kill(s: LifecycleState, b: BrokerId, k: Incarnation): LifecycleState {
  return s.merge({
    procs: s.procs.setIn([b, k, 'state'], 'DEAD'),
    net: s.net.filter((m) => m.type !== 'HeartbeatResponse' || m.broker !== b || m.incarnation !== k),
  });
}

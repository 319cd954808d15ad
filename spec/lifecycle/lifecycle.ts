/**
 * KIP-631 broker lifecycle: registration, heartbeats, leases, fencing, controlled shutdown and controller
 * failover, as the KIP-631 DISCUSS thread argued them (seed 001, Aug-Oct 2020) and as Kafka's
 * `ClusterControlManager`, `BrokerHeartbeatManager`, `ReplicationControlManager` and
 * `BrokerLifecycleManager` implement them; plus the KIP-903 stale broker epoch in AlterPartition.
 *
 * The design choices the thread debated are parameters, so each race it worried about is a preset that
 * finds it, next to a preset with the final choice that holds.
 *
 * Abstracted: the controller quorum is one active controller that can fail over (Raft itself is the
 * `kraft` spec); commit makes every appended record durable at once; one topic whose partitions have
 * every broker as a replica; a fetch brings a follower fully up to date; AlterPartition is sent and
 * handled in one step. Heartbeats and their answers travel on a network that delays and reorders but does
 * not lose (a lost message is one never delivered).
 */
import { markDisabled } from './disabledBy.ts';
import { defineSpec, type Model, type ParamValues } from '../spec.ts';
import { lifecycleActions } from './actions.ts';
import type { LifecycleMutation } from './mutations.ts';
import { initialImage } from './metadata.ts';
import { lifecycleProperties } from './properties.ts';
import {
  type EpochSource,
  type FailoverLeases,
  type FailoverShutdown,
  type IdConflict,
  type LeaseFrom,
  type UnfenceAfter,
  type LifecycleBounds,
  type LifecycleConfig,
  type LifecycleState,
  baseOffset,
  initialEpoch,
  isFaulty,
  lifecycleLayout,
} from './state.ts';

export function configOf(params: ParamValues): LifecycleConfig {
  const n = params.brokers as number;
  const bounds: LifecycleBounds = {
    brokers: Array.from({ length: n }, (_, i) => `b${i + 1}`),
    partitions: Array.from({ length: params.partitions as number }, (_, i) => `p${i + 1}`),
    faulty: Math.min(params.faulty as number, n),
    incarnations: params.incarnations as number,
    init: params.init as LifecycleConfig['init'],
    leaseTimeout: params.leaseTimeout as number,
    maxClock: params.maxClock as number,
    maxLog: params.maxLog as number,
    maxInflight: params.maxInflight as number,
    maxKills: params.maxKills as number,
    maxShutdowns: params.maxShutdowns as number,
    maxFailovers: params.maxFailovers as number,
    idConflict: params.idConflict as IdConflict,
    pendingCheck: params.pendingCheck as boolean,
    epochSource: params.epochSource as EpochSource,
    leaseFrom: params.leaseFrom as LeaseFrom,
    staleOffsetCheck: params.staleOffsetCheck as boolean,
    unfenceAfter: params.unfenceAfter as UnfenceAfter,
    failoverLeases: params.failoverLeases as FailoverLeases,
    failoverShutdown: params.failoverShutdown as FailoverShutdown,
    isrBrokerEpochs: params.isrBrokerEpochs as boolean,
  };
  return { ...bounds, layout: lifecycleLayout(bounds) };
}

/**
 * The initial state. `running`: the controller became active at time 0 and every broker's first
 * incarnation is registered and unfenced, has applied all but the last committed record, and holds every
 * partition's data; each
 * partition's leader has seen its followers catch up under their current epochs. `fresh`: no process has
 * started and nothing is registered.
 */
export function initialState(cfg: LifecycleConfig): LifecycleState {
  const running = cfg.init === 'running';
  const base = baseOffset(cfg);
  const image = initialImage(cfg);
  const idle = { state: 'NOT_STARTED', epoch: null, applied: 0, data: [] } as const;
  const firstProc = (b: string) =>
    running ? { state: 'ACTIVE', epoch: initialEpoch(cfg, b), applied: base - 1, data: cfg.partitions } : { ...idle, data: cfg.partitions };
  const slots = Array.from({ length: cfg.incarnations }, (_, k) => k);
  const procs = cfg.brokers.map((b) => [b, slots.map((k) => [k, k === 0 ? firstProc(b) : idle] as const)] as const);
  const caughtUp = cfg.partitions.map((p) => {
    const part = image.parts.get(p);
    const followers = running ? part.isr.toArray().filter((b) => b !== part.leader).map((b) => [b, initialEpoch(cfg, b)] as const) : [];
    return [p, followers] as const;
  });
  const audit = { displacedLive: false, duplicateViaPending: false, staleHeartbeatApplied: false, fencedInGrace: false, staleIsrExpansion: false };
  return cfg.layout.State.from({
    now: 0,
    controllerEpoch: 1,
    activatedAt: 0,
    log: [],
    hwm: base,
    ctrl: image,
    leases: cfg.brokers.map((b) => [b, running && isFaulty(cfg, b) ? { end: cfg.leaseTimeout, lastOffset: base - 1, shutdownOffset: null } : { end: 0, lastOffset: 0, shutdownOffset: null }] as const),
    procs,
    caughtUp: caughtUp.length > 0 ? caughtUp : [['p0', []]],
    net: [],
    audit,
  } as never);
}

export function buildLifecycle(params: ParamValues): Model<LifecycleState> {
  return modelOf(configOf(params));
}

/** The model with guards mutated, for the mutation table test: not reachable from the command line. */
export function buildLifecycleMutant(params: ParamValues, ...mutations: LifecycleMutation[]): Model<LifecycleState> {
  return modelOf({ ...configOf(params), mutations });
}

function modelOf(cfg: LifecycleConfig): Model<LifecycleState> {
  return {
    layout: cfg.layout.State,
    init: () => [initialState(cfg)],
    actions: markDisabled(lifecycleActions(cfg), cfg),
    properties: lifecycleProperties(cfg, {
      registrations: cfg.init === 'fresh' || cfg.incarnations > 1,
      expiries: cfg.init === 'running' && cfg.maxClock >= cfg.leaseTimeout,
      shutdowns: cfg.init === 'running' && cfg.maxShutdowns > 0,
      failovers: cfg.maxFailovers > 0,
      leaderFaults: cfg.init === 'running' && cfg.partitions.some((p) => isFaulty(cfg, initialImage(cfg).parts.get(p).leader!)),
    }),
  };
}

/**
 * The thread's final decisions (and Kafka's), each race preset flips one of them. One is not Kafka's:
 * shipped Kafka unfences a broker that has applied its own RegisterBrokerRecord, which lets the CE8
 * zombie back in (`ce8-gc-zombie`); the holding presets take the stricter `ownFencing`, so that the
 * zombie does not end the search for the race each of them is about.
 */
const FINAL = {
  idConflict: 'currentWins',
  pendingCheck: true,
  epochSource: 'appendedOffset',
  leaseFrom: 'arrival',
  staleOffsetCheck: true,
  unfenceAfter: 'ownFencing',
  failoverLeases: 'extend',
  failoverShutdown: 'forget',
  isrBrokerEpochs: true,
} as const;

/** One broker id, no partition: the registration and heartbeat races need nothing more. */
const ONE_BROKER = {
  brokers: 1,
  faulty: 1,
  incarnations: 1,
  partitions: 0,
  init: 'running',
  leaseTimeout: 1,
  maxClock: 2,
  maxLog: 3,
  maxInflight: 1,
  maxKills: 0,
  maxShutdowns: 0,
  maxFailovers: 0,
} as const;

/** Two brokers and a partition led by b2, with b1 the one that may misbehave and restart. */
const FOLLOWER_RESTART = { ...ONE_BROKER, brokers: 2, partitions: 1, incarnations: 2, maxClock: 2, maxLog: 5 } as const;

const race = (name: string, description: string, params: Record<string, string | number | boolean>, property: string) => ({
  name,
  description,
  params: { ...FINAL, ...params },
  expect: { verdict: 'violates', property },
  options: { deadlock: false },
}) as const;

const fixed = (name: string, description: string, params: Record<string, string | number | boolean>) => ({
  name,
  description,
  params: { ...FINAL, ...params },
  expect: { verdict: 'holds' },
  options: { deadlock: false },
}) as const;

const CE4 = { ...ONE_BROKER, incarnations: 2 } as const;
const CE5 = { ...ONE_BROKER, init: 'fresh', incarnations: 2, maxInflight: 2, maxClock: 0, maxLog: 2 } as const;
const CE6 = { ...ONE_BROKER, maxInflight: 2 } as const;
const CE7 = { ...ONE_BROKER, maxFailovers: 1 } as const;
const CE8 = ONE_BROKER;

const PRESETS = [
  race(
    'ce4-newest-wins',
    'CE4, id takeover: under "newest registration wins" a second process with the same broker.id registers while the first ' +
      'still holds a live lease, and fences it (Jun Rao, Sep 21 2020: "this will allow a broker with incorrectly configured ' +
      'broker id to kill an existing valid broker").',
    { ...CE4, idConflict: 'newestWins' },
    'CurrentRegistrationWins',
  ),
  fixed('ce4-current-wins', 'CE4 fixed: the current registration wins (Colin McCabe, Oct 12 2020); the newcomer gets DUPLICATE until the lease lapses.', CE4),
  race(
    'ce5-pending-duplicate',
    'CE5, duplicate registration through a pending record: the controller checks only committed registrations and takes the ' +
      'committed offset as the epoch ("the last committed offset must be different": Colin McCabe, Sep 24 2020), so a second ' +
      'process with the same broker.id registering before the first one\'s BrokerRecord commits is granted the same epoch.',
    { ...CE5, pendingCheck: false, epochSource: 'committedOffset' },
    'BrokerEpochMonotonic',
  ),
  fixed(
    'ce5-pending-checked',
    'CE5 fixed: pending registrations count (Unmesh Joshi, Aug 31 2020) and the epoch is the offset the BrokerRecord is appended at.',
    CE5,
  ),
  race(
    'ce6-reordered-heartbeats',
    'CE6, reordered heartbeats: a heartbeat sent before the broker applied more metadata arrives after a newer one and, with no ' +
      'staleness check, rolls the last heartbeat offset back and renews the lease.',
    { ...CE6, staleOffsetCheck: false },
    'StaleHeartbeatInert',
  ),
  fixed(
    'ce6-stale-ignored',
    'CE6 fixed: a heartbeat whose metadata offset is below the last one is ignored (Colin McCabe, Sep 11 2020).',
    CE6,
  ),
  race(
    'ce7-failover-forgets-leases',
    'CE7, failover mass-fence: a newly active controller with no heartbeat history treats every lease as expired and fences live brokers at once.',
    { ...CE7, failoverLeases: 'forget' },
    'FailoverGrace',
  ),
  fixed(
    'ce7-failover-extends',
    'CE7 fixed: the new active controller extends every lease by the lease timeout (Unmesh Joshi / Colin McCabe, Sep 11 2020).',
    CE7,
  ),
  race(
    'ce8-gc-zombie',
    'CE8, GC-paused zombie, against shipped Kafka: a heartbeat sent before a long pause arrives after the lease expired and the ' +
      'broker was fenced, and unfences it although the broker has not applied its own fencing: Kafka compares the heartbeat\'s ' +
      'offset only with its RegisterBrokerRecord (BrokerHeartbeatManager.calculateNextBrokerState, registerBrokerRecordOffset).',
    { ...CE8, unfenceAfter: 'registerRecord' },
    'UnfenceRequiresCatchUp',
  ),
  fixed(
    'ce8-catch-up',
    'CE8, a design variant of Kafka: a fenced broker is unfenced only once its metadata offset has passed its own latest ' +
      'registration or fencing record (unfenceAfter: ownFencing), so the zombie must fetch the fencing first.',
    { ...CE8, unfenceAfter: 'ownFencing' },
  ),
  race(
    'kip903-stale-isr',
    'KIP-903: b1 restarts with an empty log after its lease lapsed; the partition leader still holds the fetch state of its ' +
      'previous incarnation and adds it back to the ISR, which the controller accepts without broker epochs.',
    { ...FOLLOWER_RESTART, isrBrokerEpochs: false },
    'NoStaleIsrExpansion',
  ),
  fixed(
    'kip903-broker-epochs',
    'KIP-903 fixed: AlterPartition carries the broker epoch of the fetch, and the controller rejects one that is not the registered epoch.',
    FOLLOWER_RESTART,
  ),
  fixed(
    'controlled-shutdown-leader',
    'Controlled shutdown of a leader, as Kafka ships it: b1 leads p2 and asks to shut down; it stays unfenced in ' +
      'CONTROLLED_SHUTDOWN while p2 moves to b2 and b1 leaves both ISRs, and is answered SHUTDOWN_NOW once it leads nothing ' +
      'and b2 has applied those records (BrokerHeartbeatManager.calculateNextBrokerState, lowestActiveOffset).',
    { ...ONE_BROKER, brokers: 2, partitions: 2, maxShutdowns: 1, maxLog: 5, maxInflight: 1 },
  ),
  race(
    'controlled-shutdown-failover',
    'Controlled shutdown across a controller failover, against shipped Kafka: b1 leads p2 and enters CONTROLLED_SHUTDOWN; ' +
      'the new active controller has no controlledShutdownOffset for it (soft state, ClusterControlManager.activate), sees an ' +
      'unfenced broker that leads nothing, and answers SHUTDOWN_NOW at once, before b2 has applied that it now leads p2.',
    { ...ONE_BROKER, brokers: 2, partitions: 2, maxShutdowns: 1, maxLog: 5, maxInflight: 1, maxFailovers: 1 },
    'CleanShutdownHandsOver',
  ),
  fixed(
    'controlled-shutdown-failover-restored',
    'The design variant: the new active controller restores a controlled shutdown in progress from the registration, with the ' +
      'last committed offset as its controlled shutdown offset (failoverShutdown: restore), so the gate still waits for b2.',
    { ...ONE_BROKER, brokers: 2, partitions: 2, maxShutdowns: 1, maxLog: 5, maxInflight: 1, maxFailovers: 1, failoverShutdown: 'restore' },
  ),
  fixed(
    'cluster-start',
    'A cluster starts from nothing: b1 and b2 start, register and are unfenced; p1, offline with b2 as its last ISR member, ' +
      'gets b2 as its leader when b2 is unfenced, and never b1, which is not in its ISR (ReplicationControlManager.handleBrokerUnfenced).',
    { ...ONE_BROKER, init: 'fresh', brokers: 2, faulty: 2, partitions: 1, maxClock: 0, maxLog: 6 },
  ),
  fixed(
    'leader-fails',
    "A partition's leader fails: b2 leads p1 and both brokers may be killed, lapse and be fenced; leadership moves to the " +
      'other ISR member (ReplicationControlManager.handleBrokerFenced) and back when it is unfenced with no leader.',
    { ...ONE_BROKER, brokers: 2, faulty: 2, partitions: 1, maxKills: 1, maxLog: 4 },
  ),
  fixed(
    'kip631-final',
    "the thread's final design, exhaustive: two brokers and a partition; b1 may restart under a second process, shut down cleanly, and the controller may fail over.",
    { ...FOLLOWER_RESTART, maxShutdowns: 1, maxFailovers: 1, maxLog: 3 },
  ),
] as const;

const bound = (name: string, description: string, def: number, min: number, max: number) =>
  ({ name, description, type: 'int', default: def, min, max }) as const;

export default defineSpec<LifecycleState>({
  name: 'lifecycle',
  description: 'KIP-631 broker lifecycle: registration, heartbeats, leases, fencing, controlled shutdown, controller failover; KIP-903',
  params: [
    bound('brokers', 'broker ids b1..bN', 2, 1, 3),
    bound('faulty', 'brokers b1..bN that may fail, lag or be fenced; the rest stay up, unfenced and leased', 3, 1, 3),
    bound('incarnations', 'processes that may run under broker id b1, one after another or side by side (other ids run one)', 2, 1, 3),
    bound('partitions', 'partitions p1..pN, every broker a replica', 1, 0, 2),
    { name: 'init', description: 'fresh (nothing started) or running (every broker registered, unfenced, caught up)', type: 'enum', default: 'running', choices: ['fresh', 'running'] },
    bound('leaseTimeout', 'registration.lease.timeout.ms, in clock ticks', 1, 1, 4),
    bound('maxClock', 'last clock tick (state-space bound)', 2, 0, 8),
    bound('maxLog', 'records appended after the initial image (state-space bound)', 3, 0, 9),
    bound('maxInflight', 'messages in the network at once', 2, 1, 4),
    bound('maxKills', 'kill -9 budget', 1, 0, 3),
    bound('maxShutdowns', 'controlled shutdown budget', 0, 0, 3),
    bound('maxFailovers', 'controller failover budget', 0, 0, 3),
    {
      name: 'idConflict',
      description: 'an INITIAL heartbeat for an id whose other incarnation holds a live lease: newestWins fences the holder, currentWins rejects the newcomer',
      type: 'enum',
      default: FINAL.idConflict,
      choices: ['newestWins', 'currentWins'],
    },
    { name: 'pendingCheck', description: 'a registration is checked against uncommitted registrations too, not only committed ones', type: 'bool', default: FINAL.pendingCheck },
    {
      name: 'epochSource',
      description: 'broker epoch: counter (latest epoch + 1), committedOffset (the high watermark), appendedOffset (the log end before the BrokerRecord)',
      type: 'enum',
      default: FINAL.epochSource,
      choices: ['counter', 'committedOffset', 'appendedOffset'],
    },
    {
      name: 'leaseFrom',
      description: "a heartbeat's lease runs from requestStart (the broker's send time) or arrival (the controller's clock)",
      type: 'enum',
      default: FINAL.leaseFrom,
      choices: ['requestStart', 'arrival'],
    },
    { name: 'staleOffsetCheck', description: 'ignore a heartbeat whose metadata offset is below the last one', type: 'bool', default: FINAL.staleOffsetCheck },
    {
      name: 'unfenceAfter',
      description:
        "a fenced broker is unfenced once its heartbeat's metadata offset has passed registerRecord (its own RegisterBrokerRecord, as Kafka) or ownFencing (its latest registration or fencing record)",
      type: 'enum',
      default: FINAL.unfenceAfter,
      choices: ['registerRecord', 'ownFencing'],
    },
    {
      name: 'failoverLeases',
      description: 'a newly active controller extends every lease by the timeout (extend) or starts with none (forget)',
      type: 'enum',
      default: FINAL.failoverLeases,
      choices: ['extend', 'forget'],
    },
    {
      name: 'failoverShutdown',
      description: 'a newly active controller forgets a controlled shutdown in progress (forget, as Kafka) or restores it from the registration with the last committed offset as its controlled shutdown offset (restore)',
      type: 'enum',
      default: FINAL.failoverShutdown,
      choices: ['forget', 'restore'],
    },
    { name: 'isrBrokerEpochs', description: 'KIP-903: AlterPartition carries broker epochs and the controller rejects a stale one', type: 'bool', default: FINAL.isrBrokerEpochs },
  ],
  presets: PRESETS,
  build: buildLifecycle,
});

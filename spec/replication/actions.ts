/**
 * The actions of the replication model. Every effect ends with `settle`, so a leader's high watermark and
 * acknowledgements always reflect the step that changed them. Every fault spends a budget.
 */
import { List, type Set } from 'immutable';
import type { Action, Message, StepEvents } from '../spec.ts';
import { actsAsLeader, fetch, fetchSource, settle } from './broker.ts';
import { alterIsr, beginControlledShutdown, electPreferred, electUnclean, fenceBroker, preferredElectionAllowed, registerBroker, restartLooksUnclean, unfenceBroker, uncleanCandidates, type UncleanPath } from './controller.ts';
import { commonPrefix, epochStartOffset, isPrefixOf } from './log.ts';
import { bit, countOf, idSet, inMask, maskOf } from './ids.ts';
import { type Snapshot, snapshotOf } from './snapshot.ts';
import { acceptsAppend } from './producer.ts';
import { brokerName, type Config, Entry, NO_LEADER, type Partition, type ReplicationState, stopped, updateBroker, viewOf } from './state.ts';

const EMPTY_LOG = List<Entry>();

type S = ReplicationState;
type One = { broker: number };
type Pair = { leader: number; follower: number };
type Crash = { broker: number; keep: number };
type Cut = { brokers: List<number> };

const CONTROLLER = 'controller';
const PRODUCER = 'producer';

const setText = (set: Set<number>) => `{${set.sort().join(',')}}`;

function partitionText(p: Partition): string {
  const leader = p.leader === NO_LEADER ? 'none' : String(p.leader);
  const elr = p.elr.isEmpty() ? '' : ` elr=${setText(p.elr)}`;
  return `leader=${leader} e${p.leaderEpoch} isr=${setText(p.isr)}${elr}${p.recovering ? ' RECOVERING' : ''}`;
}

/**
 * What the controller and the leaders did as a consequence of the step, for diagrams. A partition change
 * is shown going to the new leader, else the old one, else `about` (the broker the step is about).
 */
function consequences(before: S, after: S, about = NO_LEADER): Message[] {
  const out: Message[] = [];
  const p = after.partition;
  if (p.partitionEpoch !== before.partition.partitionEpoch) {
    const to = p.leader !== NO_LEADER ? p.leader : before.partition.leader !== NO_LEADER ? before.partition.leader : about;
    if (to !== NO_LEADER) out.push({ from: CONTROLLER, to: brokerName(to), label: `PartitionChange ${partitionText(p)}` });
  }
  for (const v of after.ghost.acked.subtract(before.ghost.acked).sort()) {
    const from = after.brokers.findKey((x, b) => actsAsLeader(after, b) && x.log.some((e) => e.value === v));
    out.push({ from: from === undefined ? CONTROLLER : brokerName(from), to: PRODUCER, label: `ProduceResponse v${v}` });
  }
  return out;
}

/**
 * A crashed broker stops heartbeating: the controller fences it (`handleBrokerFenced`). It restarts connected,
 * and out of any controlled shutdown it had begun (a new registration clears it, KIP-841).
 */
function crashed(s: S, cfg: Config, b: number): S {
  return fenceBroker(s.set('cut', idSet(maskOf(s.cut) & ~bit(b))).set('shuttingDown', idSet(maskOf(s.shuttingDown) & ~bit(b))), cfg, b);
}

export function replicationActions(cfg: Config): Action<S, any>[] {
  const brokers = cfg.replicas;
  // Parameter domains are built once; a domain is empty while its budget is spent, so guards run only
  // where they can pass.
  const ONE: readonly One[] = brokers.map((broker) => ({ broker }));
  const PAIRS: readonly (readonly Pair[])[] = brokers.map((leader) => brokers.filter((f) => f !== leader).map((follower) => ({ leader, follower })));
  const CUTS: readonly Cut[] = subsetsOf(brokers).map((cut) => ({ brokers: cut }));
  const NOTHING: readonly never[] = [];
  // CRASHES[b][n]: every flushed prefix of an n-record log.
  const CRASHES: readonly (readonly (readonly Crash[])[])[] = brokers.map((broker) =>
    range(cfg.values + 1).map((n) => range(n + 1).map((keep) => ({ broker, keep }))),
  );
  const each = () => ONE;
  const acrossEpochs = cfg.mutation === 'fetchAcrossEpochs';
  // The controller's leader, running and connected: the only broker whose AlterPartition can succeed.
  const controllerLeads = (v: Snapshot, l: number) => v.leader === l && v.running[l]! && !inMask(v.cut, l);
  const ledPairs = (s: S) => (s.partition.leader === NO_LEADER ? NOTHING : PAIRS[s.partition.leader]!);

  const produce: Action<S, One> = {
    name: 'ProduceRecord',
    params: (s) => (s.ghost.produced < cfg.values ? ONE : NOTHING),
    // A producer with metadata naming `broker` as leader: any broker that believes it leads, the ghost
    // included ("producers would only refresh metadata periodically", KIP-250 thread, Guozhang Wang).
    enabled: (s, { broker }) => {
      const v = snapshotOf(s);
      if (!v.running[broker] || v.viewLeader[broker] !== broker) return false;
      return s.ghost.produced < cfg.values && acceptsAppend(cfg, countOf(v.viewIsr[broker]!));
    },
    next: (s, { broker }) => {
      const value = s.ghost.produced + 1;
      const entry = Entry({ epoch: viewOf(s, broker).leaderEpoch, value });
      const t = updateBroker(s, broker, (b) => b.set('log', b.log.push(entry))).set('ghost', s.ghost.set('produced', value));
      return settle(t, cfg);
    },
    describe: (s, { broker }, t) => ({
      actor: PRODUCER,
      sends: [{ from: PRODUCER, to: brokerName(broker), label: `Produce v${s.ghost.produced + 1} acks=${cfg.acks}` }, ...consequences(s, t)],
    }),
  };

  const fetchRecords: Action<S, One> = {
    name: 'FetchRecords',
    params: each,
    enabled: (s, { broker }) => fetchSource(s, broker, acrossEpochs) !== NO_LEADER,
    next: (s, { broker }) => settle(fetch(s, broker, fetchSource(s, broker, acrossEpochs)), cfg),
    describe: (s, { broker }, t) => {
      const l = fetchSource(s, broker, acrossEpochs);
      const mine = s.brokers.get(broker)!.log;
      const theirs = s.brokers.get(l)!.log;
      const p = commonPrefix(mine, theirs);
      const next = theirs.get(p);
      return {
        actor: brokerName(broker),
        sends: [
          { from: brokerName(broker), to: brokerName(l), label: `Fetch e${viewOf(s, broker).leaderEpoch} offset=${mine.size}` },
          ...consequences(s, t),
        ],
        receives: [
          { from: brokerName(l), to: brokerName(broker), label: next ? `record @${p} (e${next.epoch}, v${next.value})` : `diverging epoch, end offset ${p}` },
        ],
        marks: p < mine.size ? [`truncate to offset ${p}`] : [],
      };
    },
  };

  const shrinkIsr: Action<S, Pair> = {
    name: 'ShrinkIsr',
    params: (s) => (s.faults.isrShrinks < cfg.maxIsrShrinks ? ledPairs(s) : NOTHING),
    // replica.lag.time.max.ms: any follower may stall, whatever it holds.
    enabled: (s, { leader, follower }) => {
      const v = snapshotOf(s);
      return controllerLeads(v, leader) && inMask(v.isr, follower) && s.faults.isrShrinks < cfg.maxIsrShrinks;
    },
    next: (s, { follower }) =>
      settle(alterIsr(s, cfg, maskOf(s.partition.isr) & ~bit(follower)).set('faults', s.faults.set('isrShrinks', s.faults.isrShrinks + 1)), cfg),
    describe: (s, { leader, follower }, t) => alterPartitionEvents(s, t, leader, idSet(maskOf(s.partition.isr) & ~bit(follower))),
  };

  const expandIsr: Action<S, Pair> = {
    name: 'ExpandIsr',
    params: ledPairs,
    // Partition.maybeExpandIsr: the follower has caught up to the high watermark and fetched in this epoch
    // (KIP-320); KIP-841/903: the controller accepts only an unfenced follower.
    enabled: (s, { leader, follower }) => {
      const v = snapshotOf(s);
      // KIP-704: the controller rejects an ISR expansion while the partition is RECOVERING.
      if (!controllerLeads(v, leader) || inMask(v.isr, follower)) return false;
      if (s.partition.recovering && cfg.mutation !== 'expandWhileRecovering') return false;
      if (!v.running[follower] || inMask((cfg.mutation === 'expandFencedFollower' ? 0 : v.fenced) | v.cut, follower)) return false;
      // KIP-841: nor a follower in controlled shutdown. KIP-903 (the AlterPartition carries each new member's
      // broker epoch and the controller rejects a stale one) needs no guard here: the leader judges a follower
      // by its current log, never by a fetch state left from an earlier incarnation that lost data.
      if (s.shuttingDown.has(follower) && cfg.mutation !== 'expandShuttingDownFollower') return false;
      const mine = v.logs[follower]!;
      const theirs = v.logs[leader]!;
      const caughtUp = mine.size >= Math.max(v.hw[leader]!, epochStartOffset(theirs, v.leaderEpoch)) || cfg.mutation === 'expandBeforeCaughtUp';
      return caughtUp && isPrefixOf(mine, theirs);
    },
    next: (s, { follower }) => settle(alterIsr(s, cfg, maskOf(s.partition.isr) | bit(follower)), cfg),
    describe: (s, { leader, follower }, t) => alterPartitionEvents(s, t, leader, idSet(maskOf(s.partition.isr) | bit(follower))),
  };

  const completeRecovery: Action<S, One> = {
    name: 'CompleteRecovery',
    params: (s) => (s.partition.recovering && s.partition.leader !== NO_LEADER ? [ONE[s.partition.leader]!] : NOTHING),
    // KIP-704: a leader elected uncleanly finds the partition RECOVERING; once its log is recovered it sends an
    // AlterPartition with LeaderRecoveryState RECOVERED and its ISR unchanged, and only then may the ISR grow.
    enabled: (s, { broker }) => s.partition.recovering && controllerLeads(snapshotOf(s), broker),
    next: (s) => settle(s.set('partition', s.partition.set('recovering', false).set('partitionEpoch', s.partition.partitionEpoch + 1)), cfg),
    describe: (s, { broker }, t) => alterPartitionEvents(s, t, broker, s.partition.isr),
  };

  const controlledShutdown: Action<S, One> = {
    name: 'ControlledShutdown',
    params: (s) => (s.faults.cleanShutdowns < cfg.maxCleanShutdowns ? ONE : NOTHING),
    // The broker asks to shut down (BrokerHeartbeat wantShutDown); the controller must be reachable.
    enabled: (s, { broker }) => {
      const v = snapshotOf(s);
      return v.running[broker]! && !inMask(v.cut, broker) && !s.shuttingDown.has(broker) && s.faults.cleanShutdowns < cfg.maxCleanShutdowns;
    },
    next: (s, { broker }) =>
      settle(beginControlledShutdown(s.set('faults', s.faults.set('cleanShutdowns', s.faults.cleanShutdowns + 1)), cfg, broker), cfg),
    describe: (s, { broker }, t) => ({
      actor: brokerName(broker),
      sends: [{ from: brokerName(broker), to: CONTROLLER, label: 'BrokerHeartbeat wantShutDown' }, ...consequences(s, t, broker)],
      marks: ['controlled shutdown begins'],
    }),
  };

  const cleanShutdown: Action<S, One> = {
    name: 'CleanShutdown',
    params: (s) => (s.shuttingDown.isEmpty() ? NOTHING : ONE),
    // Once the controller has moved its leadership and ISR membership away (shouldShutDown), the broker
    // stops, writes its CleanShutdownFile (KIP-966) and is fenced.
    enabled: (s, { broker }) => s.shuttingDown.has(broker) && snapshotOf(s).running[broker]! && !inMask(snapshotOf(s).cut, broker),
    next: (s, { broker }) => {
      const t = updateBroker(s, broker, (b) => stopped(b, b.log, true)).set('shuttingDown', idSet(maskOf(s.shuttingDown) & ~bit(broker)));
      return settle(fenceBroker(t, cfg, broker), cfg);
    },
    describe: (s, { broker }, t) => ({
      actor: brokerName(broker),
      sends: [{ from: brokerName(broker), to: CONTROLLER, label: 'ControlledShutdown' }, ...consequences(s, t)],
      marks: ['clean shutdown', 'fenced'],
    }),
  };

  const uncleanShutdown: Action<S, Crash> = {
    name: 'UncleanShutdown',
    // `keep` is the flushed prefix: "unflushed data in the OS page cache is lost" (KIP-966 motivation). No
    // CleanShutdownFile is written.
    params: (s) =>
      s.faults.uncleanShutdowns < cfg.maxUncleanShutdowns
        ? brokers.flatMap((broker) => (snapshotOf(s).running[broker] ? CRASHES[broker]![snapshotOf(s).logs[broker]!.size]! : NOTHING))
        : NOTHING,
    enabled: (s, { broker }) => snapshotOf(s).running[broker]! && s.faults.uncleanShutdowns < cfg.maxUncleanShutdowns,
    next: (s, { broker, keep }) => {
      const old = s.brokers.get(broker)!;
      const lost = keep < old.log.size;
      const t = s
        .set('brokers', s.brokers.set(broker, stopped(old, old.log.slice(0, keep), false)))
        .set(
          'faults',
          s.faults.withMutations((f) => f.set('uncleanShutdowns', f.uncleanShutdowns + 1).set('dataLossShutdowns', f.dataLossShutdowns + (lost ? 1 : 0))),
        );
      return settle(crashed(t, cfg, broker), cfg);
    },
    describe: (s, { broker, keep }, t) => {
      const lost = s.brokers.get(broker)!.log.size - keep;
      return {
        actor: brokerName(broker),
        sends: consequences(s, t, broker),
        marks: ['unclean shutdown', lost > 0 ? `lost ${lost} unflushed record${lost > 1 ? 's' : ''}` : 'nothing lost', 'fenced'],
      };
    },
  };

  const replaceDisk: Action<S, One> = {
    name: 'ReplaceDisk',
    params: (s) => (s.faults.emptyDisks < cfg.maxEmptyDisks ? ONE : NOTHING),
    // KAFKA-13872: a hardware failure, and the broker comes back under the same id with an empty disk.
    enabled: (s, { broker }) => snapshotOf(s).running[broker]! && s.faults.emptyDisks < cfg.maxEmptyDisks,
    next: (s, { broker }) => {
      const t = updateBroker(s, broker, (b) => stopped(b, EMPTY_LOG, false)).set('faults', s.faults.set('emptyDisks', s.faults.emptyDisks + 1));
      return settle(crashed(t, cfg, broker), cfg);
    },
    describe: (s, { broker }, t) => ({ actor: brokerName(broker), sends: consequences(s, t, broker), marks: ['hardware failure', 'empty disk', 'fenced'] }),
  };

  // KIP-966: the broker sends the epoch from its CleanShutdownFile as PreviousBrokerEpoch; see registerBroker.
  const startBroker: Action<S, One> = {
    name: 'StartBroker',
    params: each,
    enabled: (s, { broker }) => !snapshotOf(s).running[broker],
    next: (s, { broker }) => {
      const clean = s.brokers.get(broker)!.cleanShutdownFile;
      const t = updateBroker(s, broker, (b) => b.set('running', true).set('cleanShutdownFile', false));
      return settle(registerBroker(t, cfg, broker, clean), cfg);
    },
    describe: (s, { broker }, t) => {
      const clean = s.brokers.get(broker)!.cleanShutdownFile;
      const marks = ['restart', 'unfenced'];
      if (cfg.elr && restartLooksUnclean(cfg, clean)) marks.splice(1, 0, 'handled as an unclean shutdown');
      return {
        actor: brokerName(broker),
        sends: [{ from: brokerName(broker), to: CONTROLLER, label: `BrokerRegistration cleanShutdown=${clean}` }, ...consequences(s, t, broker)],
        marks,
      };
    },
  };

  const partitionNetwork: Action<S, Cut> = {
    name: 'PartitionNetwork',
    params: (s) => (s.cut.isEmpty() && s.faults.partitions < cfg.maxPartitions ? CUTS : NOTHING),
    // KIP-250 thread (Guozhang Wang): "a network partition and both A and B are fenced off". The cut-off
    // brokers keep their last metadata and reach only each other; their heartbeats stop, so the controller
    // fences each, one after another.
    enabled: (s, { brokers: cut }) =>
      s.cut.isEmpty() && s.faults.partitions < cfg.maxPartitions && cut.every((b) => snapshotOf(s).running[b]!),
    next: (s, { brokers: cut }) => {
      let t = s
        .set('cut', idSet(cut.reduce((m, b) => m | bit(b), 0)))
        .set(
          'faults',
          s.faults.withMutations((f) => f.set('partitions', f.partitions + 1).set('isolations', f.isolations + (cfg.countIsolations ? cut.size : 0))),
        );
      for (const b of cut) t = updateBroker(t, b, (x) => x.set('view', s.partition));
      for (const b of cut) t = fenceBroker(t, cfg, b);
      return settle(t, cfg);
    },
    describe: (s, { brokers: cut }, t) => ({
      actor: CONTROLLER,
      sends: consequences(s, t),
      marks: [`network partition cuts off ${cut.map(brokerName).join(', ')}`, `fences ${cut.map(brokerName).join(', ')}`],
    }),
  };

  // Heartbeats resume and the controller unfences the brokers; they learn the current metadata.
  const healNetwork: Action<S> = {
    name: 'HealNetwork',
    enabled: (s) => !s.cut.isEmpty(),
    next: (s) => {
      let t = s.set('cut', idSet(0));
      for (const b of s.cut.sort()) {
        t = updateBroker(t, b, (x) => x.set('view', null));
        if (t.brokers.get(b)!.running) t = unfenceBroker(t, cfg, b);
      }
      return settle(t, cfg);
    },
    describe: (s, _p, t) => ({
      actor: CONTROLLER,
      sends: [
        ...s.cut.sort().map((b) => ({ from: CONTROLLER, to: brokerName(b), label: `metadata ${partitionText(t.partition)}` })),
        ...consequences(s, t),
      ],
      marks: ['network heals', `unfences ${s.cut.sort().map(brokerName).join(', ')}`],
    }),
  };

  const preferredElection: Action<S> = {
    name: 'ElectPreferredLeader',
    // kafka-leader-election --election-type PREFERRED (ElectLeaders, Election.PREFERRED), or the auto
    // leader rebalance: the admin asks whenever it likes.
    enabled: (s) => preferredElectionAllowed(s, cfg),
    next: (s) => settle(electPreferred(s, cfg), cfg),
    describe: (s, _p, t) => ({
      actor: CONTROLLER,
      sends: [{ from: 'admin', to: CONTROLLER, label: 'ElectLeaders PREFERRED' }, ...consequences(s, t)],
      marks: [`preferred leader ${brokerName(cfg.replicas[0]!)} elected`],
    }),
  };

  const unclean = (name: UncleanPath): Action<S, One> => ({
    name,
    params: (s) => (s.partition.leader === NO_LEADER ? ONE : NOTHING),
    enabled: (s, { broker }) => uncleanCandidates(s, cfg, name).includes(broker),
    next: (s, { broker }) => settle(electUnclean(s, cfg, broker), cfg),
    describe: (s, { broker }, t) => ({
      actor: CONTROLLER,
      sends: [
        ...(name === 'UncleanRecovery'
          ? cfg.replicas.filter((r) => !s.fenced.has(r)).map((r) => ({ from: CONTROLLER, to: brokerName(r), label: 'GetReplicaLogInfo' }))
          : []),
        ...consequences(s, t),
      ],
      marks: [`unclean election of ${brokerName(broker)}`],
    }),
  });

  // The order breaks ties between equally short counterexamples: with the network partition first, the
  // shortest history in which a cut-off leader acknowledges is the one where it acks as a ghost.
  const actions: Action<S, any>[] = [
    partitionNetwork,
    healNetwork,
    produce,
    fetchRecords,
    shrinkIsr,
    expandIsr,
    completeRecovery,
    controlledShutdown,
    cleanShutdown,
    uncleanShutdown,
    replaceDisk,
    startBroker,
    ...(cfg.preferredElection === 'off' ? [] : [preferredElection]),
    unclean('ElectUncleanLeader'),
    unclean('UncleanRecovery'),
  ];
  return actions.map((a) => ({ ...a, next: (s: S, p: any) => observeMilestones(s, a.next(s, p), a.name) }));
}

/** Records the witness milestones a step reached (observer variables: no guard reads them). */
function observeMilestones(before: S, after: S, action: string): S {
  let g = after.ghost;
  const acked = g.acked;
  if (!acked.isEmpty() && !g.ackedCopyCrashed) {
    const erased = after.brokers.some((b, i) => {
      const was = before.brokers.get(i)!;
      return was.running && !b.running && acked.some((v) => was.log.some((e) => e.value === v) && !b.log.some((e) => e.value === v));
    });
    if (erased) g = g.set('ackedCopyCrashed', true);
  }
  if (!g.ghostAppended && after.ghost.produced > before.ghost.produced) {
    if (after.cut.some((b) => after.brokers.get(b)!.log.size > before.brokers.get(b)!.log.size)) g = g.set('ghostAppended', true);
  }
  const p = before.partition;
  const q = after.partition;
  if (q.leaderEpoch !== p.leaderEpoch && q.leader !== NO_LEADER) {
    const lacks = (b: number) => acked.some((v) => !after.brokers.get(b)!.log.some((e) => e.value === v));
    if (!acked.isEmpty() && q.isr.some(lacks) && !lacks(q.leader)) g = g.set('electionPastLaggingIsr', true);
    if (!acked.isEmpty() && p.isr.isEmpty() && p.elr.has(q.leader)) g = g.set('elrElectionAfterAck', true);
    // The crash of a leader changes the leader in the same step; that counts too.
    if (g.ackedCopyCrashed) g = g.set('electionAfterAckedCopyCrashed', true);
    if (action === 'ElectPreferredLeader') g = g.set('preferredElected', true);
  }
  return g === after.ghost ? after : after.set('ghost', g);
}

function alterPartitionEvents(s: S, t: S, leader: number, isr: Set<number>): StepEvents {
  return {
    actor: brokerName(leader),
    sends: [{ from: brokerName(leader), to: CONTROLLER, label: `AlterPartition isr=${setText(isr)} partitionEpoch=${s.partition.partitionEpoch}` }],
    receives: [{ from: CONTROLLER, to: brokerName(leader), label: `AlterPartitionResponse ${partitionText(t.partition)}` }],
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Every non-empty subset of `xs`, smallest first, each in ascending order. */
function subsetsOf(xs: readonly number[]): List<number>[] {
  const out: List<number>[] = [];
  for (let mask = 1; mask < 1 << xs.length; mask++) out.push(List(xs.filter((_, i) => mask & (1 << i))));
  return out.sort((a, b) => a.size - b.size);
}

/**
 * The actions of the replication model. Each action's `step` writes its effects into one copy of the
 * state (`withMutations`), and every step ends with `settle`, so a leader's high watermark and
 * acknowledgements always reflect the step that changed them. Every fault spends a budget.
 */
import { List } from 'immutable';
import type { Action, ActionParams, Message, StepEvents } from '../spec.ts';
import { actsAsLeader, fetch, fetchSource, settle } from './broker.ts';
import { alterIsr, beginControlledShutdown, electPreferred, electUnclean, fenceBroker, preferredElectionAllowed, registerBroker, restartLooksUnclean, unfenceBroker, uncleanCandidates, type UncleanPath } from './controller.ts';
import { commonPrefix, epochStartOffset, holdsValue, isPrefixOf } from './log.ts';
import { bit, countOf, idsOf, inMask, maskOf } from './ids.ts';
import { type Snapshot, snapshotOf } from './snapshot.ts';
import { acceptsAppend } from './producer.ts';
import { brokerName, type Config, type Log, NO_LEADER, type Partition, type ReplicationState, setBroker, stopBroker, viewOf } from './state.ts';

type S = ReplicationState;
type One = { broker: number };
type Pair = { leader: number; follower: number };
type Crash = { broker: number; keep: number };
type Cut = { brokers: List<number> };

const CONTROLLER = 'controller';
const PRODUCER = 'producer';

/** A set of broker ids in ascending order (as every set of ids iterates). */
const setText = (set: Iterable<number>) => `{${[...set].join(',')}}`;

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
  for (const v of after.ghost.acked.subtract(before.ghost.acked)) {
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
  return fenceBroker(s.set('cut', s.cut.remove(b)).set('shuttingDown', s.shuttingDown.remove(b)), cfg, b);
}

/**
 * An action whose `step` writes the step's effects into `m`, a copy of the state being written in place
 * (`withMutations`), and returns it (`before` is the state it was copied from, unchanged: guards' readings
 * such as `snapshotOf` are taken there); `replicationActions` makes its `next`: the step, `settle`, and the
 * witness milestones, all on that one copy.
 */
type Step<P extends ActionParams = ActionParams> = Omit<Action<S, P>, 'next'> & { readonly step: (m: S, p: P, before: S) => S };

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
  const ledPairs = (s: S) => {
    const leader = snapshotOf(s).leader;
    return leader === NO_LEADER ? NOTHING : PAIRS[leader]!;
  };

  const produce: Step<One> = {
    name: 'ProduceRecord',
    params: (s) => (snapshotOf(s).produced < cfg.values ? ONE : NOTHING),
    // A producer with metadata naming `broker` as leader: any broker that believes it leads, the ghost
    // included ("producers would only refresh metadata periodically", KIP-250 thread, Guozhang Wang).
    enabled: (s, { broker }) => {
      const v = snapshotOf(s);
      if (!v.running[broker] || v.viewLeader[broker] !== broker) return false;
      return v.produced < cfg.values && acceptsAppend(cfg, countOf(v.viewIsr[broker]!));
    },
    step: (m, { broker }) => {
      const value = m.ghost.produced + 1;
      const entry = { epoch: viewOf(m, broker).leaderEpoch, value };
      return m.updateIn(['brokers', broker, 'log'], (log: Log) => log.push(entry)).setIn(['ghost', 'produced'], value);
    },
    describe: (s, { broker }, t) => ({
      actor: PRODUCER,
      sends: [{ from: PRODUCER, to: brokerName(broker), label: `Produce v${s.ghost.produced + 1} acks=${cfg.acks}` }, ...consequences(s, t)],
    }),
  };

  const fetchRecords: Step<One> = {
    name: 'FetchRecords',
    params: each,
    enabled: (s, { broker }) => fetchSource(s, broker, acrossEpochs) !== NO_LEADER,
    step: (m, { broker }, before) => fetch(m, broker, fetchSource(before, broker, acrossEpochs)),
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

  const shrinkIsr: Step<Pair> = {
    name: 'ShrinkIsr',
    params: (s) => (snapshotOf(s).isrShrinks < cfg.maxIsrShrinks ? ledPairs(s) : NOTHING),
    // replica.lag.time.max.ms: any follower may stall, whatever it holds.
    enabled: (s, { leader, follower }) => {
      const v = snapshotOf(s);
      return controllerLeads(v, leader) && inMask(v.isr, follower) && v.isrShrinks < cfg.maxIsrShrinks;
    },
    step: (m, { follower }) => alterIsr(m, cfg, maskOf(m.partition.isr) & ~bit(follower)).updateIn(['faults', 'isrShrinks'], (n: number) => n + 1),
    describe: (s, { leader, follower }, t) => alterPartitionEvents(s, t, leader, idsOf(maskOf(s.partition.isr) & ~bit(follower))),
  };

  const expandIsr: Step<Pair> = {
    name: 'ExpandIsr',
    params: ledPairs,
    // Partition.maybeExpandIsr: the follower has caught up to the high watermark and fetched in this epoch
    // (KIP-320); KIP-841/903: the controller accepts only an unfenced follower.
    enabled: (s, { leader, follower }) => {
      const v = snapshotOf(s);
      // KIP-704: the controller rejects an ISR expansion while the partition is RECOVERING.
      if (!controllerLeads(v, leader) || inMask(v.isr, follower)) return false;
      if (v.recovering && cfg.mutation !== 'expandWhileRecovering') return false;
      if (!v.running[follower] || inMask((cfg.mutation === 'expandFencedFollower' ? 0 : v.fenced) | v.cut, follower)) return false;
      // KIP-841: nor a follower in controlled shutdown. KIP-903 (the AlterPartition carries each new member's
      // broker epoch and the controller rejects a stale one) needs no guard here: the leader judges a follower
      // by its current log, never by a fetch state left from an earlier incarnation that lost data.
      if (inMask(v.shuttingDown, follower) && cfg.mutation !== 'expandShuttingDownFollower') return false;
      const mine = v.logs[follower]!;
      const theirs = v.logs[leader]!;
      const caughtUp = mine.size >= Math.max(v.hw[leader]!, epochStartOffset(theirs, v.leaderEpoch)) || cfg.mutation === 'expandBeforeCaughtUp';
      return caughtUp && isPrefixOf(mine, theirs);
    },
    step: (m, { follower }) => alterIsr(m, cfg, maskOf(m.partition.isr) | bit(follower)),
    describe: (s, { leader, follower }, t) => alterPartitionEvents(s, t, leader, idsOf(maskOf(s.partition.isr) | bit(follower))),
  };

  const completeRecovery: Step<One> = {
    name: 'CompleteRecovery',
    params: (s) => {
      const v = snapshotOf(s);
      return v.recovering && v.leader !== NO_LEADER ? [ONE[v.leader]!] : NOTHING;
    },
    // KIP-704: a leader elected uncleanly finds the partition RECOVERING; once its log is recovered it sends an
    // AlterPartition with LeaderRecoveryState RECOVERED and its ISR unchanged, and only then may the ISR grow.
    enabled: (s, { broker }) => snapshotOf(s).recovering && controllerLeads(snapshotOf(s), broker),
    step: (m) => m.setIn(['partition', 'recovering'], false).updateIn(['partition', 'partitionEpoch'], (e: number) => e + 1),
    describe: (s, { broker }, t) => alterPartitionEvents(s, t, broker, s.partition.isr),
  };

  const controlledShutdown: Step<One> = {
    name: 'ControlledShutdown',
    params: (s) => (snapshotOf(s).cleanShutdowns < cfg.maxCleanShutdowns ? ONE : NOTHING),
    // The broker asks to shut down (BrokerHeartbeat wantShutDown); the controller must be reachable.
    enabled: (s, { broker }) => {
      const v = snapshotOf(s);
      return v.running[broker]! && !inMask(v.cut, broker) && !inMask(v.shuttingDown, broker) && v.cleanShutdowns < cfg.maxCleanShutdowns;
    },
    step: (m, { broker }) => beginControlledShutdown(m.updateIn(['faults', 'cleanShutdowns'], (n: number) => n + 1), cfg, broker),
    describe: (s, { broker }, t) => ({
      actor: brokerName(broker),
      sends: [{ from: brokerName(broker), to: CONTROLLER, label: 'BrokerHeartbeat wantShutDown' }, ...consequences(s, t, broker)],
      marks: ['controlled shutdown begins'],
    }),
  };

  const cleanShutdown: Step<One> = {
    name: 'CleanShutdown',
    params: (s) => (snapshotOf(s).shuttingDown === 0 ? NOTHING : ONE),
    // Once the controller has moved its leadership and ISR membership away (shouldShutDown), the broker
    // stops, writes its CleanShutdownFile (KIP-966) and is fenced.
    enabled: (s, { broker }) => {
      const v = snapshotOf(s);
      return inMask(v.shuttingDown, broker) && v.running[broker]! && !inMask(v.cut, broker);
    },
    step: (m, { broker }) => {
      const t = stopBroker(m, broker, m.brokers.get(broker)!.log, true);
      return fenceBroker(t.set('shuttingDown', t.shuttingDown.remove(broker)), cfg, broker);
    },
    describe: (s, { broker }, t) => ({
      actor: brokerName(broker),
      sends: [{ from: brokerName(broker), to: CONTROLLER, label: 'ControlledShutdown' }, ...consequences(s, t)],
      marks: ['clean shutdown', 'fenced'],
    }),
  };

  const uncleanShutdown: Step<Crash> = {
    name: 'UncleanShutdown',
    // `keep` is the flushed prefix: "unflushed data in the OS page cache is lost" (KIP-966 motivation). No
    // CleanShutdownFile is written.
    params: (s) => {
      const v = snapshotOf(s);
      return v.uncleanShutdowns < cfg.maxUncleanShutdowns ? brokers.flatMap((broker) => (v.running[broker] ? CRASHES[broker]![v.leo[broker]!]! : NOTHING)) : NOTHING;
    },
    enabled: (s, { broker }) => snapshotOf(s).running[broker]! && snapshotOf(s).uncleanShutdowns < cfg.maxUncleanShutdowns,
    step: (m, { broker, keep }) => {
      const log = m.brokers.get(broker)!.log;
      const lost = keep < log.size;
      const t = stopBroker(m, broker, log.slice(0, keep), false)
        .updateIn(['faults', 'uncleanShutdowns'], (n: number) => n + 1)
        .updateIn(['faults', 'dataLossShutdowns'], (n: number) => n + (lost ? 1 : 0));
      return crashed(t, cfg, broker);
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

  const replaceDisk: Step<One> = {
    name: 'ReplaceDisk',
    params: (s) => (snapshotOf(s).emptyDisks < cfg.maxEmptyDisks ? ONE : NOTHING),
    // KAFKA-13872: a hardware failure, and the broker comes back under the same id with an empty disk.
    enabled: (s, { broker }) => snapshotOf(s).running[broker]! && snapshotOf(s).emptyDisks < cfg.maxEmptyDisks,
    step: (m, { broker }) => {
      const t = stopBroker(m, broker, m.brokers.get(broker)!.log.clear(), false).updateIn(['faults', 'emptyDisks'], (n: number) => n + 1);
      return crashed(t, cfg, broker);
    },
    describe: (s, { broker }, t) => ({ actor: brokerName(broker), sends: consequences(s, t, broker), marks: ['hardware failure', 'empty disk', 'fenced'] }),
  };

  // KIP-966: the broker sends the epoch from its CleanShutdownFile as PreviousBrokerEpoch; see registerBroker.
  const startBroker: Step<One> = {
    name: 'StartBroker',
    params: each,
    enabled: (s, { broker }) => !snapshotOf(s).running[broker],
    step: (m, { broker }) => {
      const clean = m.brokers.get(broker)!.cleanShutdownFile;
      return registerBroker(setBroker(m, broker, { running: true, cleanShutdownFile: false }), cfg, broker, clean);
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

  const partitionNetwork: Step<Cut> = {
    name: 'PartitionNetwork',
    params: (s) => (snapshotOf(s).cut === 0 && snapshotOf(s).partitions < cfg.maxPartitions ? CUTS : NOTHING),
    // KIP-250 thread (Guozhang Wang): "a network partition and both A and B are fenced off". The cut-off
    // brokers keep their last metadata and reach only each other; their heartbeats stop, so the controller
    // fences each, one after another.
    enabled: (s, { brokers: cut }) => {
      const v = snapshotOf(s);
      return v.cut === 0 && v.partitions < cfg.maxPartitions && cut.every((b) => v.running[b]!);
    },
    step: (m, { brokers: cut }) => {
      let t = m
        .set('cut', cut)
        .updateIn(['faults', 'partitions'], (n: number) => n + 1)
        .updateIn(['faults', 'isolations'], (n: number) => n + (cfg.countIsolations ? cut.size : 0));
      // Each cut-off broker keeps the partition record as it was when the network split.
      for (const b of cut) t = setBroker(t, b, { view: t.partition });
      for (const b of cut) t = fenceBroker(t, cfg, b);
      return t;
    },
    describe: (s, { brokers: cut }, t) => ({
      actor: CONTROLLER,
      sends: consequences(s, t),
      marks: [`network partition cuts off ${cut.map(brokerName).join(', ')}`, `fences ${cut.map(brokerName).join(', ')}`],
    }),
  };

  // Heartbeats resume and the controller unfences the brokers; they learn the current metadata.
  const healNetwork: Step = {
    name: 'HealNetwork',
    enabled: (s) => snapshotOf(s).cut !== 0,
    step: (m) => {
      const cut = idsOf(maskOf(m.cut));
      let t = m.set('cut', idsOf(0));
      for (const b of cut) {
        t = setBroker(t, b, { view: null });
        if (t.brokers.get(b)!.running) t = unfenceBroker(t, cfg, b);
      }
      return t;
    },
    describe: (s, _p, t) => ({
      actor: CONTROLLER,
      sends: [
        ...s.cut.toArray().map((b) => ({ from: CONTROLLER, to: brokerName(b), label: `metadata ${partitionText(t.partition)}` })),
        ...consequences(s, t),
      ],
      marks: ['network heals', `unfences ${s.cut.toArray().map(brokerName).join(', ')}`],
    }),
  };

  const preferredElection: Step = {
    name: 'ElectPreferredLeader',
    // kafka-leader-election --election-type PREFERRED (ElectLeaders, Election.PREFERRED), or the auto
    // leader rebalance: the admin asks whenever it likes.
    enabled: (s) => preferredElectionAllowed(s, cfg),
    step: (m) => electPreferred(m, cfg),
    describe: (s, _p, t) => ({
      actor: CONTROLLER,
      sends: [{ from: 'admin', to: CONTROLLER, label: 'ElectLeaders PREFERRED' }, ...consequences(s, t)],
      marks: [`preferred leader ${brokerName(cfg.replicas[0]!)} elected`],
    }),
  };

  const unclean = (name: UncleanPath): Step<One> => ({
    name,
    params: (s) => (snapshotOf(s).leader === NO_LEADER ? ONE : NOTHING),
    enabled: (s, { broker }) => uncleanCandidates(s, cfg, name).includes(broker),
    step: (m, { broker }) => electUnclean(m, cfg, broker),
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
  const steps: Step<any>[] = [
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
  const fair = fairness();
  return steps.map(({ step, ...a }) => ({
    ...a,
    ...fair[a.name],
    next: (s: S, p: any) =>
      s.withMutations((m) => {
        if (observeMilestones(s, settle(step(m, p, s), cfg), a.name) !== m) throw new Error(`${a.name}: a step must write into the copy it is given`);
      }),
  }));
}

/**
 * Fairness for the liveness property (`WritesAnswered`): the brokers' and the controller's periodic work is
 * weakly fair, per broker, and a fault is never forced; with its budget spent, no fault is permanent.
 * - FetchRecords: `ReplicaFetcherThread` fetches from the leader for as long as the follower has something
 *   to fetch. The leader's high watermark and acknowledgements (`Partition.maybeIncrementLeaderHW`,
 *   `DelayedProduce`) follow in the same step (`settle`), so they need no fairness of their own.
 * - ExpandIsr: `Partition.maybeExpandIsr` runs on every fetch of a caught-up follower (per follower).
 * - CompleteRecovery: the KIP-704 leader reports RECOVERED once its log is recovered.
 * - CleanShutdown: a controlled shutdown that has begun completes (`BrokerLifecycleManager`).
 * - StartBroker, HealNetwork: a stopped broker comes back and a network partition heals (no permanent fault).
 * Unfair: producers (ProduceRecord), the faults (ShrinkIsr here is a follower stall, the fault
 * replica.lag.time.max.ms reacts to; PartitionNetwork, ControlledShutdown, UncleanShutdown, ReplaceDisk),
 * the admin's preferred election and unclean elections (an operator's or the strategy's choice to lose data).
 */
function fairness(): Readonly<Record<string, Pick<Action<S, any>, 'fairness' | 'fairnessKey'>>> {
  const perBroker = { fairness: 'weak', fairnessKey: ({ broker }: One) => String(broker) } as const;
  return {
    FetchRecords: perBroker,
    ExpandIsr: { fairness: 'weak', fairnessKey: ({ follower }: Pair) => String(follower) },
    CompleteRecovery: { fairness: 'weak' },
    CleanShutdown: perBroker,
    StartBroker: perBroker,
    HealNetwork: { fairness: 'weak' },
  };
}

type Milestone = 'ackedCopyCrashed' | 'ghostAppended' | 'electionPastLaggingIsr' | 'elrElectionAfterAck' | 'electionAfterAckedCopyCrashed' | 'preferredElected';

/** Records the witness milestones a step reached (observer variables: no guard reads them). */
function observeMilestones(before: S, after: S, action: string): S {
  let t = after;
  const mark = (flag: Milestone) => {
    if (!t.ghost[flag]) t = t.setIn(['ghost', flag], true);
  };
  const acked = t.ghost.acked;
  if (!acked.isEmpty() && !t.ghost.ackedCopyCrashed) {
    const erased = t.brokers.some((b, i) => {
      const was = before.brokers.get(i)!;
      return was.running && !b.running && acked.some((v) => holdsValue(was.log, v) && !holdsValue(b.log, v));
    });
    if (erased) mark('ackedCopyCrashed');
  }
  if (!t.ghost.ghostAppended && t.ghost.produced > before.ghost.produced) {
    if (t.cut.some((b) => t.brokers.get(b)!.log.size > before.brokers.get(b)!.log.size)) mark('ghostAppended');
  }
  const p = before.partition;
  const q = t.partition;
  if (q.leaderEpoch !== p.leaderEpoch && q.leader !== NO_LEADER) {
    const lacks = (b: number) => acked.some((v) => !holdsValue(t.brokers.get(b)!.log, v));
    if (!acked.isEmpty() && q.isr.some(lacks) && !lacks(q.leader)) mark('electionPastLaggingIsr');
    if (!acked.isEmpty() && p.isr.isEmpty() && p.elr.has(q.leader)) mark('elrElectionAfterAck');
    // The crash of a leader changes the leader in the same step; that counts too.
    if (t.ghost.ackedCopyCrashed) mark('electionAfterAckedCopyCrashed');
    if (action === 'ElectPreferredLeader') mark('preferredElected');
  }
  return t;
}

function alterPartitionEvents(s: S, t: S, leader: number, isr: Iterable<number>): StepEvents {
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

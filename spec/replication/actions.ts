/**
 * The actions of the replication model. Each action's `step` writes its effects into one copy of the
 * state's bytes (`writeStep`, writes.ts), and every step ends with `settle`, so a leader's high watermark and
 * acknowledgements always reflect the step that changed them. Every fault spends a budget.
 *
 * Produce, fetch, ISR changes, recovery and elections act on one topic partition (with several, their
 * parameters name it: `partition=`); shutdowns, restarts, disk loss and network cuts act on a broker, so
 * on every partition it hosts at once.
 */
import { List } from '../immutable.ts';
import type { Action, ActionParams, Message, StepEvents } from '../spec.ts';
import { actsAsLeader, fetch, fetchSource, settle } from './broker.ts';
import { alterIsr, beginControlledShutdown, isrAt, registrationAt, electPreferred, electUnclean, fenceBroker, preferredElectionAllowed, registerBroker, restartLooksUnclean, unfenceBroker, uncleanCandidateMask, type UncleanPath, writeRegistration } from './controller.ts';
import { readCode as codeAt } from '../layout/bytes.ts';
import { commonPrefix, epochStartOffsetAt, holdsValue, holdsValueAt, sizeAt } from './log.ts';
import { fetchIsStale, fetchOffsetAt, type LogShape, placesOf } from './places.ts';
import { bit, countOf, idsOf, inMask, maskOf, maskOfIds } from './ids.ts';
import { brokerFlag, brokerMask, setBrokerFlag, setBrokerMask, spendFault } from './clusterFields.ts';
import { type Snapshot, snapshotOf } from './snapshot.ts';
import { acceptsAppend } from './producer.ts';
import { brokerName, type Config, NO_LEADER, type Partition, type ReplicationState, stopBroker, viewOf } from './state.ts';
import { setReplica, type TopicPartition, topicPartitionName } from './topicPartition.ts';
import { appendEntry, clearView, putBounded, putByte, putView, writeStep } from './writes.ts';

type S = ReplicationState;
/** Parameters of an action on one topic partition name it only when there are several. */
type InPartition = { partition?: number };
type One = InPartition & { broker: number };
type Pair = InPartition & { leader: number; follower: number };
/** `keep`: the flushed prefix of the broker's log, or with several topic partitions of each log, by partition. */
type Crash = { broker: number; keep: number | List<number> };
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

/** A diagram label about `tp`: with several topic partitions it names the partition first. */
function labelled(cfg: Config, tp: TopicPartition, text: string): string {
  return cfg.tps.length === 1 ? text : `${topicPartitionName(tp.id)} ${text}`;
}

/**
 * What the controller and the leaders did as a consequence of the step, for diagrams. A partition change
 * is shown going to the new leader, else the old one, else `about` (the broker the step is about).
 */
function consequences(cfg: Config, before: S, after: S, about = NO_LEADER): Message[] {
  const out: Message[] = [];
  for (const tp of cfg.tps) {
    const p = tp.partition(after);
    const was = tp.partition(before);
    if (p.partitionEpoch !== was.partitionEpoch) {
      const to = p.leader !== NO_LEADER ? p.leader : was.leader !== NO_LEADER ? was.leader : about;
      if (to !== NO_LEADER) out.push({ from: CONTROLLER, to: brokerName(to), label: labelled(cfg, tp, `PartitionChange ${partitionText(p)}`) });
    }
  }
  for (const tp of cfg.tps) {
    for (const v of tp.ghost(after).acked.subtract(tp.ghost(before).acked)) {
      const from = cfg.replicas.find((b) => actsAsLeader(after, b, tp) && holdsValue(tp.replica(after, b).log, v));
      out.push({ from: from === undefined ? CONTROLLER : brokerName(from), to: PRODUCER, label: labelled(cfg, tp, `ProduceResponse v${v}`) });
    }
  }
  return out;
}

/**
 * The leader `b` appends the produced `value` in its leader `epoch` (`Partition.appendRecordsToLeader`), and
 * the producers have sent one more value; written in place into the step's copy (writes.ts).
 */
function append(m: S, tp: TopicPartition, b: number, epoch: number, value: number): S {
  const P = placesOf(m);
  const at = P.tps[tp.id]!;
  // A full log is written through the layout, which reports the bound it passes.
  if (!appendEntry(m, at.replicas[b]!.log, epoch, value, P.log)) return setReplica(m, tp, b, 'log', tp.replica(m, b).log.push({ epoch, value }));
  putBounded(m, at.ghost.produced, 1, value, P.max.produced, tp.ghostPath, 'produced');
  return m;
}

/**
 * A crashed broker stops heartbeating: the controller fences it (`handleBrokerFenced`). It restarts connected,
 * and out of any controlled shutdown it had begun (a new registration clears it, KIP-841).
 */
function crashed(s: S, cfg: Config, b: number): S {
  const t = setBrokerMask(s, 'cut', brokerMask(s, 'cut') & ~bit(b));
  return fenceBroker(setBrokerMask(t, 'shuttingDown', brokerMask(t, 'shuttingDown') & ~bit(b)), cfg, b);
}

/**
 * An action whose `step` writes the step's effects into `m`, a copy of the state being written in place
 * (`writeStep`), and returns it (`before` is the state it was copied from, unchanged: guards' readings
 * such as `snapshotOf` are taken there); `replicationActions` makes its `next`: the step, `settle`, and the
 * witness milestones, all on that one copy.
 */
type Step<P extends ActionParams = ActionParams> = Omit<Action<S, P>, 'next'> & { readonly step: (m: S, p: P, before: S) => S };

export function replicationActions(cfg: Config): Action<S, any>[] {
  const brokers = cfg.replicas;
  const multi = cfg.tps.length > 1;
  const tpOf = (p: InPartition): TopicPartition => cfg.tps[p.partition ?? 0]!;
  const named = labelled.bind(null, cfg);
  // Parameter domains are built once; a domain is empty while its budget is spent, so guards run only
  // where they can pass. Per topic partition (by id), a parameter names the partition only if there are several.
  const inPartition = (tp: TopicPartition) => (multi ? { partition: tp.id } : {});
  const ONE: readonly One[] = brokers.map((broker) => ({ broker }));
  const ONE_IN: readonly (readonly One[])[] = cfg.tps.map((tp) => brokers.map((broker) => ({ ...inPartition(tp), broker })));
  const PAIRS: readonly (readonly (readonly Pair[])[])[] = cfg.tps.map((tp) =>
    brokers.map((leader) => brokers.filter((f) => f !== leader).map((follower) => ({ ...inPartition(tp), leader, follower }))),
  );
  const CUTS: readonly Cut[] = subsetsOf(brokers).map((cut) => ({ brokers: cut }));
  // The brokers of each cut as a mask (a cut read back from a trace is another object: its mask is computed).
  const CUT_MASKS = new Map(CUTS.map((c) => [c.brokers, maskOfIds(c.brokers)]));
  const cutMask = (cut: List<number>) => CUT_MASKS.get(cut) ?? maskOfIds(cut);
  const NOTHING: readonly never[] = [];
  const crashes = crashDomains(cfg);
  const ALL_RUNNING = maskOfIds(brokers);
  /** The parameters of a state: the union over the topic partitions of a per-partition domain. */
  const inEvery = <P>(domain: (s: S, tp: TopicPartition) => readonly P[]): ((s: S) => readonly P[]) => {
    const only = cfg.tps[0]!;
    return multi ? (s) => cfg.tps.flatMap((tp) => domain(s, tp)) : (s) => domain(s, only);
  };
  // A broker-level guard reads the broker fields of a snapshot, which every topic partition's reading shares.
  const brokerSnapshot = (s: S) => snapshotOf(s, cfg.tps[0]!);
  const acrossEpochs = cfg.mutation === 'fetchAcrossEpochs';
  // The controller's leader, running and connected: the only broker whose AlterPartition can succeed.
  const controllerLeads = (v: Snapshot, l: number) => v.leader === l && v.running[l]! && !inMask(v.cut, l);
  const everyLedPair = inEvery((s, tp) => {
    const leader = snapshotOf(s, tp).leader;
    return leader === NO_LEADER ? NOTHING : PAIRS[tp.id]![leader]!;
  });

  const produce: Step<One> = {
    name: 'ProduceRecord',
    params: inEvery((s, tp) => (snapshotOf(s, tp).produced < cfg.values ? ONE_IN[tp.id]! : NOTHING)),
    // A producer with metadata naming `broker` as leader: any broker that believes it leads, the ghost
    // included ("producers would only refresh metadata periodically", KIP-250 thread, Guozhang Wang).
    enabled: (s, p) => {
      const v = snapshotOf(s, tpOf(p));
      if (!v.running[p.broker] || v.viewLeader[p.broker] !== p.broker) return false;
      return v.produced < cfg.values && acceptsAppend(cfg, countOf(v.viewIsr[p.broker]!));
    },
    step: (m, p, before) => {
      const tp = tpOf(p);
      const v = snapshotOf(before, tp);
      return append(m, tp, p.broker, v.viewEpoch[p.broker]!, v.produced + 1);
    },
    describe: (s, p, t) => ({
      actor: PRODUCER,
      sends: [{ from: PRODUCER, to: brokerName(p.broker), label: named(tpOf(p), `Produce v${tpOf(p).ghost(s).produced + 1} acks=${cfg.acks}`) }, ...consequences(cfg, s, t)],
    }),
  };

  const fetchRecords: Step<One> = {
    name: 'FetchRecords',
    params: inEvery((_s, tp) => ONE_IN[tp.id]!),
    enabled: (s, p) => fetchSource(s, p.broker, acrossEpochs, tpOf(p)) !== NO_LEADER,
    step: (m, p, before) => fetch(m, p.broker, fetchSource(before, p.broker, acrossEpochs, tpOf(p)), tpOf(p), cfg.mutation),
    describe: (s, p, t) => {
      const tp = tpOf(p);
      const l = fetchSource(s, p.broker, acrossEpochs, tp);
      const mine = tp.replica(s, p.broker).log;
      const theirs = tp.replica(s, l).log;
      const at = commonPrefix(mine, theirs);
      const next = theirs.get(at);
      return {
        actor: brokerName(p.broker),
        sends: [
          { from: brokerName(p.broker), to: brokerName(l), label: named(tp, `Fetch e${viewOf(s, p.broker, tp).leaderEpoch} offset=${mine.size}`) },
          ...consequences(cfg, s, t),
        ],
        receives: [
          { from: brokerName(l), to: brokerName(p.broker), label: named(tp, next ? `record @${at} (e${next.epoch}, v${next.value})` : `diverging epoch, end offset ${at}`) },
        ],
        marks: at < mine.size ? [named(tp, `truncate to offset ${at}`)] : [],
      };
    },
  };

  const shrinkIsr: Step<Pair> = {
    name: 'ShrinkIsr',
    params: (s) => (brokerSnapshot(s).isrShrinks < cfg.maxIsrShrinks ? everyLedPair(s) : NOTHING),
    // replica.lag.time.max.ms: any follower may stall, whatever it holds.
    enabled: (s, p) => {
      const v = snapshotOf(s, tpOf(p));
      return controllerLeads(v, p.leader) && inMask(v.isr, p.follower) && v.isrShrinks < cfg.maxIsrShrinks;
    },
    step: (m, p) => {
      const tp = tpOf(p);
      return spendFault(alterIsr(m, cfg, tp, isrAt(m, tp) & ~bit(p.follower)), 'isrShrinks');
    },
    describe: (s, p, t) => alterPartitionEvents(cfg, tpOf(p), s, t, p.leader, idsOf(maskOf(tpOf(p).partition(s).isr) & ~bit(p.follower))),
  };

  const expandIsr: Step<Pair> = {
    name: 'ExpandIsr',
    params: everyLedPair,
    // Partition.maybeExpandIsr: the follower has caught up to the high watermark and fetched in this epoch
    // (KIP-320); KIP-841/903: the controller accepts only an unfenced follower.
    enabled: (s, p) => {
      const { leader, follower } = p;
      const v = snapshotOf(s, tpOf(p));
      // KIP-704: the controller rejects an ISR expansion while the partition is RECOVERING.
      if (!controllerLeads(v, leader) || inMask(v.isr, follower)) return false;
      if (v.recovering && cfg.mutation !== 'expandWhileRecovering') return false;
      if (!v.running[follower] || inMask((cfg.mutation === 'expandFencedFollower' ? 0 : v.fenced) | v.cut, follower)) return false;
      // KIP-841: nor a follower in controlled shutdown.
      if (inMask(v.shuttingDown, follower) && cfg.mutation !== 'expandShuttingDownFollower') return false;
      // The leader judges the follower by its fetch state (isFollowerInSync), and only on a fetch
      // (maybeExpandIsr runs in updateFollowerFetchState): the offset of a valid fetch made in the leader's
      // current epoch. KIP-903: by the follower's current incarnation too (the AlterPartition carries its
      // broker epoch, and the controller refuses a stale one).
      const r = placesOf(s).tps[tpOf(p).id]!.replicas[leader]!;
      const fetched = fetchOffsetAt(s, r, follower);
      if (fetched < 0 || (fetchIsStale(s, r, follower) && cfg.mutation !== 'expandFromEarlierIncarnation')) return false;
      return fetched >= Math.max(v.hw[leader]!, epochStartOffsetAt(v.bytes, v.logAt[leader]!, v.leaderEpoch, v.log)) || cfg.mutation === 'expandBeforeCaughtUp';
    },
    step: (m, p) => {
      const tp = tpOf(p);
      return alterIsr(m, cfg, tp, isrAt(m, tp) | bit(p.follower));
    },
    describe: (s, p, t) => alterPartitionEvents(cfg, tpOf(p), s, t, p.leader, idsOf(maskOf(tpOf(p).partition(s).isr) | bit(p.follower))),
  };

  const completeRecovery: Step<One> = {
    name: 'CompleteRecovery',
    params: inEvery((s, tp) => {
      const v = snapshotOf(s, tp);
      return v.recovering && v.leader !== NO_LEADER ? [ONE_IN[tp.id]![v.leader]!] : NOTHING;
    }),
    // KIP-704: a leader elected uncleanly finds the partition RECOVERING; once its log is recovered it sends an
    // AlterPartition with LeaderRecoveryState RECOVERED and its ISR unchanged, and only then may the ISR grow.
    enabled: (s, p) => snapshotOf(s, tpOf(p)).recovering && controllerLeads(snapshotOf(s, tpOf(p)), p.broker),
    step: (m, p) => {
      const tp = tpOf(p);
      const r = registrationAt(m, tp);
      return writeRegistration(m, tp, { ...r, recovering: false, partitionEpoch: r.partitionEpoch + 1 });
    },
    describe: (s, p, t) => alterPartitionEvents(cfg, tpOf(p), s, t, p.broker, tpOf(p).partition(s).isr),
  };

  const controlledShutdown: Step<One> = {
    name: 'ControlledShutdown',
    params: (s) => (brokerSnapshot(s).cleanShutdowns < cfg.maxCleanShutdowns ? ONE : NOTHING),
    // The broker asks to shut down (BrokerHeartbeat wantShutDown); the controller must be reachable.
    enabled: (s, { broker }) => {
      const v = brokerSnapshot(s);
      return v.running[broker]! && !inMask(v.cut, broker) && !inMask(v.shuttingDown, broker) && v.cleanShutdowns < cfg.maxCleanShutdowns;
    },
    step: (m, { broker }) => beginControlledShutdown(spendFault(m, 'cleanShutdowns'), cfg, broker),
    describe: (s, { broker }, t) => ({
      actor: brokerName(broker),
      sends: [{ from: brokerName(broker), to: CONTROLLER, label: 'BrokerHeartbeat wantShutDown' }, ...consequences(cfg, s, t, broker)],
      marks: ['controlled shutdown begins'],
    }),
  };

  const cleanShutdown: Step<One> = {
    name: 'CleanShutdown',
    params: (s) => (brokerSnapshot(s).shuttingDown === 0 ? NOTHING : ONE),
    // Once the controller has moved its leadership and ISR membership away (shouldShutDown), the broker
    // stops, writes its CleanShutdownFile (KIP-966) and is fenced.
    enabled: (s, { broker }) => {
      const v = brokerSnapshot(s);
      return inMask(v.shuttingDown, broker) && v.running[broker]! && !inMask(v.cut, broker);
    },
    step: (m, { broker }) => {
      const t = stopBroker(m, cfg, broker, () => Infinity, true);
      return fenceBroker(setBrokerMask(t, 'shuttingDown', brokerMask(t, 'shuttingDown') & ~bit(broker)), cfg, broker);
    },
    describe: (s, { broker }, t) => ({
      actor: brokerName(broker),
      sends: [{ from: brokerName(broker), to: CONTROLLER, label: 'ControlledShutdown' }, ...consequences(cfg, s, t)],
      marks: ['clean shutdown', 'fenced'],
    }),
  };

  const kept = (keep: Crash['keep'], tp: TopicPartition) => (typeof keep === 'number' ? keep : keep.get(tp.id)!);
  const uncleanShutdown: Step<Crash> = {
    name: 'UncleanShutdown',
    // `keep` is the flushed prefix: "unflushed data in the OS page cache is lost" (KIP-966 motivation). No
    // CleanShutdownFile is written.
    params: (s) => {
      const v = brokerSnapshot(s);
      if (v.uncleanShutdowns >= cfg.maxUncleanShutdowns) return NOTHING;
      return crashes(s);
    },
    enabled: (s, { broker }) => brokerSnapshot(s).running[broker]! && brokerSnapshot(s).uncleanShutdowns < cfg.maxUncleanShutdowns,
    step: (m, { broker, keep }, before) => {
      const lost = cfg.tps.some((tp) => kept(keep, tp) < snapshotOf(before, tp).leo[broker]!);
      const t = stopBroker(m, cfg, broker, (tp) => kept(keep, tp), false);
      return crashed(spendFault(spendFault(t, 'uncleanShutdowns'), 'dataLossShutdowns', lost ? 1 : 0), cfg, broker);
    },
    describe: (s, { broker, keep }, t) => {
      const lost = cfg.tps.reduce((n, tp) => n + tp.replica(s, broker).log.size - kept(keep, tp), 0);
      return {
        actor: brokerName(broker),
        sends: consequences(cfg, s, t, broker),
        marks: ['unclean shutdown', lost > 0 ? `lost ${lost} unflushed record${lost > 1 ? 's' : ''}` : 'nothing lost', 'fenced'],
      };
    },
  };

  const replaceDisk: Step<One> = {
    name: 'ReplaceDisk',
    params: (s) => (brokerSnapshot(s).emptyDisks < cfg.maxEmptyDisks ? ONE : NOTHING),
    // KAFKA-13872: a hardware failure, and the broker comes back under the same id with an empty disk.
    enabled: (s, { broker }) => brokerSnapshot(s).running[broker]! && brokerSnapshot(s).emptyDisks < cfg.maxEmptyDisks,
    step: (m, { broker }) => {
      const t = spendFault(stopBroker(m, cfg, broker, () => 0, false), 'emptyDisks');
      return crashed(t, cfg, broker);
    },
    describe: (s, { broker }, t) => ({ actor: brokerName(broker), sends: consequences(cfg, s, t, broker), marks: ['hardware failure', 'empty disk', 'fenced'] }),
  };

  // KIP-966: the broker sends the epoch from its CleanShutdownFile as PreviousBrokerEpoch; see registerBroker.
  const startBroker: Step<One> = {
    name: 'StartBroker',
    params: (s) => (brokerSnapshot(s).runningMask === ALL_RUNNING ? NOTHING : ONE),
    enabled: (s, { broker }) => !brokerSnapshot(s).running[broker],
    step: (m, { broker }) => {
      const clean = brokerFlag(m, broker, 'cleanShutdownFile');
      return registerBroker(setBrokerFlag(setBrokerFlag(m, broker, 'running', true), broker, 'cleanShutdownFile', false), cfg, broker, clean);
    },
    describe: (s, { broker }, t) => {
      const clean = s.brokers.get(broker)!.cleanShutdownFile;
      const marks = ['restart', 'unfenced'];
      if (cfg.elr && restartLooksUnclean(cfg, clean)) marks.splice(1, 0, 'handled as an unclean shutdown');
      return {
        actor: brokerName(broker),
        sends: [{ from: brokerName(broker), to: CONTROLLER, label: `BrokerRegistration cleanShutdown=${clean}` }, ...consequences(cfg, s, t, broker)],
        marks,
      };
    },
  };

  const partitionNetwork: Step<Cut> = {
    name: 'PartitionNetwork',
    params: (s) => (brokerSnapshot(s).cut === 0 && brokerSnapshot(s).partitions < cfg.maxPartitions ? CUTS : NOTHING),
    // KIP-250 thread (Guozhang Wang): "a network partition and both A and B are fenced off". The cut-off
    // brokers keep their last metadata and reach only each other; their heartbeats stop, so the controller
    // fences each, one after another.
    enabled: (s, { brokers: cut }) => {
      const v = brokerSnapshot(s);
      return v.cut === 0 && v.partitions < cfg.maxPartitions && (cutMask(cut) & ~v.runningMask) === 0;
    },
    step: (m, { brokers: cut }) => {
      const mask = cutMask(cut);
      let t = spendFault(spendFault(setBrokerMask(m, 'cut', mask), 'partitions'), 'isolations', cfg.countIsolations ? cut.size : 0);
      // Each cut-off broker keeps every partition record as it was when the network split.
      const P = placesOf(t);
      for (const b of idsOf(mask)) {
        for (const tp of cfg.tps) {
          const at = P.tps[tp.id]!;
          putView(t, at.replicas[b]!.view, at.partition, at.replicas[b]!.viewPartition);
        }
      }
      for (const b of idsOf(mask)) t = fenceBroker(t, cfg, b);
      return t;
    },
    describe: (s, { brokers: cut }, t) => ({
      actor: CONTROLLER,
      sends: consequences(cfg, s, t),
      marks: [`network partition cuts off ${cut.map(brokerName).join(', ')}`, `fences ${cut.map(brokerName).join(', ')}`],
    }),
  };

  // Heartbeats resume and the controller unfences the brokers; they learn the current metadata.
  const healNetwork: Step = {
    name: 'HealNetwork',
    enabled: (s) => brokerSnapshot(s).cut !== 0,
    step: (m) => {
      const cut = idsOf(brokerMask(m, 'cut'));
      let t = setBrokerMask(m, 'cut', 0);
      const P = placesOf(t);
      for (const b of cut) {
        for (const tp of cfg.tps) clearView(t, P.tps[tp.id]!.replicas[b]!.view, P.tps[tp.id]!.replicas[b]!.viewPartition);
        if (brokerFlag(t, b, 'running')) t = unfenceBroker(t, cfg, b);
      }
      return t;
    },
    describe: (s, _p, t) => ({
      actor: CONTROLLER,
      sends: [
        ...s.cut.toArray().flatMap((b) => cfg.tps.map((tp) => ({ from: CONTROLLER, to: brokerName(b), label: `metadata ${named(tp, partitionText(tp.partition(t)))}` }))),
        ...consequences(cfg, s, t),
      ],
      marks: ['network heals', `unfences ${s.cut.toArray().map(brokerName).join(', ')}`],
    }),
  };

  const PREFERRED: readonly InPartition[] = cfg.tps.map((tp) => ({ partition: tp.id }));
  const preferredElection: Step<InPartition> = {
    name: 'ElectPreferredLeader',
    ...(multi ? { params: () => PREFERRED } : {}),
    // kafka-leader-election --election-type PREFERRED (ElectLeaders, Election.PREFERRED), or the auto
    // leader rebalance: the admin asks whenever it likes.
    enabled: (s, p) => preferredElectionAllowed(s, cfg, tpOf(p)),
    step: (m, p) => electPreferred(m, cfg, tpOf(p)),
    describe: (s, p, t) => ({
      actor: CONTROLLER,
      sends: [{ from: 'admin', to: CONTROLLER, label: named(tpOf(p), 'ElectLeaders PREFERRED') }, ...consequences(cfg, s, t)],
      marks: [named(tpOf(p), `preferred leader ${brokerName(cfg.assignment[tpOf(p).id]![0]!)} elected`)],
    }),
  };

  const unclean = (name: UncleanPath): Step<One> => ({
    name,
    params: inEvery((s, tp) => (snapshotOf(s, tp).leader === NO_LEADER ? ONE_IN[tp.id]! : NOTHING)),
    enabled: (s, p) => inMask(uncleanCandidateMask(s, cfg, name, tpOf(p)), p.broker),
    step: (m, p) => electUnclean(m, cfg, p.broker, tpOf(p)),
    describe: (s, p, t) => ({
      actor: CONTROLLER,
      sends: [
        ...(name === 'UncleanRecovery'
          ? cfg.assignment[tpOf(p).id]!.filter((r) => !s.fenced.has(r)).map((r) => ({ from: CONTROLLER, to: brokerName(r), label: named(tpOf(p), 'GetReplicaLogInfo') }))
          : []),
        ...consequences(cfg, s, t),
      ],
      marks: [named(tpOf(p), `unclean election of ${brokerName(p.broker)}`)],
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
  const fair = fairness(multi);
  return steps.map(({ step, ...a }) => {
    const run = (m: S, p: any, before: S) => {
      if (observeMilestones(cfg, before, settle(step(m, p, before), cfg, before), a.name) !== m) throw new Error(`${a.name}: a step must write into the copy it is given`);
    };
    return { ...a, ...fair[a.name], next: (s: S, p: any) => writeStep(s, p, run) };
  });
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
function fairness(multi: boolean): Readonly<Record<string, Pick<Action<S, any>, 'fairness' | 'fairnessKey'>>> {
  const perBroker = { fairness: 'weak', fairnessKey: ({ broker }: One) => String(broker) } as const;
  // With several topic partitions, a broker's fetching and ISR expansion are fair per partition (one fetcher each).
  const key = (p: InPartition, b: number) => (multi ? `${p.partition}/${b}` : String(b));
  return {
    FetchRecords: multi ? { fairness: 'weak', fairnessKey: (p: One) => key(p, p.broker) } : perBroker,
    ExpandIsr: { fairness: 'weak', fairnessKey: (p: Pair) => key(p, p.follower) },
    CompleteRecovery: multi ? { fairness: 'weak', fairnessKey: (p: One) => String(p.partition) } : { fairness: 'weak' },
    CleanShutdown: perBroker,
    StartBroker: perBroker,
    HealNetwork: { fairness: 'weak' },
  };
}

/**
 * Records the witness milestones a step reached, in each topic partition (observer variables: no guard
 * reads them). It runs after every step, so it reads both states' bytes and writes the step's copy in
 * place (places.ts, writes.ts).
 */
function observeMilestones(cfg: Config, before: S, after: S, action: string): S {
  let t = after;
  for (const tp of cfg.tps) t = observeIn(cfg, tp, before, t, action);
  return t;
}

function observeIn(cfg: Config, tp: TopicPartition, before: S, after: S, action: string): S {
  const P = placesOf(after);
  const shape = P.log;
  const at = P.tps[tp.id]!;
  const g = at.ghost;
  const was = before._b;
  const wo = before._o;
  const t = after;
  const now = t._b;
  const o = t._o;
  const acked = now[o + g.acked]!;
  if (acked !== 0 && now[o + g.ackedCopyCrashed] === 0) {
    // A broker that stopped in this step lost a copy of an acknowledged record.
    let erased = false;
    for (const i of cfg.replicas) {
      if (was[wo + P.running[i]!] === 0 || now[o + P.running[i]!] !== 0) continue;
      const log = at.replicas[i]!.log;
      for (let v = 1; v <= cfg.values; v++) if (inMask(acked, v - 1) && holdsValueAt(was, wo + log, v, shape) && !holdsValueAt(now, o + log, v, shape)) erased = true;
    }
    if (erased) putByte(t, g.ackedCopyCrashed, 1);
  }
  if (now[o + g.ghostAppended] === 0 && now[o + g.produced]! > was[wo + g.produced]!) {
    const cut = now[o + P.cut]!;
    for (const b of cfg.replicas) {
      if (inMask(cut, b) && sizeAt(now, o + at.replicas[b]!.log, shape) > sizeAt(was, wo + at.replicas[b]!.log, shape)) putByte(t, g.ghostAppended, 1);
    }
  }
  const p = at.partition;
  const epochWidth = P.leaderEpochWidth;
  const leader = now[o + p.leader]! - 1;
  if (codeAt(now, o + p.leaderEpoch, epochWidth) !== codeAt(was, wo + p.leaderEpoch, epochWidth) && leader !== NO_LEADER) {
    if (acked !== 0) {
      const isr = now[o + p.isr]!;
      let laggingIsrMember = false;
      for (const b of cfg.replicas) if (inMask(isr, b) && lacksAcked(cfg, now, o + at.replicas[b]!.log, acked, shape)) laggingIsrMember = true;
      if (laggingIsrMember && !lacksAcked(cfg, now, o + at.replicas[leader]!.log, acked, shape)) putByte(t, g.electionPastLaggingIsr, 1);
      if (was[wo + p.isr] === 0 && inMask(was[wo + p.elr]!, leader)) putByte(t, g.elrElectionAfterAck, 1);
    }
    // The crash of a leader changes the leader in the same step; that counts too.
    if (now[o + g.ackedCopyCrashed] !== 0) putByte(t, g.electionAfterAckedCopyCrashed, 1);
    if (action === 'ElectPreferredLeader') putByte(t, g.preferredElected, 1);
  }
  return t;
}

/** Whether the log at `log` (absolute, in `b`) lacks some value of the `acked` mask. */
function lacksAcked(cfg: Config, b: Uint8Array, log: number, acked: number, shape: LogShape): boolean {
  for (let v = 1; v <= cfg.values; v++) if (inMask(acked, v - 1) && !holdsValueAt(b, log, v, shape)) return true;
  return false;
}

function alterPartitionEvents(cfg: Config, tp: TopicPartition, s: S, t: S, leader: number, isr: Iterable<number>): StepEvents {
  return {
    actor: brokerName(leader),
    sends: [{ from: brokerName(leader), to: CONTROLLER, label: labelled(cfg, tp, `AlterPartition isr=${setText(isr)} partitionEpoch=${tp.partition(s).partitionEpoch}`) }],
    receives: [{ from: CONTROLLER, to: brokerName(leader), label: labelled(cfg, tp, `AlterPartitionResponse ${partitionText(tp.partition(t))}`) }],
  };
}

/**
 * The parameters of `UncleanShutdown`, given which brokers run and each topic partition's log ends: every
 * flushed prefix of each log of each running broker, by broker. Built once per such reading (a number
 * names it: each log end plus one, or 0 for a broker that is down, as the digits of a number).
 */
function crashDomains(cfg: Config): (s: S) => readonly Crash[] {
  const known = new Map<number, readonly Crash[]>();
  const base = cfg.values + 2;
  return (s) => {
    const running = snapshotOf(s, cfg.tps[0]!).running;
    const leosIn = (tp: TopicPartition) => snapshotOf(s, tp).leo;
    let key = 0;
    for (const tp of cfg.tps) {
      const leo = leosIn(tp);
      for (const b of cfg.replicas) key = key * base + (running[b] ? leo[b]! + 1 : 0);
    }
    let domain = known.get(key);
    if (domain === undefined) {
      const out: Crash[] = [];
      for (const broker of cfg.replicas) {
        if (!running[broker]) continue;
        const leos = cfg.tps.map((tp) => leosIn(tp)[broker]!);
        const keeps = leos.length === 1 ? range(leos[0]! + 1) : productOf(leos.map((n) => range(n + 1))).map((k) => List(k));
        for (const keep of keeps) out.push({ broker, keep });
      }
      known.set(key, (domain = out));
    }
    return domain;
  };
}

/** Every choice of one element from each list, the last list varying fastest. */
function productOf(lists: readonly (readonly number[])[]): number[][] {
  return lists.reduce<number[][]>((acc, xs) => acc.flatMap((prefix) => xs.map((x) => [...prefix, x])), [[]]);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Every non-empty subset of `xs`, smallest first, each in ascending order. */
function subsetsOf(xs: readonly number[]): List<number>[] {
  const out: List<number>[] = [];
  for (let mask = 1; mask < 1 << xs.length; mask++) out.push(List(xs.filter((_, i) => mask & (1 << i))));
  return out.sort((a, b) => a.size - b.size);
}

/**
 * One Kafka partition replicated on `rf` brokers, with the KRaft controller that elects its leader and
 * keeps its ISR and (KIP-966) ELR. It finds the known data-loss histories: the last replica standing
 * (KIP-966 motivation), the ghost leader and the assignment-order election under acks=quorum (KIP-250),
 * unclean elections under the Aggressive and Balanced recovery strategies, and the empty-disk truncation
 * of KAFKA-13872; and it checks that the KIP-966 design closes the ones it claims to.
 *
 * Abstractions, each chosen to keep the model small without removing a known history:
 * - Metadata reaches every broker that can reach the controller in the step that changes it; only a
 *   network partition leaves brokers on stale metadata (kafka-tlaplus models every delay).
 * - An AlterPartition request and its response are one step, so only a cut-off leader could send a stale
 *   partition epoch, and it cannot reach the controller: the compare-and-set never fails (see the VIEW).
 * - A fetch is one round trip and moves one record; a leader sees its followers' logs as they are.
 * - A crash and the fencing that follows are one step; so are registration and unfencing.
 * - Elections follow `PartitionChangeBuilder`: the first valid replica in assignment order.
 * - Init is pre-established (kafka-tlaplus): broker 0 leads epoch 1; the first `initIsr` replicas form
 *   the ISR; every log is empty.
 * - With `topicPartitions` > 1, every broker hosts a replica of every partition, and partition p's
 *   assignment is the brokers rotated by p (its preferred replica leads epoch 1). Broker events (stops,
 *   restarts, fencing, controlled shutdown, network cuts) change every partition in their one step; the
 *   ISR-shrink budget is shared, and so is the failure tolerance (a data-loss shutdown counts for all).
 */
import { defineSpec, type Model, type ParamDef, type ParamValues, type Preset } from '../spec.ts';
import { replicationProperties } from './properties.ts';
import { replicationActions } from './actions.ts';
import { markDisabled } from './disabledBy.ts';
import { placesIn } from './places.ts';
import { wordsOf } from '../layout/bytes.ts';
import { idsOf } from './ids.ts';
import { assignmentOf, topicPartitionsOf } from './topicPartition.ts';
import { type Acks, type BalancedFallback, boundsOf, type CleanShutdownCheck, type ElectionOrder, type PreferredElection, type Config, type ReplicationBounds, type ReplicationLayout, replicationLayout, type ReplicationState, type Strategy } from './state.ts';

/** The model's constants; a parameter left out takes its default. */
export function configOf(given: ParamValues): Config {
  const params: ParamValues = { ...Object.fromEntries(PARAMS.map((d) => [d.name, d.default])), ...given };
  const rf = params.rf as number;
  const budgets = {
    rf,
    values: params.values as number,
    maxUncleanShutdowns: params.maxUncleanShutdowns as number,
    maxCleanShutdowns: params.maxCleanShutdowns as number,
    maxEmptyDisks: params.maxEmptyDisks as number,
    maxPartitions: params.maxPartitions as number,
    maxIsrShrinks: params.maxIsrShrinks as number,
    topicPartitions: params.topicPartitions as number,
  };
  const replicas = Array.from({ length: rf }, (_, i) => i);
  const tps = topicPartitionsOf(budgets.topicPartitions);
  return {
    replicas,
    tps,
    assignment: tps.map((tp) => assignmentOf(replicas, tp.id)),
    minIsr: Math.min(params.minIsr as number, rf),
    initIsr: Math.min(params.initIsr as number, rf),
    values: params.values as number,
    acks: params.acks as Acks,
    elr: params.elr as boolean,
    cleanShutdownCheck: params.cleanShutdownCheck as CleanShutdownCheck,
    strictHwm: params.strictHwm as boolean,
    strategy: params.strategy as Strategy,
    recoveryManager: params.recoveryManager as boolean,
    balancedFallback: params.balancedFallback as BalancedFallback,
    election: params.election as ElectionOrder,
    preferredElection: params.preferredElection as PreferredElection,
    uncleanLeaderElection: params.uncleanLeaderElection as boolean,
    maxUncleanShutdowns: params.maxUncleanShutdowns as number,
    maxCleanShutdowns: params.maxCleanShutdowns as number,
    maxEmptyDisks: params.maxEmptyDisks as number,
    maxPartitions: params.maxPartitions as number,
    maxIsrShrinks: params.maxIsrShrinks as number,
    countIsolations: params.countIsolations as boolean,
    liveness: params.liveness as boolean,
    layout: layoutFor(boundsOf(budgets)),
  };
}

// One layout per set of bounds, so that models built for the same bounds share their state type.
const LAYOUTS = new Map<string, ReplicationLayout>();
function layoutFor(bounds: ReplicationBounds): ReplicationLayout {
  const key = JSON.stringify(bounds);
  let layout = LAYOUTS.get(key);
  if (layout === undefined) LAYOUTS.set(key, (layout = replicationLayout(bounds)));
  return layout;
}

/**
 * Each topic partition's preferred replica leads epoch 1 over the first `initIsr` replicas of its
 * assignment; every log is empty.
 */
export function initialState(cfg: Config): ReplicationState {
  const registration = (replicas: readonly number[]) => ({
    leader: replicas[0]!,
    leaderEpoch: 1,
    partitionEpoch: 1,
    isr: idsOf(replicas.slice(0, cfg.initIsr).reduce((m, b) => m | (1 << b), 0)),
  });
  const replica = { log: [], hw: 0, view: null };
  if (cfg.tps.length === 1) {
    const broker = { running: true, ...replica, cleanShutdownFile: false };
    return cfg.layout.State.from({ brokers: cfg.replicas.map((b) => [b, broker] as const), partition: registration(cfg.replicas) });
  }
  // The layout with several topic partitions (state.ts): its fields are not the one-partition type's.
  const broker = { running: true, replicas: cfg.tps.map((tp) => [tp.id, replica] as const), cleanShutdownFile: false };
  const partitions = cfg.tps.map((tp) => [tp.id, registration(cfg.assignment[tp.id]!)] as const);
  return cfg.layout.State.from({ brokers: cfg.replicas.map((b) => [b, broker] as const), partitions } as never);
}

/**
 * TLC VIEW: nothing reads a partition epoch. A connected leader's AlterPartition always carries the
 * current one (its metadata is current), and a cut-off leader cannot send one, so the compare-and-set
 * never fails; states that differ only in partition epochs have the same futures.
 *
 * The view is the state's bytes with every partition epoch zeroed (the controller's and any stale copy a
 * cut-off broker holds; a broker with no stale copy has zeros there already), written into one buffer
 * the view reuses: the checker only fingerprints it, before it asks for the next.
 */
function withoutPartitionEpochs(cfg: Config): (s: ReplicationState) => ReplicationState {
  const State = cfg.layout.State;
  const width = State.width;
  const places = placesIn(State);
  const epochs = places.tps.flatMap((tp) => [tp.partition.partitionEpoch, ...tp.replicas.map((r) => r.viewPartition.partitionEpoch)]);
  const zeroed = Int32Array.from(epochs.flatMap((at) => Array.from({ length: places.partitionEpochWidth }, (_, k) => at + k)));
  // Whole words, so that a state on a word of its buffer (a step's copy always is) is copied a word at a time.
  const scratch = new Uint8Array((width + 3) & ~3);
  const scratchWords = new Int32Array(scratch.buffer);
  const whole = width >> 2;
  const view = State.wrap(scratch);
  return (s) => {
    const b = s._b;
    const o = s._o;
    const words = (o & 3) === 0 ? wordsOf(b) : null;
    let i = 0;
    if (words !== null) {
      const from = o >> 2;
      for (; i < whole; i++) scratchWords[i] = words[from + i]!;
      i = whole << 2;
    }
    for (; i < width; i++) scratch[i] = b[o + i]!;
    for (let k = 0; k < zeroed.length; k++) scratch[zeroed[k]!] = 0;
    return view;
  };
}

const PRE_ELR = { elr: false, strictHwm: false } as const;

const PARAMS: readonly ParamDef[] = [
  { name: 'rf', description: 'replication factor (the brokers are the replicas, 0 first in assignment order)', type: 'int', default: 3, min: 2, max: 5 },
  {
    name: 'topicPartitions',
    description:
      'topic partitions replicated on the same brokers (each rotates the assignment order, so preferred leaders spread): shutdowns, restarts, fencing and cuts hit every partition at once; ISR, ELR, leaders, logs and acks are per partition',
    type: 'int',
    default: 1,
    min: 1,
    max: 3,
  },
  { name: 'minIsr', description: 'min.insync.replicas', type: 'int', default: 2, min: 1, max: 5 },
  {
    name: 'initIsr',
    description: 'ISR size at start: broker 0 leads the first initIsr replicas; the rest start outside the ISR (kafka-tlaplus InitIsrSize)',
    type: 'int',
    default: 3,
    min: 1,
    max: 5,
  },
  { name: 'values', description: 'how many records producers send to each topic partition (each value once)', type: 'int', default: 1, min: 1, max: 4 },
  { name: 'acks', description: 'producer acks: 0, 1, all, or quorum (KIP-250, Guozhang Wang rule)', type: 'enum', default: 'all', choices: ['0', '1', 'all', 'quorum'] },
  { name: 'elr', description: 'KIP-966 eligible leader replicas, LastKnownELR and unclean-shutdown detection', type: 'bool', default: true },
  {
    name: 'cleanShutdownCheck',
    description:
      'KIP-966 clean-shutdown detection at registration (with elr): previousBrokerEpoch = the CleanShutdownFile epoch must match the registered one (Kafka since KAFKA-18635), everyIncarnationUnclean = ClusterControlManager.registerBroker before that fix, none = no detection',
    type: 'enum',
    default: 'previousBrokerEpoch',
    choices: ['previousBrokerEpoch', 'everyIncarnationUnclean', 'none'],
  },
  { name: 'strictHwm', description: 'KIP-966: the high watermark advances only while |ISR| >= min.insync.replicas', type: 'bool', default: true },
  { name: 'strategy', description: 'unclean.recovery.strategy (with the ELR)', type: 'enum', default: 'Balanced', choices: ['None', 'Balanced', 'Aggressive'] },
  { name: 'recoveryManager', description: 'unclean.recovery.manager.enabled: recover by reading replica logs', type: 'bool', default: false },
  {
    name: 'balancedFallback',
    description: 'Balanced without the manager: wait for the last known leader (Artem Livshits), or take it if available else any replica (Colin McCabe)',
    type: 'enum',
    default: 'waitLastKnownLeader',
    choices: ['waitLastKnownLeader', 'lastKnownLeaderOrAny'],
  },
  {
    name: 'election',
    description: 'clean election order: assignmentOrder = Kafka (first valid replica in assignment order), longestLog = KIP-250 proposal (valid replica with the largest last epoch and LEO)',
    type: 'enum',
    default: 'assignmentOrder',
    choices: ['assignmentOrder', 'longestLog'],
  },
  {
    name: 'preferredElection',
    description:
      'admin preferred-leader election: off, immediate = Kafka Election.PREFERRED (the preferred replica takes over once valid), safe = KIP-250 (Jun Rao #4: only once it has caught up to the leader log end)',
    type: 'enum',
    default: 'off',
    choices: ['off', 'immediate', 'safe'],
  },
  { name: 'uncleanLeaderElection', description: 'legacy unclean.leader.election.enable (used when elr is off)', type: 'bool', default: false },
  { name: 'maxUncleanShutdowns', description: 'budget: unclean shutdowns (each keeps any flushed prefix)', type: 'int', default: 1, min: 0, max: 5 },
  { name: 'maxCleanShutdowns', description: 'budget: controlled shutdowns', type: 'int', default: 0, min: 0, max: 5 },
  { name: 'maxEmptyDisks', description: 'budget: brokers replaced with an empty disk under the same id (KAFKA-13872)', type: 'int', default: 0, min: 0, max: 5 },
  { name: 'maxPartitions', description: 'budget: network partitions cutting brokers off from the controller', type: 'int', default: 0, min: 0, max: 3 },
  { name: 'maxIsrShrinks', description: 'budget: ISR shrinks by the leader (replica.lag.time.max.ms)', type: 'int', default: 2, min: 0, max: 5 },
  { name: 'countIsolations', description: 'count isolated brokers as failures against min.insync.replicas (KIP-250 reading)', type: 'bool', default: false },
  {
    name: 'liveness',
    description: 'also check liveness under fairness: WritesAnswered (every pending acks=all/quorum write is eventually acknowledged or failed); keeps partition epochs (no VIEW)',
    type: 'bool',
    default: false,
  },
];

const PRESETS: readonly Preset[] = [
  {
    name: 'lrs-pre-elr',
    description:
      'Kafka 3.5 (no ELR; the high watermark advances on the ISR alone; the last ISR member stays in the ISR when fenced): the ISR shrinks to the leader, which commits a record alone, shuts down uncleanly losing it and comes back as the last ISR member without it (IsrHoldsCommitted fails), is re-elected, and the follower truncates to it. After ONE data-loss shutdown a committed record is gone, and an acks=all record is lost the same way (NoAckedRecordLost alone fails after 7 steps) (KIP-966 motivation, S1)',
    params: { ...PRE_ELR, initIsr: 2, maxUncleanShutdowns: 1 },
    expect: { verdict: 'violates', property: 'IsrHoldsCommitted' },
    options: { deadlock: false },
  },
  {
    name: 'elr',
    description:
      'KIP-966 on (ELR and LastKnownELR rules as Kafka\'s PartitionChangeBuilder, strict high watermark, unclean-shutdown detection, Balanced, no manager): with min.insync.replicas-1 = 1 unclean shutdown, a clean one and two ISR shrinks, no acknowledged or committed record is ever lost. Failures are counted as KIP-966 does: data-loss shutdowns only (open question 1)',
    params: { maxUncleanShutdowns: 1, maxCleanShutdowns: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'elr-incarnation-unclean',
    description:
      'the elr faults with ClusterControlManager.registerBroker as it was before KAFKA-18635, handling every new incarnation as an unclean shutdown: the cleanly shut down ELR member loses its place when it registers again, the last known leader, which lost the record in an unclean shutdown, is elected (canElectLastKnownLeader) and the clean replica truncates to it. ONE data-loss failure loses an acknowledged record; the shipped PreviousBrokerEpoch check (the elr preset) keeps it',
    params: { cleanShutdownCheck: 'everyIncarnationUnclean', maxUncleanShutdowns: 1, maxCleanShutdowns: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLostEvenUnclean' },
    options: { deadlock: false },
  },
  {
    name: 'elr-2-partitions',
    description:
      'KIP-966 as Kafka ships it (the elr rules, PreviousBrokerEpoch check) on two topic partitions sharing three brokers, each led by a different broker (partition 0 has ISR {0,1}, partition 1 has {1,2}, both at min.insync.replicas): a controlled shutdown, a clean stop, an unclean shutdown (losing any unflushed suffix of each log) and a restart each change both partitions in one step (ReplicationControlManager runs a PartitionChangeBuilder over every partition the broker hosts), while ISR, ELR, last known leader and acknowledgements stay per partition. No acknowledged or committed record is lost in either partition, and a leader is elected from the ELR after an acknowledgement. Holds',
    params: { topicPartitions: 2, initIsr: 2, maxUncleanShutdowns: 1, maxCleanShutdowns: 1, maxIsrShrinks: 0 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'elr-incarnation-unclean-2-partitions',
    description:
      'the elr-2-partitions faults with ClusterControlManager.registerBroker as it was before KAFKA-18635 (every new incarnation handled as an unclean shutdown): the clean-shutdown file is the broker\'s, so one clean restart costs broker 0 its ELR place in every partition at once; in partition 0 the last known leader, which lost the record in the unclean shutdown that also moved partition 1\'s leadership, is elected and the clean replica truncates to it, while partition 1 keeps everything. Violates NoAckedRecordLostEvenUnclean in partition 0; the shipped check (elr-2-partitions) holds',
    params: { topicPartitions: 2, initIsr: 2, cleanShutdownCheck: 'everyIncarnationUnclean', maxUncleanShutdowns: 1, maxCleanShutdowns: 1, maxIsrShrinks: 0 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLostEvenUnclean' },
    options: { deadlock: false },
  },
  {
    name: 'acks-quorum-ghost',
    description:
      'KIP-250 acks=quorum (Guozhang Wang rule: max(majority of RF, min.insync.replicas) ISR copies; the high watermark stays the ISR minimum, open questions 4-5): a network partition cuts the leader and one follower off; the controller elects the third replica, while the deposed leader (the ghost) still acks with 2 of its stale ISR, then truncates on healing (S2). Isolations are not data-loss failures here (KIP-966 reading); countIsolations=true is the KIP-250 reading',
    params: { ...PRE_ELR, acks: 'quorum', maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxPartitions: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLost' },
    options: { deadlock: false },
  },
  {
    name: 'acks-all-ghost',
    description: 'the same faults with acks=all: the ghost needs every member of its stale ISR, so it never acks and nothing acknowledged is lost (S2 control run)',
    params: { ...PRE_ELR, acks: 'all', maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxPartitions: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'acks-quorum-ar-order',
    description:
      'KIP-250 acks=quorum, counting isolations as failures (KIP-250 reading): ONE isolated leader (fewer than min.insync.replicas failures) still loses an acknowledged record, because the controller elects the first ISR replica in assignment order, which lacks it, not the longest log (S3, Jeff Widman)',
    params: { ...PRE_ELR, acks: 'quorum', countIsolations: true, maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxPartitions: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLost' },
    options: { deadlock: false },
  },
  {
    name: 'acks-quorum-leo',
    description:
      'KIP-250 proposed fix, a design under discussion (Kafka elects in assignment order): the acks-quorum-ar-order faults with the longest-log election ("the live replicas in ISR with the largest LEO", Jun Rao). The replica that holds the acknowledged record is elected, and nothing acknowledged is lost',
    params: { ...PRE_ELR, acks: 'quorum', election: 'longestLog', countIsolations: true, maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxPartitions: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'acks-quorum-ghost-leo',
    description:
      'KIP-250 with the longest-log election still loses to the ghost leader: the deposed leader acks from its stale ISR before the controller\'s election can see its log (S2 is not an election-order problem)',
    params: { ...PRE_ELR, acks: 'quorum', election: 'longestLog', maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxPartitions: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLost' },
    options: { deadlock: false },
  },
  {
    name: 'acks-quorum-preferred',
    description:
      'KIP-250 acks=quorum with the longest-log election and Kafka\'s preferred-leader election (Election.PREFERRED: the first assigned replica takes over as soon as it is in the ISR): the preferred replica rejoins the ISR empty, a record is acked by the other two, the admin moves leadership back and both truncate: an acknowledged record is lost with NO failure (S4, Jun Rao #4)',
    params: { ...PRE_ELR, acks: 'quorum', election: 'longestLog', preferredElection: 'immediate', maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxCleanShutdowns: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLost' },
    options: { deadlock: false },
  },
  {
    name: 'acks-quorum-preferred-safe',
    description:
      'KIP-250 proposed fix, a design under discussion: the same faults with the safe preferred-leader election (Jun Rao #4: the leader stops writes, the preferred replica catches up to its log end, then leadership moves). The preferred election happens and nothing acknowledged is lost',
    params: { ...PRE_ELR, acks: 'quorum', election: 'longestLog', preferredElection: 'safe', maxUncleanShutdowns: 0, maxIsrShrinks: 0, maxCleanShutdowns: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'acks-all-lenient-hwm',
    description:
      'Kafka before KIP-966 (the high watermark advances on the ISR alone) with acks=all, two ISR shrinks, one clean shutdown and no crash: the min.insync.replicas checks on append and acknowledgement are what keep an acks=all record from being acknowledged with one copy (the strict high watermark masks them in the elr preset). Holds',
    params: { ...PRE_ELR, maxUncleanShutdowns: 0, maxCleanShutdowns: 1, maxIsrShrinks: 2 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'unclean-aggressive',
    description:
      'KIP-966 Aggressive without the manager ("the last known leader if available, or a random leader": any unfenced replica): a network partition fences every ISR/ELR member, the controller elects the stale replica (ElectUncleanLeader), and an acknowledged record is lost with no data-loss failure, after an unclean election (S5)',
    params: { strategy: 'Aggressive', maxUncleanShutdowns: 0, maxPartitions: 1, maxIsrShrinks: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLostEvenUnclean' },
    options: { deadlock: false },
  },
  {
    name: 'balanced-empty',
    description:
      'KIP-966 Balanced without the manager, as Kafka ships it ("wait for the last known leader", Artem Livshits; balancedFallback picks Colin McCabe\'s reading): two unclean shutdowns, only one of which loses data, empty the ISR and ELR; when the last known leader registers again the normal election elects it (canElectLastKnownLeader, unclean, RECOVERING) although it lost the record, and the other replica truncates it (S6). Kafka\'s design accepts this loss ("The Balanced mode could still lead to data loss", Jun Rao, #40)',
    params: { strategy: 'Balanced', balancedFallback: 'waitLastKnownLeader', maxUncleanShutdowns: 2, maxIsrShrinks: 1 },
    expect: { verdict: 'violates', property: 'NoAckedRecordLostEvenUnclean' },
    options: { deadlock: false },
  },
  {
    name: 'balanced-recovery-manager',
    description:
      'KIP-966 design under discussion (not in Kafka: no Unclean Recovery Manager ships): the balanced-empty faults with unclean.recovery.manager.enabled. The manager waits for every LastKnownELR member, reads their logs (GetReplicaLogInfo) and elects the longest (UncleanRecovery), so the record balanced-empty loses is kept',
    params: { strategy: 'Balanced', recoveryManager: true, maxUncleanShutdowns: 2, maxIsrShrinks: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'empty-disk-13872',
    description:
      'KAFKA-13872 (acks=1, min.insync.replicas=1, no ELR): the followers leave the ISR, the leader is replaced with an empty disk under the same id, is re-elected as the last ISR member, and the follower truncates the committed record: it is gone from every replica',
    params: { ...PRE_ELR, minIsr: 1, acks: '1', maxUncleanShutdowns: 0, maxEmptyDisks: 1 },
    expect: { verdict: 'violates', property: 'TruncationKeepsCommitted' },
    options: { deadlock: false },
  },
  {
    name: 'empty-disk-kip966',
    description:
      'KAFKA-13872 under KIP-966 as Kafka ships it: the empty-disk broker registers without a clean-shutdown file, leaves the ISR and ELR, and with both empty PartitionChangeBuilder elects it as the last known leader (canElectLastKnownLeader, an unclean election marked RECOVERING); the follower truncates the committed record. Violates TruncationKeepsCommitted, and Kafka\'s design accepts it: one empty disk with min.insync.replicas=1 is outside the promised tolerance, and the election is the Balanced recovery the KIP says may lose data (Jun Rao, #40). With strategy None the partition stays offline instead',
    params: { minIsr: 1, acks: '1', maxUncleanShutdowns: 0, maxEmptyDisks: 1 },
    expect: { verdict: 'violates', property: 'TruncationKeepsCommitted' },
    options: { deadlock: false },
  },
  {
    name: 'diverging-logs',
    description:
      'KIP-966 as Kafka ships it with two records, so logs diverge: one unclean shutdown and one ISR shrink. A new leader appends over a record the old one never committed, and followers truncate to it (epoch-based, KIP-101/279). The high watermark comes from the followers\' fetch offsets (Partition.maybeIncrementLeaderHW); the leader stays in the ISR, every ISR member holds every committed record, and no log diverges below a leader\'s high watermark. Holds',
    params: { values: 2, maxUncleanShutdowns: 1, maxIsrShrinks: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'diverging-pre-elr',
    description:
      'Kafka before KIP-966 (no ELR, the high watermark advances on the ISR alone) with acks=1, two records and a network partition: the deposed leader (the KIP-250 ghost) appends records no one else takes, and truncates them when the partition heals (epoch-based, KIP-101/279). Nothing acknowledged is promised, so the committed prefix is what the properties watch: every ISR member holds it and no log diverges below a high watermark. Holds',
    params: { ...PRE_ELR, acks: '1', values: 2, maxUncleanShutdowns: 0, maxPartitions: 1, maxIsrShrinks: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'diverging-deep',
    description:
      'KIP-966 as Kafka ships it at a depth where divergence repeats: three records, one unclean shutdown, one clean shutdown and one ISR shrink (585,668 states). No acknowledged or committed record is lost, and the logs agree below every high watermark. Holds',
    params: { values: 3, maxUncleanShutdowns: 1, maxCleanShutdowns: 1, maxIsrShrinks: 1 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'replication-live',
    description:
      'liveness (issue 13): KIP-966 on, acks=all, one record, one unclean shutdown, one ISR shrink and one network partition. Under fair replica fetching, ISR expansion, restarts and healing (faults unfair and budgeted), every pending produce request is answered, acknowledged or failed with its leader\'s epoch, without waiting for its timeout: WritesAnswered holds',
    params: { maxUncleanShutdowns: 1, maxIsrShrinks: 1, maxPartitions: 1, liveness: true },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
  {
    name: 'replication-bench',
    description:
      'benchmark: KIP-966 on with two records, one unclean shutdown, one network partition and two ISR shrinks; acks=all keeps every acknowledged record',
    params: { values: 2, maxUncleanShutdowns: 1, maxPartitions: 1, maxIsrShrinks: 2 },
    expect: { verdict: 'holds' },
    options: { deadlock: false },
  },
];

/** The model for resolved constants (the mutation table builds it with `Config.mutation` set). */
export function modelOf(cfg: Config): Model<ReplicationState> {
  return {
    init: () => [initialState(cfg)],
    actions: markDisabled(replicationActions(cfg), cfg),
    properties: replicationProperties(cfg),
    // Liveness is checked on the model's own graph: the VIEW could join states into a cycle no behaviour has.
    ...(cfg.liveness ? {} : { view: withoutPartitionEpochs(cfg) }),
    layout: cfg.layout.State,
  };
}

export default defineSpec<ReplicationState>({
  name: 'replication',
  description:
    'Kafka partitions replicated on rf brokers with their KRaft controller (one topic partition, or several sharing the brokers): ISR, KIP-966 ELR and unclean recovery, acks 0/1/all/quorum (KIP-250); finds the known data-loss histories',
  params: PARAMS,
  presets: PRESETS,
  build: (params) => modelOf(configOf(params)),
});

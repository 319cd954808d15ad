/**
 * Where one topic partition's state lives. With one topic partition the state keeps the layout the model
 * always had (its registration is `partition`, a broker's replica is the broker's own `log`, `hw` and
 * `view`, its observer variables are `ghost`), so its states, traces and counts do not depend on this
 * file; with more, they are `partitions[id]`, `brokers[b].replicas[id]` and `ghosts[id]`. Every read and
 * write of a partition's registration, of a broker's replica of it, or of its observer variables goes
 * through a `TopicPartition`.
 */
import type { Key, RecordView } from '../layout/index.ts';
import { MAX_BROKERS } from './ids.ts';
import type { Ghost, Log, Partition, ReplicationState } from './state.ts';

/** A broker's replica of one topic partition. */
export interface Replica {
  readonly log: Log;
  /** Kept only while the broker believes it leads (0 otherwise). */
  readonly hw: number;
  /** While it leads: each follower's last valid fetch offset (-1 unknown), and those fetched by an earlier incarnation. */
  readonly fetchOffsets: { get(b: number): number | undefined };
  readonly staleFetch: { has(b: number): boolean };
  /** The registration this broker acts on, when it differs from the controller's (cut off); else null. */
  readonly view: Partition | null;
}

type ReplicaField = keyof Replica;
type RegistrationField = 'leader' | 'leaderEpoch' | 'partitionEpoch' | 'isr' | 'elr' | 'lastKnownElr' | 'recovering';
/** The names of the observer variables (the Ghost record's fields). */
export type GhostField = Exclude<keyof Ghost & string, keyof RecordView>;

export interface TopicPartition {
  /** The partition's index (`partition=` in the actions' parameters when there are several). */
  readonly id: number;
  /** The controller's `PartitionRegistration` of it. */
  partition(s: ReplicationState): Partition;
  /** Broker `b`'s replica of it. */
  replica(s: ReplicationState, b: number): Replica;
  /** Its observer variables. */
  ghost(s: ReplicationState): Ghost;
  readonly partitionPath: readonly Key[];
  /** The path of one field of its registration. */
  registrationPath(field: RegistrationField): readonly Key[];
  /** The path of one field of broker `b`'s replica. */
  replicaPath(b: number, field: ReplicaField): readonly Key[];
  /** The path of one of its observer variables. */
  ghostPath(field: string): readonly Key[];
}

// Paths are built once per partition and broker: a step writes through them many times.

function pathsByBroker(prefix: (b: number) => readonly Key[]): readonly Readonly<Record<ReplicaField, readonly Key[]>>[] {
  return Array.from({ length: MAX_BROKERS }, (_, b) => {
    const p = prefix(b);
    return { log: [...p, 'log'], hw: [...p, 'hw'], fetchOffsets: [...p, 'fetchOffsets'], staleFetch: [...p, 'staleFetch'], view: [...p, 'view'] };
  });
}

/** The paths of the fields of a record at `prefix`, each built on first use. */
function fieldPaths(prefix: readonly Key[]): (field: string) => readonly Key[] {
  const cache = new Map<string, readonly Key[]>();
  return (field) => {
    let p = cache.get(field);
    if (p === undefined) cache.set(field, (p = [...prefix, field]));
    return p;
  };
}

/** The only topic partition of a one-partition model: the fields where the model has always kept them. */
export const ONLY: TopicPartition = (() => {
  const paths = pathsByBroker((b) => ['brokers', b]);
  return {
    id: 0,
    partition: (s) => s.partition,
    replica: (s, b) => s.brokers.get(b)!,
    ghost: (s) => s.ghost,
    partitionPath: ['partition'],
    registrationPath: fieldPaths(['partition']),
    replicaPath: (b, field) => paths[b]![field],
    ghostPath: fieldPaths(['ghost']),
  };
})();

// The one-partition type names the fields of the shared-brokers layout only through these reads.
type SharedBrokersState = {
  readonly brokers: { get(b: number): { readonly replicas: { get(id: number): Replica | undefined } } | undefined };
  readonly partitions: { get(id: number): Partition | undefined };
  readonly ghosts: { get(id: number): Ghost | undefined };
};
const shared = (s: ReplicationState) => s as unknown as SharedBrokersState;

/** Partition `id` of a model with several topic partitions on the same brokers. */
function sharedBrokersPartition(id: number): TopicPartition {
  const paths = pathsByBroker((b) => ['brokers', b, 'replicas', id]);
  return {
    id,
    partition: (s) => shared(s).partitions.get(id)!,
    replica: (s, b) => shared(s).brokers.get(b)!.replicas.get(id)!,
    ghost: (s) => shared(s).ghosts.get(id)!,
    partitionPath: ['partitions', id],
    registrationPath: fieldPaths(['partitions', id]),
    replicaPath: (b, field) => paths[b]![field],
    ghostPath: fieldPaths(['ghosts', id]),
  };
}

/** The topic partitions of a model with `n` of them. */
export function topicPartitionsOf(n: number): readonly TopicPartition[] {
  return n === 1 ? [ONLY] : Array.from({ length: n }, (_, id) => sharedBrokersPartition(id));
}

/**
 * The replicas of partition `id` in assignment order, the first being its preferred leader: the brokers
 * rotated by `id`, so preferred leaders spread over the brokers as Kafka's `StripedReplicaPlacer` spreads
 * them (and partition 0's order is the brokers' own).
 */
export function assignmentOf(brokers: readonly number[], id: number): readonly number[] {
  return brokers.map((_, i) => brokers[(i + id) % brokers.length]!);
}

/** The name of partition `id` in diagrams (only shown when there are several). */
export const topicPartitionName = (id: number): string => `p${id}`;

/** Writes `v` into one field of broker `b`'s replica of `tp` (in place on a `withMutations` copy). */
export function setReplica<F extends ReplicaField>(s: ReplicationState, tp: TopicPartition, b: number, field: F, v: Replica[F]): ReplicationState {
  return s.setIn(tp.replicaPath(b, field), v);
}

/** Writes `v` into one of `tp`'s observer variables. */
export function setGhost<F extends GhostField>(s: ReplicationState, tp: TopicPartition, field: F, v: Ghost[F]): ReplicationState {
  return s.setIn(tp.ghostPath(field), v);
}

/** Writes `tp`'s registration at the controller. */
export function setPartition(s: ReplicationState, tp: TopicPartition, p: Partition): ReplicationState {
  return s.setIn(tp.partitionPath, p);
}

/**
 * Where the fields of a replication state lie in its bytes, computed once per layout. The reads made for
 * every state and every step (the guards' snapshot, `settle`, the milestones, the properties, the VIEW)
 * take a field's code at its offset instead of making a view for each read: a state is a few dozen
 * bytes, and making views cost more than the model's logic. Every offset is absolute (from the state's
 * first byte), so a read is `s._b[s._o + place]`; scalars are the layout's codes (an int's code is its
 * value minus its minimum, a boolean's is 0 or 1, an id set's is its bit mask).
 */
import type { Key, LType, RecordType } from '../layout/index.ts';
import type { IntType, MapType, OptionType, SeqType } from '../layout/types.ts';
import { NO_LEADER } from './ids.ts';
import type { ReplicationState } from './state.ts';
import { type TopicPartition, topicPartitionsOf } from './topicPartition.ts';

/** A `PartitionRegistration`'s fields. `leader`'s code is the leader plus one (`NO_LEADER` is code 0). */
export interface PartitionPlaces {
  /** The record's first byte (its fields lie in `width` bytes from there). */
  readonly at: number;
  readonly width: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly isr: number;
  readonly elr: number;
  readonly lastKnownElr: number;
  readonly recovering: number;
}

/** A broker's replica of one topic partition. */
export interface ReplicaPlaces {
  readonly log: number;
  readonly hw: number;
  /** By follower id: the code (offset + 1, 0 unknown) of the follower's last valid fetch offset, while this broker leads. */
  readonly fetchOffsets: readonly number[];
  /** The mask of followers whose fetch offset comes from an earlier incarnation. */
  readonly staleFetch: number;
  /** The presence byte of the broker's stale registration (0: it acts on the controller's). */
  readonly view: number;
  /** The stale registration's fields (zero while there is none). */
  readonly viewPartition: PartitionPlaces;
}

export interface GhostPlaces {
  readonly produced: number;
  readonly acked: number;
  readonly committed: number;
  readonly uncleanElection: number;
  readonly committedRewritten: number;
  readonly committedTruncated: number;
  readonly ackBelowMinIsr: number;
  readonly cleanElectionOutside: number;
  readonly uncleanOutsideStrategy: number;
  readonly elrElectionAfterAck: number;
  readonly ackedCopyCrashed: number;
  readonly electionAfterAckedCopyCrashed: number;
  readonly preferredElected: number;
  readonly ghostAppended: number;
  readonly electionPastLaggingIsr: number;
}

export interface TopicPartitionPlaces {
  readonly partition: PartitionPlaces;
  /** By broker id. */
  readonly replicas: readonly ReplicaPlaces[];
  readonly ghost: GhostPlaces;
}

export interface FaultPlaces {
  readonly uncleanShutdowns: number;
  readonly dataLossShutdowns: number;
  readonly cleanShutdowns: number;
  readonly emptyDisks: number;
  readonly partitions: number;
  readonly isolations: number;
  readonly isrShrinks: number;
}

/** How a log lies: its length (`lw` bytes) then its entries, `ew` bytes each, `max` of them (unused ones zero). */
export interface LogShape {
  readonly lw: number;
  readonly ew: number;
  readonly max: number;
  /** An entry's epoch (`epochWidth` bytes) and value (one byte), from the entry's first byte. */
  readonly epoch: number;
  readonly epochWidth: number;
  readonly value: number;
}

export interface Places {
  readonly brokers: number;
  /** By broker id. */
  readonly running: readonly number[];
  readonly cleanShutdownFile: readonly number[];
  readonly fenced: number;
  readonly shuttingDown: number;
  readonly cut: number;
  readonly faults: FaultPlaces;
  /** By topic partition id. */
  readonly tps: readonly TopicPartitionPlaces[];
  readonly log: LogShape;
  /** Bytes of a leader epoch and of a partition epoch (the only scalars that may take more than one). */
  readonly leaderEpochWidth: number;
  readonly partitionEpochWidth: number;
  /** The largest code of each bounded counter a step increments (writes.ts checks them, as the layout would). */
  readonly max: Bounds;
}

export interface Bounds {
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly produced: number;
  readonly faults: FaultPlaces;
}

/** A field's type and absolute offset, found by walking records, total maps and composite options. */
function placeOf(root: LType, path: readonly Key[]): { readonly at: number; readonly type: LType } {
  let t = root;
  let at = 0;
  for (const seg of path) {
    if (t.kind === 'option') {
      at += 1;
      t = (t as OptionType<unknown, unknown>).inner;
    }
    if (t.kind === 'record') {
      const f = (t as RecordType).byName[seg as string];
      if (f === undefined) throw new Error(`replication layout: no field ${String(seg)} in ${path.join('.')}`);
      at += f.offset;
      t = f.type;
    } else if (t.kind === 'map') {
      const m = t as MapType;
      at += m.at(m.domain.keyIndex(seg));
      t = m.value;
    } else throw new Error(`replication layout: cannot go inside ${t.kind} at ${path.join('.')}`);
  }
  return { at, type: t };
}

/** The offset of a one-byte field (every scalar the model reads in place but the epochs). */
function byteAt(root: LType, path: readonly Key[]): number {
  const { at, type } = placeOf(root, path);
  if (type.width !== 1) throw new Error(`replication layout: ${path.join('.')} takes ${type.width} bytes, read as one`);
  return at;
}

function partitionPlaces(root: LType, path: readonly Key[]): PartitionPlaces {
  const at = (f: string) => placeOf(root, [...path, f]).at;
  const one = (f: string) => byteAt(root, [...path, f]);
  const record = placeOf(root, path);
  const start = record.type.kind === 'option' ? record.at + 1 : record.at;
  return {
    at: start,
    width: (record.type.kind === 'option' ? (record.type as OptionType<unknown, unknown>).inner : record.type).width,
    leader: one('leader'),
    leaderEpoch: at('leaderEpoch'),
    partitionEpoch: at('partitionEpoch'),
    isr: one('isr'),
    elr: one('elr'),
    lastKnownElr: one('lastKnownElr'),
    recovering: one('recovering'),
  };
}

const GHOST_FIELDS = [
  'produced',
  'acked',
  'committed',
  'uncleanElection',
  'committedRewritten',
  'committedTruncated',
  'ackBelowMinIsr',
  'cleanElectionOutside',
  'uncleanOutsideStrategy',
  'elrElectionAfterAck',
  'ackedCopyCrashed',
  'electionAfterAckedCopyCrashed',
  'preferredElected',
  'ghostAppended',
  'electionPastLaggingIsr',
] as const satisfies readonly (keyof GhostPlaces)[];

const FAULT_FIELDS = ['uncleanShutdowns', 'dataLossShutdowns', 'cleanShutdowns', 'emptyDisks', 'partitions', 'isolations', 'isrShrinks'] as const satisfies readonly (keyof FaultPlaces)[];

function topicPartitionPlaces(root: LType, tp: TopicPartition, brokers: number): TopicPartitionPlaces {
  const ghost = Object.fromEntries(GHOST_FIELDS.map((f) => [f, f === 'committed' ? placeOf(root, tp.ghostPath(f)).at : byteAt(root, tp.ghostPath(f))])) as unknown as GhostPlaces;
  const replicas = Array.from({ length: brokers }, (_, b): ReplicaPlaces => ({
    log: placeOf(root, tp.replicaPath(b, 'log')).at,
    hw: byteAt(root, tp.replicaPath(b, 'hw')),
    fetchOffsets: Array.from({ length: brokers }, (_, f) => byteAt(root, [...tp.replicaPath(b, 'fetchOffsets'), f])),
    staleFetch: byteAt(root, tp.replicaPath(b, 'staleFetch')),
    view: placeOf(root, tp.replicaPath(b, 'view')).at,
    viewPartition: partitionPlaces(root, tp.replicaPath(b, 'view')),
  }));
  return { partition: partitionPlaces(root, tp.partitionPath), replicas, ghost };
}

function placesOfLayout(root: RecordType): Places {
  const brokersMap = root.byName['brokers']!.type as MapType;
  const brokers = brokersMap.domain.count;
  const partitions = root.byName['partitions']?.type as MapType | undefined;
  const tps = topicPartitionsOf(partitions === undefined ? 1 : partitions.domain.count);
  const ids = Array.from({ length: brokers }, (_, b) => b);
  const log = placeOf(root, tps[0]!.replicaPath(0, 'log')).type as SeqType;
  const entry = log.elem as RecordType;
  const epoch = entry.byName['epoch']!;
  const value = entry.byName['value']!;
  if (value.type.width !== 1) throw new Error('replication layout: a record value takes one byte');
  const tp0 = placeOf(root, tps[0]!.partitionPath).type as RecordType;
  // The codes read in place are the values themselves (epochs, offsets, record values) or the leader plus one.
  const min = (t: LType) => (t as IntType).min;
  const maxCode = (path: readonly Key[]) => {
    const t = placeOf(root, path).type as IntType;
    return t.max - t.min;
  };
  if (min(epoch.type) !== 0 || min(value.type) !== 0 || min(tp0.byName['leader']!.type) !== NO_LEADER || min(tp0.byName['leaderEpoch']!.type) !== 0) {
    throw new Error('replication layout: epochs and values must start at 0, the leader at NO_LEADER');
  }
  return {
    brokers,
    running: ids.map((b) => byteAt(root, ['brokers', b, 'running'])),
    cleanShutdownFile: ids.map((b) => byteAt(root, ['brokers', b, 'cleanShutdownFile'])),
    fenced: byteAt(root, ['fenced']),
    shuttingDown: byteAt(root, ['shuttingDown']),
    cut: byteAt(root, ['cut']),
    faults: Object.fromEntries(FAULT_FIELDS.map((f) => [f, byteAt(root, ['faults', f])])) as unknown as FaultPlaces,
    tps: tps.map((tp) => topicPartitionPlaces(root, tp, brokers)),
    log: { lw: log.lw, ew: log.ew, max: log.max, epoch: epoch.offset, epochWidth: epoch.type.width, value: value.offset },
    leaderEpochWidth: tp0.byName['leaderEpoch']!.type.width,
    partitionEpochWidth: tp0.byName['partitionEpoch']!.type.width,
    max: {
      leaderEpoch: maxCode([...tps[0]!.partitionPath, 'leaderEpoch']),
      partitionEpoch: maxCode([...tps[0]!.partitionPath, 'partitionEpoch']),
      produced: maxCode(tps[0]!.ghostPath('produced')),
      faults: Object.fromEntries(FAULT_FIELDS.map((f) => [f, maxCode(['faults', f])])) as unknown as FaultPlaces,
    },
  };
}

const known = new WeakMap<LType, Places>();
let lastType: LType | null = null;
let lastPlaces: Places | null = null;

/** The places of a replication state layout. */
export function placesIn(layout: LType): Places {
  if (layout === lastType) return lastPlaces!;
  let places = known.get(layout);
  if (places === undefined) known.set(layout, (places = placesOfLayout(layout as RecordType)));
  lastType = layout;
  lastPlaces = places;
  return places;
}

/** Where the registration broker replica `r` acts on lies in `s`: its stale copy when cut off, else the controller's. */
export function viewPlacesOf(s: ReplicationState, tp: TopicPartitionPlaces, r: ReplicaPlaces): PartitionPlaces {
  return s._b[s._o + r.view] !== 0 ? r.viewPartition : tp.partition;
}

/** The registration broker `b` acts on in `tp`, when it is running and believes it leads there; else null. */
export function leaderViewAt(s: ReplicationState, P: Places, tp: TopicPartitionPlaces, b: number): PartitionPlaces | null {
  if (s._b[s._o + P.running[b]!] === 0) return null;
  const view = viewPlacesOf(s, tp, tp.replicas[b]!);
  return s._b[s._o + view.leader]! - 1 === b ? view : null;
}

/** The offset of follower `f`'s last valid fetch as leader replica `r` recorded it (-1: unknown). */
export function fetchOffsetAt(s: ReplicationState, r: ReplicaPlaces, f: number): number {
  return s._b[s._o + r.fetchOffsets[f]!]! - 1;
}

/** Whether follower `f`'s recorded fetch predates its restart or the leader's current epoch. */
export function fetchIsStale(s: ReplicationState, r: ReplicaPlaces, f: number): boolean {
  return (s._b[s._o + r.staleFetch]! & (1 << f)) !== 0;
}

/** The places of the state's own layout (states of other bounds, as tests build them, have their own). */
export function placesOf(s: ReplicationState): Places {
  return placesIn(s._t);
}

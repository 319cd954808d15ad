/**
 * The state of a KRaft quorum (Kafka `raft/` module: `KafkaRaftClient`, `QuorumState` and the `*State`
 * classes), in the shape of Vanlightly's kafka-tlaplus `kraft/kip_996` spec (`_types.tla`): one record
 * per voter, a network of messages, and the budgets that bound every fault and timer.
 */
import { List, Map, Record, Set } from '../immutable.ts';
import { isPacked } from '../layout/index.ts';
import type { RecordType, ScalarType, SeqType } from '../layout/types.ts';
import type { View } from '../layout/views.ts';
import type { Msg, Request } from './messages.ts';
import type { KraftMutation } from './mutations.ts';

/**
 * `QuorumState`'s epoch states (KIP-595, plus Prospective from KIP-996), the sink `IllegalState` that
 * stands for an `IllegalStateException` thrown by a transition helper, and `Dead` for a voter that
 * crashed and lost its disk.
 */
export type Role = 'Unattached' | 'Voted' | 'Prospective' | 'Candidate' | 'Leader' | 'Follower' | 'Resigned' | 'Dead' | 'IllegalState';

/** The partition-level errors that drive transitions in `maybeHandleCommonResponse`. */
export type ErrorCode = 'FENCED_LEADER_EPOCH' | 'NOT_LEADER_OR_FOLLOWER' | 'UNKNOWN_LEADER_EPOCH';

/** A log entry: its epoch and a client value, or `null` for the LeaderChange control record. */
export const Entry = Record<{ epoch: number; value: string | null }>({ epoch: 0, value: null });
export type Entry = ReturnType<typeof Entry>;

const entries = new globalThis.Map<string, Entry>();
/** The entry `(epoch, value)`, one shared record per pair: leaders append them on every write and election. */
export function entryOf(epoch: number, value: string | null): Entry {
  const key = `${epoch}|${value}`;
  let e = entries.get(key);
  if (e === undefined) entries.set(key, (e = Entry({ epoch, value })));
  return e;
}

export const Replica = Record<{
  role: Role;
  epoch: number;
  votedFor: string | null;
  /** The leader this replica knows of in its epoch (a Resigned leader keeps itself). */
  leader: string | null;
  /** Granted (pre-)votes while Prospective or Candidate, self included. */
  votes: Set<string>;
  /**
   * Rejected pre-votes while Prospective (`EpochElection.recordVote(id, false)`), counted only by the
   * KIP-996 Prospective as shipped; always empty in the KAFKA-16281 era.
   */
  rejections: Set<string>;
  log: List<Entry>;
  /** High watermark: the log prefix `[0, hwm)` known committed. Not durable. */
  hwm: number;
  /** Follower only: a fetch from the leader has succeeded in this epoch (`FollowerState.hasFetchedFromLeader`). */
  fetched: boolean;
  /**
   * The request in flight to each peer (`RequestManager`, one per connection). Cleared by every
   * transition (`resetConnections`), so a response to a request from an earlier state is ignored.
   */
  inflight: Map<string, Request>;
  /** Leader only: each voter's fetch offset as last reported (`LeaderState` voter states). */
  endOffsets: Map<string, number>;
  /** Why the replica is in `IllegalState`: the helper call that would have thrown. */
  illegal: string | null;
}>({
  role: 'Unattached',
  epoch: 0,
  votedFor: null,
  leader: null,
  votes: Set<string>(),
  rejections: Set<string>(),
  log: List<Entry>(),
  hwm: 0,
  fetched: false,
  inflight: Map<string, Request>(),
  endOffsets: Map<string, number>(),
  illegal: null,
});
export type Replica = ReturnType<typeof Replica>;

export const KraftState = Record({
  replicas: Map<string, Replica>(),
  /** In-flight messages: a set, so delivery may be delayed and reordered; loss is a budgeted action. */
  net: Set<Msg>(),
  /** Unordered pairs of voters that cannot reach each other. */
  cut: Set<Set<string>>(),
  /** Values a leader acknowledged to its client: its high watermark passed them (ghost). */
  acked: Set<string>(),
  /** Client values written so far; value `v{n}` is the n-th (each value is written once). */
  written: 0,
  // Fault and timer budgets spent (TLC-style aux counters; they gate actions, so they stay in the view).
  restarts: 0,
  crashes: 0,
  resigns: 0,
  fetchTimeouts: 0,
  electionTimeouts: 0,
  losses: 0,
  connectivityChanges: 0,
});
export type KraftState = ReturnType<typeof KraftState>;

/** The fourth condition of the same-epoch branch of `maybeHandleCommonResponse` (KAFKA-16281). */
export type FourthCondition = 'none' | 'leaderIdNotSelf' | 'notProspective';

/** What a Resigned leader does on election timeout. */
export type ResignedTimeout = 'prospective' | 'unattached';

/**
 * The Prospective state's rules.
 * - `jiraEra`: as KAFKA-16281 describes it (kafka-tlaplus @421f170): entering Prospective clears the
 *   known leader; an election timeout starts another pre-vote; rejections are not counted; a Prospective
 *   never grants a standard vote.
 * - `kip996`: as shipped (`ProspectiveState`, `QuorumState.transitionToProspective`,
 *   `KafkaRaftClient.prospectiveTransitionAfterElectionLoss`): the known leader is kept; a majority of
 *   rejections or an election timeout ends the pre-vote, to Follower of the known leader or else to
 *   Unattached in the same epoch, never Prospective again; a Prospective may grant a standard vote
 *   (`unattachedOrProspectiveCanGrantVote`, `prospectiveAddVotedState`).
 */
export type ProspectiveRules = 'jiraEra' | 'kip996';

/**
 * When timers fire.
 * - `budgeted`: any timeout may fire at any time, each within its budget (safety checking).
 * - `timely`: the network has settled (no permanent faults): a timer fires, without budget, when what
 *   it waits for cannot arrive, as Kafka's timers then do; the budgets bound only timeouts that fire
 *   early (a slow network), which stay faults.
 */
export type Timers = 'budgeted' | 'timely';

/** One instance of the model, resolved from the spec's parameters. */
export interface KraftConfig {
  readonly voters: readonly string[];
  /** `fresh`: every voter Unattached in epoch 0. `leader`: the first voter leads epoch 1, the rest follow it. */
  readonly init: 'fresh' | 'leader';
  readonly fourthCondition: FourthCondition;
  readonly resignedTimeout: ResignedTimeout;
  readonly prospective: ProspectiveRules;
  /** The leader may re-send BeginQuorumEpoch to a voter at any time (KAFKA-16281's nudge). */
  readonly nudge: boolean;
  readonly timers: Timers;
  /** A planted bug: `doubleVote` lets a Voted replica grant its vote to a second candidate in the epoch. */
  readonly bug: 'none' | 'doubleVote';
  readonly maxEpoch: number;
  readonly maxValues: number;
  readonly maxRestarts: number;
  readonly maxCrashes: number;
  readonly maxResigns: number;
  readonly maxFetchTimeouts: number;
  readonly maxElectionTimeouts: number;
  readonly maxLosses: number;
  readonly maxConnectivityChanges: number;
  /** Guard mutations for the mutation table test; never set from the command line. */
  readonly mutations?: readonly KraftMutation[];
}

/** Votes needed to win: a strict majority of the voter set. */
export function majority(cfg: KraftConfig): number {
  return Math.floor(cfg.voters.length / 2) + 1;
}

/** A replica that can act and receive: neither crashed nor stopped by an illegal transition. */
export function isLive(r: Replica): boolean {
  return r.role !== 'Dead' && r.role !== 'IllegalState';
}

/** Epoch of the last entry, 0 for an empty log (`ReplicatedLog.lastFetchedEpoch`). */
export function lastEpoch(log: List<Entry>): number {
  if (isPacked(log)) {
    const n = log.size;
    return n === 0 ? 0 : packedEpochAt(log, n - 1);
  }
  return log.size === 0 ? 0 : log.get(log.size - 1)!.epoch;
}

/**
 * The epoch of entry `i` of a packed log, read from its bytes: every send and vote reads a log's
 * epochs, and a view per entry read was most of what a step made.
 */
function packedEpochAt(log: View, i: number): number {
  const t = log._t as SeqType;
  const f = (t.elem as RecordType).byName.epoch!;
  return (f.type as ScalarType<number>).read(log._b, log._o + t.lw + i * t.ew + f.offset);
}

/**
 * `(end offset, epoch)` of the largest epoch `<= epoch` in the log (`ReplicatedLog.endOffsetForEpoch`):
 * the offset after the last entry whose epoch is at most `epoch`, and that entry's epoch (0 if none).
 * Logs are ordered by epoch, so this is a scan from the end.
 */
export function endOffsetForEpoch(log: List<Entry>, epoch: number): { offset: number; epoch: number } {
  const packed = isPacked(log);
  for (let i = log.size - 1; i >= 0; i--) {
    const e = packed ? packedEpochAt(log, i) : log.get(i)!.epoch;
    if (e <= epoch) return { offset: i + 1, epoch: e };
  }
  return { offset: 0, epoch: 0 };
}

/**
 * Raft's "at least as up to date" (`OffsetAndEpoch.compareTo`): epoch first, then offset.
 * Positive when `(epochA, offsetA)` is ahead of `(epochB, offsetB)`.
 */
export function compareLogEnd(epochA: number, offsetA: number, epochB: number, offsetB: number): number {
  return epochA !== epochB ? epochA - epochB : offsetA - offsetB;
}

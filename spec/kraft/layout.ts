/**
 * The declared layout of a KRaft state (docs/layouts.md): the same shape as the Immutable.js records of
 * state.ts and messages.ts, field for field and in the same order (traces show a packed state as those
 * records), with every bound taken from the model's parameters. A value outside its bound is a spec
 * error naming the field, so the bounds double as the model's `TypeOK`.
 */
import { layout as L } from '../layout/index.ts';
import type { KraftConfig } from './state.ts';
import { ROLES, illegalReasons } from './illegalReasons.ts';

const ERRORS = ['FENCED_LEADER_EPOCH', 'NOT_LEADER_OR_FOLLOWER', 'UNKNOWN_LEADER_EPOCH'] as const;

/** Entries of the longest log: the initial ones, at most one LeaderChange per epoch, every client value. */
export function maxLogLength(cfg: KraftConfig): number {
  return (cfg.init === 'leader' ? 2 : 0) + cfg.maxEpoch + cfg.maxValues;
}

/**
 * The most messages in flight. Each ordered pair of voters carries at most one exchange of its
 * connection (the request in flight or its reply: `RequestManager` keeps one per peer, and replies
 * nobody waits for are tidied away) and one more message (a BeginQuorumEpoch, or a request its sender
 * has forgotten but its receiver may still act on). Beyond that, each fault or timeout can strand the
 * requests of one voter to its peers.
 */
export function maxMessages(cfg: KraftConfig): number {
  const n = cfg.voters.length;
  const faults = cfg.maxRestarts + cfg.maxCrashes + cfg.maxResigns + cfg.maxFetchTimeouts + cfg.maxElectionTimeouts + cfg.maxLosses + cfg.maxConnectivityChanges;
  return 2 * n * (n - 1) + faults * (n - 1);
}

export function kraftLayout(cfg: KraftConfig) {
  const Voter = L.ids('voter', cfg.voters);
  const maxLog = maxLogLength(cfg);
  const Epoch = L.int(0, cfg.maxEpoch);
  const Offset = L.int(0, maxLog);
  const Value = L.enumOf(Array.from({ length: cfg.maxValues + 1 }, (_, i) => `v${i}`));
  const ErrorCode = L.option(L.enumOf(ERRORS));

  /** A log entry: its epoch and a client value, or null for the LeaderChange control record. */
  const Entry = L.record('Entry', { epoch: Epoch, value: L.option(Value) });

  // The fields of each request, shared by the network's messages, the requests a reply answers and the
  // requests in flight, so that the same request compares equal wherever it is held.
  const voteRequest = { from: Voter, to: Voter, epoch: Epoch, preVote: L.bool(), lastEpoch: Epoch, lastOffset: Offset };
  const fetchRequest = { from: Voter, to: Voter, epoch: Epoch, fetchOffset: Offset, lastFetchedEpoch: Epoch };
  const Request = L.variant('Request', 'type', { VoteRequest: voteRequest, FetchRequest: fetchRequest });

  const Msg = L.variant('Msg', 'type', {
    VoteRequest: voteRequest,
    VoteResponse: {
      from: Voter,
      to: Voter,
      epoch: Epoch,
      preVote: L.bool(),
      leaderId: L.option(Voter),
      granted: L.bool(),
      error: ErrorCode,
      inReplyTo: Request,
    },
    BeginQuorumEpoch: { from: Voter, to: Voter, epoch: Epoch },
    FetchRequest: fetchRequest,
    FetchResponse: {
      from: Voter,
      to: Voter,
      epoch: Epoch,
      leaderId: L.option(Voter),
      error: ErrorCode,
      entry: L.option(Entry),
      hwm: Offset,
      divergingEpoch: L.option(Epoch),
      divergingEnd: Offset,
      inReplyTo: Request,
    },
  });

  const Replica = L.record('Replica', {
    role: L.enumOf(ROLES),
    epoch: Epoch,
    votedFor: L.option(Voter),
    leader: L.option(Voter),
    votes: L.idSet(Voter),
    rejections: L.idSet(Voter),
    log: L.list(Entry, maxLog),
    hwm: Offset,
    fetched: L.bool(),
    inflight: L.partialMap(Voter, Request),
    endOffsets: L.partialMap(Voter, Offset),
    // The recorded text, one of the reasons the model can give (illegalReasons.ts), stored as its code.
    illegal: L.option(L.enumOf(illegalReasons(cfg, maxLog))),
  });

  const n = cfg.voters.length;
  const State = L.record('KraftState', {
    replicas: L.map(Voter, Replica),
    net: L.set(Msg, maxMessages(cfg)),
    /** Unordered pairs of voters that cannot reach each other. */
    cut: L.set(L.idSet(Voter), (n * (n - 1)) / 2),
    acked: L.idSet(Value),
    written: L.int(0, cfg.maxValues),
    restarts: L.int(0, cfg.maxRestarts),
    crashes: L.int(0, cfg.maxCrashes),
    resigns: L.int(0, cfg.maxResigns),
    fetchTimeouts: L.int(0, cfg.maxFetchTimeouts),
    electionTimeouts: L.int(0, cfg.maxElectionTimeouts),
    losses: L.int(0, cfg.maxLosses),
    connectivityChanges: L.int(0, cfg.maxConnectivityChanges),
  });
  return { Voter, Entry, Request, Msg, Replica, State };
}

export type KraftLayout = ReturnType<typeof kraftLayout>['State'];

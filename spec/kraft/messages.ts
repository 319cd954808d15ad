/**
 * KRaft RPCs (KIP-595 Vote, BeginQuorumEpoch, Fetch; KIP-996 pre-vote) and the network that carries
 * them. One record type for every message keeps states small and hashing cheap; unused fields stay at
 * their defaults.
 *
 * The network is a set (kafka-tlaplus `network.tla`): messages may be delayed and reordered, and loss is
 * a budgeted action. Connections follow `RequestManager`: a requester tracks one in-flight request per
 * peer and forgets them all on every transition, so a response that is no longer expected is ignored
 * (`KafkaRaftClient.handleInboundMessage`: "Ignoring response ... since it is no longer needed"). Such
 * responses are dropped as soon as they are made or become stale, which leaves the same behaviours
 * with fewer states.
 */
import { Record, Set } from 'immutable';
import { type Entry, type ErrorCode, type KraftState, type Replica, isLive } from './state.ts';

export type MsgType = 'VoteRequest' | 'VoteResponse' | 'BeginQuorumEpoch' | 'FetchRequest' | 'FetchResponse';

export const Msg = Record<{
  type: MsgType;
  from: string;
  to: string;
  /** Request: the sender's epoch (a candidate's epoch for votes). Response: the responder's epoch. */
  epoch: number;
  /** Vote request/response: a KIP-996 pre-vote. */
  preVote: boolean;
  /** Vote request: the candidate's last log epoch. Fetch request: `lastFetchedEpoch`. */
  lastEpoch: number;
  /** Vote request: the candidate's log end offset. Fetch request: `fetchOffset`. */
  lastOffset: number;
  /** Responses: the leader the responder knows of (`quorum.leaderIdOrSentinel()`). */
  leaderId: string | null;
  granted: boolean;
  error: ErrorCode | null;
  /** Fetch response: the entry at the fetch offset, if the leader has one. */
  entry: Entry | null;
  /** Fetch response: the leader's high watermark. */
  hwm: number;
  /** Fetch response: `DivergingEpoch` (epoch and end offset) when the fetch position is not on the leader's log. */
  divergingEpoch: number | null;
  divergingEnd: number;
}>({
  type: 'VoteRequest',
  from: '',
  to: '',
  epoch: 0,
  preVote: false,
  lastEpoch: 0,
  lastOffset: 0,
  leaderId: null,
  granted: false,
  error: null,
  entry: null,
  hwm: 0,
  divergingEpoch: null,
  divergingEnd: 0,
});
export type Msg = ReturnType<typeof Msg>;

const isRequest = (m: Msg) => m.type === 'VoteRequest' || m.type === 'FetchRequest';
const isResponse = (m: Msg) => m.type === 'VoteResponse' || m.type === 'FetchResponse';

/** A short label for diagrams and traces, e.g. `PreVote e1` or `PreVoteResp e1 denied leader=r1`. */
export function label(m: Msg): string {
  switch (m.type) {
    case 'VoteRequest':
      return `${m.preVote ? 'PreVote' : 'Vote'} e${m.epoch} last=(${m.lastEpoch},${m.lastOffset})`;
    case 'VoteResponse':
      return `${m.preVote ? 'PreVoteResp' : 'VoteResp'} e${m.epoch} ${m.granted ? 'granted' : 'denied'}` +
        (m.leaderId !== null ? ` leader=${m.leaderId}` : '') + (m.error !== null ? ` ${m.error}` : '');
    case 'BeginQuorumEpoch':
      return `BeginQuorumEpoch e${m.epoch}`;
    case 'FetchRequest':
      return `Fetch e${m.epoch} offset=${m.lastOffset} lastEpoch=${m.lastEpoch}`;
    case 'FetchResponse':
      if (m.error !== null) return `FetchResp e${m.epoch} ${m.error}` + (m.leaderId !== null ? ` leader=${m.leaderId}` : '');
      if (m.divergingEpoch !== null) return `FetchResp e${m.epoch} diverging=(${m.divergingEpoch},${m.divergingEnd})`;
      return `FetchResp e${m.epoch} hwm=${m.hwm}` + (m.entry !== null ? ` entry=(${m.entry.epoch},${m.entry.value ?? 'LeaderChange'})` : '');
  }
}

/** For `StepEvents`: who sent what to whom. */
export function event(m: Msg): { from: string; to: string; label: string } {
  return { from: m.from, to: m.to, label: label(m) };
}

const keyCache = new WeakMap<Msg, string>();

/** A total order on messages, so actions enumerate the network deterministically. */
export function msgKey(m: Msg): string {
  let k = keyCache.get(m);
  if (k === undefined) {
    k = `${m.to}|${m.from}|${m.type}|${label(m)}`;
    keyCache.set(m, k);
  }
  return k;
}

const sortedCache = new WeakMap<Set<Msg>, Msg[]>();

/** Every message, in a fixed order (computed once per network value). */
export function allMessages(s: KraftState): Msg[] {
  let out = sortedCache.get(s.net);
  if (out === undefined) {
    out = [...s.net].sort((a, b) => (msgKey(a) < msgKey(b) ? -1 : msgKey(a) > msgKey(b) ? 1 : 0));
    sortedCache.set(s.net, out);
  }
  return out;
}

/** The network's messages of one type, in a fixed order. */
export function messagesOfType(s: KraftState, type: MsgType): Msg[] {
  return allMessages(s).filter((m) => m.type === type);
}

export function linked(s: KraftState, a: string, b: string): boolean {
  return s.cut.size === 0 || !s.cut.has(Set([a, b]));
}

/** Whether a message from `from` to `to` can be delivered now: both up and connected. */
export function deliverable(s: KraftState, from: string, to: string): boolean {
  const r = s.replicas.get(to)!;
  return isLive(r) && isLive(s.replicas.get(from)!) && linked(s, from, to);
}

/** Puts a one-way message (BeginQuorumEpoch) on the network, or loses it on a cut link. */
export function send(s: KraftState, m: Msg): KraftState {
  return deliverable(s, m.from, m.to) ? s.set('net', s.net.add(m)) : s;
}

/**
 * Sends a request and records it as in flight, unless the link is down: then the connection fails and
 * nothing is outstanding (the requester may try again later).
 */
export function sendRequest(s: KraftState, m: Msg): KraftState {
  if (!deliverable(s, m.from, m.to)) return s;
  const r = s.replicas.get(m.from)!;
  return s.set('net', s.net.add(m)).setIn(['replicas', m.from], r.set('inflight', r.inflight.add(m.to)));
}

/** Sends a response, if the requester still expects one from this peer; otherwise it would be ignored. */
export function sendResponse(s: KraftState, m: Msg): KraftState {
  if (!deliverable(s, m.from, m.to)) return s;
  if (!s.replicas.get(m.to)!.inflight.has(m.from)) return s;
  return s.set('net', s.net.add(m));
}

export function consume(s: KraftState, m: Msg): KraftState {
  return s.set('net', s.net.remove(m));
}

/**
 * Stores replica `id`'s new record. Responses addressed to it that it no longer expects (its
 * connections were reset by a transition) can never be handled, so they are removed.
 */
export function putReplica(s: KraftState, id: string, r: Replica): KraftState {
  let net = s.net;
  for (const m of net) {
    if (m.to === id && isResponse(m) && !r.inflight.has(m.from)) net = net.remove(m);
  }
  return s.set('replicas', s.replicas.set(id, r)).set('net', net);
}

/**
 * Removes messages (loss, a cut link, a crashed or restarting node). A lost request or response ends
 * its request: the requester's connection times out and frees the slot (`RequestManager.onResponseError`).
 */
export function dropMessages(s: KraftState, lost: (m: Msg) => boolean): KraftState {
  let net = s.net;
  let replicas = s.replicas;
  for (const m of s.net) {
    if (!lost(m)) continue;
    net = net.remove(m);
    const requester = isRequest(m) ? m.from : isResponse(m) ? m.to : null;
    const peer = isRequest(m) ? m.to : m.from;
    if (requester !== null) {
      const r = replicas.get(requester)!;
      if (r.inflight.has(peer)) replicas = replicas.set(requester, r.set('inflight', r.inflight.remove(peer)));
    }
  }
  return s.set('net', net).set('replicas', replicas);
}

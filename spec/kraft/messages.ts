/**
 * KRaft RPCs (KIP-595 Vote, BeginQuorumEpoch, Fetch; KIP-996 pre-vote) and the network that carries
 * them. One record type for every message keeps states small and hashing cheap; unused fields stay at
 * their defaults.
 *
 * The network is a set (kafka-tlaplus `network.tla`): messages may be delayed and reordered, and loss is
 * a budgeted action. Connections follow `RequestManager`: a requester tracks one in-flight request per
 * peer and forgets them all on every transition, and a response is handled only if it answers the
 * request in flight (`KafkaRaftClient.handleInboundMessage`: "Ignoring response ... since it is no
 * longer needed"; a response carries its request, standing for the correlation id).
 *
 * After every step the network is normalised (`tidy`): messages that can never change any replica
 * again are removed at once, so they do not multiply states: responses no longer expected, and stale
 * requests that the receiver would only reject.
 */
import { Record, type RecordOf, Set, is } from 'immutable';
import { type Entry, type ErrorCode, type KraftState, type Replica, isLive } from './state.ts';

export type MsgType = 'VoteRequest' | 'VoteResponse' | 'BeginQuorumEpoch' | 'FetchRequest' | 'FetchResponse';

export interface MsgProps {
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
  /** Responses: the request answered (the correlation id). */
  inReplyTo: RecordOf<MsgProps> | null;
}

export const Msg = Record<MsgProps>({
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
  inReplyTo: null,
});
export type Msg = RecordOf<MsgProps>;

const isRequest = (m: Msg) => m.type === 'VoteRequest' || m.type === 'FetchRequest';

/** A response to request `req`, from its receiver. */
export function reply(req: Msg, props: Partial<MsgProps>): Msg {
  return Msg().withMutations((m) => {
    m.set('type', req.type === 'VoteRequest' ? 'VoteResponse' : 'FetchResponse').set('from', req.to).set('to', req.from);
    m.set('preVote', req.preVote).set('inReplyTo', req);
    for (const k of Object.keys(props) as (keyof MsgProps)[]) m.set(k, props[k]!);
  });
}

/** A short label for diagrams and traces, e.g. `PreVote e1` or `PreVoteResp e1 denied leader=r1`. */
export function label(m: Msg): string {
  switch (m.type) {
    case 'VoteRequest':
      return `${m.preVote ? 'PreVote' : 'Vote'} e${m.epoch} last=(${m.lastEpoch},${m.lastOffset})`;
    case 'VoteResponse':
      return (
        `${m.preVote ? 'PreVoteResp' : 'VoteResp'} e${m.epoch} ${m.granted ? 'granted' : 'denied'}` +
        (m.leaderId !== null ? ` leader=${m.leaderId}` : '') +
        (m.error !== null ? ` ${m.error}` : '')
      );
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

/** A readable total order on messages (ties of `order` only). */
export function msgKey(m: Msg): string {
  let k = keyCache.get(m);
  if (k === undefined) {
    const req = m.inReplyTo;
    k = `${m.to}|${m.from}|${m.type}|${label(m)}` + (req !== null ? `|${label(req)}` : '');
    keyCache.set(m, k);
  }
  return k;
}

/** A total order on messages by content, so actions enumerate the network deterministically. */
function order(a: Msg, b: Msg): number {
  const ha = a.hashCode();
  const hb = b.hashCode();
  if (ha !== hb) return ha - hb;
  const ka = msgKey(a);
  const kb = msgKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

const sortedCache = new WeakMap<Set<Msg>, Msg[]>();

/** Every message, in a fixed order (computed once per network value). */
export function allMessages(s: KraftState): Msg[] {
  let out = sortedCache.get(s.net);
  if (out === undefined) {
    out = s.net.toArray().sort(order);
    sortedCache.set(s.net, out);
  }
  return out;
}

const byTypeCache = new WeakMap<Set<Msg>, globalThis.Map<MsgType, Msg[]>>();

/** The network's messages of one type, in a fixed order (computed once per network value). */
export function messagesOfType(s: KraftState, type: MsgType): Msg[] {
  let byType = byTypeCache.get(s.net);
  if (byType === undefined) {
    byType = new globalThis.Map();
    for (const m of allMessages(s)) {
      const list = byType.get(m.type);
      if (list === undefined) byType.set(m.type, [m]);
      else list.push(m);
    }
    byTypeCache.set(s.net, byType);
  }
  return byType.get(type) ?? [];
}

export function linked(s: KraftState, a: string, b: string): boolean {
  return s.cut.size === 0 || !s.cut.has(Set([a, b]));
}

/** Whether a message from `from` to `to` can be delivered now: both up and connected. */
export function deliverable(s: KraftState, from: string, to: string): boolean {
  return isLive(s.replicas.get(to)!) && isLive(s.replicas.get(from)!) && linked(s, from, to);
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
  return s.set('net', s.net.add(m)).set('replicas', s.replicas.set(m.from, r.set('inflight', r.inflight.set(m.to, m))));
}

/** Whether the response answers the request its receiver has in flight to the responder. */
export function expected(r: Replica, m: Msg): boolean {
  const req = r.inflight.get(m.from);
  return req !== undefined && is(req, m.inReplyTo);
}

/** Sends a response, if the requester still waits for it; otherwise it would be ignored. */
export function sendResponse(s: KraftState, m: Msg): KraftState {
  if (!deliverable(s, m.from, m.to) || !expected(s.replicas.get(m.to)!, m)) return s;
  return s.set('net', s.net.add(m));
}

export function consume(s: KraftState, m: Msg): KraftState {
  return s.set('net', s.net.remove(m));
}

export function putReplica(s: KraftState, id: string, r: Replica): KraftState {
  return s.set('replicas', s.replicas.set(id, r));
}

/**
 * Whether a message can never again change its receiver or be answered usefully:
 * - a response its requester no longer waits for;
 * - a request the requester no longer waits for, that the receiver can only reject without changing
 *   state: an older epoch than the receiver's, or a fetch to a replica that cannot lead its epoch.
 *   Epochs only grow, and a replica leads only an epoch it was elected in, so this stays true.
 */
function inert(s: KraftState, m: Msg): boolean {
  const to = s.replicas.get(m.to)!;
  if (m.type === 'VoteResponse' || m.type === 'FetchResponse') return !expected(to, m);
  if (m.type === 'BeginQuorumEpoch') return m.epoch < to.epoch;
  const waiting = s.replicas.get(m.from)!.inflight.get(m.to);
  if (waiting !== undefined && is(waiting, m)) return false;
  return m.epoch < to.epoch || (m.type === 'FetchRequest' && m.epoch === to.epoch && to.role !== 'Leader');
}

/** Removes the inert messages (see `inert`) to or from the given replicas. */
export function tidy(s: KraftState, ids: readonly string[]): KraftState {
  if (ids.length === 0) return s;
  let net = s.net;
  for (const m of s.net) if ((ids.includes(m.to) || ids.includes(m.from)) && inert(s, m)) net = net.remove(m);
  return net === s.net ? s : s.set('net', net);
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
    if (m.type === 'BeginQuorumEpoch') continue;
    const req = isRequest(m) ? m : m.inReplyTo!;
    const r = replicas.get(req.from)!;
    if (is(r.inflight.get(req.to), req)) replicas = replicas.set(req.from, r.set('inflight', r.inflight.remove(req.to)));
  }
  return s.set('net', net).set('replicas', replicas);
}

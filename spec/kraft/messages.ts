/**
 * KRaft RPCs (KIP-595 Vote, BeginQuorumEpoch, Fetch; KIP-996 pre-vote) and the network that carries
 * them, one record type per message.
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
import { Record, type RecordOf, Set, is } from '../immutable.ts';
import { isPacked } from '../layout/index.ts';
import { View } from '../layout/views.ts';
import { BytesMemo } from '../layout/bytesMemo.ts';
import { addInPlace, removeInPlace, removeInPlaceWhere } from './packedNetwork.ts';
import { packedSettleOf, packedSettleOfReplica } from './packedSettle.ts';
import { Entry, type ErrorCode, type KraftState, type Replica, isLive } from './state.ts';

/** `VoteRequest`: a (pre-)vote for `from` as leader of `epoch`, with its log end (KIP-595, KIP-996). */
export interface VoteRequestProps {
  type: 'VoteRequest';
  from: string;
  to: string;
  /** The candidate's epoch; for a pre-vote, the Prospective's current epoch (kafka-tlaplus @421f170). */
  epoch: number;
  preVote: boolean;
  lastEpoch: number;
  lastOffset: number;
}

/** `VoteResponse`: always names the responder's epoch and the leader it knows of (`buildVoteResponse`). */
export interface VoteResponseProps {
  type: 'VoteResponse';
  from: string;
  to: string;
  epoch: number;
  preVote: boolean;
  leaderId: string | null;
  granted: boolean;
  error: ErrorCode | null;
  /** The request answered: the correlation id. */
  inReplyTo: VoteRequest;
}

/** `BeginQuorumEpoch`: the leader of `epoch` announces itself. Its response is not modelled. */
export interface BeginQuorumEpochProps {
  type: 'BeginQuorumEpoch';
  from: string;
  to: string;
  epoch: number;
}

export interface FetchRequestProps {
  type: 'FetchRequest';
  from: string;
  to: string;
  epoch: number;
  /** The follower's log end offset. */
  fetchOffset: number;
  /** The epoch of the follower's last entry. */
  lastFetchedEpoch: number;
}

export interface FetchResponseProps {
  type: 'FetchResponse';
  from: string;
  to: string;
  epoch: number;
  leaderId: string | null;
  error: ErrorCode | null;
  /** The entry at the fetch offset, if the leader has one. */
  entry: Entry | null;
  /** The leader's high watermark. */
  hwm: number;
  /** `DivergingEpoch`: the leader's log for this epoch ends at `divergingEnd`; the follower must truncate. */
  divergingEpoch: number | null;
  divergingEnd: number;
  inReplyTo: FetchRequest;
}

export type VoteRequest = RecordOf<VoteRequestProps>;
export type VoteResponse = RecordOf<VoteResponseProps>;
export type BeginQuorumEpoch = RecordOf<BeginQuorumEpochProps>;
export type FetchRequest = RecordOf<FetchRequestProps>;
export type FetchResponse = RecordOf<FetchResponseProps>;
export type Request = VoteRequest | FetchRequest;
export type Msg = VoteRequest | VoteResponse | BeginQuorumEpoch | FetchRequest | FetchResponse;
export type MsgType = Msg['type'];

const VoteRequestRecord = Record<VoteRequestProps>({ type: 'VoteRequest', from: '', to: '', epoch: 0, preVote: false, lastEpoch: 0, lastOffset: 0 });
const VoteResponseRecord = Record<VoteResponseProps>({
  type: 'VoteResponse',
  from: '',
  to: '',
  epoch: 0,
  preVote: false,
  leaderId: null,
  granted: false,
  error: null,
  inReplyTo: VoteRequestRecord(),
});
const BeginQuorumEpochRecord = Record<BeginQuorumEpochProps>({ type: 'BeginQuorumEpoch', from: '', to: '', epoch: 0 });
const FetchRequestRecord = Record<FetchRequestProps>({ type: 'FetchRequest', from: '', to: '', epoch: 0, fetchOffset: 0, lastFetchedEpoch: 0 });
const FetchResponseRecord = Record<FetchResponseProps>({
  type: 'FetchResponse',
  from: '',
  to: '',
  epoch: 0,
  leaderId: null,
  error: null,
  entry: null,
  hwm: 0,
  divergingEpoch: null,
  divergingEnd: 0,
  inReplyTo: FetchRequestRecord(),
});

// Equal messages are one shared instance, so the hash and fingerprint cached on it are computed once,
// however often the message is sent again.
const interned = new globalThis.Map<string, Msg>();
const serial = new WeakMap<Msg, number>();

function intern<M extends Msg>(key: string, make: () => M): M {
  let m = interned.get(key) as M | undefined;
  if (m === undefined) {
    m = make();
    interned.set(key, m);
    serial.set(m, interned.size);
  }
  return m;
}

export function voteRequest(from: string, to: string, epoch: number, preVote: boolean, lastEpoch: number, lastOffset: number): VoteRequest {
  return intern(`VQ|${from}|${to}|${epoch}|${preVote}|${lastEpoch}|${lastOffset}`, () =>
    VoteRequestRecord({ from, to, epoch, preVote, lastEpoch, lastOffset }),
  );
}

/**
 * The interned request equal to `req`. A packed state holds its messages as bytes and reads them as
 * views of its own buffer; a reply keeps the request it answers as a value of its own.
 */
function ownRequest<R extends Request>(req: R): R {
  if (!isPacked(req)) return req;
  const q = req as Request;
  return (q.type === 'VoteRequest' ? voteRequest(q.from, q.to, q.epoch, q.preVote, q.lastEpoch, q.lastOffset) : fetchRequest(q.from, q.to, q.epoch, q.fetchOffset, q.lastFetchedEpoch)) as R;
}

export function voteResponse(req: VoteRequest, epoch: number, leaderId: string | null, granted: boolean, error: ErrorCode | null = null): VoteResponse {
  req = ownRequest(req);
  return intern(`VR|${serial.get(req)}|${epoch}|${leaderId}|${granted}|${error}`, () =>
    VoteResponseRecord({ from: req.to, to: req.from, epoch, preVote: req.preVote, leaderId, granted, error, inReplyTo: req }),
  );
}

export function beginQuorumEpoch(from: string, to: string, epoch: number): BeginQuorumEpoch {
  return intern(`BQ|${from}|${to}|${epoch}`, () => BeginQuorumEpochRecord({ from, to, epoch }));
}

export function fetchRequest(from: string, to: string, epoch: number, fetchOffset: number, lastFetchedEpoch: number): FetchRequest {
  return intern(`FQ|${from}|${to}|${epoch}|${fetchOffset}|${lastFetchedEpoch}`, () =>
    FetchRequestRecord({ from, to, epoch, fetchOffset, lastFetchedEpoch }),
  );
}

export function fetchResponse(
  req: FetchRequest,
  epoch: number,
  leaderId: string | null,
  body: { error?: ErrorCode; entry?: Entry | null; hwm?: number; divergingEpoch?: number; divergingEnd?: number },
): FetchResponse {
  const { error = null, hwm = 0, divergingEpoch = null, divergingEnd = 0 } = body;
  const entry = isPacked(body.entry) ? Entry({ epoch: body.entry.epoch, value: body.entry.value }) : (body.entry ?? null);
  req = ownRequest(req);
  const key = `FR|${serial.get(req)}|${epoch}|${leaderId}|${error}|${entry === null ? '-' : `${entry.epoch}:${entry.value}`}|${hwm}|${divergingEpoch}|${divergingEnd}`;
  return intern(key, () => FetchResponseRecord({ from: req.to, to: req.from, epoch, leaderId, error, entry, hwm, divergingEpoch, divergingEnd, inReplyTo: req }));
}

/** How actions make messages: Immutable.js records (above), or packed values of the state's layout (packedMessages.ts). */
export interface Messages {
  readonly voteRequest: typeof voteRequest;
  readonly voteResponse: typeof voteResponse;
  readonly beginQuorumEpoch: typeof beginQuorumEpoch;
  readonly fetchRequest: typeof fetchRequest;
  readonly fetchResponse: typeof fetchResponse;
}

export const immutableMessages: Messages = { voteRequest, voteResponse, beginQuorumEpoch, fetchRequest, fetchResponse };

const isResponse = (m: Msg): m is VoteResponse | FetchResponse => m.type === 'VoteResponse' || m.type === 'FetchResponse';

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
      return `Fetch e${m.epoch} offset=${m.fetchOffset} lastEpoch=${m.lastFetchedEpoch}`;
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
/** Keys of packed messages, by layout and then by the message's bytes (views are read afresh each time). */
const packedKeyCache = new WeakMap<object, globalThis.Map<string, string>>();

/**
 * A total order on messages by content (receiver, sender, then the rest), so actions enumerate the
 * network deterministically and traces read in voter order.
 */
export function msgKey(m: Msg): string {
  if (isPacked(m)) {
    let byBytes = packedKeyCache.get(m._t);
    if (byBytes === undefined) packedKeyCache.set(m._t, (byBytes = new globalThis.Map()));
    const bytes = String.fromCharCode.apply(null, m.bytes as unknown as number[]);
    let k = byBytes.get(bytes);
    if (k === undefined) byBytes.set(bytes, (k = contentKey(m)));
    return k;
  }
  let k = keyCache.get(m);
  if (k === undefined) {
    k = contentKey(m);
    keyCache.set(m, k);
  }
  return k;
}

function contentKey(m: Msg): string {
  return `${m.to}|${m.from}|${m.type}|${label(m)}` + (isResponse(m) ? `|${label(m.inReplyTo)}` : '');
}

/** A message and the parameters `{ s: receiver, m }` of the action that handles it. */
interface Indexed {
  readonly m: Msg;
  readonly param: { s: string; m: Msg };
}

/**
 * Every message of a network in the fixed order; by type, and as the parameters of the actions that
 * handle them, made when first asked for (a state's guards ask for a few types; a packed state is
 * indexed afresh each time it is expanded).
 */
class NetIndex {
  private allMessages: Msg[] | null = null;
  private readonly byType = byTypeOf<Msg>();
  private params: ByType<{ s: string; m: Msg }> | null = null;
  constructor(private readonly entries: readonly Indexed[]) {}

  get all(): Msg[] {
    return (this.allMessages ??= this.entries.map(messageOf));
  }
  ofType(type: MsgType): Msg[] {
    let list = this.byType[type];
    if (list === undefined) this.byType[type] = list = this.paramsOf(type).map(paramMessage);
    return list;
  }
  paramsOf(type: MsgType): { s: string; m: Msg }[] {
    return (this.params ??= this.sorted())[type] ?? (NO_MESSAGES as unknown as { s: string; m: Msg }[]);
  }
  /** Every message's parameters, in one pass, to the list of its type (the engine asks for every type of a state). */
  private sorted(): ByType<{ s: string; m: Msg }> {
    const params = byTypeOf<{ s: string; m: Msg }>();
    for (const e of this.entries) {
      const list = params[e.m.type];
      if (list === undefined) params[e.m.type] = [e.param];
      else list.push(e.param);
    }
    return params;
  }
}

const messageOf = (e: Indexed): Msg => e.m;
const paramMessage = (p: { s: string; m: Msg }): Msg => p.m;

/** One list per message type, absent until asked for (a fixed shape). */
type ByType<T> = { [K in MsgType]: T[] | undefined };

function byTypeOf<T>(): ByType<T> {
  return { VoteRequest: undefined, VoteResponse: undefined, BeginQuorumEpoch: undefined, FetchRequest: undefined, FetchResponse: undefined };
}

/** Immutable.js states: by the network's value (states share it). */
const indexByNet = new WeakMap<object, NetIndex>();
/**
 * What indexing needs of one packed message: a view of its own copy of the bytes, its key and its
 * action parameters. Kept per distinct message, by layout and then by the bytes, so a packed
 * network is indexed from these (networks hold few messages, drawn from a small set). Bounded:
 * emptied when full.
 */
interface PackedMsg {
  readonly m: Msg;
  readonly key: string;
  readonly param: { s: string; m: Msg };
}
type ElementType = { read(b: Uint8Array, o: number, p: null, k: string): unknown };
type PackedNet = { lw: number; ew: number; elem: ElementType; size(b: Uint8Array, o: number): number };
const packedMsgs = new WeakMap<object, BytesMemo<PackedMsg>>();

function packedMsgsOf(t: object, elem: ElementType): BytesMemo<PackedMsg> {
  let memo = packedMsgs.get(t);
  if (memo === undefined) {
    memo = new BytesMemo((bytes) => {
      const m = elem.read(bytes, 0, null, '[]') as Msg;
      return { m, key: contentKey(m), param: { s: m.to, m } };
    });
    packedMsgs.set(t, memo);
  }
  return memo;
}

/**
 * The last packed state indexed and its index: the engine asks for the messages of each type of one
 * state in turn (one action per type). A state view is immutable, except the copy a step writes in place.
 */
let lastState: KraftState | null = null;
let lastIndex: NetIndex | null = null;

function indexOf(s: KraftState): NetIndex {
  if (s === lastState) return lastIndex!;
  if (!isPacked(s)) {
    let x = indexByNet.get(s.net);
    if (x === undefined) indexByNet.set(s.net, (x = buildIndex(s.net)));
    return x;
  }
  const net = s.net as unknown as View & { _t: PackedNet };
  const t = net._t;
  const memo = packedMsgsOf(t, t.elem);
  const b = net._b;
  const base = net._o + t.lw;
  const n = t.size(b, net._o);
  const ew = t.ew;
  const entries: PackedMsg[] = [];
  for (let i = 0; i < n; i++) entries.push(memo.of(b, base + i * ew, ew));
  // In the network's (byte) order, then by key: the order `buildIndex` gives. An insertion sort: a few
  // messages, and `sort` copies its array.
  for (let i = 1; i < n; i++) {
    const e = entries[i]!;
    let j = i - 1;
    for (; j >= 0 && entries[j]!.key > e.key; j--) entries[j + 1] = entries[j]!;
    entries[j + 1] = e;
  }
  return remember(s, new NetIndex(entries));
}

function remember(s: KraftState, x: NetIndex): NetIndex {
  if (s !== stepping) {
    lastState = s;
    lastIndex = x;
  }
  return x;
}

function buildIndex(net: Set<Msg>): NetIndex {
  // Each key once, then sort (a packed message's key is looked up by its bytes).
  const all = net
    .toArray()
    .map((m) => [msgKey(m), m] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, m]) => ({ m, param: { s: m.to, m } }));
  return new NetIndex(all);
}

const NO_MESSAGES: Msg[] = [];

/** Every message, in a fixed order (computed once per network value). */
export function allMessages(s: KraftState): Msg[] {
  return indexOf(s).all;
}

export function messagesOfType<T extends MsgType>(s: KraftState, type: T): Extract<Msg, { type: T }>[];
export function messagesOfType(s: KraftState, type: MsgType): Msg[] {
  return indexOf(s).ofType(type);
}

/**
 * Value equality of two values that may be packed views (`is` without its generic dispatch: packed
 * states compare their messages, requests and replicas on every step).
 */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof View) return a.equals(b);
  return is(a, b);
}

/** The parameters `{ s: receiver, m }` of the actions that handle messages of one type, in `allMessages` order. */
export function messageParams(s: KraftState, type: MsgType): { s: string; m: Msg }[] {
  return indexOf(s).paramsOf(type);
}

export function linked(s: KraftState, a: string, b: string): boolean {
  return s.cut.size === 0 || !s.cut.has(Set([a, b]));
}

/** Whether a message from `from` to `to` can be delivered now: both up and connected. */
export function deliverable(s: KraftState, from: string, to: string): boolean {
  if (isPacked(s)) {
    // Read from the bytes: every send and guard asks (packedSettle.ts).
    const k = packedSettleOf(s);
    if (k !== null) {
      const { _b: b, _o: o } = s as unknown as View;
      const d = k.deliverable(b, o, k.index(from), k.index(to));
      if (d >= 0) return d === 1;
    }
  }
  return isLive(s.replicas.get(to)!) && isLive(s.replicas.get(from)!) && linked(s, from, to);
}

/** The mutable copy of a packed state that the step in progress writes (see `inPlace`), or null. */
let stepping: KraftState | null = null;

/**
 * Runs `step` on `w`, the mutable copy a step writes (`withMutations`): while it runs, the network of a
 * packed `w` is written in place (packedNetwork.ts).
 */
export function inPlace<T>(w: KraftState, step: (w: KraftState) => T): T {
  const outer = stepping;
  stepping = isPacked(w) ? w : null;
  try {
    return step(w);
  } finally {
    stepping = outer;
  }
}

/** Whether `s` is the copy the step in progress writes in place (a packed state). */
export function writesInPlace(s: KraftState): boolean {
  return s === stepping;
}

function addMessage(s: KraftState, m: Msg): KraftState {
  if (s === stepping && addInPlace(s.net, m)) return s;
  return s.set('net', s.net.add(m));
}

function removeMessage(s: KraftState, m: Msg): KraftState {
  if (s === stepping && removeInPlace(s.net, m)) return s;
  return s.set('net', s.net.remove(m));
}

/** Puts a one-way message (BeginQuorumEpoch) on the network, or loses it on a cut link. */
export function send(s: KraftState, m: BeginQuorumEpoch): KraftState {
  return deliverable(s, m.from, m.to) ? addMessage(s, m) : s;
}

/**
 * Sends a request and records it as in flight, unless the link is down: then the connection fails and
 * nothing is outstanding (the requester may try again later).
 */
export function sendRequest(s: KraftState, m: Request): KraftState {
  if (!deliverable(s, m.from, m.to)) return s;
  s = addMessage(s, m);
  if (s === stepping) {
    // The step's own copy: the request goes straight into its slot (packedSettle.ts).
    const k = packedSettleOf(s);
    const { _b: b, _o: o } = s as unknown as View;
    if (k !== null && k.putInflight(b, o, k.index(m.from), k.index(m.to), m as unknown as View)) return s;
  }
  // One write of the request where it goes (a packed state then copies no more than the request).
  return s.setIn(['replicas', m.from, 'inflight', m.to], m);
}

/** Whether the response answers the request its receiver has in flight to the responder. */
export function expected(r: Replica, m: VoteResponse | FetchResponse): boolean {
  if (isPacked(r) && isPacked(m)) {
    const k = packedSettleOfReplica(r._t);
    const e = k === null ? -1 : k.expected(r._b, r._o, m);
    if (e >= 0) return e === 1;
  }
  const req = r.inflight.get(m.from);
  return req !== undefined && same(req, m.inReplyTo);
}

/** Sends a response, if the requester still waits for it; otherwise it would be ignored. */
export function sendResponse(s: KraftState, m: VoteResponse | FetchResponse): KraftState {
  if (isPacked(s) && isPacked(m)) {
    // Read from the bytes: no view of the requester is made (packedSettle.ts).
    const k = packedSettleOf(s);
    const { _b: b, _o: o } = s as unknown as View;
    const e = k === null ? -1 : k.expectedBy(b, o, k.index(m.to), m);
    if (e >= 0) return e === 1 && deliverable(s, m.from, m.to) ? addMessage(s, m) : s;
  }
  if (!deliverable(s, m.from, m.to) || !expected(s.replicas.get(m.to)!, m)) return s;
  return addMessage(s, m);
}

export function consume(s: KraftState, m: Msg): KraftState {
  return removeMessage(s, m);
}

export function putReplica(s: KraftState, id: string, r: Replica): KraftState {
  if (s === stepping) {
    const k = packedSettleOf(s);
    const { _b: b, _o: o } = s as unknown as View;
    if (k !== null && k.putReplica(b, o, k.index(id), r)) return s;
  }
  return s.setIn(['replicas', id], r);
}

/**
 * Whether a message can never again change its receiver or be answered usefully:
 * - a response its requester no longer waits for;
 * - a request the requester no longer waits for, that the receiver can only reject without changing
 *   state: one of an older epoch than the receiver's, or a fetch of the receiver's epoch when the
 *   receiver no longer leads it (a fetch goes to the epoch's leader, and a leader that stepped down
 *   never leads that epoch again);
 * - a BeginQuorumEpoch of an older epoch.
 * Epochs only grow, so this stays true.
 */
function inert(s: KraftState, m: Msg): boolean {
  const to = s.replicas.get(m.to)!;
  if (isResponse(m)) return !expected(to, m);
  if (m.type === 'BeginQuorumEpoch') return m.epoch < to.epoch;
  const waiting = s.replicas.get(m.from)!.inflight.get(m.to);
  if (waiting !== undefined && same(waiting, m)) return false;
  return m.epoch < to.epoch || (m.type === 'FetchRequest' && m.epoch === to.epoch && to.role !== 'Leader');
}

/** Removes the inert messages (see `inert`) to or from the given replicas. */
export function tidy(s: KraftState, ids: readonly string[]): KraftState {
  if (ids.length === 0) return s;
  if (s === stepping) {
    removeInPlaceWhere(s.net, (m: Msg) => (ids.includes(m.to) || ids.includes(m.from)) && inert(s, m));
    return s;
  }
  const before = s.net;
  let net = before;
  for (const m of before) if ((ids.includes(m.to) || ids.includes(m.from)) && inert(s, m)) net = net.remove(m);
  return net === before ? s : s.set('net', net);
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
    const req = isResponse(m) ? m.inReplyTo : m;
    const r = replicas.get(req.from)!;
    if (same(r.inflight.get(req.to), req)) replicas = replicas.set(req.from, r.set('inflight', r.inflight.remove(req.to)));
  }
  return s.set('net', net).set('replicas', replicas);
}

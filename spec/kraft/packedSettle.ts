/**
 * `settle` (actions.ts) read from a packed state's bytes: which replicas a step changed, which of their
 * messages are inert (`inert` in messages.ts), and which followers may need a fetch. Every step settles,
 * and through views each of these reads makes a view per replica, message and request; here they are
 * byte compares at offsets taken from the layout once. The rules are those of messages.ts, read on the
 * encoding: equal values of one layout have equal bytes, and codes of ints and ids keep their order.
 * A layout these offsets cannot describe (a code wider than a byte) gets no reader, and settles
 * through views.
 */
import { copyInto, equalBytes, equalWide, readCode, wordsOf } from '../layout/bytes.ts';
import { View, sameShape } from '../layout/views.ts';
import type { EnumType, LType, MapType, RecordType, ScalarType, SeqType, VariantType } from '../layout/types.ts';
import type { KraftState } from './state.ts';

/** Where a message case keeps what `inert` reads. */
interface CaseInfo {
  readonly from: number;
  readonly to: number;
  readonly epoch: number;
  readonly kind: 'response' | 'begin' | 'request';
  readonly fetch: boolean;
  /** Responses: the offset of the request answered. */
  readonly inReplyTo: number;
  /** Requests: per tag of the `Request` variant, the field span compared (-1: not this request). */
  readonly sameAs: readonly { readonly start: number; readonly length: number; readonly own: number }[] | null;
}

export interface PackedSettle {
  /** Bit i: replica i's bytes differ between the two states. */
  changed(b: Uint8Array, o: number, pb: Uint8Array, po: number): number;
  cutChanged(b: Uint8Array, o: number, pb: Uint8Array, po: number): boolean;
  /** Removes in place the inert messages to or from the replicas of `mask`. */
  tidy(b: Uint8Array, o: number, mask: number): void;
  /** Whether replica i is a follower with no request in flight to its leader (`pollFollowers` may send). */
  mayPoll(b: Uint8Array, o: number, i: number): boolean;
  /**
   * For a replica `mayPoll` holds for: its leader's slot and what its fetch carries (`pollFollowers`),
   * in a record reused by every call; null when it knows no leader (the views' path then reports it).
   */
  fetchOf(b: Uint8Array, o: number, i: number): FollowerFetch | null;
  /** The voters, in the order of their replica slots. */
  readonly ids: readonly string[];
  /** The replica layout. */
  readonly replica: RecordType;
  /** The slot of voter `id`, or -1. */
  index(id: string): number;
  /** Whether messages can pass between voters `i` and `j`: both live and no link is cut; -1 when links are cut (ask the views). */
  deliverable(b: Uint8Array, o: number, i: number, j: number): number;
  /**
   * `expected` (messages.ts) of a response `m` (a packed message of this layout) by the replica at `r`:
   * its request in flight to the responder is the one `m` answers. -1 when `m` is not a response of this layout.
   */
  expected(rb: Uint8Array, ro: number, m: View): number;
  /** `expected` by voter `i` of the state at `o`. */
  expectedBy(b: Uint8Array, o: number, i: number, m: View): number;
  /** Records request `m` (a packed message of this layout) as voter `i`'s in flight to voter `j`; false when `m` is not one. */
  putInflight(b: Uint8Array, o: number, i: number, j: number, m: View): boolean;
  /** Copies a replica of this layout (a view) into voter `i`'s slot; false when `r` is not one. */
  putReplica(b: Uint8Array, o: number, i: number, r: unknown): boolean;
}

/** What a follower's fetch carries: its epoch, log end and last epoch, and its leader's slot. */
export interface FollowerFetch {
  leader: number;
  epoch: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
}

const readers = new WeakMap<object, PackedSettle | null>();
// The layout last asked about and its reader: a search asks about one layout, several times a step.
let lastType: object | null = null;
let lastReader: PackedSettle | null = null;

/** The byte reader of a KRaft state layout, or null when its codes do not fit the reader. */
export function packedSettleOf(s: KraftState): PackedSettle | null {
  const t = (s as unknown as { _t: RecordType })._t;
  if (t === lastType) return lastReader;
  let r = readers.get(t);
  if (r === undefined) readers.set(t, (r = build(t)));
  lastType = t;
  lastReader = r;
  return r;
}

/** The reader of the layout whose replicas have layout `t` (the last state layout asked about), or null. */
export function packedSettleOfReplica(t: unknown): PackedSettle | null {
  return lastReader !== null && lastReader.replica === t ? lastReader : null;
}

const oneByte = (t: LType): boolean => (t as ScalarType).width === 1;

function build(state: RecordType): PackedSettle | null {
  const replicasF = state.byName.replicas;
  const netF = state.byName.net;
  const cutF = state.byName.cut;
  if (replicasF === undefined || netF === undefined || cutF === undefined) return null;
  const replicas = replicasF.type as MapType;
  const replica = replicas.value as RecordType;
  const net = netF.type as SeqType;
  const msg = net.elem as unknown as VariantType;
  const roleF = replica.byName.role;
  const epochF = replica.byName.epoch;
  const leaderF = replica.byName.leader;
  const inflightF = replica.byName.inflight;
  if (roleF === undefined || epochF === undefined || leaderF === undefined || inflightF === undefined) return null;
  const inflight = inflightF.type as MapType;
  const request = inflight.value as unknown as VariantType;
  if (!oneByte(roleF.type) || !oneByte(epochF.type) || !oneByte(leaderF.type) || net.lw !== 1 || !inflight.partial || request.kind !== 'variant') return null;
  const roles = roleF.type as EnumType;
  const LEADER = roles.code('Leader');
  const FOLLOWER = roles.code('Follower');
  const voters = replicas.domain.count;
  if (voters > 31) return null;

  const cases: CaseInfo[] = [];
  for (const c of msg.cases) {
    const from = c.byName.from;
    const to = c.byName.to;
    const epoch = c.byName.epoch;
    if (from === undefined || to === undefined || epoch === undefined || !oneByte(from.type) || !oneByte(to.type) || !oneByte(epoch.type)) return null;
    const name = c.tag!.value;
    const reply = c.byName.inReplyTo;
    if (reply !== undefined) {
      if (reply.type !== (request as unknown)) return null;
      cases.push({ from: from.offset, to: to.offset, epoch: epoch.offset, kind: 'response', fetch: false, inReplyTo: reply.offset, sameAs: null });
    } else if (name === 'BeginQuorumEpoch') {
      cases.push({ from: from.offset, to: to.offset, epoch: epoch.offset, kind: 'begin', fetch: false, inReplyTo: 0, sameAs: null });
    } else {
      // `same(waiting, m)`: a request case of the same name and shape, compared field by field.
      const sameAs = request.cases.map((q) => (sameShape(q, c) ? { start: q.span.start, length: q.span.length, own: c.span.start } : { start: 0, length: -1, own: 0 }));
      cases.push({ from: from.offset, to: to.offset, epoch: epoch.offset, kind: 'request', fetch: name === 'FetchRequest', inReplyTo: 0, sameAs });
    }
  }

  const rBase = replicasF.offset;
  const netBase = netF.offset;
  const { ew } = net;
  const roleAt = roleF.offset;
  const epochAt = epochF.offset;
  const leaderAt = leaderF.offset;
  const inflightAt = inflightF.offset;
  const rw = replica.width;
  const qw = request.width;
  const slotOf = (i: number): number => rBase + replicas.at(i);

  /** `inert` (messages.ts) of the message at `mo`. */
  function inert(b: Uint8Array, o: number, mo: number, c: CaseInfo): boolean {
    const from = b[mo + c.from]!;
    const to = o + slotOf(b[mo + c.to]!);
    if (c.kind === 'response') {
      // Not `expected`: its receiver has no request in flight to the responder, or another one.
      const at = to + inflightAt + from * inflight.slot;
      return b[at] === 0 || !equalBytes(b, to + inflightAt + inflight.at(from), b, mo + c.inReplyTo, qw);
    }
    const epoch = b[mo + c.epoch]!;
    const toEpoch = b[to + epochAt]!;
    if (c.kind === 'begin') return epoch < toEpoch;
    const requester = o + slotOf(from);
    const peer = b[mo + c.to]!;
    if (b[requester + inflightAt + peer * inflight.slot] !== 0) {
      const w = requester + inflightAt + inflight.at(peer);
      const same = c.sameAs![b[w]!]!;
      if (same.length >= 0 && equalBytes(b, w + same.start, b, mo + same.own, same.length)) return false;
    }
    return epoch < toEpoch || (c.fetch && epoch === toEpoch && b[to + roleAt] !== LEADER);
  }

  // The log, for a follower's fetch: a list of entries with an int epoch.
  const logF = replica.byName.log;
  const log = logF !== undefined && logF.type.kind === 'list' ? (logF.type as SeqType) : null;
  const entryEpochF = log !== null && log.elem.kind === 'record' ? (log.elem as RecordType).byName.epoch : undefined;
  if (log !== null && (entryEpochF === undefined || entryEpochF.type.isComposite())) return null;
  const logAt = logF?.offset ?? 0;
  const entryEpoch = entryEpochF?.type as ScalarType<number>;
  const entryEpochAt = entryEpochF?.offset ?? 0;
  const epochType = epochF.type as ScalarType<number>;
  const fetch: FollowerFetch = { leader: 0, epoch: 0, fetchOffset: 0, lastFetchedEpoch: 0 };
  const DEAD = roles.code('Dead');
  const ILLEGAL = roles.code('IllegalState');
  const cutAt = cutF.offset;
  const cutType = cutF.type as SeqType;
  const live = (b: Uint8Array, o: number, i: number): boolean => {
    const role = b[o + slotOf(i) + roleAt];
    return role !== DEAD && role !== ILLEGAL;
  };
  /** Message case tag -> the `Request` case of the same shape (requests only), else -1. */
  const requestCase = msg.cases.map((c) => request.cases.findIndex((q) => sameShape(q, c)));

  return {
    ids: replicas.domain.values.map(String),
    replica,
    index: (id) => replicas.domain.keyIndex(id),
    deliverable(b, o, i, j) {
      if (cutType.lw !== 1 || b[o + cutAt] !== 0) return -1;
      return live(b, o, i) && live(b, o, j) ? 1 : 0;
    },
    expected(rb, ro, m) {
      const c = m._t.kind === 'record' && (m._t as RecordType).tag?.variant === (msg as unknown) ? cases[m._b[m._o]!] : undefined;
      if (c === undefined || c.kind !== 'response') return -1;
      const mb = m._b;
      const mo = m._o;
      const from = mb[mo + c.from]!;
      if (rb[ro + inflightAt + from * inflight.slot] === 0) return 0;
      return equalBytes(rb, ro + inflightAt + inflight.at(from), mb, mo + c.inReplyTo, qw) ? 1 : 0;
    },
    expectedBy(b, o, i, m) {
      return this.expected(b, o + slotOf(i), m);
    },
    putInflight(b, o, i, j, m) {
      if (m._t.kind !== 'record' || (m._t as RecordType).tag?.variant !== (msg as unknown)) return false;
      const q = requestCase[m._b[m._o]!]!;
      if (q < 0) return false;
      const at = o + slotOf(i) + inflightAt;
      b[at + j * inflight.slot] = 1;
      // As `request.write` writes a case of another variant of the same shape: its tag, its fields'
      // bytes, then zeros (shapes and spans were matched once, above).
      const d = at + inflight.at(j);
      const c = request.cases[q]!;
      const mt = m._t as RecordType;
      const { start, length } = c.span;
      b[d] = c.tag!.index;
      b.fill(0, d + 1, d + start);
      copyInto(m._b, m._o + mt.span.start, b, d + start, length);
      b.fill(0, d + start + length, d + qw);
      return true;
    },
    putReplica(b, o, i, r) {
      if (!(r instanceof View) || r._t !== replica) return false;
      const at = o + slotOf(i);
      if (r._b !== b || r._o !== at) copyInto(r._b, r._o, b, at, rw);
      return true;
    },
    changed(b, o, pb, po) {
      // Both states on a word (a step's copy and the state it was made from): the replicas' region is
      // compared a word at a time, and each differing word's bytes say whose slot changed.
      const at = o + rBase;
      const pat = po + rBase;
      const words = ((at | pat) & 3) === 0 ? wordsOf(b) : null;
      const pwords = words !== null ? wordsOf(pb) : null;
      if (words !== null && pwords !== null && replicas.slot === rw) {
        let mask = 0;
        const n = (voters * rw) >> 2;
        const w0 = at >> 2;
        const p0 = pat >> 2;
        for (let k = 0; k < n; k++) {
          if (words[w0 + k] === pwords[p0 + k]) continue;
          for (let j = k << 2; j < (k << 2) + 4; j++) if (b[at + j] !== pb[pat + j]) mask |= 1 << ((j / rw) | 0);
        }
        for (let j = n << 2; j < voters * rw; j++) if (b[at + j] !== pb[pat + j]) mask |= 1 << ((j / rw) | 0);
        return mask;
      }
      let mask = 0;
      for (let i = 0; i < voters; i++) if (!equalWide(b, o + slotOf(i), pb, po + slotOf(i), rw)) mask |= 1 << i;
      return mask;
    },
    cutChanged(b, o, pb, po) {
      return !equalBytes(b, o + cutF.offset, pb, po + cutF.offset, cutF.type.width);
    },
    tidy(b, o, mask) {
      const no = o + netBase;
      let n = b[no]!;
      // From the last slot down, so a removal moves no slot still to be read.
      for (let i = n - 1; i >= 0; i--) {
        const mo = no + 1 + i * ew;
        const c = cases[b[mo]!]!;
        if (((mask >>> b[mo + c.to]!) & 1) === 0 && ((mask >>> b[mo + c.from]!) & 1) === 0) continue;
        if (!inert(b, o, mo, c)) continue;
        b.copyWithin(mo, mo + ew, no + 1 + n * ew);
        n--;
        b.fill(0, no + 1 + n * ew, no + 1 + (n + 1) * ew);
        b[no] = n;
      }
    },
    fetchOf(b, o, i) {
      const r = o + slotOf(i);
      const leader = b[r + leaderAt]!;
      if (leader === 0 || log === null) return null;
      const n = readCode(b, r + logAt, log.lw);
      fetch.leader = leader - 1;
      fetch.epoch = epochType.read(b, r + epochAt);
      fetch.fetchOffset = n;
      fetch.lastFetchedEpoch = n === 0 ? 0 : entryEpoch.read(b, r + logAt + log.lw + (n - 1) * log.ew + entryEpochAt);
      return fetch;
    },
    mayPoll(b, o, i) {
      const r = o + slotOf(i);
      if (b[r + roleAt] !== FOLLOWER) return false;
      const leader = readCode(b, r + leaderAt, 1);
      // A follower always knows its leader; without one, the views' path reports what it finds.
      return leader === 0 || b[r + inflightAt + (leader - 1) * inflight.slot] === 0;
    },
  };
}

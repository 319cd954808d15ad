/**
 * The messages of a packed KRaft model made as packed values of its `Msg` layout (layout.ts), with the
 * same fields as the Immutable.js records of messages.ts: a state takes them in by copying their bytes,
 * where a record would be encoded field by field on every send. Equal messages are one shared value,
 * found by a number made of the arguments (no text key is built per send).
 */
import type { ErrorCode } from './state.ts';
import { type KraftConfig } from './state.ts';
import { type Messages, type Msg, type Request, immutableMessages } from './messages.ts';
import { isPacked } from '../layout/index.ts';
import { type kraftLayout, maxLogLength } from './layout.ts';

const TYPES = ['VoteRequest', 'VoteResponse', 'BeginQuorumEpoch', 'FetchRequest', 'FetchResponse'] as const;
const ERROR_CODES: readonly (ErrorCode | null)[] = [null, 'FENCED_LEADER_EPOCH', 'NOT_LEADER_OR_FOLLOWER', 'UNKNOWN_LEADER_EPOCH'];

/**
 * Messages as packed values of `layouts.Msg`. An argument the layout cannot hold (outside its bounds) is
 * left to the Immutable.js record, so the state write reports it exactly as it would have.
 */
export function packedMessages(layouts: ReturnType<typeof kraftLayout>, cfg: KraftConfig): Messages {
  const { Msg, Voter } = layouts;
  const voters = cfg.voters.length;
  const epochs = cfg.maxEpoch + 1;
  const offsets = maxLogLength(cfg) + 1;
  const values = cfg.maxValues + 1;
  const valueIndex = new globalThis.Map<string, number>(Array.from({ length: values }, (_, i) => [`v${i}`, i] as const));
  const interned = new globalThis.Map<number, Msg>();
  const I = immutableMessages;

  /** `x` as a digit in `0..count-1`, or -1 when it is not one. */
  const digit = (x: number, count: number): number => (Number.isInteger(x) && x >= 0 && x < count ? x : -1);
  const voter = (id: string): number => Voter.keyIndex(id);
  /** 0 for null, else 1 + the digit (-1 when `d` is not a digit). */
  const optional = (d: number): number => (d < 0 ? -1 : d + 1);
  const optVoter = (id: string | null): number => (id === null ? 0 : optional(voter(id)));
  const errorDigit = (e: ErrorCode | null): number => ERROR_CODES.indexOf(e);

  // A mixed-radix number of digits, built digit by digit (no array per message): `start`, then `digitOf`
  // for each digit and its radix, then `keyOf` with the type; -1 if any digit is not one of its radix.
  let acc = 0;
  let valid = true;
  const start = (): void => {
    acc = 0;
    valid = true;
  };
  const digitOf = (d: number, radix: number): void => {
    if (d < 0 || d >= radix) valid = false;
    acc = acc * radix + d;
  };
  function keyOf(type: number): number {
    const k = acc * TYPES.length + type;
    return valid && Number.isSafeInteger(k) ? k : -1;
  }

  // Sends look a message up first (`known(key) ?? intern(key, ...)`): one already made costs no closure.
  const known = <M extends Msg>(key: number): M | undefined => interned.get(key) as M | undefined;

  function intern<M extends Msg>(key: number, make: () => object): M {
    let m = interned.get(key);
    if (m === undefined) interned.set(key, (m = Msg.from(make() as never) as unknown as Msg));
    return m as M;
  }

  /** The digits every request starts with; a vote's `preVote` digit is 0 or 1, a fetch's 0. */
  function requestDigits(from: string, to: string, epoch: number, flag: number, e2: number, offset: number): void {
    digitOf(voter(from), voters);
    digitOf(voter(to), voters);
    digitOf(digit(epoch, epochs), epochs);
    digitOf(flag, 2);
    digitOf(digit(e2, epochs), epochs);
    digitOf(digit(offset, offsets), offsets);
  }
  const voteRequestKey = (from: string, to: string, epoch: number, preVote: boolean, lastEpoch: number, lastOffset: number): number => {
    start();
    requestDigits(from, to, epoch, preVote ? 1 : 0, lastEpoch, lastOffset);
    return keyOf(0);
  };
  const fetchRequestKey = (from: string, to: string, epoch: number, fetchOffset: number, lastFetchedEpoch: number): number => {
    start();
    requestDigits(from, to, epoch, 0, lastFetchedEpoch, fetchOffset);
    return keyOf(3);
  };
  /** Starts the key of a response with what both kinds begin with: the request answered, the epoch, the leader named. */
  function startResponse(req: Request, epoch: number, leaderId: string | null): void {
    const request = requestKey(req); // before start(): the request's own key is made with the same digits
    start();
    digitOf(request, requestCount);
    digitOf(digit(epoch, epochs), epochs);
    digitOf(optVoter(leaderId), voters + 1);
  }
  /** The number of a request (a packed or Immutable one), or -1. */
  function requestKey(q: Request): number {
    return q.type === 'VoteRequest'
      ? voteRequestKey(q.from, q.to, q.epoch, q.preVote, q.lastEpoch, q.lastOffset)
      : fetchRequestKey(q.from, q.to, q.epoch, q.fetchOffset, q.lastFetchedEpoch);
  }
  start();
  requestDigits(cfg.voters[voters - 1]!, cfg.voters[voters - 1]!, epochs - 1, 1, epochs - 1, offsets - 1);
  const requestCount = keyOf(4) + 1;

  return {
    voteRequest(from, to, epoch, preVote, lastEpoch, lastOffset) {
      const key = voteRequestKey(from, to, epoch, preVote, lastEpoch, lastOffset);
      if (key < 0) return I.voteRequest(from, to, epoch, preVote, lastEpoch, lastOffset);
      return known(key) ?? intern(key, () => ({ type: 'VoteRequest', from, to, epoch, preVote, lastEpoch, lastOffset }));
    },
    fetchRequest(from, to, epoch, fetchOffset, lastFetchedEpoch) {
      const key = fetchRequestKey(from, to, epoch, fetchOffset, lastFetchedEpoch);
      if (key < 0) return I.fetchRequest(from, to, epoch, fetchOffset, lastFetchedEpoch);
      return known(key) ?? intern(key, () => ({ type: 'FetchRequest', from, to, epoch, fetchOffset, lastFetchedEpoch }));
    },
    beginQuorumEpoch(from, to, epoch) {
      start();
      digitOf(voter(from), voters);
      digitOf(voter(to), voters);
      digitOf(digit(epoch, epochs), epochs);
      const key = keyOf(2);
      if (key < 0) return I.beginQuorumEpoch(from, to, epoch);
      return known(key) ?? intern(key, () => ({ type: 'BeginQuorumEpoch', from, to, epoch }));
    },
    voteResponse(req, epoch, leaderId, granted, error = null) {
      let key = -1;
      if (isPacked(req)) {
        startResponse(req, epoch, leaderId);
        digitOf(granted ? 1 : 0, 2);
        digitOf(errorDigit(error), ERROR_CODES.length);
        key = keyOf(1);
      }
      if (key < 0) return I.voteResponse(req, epoch, leaderId, granted, error);
      return known(key) ?? intern(key, () => ({ type: 'VoteResponse', from: req.to, to: req.from, epoch, preVote: req.preVote, leaderId, granted, error, inReplyTo: req }));
    },
    fetchResponse(req, epoch, leaderId, body) {
      const { error = null, hwm = 0, divergingEpoch = null, divergingEnd = 0 } = body;
      const entry = body.entry ?? null;
      let entryDigit = 0;
      if (entry !== null) {
        const v = entry.value === null ? 0 : (valueIndex.get(entry.value) ?? -2) + 1;
        const e = digit(entry.epoch, epochs);
        entryDigit = v < 0 || e < 0 ? -1 : 1 + e * (values + 1) + v;
      }
      let key = -1;
      if (isPacked(req)) {
        startResponse(req, epoch, leaderId);
        digitOf(errorDigit(error), ERROR_CODES.length);
        digitOf(entryDigit, 1 + epochs * (values + 1));
        digitOf(digit(hwm, offsets), offsets);
        digitOf(divergingEpoch === null ? 0 : optional(digit(divergingEpoch, epochs)), epochs + 1);
        digitOf(digit(divergingEnd, offsets), offsets);
        key = keyOf(4);
      }
      if (key < 0) return I.fetchResponse(req, epoch, leaderId, body);
      return known(key) ?? intern(key, () => ({ type: 'FetchResponse', from: req.to, to: req.from, epoch, leaderId, error, entry, hwm, divergingEpoch, divergingEnd, inReplyTo: req }));
    },
  };
}

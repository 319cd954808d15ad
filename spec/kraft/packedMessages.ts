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

  /** A mixed-radix number of the digits, or -1 if any is not a digit of its radix. */
  function keyOf(type: number, digits: readonly number[], radixes: readonly number[]): number {
    let k = 0;
    for (let i = 0; i < digits.length; i++) {
      const d = digits[i]!;
      if (d < 0 || d >= radixes[i]!) return -1;
      k = k * radixes[i]! + d;
    }
    k = k * TYPES.length + type;
    return Number.isSafeInteger(k) ? k : -1;
  }

  function intern<M extends Msg>(key: number, make: () => object): M {
    let m = interned.get(key);
    if (m === undefined) interned.set(key, (m = Msg.from(make() as never) as unknown as Msg));
    return m as M;
  }

  const requestRadixes = [voters, voters, epochs, 2, epochs, offsets];
  const voteRequestKey = (from: string, to: string, epoch: number, preVote: boolean, lastEpoch: number, lastOffset: number): number =>
    keyOf(0, [voter(from), voter(to), digit(epoch, epochs), preVote ? 1 : 0, digit(lastEpoch, epochs), digit(lastOffset, offsets)], requestRadixes);
  const fetchRequestKey = (from: string, to: string, epoch: number, fetchOffset: number, lastFetchedEpoch: number): number =>
    keyOf(3, [voter(from), voter(to), digit(epoch, epochs), 0, digit(lastFetchedEpoch, epochs), digit(fetchOffset, offsets)], requestRadixes);
  /** The number of a request (a packed or Immutable one), or -1. */
  function requestKey(q: Request): number {
    return q.type === 'VoteRequest'
      ? voteRequestKey(q.from, q.to, q.epoch, q.preVote, q.lastEpoch, q.lastOffset)
      : fetchRequestKey(q.from, q.to, q.epoch, q.fetchOffset, q.lastFetchedEpoch);
  }
  const requestCount = keyOf(4, [voters - 1, voters - 1, epochs - 1, 1, epochs - 1, offsets - 1], requestRadixes) + 1;

  return {
    voteRequest(from, to, epoch, preVote, lastEpoch, lastOffset) {
      const key = voteRequestKey(from, to, epoch, preVote, lastEpoch, lastOffset);
      if (key < 0) return I.voteRequest(from, to, epoch, preVote, lastEpoch, lastOffset);
      return intern(key, () => ({ type: 'VoteRequest', from, to, epoch, preVote, lastEpoch, lastOffset }));
    },
    fetchRequest(from, to, epoch, fetchOffset, lastFetchedEpoch) {
      const key = fetchRequestKey(from, to, epoch, fetchOffset, lastFetchedEpoch);
      if (key < 0) return I.fetchRequest(from, to, epoch, fetchOffset, lastFetchedEpoch);
      return intern(key, () => ({ type: 'FetchRequest', from, to, epoch, fetchOffset, lastFetchedEpoch }));
    },
    beginQuorumEpoch(from, to, epoch) {
      const key = keyOf(2, [voter(from), voter(to), digit(epoch, epochs)], [voters, voters, epochs]);
      if (key < 0) return I.beginQuorumEpoch(from, to, epoch);
      return intern(key, () => ({ type: 'BeginQuorumEpoch', from, to, epoch }));
    },
    voteResponse(req, epoch, leaderId, granted, error = null) {
      const key = isPacked(req)
        ? keyOf(1, [requestKey(req), digit(epoch, epochs), optVoter(leaderId), granted ? 1 : 0, errorDigit(error)], [requestCount, epochs, voters + 1, 2, ERROR_CODES.length])
        : -1;
      if (key < 0) return I.voteResponse(req, epoch, leaderId, granted, error);
      return intern(key, () => ({ type: 'VoteResponse', from: req.to, to: req.from, epoch, preVote: req.preVote, leaderId, granted, error, inReplyTo: req }));
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
      const key = isPacked(req)
        ? keyOf(
            4,
            [requestKey(req), digit(epoch, epochs), optVoter(leaderId), errorDigit(error), entryDigit, digit(hwm, offsets), divergingEpoch === null ? 0 : optional(digit(divergingEpoch, epochs)), digit(divergingEnd, offsets)],
            [requestCount, epochs, voters + 1, ERROR_CODES.length, 1 + epochs * (values + 1), offsets, epochs + 1, offsets],
          )
        : -1;
      if (key < 0) return I.fetchResponse(req, epoch, leaderId, body);
      return intern(key, () => ({ type: 'FetchResponse', from: req.to, to: req.from, epoch, leaderId, error, entry, hwm, divergingEpoch, divergingEnd, inReplyTo: req }));
    },
  };
}

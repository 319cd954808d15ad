/**
 * What the driver of a search partitioned among owners (ownedSearch.ts) and its owners say to each other.
 * Every message is plain data (numbers, arrays, typed arrays), so an owner can be an object in the
 * driver's thread, a worker thread, or a process on another machine (../cluster/).
 *
 * Order. The states of a level have dense ranks: their positions in the order one thread discovers them
 * (bfs.ts). A successor's key is its parent's rank and its index among the parent's successors; the
 * least key a state is reached by is the one the search in one thread reaches it by first. So each owner
 * keeps, per new state, the candidate with the least key, and the level's ranks come from merging the
 * owners' sorted keys: parents, coverage, traces and the state a search stops at are those of one thread,
 * whatever the number of owners.
 */
import type { SentSpecError } from '../parallel/sentSpecError.ts';

/** Successors per state a key has room for (2^21): the key is parentRank·2^21 + index, exact in a double. */
export const KEY_SPAN = 2 ** 21;

export function keyOf(parentRank: number, index: number): number {
  if (index >= KEY_SPAN) throw new Error(`a state has more than ${KEY_SPAN - 1} successors: past what a partitioned search orders`);
  return parentRank * KEY_SPAN + index;
}

/** The owner of a fingerprint: its high word, so the slot a table gives it (from both words) is spread. */
export function ownerOf(hi: number, owners: number): number {
  return (hi >>> 0) % owners;
}

/**
 * Where the search ends inside a level: the least key among every owner's stops. Expanding owners find
 * deadlocks, actions that throw and successors outside the constraints that break an invariant; the
 * owners of new states find those that break one or on which a property throws.
 */
export interface Stop {
  readonly key: number;
  /** `maxStates`: --max-states is reached at `key`; the search in one thread ends after that state's parent. */
  readonly end: 'violation' | 'deadlock' | 'error' | 'maxStates';
  /** Of the parent's successors, how many the search in one thread generated before it stopped. */
  readonly generatedInParent: number;
  /** Of the parent's own coverage, the actions kept (those before the one the search stopped in). */
  readonly keepActionsBelow: number;
  /** The new state at `key`: none; logged but not queued (a property threw on it); or logged and queued. */
  readonly state: 'none' | 'logged' | 'queued';
  readonly invariant: number;
  /** The last state of the trace that is a state of the model, and a step past it to one outside the constraints (or -1). */
  readonly traceHi: number;
  readonly traceLo: number;
  readonly stepPast: number;
  readonly error?: SentSpecError;
  /** The key of the last state --max-states lets in, when the budget ends in this level: none past it is logged. */
  readonly lastAdmitted?: number;
}

export function earlier(a: Stop | null, b: Stop | null): Stop | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.key < a.key ? b : a;
}

/** An owner's expansion of its part of a level. */
export interface ExpandReport {
  /** Candidate batches sent, per owner. */
  readonly sent: number[];
  /** Their bytes, all together. */
  readonly bytesSent: number;
  readonly generated: number;
  readonly stop: Stop | null;
}

/** An owner's new states of a level, once every batch sent to it is in. */
export interface AbsorbReport {
  readonly count: number;
  /** Their keys, least first. */
  readonly keys: Float64Array;
  readonly newStates: number[];
  /** Witness indices some new state satisfies. */
  readonly witnesses: number[];
  readonly stop: Stop | null;
  /** Memory the owner's tables and levels take. */
  readonly bytes: number;
}

/** An owner's share of the counts at a stop inside a level (see `Stop`). */
export interface CutReport {
  readonly generated: number;
  readonly logged: number;
  readonly queued: number;
  readonly newStates: number[];
  readonly witnesses: number[];
  readonly enabled: number[];
  readonly fired: number[];
}

/** How a state was reached: its parent's fingerprint and the step (action and ordinal; for an initial state, its index). */
export interface Link {
  readonly initial: boolean;
  readonly parentHi: number;
  readonly parentLo: number;
  readonly action: number;
  readonly ordinal: number;
}

/** An initial state handed to its owner. */
export interface InitialState {
  readonly hi: number;
  readonly lo: number;
  readonly rank: number;
  readonly initIndex: number;
  readonly bytes: Uint8Array;
}

/** What the driver asks of an owner, wherever it runs. */
export interface OwnerLink {
  start(initials: InitialState[]): Promise<void>;
  expand(): Promise<ExpandReport>;
  /** Takes in the `expected` batches sent to this owner in this level and reports its new states. */
  absorb(expected: number): Promise<AbsorbReport>;
  /** The ranks of its new states, in its key order: they become the next level. */
  rank(ranks: Uint32Array): Promise<void>;
  cut(stop: Stop): Promise<CutReport>;
  /** Coverage so far (enabled, fired per action), for a search that ends at a level boundary. */
  coverage(): Promise<{ enabled: number[]; fired: number[] }>;
  /** How the state with this fingerprint, first reached at `depth`, was reached. */
  linkOf(hi: number, lo: number, depth: number): Promise<Link>;
  /** What the owner holds at a level boundary, for a checkpoint on this machine's disk (owners in this process or its threads). */
  snapshot?(): Promise<Uint8Array>;
  restoreSnapshot?(snapshot: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** The driver's counts at a level boundary: with every owner's checkpoint of that level, a run goes on from here. */
export interface DriverCommit {
  readonly depth: number;
  readonly distinct: number;
  readonly generated: number;
  /** States in the level to expand next. */
  readonly levelSize: number;
  readonly newStates: number[];
  readonly witnesses: number[];
}

/** The owners of one search, and what their kind can do beyond answering requests. */
export interface OwnerGroup {
  readonly links: readonly OwnerLink[];
  /** Once every owner holds the level just ranked: the driver's counts join the owners' checkpoints. */
  commit?(state: DriverCommit): Promise<void>;
  /** After an owner was lost: every owner back at the last commit (a lost one replaced), which is returned. */
  recover?(cause: OwnerLost): Promise<DriverCommit>;
  /** The commit an earlier driver of this run made, when this driver resumes it. */
  readonly resumedFrom?: DriverCommit;
  /** Tells every owner to drop the request it is busy with (one failed, so the level will be rolled back). */
  interrupt?(): void;
  /** Before each level is expanded (`depth` its index): owners may move, e.g. to threads that have loaded the model since. */
  atBoundary?(depth: number): Promise<void>;
  /** Per owner, the depth from which a thread of its own owned its part (null: the driver's thread throughout). */
  readonly threadsJoined?: readonly (number | null)[];
  /** `keep`: the run stopped short (a limit, a signal) and is kept for a later driver to resume, where the kind can; `failed`: it ended by an error. */
  close(keep: boolean, failed?: boolean): Promise<void>;
}

/** An owner stopped answering (its process or node died, or the network): the run can go back to its last commit. */
export class OwnerLost extends Error {
  override readonly name = 'OwnerLost';
}

/**
 * Like Promise.all, but when one request fails the others are waited for (each ends, or fails in turn)
 * before the first failure is thrown: nothing of a failed level is still running when the driver
 * rolls it back. `onFailure` is told at once (a cluster then tells every worker to drop what it does).
 */
export async function allOf<T>(requests: readonly Promise<T>[], onFailure?: () => void): Promise<T[]> {
  let failed = false;
  const settled = await Promise.allSettled(
    requests.map((r) =>
      r.catch((e: unknown) => {
        if (!failed) onFailure?.();
        failed = true;
        throw e;
      }),
    ),
  );
  const first = settled.find((s) => s.status === 'rejected');
  if (first) throw (first as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

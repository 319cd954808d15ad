/**
 * Paxos Commit (Gray and Lamport), written over Immutable.js after `PaxosCommit.tla` of the TLA+ Examples,
 * for the benchmark: a spec the way a TLA+ author writes one, whose state is mostly one growing set of
 * message records (the shape `npm run bench` measures the fingerprint of such sets on). Not a bundled spec,
 * and its counts are kmc's own (no TLC on this machine to hold them to).
 *
 * Resource managers `r1..rm`, acceptors `a1..acceptors`, ballots `0..ballots-1`; a majority is any set
 * of more than half the acceptors, at its smallest (as the example's model does for three acceptors).
 */
import { Map, Record, Set } from 'immutable';
import { defineSpec, type Action } from '../spec/spec.ts';
import { always } from '../invariants/property.ts';

type RmState = 'working' | 'prepared' | 'committed' | 'aborted';
type Value = 'prepared' | 'aborted' | 'none';

/** Every message type in one record; the fields a type does not have stay null. */
const Msg = Record<{ type: string; ins: string | null; bal: number | null; mbal: number | null; val: Value | null; acc: string | null }>({
  type: 'Commit',
  ins: null,
  bal: null,
  mbal: null,
  val: null,
  acc: null,
});
type Msg = ReturnType<typeof Msg>;

const AcceptorState = Record({ mbal: 0, bal: -1, val: 'none' as Value });
type AcceptorState = ReturnType<typeof AcceptorState>;

const State = Record({
  rmState: Map<string, RmState>(),
  aState: Map<string, Map<string, AcceptorState>>(),
  msgs: Set<Msg>(),
});
type State = ReturnType<typeof State>;

const COMMIT = Msg({ type: 'Commit' });
const ABORT = Msg({ type: 'Abort' });

const send = (s: State, m: Msg): State => s.set('msgs', s.msgs.add(m));

/** The subsets of `items` of exactly `size` elements. */
function subsets<T>(items: readonly T[], size: number): T[][] {
  if (size === 0) return [[]];
  if (items.length < size) return [];
  const [first, ...rest] = items;
  return [...subsets(rest, size - 1).map((s) => [first!, ...s]), ...subsets(rest, size)];
}

function actions(rms: readonly string[], acceptors: readonly string[], ballots: readonly number[]): Action<State, any>[] {
  const majorities = subsets(acceptors, Math.floor(acceptors.length / 2) + 1);
  const eachRm = () => rms.map((r) => ({ r }));
  const later = ballots.filter((b) => b !== 0);
  const ballotAndRm = later.flatMap((bal) => rms.map((r) => ({ bal, r })));
  const ballotRmMajority = ballotAndRm.flatMap(({ bal, r }) => majorities.map((ms) => ({ bal, r, ms })));
  const rmState = (r: string, to: RmState) => (s: State) => s.setIn(['rmState', r], to);
  /** Resource manager r has had value v chosen: some ballot where a majority's phase2b messages say so. */
  const decided = (s: State, r: string, val: Value) =>
    ballots.some((bal) => majorities.some((ms) => ms.every((acc) => s.msgs.has(Msg({ type: 'phase2b', ins: r, bal, val, acc })))));
  /** Each acceptor with each message of `type` (`\E m \in msgs : m.type = type`). */
  const withMessages = (type: string) => (s: State) => acceptors.flatMap((acc) => s.msgs.filter((m) => m.type === type).toArray().map((m) => ({ acc, m })));
  return [
    {
      name: 'RMPrepare',
      params: eachRm,
      enabled: (s, { r }) => s.rmState.get(r) === 'working',
      next: (s, { r }) => send(rmState(r, 'prepared')(s), Msg({ type: 'phase2a', ins: r, bal: 0, val: 'prepared' })),
    },
    {
      name: 'RMChooseToAbort',
      params: eachRm,
      enabled: (s, { r }) => s.rmState.get(r) === 'working',
      next: (s, { r }) => send(rmState(r, 'aborted')(s), Msg({ type: 'phase2a', ins: r, bal: 0, val: 'aborted' })),
    },
    { name: 'RMRcvCommitMsg', params: eachRm, enabled: (s) => s.msgs.has(COMMIT), next: (s, { r }) => rmState(r, 'committed')(s) },
    { name: 'RMRcvAbortMsg', params: eachRm, enabled: (s) => s.msgs.has(ABORT), next: (s, { r }) => rmState(r, 'aborted')(s) },
    { name: 'Phase1a', params: () => ballotAndRm, next: (s, { bal, r }) => send(s, Msg({ type: 'phase1a', ins: r, bal })) },
    {
      name: 'Phase2a',
      params: () => ballotRmMajority,
      enabled: (s, { bal, r, ms }) =>
        !s.msgs.some((m) => m.type === 'phase2a' && m.bal === bal && m.ins === r) &&
        (ms as string[]).every((acc) => s.msgs.some((m) => m.type === 'phase1b' && m.ins === r && m.mbal === bal && m.acc === acc)),
      next: (s, { bal, r, ms }) => {
        const mset = s.msgs.filter((m) => m.type === 'phase1b' && m.ins === r && m.mbal === bal && (ms as string[]).includes(m.acc!));
        const maxbal = mset.map((m) => m.bal!).max()!;
        const val = maxbal === -1 ? 'aborted' : mset.find((m) => m.bal === maxbal)!.val!;
        return send(s, Msg({ type: 'phase2a', ins: r, bal, val }));
      },
    },
    { name: 'DecideCommit', enabled: (s) => rms.every((r) => decided(s, r, 'prepared')), next: (s) => send(s, COMMIT) },
    { name: 'DecideAbort', enabled: (s) => rms.some((r) => decided(s, r, 'aborted')), next: (s) => send(s, ABORT) },
    {
      name: 'Phase1b',
      params: withMessages('phase1a'),
      enabled: (s, { acc, m }) => (s.aState.getIn([m.ins, acc, 'mbal']) as number) < m.bal!,
      next: (s, { acc, m }) => {
        const a = s.aState.get(m.ins!)!.get(acc)!;
        const sent = send(s, Msg({ type: 'phase1b', ins: m.ins, mbal: m.bal, bal: a.bal, val: a.val, acc }));
        return sent.setIn(['aState', m.ins, acc], a.set('mbal', m.bal!));
      },
    },
    {
      name: 'Phase2b',
      params: withMessages('phase2a'),
      enabled: (s, { acc, m }) => (s.aState.getIn([m.ins, acc, 'mbal']) as number) <= m.bal!,
      next: (s, { acc, m }) => {
        const sent = send(s, Msg({ type: 'phase2b', ins: m.ins, bal: m.bal, val: m.val, acc }));
        return sent.setIn(['aState', m.ins, acc], AcceptorState({ mbal: m.bal!, bal: m.bal!, val: m.val! }));
      },
    },
  ];
}

export default defineSpec<State>({
  name: 'paxos-commit',
  description: 'Paxos Commit over Immutable.js after PaxosCommit.tla (benchmark only)',
  params: [
    { name: 'rm', description: 'resource managers', type: 'int', default: 2, min: 1, max: 5 },
    { name: 'acceptors', description: 'acceptors', type: 'int', default: 3, min: 1, max: 5 },
    { name: 'ballots', description: 'ballots 0..ballots-1', type: 'int', default: 2, min: 1, max: 4 },
  ],
  presets: [],
  build: (params) => {
    const rms = Array.from({ length: params.rm as number }, (_, i) => `r${i + 1}`);
    const acceptors = Array.from({ length: params.acceptors as number }, (_, i) => `a${i + 1}`);
    const ballots = Array.from({ length: params.ballots as number }, (_, i) => i);
    const fresh = Map(acceptors.map((acc) => [acc, AcceptorState()]));
    return {
      init: () => [State({ rmState: Map(rms.map((r) => [r, 'working' as RmState])), aState: Map(rms.map((r) => [r, fresh])), msgs: Set<Msg>() })],
      actions: actions(rms, acceptors, ballots),
      properties: [
        always<State>('TCConsistent', 'no resource manager has committed while another has aborted', (s) => {
          const states = s.rmState.valueSeq();
          return !(states.includes('committed') && states.includes('aborted'));
        }),
      ],
    };
  },
});

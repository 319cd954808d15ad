/**
 * The KRaft Raft quorum with KIP-996 pre-vote, close enough to `KafkaRaftClient` and `QuorumState` to
 * reproduce KAFKA-16281: a leader resigns, times out into Prospective in the same epoch, and a peer's
 * pre-vote reply naming it as leader makes `maybeHandleCommonResponse` call
 * `transitionToFollower(epoch, self)`, which throws. Reference: Vanlightly's kafka-tlaplus
 * `kraft/kip_996` (@421f170 for the JIRA era, 823615e for the final design).
 *
 * The protocol variants are parameters, so the fixes can be compared on equal bounds.
 */
import { List, Map } from 'immutable';
import { defineSpec, type Model, type ParamValues } from '../spec.ts';
import { kraftProperties } from '../../invariants/kraft.ts';
import { kraftActions, settle } from './actions.ts';
import { Entry, type FourthCondition, type KraftConfig, KraftState, Replica, type ResignedTimeout } from './state.ts';

export function configOf(params: ParamValues): KraftConfig {
  const n = params.voters as number;
  return {
    voters: Array.from({ length: n }, (_, i) => `r${i + 1}`),
    init: params.init as KraftConfig['init'],
    fourthCondition: params.fourthCondition as FourthCondition,
    resignedTimeout: params.resignedTimeout as ResignedTimeout,
    nudge: params.nudge as boolean,
    bug: params.bug as KraftConfig['bug'],
    maxEpoch: params.maxEpoch as number,
    maxValues: params.maxValues as number,
    maxRestarts: params.maxRestarts as number,
    maxCrashes: params.maxCrashes as number,
    maxResigns: params.maxResigns as number,
    maxFetchTimeouts: params.maxFetchTimeouts as number,
    maxElectionTimeouts: params.maxElectionTimeouts as number,
    maxLosses: params.maxLosses as number,
    maxConnectivityChanges: params.maxConnectivityChanges as number,
  };
}

/**
 * The initial state. `leader` is the pre-established quorum of the TLA+ specs: r1 leads epoch 1, its
 * LeaderChange record is committed on every voter, and the others follow it and have fetched.
 */
export function initialState(cfg: KraftConfig): KraftState {
  const [first, ...rest] = cfg.voters;
  if (cfg.init === 'fresh') return KraftState({ replicas: Map(cfg.voters.map((id) => [id, Replica()])) });
  const log = List([Entry({ epoch: 1, value: null })]);
  const leader = Replica({ role: 'Leader', epoch: 1, leader: first!, votedFor: first!, log, hwm: 1, endOffsets: Map(rest.map((id) => [id, 1])) });
  const follower = Replica({ role: 'Follower', epoch: 1, leader: first!, log, hwm: 1, fetched: true });
  return KraftState({ replicas: Map([[first!, leader], ...rest.map((id) => [id, follower] as [string, Replica])]) });
}

export function buildKraft(params: ParamValues): Model<KraftState> {
  const cfg = configOf(params);
  return {
    init: () => [settle(initialState(cfg))],
    actions: kraftActions(cfg),
    properties: kraftProperties(cfg.init === 'leader' ? 1 : 0),
    // The established leader is distinguished; its followers stay interchangeable.
    symmetry: [cfg.init === 'leader' ? cfg.voters.slice(1) : [...cfg.voters]],
  };
}

const budget = (name: string, what: string, def: number) =>
  ({ name, description: `budget: ${what}`, type: 'int', default: def, min: 0, max: 9 }) as const;

/** The bounds the fixed variants are compared at (each checks in seconds). */
const FIX_BOUNDS = {
  init: 'leader',
  maxEpoch: 2,
  maxValues: 1,
  maxRestarts: 1,
  maxCrashes: 0,
  maxResigns: 1,
  maxFetchTimeouts: 1,
  maxElectionTimeouts: 1,
  maxLosses: 0,
  maxConnectivityChanges: 0,
} as const;

export default defineSpec<KraftState>({
  name: 'kraft',
  description: 'KRaft Raft quorum (KafkaRaftClient/QuorumState) with KIP-996 pre-vote: KAFKA-16281 and its fixes',
  params: [
    { name: 'voters', description: 'number of voters r1..rN', type: 'int', default: 3, min: 3, max: 5 },
    {
      name: 'init',
      description: 'initial state: fresh (all Unattached in epoch 0) or leader (r1 leads epoch 1, the rest follow)',
      type: 'enum',
      default: 'leader',
      choices: ['fresh', 'leader'],
    },
    {
      name: 'fourthCondition',
      description: "fourth condition of maybeHandleCommonResponse's same-epoch branch: none (the JIRA's code), leaderIdNotSelf, notProspective",
      type: 'enum',
      default: 'none',
      choices: ['none', 'leaderIdNotSelf', 'notProspective'],
    },
    {
      name: 'resignedTimeout',
      description: 'a Resigned leader on election timeout: prospective (same epoch, the JIRA era) or unattached (epoch+1, the final fix)',
      type: 'enum',
      default: 'prospective',
      choices: ['prospective', 'unattached'],
    },
    { name: 'nudge', description: 'the leader may re-send BeginQuorumEpoch to a voter at any time', type: 'bool', default: false },
    {
      name: 'bug',
      description: 'plant a bug: none, or doubleVote (a Voted replica grants a second candidate in its epoch)',
      type: 'enum',
      default: 'none',
      choices: ['none', 'doubleVote'],
    },
    { name: 'maxEpoch', description: 'highest epoch a candidate may start (state-space bound)', type: 'int', default: 2, min: 1, max: 9 },
    budget('maxValues', 'client values written', 1),
    budget('maxRestarts', 'restarts keeping the disk', 1),
    budget('maxCrashes', 'crashes losing the disk (the voter stays down)', 0),
    budget('maxResigns', 'check-quorum resignations', 1),
    budget('maxFetchTimeouts', 'follower fetch timeouts', 1),
    budget('maxElectionTimeouts', 'election timeouts', 1),
    budget('maxLosses', 'lost messages', 0),
    budget('maxConnectivityChanges', 'links cut or healed', 0),
  ],
  presets: [
    {
      name: 'kraft-16281',
      description:
        'KAFKA-16281 as reported: no fourth condition, a Resigned leader times out into Prospective in its epoch. ' +
        'r1 resigns, becomes Prospective in epoch 1, r2 denies its pre-vote naming r1 as leader, and r1 tries to follow itself.',
      params: { ...FIX_BOUNDS },
      expect: { verdict: 'violates', property: 'NoIllegalState' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-leaderid',
      description:
        "fourth condition leaderId != self (the JIRA's first fix): safe. A Prospective still follows another named leader, " +
        'the "transition to Follower" alternative the JIRA says carries its own liveness issue.',
      params: { ...FIX_BOUNDS, fourthCondition: 'leaderIdNotSelf' },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-prospective',
      description:
        'fourth condition state != Prospective (kafka-tlaplus 421f170) with the BeginQuorumEpoch nudge: safe. Trades liveness: ' +
        'without the nudge a Prospective that lags the leader is denied every pre-vote and never learns the leader from a reply (stuck Prospective).',
      params: { ...FIX_BOUNDS, fourthCondition: 'notProspective', nudge: true },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-resigned-unattached',
      description:
        'the final fix: a Resigned leader times out into Unattached in the next epoch, so it is never Prospective in the epoch it led; ' +
        'maybeHandleCommonResponse is unchanged. Safe.',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', maxEpoch: 3 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-double-vote',
      description: 'planted bug: a Voted replica grants a second candidate of its epoch; two leaders of one epoch break ElectionSafety',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', bug: 'doubleVote', maxRestarts: 0, maxResigns: 0, maxFetchTimeouts: 2 },
      expect: { verdict: 'violates', property: 'ElectionSafety' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-bench',
      description: 'benchmark: the final fix with loss and a link change on top of the fix bounds',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', maxEpoch: 3, maxLosses: 1, maxConnectivityChanges: 1 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
  ],
  build: buildKraft,
});

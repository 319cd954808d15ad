/**
 * The KRaft Raft quorum with KIP-996 pre-vote, close enough to `KafkaRaftClient` and `QuorumState` to
 * reproduce KAFKA-16281: a leader resigns, times out into Prospective in the same epoch, and a peer's
 * pre-vote reply naming it as leader makes `maybeHandleCommonResponse` call
 * `transitionToFollower(epoch, self)`, which throws. Reference: Vanlightly's kafka-tlaplus
 * `kraft/kip_996` (@421f170 for the JIRA era, 823615e for the final design).
 *
 * The protocol variants are parameters, so the design alternatives run on one model.
 *
 * Left out, as in the TLA+ spec: observers and reconfiguration (KIP-853), EndQuorumEpoch, the
 * BeginQuorumEpoch response, snapshots. Timers and check-quorum fire nondeterministically within their
 * budgets. Requests are matched to responses by content, so two identical requests to one peer (sent
 * before and after a transition) are not told apart, where Kafka's correlation ids would.
 */
import { List, Map, Set } from '../immutable.ts';
import { defineSpec, type Model, type ParamValues } from '../spec.ts';
import { eventuallyLeaderElected, kraftProperties, notStuckInProspective } from './properties.ts';
import { kraftActions, settle } from './actions.ts';
import { kraftLayout } from './layout.ts';
import { immutableMessages } from './messages.ts';
import { packedMessages } from './packedMessages.ts';
import type { KraftMutation } from './mutations.ts';
import { Entry, majority, type FourthCondition, type KraftConfig, KraftState, type ProspectiveRules, Replica, type ResignedTimeout, type Timers } from './state.ts';

export function configOf(params: ParamValues): KraftConfig {
  const n = params.voters as number;
  return {
    voters: Array.from({ length: n }, (_, i) => `r${i + 1}`),
    init: params.init as KraftConfig['init'],
    fourthCondition: params.fourthCondition as FourthCondition,
    resignedTimeout: params.resignedTimeout as ResignedTimeout,
    prospective: params.prospective as ProspectiveRules,
    nudge: params.nudge as boolean,
    timers: (params.timers ?? 'budgeted') as Timers,
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
 * LeaderChange record and one client value `v0` are committed and acknowledged on every voter, and the
 * others follow it and have fetched. Durability is then at stake from the first step.
 */
export function initialState(cfg: KraftConfig): KraftState {
  const [first, ...rest] = cfg.voters;
  if (cfg.init === 'fresh') return KraftState({ replicas: Map(cfg.voters.map((id) => [id, Replica()])) });
  const log = List([Entry({ epoch: 1, value: null }), Entry({ epoch: 1, value: 'v0' })]);
  const leader = Replica({ role: 'Leader', epoch: 1, leader: first!, votedFor: first!, log, hwm: 2, endOffsets: Map(rest.map((id) => [id, 2])) });
  const follower = Replica({ role: 'Follower', epoch: 1, leader: first!, log, hwm: 2, fetched: true });
  return KraftState({
    replicas: Map([[first!, leader], ...rest.map((id) => [id, follower] as [string, Replica])]),
    acked: Set(['v0']),
  });
}

/**
 * How a model holds its states. `packed` (the bundled spec) declares the state's layout (layout.ts):
 * states are bytes, and the actions and properties read and write them through views with the
 * Immutable.js vocabulary (typed here as the Immutable records they stand for). `immutable` runs the
 * same code on the Immutable.js records of state.ts, for the test that holds the two forms to the same
 * counts and traces (kraftImmutable.ts).
 */
export type KraftForm = 'packed' | 'immutable';

export function buildKraft(params: ParamValues, form: KraftForm = 'packed'): Model<KraftState> {
  return modelOf(configOf(params), params, form);
}

/** The model with guards mutated, for the mutation table test: not reachable from the command line. */
export function buildKraftMutant(params: ParamValues, ...mutations: KraftMutation[]): Model<KraftState> {
  return modelOf({ ...configOf(params), mutations }, params, 'packed');
}

function modelOf(cfg: KraftConfig, params: ParamValues, form: KraftForm): Model<KraftState> {
  const layouts = form === 'packed' ? kraftLayout(cfg) : undefined;
  const layout = layouts?.State;
  const initial = (): KraftState => (layout === undefined ? initialState(cfg) : (layout.from(initialState(cfg)) as unknown as KraftState));
  const msgs = layouts === undefined ? immutableMessages : packedMessages(layouts, cfg);
  return {
    ...(layout !== undefined ? { layout } : {}),
    init: () => [settle(initial(), undefined, msgs)],
    actions: kraftActions(cfg, msgs),
    properties: [
      ...kraftProperties({
        initialLeaderEpoch: cfg.init === 'leader' ? 1 : 0,
        values: cfg.maxValues > 0,
        resignations: cfg.maxResigns + cfg.maxRestarts > 0,
        electionTimeouts: cfg.maxElectionTimeouts > 0,
        prospectiveKeepsLeader: cfg.prospective === 'kip996',
        resignedProspective: cfg.resignedTimeout === 'prospective',
        crashes: cfg.maxCrashes > 0,
        losses: cfg.maxLosses > 0,
        cuts: cfg.maxConnectivityChanges > 0,
      }, majority(cfg)),
      ...(params.liveness === 'prospective' || params.liveness === 'both' ? [notStuckInProspective()] : []),
      ...(params.liveness === 'election' || params.liveness === 'both' ? [eventuallyLeaderElected()] : []),
    ],
    // The established leader is distinguished; its followers stay interchangeable.
    symmetry: [cfg.init === 'leader' ? cfg.voters.slice(1) : [...cfg.voters]],
  };
}

const budget = (name: string, what: string, def: number) =>
  ({ name, description: `budget: ${what}`, type: 'int', default: def, min: 0, max: 9 }) as const;

/**
 * The bounds the fixes are checked at: the JIRA's scenario (one check-quorum resignation, one election
 * timeout) plus one follower fetch timeout so that elections complete, on the established quorum with
 * its committed value `v0`. Each preset checks in seconds.
 */
const FIX_BOUNDS = {
  init: 'leader',
  maxEpoch: 2,
  maxValues: 0,
  maxRestarts: 0,
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
      description:
        'a Resigned leader on election timeout: prospective (same epoch, the JIRA era) or unattached (epoch+1, as shipped: KAFKA-17642, PR #18240)',
      type: 'enum',
      default: 'prospective',
      choices: ['prospective', 'unattached'],
    },
    {
      name: 'prospective',
      description:
        'Prospective rules: jiraEra (as KAFKA-16281 reports: the known leader is cleared, a timeout starts another pre-vote) or ' +
        'kip996 (as shipped: the leader is kept, a lost or timed-out pre-vote falls back to Follower or Unattached, a Prospective may grant a standard vote)',
      type: 'enum',
      default: 'jiraEra',
      choices: ['jiraEra', 'kip996'],
    },
    { name: 'nudge', description: 'the leader may re-send BeginQuorumEpoch to a voter at any time', type: 'bool', default: false },
    {
      name: 'timers',
      description:
        'budgeted (every timeout fires at any time within its budget) or timely (the network has settled: a timer fires without budget ' +
        'when what it waits for cannot arrive, and only early timeouts spend the budgets)',
      type: 'enum',
      default: 'budgeted',
      choices: ['budgeted', 'timely'],
    },
    {
      name: 'bug',
      description: 'plant a bug: none, or doubleVote (a Voted replica grants a second candidate in its epoch)',
      type: 'enum',
      default: 'none',
      choices: ['none', 'doubleVote'],
    },
    { name: 'maxEpoch', description: 'highest epoch a candidate may start (state-space bound)', type: 'int', default: 2, min: 1, max: 9 },
    {
      name: 'liveness',
      description: 'also check liveness under fairness: none, prospective (NotStuckInProspective), election (EventuallyLeaderElected) or both',
      type: 'enum',
      default: 'none',
      choices: ['none', 'prospective', 'election', 'both'],
    },
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
        'KAFKA-16281 as reported: maybeHandleCommonResponse without a fourth condition, and a Resigned leader that times out ' +
        'into Prospective in its own epoch. r1 resigns, becomes Prospective in epoch 1, r2 denies its pre-vote naming r1 as ' +
        'leader, and r1 tries to become a follower of itself.',
      params: { ...FIX_BOUNDS, maxRestarts: 1 },
      expect: { verdict: 'violates', property: 'NoIllegalState' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-leaderid',
      description:
        "fourth condition leaderId != self (the JIRA's first description): safe. Liveness cost: a Prospective still follows " +
        'any other leader named in a reply, including one that has already resigned, and then waits for its fetch timeout ' +
        '(the "transition to Follower" alternative the JIRA says carries a liveness issue of its own).',
      params: { ...FIX_BOUNDS, fourthCondition: 'leaderIdNotSelf' },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-prospective',
      description:
        "fourth condition state != Prospective (the JIRA's current description, kafka-tlaplus 421f170), with the leader's " +
        'BeginQuorumEpoch nudge: safe. Trades liveness: a Prospective never learns the leader from a pre-vote reply, so one ' +
        'that lags the leader is denied every pre-vote and stays Prospective until the leader nudges it (stuck Prospective).',
      params: { ...FIX_BOUNDS, fourthCondition: 'notProspective', nudge: true },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-resigned-unattached',
      description:
        'the Resigned fix Kafka shipped (KAFKA-17642, PR #18240, KafkaRaftClient.pollResigned), on the KAFKA-16281-era ' +
        'Prospective: a Resigned leader times out into Unattached in the next epoch (then Prospective on the next timeout), ' +
        'so it is never Prospective in the epoch it led; maybeHandleCommonResponse is unchanged. Safe. The JIRA\'s trigger, a ' +
        'pre-vote reply naming the requester as leader of its own epoch, cannot occur here: that is the fix. Needs a second ' +
        'election timeout and epoch 3 for an election to complete after the resignation.',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', maxElectionTimeouts: 2, maxEpoch: 3 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-shipped',
      description:
        "Kafka as shipped after KIP-996: maybeHandleCommonResponse without a fourth condition, a Prospective that keeps its " +
        'known leader and ends a lost or timed-out pre-vote as Follower of that leader or Unattached (never Prospective again), ' +
        'and a Resigned leader that times out into Unattached in the next epoch (KAFKA-17642, PR #18240). Safe. The JIRA\'s ' +
        'trigger, a pre-vote reply naming the requester as leader of its own epoch, cannot occur: a leader never becomes ' +
        'Prospective in the epoch it led. Left out: the leader\'s periodic BeginQuorumEpoch resend ' +
        '(maybeSendBeginQuorumEpochRequests), which only speeds up finding the leader and almost triples the states.',
      params: { ...FIX_BOUNDS, prospective: 'kip996', resignedTimeout: 'unattached', maxElectionTimeouts: 2, maxEpoch: 3 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-leaderid-message-loss',
      description:
        'kraft-fixed-leaderid with one lost message (any request or response, at any time; its request times out): safe.',
      params: { ...FIX_BOUNDS, fourthCondition: 'leaderIdNotSelf', maxLosses: 1 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-fixed-leaderid-link-cut',
      description: 'kraft-fixed-leaderid with one link between two voters cut at any time (and not healed): safe.',
      params: { ...FIX_BOUNDS, fourthCondition: 'leaderIdNotSelf', maxConnectivityChanges: 1 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-shipped-disk-loss',
      description:
        'kraft-shipped with one voter crashing and losing its disk (it stays down; a majority stays up): safe, and a new ' +
        'leader is still elected.',
      params: { ...FIX_BOUNDS, prospective: 'kip996', resignedTimeout: 'unattached', maxElectionTimeouts: 2, maxEpoch: 3, maxCrashes: 1 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-double-vote',
      description:
        'planted bug in another rule: a Voted replica grants its vote to a second candidate of the same epoch. After both ' +
        'followers time out, the old leader votes for both candidates of epoch 2 and ElectionSafety fails.',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', bug: 'doubleVote', maxResigns: 0, maxElectionTimeouts: 0, maxFetchTimeouts: 2 },
      expect: { verdict: 'violates', property: 'ElectionSafety' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-stuck-prospective',
      description:
        'liveness of the "not Prospective" fourth condition without the nudge (KAFKA-16281\'s second half): safe, but a ' +
        'follower that times out becomes Prospective, every pre-vote is denied naming the leader it may not follow, and ' +
        'once its timers are spent it stays Prospective for ever beside the stable leader r1 and its follower. ' +
        'NotStuckInProspective fails with that lasso.',
      params: { ...FIX_BOUNDS, fourthCondition: 'notProspective', liveness: 'prospective' },
      expect: { verdict: 'violates', property: 'NotStuckInProspective' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-nudge-live',
      description:
        'the same with the leader\'s BeginQuorumEpoch nudge (weakly fair per leader and voter): the stuck Prospective ' +
        'learns of the leader, NotStuckInProspective holds under fair delivery.',
      params: { ...FIX_BOUNDS, fourthCondition: 'notProspective', nudge: true, liveness: 'prospective' },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-final-live',
      description:
        'the final fix (Resigned times out into Unattached in the next epoch, the fourth condition unchanged): a ' +
        'Prospective follows the leader named in a pre-vote reply, NotStuckInProspective holds under fair delivery.',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', maxElectionTimeouts: 2, maxEpoch: 3, liveness: 'prospective' },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-shipped-live',
      description:
        'liveness of Kafka as shipped: the KIP-996 Prospective that keeps its known leader and falls back to Follower after ' +
        'losing (ProspectiveState, KafkaRaftClient.prospectiveTransitionAfterElectionLoss), a Resigned leader that times out ' +
        'into Unattached in the next epoch (KAFKA-17642), and the leader resending BeginQuorumEpoch ' +
        '(maybeSendBeginQuorumEpochRequests), with one check-quorum resignation as the fault. Timers are timely: after the ' +
        'fault the network settles, and a timer fires, weakly fair per voter, exactly when what it waits for cannot arrive; ' +
        'one voter at a time starts an election (randomized timeouts and backoff). Under fair delivery both hold: ' +
        'EventuallyLeaderElected (a leader is elected whenever none leads) and NotStuckInProspective. With budgeted ' +
        'timers EventuallyLeaderElected fails in every preset: a spent timer budget is a timer that never fires again.',
      params: { ...FIX_BOUNDS, prospective: 'kip996', resignedTimeout: 'unattached', nudge: true, timers: 'timely', maxEpoch: 3, maxFetchTimeouts: 0, maxElectionTimeouts: 0, liveness: 'both' },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-deep-diverge',
      description:
        'Kafka as shipped (KIP-996 Prospective, KAFKA-17642) at the depth where log bugs live: two client values, two follower ' +
        'fetch timeouts and epoch 3, so a leader of epoch 2 can write an entry that only it holds, lose leadership, and see its ' +
        'log truncated by the leader of epoch 3 (diverging-epoch truncation, KIP-595 / KIP-101 style). Holds.',
      params: { ...FIX_BOUNDS, prospective: 'kip996', resignedTimeout: 'unattached', maxEpoch: 3, maxValues: 2, maxResigns: 0, maxElectionTimeouts: 0, maxFetchTimeouts: 2 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-deep-restart',
      description:
        'Kafka as shipped with a restart that keeps the disk: the epoch, leader and vote are durable (QuorumState.initialize reads ' +
        'the stored election state), the high watermark is not. One client value, two fetch timeouts, epoch 3. Holds.',
      params: { ...FIX_BOUNDS, prospective: 'kip996', resignedTimeout: 'unattached', maxEpoch: 3, maxValues: 1, maxRestarts: 1, maxResigns: 0, maxElectionTimeouts: 0, maxFetchTimeouts: 2 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-deep-4voters',
      description:
        'Kafka as shipped with four voters (a majority is 3 of 4, LeaderState), a restart keeping the disk, two fetch timeouts and ' +
        'epoch 3: two Prospectives can campaign in one epoch and split the vote. No client value (one more multiplies the states ' +
        'past what the default suite affords). Holds.',
      params: { ...FIX_BOUNDS, voters: 4, prospective: 'kip996', resignedTimeout: 'unattached', maxEpoch: 3, maxValues: 0, maxRestarts: 1, maxResigns: 0, maxElectionTimeouts: 0, maxFetchTimeouts: 2 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
    {
      name: 'kraft-bench',
      description:
        'benchmark (holds): the Resigned fix (KAFKA-17642) with a client value to replicate, two follower fetch timeouts and a resignation; ' +
        'reaches the diverging-epoch truncation of an uncommitted entry.',
      params: { ...FIX_BOUNDS, resignedTimeout: 'unattached', maxValues: 1, maxFetchTimeouts: 2, maxElectionTimeouts: 0 },
      expect: { verdict: 'holds' },
      options: { deadlock: false },
    },
  ],
  build: buildKraft,
});

/**
 * The actions of the KRaft quorum, named after kafka-tlaplus `kraft/kip_996/kraft_kip_996.tla`. Request
 * handlers follow `KafkaRaftClient.handle*Request`, response handlers run `maybeHandleCommonResponse`
 * first, and a granted majority transitions at once, as `maybeTransitionToLeader` does. Faults and
 * timers may fire at any time, each within its budget (safety checking, as the TLA+ spec does when
 * `TestLiveness` is off); only which one fires is chosen, never when.
 *
 * Every action is one step of one replica, named by `s`, so weak fairness can later be stated per
 * action and per replica (and per `(s, t)` pair for the nudge and the links). With `timely` timers a
 * timeout whose timer is due (`timerDue`) fires without budget, and only the early ones are budgeted.
 */
import { Set } from '../immutable.ts';
import type { Action, StepEvents } from '../spec.ts';
import type { KraftMutation } from './mutations.ts';
import { call as failed, why } from './illegalReasons.ts';
import {
  type FetchRequest,
  type Messages,
  type Msg,
  type MsgType,
  allMessages,
  consume,
  deliverable,
  dropMessages,
  event,
  expected,
  immutableMessages,
  inPlace,
  messageParams,
  messagesOfType,
  putReplica,
  send,
  sendRequest,
  same,
  sendResponse,
  tidy,
  writesInPlace,
} from './messages.ts';
import { type PackedSettle, packedSettleOf } from './packedSettle.ts';
import type { View } from '../layout/index.ts';
import {
  illegal,
  maybeHandleCommonResponse,
  maybeTransition,
  prospectiveAddVotedState,
  prospectiveTransitionAfterElectionLoss,
  transitionToCandidate,
  transitionToLeader,
  transitionToProspective,
  transitionToResigned,
  transitionToUnattached,
  transitionToVoted,
  truncate,
} from './quorumState.ts';
import {
  type KraftConfig,
  type KraftState,
  Replica,
  compareLogEnd,
  endOffsetForEpoch,
  entryOf,
  isLive,
  lastEpoch,
  majority,
} from './state.ts';

// The spec API's one sanctioned `any`: actions differ in their parameter types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type KraftAction = Action<KraftState, any>;
type OnVoter = { s: string };
type OnMsg<M extends Msg = Msg> = { s: string; m: M };
type Of<T extends MsgType> = OnMsg<Extract<Msg, { type: T }>>;

const NONE = Set<string>();

export function kraftActions(cfg: KraftConfig, msgs: Messages = immutableMessages): KraftAction[] {
  const ids = cfg.voters;
  /** Whether a guard mutation is under test (`mutations.ts`). */
  const mutant = (m: KraftMutation): boolean => cfg.mutations?.includes(m) ?? false;
  const quorum = mutant('majorityHalf') ? Math.floor(ids.length / 2) : majority(cfg);
  // Parameters are values: each choice is made once and shared by every state (guards run by the million).
  const voterChoices: readonly OnVoter[] = ids.map((s) => Object.freeze({ s }));
  const eachVoter = (): readonly OnVoter[] => voterChoices;
  const eachMsg =
    <T extends MsgType>(type: T) =>
    (st: KraftState): Of<T>[] =>
      messageParams(st, type) as Of<T>[];
  const rep = (st: KraftState, s: string): Replica => st.replicas.get(s)!;
  const fourth = mutant('fourthConditionOff') ? 'none' : cfg.fourthCondition;

  // ---- timers ---------------------------------------------------------------------------------

  /**
   * Whether `s`'s timer is due because what it waits for can no longer arrive (kafka-tlaplus
   * `CausalElectionTimeout`, `FetchCanTimeout`, `ShouldResign`):
   * - a leader that cannot hear from a majority (`LeaderState.timeUntilCheckQuorumExpires`): too few
   *   voters are live, linked to it and not ahead of its epoch;
   * - a follower whose fetches cannot succeed (`FollowerState`'s fetch timer): its leader is down,
   *   unreachable, or no longer leads its epoch;
   * - an Unattached or Voted replica with no BeginQuorumEpoch of its epoch or a later one on its way
   *   (`pollUnattached`, `pollVoted`: it waits for a leader to announce itself), and a Resigned leader,
   *   which waits for nothing but its timer (`pollResigned`);
   * - a Prospective or Candidate with no request in flight: every answer it can get is in, and it has
   *   not won (`pollProspective`, `pollCandidate`).
   * A timer that would start a new election is due only while no other voter is Prospective or
   * Candidate: election timeouts are randomized (`QuorumState.randomElectionTimeoutMs`) and a lost
   * election backs off at random (`KafkaRaftClient.binaryExponentialElectionBackoffMs`), so once the
   * network has settled one voter times out alone and its election ends before the next timer fires
   * (Raft §5.2: the timing assumption elections rest on). Overlapping elections remain possible through
   * early, budgeted timeouts. Without this, split votes could repeat at every epoch the bound allows.
   */
  function timerDue(st: KraftState, s: string): boolean {
    const r = rep(st, s);
    const alone = () => ids.every((t) => t === s || (rep(st, t).role !== 'Prospective' && rep(st, t).role !== 'Candidate'));
    switch (r.role) {
      case 'Leader':
        return ids.filter((t) => t !== s && deliverable(st, s, t) && rep(st, t).epoch <= r.epoch).length + 1 < quorum;
      case 'Follower': {
        const l = rep(st, r.leader!);
        return (!deliverable(st, s, r.leader!) || l.role !== 'Leader' || l.epoch !== r.epoch) && alone();
      }
      case 'Unattached':
      case 'Voted':
        return !messagesOfType(st, 'BeginQuorumEpoch').some((m) => m.to === s && m.epoch >= r.epoch) && alone();
      case 'Resigned':
        return cfg.resignedTimeout === 'unattached' || alone();
      case 'Prospective':
      case 'Candidate':
        return r.inflight.size === 0;
      default:
        return false;
    }
  }
  /** A timeout that fires because its timer is due, spending no budget (`timely` timers only). */
  const due = (st: KraftState, s: string): boolean => cfg.timers === 'timely' && timerDue(st, s);

  // ---- sending --------------------------------------------------------------------------------

  /** KIP-996: a Prospective asks every peer for a pre-vote in its current epoch. */
  function startPreVote(st: KraftState, s: string): KraftState {
    let p = transitionToProspective(rep(st, s), s, cfg.prospective);
    if (mutant('prospectiveClearsLeader') && p.role === 'Prospective') p = p.set('leader', null);
    st = putReplica(st, s, p);
    return requestVotes(st, s, true);
  }

  function requestVotes(st: KraftState, s: string, preVote: boolean): KraftState {
    const r = rep(st, s);
    if (!isLive(r)) return st;
    for (const t of ids) {
      if (t === s) continue;
      st = sendRequest(st, msgs.voteRequest(s, t, r.epoch, preVote, lastEpoch(r.log), r.log.size));
    }
    return st;
  }

  /** `onBecomeLeader`; the leader then announces itself with BeginQuorumEpoch to every voter. */
  function becomeLeader(st: KraftState, s: string): KraftState {
    st = putReplica(st, s, transitionToLeader(rep(st, s), s, quorum));
    const r = rep(st, s);
    if (!isLive(r)) return st;
    for (const t of ids) if (t !== s) st = send(st, msgs.beginQuorumEpoch(s, t, r.epoch));
    return st;
  }

  // ---- granting -------------------------------------------------------------------------------

  /**
   * KIP-996 pre-vote: granted when the candidate's log is at least as up to date, except by a leader or
   * a resigned leader (`LeaderState`/`ResignedState.canGrantVote` reject every vote), and by a follower
   * that has fetched from its leader in this epoch (`FollowerState.canGrantVote`; kafka-tlaplus
   * `HandleVoteRequest`).
   */
  function canGrantPreVote(r: Replica, logOk: boolean): boolean {
    if (mutant('preVoteWithoutLogCheck')) logOk = true;
    if (r.role === 'Leader' || (r.role === 'Resigned' && !mutant('resignedGrantsPreVote'))) return false;
    if (r.role === 'Follower') return (!r.fetched || mutant('followerGrantsPreVoteAfterFetch')) && logOk;
    return logOk;
  }

  /**
   * A real vote: only Unattached, or Voted for the same candidate (`UnattachedState`/`VotedState.canGrantVote`);
   * after KIP-996 also a Prospective, on the same terms, unless it knows a leader
   * (`QuorumState.unattachedOrProspectiveCanGrantVote`).
   */
  function canGrantVote(r: Replica, candidate: string, logOk: boolean): boolean {
    if (mutant('voteWithoutLogCheck')) logOk = true;
    if (mutant('voteForAnyCandidate') && (r.role === 'Unattached' || r.role === 'Voted')) return logOk;
    if (r.role === 'Unattached') return (r.votedFor === null || r.votedFor === candidate) && logOk;
    // The planted bug: a Voted replica grants a second candidate of the same epoch.
    if (r.role === 'Voted') return (r.votedFor === candidate || cfg.bug === 'doubleVote') && logOk;
    if (r.role === 'Prospective' && cfg.prospective === 'kip996') {
      return (r.votedFor !== null ? r.votedFor === candidate : r.leader === null) && logOk;
    }
    return false;
  }

  /**
   * `handleVoteRequest`'s log check: the candidate's `(last epoch, end offset)` is at least the voter's,
   * compared as `OffsetAndEpoch.compareTo` does (epoch first, then offset).
   */
  function candidateLogOk(epoch: number, offset: number, ownEpoch: number, ownOffset: number): boolean {
    if (mutant('voteLogOffByOne')) return compareLogEnd(epoch, offset + 1, ownEpoch, ownOffset) >= 0;
    if (mutant('voteLogStrict')) return compareLogEnd(epoch, offset, ownEpoch, ownOffset) > 0;
    if (mutant('voteLogEpochOnly')) return epoch >= ownEpoch;
    if (mutant('voteLogOffsetOnly')) return offset >= ownOffset;
    return compareLogEnd(epoch, offset, ownEpoch, ownOffset) >= 0;
  }

  /** `LeaderState.updateHighWatermark`: the majority's fetch offset, once it covers an entry of this epoch. */
  const offsets: number[] = ids.map(() => 0);
  function leaderHwm(r: Replica, self: string): number {
    for (let i = 0; i < ids.length; i++) offsets[i] = ids[i] === self ? r.log.size : r.endOffsets.get(ids[i]!, 0);
    const candidate = kthLargest(offsets, mutant('hwmFromLeaderAlone') ? 1 : quorum);
    return candidate > r.hwm && (r.log.get(candidate - 1)!.epoch === r.epoch || mutant('hwmWithoutCurrentEpochEntry')) ? candidate : r.hwm;
  }

  /** The leader `r` (its fetch offsets just recorded) takes the high watermark they allow; values it passes are acknowledged. */
  function advanceHwm(st: KraftState, s: string, r: Replica): KraftState {
    const hwm = leaderHwm(r, s);
    let acked = st.acked;
    for (let i = r.hwm; i < hwm; i++) {
      const v = r.log.get(i)!.value;
      if (v !== null) acked = acked.add(v);
    }
    return putReplica(st, s, r.set('hwm', hwm)).set('acked', acked);
  }

  /**
   * The high watermark a leader's fetch response carries: none (0 here, -1 in Kafka) until it has
   * committed an entry of its own epoch. `LeaderState.highWatermark` is empty when the epoch starts and
   * is first set by `maybeUpdateHighWatermark` past `epochStartOffset`; a high watermark the replica
   * knew before it led is not sent.
   */
  function sentHwm(r: Replica): number {
    return r.hwm > 0 && r.log.get(r.hwm - 1)!.epoch === r.epoch ? r.hwm : 0;
  }

  /**
   * `KafkaRaftClient.updateFollowerHighWatermark`: a follower takes the leader's high watermark, if the
   * response carries one, bounded by its own log end; `FollowerState.updateHighWatermark` throws on a
   * value below the one it holds (the high watermark is carried from state to state, `QuorumState`).
   */
  function followerHwm(r: Replica, sent: number, logEnd: number): Replica {
    if (sent === 0) return r;
    const hwm = mutant('followerHwmPastLogEnd') ? sent : Math.min(sent, logEnd);
    return hwm < r.hwm ? illegal(r, failed.updateHighWatermark(hwm), why.nonMonotonicHighWatermark(r.hwm)) : r.set('hwm', hwm);
  }

  /**
   * `QuorumState.initialize` after a restart: the election state (epoch, leader, vote) and the log are
   * durable; the high watermark and everything in memory are not. A leader comes back Resigned.
   */
  function boot(r: Replica, s: string): Replica {
    if (mutant('restartForgetsElection')) {
      return r.withMutations((b) => b.set('epoch', 0).set('votedFor', null).set('role', 'Unattached').set('leader', null).set('votes', NONE).set('rejections', NONE).set('hwm', 0).set('fetched', false).set('inflight', b.inflight.clear()).set('endOffsets', b.endOffsets.clear()));
    }
    // A Prospective is not durable (`memoryTransitionTo`): after KIP-996 one that knows its leader
    // comes back from the stored election as that leader's follower.
    const follows = r.role === 'Follower' || (cfg.prospective === 'kip996' && r.role === 'Prospective' && r.leader !== null);
    const [role, leader, votes] =
      r.leader === s ? ['Resigned' as const, s, NONE]
      : follows ? ['Follower' as const, r.leader, NONE]
      : r.votedFor === s && !mutant('restartForgetsVote') ? ['Candidate' as const, null, Set([s])]
      : r.votedFor !== null && !mutant('restartForgetsVote') ? ['Voted' as const, null, NONE]
      : ['Unattached' as const, null, NONE];
    return r.withMutations((b) =>
      (mutant('restartForgetsVote') ? b.set('votedFor', null) : b).set('role', role).set('leader', leader).set('votes', votes).set('rejections', NONE).set('hwm', 0).set('fetched', false).set('inflight', b.inflight.clear()).set('endOffsets', b.endOffsets.clear()),
    );
  }

  /**
   * `fetchPurgatory`: the leader holds a fetch at its log end until it has news. Here a fetch is held
   * while answering it would change neither side: the leader already knows the offset, and the
   * follower has fetched in this epoch and knows the high watermark it would be sent. Answering such
   * a fetch only swaps a request for a response on the network, so holding it loses no behaviour.
   */
  function parked(st: KraftState, r: Replica, m: FetchRequest): boolean {
    if (r.role !== 'Leader' || m.epoch !== r.epoch || m.fetchOffset !== r.log.size || r.endOffsets.get(m.from, 0) !== m.fetchOffset) return false;
    if (endOffsetForEpoch(r.log, m.lastFetchedEpoch).epoch !== m.lastFetchedEpoch) return false;
    const f = rep(st, m.from);
    const sent = sentHwm(r);
    return same(f.inflight.get(m.to), m) && f.fetched && (sent === 0 || f.hwm === Math.min(sent, f.log.size));
  }

  // ---- narration ------------------------------------------------------------------------------

  function narrate(before: KraftState, after: KraftState, actor: string, received: Msg | null, marks: string[] = []): StepEvents {
    const sends = allMessages(after).filter((m) => !before.net.has(m)).map(event);
    const was = before.replicas.get(actor)!;
    const now = after.replicas.get(actor)!;
    const allMarks = [...marks];
    if (now.role === 'IllegalState') allMarks.push(`IllegalState: ${now.illegal}`);
    else if (was.role !== now.role || was.epoch !== now.epoch) allMarks.push(`${now.role} e${now.epoch}`);
    return { actor, ...(received ? { receives: [event(received)] } : {}), sends, marks: allMarks };
  }

  const onVoterDescribe = (marks: string[]) => (before: KraftState, { s }: OnVoter, after: KraftState) => narrate(before, after, s, null, marks);
  const onMsgDescribe = (before: KraftState, { s, m }: OnMsg, after: KraftState) => narrate(before, after, s, m);

  // ---- actions --------------------------------------------------------------------------------

  const actions: KraftAction[] = [
    {
      // The leader resigns because it has not heard from a majority within the check-quorum timeout
      // (`LeaderState.timeUntilCheckQuorumExpires`, KIP-996 / KAFKA-15489).
      name: 'CheckQuorumResign',
      params: eachVoter,
      enabled: (st, { s }: OnVoter) => rep(st, s).role === 'Leader' && (st.resigns < cfg.maxResigns || due(st, s)),
      next: (st, { s }: OnVoter) => {
        // Whether the timer was due is read before the step writes: inside one mutable copy the replica is
        // already Resigned after `putReplica`.
        const spent = due(st, s) ? 0 : 1;
        return putReplica(st, s, transitionToResigned(rep(st, s))).set('resigns', st.resigns + spent);
      },
      describe: onVoterDescribe(['resign']),
    },
    {
      // Restart with the disk intact (kafka-tlaplus `RestartWithState`). Connections to it break.
      name: 'RestartWithState',
      params: eachVoter,
      enabled: (st, { s }: OnVoter) => st.restarts < cfg.maxRestarts && isLive(rep(st, s)),
      next: (st, { s }: OnVoter) => {
        st = dropMessages(st, (m) => m.to === s);
        return putReplica(st, s, boot(rep(st, s), s)).set('restarts', st.restarts + 1);
      },
      describe: onVoterDescribe(['restart']),
    },
    {
      // Crash losing the disk. Without reconfiguration (KIP-853) such a voter cannot rejoin under its id
      // safely, so it stays down; a majority always stays up (kafka-tlaplus `CrashLoseState`).
      name: 'CrashLoseState',
      params: eachVoter,
      enabled: (st, { s }: OnVoter) =>
        st.crashes < cfg.maxCrashes &&
        isLive(rep(st, s)) &&
        ids.filter((t) => rep(st, t).role === 'Dead').length + 1 <= ids.length - quorum,
      next: (st, { s }: OnVoter) => {
        st = dropMessages(st, (m) => m.to === s || m.from === s);
        return st.set('replicas', st.replicas.set(s, Replica({ role: 'Dead' }))).set('crashes', st.crashes + 1);
      },
      describe: onVoterDescribe(['crash']),
    },
    {
      // Election timeout of a voter that is not following anyone. KAFKA-16281's era: a Resigned leader,
      // like the rest, becomes Prospective in its current epoch. The shipped fix (KAFKA-17642, PR #18240,
      // `KafkaRaftClient.pollResigned`) sends it to Unattached in the next epoch instead. A Prospective
      // whose pre-vote times out starts another one in the KAFKA-16281 era; as shipped it ends the
      // election (`pollProspective` -> `prospectiveTransitionAfterElectionLoss`).
      name: 'ElectionTimeout',
      params: eachVoter,
      enabled: (st, { s }: OnVoter) => {
        if (st.electionTimeouts >= cfg.maxElectionTimeouts && !due(st, s)) return false;
        const r = rep(st, s);
        if (r.role === 'Resigned') return cfg.resignedTimeout === 'prospective' || r.epoch < cfg.maxEpoch;
        return r.role === 'Unattached' || r.role === 'Voted' || r.role === 'Prospective' || r.role === 'Candidate';
      },
      next: (st, { s }: OnVoter) => {
        const r = rep(st, s);
        st = st.set('electionTimeouts', st.electionTimeouts + (due(st, s) ? 0 : 1));
        if (r.role === 'Resigned' && cfg.resignedTimeout === 'unattached' && !mutant('resignedTimesOutToProspective')) return putReplica(st, s, transitionToUnattached(r, r.epoch + 1));
        if (r.role === 'Prospective' && cfg.prospective === 'kip996') return putReplica(st, s, prospectiveTransitionAfterElectionLoss(r, s));
        return startPreVote(st, s);
      },
      describe: onVoterDescribe(['timeout']),
    },
    {
      // A follower has not fetched successfully within the fetch timeout (KIP-996: Follower -> Prospective).
      name: 'FetchTimeout',
      params: eachVoter,
      enabled: (st, { s }: OnVoter) => rep(st, s).role === 'Follower' && (st.fetchTimeouts < cfg.maxFetchTimeouts || due(st, s)),
      next: (st, { s }: OnVoter) => startPreVote(st.set('fetchTimeouts', st.fetchTimeouts + (due(st, s) ? 0 : 1)), s),
      describe: onVoterDescribe(['timeout']),
    },
    {
      // `handleVoteRequest`: a stale candidate is fenced; a newer epoch is adopted first (as Unattached);
      // the reply always names the leader this replica knows of.
      name: 'HandleVoteRequest',
      params: eachMsg('VoteRequest'),
      enabled: (st, { s }: Of<'VoteRequest'>) => isLive(rep(st, s)),
      next: (st, { s, m }: Of<'VoteRequest'>) => {
        st = consume(st, m);
        let r = rep(st, s);
        if (m.epoch < r.epoch) {
          return sendResponse(st, msgs.voteResponse(m, r.epoch, r.leader, false, 'FENCED_LEADER_EPOCH'));
        }
        if (m.epoch > r.epoch) r = transitionToUnattached(r, m.epoch);
        const logOk = candidateLogOk(m.lastEpoch, m.lastOffset, lastEpoch(r.log), r.log.size);
        const granted = isLive(r) && (m.preVote ? canGrantPreVote(r, logOk) : canGrantVote(r, m.from, logOk));
        if (!m.preVote && granted && r.role === 'Unattached' && r.votedFor === null) r = transitionToVoted(r, s, m.epoch, m.from);
        if (!m.preVote && granted && r.role === 'Prospective' && r.votedFor === null) r = prospectiveAddVotedState(r, s, m.epoch, m.from);
        st = putReplica(st, s, r);
        return sendResponse(st, msgs.voteResponse(m, r.epoch, r.leader, granted));
      },
      describe: onMsgDescribe,
    },
    {
      // `handleVoteResponse`: the common triage, then count a granted (pre-)vote; a majority
      // transitions at once (Prospective -> Candidate within `maxEpoch`, Candidate -> Leader). As shipped
      // a Prospective also counts rejections, and once a majority can no longer be reached it ends the
      // election at once (`maybeHandleElectionLoss`); a Candidate only waits for its timeout.
      name: 'HandleVoteResponse',
      params: eachMsg('VoteResponse'),
      enabled: (st, { s, m }: Of<'VoteResponse'>) => isLive(rep(st, s)) && expected(rep(st, s), m),
      next: (st, { s, m }: Of<'VoteResponse'>) => {
        st = consume(st, m);
        let r = rep(st, s);
        r = r.set('inflight', r.inflight.remove(m.from));
        const triage = maybeHandleCommonResponse(r, s, fourth, m.error, m.leaderId, m.epoch);
        r = triage.replica;
        const recorded = !triage.handled && m.error === null && r.role === (m.preVote ? 'Prospective' : 'Candidate');
        const counts = recorded && (m.granted || (mutant('rejectionCountsAsVote') && r.role === 'Candidate'));
        if (counts) r = r.set('votes', r.votes.add(m.from));
        if (recorded && !m.granted && r.role === 'Prospective' && cfg.prospective === 'kip996' && !mutant('prospectiveIgnoresRejections')) {
          r = r.set('rejections', r.rejections.add(m.from));
          // `EpochElection.isVoteRejected`: the grants so far and the voters yet to answer are not a majority.
          if (r.votes.size + (ids.length - r.votes.size - r.rejections.size) < quorum) r = prospectiveTransitionAfterElectionLoss(r, s);
        }
        st = putReplica(st, s, r);
        if (counts && r.votes.size >= quorum) {
          if (r.role === 'Prospective' && r.epoch < cfg.maxEpoch) {
            const c = transitionToCandidate(r, s);
            st = putReplica(st, s, mutant('candidateKeepsEpoch') ? c.set('epoch', r.epoch) : c);
            st = requestVotes(st, s, false);
          } else if (r.role === 'Candidate') {
            st = becomeLeader(st, s);
          }
        }
        return st;
      },
      describe: onMsgDescribe,
    },
    {
      // `handleBeginQuorumEpochRequest`: a current or newer leader is adopted through `maybeTransition`.
      // The FENCED_LEADER_EPOCH reply to a stale leader is not modelled (as in kafka-tlaplus).
      name: 'HandleBeginQuorumEpoch',
      params: eachMsg('BeginQuorumEpoch'),
      enabled: (st, { s }: Of<'BeginQuorumEpoch'>) => isLive(rep(st, s)),
      next: (st, { s, m }: Of<'BeginQuorumEpoch'>) => {
        st = consume(st, m);
        const r = rep(st, s);
        return m.epoch < r.epoch ? st : putReplica(st, s, maybeTransition(r, s, m.from, m.epoch));
      },
      describe: onMsgDescribe,
    },
    {
      // Client write: the leader appends the next value (each value is written once, kafka-tlaplus
      // `ClientRequest`). It is acknowledged when the high watermark passes it.
      name: 'ClientRequest',
      params: eachVoter,
      enabled: (st, { s }: OnVoter) => st.written < cfg.maxValues && rep(st, s).role === 'Leader',
      next: (st, { s }: OnVoter) => {
        const r = rep(st, s);
        const log = r.log.push(entryOf(r.epoch, `v${st.written + 1}`));
        return putReplica(st, s, r.set('log', log)).set('written', st.written + 1);
      },
      describe: (before, { s }: OnVoter, after) => narrate(before, after, s, null, [`write v${after.written}`]),
    },
    {
      // `handleFetchRequest`: epoch and role checks (`validateLeaderOnlyRequest`), then the position
      // check (`validateOffsetAndEpoch`): a diverging fetch is told where the leader's log for that
      // epoch ends; a valid one gets the next entry and may advance the high watermark. A fetch whose
      // round trip would change nothing waits in the fetch purgatory (long poll).
      name: 'HandleFetchRequest',
      params: eachMsg('FetchRequest'),
      enabled: (st, { s, m }: Of<'FetchRequest'>) => isLive(rep(st, s)) && !parked(st, rep(st, s), m),
      next: (st, { s, m }: Of<'FetchRequest'>) => {
        st = consume(st, m);
        let r = rep(st, s);
        const anyEpoch = mutant('fetchFromAnyEpoch');
        const error =
          m.epoch < r.epoch && !anyEpoch ? 'FENCED_LEADER_EPOCH' : m.epoch > r.epoch && !anyEpoch ? 'UNKNOWN_LEADER_EPOCH' : r.role !== 'Leader' ? 'NOT_LEADER_OR_FOLLOWER' : null;
        if (error !== null) return sendResponse(st, msgs.fetchResponse(m, r.epoch, r.leader, { error }));
        const end = endOffsetForEpoch(r.log, m.lastFetchedEpoch);
        if ((end.epoch !== m.lastFetchedEpoch || end.offset < m.fetchOffset) && !mutant('fetchWithoutDivergenceCheck')) {
          if (mutant('leaderRecordsInvalidFetch')) st = advanceHwm(st, s, r.set('endOffsets', r.endOffsets.set(m.from, m.fetchOffset)));
          return sendResponse(st, msgs.fetchResponse(m, r.epoch, r.leader, { hwm: sentHwm(r), divergingEpoch: end.epoch, divergingEnd: end.offset }));
        }
        st = advanceHwm(st, s, r.set('endOffsets', r.endOffsets.set(m.from, m.fetchOffset)));
        r = rep(st, s);
        return sendResponse(st, msgs.fetchResponse(m, r.epoch, r.leader, { hwm: sentHwm(r), entry: r.log.get(m.fetchOffset) ?? null }));
      },
      describe: onMsgDescribe,
    },
    {
      // `handleFetchResponse`: the common triage, then truncate on a diverging epoch
      // (`ReplicatedLog.truncateToEndOffset`, which refuses to cut below the high watermark) or append
      // and take the leader's high watermark, bounded by the local log end.
      name: 'HandleFetchResponse',
      params: eachMsg('FetchResponse'),
      enabled: (st, { s, m }: Of<'FetchResponse'>) => isLive(rep(st, s)) && expected(rep(st, s), m),
      next: (st, { s, m }: Of<'FetchResponse'>) => {
        st = consume(st, m);
        let r = rep(st, s);
        r = r.set('inflight', r.inflight.remove(m.from));
        const triage = maybeHandleCommonResponse(r, s, fourth, m.error, m.leaderId, m.epoch);
        r = triage.replica;
        if (!triage.handled && m.error === null && r.role === 'Follower' && r.leader === m.from) {
          if (m.divergingEpoch !== null && mutant('followerIgnoresDivergingEpoch')) {
            r = r.set('fetched', true);
          } else if (m.divergingEpoch !== null) {
            const local = endOffsetForEpoch(r.log, m.divergingEpoch);
            const to = local.epoch === m.divergingEpoch ? Math.min(local.offset, m.divergingEnd) : local.offset;
            r = to < r.hwm ? illegal(r, failed.truncateTo(to), why.belowHighWatermark(r.hwm)) : r.set('log', truncate(r.log, to)).set('fetched', true);
          } else {
            const log = m.entry !== null ? r.log.push(m.entry) : r.log;
            r = followerHwm(r.withMutations((b) => b.set('log', log).set('fetched', true)), m.hwm, log.size);
          }
        }
        return putReplica(st, s, r);
      },
      describe: onMsgDescribe,
    },
    {
      // A message is lost; its request, if any, times out.
      name: 'DropMessage',
      params: (st: KraftState) => allMessages(st).map((m) => ({ m })),
      enabled: (st) => st.losses < cfg.maxLosses,
      next: (st, { m }: { m: Msg }) => dropMessages(st, (x) => same(x, m)).set('losses', st.losses + 1),
      describe: (_b, { m }: { m: Msg }) => ({ actor: m.to, receives: [], sends: [], marks: [`lost: ${m.from}->${m.to} ${event(m).label}`] }),
    },
    {
      // A link between two voters goes down (dropping what is in flight on it) or comes back.
      name: 'ChangeConnectivity',
      params: () => pairs(ids),
      enabled: (st) => st.connectivityChanges < cfg.maxConnectivityChanges,
      next: (st, { a, b }: { a: string; b: string }) => {
        const link = Set([a, b]);
        st = st.set('connectivityChanges', st.connectivityChanges + 1);
        if (st.cut.has(link)) return st.set('cut', st.cut.remove(link));
        st = dropMessages(st, (m) => (m.from === a && m.to === b) || (m.from === b && m.to === a));
        return st.set('cut', st.cut.add(link));
      },
      describe: (before, { a, b }: { a: string; b: string }) => ({
        actor: a,
        marks: [before.cut.has(Set([a, b])) ? `link ${a}-${b} up` : `link ${a}-${b} down`],
      }),
    },
  ];

  // KAFKA-16281's nudge: the leader re-sends BeginQuorumEpoch to a voter, so a Prospective that can
  // never win a pre-vote learns of the leader (kafka-tlaplus `MaybeUnblockProspective`; Kafka's leader
  // resends it periodically, `maybeSendBeginQuorumEpochRequests`).
  const nudge: KraftAction = {
    name: 'ResendBeginQuorumEpoch',
    params: () => ids.flatMap((s) => ids.filter((t) => t !== s).map((t) => ({ s, t }))),
    enabled: (st, { s, t }: { s: string; t: string }) => {
      const r = rep(st, s);
      return r.role === 'Leader' && deliverable(st, s, t) && !st.net.has(msgs.beginQuorumEpoch(s, t, r.epoch));
    },
    next: (st, { s, t }: { s: string; t: string }) => send(st, msgs.beginQuorumEpoch(s, t, rep(st, s).epoch)),
    describe: (before, p: { s: string; t: string }, after) => narrate(before, after, p.s, null, ['nudge']),
  };
  actions.splice(actions.findIndex((a) => a.name === 'HandleBeginQuorumEpoch') + 1, 0, nudge);

  // What rules an action out: a fault or timer whose budget is zero (a timely timer still fires when
  // due), or the nudge when it is off.
  const budgeted = cfg.timers === 'budgeted';
  const off: Readonly<Record<string, string | false>> = {
    CheckQuorumResign: budgeted && cfg.maxResigns === 0 && 'maxResigns = 0',
    RestartWithState: cfg.maxRestarts === 0 && 'maxRestarts = 0',
    CrashLoseState: cfg.maxCrashes === 0 && 'maxCrashes = 0',
    ElectionTimeout: budgeted && cfg.maxElectionTimeouts === 0 && 'maxElectionTimeouts = 0',
    FetchTimeout: budgeted && cfg.maxFetchTimeouts === 0 && 'maxFetchTimeouts = 0',
    ClientRequest: cfg.maxValues === 0 && 'maxValues = 0',
    DropMessage: cfg.maxLosses === 0 && 'maxLosses = 0',
    ChangeConnectivity: cfg.maxConnectivityChanges === 0 && 'maxConnectivityChanges = 0',
    ResendBeginQuorumEpoch: !cfg.nudge && 'nudge = false',
  };
  // Every step ends by tidying the network and with the followers' poll. A step copies the state once:
  // the action and the settling write into one mutable copy (`withMutations`), every helper returning
  // the state it was given, so a packed state is not copied again per write.
  return actions.map((a) => {
    const reason = off[a.name];
    // The state and parameters of the step under way, for `write` and `body`, made once per action (a step
    // then makes no closure of its own).
    let before: KraftState;
    let params: unknown;
    const body = (w: KraftState): KraftState => {
      const st = before;
      return settle(a.next(w, params), st, msgs);
    };
    const write = (w: KraftState): void => {
      if (inPlace(w, body) !== w) throw new Error(`${a.name}: a step must write into the state it is given`);
    };
    const next = (st: KraftState, p: unknown): KraftState => {
      before = st;
      params = p;
      return st.withMutations(write);
    };
    return { ...a, ...fairness(cfg, due)[a.name], next, ...(reason ? { disabledBy: reason } : {}) };
  });
}

/**
 * Fairness for the liveness properties, as kafka-tlaplus `kraft/kip_996` states it when `TestLiveness`
 * is on: fair delivery (every message that can be handled is eventually handled: weak fairness per
 * message, the default key), a voter's election timer eventually fires (weak, per voter) and the
 * leader's nudge to each voter eventually goes out (weak, per (leader, voter) pair). Faults (resignation,
 * restart, crash, loss, link changes), client writes and fetch timeouts are never forced.
 *
 * With `timely` timers every timer of a voter is owed when it is due (weak, per voter): the election
 * timer, a follower's fetch timer and a leader's check quorum, as kafka-tlaplus makes
 * `VoterFetchTimeout` and `CheckQuorumResign` fair; a timeout that fires early is a fault, never owed.
 */
function fairness(cfg: KraftConfig, due: (st: KraftState, s: string) => boolean): Readonly<Record<string, Pick<KraftAction, 'fairness' | 'fairnessKey' | 'fairWhen'>>> {
  const perVoter = { fairness: 'weak', fairnessKey: ({ s }: OnVoter) => s } as const;
  const whenDue = { ...perVoter, fairWhen: (st: KraftState, { s }: OnVoter) => due(st, s) };
  return {
    HandleVoteRequest: { fairness: 'weak' },
    HandleVoteResponse: { fairness: 'weak' },
    HandleBeginQuorumEpoch: { fairness: 'weak' },
    HandleFetchRequest: { fairness: 'weak' },
    HandleFetchResponse: { fairness: 'weak' },
    ResendBeginQuorumEpoch: { fairness: 'weak', fairnessKey: ({ s, t }: { s: string; t: string }) => `${s}>${t}` },
    ...(cfg.timers === 'timely' ? { ElectionTimeout: whenDue, FetchTimeout: whenDue, CheckQuorumResign: whenDue } : { ElectionTimeout: perVoter }),
  };
}

/**
 * What follows every step: inert messages leave the network, and followers poll. Only replicas the
 * step changed can have made messages inert or need to poll, so only those are looked at.
 */
export function settle(st: KraftState, before?: KraftState, msgs: Messages = immutableMessages): KraftState {
  if (before !== undefined && writesInPlace(st)) {
    const bytes = packedSettleOf(st);
    if (bytes !== null) return settleBytes(st, before, bytes, msgs);
  }
  if (before !== undefined && same(st.replicas, before.replicas) && same(st.cut, before.cut)) return st;
  const changed: string[] = [];
  st.replicas.forEach((r, id) => {
    if (before === undefined || !same(before.replicas.get(id), r)) changed.push(id);
  });
  return pollFollowers(tidy(st, changed), before === undefined || !same(st.cut, before.cut) ? [...st.replicas.keys()] : changed, msgs);
}

/** `settle` on the bytes of a packed step's own copy (packedSettle.ts), the network tidied in place. */
function settleBytes(st: KraftState, before: KraftState, k: PackedSettle, msgs: Messages): KraftState {
  const { _b: b, _o: o } = st as unknown as View;
  const { _b: pb, _o: po } = before as unknown as View;
  const changed = k.changed(b, o, pb, po);
  const cut = k.cutChanged(b, o, pb, po);
  if (changed === 0 && !cut) return st;
  if (changed !== 0) k.tidy(b, o, changed);
  const poll = cut ? -1 : changed;
  const ids = k.ids;
  for (let i = 0; i < ids.length; i++) if ((poll >>> i) & 1 && k.mayPoll(b, o, i)) st = pollPackedFollower(st, k, i, msgs);
  return st;
}

/** `pollFollowers` for follower `i` of a packed state, what its fetch carries read from the bytes (packedSettle.ts). */
function pollPackedFollower(st: KraftState, k: PackedSettle, i: number, msgs: Messages): KraftState {
  const { _b: b, _o: o } = st as unknown as View;
  const f = k.fetchOf(b, o, i);
  if (f === null) return pollFollowers(st, [k.ids[i]!], msgs);
  const s = k.ids[i]!;
  const leader = k.ids[f.leader]!;
  if (!deliverable(st, s, leader)) return st;
  return sendRequest(st, msgs.fetchRequest(s, leader, f.epoch, f.fetchOffset, f.lastFetchedEpoch));
}

/**
 * `KafkaRaftClient.pollFollower`: a follower always has a fetch in flight to its leader, at its log end,
 * when the link is up. A fetch sitting in the network is the same as one not yet sent, so sending it
 * at once loses no behaviour and saves a step per fetch.
 */
function pollFollowers(st: KraftState, ids: readonly string[], msgs: Messages): KraftState {
  for (const s of ids) {
    const r = st.replicas.get(s)!;
    if (r.role !== 'Follower' || r.inflight.has(r.leader!) || !deliverable(st, s, r.leader!)) continue;
    st = sendRequest(st, msgs.fetchRequest(s, r.leader!, r.epoch, r.log.size, lastEpoch(r.log)));
  }
  return st;
}

/** The `k`-th largest of `values` (from 1), sorting them in place, largest first. */
function kthLargest(values: number[], k: number): number {
  // Insertion sort: a handful of voters, and no array made per call as `sort` makes.
  for (let i = 1; i < values.length; i++) {
    const v = values[i]!;
    let j = i - 1;
    for (; j >= 0 && values[j]! < v; j--) values[j + 1] = values[j]!;
    values[j + 1] = v;
  }
  return values[k - 1]!;
}

function pairs(ids: readonly string[]): { a: string; b: string }[] {
  const out: { a: string; b: string }[] = [];
  for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) out.push({ a: ids[i]!, b: ids[j]! });
  return out;
}

/**
 * Guard mutations of the KRaft model, for the mutation table test (`mutations.test.ts`): each one
 * weakens or removes one rule that Kafka's code enforces, so that a test can show which checked preset
 * notices. They are not spec parameters (`kmc list` does not show them): only `buildKraftMutant` turns
 * one on.
 */
export const KRAFT_MUTATIONS = {
  // Vote granting (`UnattachedState`/`VotedState.canGrantVote`, `unattachedOrProspectiveCanGrantVote`).
  voteForAnyCandidate: 'a voter that voted in its epoch grants its vote to another candidate too',
  voteWithoutLogCheck: 'a standard vote is granted without checking that the candidate log is up to date',
  preVoteWithoutLogCheck: 'a pre-vote is granted without checking that the requester log is up to date',
  followerGrantsPreVoteAfterFetch: 'a follower grants pre-votes although it has fetched from its leader (`FollowerState.canGrantVote`)',
  resignedGrantsPreVote: 'a resigned leader grants pre-votes (`ResignedState.canGrantVote`)',
  // Elections (`QuorumState.transitionToCandidate`, `CandidateState`, `EpochElection`).
  candidateKeepsEpoch: 'a Prospective becomes Candidate without bumping the epoch',
  rejectionCountsAsVote: 'a Candidate counts a rejected vote as granted',
  prospectiveIgnoresRejections: 'the shipped Prospective does not count rejected pre-votes',
  prospectiveClearsLeader: 'the shipped Prospective forgets the leader it knew (the KAFKA-16281-era rule)',
  // KAFKA-16281 fixes (`maybeHandleCommonResponse`, `pollResigned`).
  fourthConditionOff: "maybeHandleCommonResponse's fourth condition is ignored",
  resignedTimesOutToProspective: 'a Resigned leader times out into Prospective in the epoch it led (KAFKA-17642 undone)',
  // Replication (`LeaderState.updateHighWatermark`, `ReplicatedLog.validateOffsetAndEpoch`, `validateLeaderOnlyRequest`).
  hwmWithoutCurrentEpochEntry: 'the leader advances the high watermark before an entry of its own epoch is replicated',
  hwmFromLeaderAlone: 'the leader advances the high watermark to its own log end, without a majority',
  fetchWithoutDivergenceCheck: 'the leader answers a fetch without checking the follower log for divergence',
  fetchFromAnyEpoch: 'the leader answers fetches of other epochs as if they were of its own',
  // The vote's log comparison (`KafkaRaftClient.handleVoteRequest` -> `OffsetAndEpoch.compareTo`: epoch first, then offset).
  voteLogOffByOne: "the log comparison accepts a candidate whose log ends one entry short of the voter's",
  voteLogStrict: 'the log comparison wants the candidate strictly ahead (`>` for `>=`): equal logs are refused',
  voteLogEpochOnly: 'the log comparison looks at the last epoch only, not the end offset',
  voteLogOffsetOnly: 'the log comparison looks at the end offset only, not the last epoch',
  // Majorities (`LeaderState`, `EpochElection.majoritySize`: size / 2 + 1).
  majorityHalf: 'the majority is computed as size / 2, without the + 1 (votes and the high watermark)',
  // Durable election state (`QuorumState.initialize` reads the stored `ElectionState`).
  restartForgetsVote: 'a restart forgets the vote cast in the current epoch (the stored election state loses `votedFor`)',
  restartForgetsElection: 'a restart forgets the whole election state (no `quorum-state` file was written): it comes back Unattached in epoch 0',
  // Followers (`FollowerState.updateHighWatermark`, `KafkaRaftClient.handleFetchResponse`).
  followerHwmPastLogEnd: "a follower takes the leader's high watermark as is, past its own log end",
  // Leaders (`KafkaRaftClient.handleFetchRequest`: the replica state is updated only for a valid fetch).
  leaderRecordsInvalidFetch: "the leader records a follower's fetch offset from a fetch that diverges from its log",
  followerIgnoresDivergingEpoch: 'a follower told its log diverges keeps it and fetches again (`KafkaRaftClient.handleFetchResponse` truncates)',
} as const;

export type KraftMutation = keyof typeof KRAFT_MUTATIONS;

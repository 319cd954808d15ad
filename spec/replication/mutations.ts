/**
 * Guard mutations, for the mutation table test (`mutations.test.ts`) only: each removes or weakens one
 * guard of the model, so the test can show that some preset notices. They are not parameters: `kmc list`
 * and the CLI never see them; a test sets `Config.mutation` directly.
 */
export const MUTATIONS = {
  ackIgnoresMinIsr: 'acks=all is acknowledged with fewer than min.insync.replicas ISR members (Partition.checkEnoughReplicasReachOffset)',
  appendIgnoresMinIsr: 'acks=all appends are accepted below min.insync.replicas (Partition.appendRecordsToLeader NotEnoughReplicas)',
  ackBeforeHighWatermark: 'acks=all is acknowledged before the high watermark passes the record',
  highWatermarkIgnoresIsr: 'the high watermark is the leader log end, not the ISR minimum (Partition.maybeIncrementLeaderHW)',
  strictHwmIgnored: 'KIP-966: the high watermark advances with the ISR below min.insync.replicas',
  uncleanRestartKeepsElr: 'KIP-966: a restart without a clean-shutdown proof keeps the broker in the ISR and ELR (handleBrokerUncleanShutdown)',
  elrKeepsUncleanReplica: 'maybePopulateTargetElr keeps a replica found to have shut down uncleanly in the ELR',
  elrNotClearedAtMinIsr: 'maybePopulateTargetElr keeps the ELR when the ISR is back at min.insync.replicas',
  elrValidWithIsr: 'isValidNewLeader accepts an ELR member while the ISR is not empty',
  electFencedReplica: 'isAcceptableLeader accepts a fenced replica',
  lastKnownLeaderWithElr: 'canElectLastKnownLeader runs while the ISR or ELR is not empty',
  lastKnownLeaderFenced: 'canElectLastKnownLeader elects a fenced last known leader (before KAFKA-19522)',
  expandBeforeCaughtUp: 'ISR expansion before the follower reached the high watermark and the leader epoch start (isFollowerInSync)',
  expandFromEarlierIncarnation: 'KIP-903: ISR expansion on a fetch state the follower left before it restarted',
  fetchOffsetBeforeTruncation: 'the leader records the log end a follower fetched from before it truncated a diverging suffix (updateFollowerFetchState on a diverging fetch)',
  fetchWithoutEpochValidation: 'before KIP-101/279: a fetch is served by offset alone, so a follower never truncates a divergent suffix',
  fetchStateKeptAcrossLeaderships: 'a broker that becomes leader again keeps the fetch states of its earlier leadership (Replica.resetReplicaState skipped)',
  expandFencedFollower: 'KIP-841: the controller accepts a fenced follower into the ISR',
  expandShuttingDownFollower: 'KIP-841: the controller accepts a follower in controlled shutdown into the ISR',
  expandWhileRecovering: 'KIP-704: the controller accepts an ISR expansion while the partition is RECOVERING',
  fetchAcrossEpochs: 'KIP-320: a leader serves a follower whose leader epoch differs',
  uncleanElectionKeepsIsr: 'an unclean election keeps the ISR it found instead of the new leader alone (PartitionChangeBuilder.tryElection)',
  balancedIgnoresElr: 'the Balanced strategy recovers while the ISR or ELR is not empty',
  managerSkipsLastKnownElr: 'the Unclean Recovery Manager under Balanced does not wait for the LastKnownELR members',
  preferredSkipsCatchUp: 'the safe preferred-leader election moves leadership before the preferred replica caught up',
  longestLogIgnored: 'the KIP-250 longest-log election picks in assignment order',
  brokerEventOnePartition: 'ReplicationControlManager changes only the first partition a fenced, shutting-down or uncleanly restarted broker hosts, not every one',
} as const;

export type Mutation = keyof typeof MUTATIONS;

/**
 * Guard mutations of the lifecycle model, for the mutation table test (`mutations.test.ts`): each one
 * breaks one rule that Kafka's controller enforces, the way a one-line slip would, so that the test can
 * show which checked preset notices. They are not spec parameters (`kmc list` does not show them): only
 * `buildLifecycleMutant` turns one on.
 */
export const LIFECYCLE_MUTATIONS = {
  // Heartbeats (`ClusterControlManager.checkBrokerEpoch`, `BrokerHeartbeatManager.hasValidSession`).
  staleEpochAccepted: 'a heartbeat with a stale broker epoch is handled as one of the registered epoch (checkBrokerEpoch skipped)',
  leaseStrict: 'a session is valid only while lastContact + sessionTimeout > now, not >= (hasValidSession)',
  // Registration (`ClusterControlManager.registerBroker`).
  duplicateIgnoresSession: 'DUPLICATE_BROKER_REGISTRATION whenever another incarnation holds the id, whatever its session',
  duplicateIgnoresFencing: "the holder's session counts as valid while its lease lasts, fenced or not",
  // Unfencing (`BrokerHeartbeatManager.calculateNextBrokerState`, FENCED case).
  unfenceWithoutCatchUp: 'a fenced broker is unfenced by any heartbeat, with no offset comparison',
  unfenceOffByOne: "the heartbeat's next offset is compared as if it were the last applied one (>= instead of >)",
  // Controlled shutdown (`calculateNextBrokerState`, UNFENCED and CONTROLLED_SHUTDOWN cases).
  shutdownWhileLeader: 'an unfenced leader asking to shut down is answered SHUTDOWN_NOW at once, without CONTROLLED_SHUTDOWN',
  shutdownBeforeOffset: 'CONTROLLED_SHUTDOWN ends once the broker leads nothing, without waiting for lowestActiveOffset',
  shutdownOffsetOffByOne: "the controlled shutdown offset is compared with the active brokers' next offsets, not their last applied ones",
} as const;

export type LifecycleMutation = keyof typeof LIFECYCLE_MUTATIONS;

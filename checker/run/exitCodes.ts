/** Process exit codes: CI can tell "the design is wrong" from "the spec crashed" from "the command was wrong". */
export const ExitCode = {
  /** Every property holds. */
  Holds: 0,
  /** An invariant failed, a deadlock was found, or a `sometimes` property was never reached. */
  Violation: 1,
  /** Bad command line, unknown spec/preset/parameter, malformed input file. */
  Usage: 2,
  /** The spec's own code threw. */
  SpecError: 3,
  /** A limit (states, depth, time, memory, Ctrl-C) ended the search before it was complete. */
  Incomplete: 4,
  /** A search on a cluster could not run: no NATS server or JetStream, too few workers, a worker lost. */
  Cluster: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * A cluster that cannot run the search: no server, no JetStream, too few workers, a run not found, a
 * checkpoint store that cannot be used. Its message is a paragraph for the user (`kmc` exits 5 with it).
 */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
}

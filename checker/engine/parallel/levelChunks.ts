/**
 * How the packed search cuts a level into chunks (packedCoordinator.ts). Guided self-scheduling: each
 * chunk is a share of the positions still left, so chunks start large (few reports, few merges) and
 * shrink towards the end of the level, where a large chunk taken last would keep every other worker
 * idle at the level's barrier until it is done.
 */
/** Fewest positions in a chunk: below this a report costs more than its states. */
export const MIN_CHUNK = 16;
/** Most positions in a chunk, so that a level is shared out in many claims. (A stop is heard within a piece of a chunk: chunkExpander.ts.) */
export const MAX_CHUNK = 1024;
/** Each chunk is 1 / (SHARE × workers) of the positions left: the first is as large as a stop inside a level allows. */
const SHARE = 8;

/** Where each chunk of a level of `count` positions starts, then `count`: chunk k is [starts[k], starts[k + 1]). */
export function levelChunks(count: number, workers: number): Int32Array {
  const starts = [0];
  for (let at = 0; at < count; ) {
    const size = Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Math.ceil((count - at) / (SHARE * workers))));
    // A rest too small for a chunk of its own goes with this one.
    at = count - (at + size) < MIN_CHUNK ? count : at + size;
    starts.push(at);
  }
  return Int32Array.from(starts);
}

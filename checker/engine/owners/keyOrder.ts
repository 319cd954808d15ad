/**
 * The order of an owner's new states by key (ownerProtocol.ts), without a comparator: a key is a parent's
 * rank and an index among its successors, so a counting sort by rank puts them in order but for the few
 * candidates of one parent, which an insertion sort by index then orders. Linear in the candidates and
 * the level's ranks, where a sort with a comparator cost a tenth of an owner's time.
 */
import { KEY_SPAN } from './ownerProtocol.ts';

/** The positions 0..count-1 of `keys`, least key first (keys are distinct). */
export function keyOrder(keys: Float64Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  if (count === 0) return order;
  let maxRank = 0;
  for (let c = 0; c < count; c++) maxRank = Math.max(maxRank, Math.floor(keys[c]! / KEY_SPAN));
  // Ranks past the candidates' count would make the buckets outweigh the sort: fall back to the comparator.
  if (maxRank > 8 * count + (1 << 16)) return order.map((_, c) => c).sort((a, b) => keys[a]! - keys[b]!);
  const starts = new Uint32Array(maxRank + 2);
  for (let c = 0; c < count; c++) starts[Math.floor(keys[c]! / KEY_SPAN) + 1]!++;
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!;
  for (let c = 0; c < count; c++) order[starts[Math.floor(keys[c]! / KEY_SPAN)]!++] = c;
  // Each rank's run is in arrival order; order it by index.
  for (let k = 1; k < count; k++) {
    const c = order[k]!;
    const key = keys[c]!;
    let j = k - 1;
    if (keys[order[j]!]! < key) continue;
    while (j >= 0 && keys[order[j]!]! > key) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = c;
  }
  return order;
}

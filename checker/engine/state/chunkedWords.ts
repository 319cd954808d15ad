/**
 * An append-only array of 32-bit words kept to the end of a search (an owner's records of how each state was
 * reached), in chunks of CHUNK_WORDS: it grows without copying what it holds, so it takes the words it holds
 * and at most one chunk more, never the growth factor's slack of one array nor, while it grows, the old
 * array and the new at once. The first chunk starts small and doubles up to a whole chunk.
 */
const CHUNK_BITS = 18;
const CHUNK_WORDS = 1 << CHUNK_BITS;
const FIRST_WORDS = 1024;

export class ChunkedWords {
  private chunks: Uint32Array[] = [new Uint32Array(FIRST_WORDS)];
  length = 0;

  get bytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }

  push(x: number): void {
    const i = this.length;
    const c = i >>> CHUNK_BITS;
    let chunk = this.chunks[c];
    const at = i & (CHUNK_WORDS - 1);
    if (chunk === undefined) this.chunks.push((chunk = new Uint32Array(CHUNK_WORDS)));
    else if (at === chunk.length) {
      // Only the first chunk is ever short: it doubles until it is whole.
      const bigger = new Uint32Array(Math.min(CHUNK_WORDS, 2 * chunk.length));
      bigger.set(chunk);
      this.chunks[c] = chunk = bigger;
    }
    chunk[at] = x;
    this.length = i + 1;
  }

  get(i: number): number {
    return this.chunks[i >>> CHUNK_BITS]![i & (CHUNK_WORDS - 1)]!;
  }
}

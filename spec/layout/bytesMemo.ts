/**
 * Values kept by the bytes they were made from. Model code that derives something from one field of a
 * packed state (a message's action parameters, an invariant's verdict on the replicas) meets the same
 * bytes in state after state; this table makes the value once per distinct bytes. The key is one region
 * of a state's bytes, or two regions read as one string. Bounded: emptied when full, so a long search
 * holds at most `limit` entries.
 */
import { equalBytes, hashRegion } from './bytes.ts';

interface Entry<V> {
  /** A copy of the key's bytes: the state they were read from is not kept. */
  readonly key: Uint8Array;
  readonly value: V;
}

export class BytesMemo<V> {
  private readonly table = new Map<number, Entry<V>[]>();
  private size = 0;

  /** `make` gets a copy of the key's bytes, which it may keep. */
  constructor(
    private readonly make: (key: Uint8Array) => V,
    private readonly limit = 1 << 16,
  ) {}

  /** The value for the `w` bytes of `b` at `o`. */
  of(b: Uint8Array, o: number, w: number): V {
    return this.of2(b, o, w, o + w, 0);
  }

  /** The value for the `w1` bytes of `b` at `o1` followed by its `w2` bytes at `o2`. */
  of2(b: Uint8Array, o1: number, w1: number, o2: number, w2: number): V {
    const h = w2 === 0 ? hashRegion(b, o1, w1) : hashRegion(b, o1, w1) ^ Math.imul(hashRegion(b, o2, w2), 0x9e3779b1);
    let bucket = this.table.get(h);
    if (bucket !== undefined) {
      for (const e of bucket) if (equalBytes(e.key, 0, b, o1, w1) && equalBytes(e.key, w1, b, o2, w2)) return e.value;
    }
    if (this.size >= this.limit) {
      this.clear();
      bucket = undefined;
    }
    if (bucket === undefined) this.table.set(h, (bucket = []));
    const key = new Uint8Array(w1 + w2);
    key.set(b.subarray(o1, o1 + w1), 0);
    key.set(b.subarray(o2, o2 + w2), w1);
    const value = this.make(key);
    bucket.push({ key, value });
    this.size++;
    return value;
  }

  /** How many values are kept. */
  get count(): number {
    return this.size;
  }

  clear(): void {
    this.table.clear();
    this.size = 0;
  }
}

/**
 * Values kept by the bytes they were made from. Model code that derives something from one field of a
 * packed state (a message's action parameters, an invariant's verdict on the replicas) meets the same
 * bytes in state after state; this table makes the value once per distinct bytes. The key is one region
 * of a state's bytes, or two regions read as one string. Bounded: when `limit` values are kept, they
 * become the older half and a new half starts; a value asked for again moves from the older half to
 * the new one, and the older half is dropped at the next turn. A long search holds at most `2 × limit`
 * values, and those it keeps asking for (a breadth-first level's) survive the turns.
 */
import { LITTLE_ENDIAN, dataViewOf, equalBytes, equalWide, wordsOf } from './bytes.ts';

/**
 * A 32-bit hash of `w` bytes of `b` at `o`, four bytes a turn read as a little-endian word: a region on
 * a word of its buffer (a step's successor) is read a word at a time, any other through a DataView
 * (or byte by byte when short), with the same result. Only this table uses it, so its values need match no other hash.
 */
function hashBytes(b: Uint8Array, o: number, w: number, h: number): number {
  let i = 0;
  const words = LITTLE_ENDIAN && (o & 3) === 0 ? wordsOf(b) : null;
  if (words !== null) {
    const at = o >> 2;
    const n = w >> 2;
    for (let k = 0; k < n; k++) {
      h = Math.imul(h ^ words[at + k]!, 0x9e3779b1);
      h ^= h >>> 15;
    }
    i = n << 2;
  } else if (w >= 16) {
    const d = dataViewOf(b);
    for (; i + 4 <= w; i += 4) {
      h = Math.imul(h ^ d.getInt32(o + i, true), 0x9e3779b1);
      h ^= h >>> 15;
    }
  } else {
    for (; i + 4 <= w; i += 4) {
      h = Math.imul(h ^ (b[o + i]! | (b[o + i + 1]! << 8) | (b[o + i + 2]! << 16) | (b[o + i + 3]! << 24)), 0x9e3779b1);
      h ^= h >>> 15;
    }
  }
  for (; i < w; i++) h = Math.imul(h ^ b[o + i]!, 0x01000193);
  return h;
}

/** Whether `w` bytes of `a` at `ao` equal those of a pool at `ko`, by words where both lie on one. */
function sameBytes(pool: Uint8Array, poolWords: Int32Array | null, ko: number, a: Uint8Array, ao: number, w: number): boolean {
  if (poolWords !== null && ((ko | ao) & 3) === 0 && w >= 8) {
    const words = wordsOf(a);
    if (words !== null) {
      const n = w >> 2;
      const kw = ko >> 2;
      const aw = ao >> 2;
      for (let k = 0; k < n; k++) if (poolWords[kw + k] !== words[aw + k]) return false;
      const done = n << 2;
      return equalBytes(pool, ko + done, a, ao + done, w - done);
    }
  }
  return equalWide(pool, ko, a, ao, w);
}

function find<V>(bucket: readonly Entry<V>[], b: Uint8Array, o1: number, w1: number, o2: number, w2: number): Entry<V> | null {
  for (let i = 0; i < bucket.length; i++) {
    const e = bucket[i]!;
    if (sameBytes(e.pool, e.poolWords, e.at, b, o1, w1) && (w2 === 0 || sameBytes(e.pool, e.poolWords, e.at + w1, b, o2, w2))) return e;
  }
  return null;
}

interface Entry<V> {
  /** The pool holding a copy of the key's bytes at `at` (a word boundary): the state they were read from is not kept. */
  readonly pool: Uint8Array;
  readonly poolWords: Int32Array | null;
  readonly at: number;
  readonly value: V;
}

/** Keys are copied into pools of this size, not a buffer each (a buffer of its own costs far more than its bytes). */
const POOL_BYTES = 1 << 16;

export class BytesMemo<V> {
  private table = new Map<number, Entry<V>[]>();
  /** The older half (see above), or null. */
  private older: Map<number, Entry<V>[]> | null = null;
  private olderSize = 0;
  private size = 0;
  private pool = new Uint8Array(0);
  private poolWords: Int32Array | null = null;
  private used = 0;

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
    let h = hashBytes(b, o1, w1, 0x811c9dc5 ^ w1);
    if (w2 !== 0) h = hashBytes(b, o2, w2, h ^ w2);
    // 30 bits: a small integer (Smi) key, which the table neither boxes nor hashes as a double.
    h = (h ^ (h >>> 13)) & 0x3fffffff;
    let bucket = this.table.get(h);
    if (bucket !== undefined) {
      const e = find(bucket, b, o1, w1, o2, w2);
      if (e !== null) return e.value;
    }
    if (this.size >= this.limit) {
      this.older = this.table;
      this.olderSize = this.size;
      this.table = new Map();
      this.size = 0;
      bucket = undefined;
    }
    if (bucket === undefined) this.table.set(h, (bucket = []));
    const old = this.older?.get(h);
    if (old !== undefined) {
      const e = find(old, b, o1, w1, o2, w2);
      if (e !== null) {
        old.splice(old.indexOf(e), 1);
        this.olderSize--;
        bucket.push(e);
        this.size++;
        return e.value;
      }
    }
    const w = w1 + w2;
    if (this.used + w > this.pool.length) {
      this.pool = new Uint8Array(Math.max(POOL_BYTES, w));
      this.poolWords = LITTLE_ENDIAN ? new Int32Array(this.pool.buffer, 0, this.pool.length >> 2) : null;
      this.used = 0;
    }
    const pool = this.pool;
    const at = this.used;
    this.used = (at + w + 3) & ~3;
    for (let i = 0; i < w1; i++) pool[at + i] = b[o1 + i]!;
    for (let i = 0; i < w2; i++) pool[at + w1 + i] = b[o2 + i]!;
    const value = this.make(pool.subarray(at, at + w));
    bucket.push({ pool, poolWords: this.poolWords, at, value });
    this.size++;
    return value;
  }

  /** How many values are kept. */
  get count(): number {
    return this.size + this.olderSize;
  }

  clear(): void {
    this.table.clear();
    this.older = null;
    this.olderSize = 0;
    this.size = 0;
  }
}

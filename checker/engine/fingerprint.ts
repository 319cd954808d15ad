/**
 * 64-bit structural fingerprints of Immutable.js values (for specs without a layout), computed in two
 * 32-bit lanes that feed each other at every step, so they make one 64-bit hash, not two 32-bit ones.
 *
 * Equal under `Immutable.is` ⇒ equal fingerprint: unordered collections (Map, Set) combine their entries
 * with a commutative sum, so insertion order never matters; ordered ones (List, OrderedMap, OrderedSet)
 * combine in sequence; a Record combines its field names, then its values in the order of the names, so
 * two Records are one state exactly when Immutable.is says so, whatever their classes. Immutable's own
 * `hashCode()` is only 32 bits, and JSON text depends on insertion order, so neither is used.
 *
 * Speed comes from structural sharing: a successor state shares most sub-collections with its parent,
 * and every collection caches its two lanes on itself the first time it is hashed, so hashing a successor
 * costs only the path that changed.
 */
import { isImmutable, isOrdered, isRecord, isKeyed, isIndexed, Record } from '../../spec/immutable.ts';
import { FINGERPRINT_HI, FINGERPRINT_LO, type RecordInternals } from '../../spec/recordClasses.ts';
import { View as PackedView } from '../../spec/layout/views.ts';
import { CANNOT_BE_CHECKED, viewOfAnotherKmc } from './state/packed.ts';
import { hash64, hashed } from './state/hash64.ts';

const H1 = FINGERPRINT_HI;
const H2 = FINGERPRINT_LO;
/**
 * On a Map or Set made by one `set`, `add` or `remove` from a collection already hashed (collectionEdits.ts),
 * until it is hashed: that collection, the key (a Set's element) the edit touched and what it put there
 * (REMOVED for a removal).
 */
export const EDITED_FROM = '__kmcFrom';
export const EDITED_KEY = '__kmcKey';
export const EDITED_VALUE = '__kmcValue';
export const REMOVED: unknown = Symbol('kmc.removed');

type Cached = { [H1]?: number; [H2]?: number; [EDITED_FROM]?: Cached; [EDITED_KEY]?: unknown; [EDITED_VALUE]?: unknown };

// Collection kinds, decided once per prototype.
const RECORD = 1;
const LIST = 2;
const MAP = 3;
const ORDERED_MAP = 4;
const SET = 5;
const ORDERED_SET = 6;
/** A packed view inside an Immutable value: hashed as its Immutable form, like any other value there. */
const PACKED = 7;

// Decided once per prototype and kept on it: a property load is cheaper than a Map lookup.
const KIND = Symbol('kmc.kind');
const RECORD_KEYS = Symbol('kmc.recordKeys');
/** Per key of RECORD_KEYS (sorted by name), its index in the Record's List of values, and its default. */
const RECORD_SLOTS = Symbol('kmc.recordSlots');
const RECORD_DEFAULTS = Symbol('kmc.recordDefaults');
/** The two lanes a Record's hash starts from: its field names'. */
const RECORD_SEED = Symbol('kmc.recordSeed');
type Prototype = { [KIND]?: number; [RECORD_KEYS]?: string[]; [RECORD_SLOTS]?: number[]; [RECORD_DEFAULTS]?: unknown[]; [RECORD_SEED]?: Int32Array };

/** The error a spec gets when its state holds something that is not an Immutable value or a primitive. */
export class UnhashableValueError extends Error {}

function kindOf(v: object): number {
  const proto = Object.getPrototypeOf(v) as Prototype;
  if (Object.prototype.hasOwnProperty.call(proto, KIND)) return proto[KIND]!;
  let kind: number;
  if (v instanceof PackedView) {
    kind = PACKED;
  } else if (isRecord(v)) {
    kind = RECORD;
    // A Record's keys are its defaults' `Object.keys`, in the order of its List of values. They are hashed
    // in the order of their names, starting from lanes that hash the names: Immutable.is calls two Records
    // equal when they have the same names in any order and equal values, whatever their classes.
    const declared = Object.keys((v as unknown as { toObject(): object }).toObject());
    const slots = declared.map((_, i) => i).sort((i, j) => (declared[i]! < declared[j]! ? -1 : declared[i]! > declared[j]! ? 1 : 0));
    const defaults = (v as unknown as RecordInternals)._defaultValues;
    proto[RECORD_KEYS] = slots.map((i) => declared[i]!);
    proto[RECORD_SLOTS] = slots;
    proto[RECORD_DEFAULTS] = slots.map((i) => defaults[declared[i]!]);
    proto[RECORD_SEED] = namesSeed(proto[RECORD_KEYS]);
  } else if (!isImmutable(v)) {
    kind = 0;
  } else if (isKeyed(v)) kind = isOrdered(v) ? ORDERED_MAP : MAP;
  else if (isIndexed(v)) kind = LIST;
  else kind = isOrdered(v) ? ORDERED_SET : SET;
  proto[KIND] = kind;
  return kind;
}

/** The lanes a Record with these field names (sorted) starts from: two classes with other names never share them. */
function namesSeed(names: readonly string[]): Int32Array {
  const lanes = new Fingerprinter();
  let a = 0x6a09e667 ^ names.length;
  let b = 0x3c6ef372 ^ names.length;
  for (const name of names) {
    lanes.of(name);
    a = step1(a, lanes.hi);
    b = step2(b ^ a, lanes.lo);
  }
  return Int32Array.of(a, b);
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** Sequential combination: order matters. */
function step1(h: number, x: number): number {
  return fmix(Math.imul(h ^ x, 0x9e3779b1) + 0x7f4a7c15);
}
function step2(h: number, x: number): number {
  return fmix(Math.imul(h + x, 0x27d4eb2f) ^ 0x165667b1);
}

// The steps are bijections, so a Map's or Set's sums of entries come back from its cached lanes: an edited
// collection's lanes are its parent's sums less the entry taken out plus the entry put in, at no memory.
/** The inverse of odd `a` modulo 2^32 (Newton's iteration doubles the correct bits each time). */
function inverse(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x;
}
const FMIX_1 = inverse(0x85ebca6b);
const FMIX_2 = inverse(0xc2b2ae35);
const STEP_1 = inverse(0x9e3779b1);
const STEP_2 = inverse(0x27d4eb2f);

function unfmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, FMIX_2);
  h ^= (h >>> 13) ^ (h >>> 26);
  h = Math.imul(h, FMIX_1);
  h ^= h >>> 16;
  return h;
}
/** `h` such that step1(h, x) === y. */
export function unstep1(y: number, x: number): number {
  return Math.imul((unfmix(y) - 0x7f4a7c15) | 0, STEP_1) ^ x;
}
/** `h` such that step2(h, x) === y. */
export function unstep2(y: number, x: number): number {
  return (Math.imul(unfmix(y) ^ 0x165667b1, STEP_2) - x) | 0;
}
export { fmix, step1, step2 };

const MAP_TAG = 0x11c8d3e7;
const SET_TAG = 0x7ae1c0d3;
/** How far back a chain of edits is followed (a collection edited twice before being hashed). */
const MAX_EDIT_CHAIN = 4;

// Ids, roles and message types recur in every state: their lanes are computed once.
const MAX_CACHED_STRINGS = 1 << 16;
const MAX_CACHED_STRING = 64;
const stringSlots = new Map<string, number>();
const stringLanes = new Int32Array(2 * MAX_CACHED_STRINGS);

const f64 = new Float64Array(1);
const f64Words = new Int32Array(f64.buffer);
const f64Bytes = new Uint8Array(f64.buffer);

/**
 * Computes fingerprints. Not re-entrant: results are left in `hi`/`lo` to avoid allocating per state.
 * `rename`, when set, maps primitive leaves (symmetry permutations); caching is bypassed then.
 */
export class Fingerprinter {
  hi = 0;
  lo = 0;
  private rename: ReadonlyMap<unknown, unknown> | null = null;

  /** Fingerprint of `v`; the two lanes are left in `hi` and `lo` (never both zero). */
  of(v: unknown, rename: ReadonlyMap<unknown, unknown> | null = null): void {
    this.rename = rename;
    if (typeof v === 'number') {
      // A state that is one number (a model packed by hand): the byte hash of its 8 bytes, without the
      // lanes and final mix of a value inside a collection.
      this.topNumber(this.renamed(v) as number);
      return;
    }
    if (v instanceof PackedView) {
      // A packed state is its bytes; symmetry permutes them through the layout (Expander), never by value.
      if (rename !== null) throw new Error('a packed state is renamed through its layout, not by value');
      this.ofBytes(v._b, v._o, v._t.width);
      return;
    }
    this.value(v);
    let hi = fmix(this.hi ^ 0x5bd1e995) >>> 0;
    const lo = fmix((this.lo ^ 0x1b873593) + hi) >>> 0;
    if (hi === 0 && lo === 0) hi = 1; // (0, 0) marks an empty slot in the seen-set
    this.hi = hi;
    this.lo = lo;
  }

  private topNumber(n: number): void {
    f64[0] = n === 0 ? 0 : Number.isNaN(n) ? NaN : n; // Immutable.is: -0 equals 0, NaN equals NaN
    hash64(f64Bytes, 0, 8);
    this.hi = hashed[0] === 0 && hashed[1] === 0 ? 1 : hashed[0]!; // (0, 0) marks an empty slot in the seen-set
    this.lo = hashed[1]!;
  }

  /** Fingerprint of `w` bytes at `b[o]` (a packed value): the engine's 64-bit byte hash. */
  ofBytes(b: Uint8Array, o: number, w: number): void {
    hash64(b, o, o + w);
    this.hi = hashed[0]!;
    this.lo = hashed[1]!;
  }

  /** Leaves the lanes of `v` in this.hi / this.lo (before the final mix). */
  private value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        this.string(this.renamed(v) as string);
        return;
      case 'number':
        this.number(this.renamed(v) as number);
        return;
      case 'boolean':
        this.hi = v ? 0x2f1d3a55 : 0x6c8e9cf5;
        this.lo = v ? 0x1ce4e5b9 : 0x53a1b0d7;
        return;
      case 'undefined':
        this.hi = 0x0a3d5e77;
        this.lo = 0x74f1c2a9;
        return;
      case 'object':
        if (v === null) {
          this.hi = 0x3c6ef372;
          this.lo = 0x4b7cf0a3;
          return;
        }
        this.collection(v);
        return;
      default:
        throw new UnhashableValueError(`a state holds a ${typeof v}; states may hold only Immutable values and primitives`);
    }
  }

  private renamed(v: unknown): unknown {
    if (this.rename === null) return v;
    const r = this.rename.get(v);
    return r === undefined ? v : r;
  }

  private string(s: string): void {
    const slot = stringSlots.get(s);
    if (slot !== undefined) {
      this.hi = stringLanes[2 * slot]!;
      this.lo = stringLanes[2 * slot + 1]!;
      return;
    }
    let a = 0x811c9dc5 ^ s.length;
    let b = 0x01000193 + s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b + c, 0x5bd1e995) ^ (b >>> 15);
    }
    this.hi = fmix(a ^ 0x1f);
    this.lo = fmix(b ^ 0x2e);
    if (s.length <= MAX_CACHED_STRING && stringSlots.size < MAX_CACHED_STRINGS) {
      const at = stringSlots.size;
      stringSlots.set(s, at);
      stringLanes[2 * at] = this.hi;
      stringLanes[2 * at + 1] = this.lo;
    }
  }

  private number(n: number): void {
    if (n === 0) n = 0; // Immutable.is: -0 equals 0
    if ((n | 0) === n) {
      this.hi = fmix(n ^ 0x68e31da4);
      this.lo = fmix(Math.imul(n, 0x2545f491) ^ 0x0b4611a6);
      return;
    }
    f64[0] = Number.isNaN(n) ? NaN : n; // Immutable.is: NaN equals NaN, whatever its bits
    this.hi = fmix(f64Words[0]! ^ 0x5e2d58d8);
    this.lo = fmix(f64Words[1]! ^ 0x7a0c2b35);
  }

  private collection(v: object): void {
    const cache = v as Cached;
    const useCache = this.rename === null;
    if (useCache) {
      const c1 = cache[H1];
      if (c1 !== undefined) {
        this.hi = c1;
        this.lo = cache[H2]!;
        return;
      }
    }
    const kind = kindOf(v);
    const from = cache[EDITED_FROM];
    if (from !== undefined) {
      // Read once: the parent is let go whether or not it serves, so no chain of versions stays alive.
      cache[EDITED_FROM] = undefined;
      if (useCache && (kind === MAP || kind === SET) && this.edited(cache, from, kind === MAP, 0)) {
        cache[H1] = this.hi;
        cache[H2] = this.lo;
        return;
      }
    }
    switch (kind) {
      case RECORD:
        this.record(v);
        break;
      case LIST:
        this.ordered(v as Iterable<unknown>, 0x1234567, false);
        break;
      case ORDERED_SET:
        this.ordered(v as Iterable<unknown>, 0x2345678, false);
        break;
      case ORDERED_MAP:
        this.ordered(v as Iterable<unknown>, 0x3456789, true);
        break;
      case MAP:
        this.unordered(v as { forEach(f: (v: unknown, k: unknown) => void): void; size: number }, true);
        break;
      case SET:
        this.unordered(v as { forEach(f: (v: unknown, k: unknown) => void): void; size: number }, false);
        break;
      case PACKED:
        this.value((v as PackedView).toImmutable());
        return;
      default: {
        const foreign = viewOfAnotherKmc(v);
        if (foreign !== null) throw new UnhashableValueError(CANNOT_BE_CHECKED + foreign);
        const what = Array.isArray(v) ? 'a plain array' : `a plain ${Object.getPrototypeOf(v)?.constructor?.name ?? 'object'}`;
        throw new UnhashableValueError(
          `a state holds ${what}; states may hold only Immutable values (Record, Map, Set, List, OrderedMap, OrderedSet) and primitives`,
        );
      }
    }
    if (useCache) {
      cache[H1] = this.hi;
      cache[H2] = this.lo;
    }
  }

  private record(r: object): void {
    const proto = Object.getPrototypeOf(r) as Prototype;
    const keys = proto[RECORD_KEYS]!;
    const record = r as RecordInternals;
    const get = record.get;
    // Record's own `get` reads a field's value from the List of values (its tail node's array up to 32
    // fields; none there is the field's default): read there directly. A class overriding `get` is read through it.
    const values = record._values;
    const direct = get === Record.prototype.get && values._origin === 0 && values._capacity <= 32;
    const array = direct ? values._tail?.array : undefined;
    const slots = proto[RECORD_SLOTS]!;
    const defaults = proto[RECORD_DEFAULTS]!;
    const seed = proto[RECORD_SEED]!;
    let a = seed[0]!;
    let b = seed[1]!;
    for (let i = 0; i < keys.length; i++) {
      let v: unknown;
      if (direct) {
        v = array === undefined ? undefined : array[slots[i]!];
        if (v === undefined) v = defaults[i];
      } else v = get.call(r, keys[i]!);
      this.value(v);
      a = step1(a, this.hi);
      b = step2(b ^ a, this.lo);
    }
    this.hi = a;
    this.lo = b;
  }

  private ordered(items: Iterable<unknown>, seed: number, keyed: boolean): void {
    let a = seed;
    let b = ~seed;
    let n = 0;
    const each = (v: unknown, k: unknown) => {
      if (keyed) {
        this.value(k);
        a = step1(a, this.hi);
        b = step2(b ^ a, this.lo);
      }
      this.value(v);
      a = step1(a, this.hi);
      b = step2(b ^ a, this.lo);
      n++;
    };
    (items as unknown as { forEach(f: (v: unknown, k: unknown) => void): void }).forEach(each);
    this.hi = step1(a, n);
    this.lo = step2(b ^ this.hi, n);
  }

  private unordered(c: { forEach(f: (v: unknown, k: unknown) => void): void; size: number }, keyed: boolean): void {
    let a = 0;
    let b = 0;
    c.forEach((v, k) => {
      this.entry(v, k, keyed);
      a = (a + this.hi) | 0;
      b = (b + this.lo) | 0;
    });
    this.sealUnordered(a, b, c.size, keyed);
  }

  /** The lanes of one entry of a Map (`v` at `k`) or Set (`v`), which a Map's or Set's lanes sum. */
  private entry(v: unknown, k: unknown, keyed: boolean): void {
    this.value(v);
    let ea = this.hi;
    let eb = this.lo;
    if (keyed) {
      this.value(k);
      ea = step1(this.hi, ea);
      eb = step2(this.lo ^ ea, eb);
    } else {
      ea = fmix(ea ^ 0x2b992ddf);
      eb = fmix((eb ^ 0x4e0d5b6f) + ea);
    }
    this.hi = ea;
    this.lo = eb;
  }

  private sealUnordered(a: number, b: number, size: number, keyed: boolean): void {
    const tag = keyed ? MAP_TAG : SET_TAG;
    this.hi = step1(a ^ tag, size);
    this.lo = step2(b ^ tag ^ this.hi, size);
  }

  /**
   * The lanes of Map or Set `c`, made by one edit from `from`, from `from`'s lanes: false (nothing
   * computed) when `from` has none. A parent itself edited and not yet hashed is worked out first, up to
   * MAX_EDIT_CHAIN edits back.
   */
  private edited(c: Cached, from: Cached, keyed: boolean, depth: number): boolean {
    if (from[H1] === undefined) {
      const before = from[EDITED_FROM];
      if (before === undefined || depth === MAX_EDIT_CHAIN || kindOf(from) !== kindOf(c)) return false;
      from[EDITED_FROM] = undefined;
      if (!this.edited(from, before, keyed, depth + 1)) return false;
      from[H1] = this.hi;
      from[H2] = this.lo;
    }
    const key = c[EDITED_KEY];
    const now = c[EDITED_VALUE];
    const size = (c as { size?: number }).size!;
    const sizeBefore = (from as { size?: number }).size!;
    const tag = keyed ? MAP_TAG : SET_TAG;
    const hi = from[H1]!;
    let a = unstep1(hi, sizeBefore) ^ tag;
    let b = unstep2(from[H2]!, sizeBefore) ^ tag ^ hi;
    // The edit changed the collection (else Immutable.js gives back the same one): an addition grew it, a
    // removal took out the key that was there; only a Map's replaced value is looked up.
    if (size <= sizeBefore) {
      this.entry(keyed ? (from as unknown as { get(k: unknown): unknown }).get(key) : key, key, keyed);
      a = (a - this.hi) | 0;
      b = (b - this.lo) | 0;
    }
    if (now !== REMOVED) {
      this.entry(now, key, keyed);
      a = (a + this.hi) | 0;
      b = (b + this.lo) | 0;
    }
    this.sealUnordered(a, b, size, keyed);
    return true;
  }
}

/** Whether `v` is a Map or a Set that is not ordered: the collections whose lanes an edit can update. */
export function isUnorderedCollection(v: object): boolean {
  const kind = kindOf(v);
  return kind === MAP || kind === SET;
}

/** Whether `v` has its lanes cached. */
export function isHashed(v: object): boolean {
  return (v as Cached)[H1] !== undefined;
}

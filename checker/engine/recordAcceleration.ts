/**
 * Makes Immutable.js Records cheap to compare and hash, which is most of what a spec's guards do
 * (`msgs.has(someMessageRecord)`). Immutable recomputes a Record's `hashCode()` on every call, and for both
 * it builds a Seq of each Record's entries, then finds each field of one in the other by a linear search
 * (with the garbage it makes, a third of a Paxos Commit run). Here, with Immutable's own answers:
 * - `equals` of two Records of one class: different fingerprints ⇒ not equal (a fingerprint is a function of
 *   `Immutable.is`-equality); equal fingerprints ⇒ the fields compared, so a collision can never make two
 *   Records equal. Records of two classes are compared name by name, as Immutable does: they are equal when
 *   they have the same field names, in any order, and equal values.
 * - `hashCode`: Immutable's number, computed field by field (`recordHash`, checked against Immutable's own
 *   when installed) and cached per instance (a Record is immutable once built).
 * Installed once per thread when the checker loads.
 */
import { List, Record, Set as ISet, hash, is, isRecord } from '../../spec/immutable.ts';
import { Fingerprinter } from './fingerprint.ts';
import type { RecordInternals } from '../../spec/recordClasses.ts';

const HASH = '__kmcHashCode';

let installed = false;
/** Whether `recordHash` hashes Records (it gave Immutable's own hashes of the probes when installed). */
let hashedByFields = false;

export function recordsHashedByFields(): boolean {
  return hashedByFields;
}

export function accelerateRecords(): void {
  if (installed) return;
  installed = true;
  const proto = Record.prototype as unknown as {
    equals(this: object, other: unknown): boolean;
    hashCode(this: object): number;
    get(this: RecordInternals, k: string, notSetValue?: unknown): unknown;
    has(this: RecordInternals, k: string): boolean;
  };
  const originalEquals = proto.equals;
  const originalHashCode = proto.hashCode;
  const fp = new Fingerprinter();
  const mutable = (r: object) => (r as { __ownerID?: unknown }).__ownerID !== undefined;
  // `recordHash` is Immutable's hash of a Record where it gives the same number on a probe of every kind of
  // field (another version of Immutable.js may hash otherwise: then its own code hashes).
  const Probe = Record({ n: 1, s: 'seven', none: null as unknown, nested: null as unknown, collection: null as unknown }, 'Probe');
  const probes = [
    Probe(),
    Probe({ n: -3.5, s: 'a string longer than sixteen characters', none: undefined, nested: Probe({ n: 2 }), collection: List([1, 'two']) }),
    Probe({ n: 2 ** 40, nested: Record({ x: 0 })(), collection: ISet(['a', 'b']) }),
  ];
  const hashByFields = (hashedByFields = probes.every((r) => recordHash(r as unknown as RecordInternals) === originalHashCode.call(r)));

  proto.equals = function equals(this: object, other: unknown): boolean {
    if (this === other) return true;
    if (typeof other !== 'object' || other === null || mutable(this) || mutable(other)) return originalEquals.call(this, other);
    // Records of two classes may be equal, with their fields in another order: their names decide.
    if (!sameClass(this, other)) return isRecord(other) && sameEntries(this as RecordInternals, other as unknown as RecordInternals);
    try {
      fp.of(this);
      const hi = fp.hi;
      const lo = fp.lo;
      fp.of(other);
      if (fp.hi !== hi || fp.lo !== lo) return false;
    } catch {
      // A Record holding values that are not Immutable ones: its fields decide, as in Immutable.
    }
    return equalFields(this as RecordInternals, other as RecordInternals);
  };

  // A field read (`r.term`, `r.get('term')`) is most of what a guard does. Immutable's goes through `has`,
  // `hasOwnProperty` and the List of values' `get`; a Record of up to 32 fields keeps its values in the
  // List's one tail node, read here directly. Same answers: a name that is not a field gives notSetValue
  // (its index is not a number), a value not set gives the default.
  proto.get = function get(this: RecordInternals, k: string, notSetValue?: unknown): unknown {
    const index = this._indices[k];
    if (typeof index !== 'number') return notSetValue;
    const values = this._values;
    const tail = values._tail;
    const value = values._origin === 0 && values._capacity <= 32 && tail != null ? tail.array[index] : values.get(index);
    return value === undefined ? this._defaultValues[k] : value;
  };
  proto.has = function has(this: RecordInternals, k: string): boolean {
    return typeof this._indices[k] === 'number';
  };

  proto.hashCode = function hashCode(this: object): number {
    const cached = (this as { [HASH]?: number })[HASH];
    if (typeof cached === 'number') return cached;
    const h = hashByFields ? recordHash(this as RecordInternals) : originalHashCode.call(this);
    if (!mutable(this)) (this as { [HASH]?: number })[HASH] = h;
    return h;
  };
}

/** Two Records of one class: Immutable keeps a class's field names in one array, on its prototype. */
function sameClass(a: object, b: object): boolean {
  return (a as Partial<RecordInternals>)._keys === (b as Partial<RecordInternals>)._keys;
}

/**
 * Immutable's `equals` of two Records of different classes: they are equal when they have the same field
 * names, in any order, each with `is`-equal values (a Small Set or Map compares each member it holds with
 * `equals`, so a message of one class is compared with messages of every other).
 */
function sameEntries(a: RecordInternals, b: RecordInternals): boolean {
  if (a._keys.length !== b._keys.length) return false;
  for (const k of b._keys) if (typeof a._indices[k] !== 'number' || !is(a.get(k), b.get(k))) return false;
  return true;
}

/**
 * Immutable's `equals` of two Records with the same field names: it compares the Seqs of their entries,
 * which, with the same keys on both sides, holds exactly when every field is `is`-equal.
 */
function equalFields(a: RecordInternals, b: RecordInternals): boolean {
  for (const k of a._keys) if (!is(a.get(k), b.get(k))) return false;
  return true;
}

/**
 * Immutable's hash of a Record, without the Seq of its entries it builds for it: the hash of an unordered
 * keyed collection (each entry's value and key hashes merged, summed) finished by the size. Checked
 * against Immutable's own when installed (`hashByFields`).
 */
function recordHash(r: RecordInternals): number {
  const keys = r._keys;
  let names = nameHashes.get(keys);
  if (names === undefined) nameHashes.set(keys, (names = Int32Array.from(keys, (k) => hash(k))));
  let h = 0;
  for (let i = 0; i < keys.length; i++) h = (h + mergeHashes(hashOfValue(r.get(keys[i]!)), names[i]!)) | 0;
  return hashOfSize(keys.length, h);
}

/** Immutable's hash of each field name, per Record class (its list of field names). */
const nameHashes = new WeakMap<readonly string[], Int32Array>();

/**
 * Immutable's hash of a field's value. A string's is kept once computed (up to MAX_KEPT_STRINGS of them):
 * Immutable computes a short string's hash a character at a time on every call, and a message record's
 * fields are mostly a few short names ('Prepared', 'r1').
 */
function hashOfValue(v: unknown): number {
  if (typeof v !== 'string') return hash(v);
  let h = stringHashes.get(v);
  if (h === undefined) {
    h = hash(v);
    if (stringHashes.size < MAX_KEPT_STRINGS) stringHashes.set(v, h);
  }
  return h;
}
const stringHashes = new globalThis.Map<string, number>();
const MAX_KEPT_STRINGS = 4096;

function mergeHashes(a: number, b: number): number {
  return (a ^ (b + 0x9e3779b9 + (a << 6) + (a >> 2))) | 0;
}

/** MurmurHash3's mix of a collection's hash with its size, kept to a small integer, as Immutable ends a collection's hash. */
function hashOfSize(size: number, h: number): number {
  h = Math.imul(h, 0xcc9e2d51);
  h = Math.imul((h << 15) | (h >>> 17), 0x1b873593);
  h = Math.imul((h << 13) | (h >>> 19), 5);
  h = ((h + 0xe6546b64) | 0) ^ size;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return ((h >>> 1) & 0x40000000) | (h & 0xbfffffff);
}

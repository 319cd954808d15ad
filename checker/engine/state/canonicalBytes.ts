/**
 * The canonical byte encoding of an Immutable.js state, for specs that declare no layout: two states
 * that are `Immutable.is`-equal encode to the same bytes, so the engine can hash and compare bytes only.
 *
 * Unordered collections (Map, Set) write their entries sorted by their own encoding, so insertion order
 * never matters; ordered ones (List, OrderedMap, OrderedSet, Record fields) write in sequence. Every
 * collection keeps its encoding on itself the first time it is written: a successor shares most
 * sub-collections with its parent, so encoding it re-encodes only the path that changed.
 */
import { isImmutable, isIndexed, isKeyed, isOrdered, isRecord } from 'immutable';

/** The error a spec gets when its state holds something that is not an Immutable value or a primitive. */
export class UnhashableValueError extends Error {}

const BYTES = Symbol('kmc.canonicalBytes');
const KIND = Symbol('kmc.kind');
const RECORD_KEYS = Symbol('kmc.recordKeys');
const RECORD_TYPE = Symbol('kmc.recordType');

type Prototype = { [KIND]?: number; [RECORD_KEYS]?: string[]; [RECORD_TYPE]?: number };
type Cached = { [BYTES]?: Uint8Array };

const enum Tag {
  Null = 0,
  Undefined,
  False,
  True,
  Int,
  Double,
  String,
  Record,
  List,
  Map,
  OrderedMap,
  Set,
  OrderedSet,
  Packed,
}

const RECORD = 1;
const LIST = 2;
const MAP = 3;
const ORDERED_MAP = 4;
const SET = 5;
const ORDERED_SET = 6;
const PACKED = 7;

let recordTypes = 0;

function kindOf(v: object): number {
  const proto = Object.getPrototypeOf(v) as Prototype | null;
  if (proto === null) return 0;
  if (Object.prototype.hasOwnProperty.call(proto, KIND)) return proto[KIND]!;
  let kind: number;
  if ((v as { bytes?: unknown; layout?: unknown }).bytes instanceof Uint8Array && (v as { layout?: unknown }).layout !== undefined) {
    kind = PACKED;
  } else if (isRecord(v)) {
    kind = RECORD;
    proto[RECORD_KEYS] = Object.keys((v as unknown as { toObject(): object }).toObject());
    // Records of different types are never equal (Immutable.is), so the type is part of the encoding.
    proto[RECORD_TYPE] = recordTypes++;
  } else if (!isImmutable(v)) {
    kind = 0;
  } else if (isKeyed(v)) kind = isOrdered(v) ? ORDERED_MAP : MAP;
  else if (isIndexed(v)) kind = LIST;
  else kind = isOrdered(v) ? ORDERED_SET : SET;
  proto[KIND] = kind;
  return kind;
}

let buf = new Uint8Array(1 << 12);
let pos = 0;
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

function reserve(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const bigger = new Uint8Array(size);
  bigger.set(buf.subarray(0, pos));
  buf = bigger;
}

function byte(b: number): void {
  reserve(1);
  buf[pos++] = b;
}

function u32(x: number): void {
  reserve(4);
  buf[pos++] = x & 0xff;
  buf[pos++] = (x >>> 8) & 0xff;
  buf[pos++] = (x >>> 16) & 0xff;
  buf[pos++] = (x >>> 24) & 0xff;
}

function varint(x: number): void {
  while (x >= 0x80) {
    byte((x & 0x7f) | 0x80);
    x = Math.floor(x / 128);
  }
  byte(x);
}

function bytes(b: Uint8Array): void {
  reserve(b.length);
  buf.set(b, pos);
  pos += b.length;
}

/**
 * The canonical bytes of `v`. The returned view is valid until the next call; copy it to keep it.
 * Throws `UnhashableValueError` for a plain object, array, function or other non-Immutable value.
 */
export function canonicalBytes(v: unknown, rename?: ReadonlyMap<unknown, unknown>): Uint8Array {
  pos = 0;
  renaming = rename;
  write(v);
  renaming = undefined;
  return buf.subarray(0, pos);
}

/** A symmetry permutation applied to primitive leaves; the per-collection cache is bypassed meanwhile. */
let renaming: ReadonlyMap<unknown, unknown> | undefined;

function write(v: unknown): void {
  if (renaming !== undefined && typeof v !== 'object' && renaming.has(v)) v = renaming.get(v);
  if (v === null) return byte(Tag.Null);
  switch (typeof v) {
    case 'undefined':
      return byte(Tag.Undefined);
    case 'boolean':
      return byte(v ? Tag.True : Tag.False);
    case 'number':
      if ((v | 0) === v) {
        byte(Tag.Int);
        return u32(v);
      }
      byte(Tag.Double);
      f64[0] = Number.isNaN(v) ? NaN : v;
      reserve(8);
      buf.set(f64Bytes, pos);
      pos += 8;
      return;
    case 'string':
      byte(Tag.String);
      varint(v.length);
      reserve(2 * v.length);
      for (let i = 0; i < v.length; i++) {
        const c = v.charCodeAt(i);
        buf[pos++] = c & 0xff;
        buf[pos++] = c >>> 8;
      }
      return;
    case 'object':
      return writeObject(v as object & Cached);
    default:
      throw unhashable(v);
  }
}

function writeObject(o: object & Cached): void {
  const cached = renaming === undefined ? o[BYTES] : undefined;
  if (cached !== undefined) return bytes(cached);
  const start = pos;
  switch (kindOf(o)) {
    case PACKED: {
      const b = (o as { bytes: Uint8Array }).bytes;
      byte(Tag.Packed);
      varint(b.length);
      return bytes(b);
    }
    case RECORD: {
      const proto = Object.getPrototypeOf(o) as Prototype;
      const rec = o as { get(k: string): unknown };
      byte(Tag.Record);
      varint(proto[RECORD_TYPE]!);
      for (const k of proto[RECORD_KEYS]!) write(rec.get(k));
      break;
    }
    case LIST:
      byte(Tag.List);
      varint((o as { size: number }).size);
      for (const x of o as Iterable<unknown>) write(x);
      break;
    case ORDERED_SET:
      byte(Tag.OrderedSet);
      varint((o as { size: number }).size);
      for (const x of o as Iterable<unknown>) write(x);
      break;
    case ORDERED_MAP:
      byte(Tag.OrderedMap);
      varint((o as { size: number }).size);
      for (const [k, x] of (o as { entries(): Iterable<[unknown, unknown]> }).entries()) {
        write(k);
        write(x);
      }
      break;
    case SET:
    case MAP: {
      const keyed = kindOf(o) === MAP;
      const parts: Uint8Array[] = [];
      const iter = keyed ? (o as { entries(): Iterable<[unknown, unknown]> }).entries() : (o as Iterable<unknown>);
      for (const e of iter) {
        const at = pos;
        if (keyed) {
          write((e as [unknown, unknown])[0]);
          write((e as [unknown, unknown])[1]);
        } else write(e);
        parts.push(buf.slice(at, pos));
        pos = at;
      }
      parts.sort(compareBytes);
      byte(keyed ? Tag.Map : Tag.Set);
      varint(parts.length);
      for (const p of parts) bytes(p);
      break;
    }
    default:
      throw unhashable(o);
  }
  if (renaming === undefined) o[BYTES] = buf.slice(start, pos);
}

/** Lexicographic order of byte strings. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function unhashable(v: unknown): UnhashableValueError {
  const what = Array.isArray(v) ? 'a plain array' : typeof v === 'object' ? 'a plain object' : `a ${typeof v}`;
  return new UnhashableValueError(
    `a state holds ${what}; states must be built from Immutable.js values (Record, Map, Set, List, ...) and primitives, or declared with a layout`,
  );
}

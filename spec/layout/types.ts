/**
 * The layout types: each knows its fixed width in bytes, how to write a value into its region (plain JS,
 * Immutable.js or a packed view of the same type) and how to read it back (a primitive, or a view that
 * reads the bytes in place). A write always overwrites the whole region, unused slots and padding
 * included, so equal values give equal bytes whatever their history.
 *
 * Scalars store a *code* (0..count-1) big-endian in 1, 2 or 4 bytes, so byte order is code order; the
 * all-zero region is every type's zero value (min, first enum value, false, null, empty collection).
 */
import { List, Map as IMap, Record as IRecord, type RecordFactory, Set as ISet, isImmutable, isKeyed, isMap, isRecord } from '../immutable.ts';
import { allocBytes, arena, codeWidth, compareBytes, copyInto, copyToSlab, readCode, writeCode } from './bytes.ts';
import { LayoutError } from './errors.ts';
import { IdSetViewOf, ListViewOf, MapViewOf, SetViewOf, View, sameShape, type IdSetView, type MapView, type RecordView } from './views.ts';
import { makeRecordClass, makeRecordReader, type RecordClass } from './recordClass.ts';

/**
 * A layout type. `R` is what a read gives (a primitive or a view), `I` what a write accepts. The two
 * phantom members only carry those types for `Packed<T>`.
 */
export abstract class LType<R = unknown, I = unknown> {
  declare readonly __read: R;
  declare readonly __input: I;
  abstract readonly kind: Kind;
  abstract readonly width: number;
  /** The value stored at `o`; composite values are views that keep `parent` and `key` for error paths. */
  abstract read(b: Uint8Array, o: number, parent: View | null, key: string): R;
  /** Writes `v` over the whole region at `o`; throws LayoutError (path relative to this region). */
  abstract write(b: Uint8Array, o: number, v: unknown): void;
  abstract toImmutable(b: Uint8Array, o: number): unknown;
  abstract toJS(b: Uint8Array, o: number): unknown;
  /** Short text of what the type allows, for bound messages and docs. */
  abstract describe(): string;
  /** False for scalars (stored as one code), true for records, collections and composite options. */
  isComposite(): boolean {
    return true;
  }
  /** The types directly inside this one. */
  children(): readonly LType[] {
    return [];
  }

  /** The packed form of `v` (a primitive for scalars, a view with its own bytes otherwise). */
  from(v: I): R {
    const b = allocBytes(this.width);
    this.write(b, 0, v);
    return this.read(b, 0, null, '');
  }

  /** Reads a value from bytes laid out by this type (the engine's way back from stored bytes). */
  wrap(bytes: Uint8Array): R {
    if (bytes.length < this.width) throw new RangeError(`${this.describe()} needs ${this.width} bytes; got ${bytes.length}`);
    return this.read(bytes, 0, null, '');
  }

  /**
   * Reads a value laid out by this type at offset `o` of `bytes` (the engine's frontier chunks). A value
   * at an offset off a 32-bit word is read from a copy on one: the state being expanded is copied once
   * here, and then a word at a time by each write of its successors (see `copyInto`).
   */
  wrapAt(bytes: Uint8Array, o: number): R {
    if (o < 0 || bytes.length < o + this.width) throw new RangeError(`${this.describe()} needs ${this.width} bytes at ${o}; got ${bytes.length}`);
    if (((o + bytes.byteOffset) & 3) !== 0 && this.width >= 8) {
      const a = copyToSlab(bytes, o, this.width);
      return this.read(arena.b, a, null, '');
    }
    return this.read(bytes, o, null, '');
  }
}

export type Kind = 'int' | 'bool' | 'enum' | 'ids' | 'option' | 'record' | 'map' | 'idSet' | 'list' | 'set' | 'variant' | 'text';

// ---------------------------------------------------------------------------------------------------
// Scalars

export abstract class ScalarType<R = unknown> extends LType<R, R> {
  readonly width: number;
  constructor(
    /** How many codes; the width follows from it. */
    readonly count: number,
  ) {
    super();
    this.width = codeWidth(count);
  }
  /** The code of `v`, or -1 when `v` is out of bounds. */
  abstract code(v: unknown): number;
  abstract value(c: number): R;
  /** JS source of the value whose code is the expression `c` (generated getters inline it). */
  abstract expr(c: string, constants: unknown[]): string;
  override isComposite(): boolean {
    return false;
  }
  read(b: Uint8Array, o: number): R {
    return this.value(readCode(b, o, this.width));
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    const c = this.code(v);
    if (c < 0) throw new LayoutError('', v, this.describe());
    writeCode(b, o, this.width, c);
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    return this.read(b, o);
  }
  toJS(b: Uint8Array, o: number): unknown {
    return this.read(b, o);
  }
  /** The code after renaming ids of the domains in `perms` (identity for anything that is not an id). */
  permuteCode(c: number, _perms: ReadonlyMap<IdsType, Int32Array>): number {
    return c;
  }
}

export class IntType extends ScalarType<number> {
  readonly kind = 'int';
  constructor(
    readonly min: number,
    readonly max: number,
  ) {
    super(intCount(min, max));
  }
  code(v: unknown): number {
    return typeof v === 'number' && Number.isInteger(v) && v >= this.min && v <= this.max ? v - this.min : -1;
  }
  value(c: number): number {
    return c + this.min;
  }
  expr(c: string): string {
    return this.min === 0 ? c : `(${c} + ${this.min})`;
  }
  describe(): string {
    return `an integer in ${this.min}..${this.max}`;
  }
}

function intCount(min: number, max: number): number {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min) throw new RangeError(`L.int(${min}, ${max}): bounds must be integers with min <= max`);
  if (max - min + 1 > 2 ** 32) throw new RangeError(`L.int(${min}, ${max}): at most 2^32 values`);
  return max - min + 1;
}

export class BoolType extends ScalarType<boolean> {
  readonly kind = 'bool';
  constructor() {
    super(2);
  }
  code(v: unknown): number {
    return v === true ? 1 : v === false ? 0 : -1;
  }
  value(c: number): boolean {
    return c !== 0;
  }
  expr(c: string): string {
    return `(${c} !== 0)`;
  }
  describe(): string {
    return 'a boolean';
  }
}

export type Key = string | number;

export class EnumType<V extends Key = Key> extends ScalarType<V> {
  readonly kind: 'enum' | 'ids' = 'enum';
  private readonly index = new Map<unknown, number>();
  /**
   * Lookups without hashing, for the guards and writes that name a key or value by the million: values
   * 0, 1, 2... (or any run of consecutive integers) are found by subtraction (`numberBase`); strings whose
   * first (or else last) characters are distinct ASCII by that character (`byChar`, the position in
   * `charFromEnd`), then checked whole. Other domains use `index`.
   */
  private readonly numberBase: number | null;
  private readonly byChar: Int32Array | null;
  private readonly charFromEnd: boolean;
  constructor(readonly values: readonly V[]) {
    super(values.length);
    if (values.length === 0) throw new RangeError('an enum or id domain needs at least one value');
    values.forEach((v, i) => {
      if (typeof v !== 'string' && typeof v !== 'number') throw new TypeError(`enum and id values are strings or numbers; got ${String(v)}`);
      if (this.index.has(v)) throw new RangeError(`value ${String(v)} is listed twice`);
      this.index.set(v, i);
    });
    const first = values[0]!;
    this.numberBase = typeof first === 'number' && Number.isSafeInteger(first) && values.every((v, i) => v === first + i) ? first : null;
    const byFirst = charTable(values, false);
    this.charFromEnd = byFirst === null;
    this.byChar = byFirst ?? charTable(values, true);
  }
  code(v: unknown): number {
    if (typeof v === 'string') {
      const byChar = this.byChar;
      if (byChar !== null) {
        if (v.length === 0) return -1;
        const ch = v.charCodeAt(this.charFromEnd ? v.length - 1 : 0);
        const i = ch < 128 ? byChar[ch]! : -1;
        return i >= 0 && this.values[i] === v ? i : -1;
      }
    } else if (typeof v === 'number' && this.numberBase !== null) {
      const i = v - this.numberBase;
      return Number.isInteger(i) && i >= 0 && i < this.count ? i | 0 : -1;
    }
    const i = this.index.get(v);
    return i === undefined ? -1 : i;
  }
  /** Position of a map key or set member; keys of plain objects are strings, so numeric ids also match their text. */
  keyIndex(k: unknown): number {
    const i = this.code(k);
    if (i >= 0) return i;
    if (typeof k === 'string' && k !== '' && typeof this.values[0] === 'number') {
      const j = this.index.get(Number(k));
      if (j !== undefined) return j;
    }
    return -1;
  }
  value(c: number): V {
    return this.values[c] as V;
  }
  expr(c: string, constants: unknown[]): string {
    constants.push(this.values);
    return `K[${constants.length - 1}][${c}]`;
  }
  describe(): string {
    return `one of ${this.values.map(String).join(', ')}`;
  }
}

/**
 * Index by character code of each value of an all-string domain whose first (`fromEnd` false) or last
 * characters are distinct ASCII codes; -1 for the other codes. Null when the values do not allow it.
 */
function charTable(values: readonly unknown[], fromEnd: boolean): Int32Array | null {
  const table = new Int32Array(128).fill(-1);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'string' || v.length === 0) return null;
    const ch = v.charCodeAt(fromEnd ? v.length - 1 : 0);
    if (ch >= 128 || table[ch] !== -1) return null;
    table[ch] = i;
  }
  return table;
}

/** An id domain: an enum whose values name interchangeable things (map keys, idSet members, symmetry). */
export class IdsType<V extends Key = Key> extends EnumType<V> {
  override readonly kind = 'ids';
  constructor(
    readonly name: string,
    values: readonly V[],
  ) {
    super(values);
  }
  override describe(): string {
    return `one of ${this.name}: ${this.values.map(String).join(', ')}`;
  }
  override permuteCode(c: number, perms: ReadonlyMap<IdsType, Int32Array>): number {
    const p = perms.get(this);
    return p === undefined ? c : p[c]!;
  }
}

/** `null` or a scalar: code 0 is null, code c+1 is the inner code c. */
export class ScalarOptionType<R> extends ScalarType<R | null> {
  readonly kind = 'option';
  constructor(readonly inner: ScalarType<R>) {
    super(inner.count + 1);
  }
  code(v: unknown): number {
    if (v === null || v === undefined) return 0;
    const c = this.inner.code(v);
    return c < 0 ? -1 : c + 1;
  }
  value(c: number): R | null {
    return c === 0 ? null : this.inner.value(c - 1);
  }
  expr(c: string, constants: unknown[]): string {
    return `(${c} === 0 ? null : ${this.inner.expr(`(${c} - 1)`, constants)})`;
  }
  override children(): readonly LType[] {
    return [this.inner];
  }
  describe(): string {
    return `null or ${this.inner.describe()}`;
  }
  override permuteCode(c: number, perms: ReadonlyMap<IdsType, Int32Array>): number {
    return c === 0 ? 0 : this.inner.permuteCode(c - 1, perms) + 1;
  }
}

// ---------------------------------------------------------------------------------------------------
// Composites

/** `null` or a composite value: a presence byte, then the value's region (zeroed when null). */
export class OptionType<R, I> extends LType<R | null, I | null | undefined> {
  readonly kind = 'option';
  readonly width: number;
  constructor(readonly inner: LType<R, I>) {
    super();
    this.width = 1 + inner.width;
  }
  read(b: Uint8Array, o: number, parent: View | null, key: string): R | null {
    return b[o] === 0 ? null : this.inner.read(b, o + 1, parent, key);
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    if (v === null || v === undefined) {
      b.fill(0, o, o + this.width);
      return;
    }
    b[o] = 1;
    this.inner.write(b, o + 1, v);
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    return b[o] === 0 ? null : this.inner.toImmutable(b, o + 1);
  }
  toJS(b: Uint8Array, o: number): unknown {
    return b[o] === 0 ? null : this.inner.toJS(b, o + 1);
  }
  override children(): readonly LType[] {
    return [this.inner];
  }
  describe(): string {
    return `null or ${this.inner.describe()}`;
  }
}

export interface Field {
  readonly name: string;
  readonly type: LType;
  /** From the start of the record's region (a variant case counts its tag byte). */
  readonly offset: number;
}

/** A tag field of a variant case: its value is fixed by the case. */
export interface CaseTag {
  readonly field: string;
  readonly value: string;
  readonly index: number;
  readonly variant: VariantType<string, Readonly<Record<string, Fields>>>;
}

export type Fields = { readonly [name: string]: LType<any, any> };

/** Fields at fixed offsets; reads give an instance of a class generated for this record (see recordClass.ts). */
export class RecordType<F extends Fields = Fields> extends LType<RecordOf<F>, RecordInput<F>> {
  readonly kind = 'record';
  readonly width: number;
  readonly fields: readonly Field[];
  readonly byName: { readonly [name: string]: Field | undefined };
  readonly View: RecordClass;
  /** Where the fields lie: from the first field's offset, `length` bytes (a variant case's tag byte and padding aside). */
  readonly span: { readonly start: number; readonly length: number };
  /** The field `field` last found, by name (see `field`). */
  private lastName: unknown = undefined;
  private lastField: Field | undefined = undefined;
  /** Whether the views a view of this record keeps stay right under in-place writes (views.ts, computed on first use). */
  steady: boolean | undefined = undefined;
  /** The mutable twin of `View`, for `withMutations` (views.ts, made on first use). */
  mutableView: (new (b: Uint8Array, o: number, p: View | null, k: string) => RecordView) | undefined = undefined;
  private immutableClass: RecordFactory<Record<string, unknown>> | undefined;

  constructor(
    readonly name: string,
    fieldTypes: F,
    /** Set for the cases of a variant: the tag takes the first byte, the region is the variant's width. */
    readonly tag: CaseTag | null = null,
    width?: number,
  ) {
    super();
    let offset = tag === null ? 0 : 1;
    const fields: Field[] = [];
    const byName: { [name: string]: Field } = Object.create(null);
    for (const [fieldName, type] of Object.entries(fieldTypes)) {
      if (!(type instanceof LType)) throw new TypeError(`record ${name}: field ${fieldName} is not a layout type`);
      const f = { name: fieldName, type, offset };
      fields.push(f);
      byName[fieldName] = f;
      offset += type.width;
    }
    this.fields = fields;
    this.byName = byName;
    this.width = width ?? offset;
    const first = fields[0];
    this.span = first === undefined ? { start: 0, length: 0 } : { start: first.offset, length: offset - first.offset };
    this.View = makeRecordClass(this);
    // The same `read` as below, but a function of this layout's own (see makeRecordReader).
    this.read = makeRecordReader(this.View) as unknown as this['read'];
  }

  read(b: Uint8Array, o: number, parent: View | null, key: string): RecordOf<F> {
    return new this.View(b, o, parent, key) as unknown as RecordOf<F>;
  }

  /**
   * The field named `name`, or undefined. Writes by name (`setIn`, `set`) tend to name one field again
   * and again (the next step writes where the last one did): the last field found is kept, and compared
   * with a string comparison instead of a dictionary lookup.
   */
  field(name: unknown): Field | undefined {
    if (name === this.lastName) return this.lastField;
    const f = this.byName[name as string];
    this.lastName = name;
    this.lastField = f;
    return f;
  }

  write(b: Uint8Array, o: number, v: unknown): void {
    if (v instanceof View && v._t === this) {
      copyInto(v._b, v._o, b, o, this.width);
      return;
    }
    if (typeof v !== 'object' || v === null) throw new LayoutError('', v, `a record ${this.name}`);
    if (this.tag !== null) {
      const given = fieldOf(v, this.tag.field);
      if (given !== undefined && given !== this.tag.value) throw new LayoutError(this.tag.field, given, `the tag of this ${this.tag.variant.name} is ${this.tag.value}`);
      b[o] = this.tag.index;
    } else if (Object.getPrototypeOf(v) === Object.prototype) {
      for (const k of Object.keys(v)) {
        if (this.byName[k] === undefined) throw new LayoutError(k, (v as Record<string, unknown>)[k], `no such field in ${this.name}; its fields are ${this.fields.map((f) => f.name).join(', ')}`);
      }
    }
    // How to read a field of `v` is decided once, not per field.
    const keyed = isMap(v) || isRecord(v) || v instanceof View;
    for (const f of this.fields) {
      const x = keyed ? (v as { get(k: string): unknown }).get(f.name) : (v as Record<string, unknown>)[f.name];
      try {
        if (x === undefined) b.fill(0, o + f.offset, o + f.offset + f.type.width);
        else f.type.write(b, o + f.offset, x);
      } catch (e) {
        throw e instanceof LayoutError ? e.under(f.name) : e;
      }
    }
    const end = this.fields.length === 0 ? (this.tag ? 1 : 0) : this.fields[this.fields.length - 1]!.offset + this.fields[this.fields.length - 1]!.type.width;
    if (end < this.width) b.fill(0, o + end, o + this.width);
  }

  /** The Immutable Record class that stands for this layout in traces (same name, same field order). */
  immutableRecord(): RecordFactory<Record<string, unknown>> {
    if (this.immutableClass === undefined) {
      const zero = new Uint8Array(this.width);
      if (this.tag) zero[0] = this.tag.index;
      const defaults: Record<string, unknown> = {};
      if (this.tag) defaults[this.tag.field] = this.tag.value;
      for (const f of this.fields) defaults[f.name] = f.type.toImmutable(zero, f.offset);
      this.immutableClass = IRecord(defaults, this.tag ? this.tag.value : this.name);
    }
    return this.immutableClass;
  }

  toImmutable(b: Uint8Array, o: number): unknown {
    const values: Record<string, unknown> = {};
    if (this.tag) values[this.tag.field] = this.tag.value;
    for (const f of this.fields) values[f.name] = f.type.toImmutable(b, o + f.offset);
    return this.immutableRecord()(values);
  }

  toJS(b: Uint8Array, o: number): unknown {
    const out: Record<string, unknown> = {};
    if (this.tag) out[this.tag.field] = this.tag.value;
    for (const f of this.fields) out[f.name] = f.type.toJS(b, o + f.offset);
    return out;
  }
  override children(): readonly LType[] {
    return this.fields.map((f) => f.type);
  }
  describe(): string {
    return `a record ${this.tag ? this.tag.value : this.name}`;
  }
}

/** An Immutable.js collection, JS Map or Set, or view that says it is empty (no iterator needed to know). */
function isEmptyCollection(v: unknown): boolean {
  if ((v as { size?: unknown }).size !== 0) return false;
  if (v instanceof View) return v._t.kind !== 'record';
  return (isImmutable(v) && !isRecord(v)) || v instanceof Map || v instanceof Set;
}

/** A field of a plain object, an Immutable Record or Map, or a view. */
function fieldOf(v: object, name: string): unknown {
  if (isMap(v)) return (v as IMap<unknown, unknown>).get(name);
  if (isRecord(v) || v instanceof View) return (v as { get(k: string): unknown }).get(name);
  return (v as Record<string, unknown>)[name];
}

/** Entries of a keyed input: a view, an Immutable Map or Record, a JS Map, a plain object, or [k, v] pairs. */
function entriesOf(v: unknown): Iterable<readonly [unknown, unknown]> {
  if (typeof v !== 'object' || v === null) throw new LayoutError('', v, 'a map');
  if (v instanceof View || v instanceof Map || (isImmutable(v) && isKeyed(v))) return v as Iterable<readonly [unknown, unknown]>;
  if (Symbol.iterator in v) return v as Iterable<readonly [unknown, unknown]>;
  return Object.entries(v);
}

/** A function from a finite key domain: one slot per key (`partial`: a presence byte before each slot). */
export class MapType<K extends Key = Key, R = unknown, I = unknown> extends LType<MapView<K, R, I>, MapInput<K, I>> {
  readonly kind = 'map';
  readonly width: number;
  readonly slot: number;
  /** Each key as text: the path step of a value read from its slot. */
  readonly keyNames: readonly string[];
  /** The value type when it is a scalar (read without a view), else null. */
  readonly scalarValue: ScalarType | null;
  constructor(
    readonly domain: EnumType<K>,
    readonly value: LType<R, I>,
    readonly partial: boolean,
  ) {
    super();
    this.keyNames = domain.values.map(String);
    this.scalarValue = value.isComposite() ? null : (value as unknown as ScalarType);
    this.slot = value.width + (partial ? 1 : 0);
    this.width = domain.count * this.slot;
  }
  /** Offset of the value for key index `i` (after its presence byte when partial). */
  at(i: number): number {
    return i * this.slot + (this.partial ? 1 : 0);
  }
  read(b: Uint8Array, o: number, parent: View | null, key: string): MapView<K, R, I> {
    return new MapViewOf(b, o, parent, key, this) as MapView<K, R, I>;
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    if (v instanceof View && v._t === this) {
      copyInto(v._b, v._o, b, o, this.width);
      return;
    }
    b.fill(0, o, o + this.width);
    // An empty partial map (a transition resetting its state writes one): nothing to iterate.
    if (this.partial && isEmptyCollection(v)) return;
    const given = this.partial ? null : new Uint8Array(this.domain.count);
    for (const [k, x] of entriesOf(v)) {
      const i = this.domain.keyIndex(k);
      if (i < 0) throw new LayoutError(String(k), k, `a key of ${this.domain.describe()}`);
      if (given === null) b[o + i * this.slot] = 1;
      else given[i] = 1;
      try {
        this.value.write(b, o + this.at(i), x);
      } catch (e) {
        throw e instanceof LayoutError ? e.under(String(this.domain.values[i])) : e;
      }
    }
    if (given !== null) {
      const missing = given.indexOf(0);
      if (missing >= 0) throw new LayoutError(String(this.domain.values[missing]), undefined, `a total map over ${this.domain.describe()} has every key`);
    }
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    return IMap<unknown, unknown>().withMutations((m) => {
      for (let i = 0; i < this.domain.count; i++) {
        if (this.partial && b[o + i * this.slot] === 0) continue;
        m.set(this.domain.values[i], this.value.toImmutable(b, o + this.at(i)));
      }
    });
  }
  toJS(b: Uint8Array, o: number): unknown {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < this.domain.count; i++) {
      if (this.partial && b[o + i * this.slot] === 0) continue;
      out[String(this.domain.values[i])] = this.value.toJS(b, o + this.at(i));
    }
    return out;
  }
  override children(): readonly LType[] {
    return [this.domain, this.value];
  }
  describe(): string {
    return `a ${this.partial ? 'partial ' : ''}map from ${this.domain.describe()} to ${this.value.describe()}`;
  }
}

/** A subset of an id domain of at most 32 ids, as a big-endian bitmask: bit i is the domain's i-th id. */
export class IdSetType<K extends Key = Key> extends LType<IdSetView<K>, Iterable<K>> {
  readonly kind = 'idSet';
  readonly width: number;
  constructor(readonly domain: EnumType<K>) {
    super();
    if (domain.count > 32) throw new RangeError(`L.idSet: at most 32 ids; ${domain.describe()} has ${domain.count}`);
    this.width = domain.count <= 8 ? 1 : domain.count <= 16 ? 2 : 4;
  }
  read(b: Uint8Array, o: number, parent: View | null, key: string): IdSetView<K> {
    return new IdSetViewOf(b, o, parent, key, this) as IdSetView<K>;
  }
  bits(b: Uint8Array, o: number): number {
    return readCode(b, o, this.width);
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    if (v instanceof View && v._t === this) {
      copyInto(v._b, v._o, b, o, this.width);
      return;
    }
    if (typeof v !== 'object' || v === null || !(Symbol.iterator in v)) throw new LayoutError('', v, `a set of ${this.domain.describe()}`);
    if (isEmptyCollection(v)) {
      writeCode(b, o, this.width, 0);
      return;
    }
    let bits = 0;
    for (const id of v as Iterable<unknown>) {
      const i = this.domain.keyIndex(id);
      if (i < 0) throw new LayoutError('[]', id, this.domain.describe());
      bits |= 1 << i;
    }
    writeCode(b, o, this.width, bits >>> 0);
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    return ISet(this.members(b, o));
  }
  toJS(b: Uint8Array, o: number): unknown {
    return this.members(b, o);
  }
  members(b: Uint8Array, o: number): K[] {
    const bits = this.bits(b, o);
    const out: K[] = [];
    for (let i = 0; i < this.domain.count; i++) if ((bits >>> i) & 1) out.push(this.domain.values[i] as K);
    return out;
  }
  override children(): readonly LType[] {
    return [this.domain];
  }
  describe(): string {
    return `a set of ${this.domain.describe()}`;
  }
}

/**
 * A bounded sequence (`list`), or a bounded set or bag (`set`, `bag`): a count, then `max` element slots.
 * Sets and bags keep their elements sorted by their bytes (canonical), a bag with repeats adjacent;
 * unused slots are zero.
 */
export class SeqType<R = unknown, I = unknown, V = unknown> extends LType<V, Iterable<I>> {
  readonly width: number;
  /** Bytes of the count. */
  readonly lw: number;
  /** Bytes of one element. */
  readonly ew: number;
  /** Scratch region for one encoded element (lookups encode their argument here). */
  readonly scratch: Uint8Array;
  /** The path step of each slot of a list (`[i]`), made once. */
  readonly slotNames: readonly string[];
  constructor(
    readonly kind: 'list' | 'set',
    readonly elem: LType<R, I>,
    readonly max: number,
    /** For sets: repeats allowed (a bag). */
    readonly bag: boolean,
  ) {
    super();
    if (!Number.isSafeInteger(max) || max < 0) throw new RangeError(`a ${kind === 'list' ? 'list' : bag ? 'bag' : 'set'} needs a whole maximum size; got ${max}`);
    this.lw = codeWidth(max + 1);
    this.ew = elem.width;
    this.width = this.lw + max * this.ew;
    this.scratch = new Uint8Array(Math.max(1, this.ew));
    this.slotNames = kind === 'list' ? Array.from({ length: Math.min(max, 4096) }, (_, i) => `[${i}]`) : [];
  }
  get sorted(): boolean {
    return this.kind === 'set';
  }
  size(b: Uint8Array, o: number): number {
    return readCode(b, o, this.lw);
  }
  read(b: Uint8Array, o: number, parent: View | null, key: string): V {
    return (this.kind === 'list' ? new ListViewOf(b, o, parent, key, this) : new SetViewOf(b, o, parent, key, this)) as V;
  }
  /** The bounds message of a collection that would hold `n` elements. */
  tooMany(n: number): LayoutError {
    return new LayoutError('', `${n} elements`, `at most ${this.max} elements`);
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    if (v instanceof View && v._t === this) {
      copyInto(v._b, v._o, b, o, this.width);
      return;
    }
    if (typeof v !== 'object' || v === null || !(Symbol.iterator in v)) throw new LayoutError('', v, this.describe());
    const all: unknown[] = Array.isArray(v) ? v : [...(v as Iterable<unknown>)];
    if (!this.sorted) {
      if (all.length > this.max) throw this.tooMany(all.length);
      writeCode(b, o, this.lw, all.length);
      const base = o + this.lw;
      for (let i = 0; i < all.length; i++) {
        try {
          this.elem.write(b, base + i * this.ew, all[i]);
        } catch (e) {
          throw e instanceof LayoutError ? e.under(`[${i}]`) : e;
        }
      }
      b.fill(0, base + all.length * this.ew, o + this.width);
      return;
    }
    // Encode every element apart, sort by bytes, drop repeats (sets), then lay them out.
    const ew = this.ew;
    const tmp = new Uint8Array(Math.max(1, all.length * ew));
    for (let i = 0; i < all.length; i++) {
      try {
        this.elem.write(tmp, i * ew, all[i]);
      } catch (e) {
        throw e instanceof LayoutError ? e.under('[]') : e;
      }
    }
    const order = all.map((_, i) => i).sort((x, y) => compareBytes(tmp, x * ew, tmp, y * ew, ew));
    let n = 0;
    const base = o + this.lw;
    let prev = -1;
    for (const i of order) {
      if (!this.bag && prev >= 0 && compareBytes(tmp, prev * ew, tmp, i * ew, ew) === 0) continue;
      if (n === this.max) throw this.tooMany(this.bag ? all.length : distinctCount(tmp, order, ew));
      b.set(tmp.subarray(i * ew, i * ew + ew), base + n * ew);
      n++;
      prev = i;
    }
    writeCode(b, o, this.lw, n);
    b.fill(0, base + n * ew, o + this.width);
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    const n = this.size(b, o);
    const items: unknown[] = [];
    for (let i = 0; i < n; i++) items.push(this.elem.toImmutable(b, o + this.lw + i * this.ew));
    return this.kind === 'list' || this.bag ? List(items) : ISet(items);
  }
  toJS(b: Uint8Array, o: number): unknown {
    const n = this.size(b, o);
    const items: unknown[] = [];
    for (let i = 0; i < n; i++) items.push(this.elem.toJS(b, o + this.lw + i * this.ew));
    return items;
  }
  override children(): readonly LType[] {
    return [this.elem];
  }
  describe(): string {
    const what = this.kind === 'list' ? 'list' : this.bag ? 'bag' : 'set';
    return `a ${what} of at most ${this.max} × ${this.elem.describe()}`;
  }
}

function distinctCount(tmp: Uint8Array, order: number[], ew: number): number {
  let n = 0;
  for (let k = 0; k < order.length; k++) if (k === 0 || compareBytes(tmp, order[k - 1]! * ew, tmp, order[k]! * ew, ew) !== 0) n++;
  return n;
}

/**
 * Records of different shapes sharing a tag field (e.g. KRaft messages): a tag byte, then the fields of
 * that case; the region is as wide as the widest case, the rest zero.
 */
export class VariantType<TF extends string = string, C extends Readonly<Record<string, Fields>> = Readonly<Record<string, Fields>>> extends LType<VariantOf<TF, C>, VariantInput<TF, C>> {
  readonly kind = 'variant';
  readonly width: number;
  readonly cases: readonly RecordType[];
  readonly byTag: { readonly [tag: string]: RecordType | undefined };
  constructor(
    readonly name: string,
    readonly tagField: TF,
    caseFields: C,
  ) {
    super();
    const tags = Object.keys(caseFields);
    if (tags.length === 0 || tags.length > 256) throw new RangeError(`variant ${name}: between 1 and 256 cases`);
    let width = 1;
    for (const t of tags) width = Math.max(width, 1 + Object.values(caseFields[t]!).reduce((w, f) => w + f.width, 0));
    this.width = width;
    const byTag: { [tag: string]: RecordType } = Object.create(null);
    this.cases = tags.map((t, index) => {
      if (tagField in caseFields[t]!) throw new RangeError(`variant ${name}: case ${t} must not declare the tag field ${tagField}`);
      const r = new RecordType(t, caseFields[t]!, { field: tagField, value: t, index, variant: this as unknown as VariantType<string, Readonly<Record<string, Fields>>> }, width);
      byTag[t] = r;
      return r;
    });
    this.byTag = byTag;
  }
  read(b: Uint8Array, o: number, parent: View | null, key: string): VariantOf<TF, C> {
    return this.cases[b[o]!]!.read(b, o, parent, key) as unknown as VariantOf<TF, C>;
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    if (v instanceof View && (v._t as RecordType).tag?.variant === (this as unknown)) {
      copyInto(v._b, v._o, b, o, this.width);
      return;
    }
    if (v instanceof View && v._t.kind === 'record' && (v._t as RecordType).tag !== null) {
      // A case of another variant with the same fields (a request held as a message and as a request):
      // its tag, its fields' bytes, then zero padding.
      const vt = v._t as RecordType;
      const c = this.byTag[vt.tag!.value];
      if (c !== undefined && sameShape(c, vt)) {
        b[o] = c.tag!.index;
        const { start, length } = c.span;
        b.fill(0, o + 1, o + start);
        copyInto(v._b, v._o + vt.span.start, b, o + start, length);
        b.fill(0, o + start + length, o + this.width);
        return;
      }
    }
    if (typeof v !== 'object' || v === null) throw new LayoutError('', v, `a ${this.name}`);
    const tag = fieldOf(v, this.tagField);
    const c = typeof tag === 'string' ? this.byTag[tag] : undefined;
    if (c === undefined) throw new LayoutError(this.tagField, tag, `one of ${this.cases.map((x) => x.tag!.value).join(', ')}`);
    c.write(b, o, v);
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    return this.cases[b[o]!]!.toImmutable(b, o);
  }
  toJS(b: Uint8Array, o: number): unknown {
    return this.cases[b[o]!]!.toJS(b, o);
  }
  override children(): readonly LType[] {
    return this.cases;
  }
  describe(): string {
    return `a ${this.name}`;
  }
}

/**
 * A string of at most `maxBytes` bytes of UTF-8, zero-padded (so a string cannot hold NUL). Meant for
 * text a model records but never branches on, such as the reason a transition failed; ids and values a
 * model compares belong in `ids` or `enumOf`, where symmetry and the byte order can see them.
 */
export class TextType extends LType<string, string> {
  readonly kind = 'text';
  readonly width: number;
  private static readonly encoder = new TextEncoder();
  private static readonly decoder = new TextDecoder();
  constructor(readonly maxBytes: number) {
    super();
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError(`L.text(${maxBytes}): at least one byte`);
    this.width = maxBytes;
  }
  read(b: Uint8Array, o: number): string {
    let end = o;
    const stop = o + this.width;
    while (end < stop && b[end] !== 0) end++;
    return TextType.decoder.decode(b.subarray(o, end));
  }
  write(b: Uint8Array, o: number, v: unknown): void {
    if (typeof v !== 'string' || v.includes('\0')) throw new LayoutError('', v, this.describe());
    const bytes = TextType.encoder.encode(v);
    if (bytes.length > this.width) throw new LayoutError('', v, `${this.describe()}; it has ${bytes.length}`);
    b.set(bytes, o);
    b.fill(0, o + bytes.length, o + this.width);
  }
  toImmutable(b: Uint8Array, o: number): unknown {
    return this.read(b, o);
  }
  toJS(b: Uint8Array, o: number): unknown {
    return this.read(b, o);
  }
  describe(): string {
    return `a text of at most ${this.maxBytes} bytes`;
  }
}

// ---------------------------------------------------------------------------------------------------
// Types of reads and writes

export type ReadOf<T> = T extends LType<infer R, any> ? R : never;
export type InputOf<T> = T extends LType<any, infer I> ? I : never;

/** What an action sees for a value of layout `T`: a view for composites, a primitive for scalars. */
export type Packed<T> = ReadOf<T>;

export type RecordOf<F extends Fields> = RecordView<F> & { readonly [K in keyof F]: ReadOf<F[K]> };
export type RecordInput<F extends Fields> = RecordOf<F> | { readonly [K in keyof F]?: InputOf<F[K]> };
export type MapInput<K extends Key, I> = MapView<K, any, I> | Iterable<readonly [K, I]> | { readonly [key: string]: I };

type TagType<T> = LType<T, T>;
export type VariantCase<TF extends string, T extends string, F extends Fields> = RecordOf<F & { readonly [P in TF]: TagType<T> }>;
export type VariantOf<TF extends string, C extends Readonly<Record<string, Fields>>> = {
  [T in keyof C & string]: VariantCase<TF, T, C[T]>;
}[keyof C & string];
export type VariantInput<TF extends string, C extends Readonly<Record<string, Fields>>> =
  | VariantOf<TF, C>
  | { [T in keyof C & string]: { readonly [P in TF]: T } & { readonly [K in keyof C[T]]?: InputOf<C[T][K]> } }[keyof C & string];

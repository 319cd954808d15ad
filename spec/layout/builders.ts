/**
 * The layout builders, exported as `layout` (`L`): a spec declares its state's shape once with these,
 * and the shape is both its packed encoding and its type declaration (TLA+ `TypeOK`).
 */
import {
  BoolType,
  EnumType,
  IdSetType,
  IdsType,
  IntType,
  LType,
  MapType,
  OptionType,
  RecordType,
  ScalarOptionType,
  ScalarType,
  SeqType,
  TextType,
  VariantType,
  type Fields,
  type Key,
} from './types.ts';
import type { ListView, SetView } from './views.ts';

/** An integer in `min..max` (1, 2 or 4 bytes by the size of the range). */
export function int(min: number, max: number): IntType {
  return new IntType(min, max);
}

export function bool(): BoolType {
  return new BoolType();
}

/** One of the listed values (strings or numbers). */
export function enumOf<const V extends readonly Key[]>(values: V): EnumType<V[number]> {
  return new EnumType<V[number]>(values);
}

/**
 * An id domain: one of the listed ids, usable as map keys, idSet members and for symmetry. Only fields
 * declared with this domain are renamed by a symmetry permutation, never a number that equals an id.
 */
export function ids<const V extends readonly Key[]>(name: string, values: V): IdsType<V[number]> {
  return new IdsType<V[number]>(name, values);
}

/** A string of at most `maxBytes` bytes (UTF-8), for text a model records but does not branch on. */
export function text(maxBytes: number): TextType {
  return new TextType(maxBytes);
}

/** `null` or a value of `t` (0 is null for scalars; a presence byte for composites). */
export function option<R, I>(t: LType<R, I>): LType<R | null, I | null | undefined> {
  return (t instanceof ScalarType ? new ScalarOptionType(t as ScalarType<R>) : new OptionType(t)) as unknown as LType<R | null, I | null | undefined>;
}

/** Named fields at fixed offsets; `toImmutable()` gives an Immutable Record with this name and field order. */
export function record<const F extends Fields>(name: string, fields: F): RecordType<F> {
  return new RecordType<F>(name, fields);
}

/** A total function from the domain's keys to `t`: one slot per key. */
export function map<K extends Key, R, I>(domain: EnumType<K>, t: LType<R, I>): MapType<K, R, I> {
  return new MapType(domain, t, false);
}

/** A map whose keys may be absent (like an Immutable Map): a presence byte and a slot per key. */
export function partialMap<K extends Key, R, I>(domain: EnumType<K>, t: LType<R, I>): MapType<K, R, I> {
  return new MapType(domain, t, true);
}

/** A subset of an id domain of at most 32 ids, as a bitmask. */
export function idSet<K extends Key>(domain: EnumType<K>): IdSetType<K> {
  return new IdSetType(domain);
}

export type ListLayout<R, I> = SeqType<R, I, ListView<R, I>>;
export type SetLayout<R, I> = SeqType<R, I, SetView<R, I>>;

/** A sequence of at most `maxLength` elements. */
export function list<R, I>(t: LType<R, I>, maxLength: number): ListLayout<R, I> {
  return new SeqType('list', t, maxLength, false) as ListLayout<R, I>;
}

/** A set of at most `maxSize` elements, kept sorted by their bytes. */
export function set<R, I>(t: LType<R, I>, maxSize: number): SetLayout<R, I> {
  return new SeqType('set', t, maxSize, false) as SetLayout<R, I>;
}

/** A multiset of at most `maxSize` elements (counting repeats), sorted with repeats adjacent. */
export function bag<R, I>(t: LType<R, I>, maxSize: number): SetLayout<R, I> {
  return new SeqType('set', t, maxSize, true) as SetLayout<R, I>;
}

/** Records of different shapes sharing a tag field: `variant('Msg', 'type', { Vote: {...}, Fetch: {...} })`. */
export function variant<const TF extends string, const C extends Readonly<Record<string, Fields>>>(name: string, tagField: TF, cases: C): VariantType<TF, C> {
  return new VariantType(name, tagField, cases);
}

/**
 * The Record classes kmc's `Record` factory makes: Immutable.js's own, with faster field reads and
 * construction. Same answers as Immutable.js's classes (spec/recordClasses.test.ts holds the two to it).
 *
 * Field reads by index. Immutable.js gives every Record class one getter per field, all one closure:
 * `this.get(name)`, which looks the name up in the class's table of indices (a keyed load that sees every
 * class of the spec, so V8 answers it the slow way) and then reads the List of values. On a spec of Kafka
 * records that was the largest single cost of a search (kraft-bench over Immutable.js: 2.4 s of 14 in that
 * `get`). Here a class's getters are compiled for that class, each with its field's index written in: a
 * load of the List of values and one of its tail node's array. A value not set reads as the field's
 * default; a List of values past one node (more than 32 fields) is read through its `get`; an instance
 * whose `get` is not Record's own (a subclass overriding it) is read through its `get`.
 *
 * Construction from a plain object. `Msg({ type: 'phase2b', bal })`, in a guard as often as in a step,
 * went through a Seq of the object and a List built by mutation; here the values are read off the object
 * in the class's order into the List directly, which is made as Immutable.js makes a List of under 32 values
 * (one leaf node holding the array) without the Seq and the copy of the array its constructor makes on the
 * way. Anything else (a Map, entries, a record, a subclass's `new`)
 * goes to Immutable.js's constructor.
 */
/** What a Record instance holds (Immutable.js 5): its values in a List; keys and defaults on its class. */
export interface RecordInternals {
  /** Up to 32 values (`_capacity`), all are in the tail node (none when no value was ever set). */
  readonly _values: { readonly _origin: number; readonly _capacity: number; readonly _tail?: { readonly array: unknown[] } | null; get(index: number): unknown };
  readonly _defaultValues: { readonly [field: string]: unknown };
  readonly _indices: { readonly [field: string]: unknown };
  readonly _keys: readonly string[];
  get(k: string, notSetValue?: unknown): unknown;
}

/** Where the checker caches a value's fingerprint on it (checker/engine/fingerprint.ts). */
export const FINGERPRINT_HI = '__kmcFp1';
export const FINGERPRINT_LO = '__kmcFp2';

/** On a class's prototype whose getters read by index. */
export const READS_BY_INDEX = Symbol.for('kmc.recordReadsByIndex');

type RecordFactory = ((defaults: object, name?: string) => { prototype: object }) & { prototype: { get: unknown } };

/**
 * Replaces `immutable.Record` (and the default export's) with a factory whose classes read fields by
 * index and are made fast from plain objects. Run before any spec makes a Record class (spec/immutable.ts,
 * when kmc loads Immutable.js); a class made by the factory as it was is Immutable.js's own, which gives
 * the same answers.
 */
export function installRecordClasses(immutable: { Record: unknown; List: unknown; default?: { Record?: unknown } }): void {
  const original = immutable.Record as RecordFactory;
  if ((original as unknown as { [READS_BY_INDEX]?: true })[READS_BY_INDEX]) return;
  const recordPrototype = original.prototype;
  const list = smallLists(immutable.List as (values: unknown[]) => unknown);
  const factory = function Record(defaults: object, name?: string) {
    const type = original(defaults, name);
    specialise(type as unknown as () => unknown, recordPrototype);
    return constructedFast(type as unknown as RecordType, list);
  } as unknown as RecordFactory;
  // Statics (`Record.isRecord`, `Record.getDescriptiveName`) and `instanceof Record` as before.
  Object.defineProperties(factory, Object.getOwnPropertyDescriptors(original));
  (factory as unknown as { [READS_BY_INDEX]: true })[READS_BY_INDEX] = true;
  immutable.Record = factory;
  if (immutable.default?.Record === original) immutable.default.Record = factory;
}

/**
 * Immutable.js defines a class's getters when its first instance is made, and not configurable: that
 * instance is made here, with `Object.defineProperty` letting the getters be replaced, and then they are.
 */
function specialise(type: () => unknown, recordPrototype: { get: unknown }): void {
  const proto = (type as unknown as { prototype: RecordInternals & { [READS_BY_INDEX]?: true } }).prototype;
  const define = Object.defineProperty;
  const setters = new globalThis.Map<string, (v: unknown) => void>();
  Object.defineProperty = function defineProperty<T>(o: T, key: PropertyKey, d: PropertyDescriptor & ThisType<unknown>): T {
    if ((o as unknown) !== proto || typeof key !== 'string' || d.get === undefined || d.set === undefined) return define(o, key, d);
    setters.set(key, d.set);
    return define(o, key, { ...d, configurable: true });
  } as typeof Object.defineProperty;
  try {
    type();
  } finally {
    Object.defineProperty = define;
  }
  const keys = proto._keys;
  // A field named as Record's API (`get`, `size`) gets no getter from Immutable.js, and none here.
  const fields = keys.map((key, index) => ({ key, index })).filter(({ key }) => setters.has(key));
  if (fields.length === 0) return;
  // One function literal per field, compiled for this class: V8 keeps each getter's loads to this class's
  // instances (closures of one literal would share their feedback across every class of the spec).
  const source = fields.map(
    ({ index }) =>
      `function () { if (this.get !== P.get) return this.get(K[${index}]); const v = this._values; const t = v._tail; ` +
      `const x = v._origin === 0 && v._capacity <= 32 && t != null ? t.array[${index}] : v.get(${index}); return x === undefined ? D[K[${index}]] : x; }`,
  );
  const getters = new Function('P', 'K', 'D', `return [${source.join(',\n')}];`)(recordPrototype, keys, proto._defaultValues) as (() => unknown)[];
  fields.forEach(({ key }, i) => define(proto, key, { get: getters[i], set: setters.get(key), configurable: true }));
  proto[READS_BY_INDEX] = true;
}

type RecordType = ((values?: unknown) => object) & { prototype: RecordInternals; displayName?: string };

/**
 * The class a user gets: Immutable.js's class `type` (its prototype, `instanceof`, statics), whose
 * instances made from a plain object are built here. A class with a field named as a property every object
 * has (`toString`, `constructor`) is left as it is: Immutable.js reads only an object's own keys.
 */
function constructedFast(type: RecordType, list: (values: unknown[]) => unknown): RecordType {
  const proto = type.prototype;
  const keys = proto._keys;
  const defaults = proto._defaultValues;
  const n = keys.length;
  if (n === 0 || n > 32 || keys.some((k) => k in Object.prototype)) return type;
  // The values to store, a field's default as none, read by a function compiled for this class: a read of
  // `given[key]` with the key in a variable was a lookup by name in whatever object came, a third of the time
  // a spec of message records spent making them.
  const fieldReads = keys.map((k, i) => `g[${JSON.stringify(k)}] === D[${i}] ? undefined : g[${JSON.stringify(k)}]`);
  const valuesOf = new Function('D', `return function valuesOf(g) { return [${fieldReads.join(', ')}]; };`)(keys.map((k) => defaults[k])) as (given: object) => unknown[];
  const make = function Record(this: unknown, values?: unknown): object {
    // `class X extends Msg`: Immutable.js's constructor makes the subclass's instance.
    if (new.target !== undefined && new.target !== make) return Reflect.construct(type, [values], new.target) as object;
    if (values !== undefined && (values === null || typeof values !== 'object' || Object.getPrototypeOf(values) !== Object.prototype)) return type(values);
    const stored = valuesOf(values ?? {});
    // The properties in the order Immutable.js's own records made by an edit have them (one hidden class).
    const record = Object.create(proto) as { _values: unknown; __ownerID: unknown; [FINGERPRINT_HI]: unknown; [FINGERPRINT_LO]: unknown };
    record._values = list(stored);
    record.__ownerID = undefined;
    // Made now, the checker's cache of its fingerprint is a write to a field it has, not a change of shape later.
    record[FINGERPRINT_HI] = undefined;
    record[FINGERPRINT_LO] = undefined;
    return record;
  } as unknown as RecordType;
  Object.defineProperties(make, Object.getOwnPropertyDescriptors(type));
  return make;
}

/** What Immutable.js 5 gives a List of under 32 values, in the order its `makeList` adds them (one hidden class). */
const LIST_FIELDS = ['size', '_origin', '_capacity', '_level', '_root', '_tail', '__ownerID', '__hash', '__altered'];
const LEAF_FIELDS = ['array', 'ownerID'];
/** A List of more values than this is a trie of nodes, not one leaf. */
const LEAF_SIZE = 32;

/**
 * `List(values)` for a fresh array of values of its own: a List of under 32 values is made directly, as
 * Immutable.js's constructor makes it once it has wrapped the array in a Seq and copied it out again (a
 * third of what making a message record allocated, on a spec of message sets). The List is built the way
 * Immutable.js builds one, on its prototype, with its leaf node's class: where a List of two values does
 * not look as expected (another version of Immutable.js), every List is left to Immutable.js.
 */
export function smallLists(list: (values: unknown[]) => unknown): (values: unknown[]) => unknown {
  const sample = list(['a', 'b']) as { _level?: unknown; _root?: unknown; _tail?: { array?: unknown; constructor: new (array: unknown[], ownerID: undefined) => object } };
  const tail = sample._tail;
  const sameKeys = (o: object, keys: readonly string[]) => Object.keys(o).join() === keys.join();
  if (typeof sample !== 'object' || tail == null || !sameKeys(sample, LIST_FIELDS) || !sameKeys(tail, LEAF_FIELDS) || sample._root !== undefined) return list;
  const proto = Object.getPrototypeOf(sample) as object;
  const Leaf = tail.constructor;
  const level = sample._level;
  return (values: unknown[]): unknown => {
    const n = values.length;
    if (n === 0 || n >= LEAF_SIZE) return list(values);
    const made = Object.create(proto) as { [field: string]: unknown };
    made.size = n;
    made._origin = 0;
    made._capacity = n;
    made._level = level;
    made._root = undefined;
    made._tail = new Leaf(values, undefined);
    made.__ownerID = undefined;
    made.__hash = undefined;
    made.__altered = false;
    return made;
  };
}

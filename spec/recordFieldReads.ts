/**
 * Field reads of Immutable.js Records by index, in code of each Record class's own.
 *
 * Immutable.js gives every Record class one getter per field, all one closure: `this.get(name)`, which
 * looks the name up in the class's table of indices (a keyed load that sees every class of the spec, so V8
 * answers it the slow way) and then reads the List of values. On a spec of Kafka records that was the
 * largest single cost of a search (kraft-bench over Immutable.js: 2.4 s of 14 in that `get`). Here the
 * `Record` factory's classes get, when made, getters compiled for that class, each with its field's index
 * written in: a load of the List of values and one of its tail node's array.
 *
 * Same answers as Immutable.js's getters: a value not set reads as the field's default; a List of values
 * past one node (more than 32 fields) is read through its `get`; an instance whose `get` is not Record's
 * own (a subclass overriding it) is read through its `get`, as Immutable.js's getter does.
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

/** On a class's prototype whose getters read by index. */
export const READS_BY_INDEX = Symbol.for('kmc.recordReadsByIndex');

type RecordFactory = ((defaults: object, name?: string) => { prototype: object }) & { prototype: { get: unknown } };

/**
 * Replaces `immutable.Record` (and the default export's) with a factory whose classes read fields by
 * index. Run before any spec makes a Record class (spec/immutable.ts, when kmc loads Immutable.js); a
 * class made by the factory as it was keeps Immutable.js's getters, which give the same answers.
 */
export function installRecordFieldReads(immutable: { Record: unknown; default?: { Record?: unknown } }): void {
  const original = immutable.Record as RecordFactory;
  if ((original as unknown as { [READS_BY_INDEX]?: true })[READS_BY_INDEX]) return;
  const recordPrototype = original.prototype;
  const factory = function Record(defaults: object, name?: string) {
    const type = original(defaults, name);
    specialise(type as unknown as () => unknown, recordPrototype);
    return type;
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

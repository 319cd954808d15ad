/**
 * One view class per record layout, with a getter per field on its prototype. The getters are generated
 * source with the field's offset and decoding inlined (`return K[0][this._b[this._o + 3]]` for an
 * enum), so a guard reading `s.tmState` costs a byte load and an array load, and no getter is shared
 * between fields (shared closures would make every field read a polymorphic call).
 *
 * A composite field's view is made on its first read and kept in a slot of the record view (`__c0`,
 * `__c1`, ...; views are immutable, and a mutable view's child reads the same bytes), so a guard that reads
 * `s.msgs` in every action makes one view per state, not one per read.
 */
import { RecordView, View, cacheSlots, plainConstructor } from './views.ts';
import type { Field, RecordType, ScalarType } from './types.ts';

export type RecordClass = new (b: Uint8Array, o: number, p: View | null, k: string) => RecordView;

/** Names a field cannot take: they would hide a view method or the view's own slots. */
function reservedNames(): ReadonlySet<string> {
  const names = new Set<string>(['_b', '_o', '_p', '_k', '_t', 'constructor', '__proto__']);
  for (let proto: object | null = RecordView.prototype; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const n of Object.getOwnPropertyNames(proto)) names.add(n);
  }
  return names;
}
let reserved: ReadonlySet<string> | undefined;

const READ_CODE: { readonly [width: number]: string } = {
  1: 'b[o]',
  2: '((b[o] << 8) | b[o + 1])',
  4: '(((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0)',
};

function getter(f: Field, slot: string | null): () => unknown {
  const constants: unknown[] = [];
  let body: string;
  if (slot !== null) {
    constants.push(f.type);
    body = `const c = this.${slot}; return c !== undefined ? c : (this.${slot} = K[0].read(this._b, this._o + ${f.offset}, this, ${JSON.stringify(f.name)}));`;
  } else {
    const s = f.type as ScalarType;
    body = `const b = this._b; const o = this._o + ${f.offset}; const c = ${READ_CODE[s.width]!}; return ${s.expr('c', constants)};`;
  }
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function('K', `return function () { ${body} };`)(constants) as () => unknown;
}

export function makeRecordClass(rt: RecordType): RecordClass {
  reserved ??= reservedNames();
  // One cache slot per composite field, set in the constructor so every view of this layout has one shape.
  const slots = cacheSlots(rt);
  const proto = Object.create(RecordView.prototype) as object;
  const cls = plainConstructor(`${rt.tag ? rt.tag.value : rt.name}View`, proto, [...slots.values()]);
  Object.defineProperty(proto, 'constructor', { value: cls, writable: true, configurable: true });
  Object.defineProperty(proto, '_t', { value: rt });
  const names = rt.tag ? [rt.tag.field, ...rt.fields.map((f) => f.name)] : rt.fields.map((f) => f.name);
  for (const n of names) {
    if (reserved.has(n) || /^__c\d+$/.test(n)) throw new RangeError(`record ${rt.name}: a field cannot be named ${n} (a view method has that name); rename the field`);
  }
  if (rt.tag) {
    const value = rt.tag.value;
    Object.defineProperty(cls.prototype, rt.tag.field, { get: () => value, enumerable: true });
  }
  for (const f of rt.fields) Object.defineProperty(cls.prototype, f.name, { get: getter(f, slots.get(f.name) ?? null), enumerable: true });
  return cls as unknown as RecordClass;
}

/**
 * A record layout's `read`: a function of its own, made from source, that constructs its own view class.
 * At one `new this.View(...)` shared by every record layout, the construction met many classes and went
 * through the engine's generic path (no inlined allocation) for every state read.
 */
export function makeRecordReader(cls: RecordClass): (b: Uint8Array, o: number, p: View | null, k: string) => RecordView {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function('View', 'return function read(b, o, p, k) { return new View(b, o, p, k); };')(cls) as (b: Uint8Array, o: number, p: View | null, k: string) => RecordView;
}

/**
 * Packed views: immutable values that read a layout's bytes in place, with the Immutable.js vocabulary.
 *
 * A view is a buffer, an offset and its type. Reads decode only what they touch. A write copies the
 * view's own region once (the whole state for the root, only the sub-value for a view inside it) and
 * returns a view of the copy: `s.set(...)`, `s.setIn(...)` and `s.updateIn(...)` cost one copy of the
 * state each. A view remembers where it was read from (`_p`, `_k`) only to name the field path when a
 * write is out of bounds.
 */
import { List, Map as IMap, Set as ISet, is, isImmutable, isRecord } from '../immutable.ts';
import { arena, copyInto, copyToSlab, equalBytes, compareBytes, hashRegion, readCode, reserve, writeCode } from './bytes.ts';
import { LayoutError, joinPath } from './errors.ts';
import { installQueries, type CollectionQueries } from './queries.ts';
import type { IdSetType, InputOf, Key, LType, MapType, OptionType, ReadOf, RecordType, ScalarType, SeqType, VariantType } from './types.ts';

const NOT_SET: unknown = undefined;

/** The buffer of the region the last `_copy` or `_fresh` returned (read it right after the call). */
let NB: Uint8Array = arena.b;

/** The base of every packed view; the engine detects packed states with `instanceof View`. */
export abstract class View {
  declare readonly _t: LType;
  // Declared, not class fields: a view is made for every read, and fields defined per instance (the
  // define semantics of ES2022 class fields) made construction a third of a packed run's time.
  declare readonly _b: Uint8Array;
  declare readonly _o: number;
  declare readonly _p: View | null;
  declare readonly _k: string;
  constructor(b: Uint8Array, o: number, p: View | null, k: string) {
    this._b = b;
    this._o = o;
    this._p = p;
    this._k = k;
  }

  /** This value's bytes (the state's own buffer for a root view: do not write into it). */
  get bytes(): Uint8Array {
    const w = this._t.width;
    return this._o === 0 && this._b.length === w ? this._b : this._b.subarray(this._o, this._o + w);
  }

  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!(other instanceof View)) return this instanceof RecordView && isRecord(other) && sameAsEncoded(this, other);
    if (other._t === this._t) return equalBytes(this._b, this._o, other._b, other._o, this._t.width);
    return this instanceof RecordView && other instanceof RecordView && sameRecordValue(this, other);
  }

  hashCode(): number {
    return hashRegion(this._b, this._o, this._t.width);
  }

  /** The Immutable.js value of the same shape (Record, Map, Set, List), as traces show it. */
  toImmutable(): unknown {
    return this._t.toImmutable(this._b, this._o);
  }

  /** Plain JS: objects for records and maps, arrays for lists, sets and bags. */
  toJS(): unknown {
    return this._t.toJS(this._b, this._o);
  }

  /** JSON of the plain value, as an Immutable.js collection gives (a view's cached children would loop). */
  toJSON(): unknown {
    return this.toJS();
  }

  toString(): string {
    return String(this.toImmutable());
  }

  /** Where this value sits in its state: `replicas.r2.log`. */
  _path(): string {
    return this._p === null ? this._k : joinPath(this._p._path(), this._k);
  }

  /**
   * A fresh copy of this view's region, where a write starts: its offset is returned, its buffer left in
   * `NB` (a shared slab, so a write makes no typed array of its own).
   */
  protected _copy(): number {
    const o = copyToSlab(this._b, this._o, this._t.width);
    NB = arena.b;
    return o;
  }

  /** A fresh zero region of this view's width: its offset is returned, its buffer left in `NB`. */
  protected _fresh(): number {
    const o = reserve(this._t.width);
    NB = arena.b;
    return o;
  }

  /** A view of the same type over `b` at `o` (a copy made by `_copy`), keeping this view's place for error paths. */
  protected _rewrap(b: Uint8Array, o: number): this {
    return this._t.read(b, o, this._p, this._k) as this;
  }

  /**
   * Writes scalar code `c` of type `t` at offset `off` of this view's region. Writing the value already
   * there changes nothing, so it gives back this view itself, as Immutable.js does.
   */
  protected _writeScalar(off: number, t: ScalarType, c: number): this {
    if (readCode(this._b, this._o + off, t.width) === c) return this;
    const o = this._copy();
    const nb = NB;
    writeCode(nb, o + off, t.width, c);
    return this._rewrap(nb, o);
  }

  /** Re-throws a bounds error raised `under` this view with its full path. */
  protected _fail(e: unknown, under: string): never {
    if (e instanceof LayoutError) throw new LayoutError(joinPath(joinPath(this._path(), under), e.path), e.value, e.bound);
    throw e;
  }

  getIn(path: readonly unknown[], notSetValue?: unknown): any {
    let v: unknown = this;
    for (const seg of path) {
      if (!(v instanceof View)) return notSetValue;
      v = (v as unknown as { get(k: unknown, d: unknown): unknown }).get(seg, NOT_SET_MARK);
      if (v === NOT_SET_MARK) return notSetValue;
    }
    return v;
  }

  hasIn(path: readonly unknown[]): boolean {
    return this.getIn(path, NOT_SET_MARK) !== NOT_SET_MARK;
  }

  /** Writes `value` at `path` with one copy of this view's region. */
  setIn(path: readonly unknown[], value: unknown): this {
    // Through records and total maps nothing but the leaf changes (no presence byte, no length): find
    // its offset without building a `Located`.
    let t: LType = this._t;
    let off = 0;
    let i = 0;
    for (; i < path.length; i++) {
      if (t.kind === 'record') {
        const f = (t as RecordType).field(path[i]);
        if (f === undefined) break;
        off += f.offset;
        t = f.type;
      } else if (t.kind === 'map' && !(t as MapType).partial) {
        const m = t as MapType;
        const k = m.domain.keyIndex(path[i]);
        if (k < 0) break;
        off += m.at(k);
        t = m.value;
      } else break;
    }
    if (i < path.length) return this._writeAt(locate(this, path), value);
    if (!t.isComposite()) {
      // A scalar leaf (a value out of its bounds, code -1, is written below to raise its error).
      const c = (t as ScalarType).code(value);
      if (c >= 0) return this._writeScalar(off, t as ScalarType, c);
    }
    const o = this._copy();
    const nb = NB;
    try {
      t.write(nb, o + off, value);
    } catch (e) {
      if (e instanceof LayoutError) throw new LayoutError(joinPath(pathText(this, path), e.path), e.value, e.bound);
      throw e;
    }
    return this._rewrap(nb, o);
  }

  /** `updateIn(path, fn)` or `updateIn(path, notSetValue, fn)`: one copy of this view's region. */
  updateIn(path: readonly unknown[], a: unknown, b?: unknown): this {
    const fn = (b === undefined ? a : b) as (v: any) => unknown;
    const notSet = b === undefined ? NOT_SET : a;
    const at = locate(this, path);
    const current = at.absent ? notSet : at.type.read(this._b, this._o + at.off, null, at.type.isComposite() ? pathText(this, path) : '');
    const next = fn(current);
    if (next === current) return this; // Immutable: an updater returning its argument changes nothing
    return this._writeAt(at, next);
  }

  private _writeAt(at: Located, value: unknown): this {
    const o = this._copy();
    const nb = NB;
    const effects = at.effects;
    if (effects !== null) for (let i = 0; i < effects.length; i += 3) writeCode(nb, o + effects[i]!, effects[i + 1]!, effects[i + 2]!);
    try {
      at.type.write(nb, o + at.off, value);
    } catch (e) {
      if (e instanceof LayoutError) throw new LayoutError(joinPath(pathText(at.view, at.path), e.path), e.value, e.bound);
      throw e;
    }
    return this._rewrap(nb, o);
  }
}

const NOT_SET_MARK = Symbol('kmc.notSet');

/**
 * Whether a collection keeps the views it reads from its slots, as a record view keeps its fields'.
 * Only for plain records: a slot always holds a record of the same layout, so a kept view reads the
 * slot's bytes in place whatever they become (the views of a `withMutations` copy do too), where a
 * variant or option slot may change what it holds.
 */
function cachesElements(t: LType): boolean {
  return t.kind === 'record' && (t as RecordType).tag === null && steadyRecord(t as RecordType);
}


/**
 * Whether every view a record view keeps (its composite fields', and theirs) stays right when the bytes
 * under it are rewritten in place: no field is a composite option or a variant (a kept `null` or case
 * view would go stale), and kept records are steady too.
 */
function steadyRecord(t: RecordType): boolean {
  return (t.steady ??= t.fields.every((f) => steadyField(f.type)));
}

function steadyField(t: LType): boolean {
  switch (t.kind) {
    case 'variant':
      return false;
    case 'option':
      return !t.isComposite();
    case 'record':
      return steadyRecord(t as RecordType);
    case 'map':
      return (t as MapType).value.kind !== 'record' || cachesElements((t as MapType).value);
    case 'list':
    case 'set':
      return (t as SeqType).elem.kind !== 'record' || cachesElements((t as SeqType).elem);
    default:
      return true;
  }
}

/**
 * Views are made with plain constructor functions whose prototype is the view class's: V8 builds an
 * instance of a derived class through its chain of super calls, several times slower than a plain
 * function, and a view is made for every read of a composite value and every write. `slots` are extra
 * own fields, set to undefined (record views cache their composite fields' views there).
 */
export function plainConstructor(name: string, proto: object, slots: readonly string[] = []): new (b: Uint8Array, o: number, p: View | null, k: string) => View {
  const init = slots.map((n) => `this.${n} = undefined;`).join(' ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const f = new Function(`return function (b, o, p, k) { this._b = b; this._o = o; this._p = p; this._k = k; ${init} };`)() as new (b: Uint8Array, o: number, p: View | null, k: string) => View;
  Object.defineProperty(f, 'name', { value: name });
  f.prototype = proto as View;
  return f;
}

/** The own cache slot of each composite field of a record layout (see recordClass.ts). */
export function cacheSlots(t: RecordType): Map<string, string> {
  const slots = new Map<string, string>();
  for (const f of t.fields) if (f.type.isComposite()) slots.set(f.name, `__c${slots.size}`);
  return slots;
}

/** Plain constructors of the collection views: `new MapViewOf(b, o, p, k, t)` is a MapView, and so on. */
type ViewMaker<V> = new (b: Uint8Array, o: number, p: View | null, k: string, t: any) => V;
function collectionConstructor<V>(cls: { prototype: V }): ViewMaker<V> {
  const f = function (this: { _b: Uint8Array; _o: number; _p: View | null; _k: string; _t: unknown; _c: unknown }, b: Uint8Array, o: number, p: View | null, k: string, t: unknown) {
    this._b = b;
    this._o = o;
    this._p = p;
    this._k = k;
    this._t = t;
    this._c = undefined;
  } as unknown as ViewMaker<V>;
  f.prototype = cls.prototype;
  return f;
}

/** Where a path leads inside a view's region, and what a write there must also set on the way. */
interface Located {
  readonly type: LType;
  readonly off: number;
  /** The leaf is not there (an absent partial-map key, a list index at its end, a null option). */
  readonly absent: boolean;
  /** Triples (offset, width, code) to write first: presence bytes and list lengths; null when none. */
  readonly effects: number[] | null;
  readonly view: View;
  readonly path: readonly unknown[];
}

/** The field path of `path` under `view`, for messages (computed only when needed). */
function pathText(view: View, path: readonly unknown[], length = path.length): string {
  let where = view._path();
  let t: LType = view._t;
  for (let i = 0; i < length; i++) {
    const seg = path[i];
    if (t.kind === 'list') where = `${where}[${String(seg)}]`;
    else where = joinPath(where, String(seg));
    const next = childType(t, seg);
    if (next === null) break;
    t = next;
  }
  return where;
}

function childType(t: LType, seg: unknown): LType | null {
  switch (t.kind) {
    case 'record':
      return (t as RecordType).byName[String(seg)]?.type ?? null;
    case 'map':
      return (t as MapType).value;
    case 'list':
      return (t as SeqType).elem;
    case 'option':
      return t.isComposite() ? childType((t as OptionType<unknown, unknown>).inner, seg) : null;
    default:
      return null;
  }
}

function locate(view: View, path: readonly unknown[]): Located {
  let t: LType = view._t;
  let off = 0;
  let absent = false;
  let effects: number[] | null = null;
  const b = view._b;
  const base = view._o;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    switch (t.kind) {
      case 'record': {
        const r = t as RecordType;
        const f = r.byName[seg as string];
        if (f === undefined) throw new Error(`${pathText(view, path, i + 1)}: ${r.describe()} has no field ${String(seg)}`);
        off += f.offset;
        t = f.type;
        break;
      }
      case 'variant':
        t = (t as VariantType).cases[b[base + off]!]!;
        i--;
        break;
      case 'map': {
        const m = t as MapType;
        const k = m.domain.keyIndex(seg);
        if (k < 0) throw new LayoutError(pathText(view, path, i + 1), seg, `a key of ${m.domain.describe()}`);
        if (m.partial) {
          const s = off + k * m.slot;
          if (b[base + s] === 0) absent = true;
          (effects ??= []).push(s, 1, 1);
        }
        off += m.at(k);
        t = m.value;
        break;
      }
      case 'list': {
        const l = t as SeqType;
        const n = l.size(b, base + off);
        let idx = typeof seg === 'number' ? seg : Number(seg);
        if (idx < 0) idx += n;
        if (!Number.isInteger(idx) || idx < 0 || idx > n) throw new LayoutError(pathText(view, path, i + 1), seg, `an index below ${n + 1} (the size is ${n})`);
        if (idx === n) {
          if (n === l.max) throw new LayoutError(pathText(view, path, i), `${n + 1} elements`, `at most ${l.max} elements`);
          (effects ??= []).push(off, l.lw, n + 1);
          absent = true;
        }
        off += l.lw + idx * l.ew;
        t = l.elem;
        break;
      }
      case 'option':
        if (!t.isComposite()) throw new Error(`${pathText(view, path, i)}: cannot go inside ${t.describe()}`);
        if (b[base + off] === 0) absent = true;
        (effects ??= []).push(off, 1, 1);
        off += 1;
        t = (t as OptionType<unknown, unknown>).inner;
        i--;
        break;
      default: {
        const where = pathText(view, path, i);
        throw new Error(`${where === '' ? 'the value' : where}: a path cannot go inside ${t.describe()} (at ${String(seg)})`);
      }
    }
  }
  return { type: t, off, absent, effects, view, path };
}

type Pred<V, K> = (v: V, k: K, self: any) => unknown;

// ---------------------------------------------------------------------------------------------------

/**
 * Where a record's fields lie: from the first field's offset, `length` bytes (a variant case starts
 * after its tag byte and may be followed by padding up to the variant's width).
 */
function fieldSpan(t: RecordType): { readonly start: number; readonly length: number } {
  return t.span;
}

const sameShapeMemo = new WeakMap<RecordType, WeakMap<RecordType, boolean>>();

/**
 * Whether two record layouts encode the same values alike: the same name (a variant case's name is its
 * tag), the same field names in the same order, each of the same type. A request held in two places
 * (a case of two variants, say a network message and the request a reply answers) is such a pair.
 */
export function sameShape(a: RecordType, b: RecordType): boolean {
  let byB = sameShapeMemo.get(a);
  const known = byB?.get(b);
  if (known !== undefined) return known;
  const same =
    (a.tag ? a.tag.value : a.name) === (b.tag ? b.tag.value : b.name) &&
    a.tag?.field === b.tag?.field &&
    a.fields.length === b.fields.length &&
    a.fields.every((f, i) => f.name === b.fields[i]!.name && f.type === b.fields[i]!.type);
  if (byB === undefined) sameShapeMemo.set(a, (byB = new WeakMap()));
  byB.set(b, same);
  return same;
}

/**
 * Records compare by their fields, as Immutable.js Records do: two views of same-shaped record layouts
 * are equal when their fields' bytes are (tag bytes and padding of variant cases aside).
 */
function sameRecordValue(a: RecordView, b: RecordView): boolean {
  if (!sameShape(a._t, b._t)) return false;
  const sa = fieldSpan(a._t);
  const sb = fieldSpan(b._t);
  return equalBytes(a._b, a._o + sa.start, b._b, b._o + sb.start, sa.length);
}

/**
 * A record view and an Immutable.js Record (a value a spec built, about to be written into a state) are
 * equal when the Record, written in the view's layout, gives the view's bytes.
 */
function sameAsEncoded(v: RecordView, other: unknown): boolean {
  const t = v._t;
  if (t.tag !== null && (other as { get(k: string): unknown }).get(t.tag.field) !== t.tag.value) return false;
  const tmp = new Uint8Array(t.width);
  try {
    t.write(tmp, 0, other);
  } catch (e) {
    if (e instanceof LayoutError) return false;
    throw e;
  }
  const { start, length } = fieldSpan(t);
  return equalBytes(v._b, v._o + start, tmp, start, length);
}

/** What a mutable twin changes: writes go into the view's own bytes and return the view itself, as on an Immutable.js mutable. */
const mutableMethods = {
  _fresh(this: View): number {
    this._b.fill(0, this._o, this._o + this._t.width);
    NB = this._b;
    return this._o;
  },
  _rewrap<T>(this: T): T {
    return this;
  },
};

/** The mutable twin of a record layout's view class, for `withMutations` (made once per layout, kept on it). */
function mutableClassOf(t: RecordType): new (b: Uint8Array, o: number, p: View | null, k: string) => RecordView {
  return (t.mutableView ??= makeMutableClass(t));
}

function makeMutableClass(t: RecordType): new (b: Uint8Array, o: number, p: View | null, k: string) => RecordView {
  const proto = Object.create((t.View as unknown as { prototype: object }).prototype) as object;
  for (const [name, fn] of Object.entries(mutableMethods)) Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true });
  const cache = cacheSlots(t);
  const slots = [...cache.values()];
  // A write may change what a composite field holds (null or not, another variant case): the views
  // cached for such fields are dropped, and the next read makes them again. A steady field's view
  // (see `steadyRecord`) reads its bytes in place whatever they become, so it is kept.
  const dropped = t.fields.filter((f) => cache.has(f.name) && !steadyField(f.type)).map((f) => cache.get(f.name)!);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const copy = new Function('setNB', `return function _copy() { ${dropped.map((n) => `this.${n} = undefined;`).join(' ')} setNB(this._b); return this._o; };`)((b: Uint8Array) => {
    NB = b;
  }) as () => number;
  Object.defineProperty(proto, '_copy', { value: copy, writable: true, configurable: true });
  return plainConstructor(`Mutable${t.View.name}`, proto, slots) as unknown as new (b: Uint8Array, o: number, p: View | null, k: string) => RecordView;
}

/** A record: field getters are generated per layout (recordClass.ts); the rest is shared here. */
export class RecordView<F = any> extends View {
  declare readonly _t: RecordType;
  /** Phantom: the field types, for `Packed<T>`. */
  declare readonly __fields: F;

  override hashCode(): number {
    const { start, length } = fieldSpan(this._t);
    return hashRegion(this._b, this._o + start, length);
  }

  /**
   * Immutable's `withMutations`: `fn` gets a mutable copy whose `set`, `merge`, `update` and `remove`
   * write in place and return it (so chained and separate calls both count); the result is immutable.
   */
  withMutations(fn: (mutable: this) => unknown): this {
    const Mutable = mutableClassOf(this._t);
    const o = this._copy();
    const m = new Mutable(NB, o, this._p, this._k);
    fn(m as this);
    return this._rewrap(m._b, m._o);
  }

  get<K extends keyof F & string>(k: K, notSetValue?: unknown): ReadOf<F[K]>;
  get(k: string, notSetValue?: unknown): any {
    const f = this._t.field(k);
    if (f === undefined) {
      const tag = this._t.tag;
      return tag !== null && k === tag.field ? tag.value : notSetValue;
    }
    return f.type.read(this._b, this._o + f.offset, this, k);
  }

  has(k: string): boolean {
    return this._t.byName[k] !== undefined || this._t.tag?.field === k;
  }

  set<K extends keyof F & string>(k: K, v: InputOf<F[K]> | ReadOf<F[K]>): this;
  set(k: string, v: unknown): this {
    const f = this._t.field(k);
    if (f === undefined) return this._setTag(k, v);
    const t = f.type;
    if (!t.isComposite()) {
      const c = (t as ScalarType).code(v);
      if (c >= 0) return this._writeScalar(f.offset, t as ScalarType, c);
    }
    const o = this._copy();
    const nb = NB;
    try {
      f.type.write(nb, o + f.offset, v);
    } catch (e) {
      this._fail(e, k);
    }
    return this._rewrap(nb, o);
  }

  private _setTag(k: string, v: unknown): this {
    const tag = this._t.tag;
    if (tag === null || k !== tag.field) throw new Error(`${joinPath(this._path(), k)}: ${this._t.describe()} has no field ${k}`);
    if (v === tag.value) return this;
    throw new LayoutError(joinPath(this._path(), k), v, `the tag of a ${tag.variant.name} is fixed (${tag.value}); build a new value instead`);
  }

  /** `update(k, fn)` or `update(k, notSetValue, fn)`. */
  update<K extends keyof F & string>(k: K, fn: (v: ReadOf<F[K]>) => InputOf<F[K]> | ReadOf<F[K]>): this;
  update(k: string, a: unknown, b?: unknown): this;
  update(k: string, a: unknown, b?: unknown): this {
    const fn = (b === undefined ? a : b) as (v: any) => unknown;
    const self = this as RecordView;
    const current = self.get(k);
    const next = fn(current);
    return next === current ? this : (self.set(k, next) as this);
  }

  /** Writes several fields with one copy: a plain object, an Immutable Map/Record or a view. */
  merge(...sources: readonly ({ readonly [K in keyof F]?: InputOf<F[K]> | ReadOf<F[K]> } | Iterable<readonly [string, unknown]>)[]): this {
    const o = this._copy();
    const nb = NB;
    for (const src of sources) {
      if (isPlainObject(src)) {
        // The common `s.merge({ a: x, b: y })`: no entry arrays.
        const fields = src as { readonly [k: string]: unknown };
        for (const k in fields) {
          const f = this._t.byName[k];
          const v = fields[k];
          if (f === undefined) {
            if (this._t.tag !== null && this._t.tag.field === k && v === this._t.tag.value) continue;
            throw new Error(`${joinPath(this._path(), k)}: ${this._t.describe()} has no field ${k}`);
          }
          try {
            f.type.write(nb, o + f.offset, v);
          } catch (e) {
            this._fail(e, k);
          }
        }
        continue;
      }
      for (const [k, v] of fieldEntries(src)) {
        const f = this._t.byName[String(k)];
        if (f === undefined) {
          if (this._t.tag !== null && this._t.tag.field === k && v === this._t.tag.value) continue;
          throw new Error(`${joinPath(this._path(), String(k))}: ${this._t.describe()} has no field ${String(k)}`);
        }
        try {
          f.type.write(nb, o + f.offset, v);
        } catch (e) {
          this._fail(e, String(k));
        }
      }
    }
    return this._rewrap(nb, o);
  }

  /** Resets a field to its zero value, as Immutable's Record.remove resets it to its default. */
  remove(k: keyof F & string): this {
    const f = this._t.byName[k];
    if (f === undefined) throw new Error(`${joinPath(this._path(), k)}: ${this._t.describe()} has no field ${k}`);
    const o = this._copy();
    const nb = NB;
    nb.fill(0, o + f.offset, o + f.offset + f.type.width);
    if (this._t.tag) nb[o] = this._t.tag.index;
    return this._rewrap(nb, o);
  }
  delete(k: keyof F & string): this {
    return this.remove(k);
  }

  /** Field names and values, shallow (composite fields stay views). */
  toObject(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of this) out[k] = v;
    return out;
  }

  *[Symbol.iterator](): IterableIterator<[string, any]> {
    const tag = this._t.tag;
    if (tag) yield [tag.field, tag.value];
    for (const f of this._t.fields) yield [f.name, f.type.read(this._b, this._o + f.offset, this, f.name)];
  }
}

function isPlainObject(src: unknown): boolean {
  if (typeof src !== 'object' || src === null) return false;
  const proto = Object.getPrototypeOf(src) as unknown;
  return proto === Object.prototype || proto === null;
}

function fieldEntries(src: unknown): Iterable<readonly [unknown, unknown]> {
  if (src instanceof View || isImmutable(src)) return src as Iterable<readonly [unknown, unknown]>;
  if (typeof src === 'object' && src !== null) return Object.entries(src);
  throw new TypeError(`merge takes objects; got ${String(src)}`);
}

// ---------------------------------------------------------------------------------------------------

/** A total map (every key of the domain) or a partial map (keys may be absent). */
export class MapView<K extends Key = Key, V = unknown, I = unknown> extends View {
  declare readonly _t: MapType<K, V, I>;
  constructor(b: Uint8Array, o: number, p: View | null, k: string, t: MapType<K, V, I>) {
    super(b, o, p, k);
    this._t = t;
  }

  /** The views read from record-valued slots, by key index (see `cachesElements`). */
  declare _c: (V | undefined)[] | undefined;

  private present(i: number): boolean {
    return !this._t.partial || this._b[this._o + i * this._t.slot] !== 0;
  }
  private valueAt(i: number): V {
    const t = this._t;
    const scalar = t.scalarValue;
    if (scalar !== null) return scalar.read(this._b, this._o + t.at(i)) as V;
    if (!cachesElements(t.value)) return t.value.read(this._b, this._o + t.at(i), this, t.keyNames[i]!);
    const c = (this._c ??= new Array<V | undefined>(t.domain.count));
    const v = c[i];
    return v !== undefined ? v : (c[i] = t.value.read(this._b, this._o + t.at(i), this, t.keyNames[i]!));
  }

  get size(): number {
    if (!this._t.partial) return this._t.domain.count;
    let n = 0;
    for (let i = 0; i < this._t.domain.count; i++) if (this._b[this._o + i * this._t.slot] !== 0) n++;
    return n;
  }
  isEmpty(): boolean {
    return this.size === 0;
  }

  get(k: K, notSetValue?: V): V {
    const t = this._t;
    const i = t.domain.keyIndex(k);
    if (i < 0 || !this.present(i)) return notSetValue as V;
    const scalar = t.scalarValue;
    return scalar !== null ? (scalar.read(this._b, this._o + t.at(i)) as V) : this.valueAt(i);
  }
  has(k: K): boolean {
    const i = this._t.domain.keyIndex(k);
    return i >= 0 && this.present(i);
  }

  set(k: K, v: I | V): this {
    const t = this._t;
    const i = t.domain.keyIndex(k);
    if (i < 0) throw new LayoutError(joinPath(this._path(), String(k)), k, `a key of ${t.domain.describe()}`);
    const scalar = t.scalarValue;
    if (scalar !== null && !t.partial) {
      // A scalar in a total map: its code goes straight in (a value out of bounds, code -1, is written
      // below to raise its error).
      const c = scalar.code(v);
      if (c >= 0) return this._writeScalar(t.at(i), scalar, c);
    } else if (scalar !== null && this.present(i)) {
      // Writing the value already there changes nothing, as in Immutable.js.
      const c = scalar.code(v);
      if (c >= 0 && readCode(this._b, this._o + t.at(i), scalar.width) === c) return this;
    }
    const o = this._copy();
    const nb = NB;
    if (t.partial) nb[o + i * t.slot] = 1;
    try {
      t.value.write(nb, o + t.at(i), v);
    } catch (e) {
      this._fail(e, String(t.domain.values[i]));
    }
    return this._rewrap(nb, o);
  }

  /** `update(k, fn)` or `update(k, notSetValue, fn)`. */
  update(k: K, fn: (v: V) => I | V): this;
  update(k: K, notSetValue: V, fn: (v: V) => I | V): this;
  update(k: K, a: unknown, b?: unknown): this {
    const fn = (b === undefined ? a : b) as (v: V) => I;
    const had = this.has(k);
    const current = had ? this.get(k) : ((b === undefined ? undefined : a) as V);
    const next = fn(current);
    return (next as unknown) === current ? this : this.set(k, next);
  }

  /** Removes a key (partial maps only: a total map has every key). */
  remove(k: K): this {
    const t = this._t;
    if (!t.partial) throw new Error(`${this._path()}: a total map over ${t.domain.describe()} cannot lose a key; use L.partialMap`);
    const i = t.domain.keyIndex(k);
    if (i < 0 || !this.present(i)) return this;
    const o = this._copy();
    const nb = NB;
    nb.fill(0, o + i * t.slot, o + (i + 1) * t.slot);
    return this._rewrap(nb, o);
  }
  delete(k: K): this {
    return this.remove(k);
  }
  /** Removes every key (partial maps only). */
  clear(): this {
    if (!this._t.partial) throw new Error(`${this._path()}: a total map over ${this._t.domain.describe()} cannot lose its keys; use L.partialMap`);
    const o = this._fresh();
    return this._rewrap(NB, o);
  }

  *keys(): IterableIterator<K> {
    for (let i = 0; i < this._t.domain.count; i++) if (this.present(i)) yield this._t.domain.values[i] as K;
  }
  *values(): IterableIterator<V> {
    for (let i = 0; i < this._t.domain.count; i++) if (this.present(i)) yield this.valueAt(i);
  }
  *entries(): IterableIterator<[K, V]> {
    for (let i = 0; i < this._t.domain.count; i++) if (this.present(i)) yield [this._t.domain.values[i] as K, this.valueAt(i)];
  }
  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  /** Immutable's forEach: stops when `fn` returns false; returns how many entries were visited. */
  forEach(fn: (v: V, k: K, self: this) => unknown): number {
    const n = this._t.domain.count;
    let visited = 0;
    for (let i = 0; i < n; i++) {
      if (!this.present(i)) continue;
      visited++;
      if (fn(this.valueAt(i), this._t.domain.values[i] as K, this) === false) break;
    }
    return visited;
  }
  some(pred: Pred<V, K>): boolean {
    for (let i = 0; i < this._t.domain.count; i++) if (this.present(i) && pred(this.valueAt(i), this._t.domain.values[i] as K, this)) return true;
    return false;
  }
  every(pred: Pred<V, K>): boolean {
    for (let i = 0; i < this._t.domain.count; i++) if (this.present(i) && !pred(this.valueAt(i), this._t.domain.values[i] as K, this)) return false;
    return true;
  }
  count(pred?: Pred<V, K>): number {
    if (pred === undefined) return this.size;
    let n = 0;
    for (let i = 0; i < this._t.domain.count; i++) if (this.present(i) && pred(this.valueAt(i), this._t.domain.values[i] as K, this)) n++;
    return n;
  }
  includes(v: unknown): boolean {
    const t = this._t;
    const value = t.value;
    if (value.isComposite()) return this.some((x) => is(x, v));
    // Scalars: compare codes in place (a value outside the type is in no slot).
    const c = (value as unknown as ScalarType).code(v);
    if (c < 0) return false;
    const w = value.width;
    for (let i = 0; i < t.domain.count; i++) if (this.present(i) && readCode(this._b, this._o + t.at(i), w) === c) return true;
    return false;
  }
  find(pred: Pred<V, K>, _ctx?: unknown, notSetValue?: V): V | undefined {
    for (const [k, v] of this.entries()) if (pred(v, k, this)) return v;
    return notSetValue;
  }
  findKey(pred: Pred<V, K>): K | undefined {
    for (const [k, v] of this.entries()) if (pred(v, k, this)) return k;
    return undefined;
  }
  reduce<A>(fn: (acc: A, v: V, k: K) => A, initial: A): A {
    let acc = initial;
    for (const [k, v] of this.entries()) acc = fn(acc, v, k);
    return acc;
  }
  /** A partial map keeps its layout (a view); a total map cannot lose keys, so it gives an Immutable Map. */
  filter(pred: Pred<V, K>): this | IMap<K, V> {
    if (this._t.partial) {
      const keep: boolean[] = [];
      for (let i = 0; i < this._t.domain.count; i++) keep.push(!this.present(i) || !!pred(this.valueAt(i), this._t.domain.values[i] as K, this));
      const o = this._copy();
      const nb = NB;
      for (let i = 0; i < keep.length; i++) if (!keep[i]) nb.fill(0, o + i * this._t.slot, o + (i + 1) * this._t.slot);
      return this._rewrap(nb, o);
    }
    return IMap<K, V>([...this.entries()].filter(([k, v]) => pred(v, k, this)));
  }
  /** An Immutable Map of the mapped values (they may fall outside the layout). */
  map<W>(fn: (v: V, k: K) => W): IMap<K, W> {
    return IMap<K, W>([...this.entries()].map(([k, v]) => [k, fn(v, k)] as [K, W]));
  }
  toArray(): [K, V][] {
    return [...this.entries()];
  }
}

// ---------------------------------------------------------------------------------------------------

/** A set of ids of one domain, as a bitmask. */
export class IdSetView<K extends Key = Key> extends View {
  declare readonly _t: IdSetType<K>;
  constructor(b: Uint8Array, o: number, p: View | null, k: string, t: IdSetType<K>) {
    super(b, o, p, k);
    this._t = t;
  }
  /** The bitmask: bit i is the domain's i-th id. */
  get bits(): number {
    return this._t.bits(this._b, this._o);
  }
  private withBits(bits: number): this {
    const o = this._fresh();
    const nb = NB;
    writeCode(nb, o, this._t.width, bits >>> 0);
    return this._rewrap(nb, o);
  }
  private indexOrFail(id: unknown): number {
    const i = this._t.domain.keyIndex(id);
    if (i < 0) throw new LayoutError(joinPath(this._path(), '[]'), id, this._t.domain.describe());
    return i;
  }
  private bitsOf(ids: Iterable<unknown>): number {
    if (ids instanceof IdSetView && ids._t === this._t) return ids.bits;
    let bits = 0;
    for (const id of ids) bits |= 1 << this.indexOrFail(id);
    return bits;
  }

  get size(): number {
    let x = this.bits;
    let n = 0;
    while (x !== 0) {
      x &= x - 1;
      n++;
    }
    return n;
  }
  isEmpty(): boolean {
    return this.bits === 0;
  }
  has(id: K): boolean {
    const i = this._t.domain.keyIndex(id);
    return i >= 0 && ((this.bits >>> i) & 1) === 1;
  }
  includes(id: K): boolean {
    return this.has(id);
  }
  get(id: K, notSetValue?: K): K | undefined {
    return this.has(id) ? id : notSetValue;
  }
  add(id: K): this {
    const bits = this.bits;
    const next = bits | (1 << this.indexOrFail(id));
    return next === bits ? this : this.withBits(next);
  }
  remove(id: K): this {
    const i = this._t.domain.keyIndex(id);
    if (i < 0 || ((this.bits >>> i) & 1) === 0) return this;
    return this.withBits(this.bits & ~(1 << i));
  }
  delete(id: K): this {
    return this.remove(id);
  }
  union(...others: Iterable<K>[]): this {
    let bits = this.bits;
    for (const o of others) bits |= this.bitsOf(o);
    return this.withBits(bits);
  }
  intersect(...others: Iterable<K>[]): this {
    let bits = this.bits;
    for (const o of others) bits &= this.bitsOf(o);
    return this.withBits(bits);
  }
  subtract(...others: Iterable<K>[]): this {
    let bits = this.bits;
    for (const o of others) bits &= ~this.bitsOf(o);
    return this.withBits(bits);
  }
  clear(): this {
    return this.withBits(0);
  }
  isSubset(other: Iterable<K>): boolean {
    return (this.bits & ~this.bitsOf(other)) === 0;
  }
  isSuperset(other: Iterable<K>): boolean {
    const o = this.bitsOf(other);
    return (this.bits & o) === o;
  }

  *values(): IterableIterator<K> {
    const bits = this.bits;
    const values = this._t.domain.values;
    for (let i = 0; i < values.length; i++) if ((bits >>> i) & 1) yield values[i] as K;
  }
  [Symbol.iterator](): IterableIterator<K> {
    return this.values();
  }
  first(notSetValue?: K): K | undefined {
    const bits = this.bits;
    if (bits === 0) return notSetValue;
    return this._t.domain.values[31 - Math.clz32(bits & -bits)] as K;
  }
  // The loops below walk the bits themselves: a property tests every new state, and going through the
  // `values()` generator made each call allocate.
  forEach(fn: (id: K, id2: K, self: this) => unknown): number {
    const bits = this.bits;
    const values = this._t.domain.values;
    let n = 0;
    for (let i = 0; i < values.length; i++) {
      if (((bits >>> i) & 1) === 0) continue;
      n++;
      if (fn(values[i] as K, values[i] as K, this) === false) break;
    }
    return n;
  }
  some(pred: Pred<K, K>): boolean {
    const bits = this.bits;
    const values = this._t.domain.values;
    for (let i = 0; i < values.length; i++) if ((bits >>> i) & 1 && pred(values[i] as K, values[i] as K, this)) return true;
    return false;
  }
  every(pred: Pred<K, K>): boolean {
    const bits = this.bits;
    const values = this._t.domain.values;
    for (let i = 0; i < values.length; i++) if ((bits >>> i) & 1 && !pred(values[i] as K, values[i] as K, this)) return false;
    return true;
  }
  count(pred?: Pred<K, K>): number {
    if (pred === undefined) return this.size;
    const bits = this.bits;
    const values = this._t.domain.values;
    let n = 0;
    for (let i = 0; i < values.length; i++) if ((bits >>> i) & 1 && pred(values[i] as K, values[i] as K, this)) n++;
    return n;
  }
  find(pred: Pred<K, K>): K | undefined {
    const bits = this.bits;
    const values = this._t.domain.values;
    for (let i = 0; i < values.length; i++) if ((bits >>> i) & 1 && pred(values[i] as K, values[i] as K, this)) return values[i] as K;
    return undefined;
  }
  filter(pred: Pred<K, K>): this {
    let bits = 0;
    const values = this._t.domain.values;
    const own = this.bits;
    for (let i = 0; i < values.length; i++) if ((own >>> i) & 1 && pred(values[i] as K, values[i] as K, this)) bits |= 1 << i;
    return this.withBits(bits);
  }
  reduce<A>(fn: (acc: A, id: K) => A, initial: A): A {
    let acc = initial;
    for (const id of this.values()) acc = fn(acc, id);
    return acc;
  }
  map<W>(fn: (id: K) => W): ISet<W> {
    return ISet([...this.values()].map(fn));
  }
  toArray(): K[] {
    return [...this.values()];
  }
}

// ---------------------------------------------------------------------------------------------------

/** Elements of a list, set or bag: slot `i` holds `_t.elem` at `_o + lw + i * ew`. */
abstract class SeqView<V, I> extends View {
  declare readonly _t: SeqType<V, I>;
  constructor(b: Uint8Array, o: number, p: View | null, k: string, t: SeqType<V, I>) {
    super(b, o, p, k);
    this._t = t;
  }
  get size(): number {
    return this._t.size(this._b, this._o);
  }
  isEmpty(): boolean {
    return this.size === 0;
  }
  /** The views read from record slots, by slot (see `cachesElements`). */
  declare _c: (V | undefined)[] | undefined;
  protected abstract elemKey(i: number): string;
  protected at(i: number): V {
    const t = this._t;
    if (!cachesElements(t.elem)) return t.elem.read(this._b, this._o + t.lw + i * t.ew, this, this.elemKey(i));
    const c = (this._c ??= []);
    const v = c[i];
    return v !== undefined ? v : (c[i] = t.elem.read(this._b, this._o + t.lw + i * t.ew, this, this.elemKey(i)));
  }
  *values(): IterableIterator<V> {
    const n = this.size;
    for (let i = 0; i < n; i++) yield this.at(i);
  }
  [Symbol.iterator](): IterableIterator<V> {
    return this.values();
  }
  first(notSetValue?: V): V | undefined {
    return this.size === 0 ? notSetValue : this.at(0);
  }
  last(notSetValue?: V): V | undefined {
    const n = this.size;
    return n === 0 ? notSetValue : this.at(n - 1);
  }
  forEach(fn: (v: V, k: any, self: this) => unknown): number {
    const n = this.size;
    let i = 0;
    while (i < n) {
      const v = this.at(i);
      i++;
      if (fn(v, this.keyOf(i - 1, v), this) === false) break;
    }
    return i;
  }
  protected abstract keyOf(i: number, v: V): unknown;
  some(pred: Pred<V, any>): boolean {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const v = this.at(i);
      if (pred(v, this.keyOf(i, v), this)) return true;
    }
    return false;
  }
  every(pred: Pred<V, any>): boolean {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const v = this.at(i);
      if (!pred(v, this.keyOf(i, v), this)) return false;
    }
    return true;
  }
  count(pred?: Pred<V, any>): number {
    const n = this.size;
    if (pred === undefined) return n;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const v = this.at(i);
      if (pred(v, this.keyOf(i, v), this)) c++;
    }
    return c;
  }
  find(pred: Pred<V, any>, _ctx?: unknown, notSetValue?: V): V | undefined {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const v = this.at(i);
      if (pred(v, this.keyOf(i, v), this)) return v;
    }
    return notSetValue;
  }
  reduce<A>(fn: (acc: A, v: V, k: any) => A, initial: A): A {
    let acc = initial;
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const v = this.at(i);
      acc = fn(acc, v, this.keyOf(i, v));
    }
    return acc;
  }
  /** The elements for which `pred` holds, in the same layout (order and canonical form are kept). */
  filter(pred: Pred<V, any>): this {
    const { lw, ew, width } = this._t;
    const n = this.size;
    const keep: boolean[] = [];
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const v = this.at(i);
      const k = !!pred(v, this.keyOf(i, v), this);
      keep.push(k);
      if (k) kept++;
    }
    if (kept === n) return this;
    const o = reserve(width);
    const nb = arena.b;
    let j = 0;
    for (let i = 0; i < n; i++) {
      if (!keep[i]) continue;
      copyInto(this._b, this._o + lw + i * ew, nb, o + lw + j * ew, ew);
      j++;
    }
    writeCode(nb, o, lw, kept);
    return this._rewrap(nb, o);
  }
  toArray(): V[] {
    return [...this.values()];
  }
  /** Removes slot `i` (shifting the rest left) in a copy. */
  protected withoutSlot(i: number): this {
    const { lw, ew } = this._t;
    const n = this.size;
    const o = this._copy();
    const nb = NB;
    nb.copyWithin(o + lw + i * ew, o + lw + (i + 1) * ew, o + lw + n * ew);
    nb.fill(0, o + lw + (n - 1) * ew, o + lw + n * ew);
    writeCode(nb, o, lw, n - 1);
    return this._rewrap(nb, o);
  }
}

/** A bounded list: a length and `max` slots, unused ones zero. */
export class ListView<V = unknown, I = unknown> extends SeqView<V, I> {
  protected elemKey(i: number): string {
    return this._t.slotNames[i] ?? `[${i}]`;
  }
  protected keyOf(i: number): unknown {
    return i;
  }
  get(i: number, notSetValue?: V): V | undefined {
    const n = this.size;
    const j = i < 0 ? i + n : i;
    return Number.isInteger(j) && j >= 0 && j < n ? this.at(j) : notSetValue;
  }
  has(i: number): boolean {
    const j = i < 0 ? i + this.size : i;
    return Number.isInteger(j) && j >= 0 && j < this.size;
  }
  includes(v: unknown): boolean {
    return this.indexOf(v) >= 0;
  }
  indexOf(v: unknown): number {
    const n = this.size;
    for (let i = 0; i < n; i++) if (is(this.at(i), v)) return i;
    return -1;
  }
  findIndex(pred: Pred<V, number>): number {
    const n = this.size;
    for (let i = 0; i < n; i++) if (pred(this.at(i), i, this)) return i;
    return -1;
  }
  /** Sets index `i` (`i` may be the size: the list grows by one). */
  set(i: number, v: I | V): this {
    return this.setIn([i], v);
  }
  update(i: number, fn: (v: V) => I | V): this;
  update(i: number, notSetValue: V, fn: (v: V) => I | V): this;
  update(i: number, a: unknown, b?: unknown): this {
    return this.updateIn([i], a, b);
  }
  push(...vs: I[]): this {
    const { lw, ew, max } = this._t;
    const n = this.size;
    if (n + vs.length > max) this._fail(this._t.tooMany(n + vs.length), '');
    const o = this._copy();
    const nb = NB;
    for (let j = 0; j < vs.length; j++) {
      try {
        this._t.elem.write(nb, o + lw + (n + j) * ew, vs[j]);
      } catch (e) {
        this._fail(e, `[${n + j}]`);
      }
    }
    writeCode(nb, o, lw, n + vs.length);
    return this._rewrap(nb, o);
  }
  pop(): this {
    const n = this.size;
    return n === 0 ? this : this.withoutSlot(n - 1);
  }
  shift(): this {
    return this.size === 0 ? this : this.withoutSlot(0);
  }
  unshift(...vs: I[]): this {
    return this.splice(0, 0, ...vs);
  }
  insert(i: number, v: I): this {
    return this.splice(i, 0, v);
  }
  remove(i: number): this {
    const n = this.size;
    const j = i < 0 ? i + n : i;
    return j >= 0 && j < n ? this.withoutSlot(j) : this;
  }
  delete(i: number): this {
    return this.remove(i);
  }
  /** Immutable's splice: remove `count` elements at `i`, insert `vs` there. */
  splice(i: number, count: number, ...vs: I[]): this {
    const { lw, ew, max, width } = this._t;
    const n = this.size;
    const start = Math.min(n, Math.max(0, i < 0 ? i + n : i));
    const removed = Math.min(Math.max(0, count), n - start);
    const size = n - removed + vs.length;
    if (size > max) this._fail(this._t.tooMany(size), '');
    const o = reserve(width);
    const nb = arena.b;
    const src = this._o + lw;
    copyInto(this._b, src, nb, o + lw, start * ew);
    for (let j = 0; j < vs.length; j++) {
      try {
        this._t.elem.write(nb, o + lw + (start + j) * ew, vs[j]);
      } catch (e) {
        this._fail(e, `[${start + j}]`);
      }
    }
    copyInto(this._b, src + (start + removed) * ew, nb, o + lw + (start + vs.length) * ew, (n - start - removed) * ew);
    writeCode(nb, o, lw, size);
    return this._rewrap(nb, o);
  }
  /** Elements `begin` to `end` (exclusive; negative counts from the end), as a list of the same layout. */
  slice(begin = 0, end?: number): this {
    const n = this.size;
    const from = Math.min(n, Math.max(0, begin < 0 ? begin + n : begin));
    const to = Math.min(n, Math.max(from, end === undefined ? n : end < 0 ? end + n : end));
    if (from === 0 && to === n) return this;
    const { lw, ew, width } = this._t;
    const o = reserve(width);
    const nb = arena.b;
    copyInto(this._b, this._o + lw + from * ew, nb, o + lw, (to - from) * ew);
    writeCode(nb, o, lw, to - from);
    return this._rewrap(nb, o);
  }
  /** Truncates, or grows with zero values (the layout's zero of the element type). */
  setSize(size: number): this {
    const { lw, ew, max } = this._t;
    const n = this.size;
    if (size === n) return this;
    if (!Number.isInteger(size) || size < 0 || size > max) this._fail(this._t.tooMany(size), '');
    const o = this._copy();
    const nb = NB;
    if (size < n) nb.fill(0, o + lw + size * ew, o + lw + n * ew);
    writeCode(nb, o, lw, size);
    return this._rewrap(nb, o);
  }
  clear(): this {
    return this.setSize(0);
  }
  concat(...others: Iterable<I>[]): this {
    const extra: I[] = [];
    for (const o of others) for (const x of o) extra.push(x);
    return this.push(...extra);
  }
  map<W>(fn: (v: V, i: number) => W): List<W> {
    return List([...this.values()].map(fn));
  }
  *keys(): IterableIterator<number> {
    const n = this.size;
    for (let i = 0; i < n; i++) yield i;
  }
  *entries(): IterableIterator<[number, V]> {
    const n = this.size;
    for (let i = 0; i < n; i++) yield [i, this.at(i)];
  }
}

// The element bytes of the last SetView search (its argument, encoded or in place).
let foundBytes: Uint8Array = new Uint8Array(0);
let foundOffset = 0;

/**
 * A bounded set (no repeats) or bag (repeats kept adjacent), sorted by element bytes so equal contents
 * have equal bytes. Iteration is in that order (not insertion order).
 */
export class SetView<V = unknown, I = unknown> extends SeqView<V, I> {
  protected elemKey(): string {
    return '[]';
  }
  protected keyOf(_i: number, v: V): unknown {
    return v;
  }

  /**
   * Slot of `x` (found: its first slot, >= 0) or `-(insertion slot) - 1`; NaN when `x` cannot be an
   * element. The encoded element is left in `found` (bytes, offset).
   */
  private search(x: unknown, strict: boolean): number {
    const t = this._t;
    let xb: Uint8Array;
    let xo: number;
    if (x instanceof View && (x._t === t.elem || (x._t as RecordType).tag?.variant === (t.elem as unknown))) {
      xb = x._b;
      xo = x._o;
    } else {
      try {
        t.elem.write(t.scratch, 0, x);
      } catch (e) {
        if (strict) this._fail(e, '[]');
        return NaN;
      }
      xb = t.scratch;
      xo = 0;
    }
    foundBytes = xb;
    foundOffset = xo;
    const { lw, ew } = t;
    const b = this._b;
    const base = this._o + lw;
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(b, base + mid * ew, xb, xo, ew) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.size && compareBytes(b, base + lo * ew, xb, xo, ew) === 0) return lo;
    return -lo - 1;
  }

  has(x: unknown): boolean {
    return this.search(x, false) >= 0;
  }
  includes(x: unknown): boolean {
    return this.has(x);
  }
  get(x: unknown, notSetValue?: V): V | undefined {
    const i = this.search(x, false);
    return i >= 0 ? this.at(i) : notSetValue;
  }
  /** How many times `x` is in the bag (0 or 1 for a set). */
  countOf(x: unknown): number {
    let i = this.search(x, false);
    if (!(i >= 0)) return 0;
    const { lw, ew } = this._t;
    const n = this.size;
    const base = this._o + lw;
    let c = 0;
    while (i < n && compareBytes(this._b, base + i * ew, foundBytes, foundOffset, ew) === 0) {
      c++;
      i++;
    }
    return c;
  }

  add(x: I | V): this {
    const i = this.search(x, true);
    if (i >= 0 && !this._t.bag) return this;
    const at = i >= 0 ? i : -i - 1;
    const { lw, ew, max } = this._t;
    const n = this.size;
    if (n === max) this._fail(new LayoutError('', x, `at most ${max} elements (the ${this._t.bag ? 'bag' : 'set'} is full)`), '');
    const xb = foundBytes;
    const xo = foundOffset;
    // One copy with the gap left open: the slots before `at`, the element, the slots after it.
    const o = reserve(this._t.width);
    const nb = arena.b;
    const b = this._b;
    const base = this._o + lw;
    copyInto(b, base, nb, o + lw, at * ew);
    copyInto(xb, xo, nb, o + lw + at * ew, ew);
    copyInto(b, base + at * ew, nb, o + lw + (at + 1) * ew, (n - at) * ew);
    writeCode(nb, o, lw, n + 1);
    return this._rewrap(nb, o);
  }
  /** Removes `x` (one copy of it, for a bag). */
  remove(x: unknown): this {
    const i = this.search(x, false);
    return i >= 0 ? this.withoutSlot(i) : this;
  }
  delete(x: unknown): this {
    return this.remove(x);
  }
  union(...others: Iterable<I>[]): this {
    let s = this as this;
    for (const o of others) for (const x of o) s = s.add(x);
    return s;
  }
  merge(...others: Iterable<I>[]): this {
    return this.union(...others);
  }
  subtract(...others: Iterable<unknown>[]): this {
    let s = this as this;
    for (const o of others) for (const x of o) s = s.remove(x);
    return s;
  }
  clear(): this {
    const o = this._fresh();
    return this._rewrap(NB, o);
  }
  /** An Immutable Set (a List for a bag) of the mapped values. */
  map<W>(fn: (v: V) => W): ISet<W> | List<W> {
    const out = [...this.values()].map(fn);
    return this._t.bag ? List(out) : ISet(out);
  }
}

// min, max, sort, groupBy, ... answered by Immutable.js over the views' own elements (queries.ts).
export interface MapView<K extends Key = Key, V = unknown, I = unknown> extends CollectionQueries<K, V, IMap<K, V>> {}
export interface IdSetView<K extends Key = Key> extends CollectionQueries<K, K, ISet<K>> {}
export interface ListView<V = unknown, I = unknown> extends CollectionQueries<number, V, List<V>> {}
export interface SetView<V = unknown, I = unknown> extends CollectionQueries<V, V, ISet<V> | List<V>> {}
installQueries(MapView, (m: MapView) => IMap(m.entries()));
installQueries(IdSetView, (ids: IdSetView) => ISet(ids.values()));
installQueries(ListView, (list: ListView) => List(list.values()));
installQueries(SetView, (set: SetView) => (set._t.bag ? List(set.values()) : ISet(set.values())));

export const MapViewOf = collectionConstructor(MapView);
export const IdSetViewOf = collectionConstructor(IdSetView);
export const ListViewOf = collectionConstructor(ListView);
export const SetViewOf = collectionConstructor(SetView);

/**
 * The shape of the values one place of an Immutable.js state held across the states seen: the
 * information a layout declares (integer ranges, the values of strings, which keys a map has, how large
 * a collection grows, which record types a field holds). Shapes only widen as states are observed, so
 * the layout built from them holds every state seen.
 */
import { isImmutable, isKeyed, isList, isMap, isOrdered, isRecord, isSet, Record as IRecord } from 'immutable';

export type Shape =
  /** Nothing seen here yet (the elements of a collection that was always empty). */
  | { readonly kind: 'never' }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'bool' }
  | { readonly kind: 'string'; readonly values: ReadonlySet<string> }
  /** `null` or `undefined` seen beside other values. */
  | { readonly kind: 'option'; readonly inner: Shape }
  | RecordShape
  /** Records of several types in one place (message kinds): a layout variant. */
  | { readonly kind: 'records'; readonly byName: ReadonlyMap<string, RecordShape> }
  | { readonly kind: 'map'; readonly keys: Shape; readonly values: Shape; readonly keyUnion: ReadonlySet<unknown>; readonly minSize: number; readonly maxSize: number }
  | { readonly kind: 'set' | 'list'; readonly elem: Shape; readonly maxSize: number };

export interface RecordShape {
  readonly kind: 'record';
  /** Which record type: its descriptive name, or for a Record declared without one its field names. */
  readonly name: string;
  /** A name for a type declared without one, from where it was first found (`msgs[]` → `Msg`). */
  readonly hint: string | null;
  readonly fields: ReadonlyMap<string, Shape>;
}

export const NEVER: Shape = { kind: 'never' };

/** A value that no layout type holds, named by where it was found. */
export class ShapeError extends Error {}

/** The shape of `a` widened to hold `v`, found at `path` (for the error naming a value no layout holds). */
export function observe(a: Shape, v: unknown, path: string): Shape {
  if (v === null || v === undefined) return a.kind === 'never' || a.kind === 'option' ? (a.kind === 'never' ? { kind: 'option', inner: NEVER } : a) : { kind: 'option', inner: a };
  if (a.kind === 'option') return { kind: 'option', inner: observe(a.inner, v, path) };
  const here = shapeOf(v, path);
  return join(a, here, path);
}

function shapeOf(v: unknown, path: string): Shape {
  if (typeof v === 'boolean') return { kind: 'bool' };
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new ShapeError(`${path} holds ${v}, which is not a whole number: a layout holds integers (L.int), so scale it or keep this spec on Immutable.js`);
    return { kind: 'int', min: v, max: v };
  }
  if (typeof v === 'string') return { kind: 'string', values: new Set([v]) };
  if (isRecord(v)) {
    const fields = new Map<string, Shape>();
    for (const [k, x] of Object.entries((v as unknown as { toObject(): Record<string, unknown> }).toObject())) fields.set(k, observe(NEVER, x, `${path}.${k}`));
    const named = IRecord.getDescriptiveName(v as never);
    return named && named !== 'Record' ? { kind: 'record', name: named, hint: null, fields } : { kind: 'record', name: `{${[...fields.keys()].join(', ')}}`, hint: nameFromPath(path), fields };
  }
  if (isImmutable(v) && isKeyed(v) && isMap(v)) {
    const m = v as unknown as { forEach(f: (x: unknown, k: unknown) => void): void; size: number };
    let keys: Shape = NEVER;
    let values: Shape = NEVER;
    const keyUnion = new Set<unknown>();
    m.forEach((x, k) => {
      keys = observe(keys, k, `${path} (a key)`);
      values = observe(values, x, `${path}[${String(k)}]`);
      keyUnion.add(k);
    });
    return { kind: 'map', keys, values, keyUnion, minSize: m.size, maxSize: m.size };
  }
  if (isSet(v) || isList(v)) {
    const c = v as unknown as { forEach(f: (x: unknown) => void): void; size: number };
    let elem: Shape = NEVER;
    c.forEach((x) => {
      elem = observe(elem, x, `${path}[]`);
    });
    return { kind: isSet(v) ? 'set' : 'list', elem, maxSize: c.size };
  }
  if (isImmutable(v) && isOrdered(v)) throw new ShapeError(`${path} holds an ordered Immutable.js collection kmc cannot lay out (${String(v).slice(0, 60)})`);
  throw new ShapeError(`${path} holds ${typeof v === 'object' ? 'a plain object or array' : typeof v} (${String(v).slice(0, 60)}), which no layout type holds: states hold Immutable.js values and primitives`);
}

/** The least shape holding what `a` and `b` hold. */
export function join(a: Shape, b: Shape, path: string): Shape {
  if (a.kind === 'never') return b;
  if (b.kind === 'never') return a;
  if (a.kind === 'option' || b.kind === 'option') {
    const inner = join(a.kind === 'option' ? a.inner : a, b.kind === 'option' ? b.inner : b, path);
    return { kind: 'option', inner };
  }
  if (a.kind === 'int' && b.kind === 'int') return { kind: 'int', min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
  if (a.kind === 'bool' && b.kind === 'bool') return a;
  if (a.kind === 'string' && b.kind === 'string') return b.values.size === 1 && a.values.has([...b.values][0]!) ? a : { kind: 'string', values: new Set([...a.values, ...b.values]) };
  if ((a.kind === 'record' || a.kind === 'records') && (b.kind === 'record' || b.kind === 'records')) {
    const byName = new Map<string, RecordShape>(a.kind === 'record' ? [[a.name, a]] : a.byName);
    for (const r of b.kind === 'record' ? [b] : b.byName.values()) {
      const had = byName.get(r.name);
      byName.set(r.name, had ? joinRecords(had, r, path) : r);
    }
    return byName.size === 1 ? [...byName.values()][0]! : { kind: 'records', byName };
  }
  if (a.kind === 'map' && b.kind === 'map') {
    return {
      kind: 'map',
      keys: join(a.keys, b.keys, `${path} (a key)`),
      values: join(a.values, b.values, `${path}[]`),
      keyUnion: b.keyUnion.size === 0 || [...b.keyUnion].every((k) => a.keyUnion.has(k)) ? a.keyUnion : new Set([...a.keyUnion, ...b.keyUnion]),
      minSize: Math.min(a.minSize, b.minSize),
      maxSize: Math.max(a.maxSize, b.maxSize),
    };
  }
  if ((a.kind === 'set' || a.kind === 'list') && a.kind === b.kind) {
    return { kind: a.kind, elem: join(a.elem, b.elem, `${path}[]`), maxSize: Math.max(a.maxSize, b.maxSize) };
  }
  throw new ShapeError(`${path} holds both ${describeKind(a)} and ${describeKind(b)}: a layout gives each place one type (a variant for records of several kinds)`);
}

function joinRecords(a: RecordShape, b: RecordShape, path: string): RecordShape {
  const fields = new Map(a.fields);
  for (const [k, s] of b.fields) fields.set(k, join(fields.get(k) ?? NEVER, s, `${path}.${k}`));
  return { kind: 'record', name: a.name, hint: a.hint, fields };
}

function describeKind(s: Shape): string {
  switch (s.kind) {
    case 'int':
      return 'numbers';
    case 'string':
      return 'strings';
    case 'bool':
      return 'booleans';
    case 'record':
      return `${s.name} records`;
    case 'records':
      return 'records';
    case 'map':
      return 'maps';
    case 'set':
      return 'sets';
    case 'list':
      return 'lists';
    default:
      return s.kind;
  }
}

/** A name for a record type declared without one, from where it sits: `State`, `msgs[]` → `Msg`, `leader` → `Leader`. */
export function nameFromPath(path: string): string {
  if (path === 'state') return 'State';
  const element = path.endsWith(']');
  const last = path.replace(/ \(a key\)$/, '').replace(/\[[^\]]*\]/g, '').split('.').filter((p) => /^[A-Za-z_$][\w$]*$/.test(p)).pop() ?? 'Item';
  const singular = element && last.length > 1 && last.endsWith('s') ? last.slice(0, -1) : last;
  return singular.charAt(0).toUpperCase() + singular.slice(1);
}

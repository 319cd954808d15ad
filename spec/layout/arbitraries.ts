/**
 * fast-check generators of random layouts with values that fit them, for the layout's property tests.
 * Each generated layout comes with its value generator and a reference of what the value should read
 * back as (computed from the input, not from the bytes).
 */
import fc from 'fast-check';
import { List, Map as IMap, Set as ISet } from 'immutable';
import * as L from './builders.ts';
import { IdSetType, IdsType, LType, MapType, RecordType, ScalarType, SeqType, VariantType, type Key } from './types.ts';

export interface Generated {
  readonly type: LType;
  readonly value: fc.Arbitrary<unknown>;
}

const ID_DOMAINS: readonly IdsType[] = [L.ids('node', ['n1', 'n2', 'n3']), L.ids('broker', [1, 2, 3, 4])];

function scalar(): fc.Arbitrary<Generated> {
  return fc.oneof(
    fc.tuple(fc.integer({ min: -300, max: 300 }), fc.constantFrom(0, 1, 200, 255, 256, 300, 65535, 65536, 70000)).map(([min, span]) => {
      const type = L.int(min, min + span);
      return { type, value: fc.integer({ min, max: min + span }) };
    }),
    fc.constant({ type: L.bool(), value: fc.boolean() }),
    fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'leader', 'follower', 7, 9), { minLength: 1, maxLength: 5 }).map((values) => {
      const type = L.enumOf(values);
      return { type, value: fc.constantFrom(...values) };
    }),
    fc.constantFrom(...ID_DOMAINS).map((type) => ({ type: type as LType, value: fc.constantFrom(...type.values) as fc.Arbitrary<unknown> })),
  );
}

function option(inner: Generated): Generated {
  return { type: L.option(inner.type), value: fc.option(inner.value, { nil: null }) };
}

let recordSerial = 0;

/** A random layout of at most `depth` levels of composites, with a generator of its values. */
export function layoutAndValues(depth: number): fc.Arbitrary<Generated> {
  if (depth === 0) return fc.oneof(scalar(), scalar().map(option));
  const sub = layoutAndValues(depth - 1);
  const idDomain = fc.constantFrom(...ID_DOMAINS);
  return fc.oneof(
    { weight: 2, arbitrary: scalar() },
    { weight: 1, arbitrary: scalar().map(option) },
    {
      weight: 3,
      arbitrary: fc.array(sub, { maxLength: 4 }).map((fields) => {
        const spec: Record<string, LType> = {};
        const values: Record<string, fc.Arbitrary<unknown>> = {};
        fields.forEach((f, i) => {
          spec[`f${i}`] = f.type;
          values[`f${i}`] = f.value;
        });
        const type = L.record(`R${++recordSerial}`, spec);
        return { type: type as LType, value: fc.record(values) as fc.Arbitrary<unknown> };
      }),
    },
    {
      weight: 1,
      arbitrary: sub.map(option),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(idDomain, sub, fc.boolean()).map(([domain, v, partial]) => {
        const type = partial ? L.partialMap(domain, v.type) : L.map(domain, v.type);
        const keys = domain.values as readonly Key[];
        const value = partial
          ? fc.subarray([...keys]).chain((ks) => fc.tuple(...ks.map((k) => v.value.map((x) => [k, x] as const))))
          : fc.tuple(...keys.map((k) => v.value.map((x) => [k, x] as const)));
        return { type: type as LType, value: value as fc.Arbitrary<unknown> };
      }),
    },
    {
      weight: 1,
      arbitrary: idDomain.map((domain) => ({ type: L.idSet(domain) as LType, value: fc.subarray([...(domain.values as Key[])]) as fc.Arbitrary<unknown> })),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(sub, fc.integer({ min: 0, max: 4 }), fc.constantFrom('list', 'set', 'bag')).map(([e, max, kind]) => {
        const type = kind === 'list' ? L.list(e.type, max) : kind === 'set' ? L.set(e.type, max) : L.bag(e.type, max);
        return { type: type as LType, value: fc.array(e.value, { maxLength: max }) as fc.Arbitrary<unknown> };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.array(sub, { maxLength: 3 }), { minLength: 1, maxLength: 3 }).map((cases) => {
        const spec: Record<string, Record<string, LType>> = {};
        const values: fc.Arbitrary<unknown>[] = [];
        cases.forEach((fields, c) => {
          const tag = `C${c}`;
          spec[tag] = {};
          const fv: Record<string, fc.Arbitrary<unknown>> = { kind: fc.constant(tag) };
          fields.forEach((f, i) => {
            spec[tag]![`g${i}`] = f.type;
            fv[`g${i}`] = f.value;
          });
          values.push(fc.record(fv));
        });
        const type = L.variant(`V${++recordSerial}`, 'kind', spec);
        return { type: type as LType, value: fc.oneof(...values) };
      }),
    },
  );
}

/** The bytes of one value of `t` (the canonical order of set and bag elements). */
function encoded(t: LType, v: unknown): Uint8Array {
  const b = new Uint8Array(t.width);
  t.write(b, 0, v);
  return b;
}

function byBytes(t: LType, xs: readonly unknown[]): unknown[] {
  const keyed = xs.map((x) => [encoded(t, x), x] as const);
  keyed.sort(([a], [b]) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return 0;
  });
  return keyed.map(([, x]) => x);
}

/** What `t.from(v).toImmutable()` must equal, computed from the input `v`. */
export function expectedImmutable(t: LType, v: unknown): unknown {
  if (t instanceof ScalarType) return v ?? null;
  if (t.kind === 'option') return v === null || v === undefined ? null : expectedImmutable((t as unknown as { inner: LType }).inner, v);
  if (t instanceof RecordType) {
    const o = v as Record<string, unknown>;
    const fields: Record<string, unknown> = {};
    if (t.tag) fields[t.tag.field] = t.tag.value;
    for (const f of t.fields) fields[f.name] = expectedImmutable(f.type, o[f.name]);
    return t.immutableRecord()(fields);
  }
  if (t instanceof VariantType) return expectedImmutable(t.byTag[(v as Record<string, string>)[t.tagField]!]!, v);
  if (t instanceof MapType) return IMap((v as [Key, unknown][]).map(([k, x]) => [k, expectedImmutable(t.value, x)]));
  if (t instanceof IdSetType) return ISet(v as Key[]);
  if (t instanceof SeqType) {
    const xs = v as unknown[];
    if (t.kind === 'list') return List(xs.map((x) => expectedImmutable(t.elem, x)));
    if (!t.bag) return ISet(xs.map((x) => expectedImmutable(t.elem, x)));
    return List(byBytes(t.elem, xs).map((x) => expectedImmutable(t.elem, x)));
  }
  throw new Error(`no reference for ${t.describe()}`);
}

/** The same value with every unordered collection given in reverse order (maps, sets, bags, idSets). */
export function reversed(t: LType, v: unknown): unknown {
  if (v === null || v === undefined || t instanceof ScalarType) return v;
  if (t.kind === 'option') return reversed((t as unknown as { inner: LType }).inner, v);
  if (t instanceof RecordType) {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = { ...o };
    for (const f of t.fields) out[f.name] = reversed(f.type, o[f.name]);
    return out;
  }
  if (t instanceof VariantType) return reversed(t.byTag[(v as Record<string, string>)[t.tagField]!]!, v);
  if (t instanceof MapType) return (v as [Key, unknown][]).map(([k, x]) => [k, reversed(t.value, x)]).reverse();
  if (t instanceof IdSetType) return [...(v as Key[])].reverse();
  if (t instanceof SeqType) {
    const xs = (v as unknown[]).map((x) => reversed(t.elem, x));
    return t.kind === 'list' ? xs : xs.reverse();
  }
  return v;
}

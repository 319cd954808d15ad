/**
 * A layout declaration from the shape of the states seen (shape.ts): the TypeScript to paste into the
 * spec, and the same layout built, so a test can hold every state seen to it. Strings used as map keys,
 * and the spec's symmetry sets, become id domains (`L.ids`); other strings enums. When the search that
 * fed the shapes did not finish, integer bounds and collection sizes get one more than was seen.
 */
import { layout as L } from '../../spec/layout/index.ts';
import type { LType, RecordType } from '../../spec/layout/types.ts';
import type { Key } from '../../spec/layout/types.ts';
import { ShapeError, join, nameFromPath, type RecordShape, type Shape } from './shape.ts';

export interface LayoutSuggestion {
  /** The declaration, ending with `const State = L.record(...)` and its `Packed` type. */
  readonly code: string;
  /** The same layout, built. */
  readonly layout: RecordType;
  /** The margins added, one line each (empty after a complete search). */
  readonly margins: readonly string[];
}

interface Domain {
  readonly name: string;
  readonly values: readonly Key[];
  readonly type: LType;
}

interface Emitted {
  readonly code: string;
  readonly type: LType;
}

/** The layout of states of shape `root` (a record); `margin` widens bounds by one after a partial search. */
export function suggestLayout(root: Shape, symmetry: readonly (readonly Key[])[], margin: boolean): LayoutSuggestion {
  if (root.kind !== 'record') throw new ShapeError(`the state is ${root.kind === 'never' ? 'never built' : `not one Immutable.js Record (it is ${root.kind === 'records' ? 'records of several types' : `a ${root.kind}`})`}: a layout's root is a record, so wrap the state in a Record first`);
  const records = new Map<string, RecordShape>();
  collectRecords(root, records);
  const domains = collectDomains(root, symmetry);
  const margins: string[] = [];
  const lines: string[] = [];
  const declared = new Map<string, Emitted>();
  const widen = (n: number, what: string): number => {
    if (!margin) return n;
    const said = `${what}: seen ${n}, declared ${n + 1}`;
    if (!margins.includes(said)) margins.push(said);
    return n + 1;
  };

  const domainOf = (values: Iterable<unknown>): Domain | undefined => {
    const vs = [...values];
    return domains.find((d) => vs.every((v) => d.values.includes(v as Key)));
  };

  const emit = (s: Shape, path: string): Emitted => {
    switch (s.kind) {
      case 'never':
        return { code: `L.bool() /* ${path}: no value seen; give its type */`, type: L.bool() };
      case 'bool':
        return { code: 'L.bool()', type: L.bool() };
      case 'int': {
        // After a partial search a counter may not have shown its start: non-negative ranges start at 0.
        const min = !margin ? s.min : s.min < 0 ? s.min - 1 : 0;
        const max = widen(s.max, `${path} (largest integer)`);
        const said = `${path} (least integer): seen ${s.min}, declared ${min}`;
        if (min !== s.min && !margins.includes(said)) margins.push(said);
        return { code: `L.int(${min}, ${max})`, type: L.int(min, max) };
      }
      case 'string': {
        const d = domainOf(s.values);
        if (d) return { code: d.name, type: d.type };
        const values = [...s.values].sort();
        return { code: `L.enumOf(${JSON.stringify(values)})`, type: L.enumOf(values) };
      }
      case 'option': {
        const inner = emit(s.inner, path);
        return { code: `L.option(${inner.code})`, type: L.option(inner.type as LType<unknown, unknown>) };
      }
      case 'record':
        return declareRecord(s.name);
      case 'records':
        return declareVariant(s, path);
      case 'map': {
        const d = domainOf(s.keyUnion);
        if (!d) throw new ShapeError(`${path} is a map whose keys (${[...s.keyUnion].slice(0, 5).map(String).join(', ')}) are not strings or whole numbers: a layout's map is keyed by an id domain or an enum`);
        const value = emit(s.values, `${path}[]`);
        const total = s.minSize === d.values.length;
        return total
          ? { code: `L.map(${d.name}, ${value.code})`, type: L.map(d.type as never, value.type as LType<unknown, unknown>) }
          : { code: `L.partialMap(${d.name}, ${value.code})`, type: L.partialMap(d.type as never, value.type as LType<unknown, unknown>) };
      }
      case 'set': {
        if (s.elem.kind === 'string' || s.elem.kind === 'int') {
          const d = domainOf(s.elem.kind === 'string' ? s.elem.values : range(s.elem.min, s.elem.max));
          if (d && d.values.length <= 32) return { code: `L.idSet(${d.name})`, type: L.idSet(d.type as never) };
        }
        const elem = emit(s.elem, `${path}[]`);
        const max = widen(s.maxSize, `${path} (most elements)`);
        return { code: `L.set(${elem.code}, ${max})`, type: L.set(elem.type as LType<unknown, unknown>, max) };
      }
      case 'list': {
        const elem = emit(s.elem, `${path}[]`);
        const max = widen(s.maxSize, `${path} (longest)`);
        return { code: `L.list(${elem.code}, ${max})`, type: L.list(elem.type as LType<unknown, unknown>, max) };
      }
    }
  };

  const fieldsOf = (r: RecordShape, skip?: string, caseName?: string): { code: string; fields: Record<string, LType> } => {
    const fields: Record<string, LType> = {};
    const parts: string[] = [];
    const where = caseName ?? displayName(r);
    for (const [name, shape] of r.fields) {
      if (name === skip) continue;
      const e = emit(shape, `${where}.${name}`);
      fields[name] = e.type;
      parts.push(`  ${name}: ${e.code},`);
    }
    return { code: parts.join('\n'), fields };
  };

  const declaring = new Set<string>();
  const displayNames = new Map<string, string>();
  const usedNames = new Set<string>(domains.map((d) => d.name));
  /** The name a record type is declared under: its own, the value of its tag-like field, or where it sits. */
  const displayName = (r: RecordShape): string => {
    const had = displayNames.get(r.name);
    if (had) return had;
    let base = r.hint === null ? r.name : (tagLikeValue(r) ?? r.hint);
    base = identifier(base);
    let name = base;
    for (let i = 2; usedNames.has(name); i++) name = `${base}${i}`;
    usedNames.add(name);
    displayNames.set(r.name, name);
    return name;
  };
  function declareRecord(name: string): Emitted {
    const had = declared.get(name);
    if (had) return had;
    if (declaring.has(name)) throw new ShapeError(`records of type ${name} hold records of type ${name}: a layout has a fixed width, so it cannot nest a record type in itself`);
    declaring.add(name);
    const r = records.get(name)!;
    const constName = displayName(r);
    const { code, fields } = fieldsOf(r);
    const e = { code: constName, type: L.record(constName, fields) as LType };
    declared.set(name, e);
    lines.push(`const ${constName} = L.record('${constName}', {\n${code}\n});`);
    return e;
  }

  function declareVariant(s: Extract<Shape, { kind: 'records' }>, path: string): Emitted {
    const cases = [...s.byName.keys()].map((n) => records.get(n)!);
    const key = `variant:${cases.map((c) => c.name).join('|')}`;
    const had = declared.get(key);
    if (had) return had;
    if (declaring.has(key)) throw new ShapeError(`${path} holds records of the types ${cases.map((c) => c.name).join(', ')}, which hold records of the same types: a layout has a fixed width, so it cannot nest a variant in itself`);
    declaring.add(key);
    const tag = tagField(cases);
    if (tag === null) {
      throw new ShapeError(`${path} holds records of several types (${cases.map((c) => c.name).join(', ')}) with no common string field that names the type: a layout variant needs one (a field such as type: 'Vote' in every record, with one value per record type)`);
    }
    const caseFields: Record<string, Record<string, LType>> = {};
    const parts: string[] = [];
    for (const c of cases) {
      const tagValue = [...(c.fields.get(tag) as Extract<Shape, { kind: 'string' }>).values][0]!;
      const { code, fields } = fieldsOf(c, tag, tagValue);
      caseFields[tagValue] = fields;
      parts.push(`  ${tagValue}: {\n${code.replace(/^/gm, '  ')}\n  },`);
    }
    const base = identifier(nameFromPath(path));
    let constName = base;
    for (let i = 2; usedNames.has(constName); i++) constName = `${base}${i}`;
    const name = constName;
    usedNames.add(constName);
    const e = { code: constName, type: L.variant(name, tag, caseFields) as unknown as LType };
    declared.set(key, e);
    lines.push(`const ${constName} = L.variant('${name}', '${tag}', {\n${parts.join('\n')}\n});`);
    return e;
  }

  const state = declareRecord(root.name);
  const head = domains.map((d) => `const ${d.name} = L.ids('${d.name.toLowerCase()}', ${JSON.stringify(d.values)});`);
  const code = [
    "import { layout as L, type Packed } from 'kafka-model-checker';",
    '',
    ...head,
    ...(head.length > 0 ? [''] : []),
    ...lines.flatMap((l) => [l, '']),
    `type ${state.code} = Packed<typeof ${state.code}>;`,
    `// In the model: { layout: ${state.code}, init: () => [${state.code}.from(...)], ... }`,
  ].join('\n');
  return { code: `${code}\n`, layout: state.type as RecordType, margins };
}

/** Every shape in `s`, `s` first, then what it holds (a record's fields, a map's keys and values, ...). */
function* shapesIn(s: Shape): Generator<Shape> {
  yield s;
  switch (s.kind) {
    case 'record':
      for (const f of s.fields.values()) yield* shapesIn(f);
      return;
    case 'records':
      for (const r of s.byName.values()) yield* shapesIn(r);
      return;
    case 'option':
      return yield* shapesIn(s.inner);
    case 'map':
      yield* shapesIn(s.keys);
      return yield* shapesIn(s.values);
    case 'set':
    case 'list':
      return yield* shapesIn(s.elem);
    default:
      return;
  }
}

/** Every record type in the shape, each joined over all the places it occurs. */
function collectRecords(s: Shape, out: Map<string, RecordShape>): void {
  for (const x of shapesIn(s)) {
    if (x.kind !== 'record') continue;
    const had = out.get(x.name);
    out.set(x.name, had ? (join(had, x, x.name) as RecordShape) : x);
  }
}

/** Id domains: the spec's symmetry sets, then the key sets of maps (one domain for equal or nested key sets). */
function collectDomains(root: Shape, symmetry: readonly (readonly Key[])[]): Domain[] {
  const sets: Key[][] = symmetry.filter((ids) => ids.length > 0).map((ids) => [...ids]);
  for (const x of shapesIn(root)) {
    if (x.kind !== 'map') continue;
    const keys = [...x.keyUnion].filter((k): k is Key => typeof k === 'string' || (typeof k === 'number' && Number.isInteger(k)));
    if (keys.length === x.keyUnion.size && keys.length > 0) sets.push(keys);
  }
  // Widest first, so a smaller key set inside a larger one uses the larger domain.
  const kept: Key[][] = [];
  for (const s of [...sets].sort((a, b) => b.length - a.length)) {
    if (!kept.some((k) => s.every((v) => k.includes(v)))) kept.push(s);
  }
  return kept.map((values, i) => {
    const sorted = [...values].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))));
    const name = kept.length === 1 ? 'Id' : `Id${i + 1}`;
    return { name, values: sorted, type: L.ids(name.toLowerCase(), sorted) as LType };
  });
}

/** A field every case has, holding one string per case, different across cases. */
function tagField(cases: readonly RecordShape[]): string | null {
  const [first] = cases;
  for (const name of first!.fields.keys()) {
    const tags = cases.map((c) => c.fields.get(name));
    if (!tags.every((t) => t?.kind === 'string' && t.values.size === 1)) continue;
    const values = tags.map((t) => [...(t as Extract<Shape, { kind: 'string' }>).values][0]);
    if (new Set(values).size === values.length) return name;
  }
  return null;
}

function identifier(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(id) ? `_${id}` : id;
}

function range(min: number, max: number): number[] {
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/** The value of a field that holds one identifier-like string in every record of the type (`type: 'VoteRequest'`). */
function tagLikeValue(r: RecordShape): string | null {
  for (const shape of r.fields.values()) {
    if (shape.kind === 'string' && shape.values.size === 1) {
      const [v] = shape.values;
      if (/^[A-Z][A-Za-z0-9]*$/.test(v!)) return v!;
    }
  }
  return null;
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { List, Map as IMap, Record as KmcRecord, is } from './immutable.ts';
import { READS_BY_INDEX, smallLists } from './recordClasses.ts';
import { accelerateRecords } from '../checker/engine/recordAcceleration.ts';
import { Fingerprinter } from '../checker/engine/fingerprint.ts';

type AnyRecordFactory = ((defaults: object, name?: string) => any) & { getDescriptiveName(r: unknown): string };

/** Immutable.js as it is, untouched by kmc: its ES module build, a module of its own. */
async function pristineRecord(): Promise<AnyRecordFactory> {
  const path = createRequire(import.meta.url).resolve('immutable').replace(/immutable\.js$/, 'immutable.es.js');
  return ((await import(path)) as { Record: AnyRecordFactory }).Record;
}

const wideKeys = Array.from({ length: 40 }, (_, i) => `f${i}`);

/** Every read a spec can make of records of each kind, made with `Record`. */
function readings(Record: AnyRecordFactory): unknown[] {
  const Point = Record({ x: 0, y: 0, label: 'p' as string | undefined, size: 3, toll: null as unknown }, 'Point');
  const Wide = Record(Object.fromEntries(wideKeys.map((k, i) => [k, i])));
  const Empty = Record({});
  type Getting = new (values?: object) => { get(k: string, notSet?: unknown): unknown; set(k: string, v: unknown): unknown };
  class Shouting extends (Record({ word: 'hi', times: 1 }) as Getting) {
    override get(k: string, notSet?: unknown): unknown {
      const v = super.get(k, notSet);
      return typeof v === 'string' ? v.toUpperCase() : v;
    }
  }
  class Doubled extends (Record({ n: 1, m: 2 }) as Getting) {
    get n(): number {
      return 2 * (this.get('n') as number);
    }
  }
  const out: unknown[] = [];
  const point = (p: any) => out.push([p.x, p.y, p.label, p.get('size'), p.size, p.toll, p.get('x'), p.get('nope', 'absent')]);
  const p = Point({ x: 3, label: undefined });
  point(p);
  point(p.set('y', 7).set('x', 0));
  point(p.remove('x'));
  point(p.clear());
  point(p.merge({ label: 'q', y: -1 }));
  point(Point().withMutations((m: any) => m.set('x', 9).set('y', 8)));
  const mutable = Point().asMutable();
  mutable.x = 5;
  point(mutable);
  mutable.set('x', 6);
  point(mutable);
  point(mutable.asImmutable());
  const wide = Wide({ f0: 100, f33: 133, f39: 139 });
  out.push(wideKeys.map((k) => (wide as any)[k]), wide.set('f35', -1).f35, wide.remove('f33').f33);
  out.push(Empty().toJS());
  const shouting = new Shouting({ times: 2 });
  out.push((shouting as any).word, (shouting as any).times, (shouting.set('word', 'yo') as any).word);
  const doubled = new Doubled({ n: 5 });
  out.push(doubled.n, (doubled as any).m, (doubled.set('m', 7) as any).m);
  // Made every way a record can be: a plain object (fields left out, set to undefined, to their default,
  // keys that are no field), nothing, `new`, a Map, a record, a subclass; and what the result is.
  const made = [
    Point({ x: 1, nope: 2, y: undefined, label: 'p' } as object),
    Point(),
    new Point({ toll: 'paid' }),
    Point(IMap({ x: 4 })),
    Point(Point({ y: 5 })),
    Point([['x', 6]] as unknown as object),
    Point(Object.assign(Object.create({ x: 7 }), { y: 8 })),
    new Shouting({ word: 'made' }),
  ];
  for (const r of made) {
    point(r);
    out.push(r.toJS(), String(r), r instanceof Point, Object.getPrototypeOf(r) === Point.prototype, r.constructor.name, Record.getDescriptiveName(r));
  }
  out.push(is(made[0], Point({ x: 1 })), is(made[1], Point({ x: 0, label: 'p' })), made[0].equals(made[1].set('x', 1)));
  return out;
}

test('Record classes read their fields by index and give what Immutable.js gives: defaults, fields not set, cleared, merged, being mutated, past 32 fields, subclasses overriding get or a field, a field named as the API', async () => {
  const pristine = await pristineRecord();
  assert.equal((pristine as unknown as { [READS_BY_INDEX]?: true })[READS_BY_INDEX], undefined, 'the reference is untouched Immutable.js');
  const expected = readings(pristine);
  assert.deepEqual(readings(KmcRecord as unknown as AnyRecordFactory), expected);
  accelerateRecords();
  assert.deepEqual(readings(KmcRecord as unknown as AnyRecordFactory), expected);
  // The readings above went through getters of the class's own.
  const Point = KmcRecord({ x: 0, y: 1 });
  assert.equal((Point.prototype as unknown as { [READS_BY_INDEX]?: true })[READS_BY_INDEX], true);
  assert.equal(Object.getOwnPropertyDescriptor(Point.prototype, 'y')!.get!.toString().includes('t.array[1]'), true);
});

test("a spec importing Record from 'immutable' makes classes that read by index, and a record's fingerprint is what its values make", async () => {
  const { Record: SpecRecord } = await import('immutable');
  assert.equal(SpecRecord, KmcRecord);
  const Msg = SpecRecord<{ type: string; rm: string | null }>({ type: 'Commit', rm: null });
  assert.equal((Msg.prototype as unknown as { [READS_BY_INDEX]?: true })[READS_BY_INDEX], true);
  const fp = new Fingerprinter();
  const lanes = (v: unknown): [number, number] => (fp.of(v), [fp.hi, fp.lo]);
  // Equal records, whatever way they were made (a default set explicitly is stored as not set), fingerprint alike.
  const built = Msg({ type: 'Prepared', rm: 'r1' });
  const edited = Msg().set('rm', 'r1').set('type', 'Prepared');
  assert.equal(is(built, edited), true, 'a record built from an object equals one edited to the same values');
  assert.deepEqual(lanes(built), lanes(edited));
  assert.deepEqual(lanes(Msg({ type: 'Commit', rm: null })), lanes(Msg()));
  // The values read by index are those `get` gives: a subclass whose `get` is its own is read through it.
  class ThroughGet extends Msg {
    override get(k: 'type' | 'rm', notSet?: unknown): any {
      return super.get(k, notSet as never);
    }
  }
  for (const type of ['Commit', 'Prepared', 'Abort']) {
    for (const rm of [null, 'r1', 'r2']) {
      assert.deepEqual(lanes(Msg({ type, rm })), lanes(new ThroughGet({ type, rm })), `${type} ${rm}`);
      if (rm !== 'r1') assert.notDeepEqual(lanes(Msg({ type, rm: 'r1' })), lanes(Msg({ type, rm })));
    }
  }
  // A field named like an index (first among an object's keys), records with no value set, some set, all set.
  const Odd = SpecRecord<{ b: number; '2': string; a: string | null }>({ b: 1, '2': 'two', a: null });
  class OddThroughGet extends Odd {
    override get(k: 'b' | '2' | 'a', notSet?: unknown): any {
      return super.get(k, notSet as never);
    }
  }
  for (const values of [{}, { b: 5 }, { '2': 'deux' }, { a: 'x', b: 7 }, { b: 1, '2': 'two', a: null }]) {
    assert.deepEqual(lanes(Odd(values)), lanes(new OddThroughGet(values)), JSON.stringify(values));
  }
  assert.notDeepEqual(lanes(Odd({ b: 5 })), lanes(Odd({ '2': 'deux' })));
});

test('a List of a record\'s values is made as Immutable.js makes one: same fields in the same order, equal, edited alike; 32 values and more, and another shape of List, are left to Immutable.js', () => {
  const make = smallLists(List as unknown as (values: unknown[]) => unknown);
  assert.notEqual(make, List, 'Immutable.js 5 Lists are made directly');
  for (const n of [1, 2, 7, 31]) {
    const values = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? undefined : `v${i}`));
    const ours = make(values.slice()) as ReturnType<typeof List<unknown>>;
    const theirs = List(values);
    assert.deepEqual(Object.keys(ours), Object.keys(theirs), `n=${n}`);
    assert.equal(Object.getPrototypeOf(ours), Object.getPrototypeOf(theirs));
    assert.equal(is(ours, theirs), true);
    assert.equal(ours.hashCode(), theirs.hashCode());
    assert.deepEqual(ours.toArray(), values);
    assert.deepEqual(ours.set(0, 'x').push('y').toArray(), theirs.set(0, 'x').push('y').toArray());
    assert.deepEqual(ours.withMutations((l) => l.set(n - 1, 'z')).toArray(), theirs.set(n - 1, 'z').toArray());
  }
  // Past one leaf node, and nothing, the List is Immutable.js's own.
  const wide = Array.from({ length: 40 }, (_, i) => i);
  assert.equal(is(make(wide.slice(0, 32)), List(wide.slice(0, 32))), true);
  assert.equal(is(make(wide), List(wide)), true);
  assert.equal(is(make([]), List()), true);
  // A List that does not look like Immutable.js 5's: every List goes through the constructor given.
  const odd = (values: unknown[]) => ({ values });
  assert.equal(smallLists(odd), odd);
});

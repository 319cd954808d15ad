import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { List, Map as IMap, Record, Set as ISet, is } from '../../spec/immutable.ts';
import { accelerateRecords, recordsHashedByFields } from './recordAcceleration.ts';

/** The answers of Immutable.js's own Record code, read before the acceleration is installed. */
const Point = Record({ x: 0, y: 0, label: 'p' as string | undefined, toll: List<number>() }, 'Point');
const wideKeys = Array.from({ length: 40 }, (_, i) => `f${i}`);
const Wide = Record(Object.fromEntries(wideKeys.map((k, i) => [k, i])) as { [field: string]: number }, 'Wide');
const probes = ['x', 'y', 'label', 'toll', 'z', 'toString', 'constructor', 'hasOwnProperty', '__proto__', '_indices', 'size'];

function answers(): unknown[] {
  const p = Point({ x: 3, label: undefined });
  const q = p.set('y', 7).set('x', 0);
  const mutated = Point().withMutations((m) => m.set('x', 9).set('y', 8));
  const wide = Wide({ f0: 100, f33: 133, f39: 139 });
  const out: unknown[] = [];
  for (const r of [p, q, mutated, Point()]) {
    for (const k of probes) out.push([k, (r as unknown as { get(k: string, d: unknown): unknown }).get(k, 'absent'), r.has(k)]);
    out.push(r.x, r.y, r.label, r.toll.size);
  }
  for (const k of [...wideKeys, 'f40', 'toString']) out.push([k, (wide as unknown as { get(k: string, d: unknown): unknown }).get(k, 'absent'), wide.has(k)]);
  out.push(wide.get('f33'), wide.get('f1'));
  out.push(is(p, Point({ x: 3, label: undefined })), is(p, q), p.equals(q), IMap({ a: p }).get('a') === p);
  return out;
}

/** Message records with fields of every kind a spec puts there, and records of other classes beside them. */
const Msg = Record({ type: 'Commit' as unknown, ins: null as unknown, bal: null as unknown, acc: null as unknown }, 'Msg');
const SameFields = Record({ type: 'Commit' as unknown, ins: null as unknown, bal: null as unknown, acc: null as unknown }, 'SameFields');
const Reordered = Record({ ins: null as unknown, type: 'Commit' as unknown, bal: null as unknown, acc: null as unknown }, 'Reordered');
const OtherFields = Record({ type: 'Commit' as unknown, ins: null as unknown, bal: null as unknown, from: null as unknown }, 'OtherFields');
const Fewer = Record({ type: 'Commit' as unknown, ins: null as unknown, bal: null as unknown }, 'Fewer');
/** As many fields as Msg, one of them named otherwise and unset (it reads undefined, as a field Msg lacks). */
const Loose = Record({ type: 'Commit' as unknown, ins: null as unknown, bal: null as unknown, extra: undefined as unknown }, 'Loose');
// Objects that are not Immutable values: no fingerprint, so two records holding them are compared field by field.
const plainObjects = [{ broker: 1 }, { broker: 1 }];
const field: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...plainObjects),
  fc.constantFrom('Commit', 'Prepared', 'r1', 'a2', 'a field value longer than sixteen characters', '', null, undefined, true, 0, -0, NaN, 1.5),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }).map((xs) => List(xs)),
  fc.array(fc.constantFrom('r1', 'r2', 'r3'), { maxLength: 3 }).map((xs) => ISet(xs)),
  fc.constantFrom('r1', 'r2').map((k) => IMap({ [k]: Msg({ type: k }) })),
  fc.integer({ min: 0, max: 2 }).map((bal) => Msg({ type: 'Prepared', bal })),
);
const fields = fc.record({ type: field, ins: field, bal: field, acc: field });
// Pairs of any two records, of equal ones, and of ones that differ in one field at most.
const pairs = fc.oneof(
  fc.tuple(fields, fields),
  fields.map((a) => [a, { ...a }] as const),
  fc.tuple(fields, field).map(([a, acc]) => [a, { ...a, acc }] as const),
);
const given = fc.sample(pairs, { seed: 7, numRuns: 600 });

/** Per sample: the hashes of both records, and how each compares with the other, with its copy, and with records of other classes. */
function recordAnswers(): unknown[] {
  return given.map(([a, b]) => {
    const r = Msg(a!);
    const s = Msg(b!);
    const copy = Msg(a!);
    // One field changed, and the same field set back: equal, though built by edits.
    const edited = r.set('bal', 'changed').set('bal', r.get('bal'));
    return [r.hashCode(), s.hashCode(), edited.hashCode(), r.equals(s), s.equals(r), is(r, copy), r.equals(edited), edited.equals(r), r.equals(SameFields(a!)), r.equals(Reordered(a!)), Reordered(b!).equals(s), r.equals(OtherFields({ ...a, from: a!.acc })), r.equals(Fewer(a!)), Fewer(a!).equals(r), Loose(a!).equals(r), r.equals(Loose(a!)), r.equals(IMap(a!)), ISet([r, s]).has(copy), IMap([[r, 1]]).get(edited)];
  });
}
const recordsBefore = recordAnswers();

test('Record reads answered from the values List directly give what Immutable.js gives: fields, defaults, names that are not fields, more than 32 fields, records being mutated', () => {
  const before = answers();
  accelerateRecords();
  const after = answers();
  assert.deepEqual(after, before);
  // The readings above are the accelerated ones: a field set to undefined reads as its default, as Immutable's do.
  assert.equal(Point({ label: undefined }).label, 'p');
  assert.equal((Point() as unknown as { get(k: string, d: unknown): unknown }).get('toString', 'absent'), 'absent');
  assert.equal(Wide({ f35: 1 }).get('f35'), 1);
});

test("Records compared and hashed field by field give Immutable.js's answers: equal or not, hashes, as set members and map keys, beside records of other classes", () => {
  accelerateRecords();
  assert.equal(recordsHashedByFields(), true, "a Record's hash is Immutable.js's own, computed without its Seq of entries");
  const after = recordAnswers();
  assert.deepEqual(after, recordsBefore);
  // The samples hold equal records and unequal ones, both ways.
  const flags = after.map((a) => (a as unknown[])[3]);
  assert.ok(flags.includes(true) && flags.includes(false), 'the samples hold equal and unequal pairs');
});

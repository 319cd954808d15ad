import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List, Map as IMap, Record, is } from '../../spec/immutable.ts';
import { accelerateRecords } from './recordAcceleration.ts';

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

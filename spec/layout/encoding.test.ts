import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { is } from 'immutable';
import { layoutAndValues, expectedImmutable, reversed } from './arbitraries.ts';
import { View } from './views.ts';
import type { LType } from './types.ts';

const sample = layoutAndValues(3).chain((g) => fc.tuple(fc.constant(g.type), g.value));

function bytesOf(t: LType, v: unknown): Uint8Array {
  const b = new Uint8Array(t.width);
  t.write(b, 0, v);
  return b;
}

test('encode then decode gives the value back (random layouts and values)', () => {
  fc.assert(
    fc.property(sample, ([t, v]) => {
      const b = bytesOf(t, v);
      assert.ok(is(t.toImmutable(b, 0), expectedImmutable(t, v)), `${t.describe()}: ${String(t.toImmutable(b, 0))}`);
      // Plain JS and Immutable forms encode back to the same bytes.
      assert.deepEqual(bytesOf(t, t.toJS(b, 0)), b);
      assert.deepEqual(bytesOf(t, t.toImmutable(b, 0)), b);
      const read = t.read(b, 0, null, '');
      if (read instanceof View && read._t === t) {
        assert.deepEqual(bytesOf(t, read), b, 'a view of the same layout copies its bytes');
        assert.deepEqual(read.bytes, b);
      }
    }),
    { numRuns: 400 },
  );
});

test('equal states give equal bytes whatever order their sets, bags and maps were built in', () => {
  fc.assert(
    fc.property(sample, ([t, v]) => {
      assert.deepEqual(bytesOf(t, reversed(t, v)), bytesOf(t, v));
    }),
    { numRuns: 400 },
  );
});

test('a write leaves no trace of what was there before: unused slots and padding are zero', () => {
  fc.assert(
    fc.property(
      layoutAndValues(3).chain((g) => fc.tuple(fc.constant(g.type), g.value, g.value)),
      ([t, v, w]) => {
        const b = bytesOf(t, v);
        t.write(b, 0, w);
        assert.deepEqual(b, bytesOf(t, w));
      },
    ),
    { numRuns: 300 },
  );
});

test('views: equal values are Immutable.is-equal with equal hash codes; different values differ', () => {
  fc.assert(
    fc.property(
      layoutAndValues(3).chain((g) => fc.tuple(fc.constant(g.type), g.value, g.value)),
      ([t, v, w]) => {
        const a = t.from(v);
        const b = t.from(reversed(t, v));
        const c = t.from(w);
        assert.ok(is(a, b), `built in reverse, ${String(b)} is not ${String(a)}`);
        if (a instanceof View && b instanceof View) assert.equal(a.hashCode(), (b as View).hashCode());
        const same = Buffer.compare(bytesOf(t, v), bytesOf(t, w)) === 0;
        assert.equal(is(a, c), same);
      },
    ),
    { numRuns: 300 },
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EnumType, IdsType, RecordType } from './types.ts';

/** What a lookup must give: the position of a value listed, -1 for anything else (as a Map of the values would). */
function expected(values: readonly (string | number)[], x: unknown): number {
  return new Map(values.map((v, i) => [v, i] as const)).get(x as string | number) ?? -1;
}

test('enum and id lookups find every value and nothing else, whatever the values look like', () => {
  const domains: (string | number)[][] = [
    ['working', 'prepared', 'committed', 'aborted'], // distinct first characters
    ['r1', 'r2', 'r3', 'r10'], // distinct last characters
    ['r1', 'r11', 'x1'], // neither
    ['é', 'e'], // a character past ASCII
    [0, 1, 2, 3],
    [-2, -1, 0, 1], // consecutive, from a negative
    [1, 3, 7], // not consecutive
    ['a', 1], // mixed
  ];
  const probes: unknown[] = ['', 'w', 'working ', 'r', 'r0', 'r12', 'x', 'é', 'E', 0, -0, 1, 4, -3, 0.5, NaN, Infinity, '1', null, undefined, true, {}];
  for (const values of domains) {
    const t = new EnumType(values);
    const built = values.map((v) => (typeof v === 'string' ? [...v].join('') : v)); // equal strings made anew
    for (const x of [...values, ...built, ...probes]) assert.equal(t.code(x), expected(values, x), `code(${String(x)}) in ${values.join(',')}`);
  }
  // Keys of plain objects are strings: a numeric id is also found by its text.
  const ids = new IdsType('n', [1, 2, 3]);
  assert.deepEqual(['1', '3', '4', '', 'x', 2].map((k) => ids.keyIndex(k)), [0, 2, -1, -1, -1, 1]);
  assert.equal(new IdsType('n', [5, 6]).keyIndex('6'), 1);
});

test('a record finds its fields by name, the same field again or another, and nothing else', () => {
  const t = new RecordType('R', { a: new EnumType(['x', 'y']), b: new EnumType([1, 2]) });
  const names = ['a', 'a', 'b', 'toString', 'b', 'a', '', 'c', 'a'];
  assert.deepEqual(
    names.map((n) => t.field(n)?.name),
    ['a', 'a', 'b', undefined, 'b', 'a', undefined, undefined, 'a'],
  );
  assert.equal(t.field(['a'].join('')), t.field('a'), 'a name made anew finds the same field');
});

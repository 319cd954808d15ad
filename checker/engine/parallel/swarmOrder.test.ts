import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SwarmOrder } from './swarmOrder.ts';
import type { WalkOutcome } from './swarmProtocol.ts';

const stats = (runs: number, runStarts?: number[]) => ({ seed: 1, runs, steps: 100, distinct: 50, seconds: 1, ...(runStarts ? { runStarts } : {}) });

test('a finding bounds the walks before it to its run, the walks after it to the run before, and only a finding that comes first lowers them', () => {
  const order = new SwarmOrder([100, 100, 100]);
  assert.equal(order.found(1, 9), true);
  assert.deepEqual([...order.runsBefore], [10, 10, 9]);
  // Later in the order (run 9, walk 2 comes after run 9, walk 1): nothing changes.
  assert.equal(order.found(2, 9), false);
  assert.deepEqual([...order.runsBefore], [10, 10, 9]);
  assert.equal(order.found(0, 9), true);
  assert.deepEqual([...order.runsBefore], [10, 9, 9]);
  assert.equal(order.before(0, 1), true);
  assert.equal(order.before(2, 1), false);
});

test("the winner is the first finding among the walks done, and every other walk is reported as it stood at its bound", () => {
  const order = new SwarmOrder([100, 100]);
  const found: WalkOutcome = { status: 'error', message: 'threw', stats: stats(4) };
  // Walk 1 ran its runs 0..5 before it heard of walk 0's finding in run 3: cut back to runs 0..2.
  const ran: WalkOutcome = { status: 'holds', stats: stats(6, [0, 1, 10, 8, 20, 15, 30, 22, 40, 29, 50, 35]) };
  const winner = order.winner([found, ran]);
  assert.equal(winner, 0);
  assert.deepEqual(order.reported(1, ran, winner), { status: 'incomplete', reason: 'interrupted', stats: { seed: 1, runs: 3, steps: 30, distinct: 22, seconds: 1 } });
  assert.deepEqual(order.reported(0, found, winner), found);
});

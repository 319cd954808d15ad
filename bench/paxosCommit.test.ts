import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from '../checker/engine/check.ts';
import paxosCommit from './paxosCommit.ts';

// The bench runs a prefix of this model: its counts are pinned here where the whole search is short.
test('Paxos Commit over Immutable.js with one resource manager: its counts, and TCConsistent holds', async () => {
  const label = { spec: 'paxos-commit', params: { rm: 1, acceptors: 3, ballots: 2 } };
  const result = await checkModel(paxosCommit.build({ rm: 1, acceptors: 3, ballots: 2 }), {}, label);
  assert.equal(result.status, 'holds');
  assert.deepEqual([result.stats.distinct, result.stats.generated, result.stats.depth], [1461, 8844, 15]);
});

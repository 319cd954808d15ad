import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../../checker/run/loadSpec.ts';
import { readItf } from '../itf/readFile.ts';
import { replayTrace } from '../../checker/engine/replay.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.itf.json'));

test('every known bug is kept as a regression trace', () => {
  for (const known of ['kraft-kraft-16281', 'kraft-kraft-stuck-prospective', 'replication-lrs-pre-elr', 'replication-acks-quorum-ghost', 'replication-empty-disk-13872']) {
    assert.ok(files.includes(`${known}.itf.json`), known);
  }
});

for (const file of files) {
  test(`${file} still reproduces its violation`, async () => {
    const trace = readItf(`${dir}${file}`);
    const meta = trace['#meta'];
    const { definition } = await loadSpec(meta.spec);
    const outcome = replayTrace(definition.build(meta.params), trace);
    // A lasso (liveness) also says where its loop starts; replay has checked that the loop closes and is fair.
    const loop = trace.loop !== undefined ? { loop: trace.loop } : {};
    assert.deepEqual(outcome, { kind: 'reproduced', step: trace.states.length - 1, property: meta.verdict!.property, recorded: meta.verdict!.property, ...loop });
  });
}

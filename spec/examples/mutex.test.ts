import { test } from 'node:test';
import assert from 'node:assert/strict';
import mutex from './mutex.ts';
import mutexPacked from './mutexPacked.ts';
import { checkModel } from '../../checker/engine/check.ts';
import { toItf } from '../../traces/itf/write.ts';

for (const preset of mutex.presets) {
  test(`the README's mutex with and without a layout: same verdict, counts and trace (${preset.name})`, async () => {
    const packedPreset = mutexPacked.presets.find((p) => p.name === preset.name)!;
    assert.deepEqual(packedPreset.params, preset.params);
    for (const symmetry of [false, true]) {
      const label = { spec: 'mutex', preset: preset.name, params: preset.params as Record<string, boolean> };
      const a = await checkModel(mutex.build({ atomic: false, ...preset.params }), { symmetry }, label);
      const b = await checkModel(mutexPacked.build({ atomic: false, ...preset.params }), { symmetry }, label);
      const verdict = (r: { status: string; property?: string }) => (r.status === 'violation' ? `violates ${r.property!}` : r.status);
      assert.equal(verdict(b), verdict(a));
      assert.equal(verdict(a), preset.expect.verdict === 'holds' ? 'holds' : `violates ${preset.expect.property}`);
      assert.deepEqual([b.stats.distinct, b.stats.generated, b.stats.depth], [a.stats.distinct, a.stats.generated, a.stats.depth]);
      if (a.status === 'violation' && b.status === 'violation') assert.equal(JSON.stringify(toItf(b.trace!)), JSON.stringify(toItf(a.trace!)));
    }
  });
}

test('the racy mutex: 4 steps to both processes in the critical section, 9 states reached', async () => {
  const r = await checkModel(mutexPacked.build({ atomic: false }), {}, { spec: 'mutex', params: {} });
  assert.equal(r.status, 'violation');
  assert.deepEqual(
    r.status === 'violation' && r.trace!.steps.map((s) => s.action),
    ['Init', 'Check', 'Check', 'Take', 'Take'],
  );
  assert.equal(r.stats.distinct, 9);
});

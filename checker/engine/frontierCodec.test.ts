import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { decodeState, encodeAligned, encodeState, maxEncodedWidth } from './frontierCodec.ts';
import { ByteFrontier } from './frontier.ts';
import { siblingStates } from './testSupport.ts';
import type { PackedLayout } from './state/packed.ts';
import { checkModel } from './check.ts';
import kraft from '../../spec/kraft/kraft.ts';
import type { ParamValues } from '../../spec/spec.ts';

/** A state and the one stored before it: random bytes, or the same bytes with a few changed (as BFS siblings are). */
const pairs = fc.integer({ min: 1, max: 700 }).chain((w) =>
  fc.tuple(
    fc.uint8Array({ minLength: w, maxLength: w }),
    fc.oneof(
      fc.uint8Array({ minLength: w, maxLength: w }).map((b) => ({ fresh: b, edits: [] as [number, number][] })),
      fc.array(fc.tuple(fc.integer({ min: 0, max: w - 1 }), fc.integer({ min: 0, max: 255 })), { maxLength: 40 }).map((edits) => ({ fresh: null, edits })),
    ),
  ),
);

test('a state encoded against the one before it decodes to its exact bytes, within the bound on its size, in both encoders', () => {
  fc.assert(
    fc.property(pairs, ([prev, next]) => {
      const w = prev.length;
      const cur = next.fresh ?? Uint8Array.from(prev);
      for (const [i, v] of next.edits) cur[i] = v;
      // Offsets inside larger buffers, so the code honours them.
      const prevAt = new Uint8Array(w + 3);
      prevAt.set(prev, 3);
      const curAt = new Uint8Array(w + 5);
      curAt.set(cur, 5);
      const code = new Uint8Array(maxEncodedWidth(w) + 7);
      const n = encodeState(prevAt, 3, curAt, 5, w, code, 7);
      assert.ok(n >= 1 && n <= maxEncodedWidth(w), `${n} bytes for a state of ${w}`);
      const into = new Uint8Array(w + 2);
      into.set(prev, 2);
      assert.equal(decodeState(code, 7, into, 2, w), 7 + n, 'the decoder stops where the state ends');
      assert.deepEqual(into.subarray(2), cur);
      // An unchanged state is one byte.
      if (next.fresh === null && next.edits.length === 0) assert.equal(n, 1);
      // Encoding updates `prev` to the state; the word-at-a-time form writes the same code.
      assert.deepEqual(prevAt.subarray(3), cur);
      const padded = (w + 3) & ~3;
      const p = new Uint8Array(padded);
      p.set(prev);
      const c = new Uint8Array(padded);
      c.set(cur);
      const aligned = new Uint8Array(maxEncodedWidth(w));
      const m = encodeAligned(p, new Uint32Array(p.buffer), c, new Uint32Array(c.buffer), w, aligned, 0);
      assert.deepEqual(aligned.subarray(0, m), code.subarray(7, 7 + n));
      assert.deepEqual(p.subarray(0, w), cur);
    }),
    { numRuns: 500 },
  );
});

/** A layout of `w` raw bytes: the frontier needs only the width and a view over bytes. */
function rawLayout(w: number): PackedLayout {
  return {
    width: w,
    wrap: (b) => ({ _b: b, _o: 0 }),
    wrapAt: (b, o) => ({ _b: b, _o: o }),
  };
}

function readAll(f: ByteFrontier<{ _b: Uint8Array; _o: number }>, w: number): { states: Uint8Array[]; ids: number[] } {
  const states: Uint8Array[] = [];
  const ids: number[] = [];
  while (f.remaining > 0) {
    const v = f.peekState();
    states.push(v._b.slice(v._o, v._o + w));
    ids.push(f.peekId());
    f.shift();
  }
  return { states, ids };
}

test('a frontier gives back every state and id in order, from memory and after spilling to disk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-frontier-test-'));
  try {
    // (509 bytes in chunks of a megabyte: a chunk is read in several blocks, decoded one after another.)
    for (const [w, count, chunkBytes] of [[1, 300, 16], [37, 1000, 400], [509, 200, 4096], [509, 700, 1 << 20], [64, 1, 64]] as const) {
      const states = siblingStates(w * 7 + count, count, w);
      const ids = states.map((_, i) => 1000 + 3 * i);
      for (const spill of [false, true]) {
        const f = new ByteFrontier<{ _b: Uint8Array; _o: number }>(rawLayout(w), dir, chunkBytes);
        // Half pushed as bytes, half as views at an offset in a larger buffer.
        states.forEach((s, i) => {
          if (i % 2 === 0) f.push(null as never, s, ids[i]!);
          else {
            const b = new Uint8Array(w + 9);
            b.set(s, 9);
            f.push({ _b: b, _o: 9 }, null, ids[i]!);
          }
        });
        assert.equal(f.length, count);
        let freed = 0;
        if (spill) {
          freed = f.spillToDisk();
          if (count * w > 3 * chunkBytes) assert.ok(freed > 0 && f.spilledChunks > 0, `width ${w}: chunks went to disk`);
        }
        const whole = f.contiguous(Math.floor(count / 3));
        assert.deepEqual(Array.from(whole.ids), ids.slice(Math.floor(count / 3)));
        assert.deepEqual(whole.bytes.subarray(0, (count - Math.floor(count / 3)) * w), concat(states.slice(Math.floor(count / 3))));
        // A word apart (the worker threads' levels): each state at its place, zeros between them.
        const stride = (w + 3) & ~3;
        const apart = f.contiguous(Math.floor(count / 3), stride);
        assert.deepEqual(apart.ids, whole.ids);
        const padded = new Uint8Array((count - Math.floor(count / 3)) * stride);
        states.slice(Math.floor(count / 3)).forEach((s, i) => padded.set(s, i * stride));
        assert.deepEqual(apart.bytes.subarray(0, padded.length), padded, `width ${w} a word apart${spill ? ', spilled' : ''}`);
        const read = readAll(f, w);
        assert.deepEqual(read.ids, ids);
        assert.deepEqual(read.states, states, `width ${w}${spill ? ', spilled' : ''}`);
        f.reset();
        assert.equal(f.bytes, 0);
      }
    }
    assert.deepEqual(readdirSync(dir), [], 'spill files are removed on reset');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a frontier read here and there gives each state asked for (a block decoded from the start of its chunk)', () => {
  const w = 509;
  const states = siblingStates(11, 700, w);
  const f = new ByteFrontier<{ _b: Uint8Array; _o: number }>(rawLayout(w), undefined, 1 << 20);
  states.forEach((s, i) => f.push(null as never, s, i));
  // Some states are passed over unread: one block is skipped whole, others are entered in the middle.
  const asked = [0, 1, 127, 128, 129, 300, 301, 555, 699];
  for (let i = 0; i < states.length; i++) {
    if (asked.includes(i)) {
      const v = f.peekState();
      assert.deepEqual(v._b.slice(v._o, v._o + w), states[i], `state ${i}`);
      assert.equal(f.peekId(), i);
    }
    f.shift();
  }
  assert.equal(f.remaining, 0);
});

test('a level of KRaft states in BFS order takes less than a sixth of its raw bytes', () => {
  const model = kraft.build(paramsOf('kraft-fixed-leaderid'));
  const layout = model.layout!;
  // Level by level to the widest one, pushed in BFS order.
  const seen = new Set<string>();
  let level = [...model.init()];
  const key = (s: { bytes: Uint8Array }) => Buffer.from(s.bytes).toString('latin1');
  for (const s of level) seen.add(key(s as never));
  for (let d = 0; d < 8; d++) {
    const next: unknown[] = [];
    for (const s of level) for (const a of model.actions) for (const p of a.params ? a.params(s as never) : [{}]) {
      if (a.enabled && !a.enabled(s as never, p as never)) continue;
      const t = a.next(s as never, p as never);
      if (seen.has(key(t as never))) continue;
      seen.add(key(t as never));
      next.push(t);
    }
    level = next as never;
  }
  const w = layout.width;
  let prev: Uint8Array = new Uint8Array(w);
  const code = new Uint8Array(maxEncodedWidth(w));
  let encoded = 0;
  for (const s of level) {
    const b = (s as unknown as { bytes: Uint8Array }).bytes;
    encoded += encodeState(prev, 0, b, 0, w, code, 0);
    prev = b;
  }
  const raw = level.length * w;
  assert.ok(level.length > 1000, `${level.length} states`);
  assert.ok(encoded < raw / 6, `${encoded} bytes for ${raw} raw`);
});

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
}

function paramsOf(preset: string): ParamValues {
  const p = kraft.presets.find((x) => x.name === preset)!;
  return { ...Object.fromEntries(kraft.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
}

/**
 * A search through frontiers cut into chunks of a few states, in memory and spilled to disk, is checked in
 * the fast tier on specs with a layout by layoutSemantics.property.test.ts (levels in chunks of one to five
 * states: the counts and counterexample of a plain search) and spill.test.ts (TwoPhase's frontier in 8 KiB
 * chunks spilled to disk: the counts and coverage of the search in memory), and KRaft's states through the
 * codec by the test above. This one repeats those searches on KRaft, three of them: the slow tier.
 */
test('KRaft through frontiers of a few states a chunk, in memory and spilling, has the exact counts of kraft-fixed-leaderid (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW }, async () => {
  const params = paramsOf('kraft-fixed-leaderid');
  const label = { spec: 'kraft', preset: 'kraft-fixed-leaderid', params };
  const dir = mkdtempSync(join(tmpdir(), 'kmc-frontier-test-'));
  try {
    const whole = await checkModel(kraft.build(params), { deadlock: false }, label);
    const small = await checkModel(kraft.build(params), { deadlock: false, frontierChunkBytes: 2048 }, label);
    const spilled = await checkModel(kraft.build(params), { deadlock: false, frontierChunkBytes: 2048, frontierMemoryBytes: 16 * 1024, spillDirectory: dir }, label);
    for (const r of [whole, small, spilled]) {
      assert.equal(r.status, 'holds');
      assert.equal(r.stats.distinct, 8474);
      assert.equal(r.stats.depth, 23);
      assert.equal(r.stats.generated, whole.stats.generated);
      assert.deepEqual(r.stats.coverage, whole.stats.coverage);
    }
    assert.ok(spilled.stats.spilledBytes > 0, 'the frontier went to disk');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

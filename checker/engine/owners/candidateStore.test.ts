import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CandidateStore } from './candidateStore.ts';

/** A state of width `w`: mostly zeros, as a Kafka model's are, with `fill` of its bytes set (1 for every byte). */
function stateOf(seed: number, w: number, fill: number): Uint8Array {
  let x = seed >>> 0 || 1;
  const rnd = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
  return Uint8Array.from({ length: w }, () => (rnd() < fill ? 1 + Math.floor(rnd() * 255) : 0));
}

function readBack(store: CandidateStore, place: number, w: number): Uint8Array {
  const b = store.read(place);
  const o = store.offsetOf(place);
  return b.slice(o, o + w);
}

test('a store of candidates gives back each state by place, through growth, replacement and clearing', () => {
  for (const w of [31, 127, 128, 509, 1031]) {
    const store = new CandidateStore(w, 4);
    const kept: Uint8Array[] = [];
    const fills = [0, 1, 0.05, 0.3, 0.9];
    for (let place = 0; place < 300; place++) {
      if (place === store.places) store.growTo(2 * store.places);
      const s = stateOf(place + w, w, fills[place % fills.length]!);
      // Given on a word (in place) and off one (copied first), in a buffer with room past the state or without.
      const at = place % 3 === 0 ? 4 : place % 3 === 1 ? 1 : 0;
      const holder = new Uint8Array(at + w + (place % 2 === 0 ? 4 : 0));
      holder.set(s, at);
      store.put(place, holder, at);
      kept.push(s);
    }
    // A candidate replaced (one with a lesser key for the same place) keeps the bytes given last.
    for (const place of [0, 17, 299]) {
      kept[place] = stateOf(1000 + place, w, 0.5);
      store.put(place, kept[place]!, 0);
    }
    for (let place = 299; place >= 0; place -= 7) assert.deepEqual(readBack(store, place, w), kept[place], `width ${w}, place ${place}`);
    kept.forEach((s, place) => assert.deepEqual(readBack(store, place, w), s, `width ${w}, place ${place}`));
    store.clear();
    const again = stateOf(7, w, 0.2);
    store.put(0, again, 0);
    assert.deepEqual(readBack(store, 0, w), again, `width ${w} after clear`);
  }
});

test('wide states that differ from one another in a few bytes, as the candidates of a level do, are kept in a fraction of their width', () => {
  const w = 509;
  const store = new CandidateStore(w, 1 << 12);
  const before = store.bytes;
  // A parent's successors change a field or two of it; the parents, states of one level, differ a little from one another.
  const kept: Uint8Array[] = [];
  const level = stateOf(1, w, 0.05);
  let parent = level;
  for (let place = 0; place < 4096; place++) {
    if (place % 4 === 0) parent = level.map((v, i) => (i === (place * 7) % w || i === (place * 13) % w ? 1 + (place % 255) : v));
    const s = parent.slice();
    for (let k = 0; k < 3; k++) s[(place * 31 + k * 101) % w] = (place + k) & 255;
    kept.push(s);
    store.put(place, s, 0);
  }
  assert.equal(store.bytes, before, 'no growth past the room for a sixth of the raw bytes');
  // Read back in another order than they came (as key order is), each decoded from its group's first state.
  for (let k = 0; k < 4096; k++) {
    const place = (k * 1237) % 4096;
    assert.deepEqual(readBack(store, place, w), kept[place], `place ${place}`);
  }
});

test('a candidate given its state again (a lesser key) takes no more room; given another state (a fingerprint collision, a symmetry class) it reads back as that one, the others unchanged', () => {
  const w = 509;
  const store = new CandidateStore(w, 1 << 12);
  const kept = Array.from({ length: 4096 }, (_, place) => stateOf(place, w, 0.05));
  kept.forEach((s, place) => store.put(place, s, 0));
  const room = store.bytes;
  // Lesser keys for the same states, between the others and out of their order, as from another owner's batch.
  for (let round = 0; round < 3; round++) for (let place = round; place < 4096; place += 5) store.put(place, kept[place]!, 0, true);
  assert.equal(store.bytes, room, 'no room taken by a state given again');
  kept[5] = kept[5]!.map((v) => (v === 0 ? 0 : 1 + (v % 200)));
  kept[6] = stateOf(99_999, w, 0.5);
  kept[4095] = kept[4095]!.map((v, i) => (i === w - 1 ? v ^ 1 : v)); // differs in the last byte only (past the last whole word)
  for (const place of [5, 6, 4095]) store.put(place, kept[place]!, 0, true);
  for (let k = 0; k < 4096; k++) {
    const place = (k * 2731) % 4096;
    assert.deepEqual(readBack(store, place, w), kept[place], `place ${place}`);
  }
  kept.forEach((s, place) => assert.deepEqual(readBack(store, place, w), s, `place ${place}, in order`));
});

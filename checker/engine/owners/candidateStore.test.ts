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

test('wide states mostly zeros are kept in a fraction of their width', () => {
  const w = 509;
  const store = new CandidateStore(w, 1 << 12);
  const before = store.bytes;
  for (let place = 0; place < 4096; place++) store.put(place, stateOf(place, w, 0.05), 0);
  // A byte in 20 set: about 0.19 of the words are not zero (24 of 128), plus a bitmap of 4 words.
  assert.equal(store.bytes, before, 'no growth past the room for a third of the raw bytes');
  assert.ok(store.bytes < (4096 * 512) / 2, `${store.bytes} bytes for 4096 states of ${w}`);
});

test('a candidate replaced by the same state takes no more room; one replaced by another state (a fingerprint collision) reads back as the new one', () => {
  const w = 509;
  const store = new CandidateStore(w, 1 << 12);
  const kept = Array.from({ length: 4096 }, (_, place) => stateOf(place, w, 0.05));
  kept.forEach((s, place) => store.put(place, s, 0));
  const room = store.bytes;
  // A lesser key for each state, three times over: its code is written over the old one.
  for (let round = 0; round < 3; round++) kept.forEach((s, place) => store.put(place, s, 0, true));
  assert.equal(store.bytes, room, 'no room taken by replacements of the same state');
  // Another state at a place: one with the same words set (code of the same length) and one with more.
  const sameShape = kept[5]!.map((v) => (v === 0 ? 0 : 1 + (v % 200)));
  const otherShape = stateOf(99_999, w, 0.5);
  store.put(5, sameShape, 0, true);
  store.put(6, otherShape, 0, true);
  kept[5] = sameShape;
  kept[6] = otherShape;
  kept.forEach((s, place) => assert.deepEqual(readBack(store, place, w), s, `place ${place}`));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CandidateBatch, readBatch } from './candidateBatch.ts';
import { siblingStates } from '../testSupport.ts';

interface Read {
  readonly header: number[];
  readonly bytes: Uint8Array;
}

function sendAndRead(w: number, states: readonly Uint8Array[], perBatch: number): { read: Read[]; wire: number } {
  const batch = new CandidateBatch(w);
  const read: Read[] = [];
  let wire = 0;
  let pushed = 0;
  const deliver = () => {
    const sent = batch.take();
    wire += sent.length;
    // Received at an odd offset in a bigger buffer (a message's payload): read from a copy on a word.
    const payload = new Uint8Array(sent.length + 1);
    payload.set(sent, 1);
    const n = readBatch(payload.subarray(1), w, (hi, lo, parentRank, index, step, parentHi, parentLo, bytes, at) => {
      read.push({ header: [hi, lo, parentRank, index, step, parentHi, parentLo], bytes: bytes.slice(at, at + w) });
    });
    assert.equal(n, pushed, `width ${w}: the states of the batch`);
    pushed = 0;
  };
  states.forEach((s, i) => {
    // A state given inside a larger buffer, at an offset off a word now and then.
    const holder = new Uint8Array(w + 8);
    const at = i % 3 === 0 ? 3 : 4;
    holder.set(s, at);
    batch.push(i + 1, 0xffffffff - i, i >> 2, i & 3, 7 * i, i, 2 * i, holder, at);
    pushed++;
    if ((i + 1) % perBatch === 0) deliver();
  });
  deliver();
  return { read, wire };
}

test('a batch of candidates gives back every header and state, raw or encoded, batch after batch', () => {
  for (const w of [1, 31, 127, 128, 509]) {
    const states = siblingStates(w, 300, w);
    const { read } = sendAndRead(w, states, 70);
    assert.equal(read.length, states.length, `width ${w}`);
    read.forEach((r, i) => {
      assert.deepEqual(r.header, [i + 1, 0xffffffff - i, i >> 2, i & 3, 7 * i, i, 2 * i], `width ${w}, state ${i}`);
      assert.deepEqual(r.bytes, states[i], `width ${w}, state ${i}`);
    });
  }
});

test('wide siblings travel as their differences: a few dozen bytes each, not their width', () => {
  const w = 509;
  const states = siblingStates(5, 1000, w);
  const { wire } = sendAndRead(w, states, 250);
  const raw = states.length * (28 + 512);
  assert.ok(wire < raw / 4, `${wire} bytes on the wire against ${raw} raw`);
  // Narrow states go raw: header and bytes to the next word.
  assert.equal(sendAndRead(31, siblingStates(5, 100, 31), 100).wire, 100 * (28 + 32));
});

test('a batch cut short is an error, not a state made up', () => {
  const batch = new CandidateBatch(509);
  for (const s of siblingStates(9, 3, 509)) batch.push(1, 2, 3, 4, 5, 6, 7, s, 0);
  const sent = batch.take();
  assert.throws(() => readBatch(sent.subarray(0, sent.length - 8), 509, () => {}), /overruns|ends inside/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { layoutAndValues } from './arbitraries.ts';
import { layout as L, LayoutSymmetry, permuteBytes } from './index.ts';
import type { IdsType, LType } from './types.ts';
import { checkModel } from '../../checker/engine/check.ts';
import { always } from '../../invariants/property.ts';
import type { Model } from '../spec.ts';

/** The id domains a random layout may use (arbitraries.ts shares these instances). */
function domainsOf(t: LType, out = new Set<IdsType>()): Set<IdsType> {
  if (t.kind === 'ids') out.add(t as IdsType);
  for (const c of t.children()) domainsOf(c, out);
  return out;
}

function bytesOf(t: LType, v: unknown): Uint8Array {
  const b = new Uint8Array(t.width);
  t.write(b, 0, v);
  return b;
}

const withPermutation = layoutAndValues(3)
  .filter((g) => domainsOf(g.type).size > 0)
  .chain((g) => {
    const domains = [...domainsOf(g.type)];
    return fc.tuple(fc.constant(g.type), g.value, fc.constantFrom(...domains)).chain(([t, v, d]) =>
      fc.tuple(fc.constant(t), fc.constant(v), fc.constant(d), fc.shuffledSubarray([...Array(d.count).keys()], { minLength: d.count, maxLength: d.count })),
    );
  });

test('a permutation followed by its inverse gives the bytes back, and every image is canonical', () => {
  fc.assert(
    fc.property(withPermutation, ([t, v, d, perm]) => {
      const bytes = bytesOf(t, v);
      const image = permuteBytes(t, bytes, d, perm);
      const inverse = perm.map((_, i) => perm.indexOf(i));
      assert.deepEqual(permuteBytes(t, image, d, inverse), bytes);
      // Re-encoding the image's value gives the image: sets and bags were re-sorted.
      assert.deepEqual(bytesOf(t, t.toJS(image, 0)), image);
    }),
    { numRuns: 300 },
  );
});

const Node = L.ids('node', ['n1', 'n2', 'n3']);
const Msg = L.record('Msg', { from: Node, to: Node, epoch: L.int(0, 3) });
const S = L.record('S', {
  votes: L.idSet(Node),
  epochs: L.map(Node, L.int(0, 3)),
  leader: L.option(Node),
  net: L.set(Msg, 4),
  epoch: L.int(0, 3),
});
const swap12 = [1, 0, 2]; // n1 ↔ n2

test('a permutation renames idSet bits, map slots and id fields, then re-sorts set elements', () => {
  const s = S.from({
    votes: ['n1', 'n3'],
    epochs: { n1: 1, n2: 2, n3: 3 },
    leader: 'n1',
    net: [
      { from: 'n1', to: 'n3', epoch: 1 },
      { from: 'n2', to: 'n1', epoch: 2 },
    ],
    epoch: 1,
  });
  const image = S.wrap(permuteBytes(S, s.bytes, Node, swap12));
  assert.deepEqual(image.toJS(), {
    votes: ['n2', 'n3'],
    epochs: { n1: 2, n2: 1, n3: 3 },
    leader: 'n2',
    net: [
      { from: 'n1', to: 'n2', epoch: 2 },
      { from: 'n2', to: 'n3', epoch: 1 },
    ],
    epoch: 1,
  });
  assert.ok(image.equals(S.from(image.toJS() as never)), 'the image is the canonical encoding of the renamed state');
});

test('numeric ids are renamed only where the layout declares the id domain, never in an epoch', () => {
  const Broker = L.ids('broker', [1, 2]);
  const T = L.record('T', { leader: Broker, epoch: L.int(0, 3), isr: L.idSet(Broker) });
  const t = T.from({ leader: 1, epoch: 2, isr: [2] });
  const image = T.wrap(permuteBytes(T, t.bytes, Broker, [1, 0]));
  assert.deepEqual(image.toJS(), { leader: 2, epoch: 2, isr: [1] });
});

test('LayoutSymmetry: one image per non-identity permutation; a symmetry set must lie within an id domain', () => {
  const sym = new LayoutSymmetry(S, [['n3', 'n1', 'n2']]);
  assert.equal(sym.size, 5);
  const s = S.from({ votes: ['n1'], epochs: { n1: 0, n2: 0, n3: 0 }, leader: null, net: [], epoch: 0 });
  const images: string[] = [];
  sym.forEachImage(s.bytes, 0, (b) => images.push(JSON.stringify(S.wrap(b).votes.toArray())));
  assert.deepEqual(images.sort(), ['["n1"]', '["n2"]', '["n2"]', '["n3"]', '["n3"]']);
  // Some ids of a domain: those are permuted, the others stay in place.
  const some = new LayoutSymmetry(S, [['n1', 'n2']]);
  assert.equal(some.size, 1);
  const moved: string[] = [];
  some.forEachImage(s.bytes, 0, (b) => moved.push(JSON.stringify(S.wrap(b).votes.toArray())));
  assert.deepEqual(moved, ['["n2"]']);
  assert.throws(() => new LayoutSymmetry(S, [['n1', 'n9']]), /symmetry set \[n1, n9\] is not within an id domain of the layout \(its L.ids domains: node \[n1, n2, n3\]\)/);
});

test('symmetry with numeric ids stays sound on a layout: an epoch equal to an id is not renamed', async () => {
  // Ids 1 and 2 and a counter; the invariant epoch < 3 is violated. Renaming values would map epoch 2
  // to 1 and merge states that differ; renaming layout positions cannot.
  const Id = L.ids('id', [1, 2]);
  const State = L.record('State', { epoch: L.int(0, 3), voted: L.idSet(Id) });
  type State = ReturnType<typeof State.from>;
  const model: Model<State> = {
    layout: State,
    init: () => [State.from({ epoch: 0, voted: [] })],
    actions: [
      { name: 'Bump', enabled: (s) => s.epoch < 3 && s.voted.size > 0, next: (s) => s.set('epoch', s.epoch + 1) },
      { name: 'Vote', params: () => [{ id: 1 }, { id: 2 }], enabled: (s, { id }) => !s.voted.has(id), next: (s, { id }) => s.set('voted', s.voted.add(id)) },
    ],
    properties: [always<State>('EpochBelow3', 'the epoch stays below 3', (s) => s.epoch < 3, { symmetric: true })],
    symmetry: [[1, 2]],
  };
  const label = { spec: 'ids', params: {} };
  const plain = await checkModel(model, {}, label);
  const reduced = await checkModel(model, { symmetry: true }, label);
  assert.equal(plain.status, 'violation');
  assert.equal(reduced.status, 'violation');
  assert.ok(reduced.stats.distinct < plain.stats.distinct, 'the two one-vote states are one class');
  assert.equal(reduced.status === 'violation' && reduced.trace!.steps.length, plain.status === 'violation' && plain.trace!.steps.length);
});

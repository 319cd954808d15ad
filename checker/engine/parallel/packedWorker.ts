/** A worker thread of the packed search: expands its chunks of each level (see packedProtocol.ts). */
import { parentPort } from 'node:worker_threads';
import { Expander, SpecError } from '../expander.ts';
import { importDefinition } from '../../cli/loadSpec.ts';
import { FingerprintSet, FingerprintSetView } from '../state/fingerprintSet.ts';
import { GrowableBytes, GrowableU32 } from '../state/growable.ts';
import { isPacked, layoutOf, type PackedLayout, type PackedState } from '../state/packed.ts';
import { ERROR_VERDICT, FLAG_ERROR, FLAG_NOT_EXPANDED, PARENT_HEADER, type FromPackedWorker, type PackedWorkerSetup, type ToPackedWorker } from './packedProtocol.ts';

export async function runPackedWorker(setup: PackedWorkerSetup): Promise<void> {
  const port = parentPort!;
  const send = (m: FromPackedWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  const definition = await importDefinition(setup.modulePath);
  const expander = new Expander(definition.build(setup.params), setup.symmetry);
  const first = expander.initialStates()[0];
  if (!isPacked(first)) throw new Error('the packed search needs a spec declared with a layout');
  const layout: PackedLayout = layoutOf(first);
  const actions = expander.actions.length;
  const enabledBefore = new Float64Array(actions);
  const firedBefore = new Float64Array(actions);

  // Reused for every chunk and level: a chunk's streams are copied out when sent, so nothing here is
  // allocated per chunk, and the visitor is one function for the whole run (not a closure per parent).
  const parents = new GrowableU32();
  const candidates = new GrowableU32();
  const bytes = new GrowableBytes();
  let errors: string[] = [];
  // Candidates this worker already sent in this level. Its chunks come in the coordinator's merge
  // order, so a later copy of one is a state the coordinator has by then: it would drop it anyway.
  // Skipping it here spares its properties, its bytes and its merge.
  const sent = new FingerprintSet(1 << 12);
  const w = layout.width;
  const witnesses = expander.witnesses;
  let seen: FingerprintSetView | null = null;
  let witnessesReached: Uint8Array = new Uint8Array(0);
  // Per parent being expanded: successors generated, candidates sent.
  let generated = 0;
  let count = 0;

  const visit = (t: unknown, action: number, _params: unknown, ordinal: number): void => {
    const index = generated++;
    expander.fingerprint(t);
    const hi = expander.hi;
    const lo = expander.lo;
    if (seen!.has(hi, lo)) return;
    if (!sent.add(hi, lo)) return;
    count++;
    candidates.push(hi);
    candidates.push(lo);
    candidates.push(action);
    candidates.push(ordinal);
    candidates.push(index);
    let verdict = 0;
    let witnessBits = 0;
    try {
      verdict = expander.firstViolation(t) + 1;
      for (let i = 0; i < witnesses.length && i < 32; i++) {
        if (witnessesReached[i] === 0 && expander.holdsWitness(t, i)) witnessBits |= 1 << i;
      }
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      verdict = ERROR_VERDICT;
      witnessBits = errors.length;
      errors.push(errorText(e));
    }
    candidates.push(verdict);
    candidates.push(witnessBits >>> 0);
    const v = t as PackedState;
    bytes.pushFrom(v._b, v._o, w);
  };

  function expandLevel(m: Extract<ToPackedWorker, { type: 'level' }>): void {
    const states = new Uint8Array(m.states);
    seen = new FingerprintSetView(m.seen);
    witnessesReached = m.witnessesReached;
    sent.clear();
    const chunks = Math.ceil(m.count / m.chunkSize);
    const nextChunk = new Int32Array(m.nextChunk);
    // Claimed in increasing order: this worker's chunks are merged in the order it expands them (see `sent`).
    for (let chunk = Atomics.add(nextChunk, 0, 1); chunk < chunks; chunk = Atomics.add(nextChunk, 0, 1)) {
      parents.clear();
      candidates.clear();
      bytes.clear();
      errors = [];
      const end = Math.min(m.count, (chunk + 1) * m.chunkSize);
      for (let pos = chunk * m.chunkSize; pos < end; pos++) {
        const s = layout.wrapAt(states, pos * w);
        const header = parents.length;
        for (let k = 0; k < PARENT_HEADER; k++) parents.push(0);
        enabledBefore.set(expander.enabledCount);
        firedBefore.set(expander.firedCount);
        generated = 0;
        count = 0;
        let flags = 0;
        try {
          if (!expander.withinConstraint(s)) flags = FLAG_NOT_EXPANDED;
          else expander.successors(s, visit);
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
          flags = FLAG_ERROR | (errors.length << 2);
          errors.push(errorText(e));
        }
        let pairs = 0;
        for (let a = 0; a < actions; a++) {
          const enabled = expander.enabledCount[a]! - enabledBefore[a]!;
          const fired = expander.firedCount[a]! - firedBefore[a]!;
          if (enabled === 0 && fired === 0) continue;
          parents.push(a);
          parents.push(enabled);
          parents.push(fired);
          pairs++;
        }
        parents.set(header, generated);
        parents.set(header + 1, count);
        parents.set(header + 2, flags);
        parents.set(header + 3, pairs);
        if (flags & FLAG_ERROR) break;
      }
      const p = parents.take();
      const c = candidates.take();
      const b = bytes.take();
      send({ type: 'chunk', chunk, worker: setup.index, parents: p, candidates: c, bytes: b, errors, heapUsed: process.memoryUsage().heapUsed }, [p.buffer as ArrayBuffer, c.buffer as ArrayBuffer, b.buffer as ArrayBuffer]);
    }
  }

  port.on('message', (m: ToPackedWorker) => {
    try {
      if (m.type === 'level') expandLevel(m);
      else port.close();
    } catch (e) {
      send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  });
  send({ type: 'ready' });
}

/** A spec error as sent to the coordinator: its detail and its cause's message (see packedCoordinator.ts). */
function errorText(e: SpecError): string {
  return `${e.detail}\u0000${e.causeError instanceof Error ? e.causeError.message : String(e.causeError)}`;
}

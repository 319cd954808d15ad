/** A worker thread of the packed search: expands its chunks of each level (see packedProtocol.ts). */
import { parentPort } from 'node:worker_threads';
import { Expander } from '../expander.ts';
import { importDefinition } from '../../run/loadSpec.ts';
import { FingerprintSetView } from '../state/fingerprintSet.ts';
import { isPacked, layoutOf } from '../state/packed.ts';
import { ChunkExpander, PIECE_MS } from './chunkExpander.ts';
import type { FromPackedWorker, PackedWorkerSetup, ToPackedWorker } from './packedProtocol.ts';

export async function runPackedWorker(setup: PackedWorkerSetup): Promise<void> {
  const port = parentPort!;
  const mail = new Int32Array(setup.mail);
  const send = (m: FromPackedWorker, transfer: ArrayBuffer[] = []) => {
    setup.reports.postMessage(m, transfer);
    // Posted first, counted after: a coordinator woken by the count finds the report on its port.
    Atomics.add(mail, 0, 1);
    Atomics.notify(mail, 0);
  };
  const definition = await importDefinition(setup.modulePath);
  const expander = new Expander(definition.build(setup.params), setup.symmetry);
  const first = expander.initialStates()[0];
  if (!isPacked(first)) throw new Error('the packed search needs a spec declared with a layout');
  const chunks = new ChunkExpander(expander as Expander<unknown>, layoutOf(first), setup.index);

  function expandLevel(m: Extract<ToPackedWorker, { type: 'level' }>): void {
    chunks.startLevel(m.level, new FingerprintSetView(m.seen), m.witnessesReached);
    const starts = m.starts;
    const total = starts.length - 1;
    const nextChunk = new Int32Array(m.nextChunk);
    // Claimed in increasing order: this worker's chunks are merged in the order it expands them.
    for (let chunk = Atomics.add(nextChunk, 0, 1); chunk < total; chunk = Atomics.add(nextChunk, 0, 1)) {
      for (let at = starts[chunk]!, end = starts[chunk + 1]!; at < end; ) {
        const r = chunks.expand(at, end, performance.now() + PIECE_MS);
        send(r, [r.parents.buffer as ArrayBuffer, r.counts.buffer as ArrayBuffer, r.candidates.buffer as ArrayBuffer, r.bytes.buffer as ArrayBuffer]);
        at = r.end;
      }
    }
  }

  port.on('message', (m: ToPackedWorker) => {
    try {
      if (m.type === 'level') expandLevel(m);
      else {
        setup.reports.close();
        port.close();
      }
    } catch (e) {
      send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  });
}

/** A worker thread of the Immutable.js search: its share of each level (immutableShare.ts), over its port. */
import { parentPort, workerData } from 'node:worker_threads';
import { Expander } from '../expander.ts';
import { importDefinition } from '../../run/loadSpec.ts';
import { accelerateImmutable } from '../immutableAcceleration.ts';
import { ImmutableShare } from './immutableShare.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const send = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

accelerateImmutable();
const definition = await importDefinition(setup.modulePath);
const share = new ImmutableShare(new Expander(definition.build(setup.params), setup.symmetry), setup.index, setup.count);

port.on('message', (m: ToWorker) => {
  try {
    switch (m.type) {
      case 'start':
        share.start(m.initIndexes);
        send({ type: 'started' });
        break;
      case 'expand': {
        share.beginExpand(m.seen);
        share.expandFor(Infinity);
        const report = share.expanded();
        send(report, [report.parents.buffer as ArrayBuffer, report.candidates.buffer as ArrayBuffer]);
        break;
      }
      case 'replay':
        share.replay(m.newStates);
        send({ type: 'replayed' });
        break;
      case 'share':
        share.share();
        break;
      case 'advance':
        send(share.advance(m.keep, m.firstId));
        break;
      case 'stop':
        port.close();
        break;
    }
  } catch (e) {
    send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
send({ type: 'ready' });

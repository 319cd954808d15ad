// Worker thread entry: load TypeScript through tsx, as the main thread does, then run the worker the
// coordinator asked for (packed states in shared memory, or Immutable.js states rebuilt by re-execution).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
if (workerData.packed) {
  const { runPackedWorker } = await import('./packedWorker.ts');
  await runPackedWorker(workerData);
} else {
  await import('./worker.ts');
}

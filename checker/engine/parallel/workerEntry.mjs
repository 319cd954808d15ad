// Worker thread entry. In the published package the compiled workers sit beside this file; in a source
// checkout the TypeScript is loaded through tsx. The coordinator says which worker it wants: packed
// states in shared memory, one seeded simulation of a swarm, or an owner of a partitioned search.
import { existsSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const name = workerData.owner ? '../owners/ownerThread' : workerData.swarm ? 'swarmWorker' : 'packedWorker';
const compiled = new URL(`./${name}.js`, import.meta.url);
let worker;
if (existsSync(compiled)) {
  worker = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  worker = await import(`./${name}.ts`);
}
if (workerData.owner) await worker.runOwnerThread(workerData);
else if (workerData.swarm) await worker.runSwarmWorker(workerData);
else await worker.runPackedWorker(workerData);

// Worker thread entry. In the published package the compiled workers sit beside this file; in a source
// checkout the TypeScript is loaded through tsx. The thread that starts it says which worker it wants:
// an owner of a partitioned search (--workers, --owners), or one seeded walk of a swarm.
import { existsSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const name = workerData.owner ? '../owners/ownerThread' : 'swarmWorker';
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
else await worker.runSwarmWorker(workerData);

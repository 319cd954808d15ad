/** A worker thread of a simulation swarm: one seeded simulation, reported when it ends (see swarmProtocol.ts). */
import { parentPort } from 'node:worker_threads';
import { importDefinition } from '../../run/loadSpec.ts';
import type { FromSwarmWorker, SwarmWorkerSetup } from './swarmProtocol.ts';
import { runWalk } from './swarmWalk.ts';

export async function runSwarmWorker(setup: SwarmWorkerSetup): Promise<void> {
  const port = parentPort!;
  const send = (m: FromSwarmWorker) => port.postMessage(m);
  try {
    const definition = await importDefinition(setup.modulePath);
    const stop = new Int32Array(setup.stop);
    const bounds = new Int32Array(setup.bounds);
    const control = { shouldStop: () => Atomics.load(stop, 0) !== 0, runsBefore: () => Atomics.load(bounds, setup.index) };
    const outcome = await runWalk(definition, setup, control, (verdict, run) => send({ type: 'verdict', verdict, run }));
    send({ type: 'done', outcome });
  } catch (e) {
    send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
}

/** A worker thread of a simulation swarm: one seeded simulation, reported when it ends (see swarmProtocol.ts). */
import { parentPort } from 'node:worker_threads';
import { importDefinition } from '../../run/loadSpec.ts';
import { simulate } from '../simulate.ts';
import { toItf } from '../../../traces/itf/write.ts';
import type { FromSwarmWorker, SwarmWorkerSetup, WalkOutcome } from './swarmProtocol.ts';

export async function runSwarmWorker(setup: SwarmWorkerSetup): Promise<void> {
  const port = parentPort!;
  const send = (m: FromSwarmWorker) => port.postMessage(m);
  try {
    const definition = await importDefinition(setup.modulePath);
    const stop = new Int32Array(setup.stop);
    const r = await simulate(
      definition.build(setup.params),
      {
        seed: setup.seed,
        runs: setup.runs,
        maxDepth: setup.maxDepth,
        ...(setup.deadlock !== undefined ? { deadlock: setup.deadlock } : {}),
        ...(setup.timeLimitSeconds !== undefined ? { timeLimitSeconds: setup.timeLimitSeconds } : {}),
        shouldStop: () => Atomics.load(stop, 0) !== 0,
      },
      setup.label,
    );
    const outcome: WalkOutcome =
      r.status === 'violation' || r.status === 'error' ? ({ ...r, ...(r.trace ? { trace: toItf(r.trace) } : {}) } as WalkOutcome) : r;
    send({ type: 'done', outcome });
  } catch (e) {
    send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
}

/**
 * An owner in a worker thread (threadOwners.ts): the owner on ports of portOwner.ts, answering the
 * driver's requests on the thread's own port.
 */
import { parentPort } from 'node:worker_threads';
import { type PortOwnerOp, type PortOwnerSetup, portOwner } from './portOwner.ts';

export interface OwnerThreadSetup extends PortOwnerSetup {
  readonly owner: true;
}

/** A request of the driver, and the answer. */
export interface OwnerRequest {
  readonly id: number;
  readonly op: PortOwnerOp;
  readonly args: unknown[];
}
export type OwnerAnswer = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: string };

export async function runOwnerThread(setup: OwnerThreadSetup): Promise<void> {
  const port = parentPort!;
  const owner = await portOwner(setup);
  port.on('message', (m: OwnerRequest) => {
    void (async () => {
      try {
        port.postMessage({ id: m.id, result: await owner.answer(m.op, m.args) } satisfies OwnerAnswer);
      } catch (e) {
        // The model's own errors come back in the reports (an Owner catches them): this is the owner failing.
        port.postMessage({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies OwnerAnswer);
      }
    })();
  });
  port.postMessage('ready');
}

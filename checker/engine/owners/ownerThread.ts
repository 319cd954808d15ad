/**
 * Owners in a worker thread (threadOwners.ts). The thread loads the model, says it is ready, and waits:
 * the driver's thread owns its parts until then, and at a level boundary hands each over (`adopt`: the
 * ports to the other owners and the part's snapshot). From then on each part is an owner on ports of
 * portOwner.ts, answering the driver's requests, which name the part, on the thread's own port.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import { Expander } from '../expander.ts';
import { importDefinition } from '../../run/loadSpec.ts';
import type { ParamValues } from '../../../spec/spec.ts';
import { type PortOwner, type PortOwnerOp, type PortOwnerSetup, portOwner } from './portOwner.ts';

export interface OwnerThreadSetup extends Omit<PortOwnerSetup, 'peers' | 'index'> {
  readonly owner: true;
  readonly modulePath: string;
  readonly params: ParamValues;
  readonly symmetry: boolean;
}

/** A request of the driver to one part, and the answer. `adopt` comes first, with the ports to the other owners and the part's snapshot. */
export interface OwnerRequest {
  readonly id: number;
  readonly part: number;
  readonly op: PortOwnerOp | 'adopt';
  readonly args: unknown[];
}
export type OwnerAnswer = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: string };

export async function runOwnerThread(setup: OwnerThreadSetup): Promise<void> {
  const port = parentPort!;
  const definition = await importDefinition(setup.modulePath);
  const build = () => new Expander(definition.build(setup.params), setup.symmetry);
  const parts = new Map<number, PortOwner>();
  const answer = async (m: OwnerRequest): Promise<unknown> => {
    if (m.op === 'adopt') {
      const [peers, snapshot] = m.args as [(MessagePort | null)[], Uint8Array];
      const owner = portOwner({ ...setup, index: m.part, peers }, build());
      parts.set(m.part, owner);
      return owner.answer('restoreSnapshot', [snapshot]);
    }
    const owner = parts.get(m.part);
    if (owner === undefined) {
      if (m.op === 'close') return null; // the run ended before this thread took the part
      throw new Error(`asked to ${m.op} part ${m.part}, which it does not own`);
    }
    return owner.answer(m.op, m.args);
  };
  port.on('message', (m: OwnerRequest) => {
    void (async () => {
      try {
        port.postMessage({ id: m.id, result: await answer(m) } satisfies OwnerAnswer);
      } catch (e) {
        // The model's own errors come back in the reports (an Owner catches them): this is the owner failing.
        port.postMessage({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies OwnerAnswer);
      }
    })();
  });
  port.postMessage('ready');
}

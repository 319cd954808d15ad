/**
 * Owners in a worker thread (threadOwners.ts): one carrier. The thread loads the model, says it is ready,
 * and waits: the driver's thread owns its parts until then, and at a level boundary hands them over
 * (`adopt`: each part's snapshot, the first with the carrier's ports to the other carriers). From then on
 * each part is an owner of portOwner.ts, answering the driver's requests, which name the part, on the
 * thread's own port.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import { Expander } from '../expander.ts';
import { importDefinition } from '../../run/loadSpec.ts';
import type { ParamValues } from '../../../spec/spec.ts';
import { type PortOwner, type PortOwnerOp, type PortOwnerSetup, portOwner } from './portOwner.ts';
import { Mailroom } from './mailroom.ts';

export interface OwnerThreadSetup extends Omit<PortOwnerSetup, 'mail' | 'index'> {
  readonly owner: true;
  /** This thread's carrier number, and how many carriers there are (part i is on carrier i mod carriers). */
  readonly carrier: number;
  readonly carriers: number;
  readonly modulePath: string;
  readonly params: ParamValues;
  readonly symmetry: boolean;
}

/**
 * A request of the driver to one part, and the answer. `adopt` comes first, with the part's snapshot; the
 * first `adopt` also brings the carrier's ports to the other carriers.
 */
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
  let mail: Mailroom | null = null;
  const answer = async (m: OwnerRequest): Promise<unknown> => {
    if (m.op === 'adopt') {
      const [ports, snapshot] = m.args as [(MessagePort | null)[] | null, Uint8Array];
      if (ports !== null) mail = new Mailroom(setup.carrier, ports, (part) => part % setup.carriers);
      if (mail === null) throw new Error(`part ${m.part} was handed over before the carrier's ports`);
      const owner = portOwner({ ...setup, index: m.part, mail }, build());
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

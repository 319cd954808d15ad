/**
 * Where the successor batches of the owners on one carrier (a thread: threadOwners.ts) come and go. The
 * parts a carrier holds hand each other their batches directly; a batch for a part on another carrier
 * goes through the one port between the two carriers, named with the part it is for. So N owners on C
 * threads take C·(C−1) ports, not N·(N−1): a MessagePort costs memory and a handle of its own, and
 * `--owners 100` on two cores once took 1.7 GB for its 9,900 ports.
 *
 * A carrier's mailroom lives in the driver's thread until the carrier's thread has loaded the model, and
 * then moves there with its ports (at a level boundary, when no batch is on its way).
 */
import type { MessagePort } from 'node:worker_threads';

/** A batch on a port between carriers, and the part it is for. */
interface Posted {
  readonly to: number;
  readonly batch: Uint8Array;
}

export class Mailroom {
  /** Who takes in the batches for each part this carrier holds. */
  private readonly parts = new Map<number, (batch: Uint8Array) => void>();
  private readonly arrive = (m: Posted): void => this.deliver(m.to, m.batch);

  constructor(
    /** This carrier's number. */
    readonly carrier: number,
    /** A port to each other carrier, by carrier number (null at this one's own). */
    readonly ports: readonly (MessagePort | null)[],
    /** The carrier that holds each part. */
    private readonly carrierOf: (part: number) => number,
  ) {
    for (const port of ports) port?.on('message', this.arrive);
  }

  /** From now on the batches for `part` go to `take`. */
  register(part: number, take: (batch: Uint8Array) => void): void {
    this.parts.set(part, take);
  }

  unregister(part: number): void {
    this.parts.delete(part);
  }

  /** Sends `batch` to `part` (its buffer is moved to the part's carrier, not copied). */
  send(part: number, batch: Uint8Array): void {
    const to = this.carrierOf(part);
    if (to === this.carrier) this.deliver(part, batch);
    else this.ports[to]!.postMessage({ to: part, batch } satisfies Posted, [batch.buffer as ArrayBuffer]);
  }

  /** Stops taking batches from the ports, left open: they move with the carrier to its thread. */
  release(): void {
    for (const port of this.ports) port?.off('message', this.arrive);
  }

  close(): void {
    for (const port of this.ports) port?.close();
  }

  private deliver(part: number, batch: Uint8Array): void {
    const take = this.parts.get(part);
    if (take === undefined) throw new Error(`carrier ${this.carrier} was sent a batch for part ${part}, which it does not hold`);
    take(batch);
  }
}

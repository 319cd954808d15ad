/**
 * `kmc simulate --cluster nats://… --workers N`: the swarm of N seeded walks (parallel/swarm.ts), its
 * walks handed out to `kmc worker` processes through a work-queue stream. Every walk has the seed and
 * runs it has in a swarm of threads, so whatever a worker finds is replayed alone by
 * `kmc simulate --seed <its seed> --runs <its runs>`. The first violation stops every walk; walks not
 * started by then end at once, interrupted. A walk whose worker dies goes back to the queue.
 */
import { randomBytes } from 'node:crypto';
import { AckPolicy, connect, type NatsConnection, RetentionPolicy, StorageType } from 'nats';
import type { ModelSource } from '../parallel/coordinator.ts';
import type { CheckLabel } from '../check.ts';
import { type SwarmOptions, type SwarmResult, walkUnits } from '../parallel/swarm.ts';
import type { WalkOutcome } from '../parallel/swarmProtocol.ts';
import { ClusterError, specForWorkers } from './natsOwners.ts';
import { open, seal } from './envelope.ts';
import { RECONNECT, RECRUIT, swarmNames } from './subjects.ts';

/** What a driver offers a worker: to take walks of a swarm from its queue. */
export interface SwarmOffer {
  readonly kind: 'swarm';
  readonly run: string;
  readonly spec: string;
}

export async function clusterSwarm(url: string, source: ModelSource, options: SwarmOptions & { readonly waitSeconds: number }, label: CheckLabel): Promise<SwarmResult> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: url, name: `kmc swarm driver ${process.pid}`, ...RECONNECT });
  } catch (e) {
    throw new ClusterError(`cannot reach a NATS server at ${url}: ${e instanceof Error ? e.message : String(e)}. Start one with JetStream on (nats-server -js).`);
  }
  const startedAt = performance.now();
  const run = randomBytes(6).toString('hex');
  const n = swarmNames(run);
  const spec = specForWorkers(source);
  const units = walkUnits(options, source.params, label);
  const count = units.length;
  const outcomes: (WalkOutcome | undefined)[] = new Array<WalkOutcome | undefined>(count).fill(undefined);
  let winner: number | null = null;
  let poll: NodeJS.Timeout | undefined;
  try {
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: n.stream, subjects: [n.walks], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
      // A walk may take minutes: its worker says it is still at it (ack_wait is per message, renewed).
      await jsm.consumers.add(n.stream, { durable_name: n.consumer, ack_policy: AckPolicy.Explicit, ack_wait: 60_000_000_000, max_deliver: -1 });
    } catch (e) {
      throw new ClusterError(`the NATS server at ${url} cannot hold the swarm's queue: ${e instanceof Error ? e.message : String(e)}. kmc needs JetStream: start the server with -js.`);
    }
    let allIn: () => void = () => {};
    const done = new Promise<void>((resolve) => (allIn = resolve));
    let pending = count;
    // Said again every second until every walk is in: a worker that joins after the first stop hears the next.
    let stopping: NodeJS.Timeout | undefined;
    const stopAll = () => {
      nc.publish(n.stop);
      stopping ??= setInterval(() => nc.publish(n.stop), 1000);
    };
    nc.subscribe(n.walked, {
      callback: (_e, m) => {
        const { index, outcome } = open(m.data).body as { index: number; outcome: WalkOutcome };
        if (outcomes[index] !== undefined) return;
        outcomes[index] = outcome;
        // As in a swarm of threads: the first violation wins; an error only when no walk finds a violation.
        if (outcome.status === 'violation' && (winner === null || outcomes[winner]!.status !== 'violation')) winner = index;
        if (outcome.status === 'error' && winner === null) winner = index;
        if (outcome.status === 'violation' || outcome.status === 'error') stopAll();
        if (--pending === 0) allIn();
      },
    });
    await nc.flush();
    const js = nc.jetstream();
    for (const [index, unit] of units.entries()) await js.publish(n.walks, seal({ index, unit: { ...unit } }));
    // Every idle worker that answers within a second of the last one takes walks; none at all is an error.
    const offer: SwarmOffer = { kind: 'swarm', run, spec };
    const deadline = Date.now() + options.waitSeconds * 1000;
    let joined = 0;
    while (joined < count) {
      const reply = await nc.request(RECRUIT, seal({ ...offer }), { timeout: 1000 }).catch(() => null);
      const body = reply ? open(reply.data).body : null;
      if (typeof body?.error === 'string') throw new ClusterError(`a worker could not join the swarm: ${body.error}`);
      if (body?.ok) joined++;
      else if (joined > 0 || Date.now() > deadline) break;
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (joined === 0) throw new ClusterError(`no worker joined the swarm at ${url} within ${options.waitSeconds} s. Start some with: kmc worker ${url}`);
    if (options.shouldStop) poll = setInterval(() => options.shouldStop!() && stopAll(), 50);
    await done;
    clearInterval(stopping);
  } finally {
    if (poll) clearInterval(poll);
    try {
      await (await nc.jetstreamManager()).streams.delete(n.stream);
    } catch {
      // the server went away: nothing of the swarm is left to delete that it still holds
    }
    await nc.drain().catch(() => {});
  }
  const walks = outcomes.map((outcome, i) => ({ seed: units[i]!.seed, runs: units[i]!.runs, outcome: outcome! }));
  const status: WalkOutcome['status'] =
    winner !== null ? walks[winner]!.outcome.status : walks.some((w) => w.outcome.status === 'incomplete') ? 'incomplete' : 'holds';
  return { status, winner, walks, seconds: (performance.now() - startedAt) / 1000 };
}

/** `kmc runs nats://…`: the runs a NATS server holds (searches kept for --resume-run, queues of killed drivers), and dropping them. */
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { UserError } from '../../run/userError.ts';
import { checkpointStoreValue, natsAddress } from './commonOptions.ts';
import type { HeldRun } from '../../engine/cluster/keptRuns.ts';

export const runsCommand: KmcCommand = {
  command: 'runs <cluster>',
  describe: 'List the runs a NATS server holds (searches kept for --resume-run, queues a killed driver left), or drop them',
  builder: (y) =>
    y
      .positional('cluster', { type: 'string', describe: 'The NATS server the drivers used, e.g. nats://127.0.0.1:4222' })
      .option('drop', { type: 'string', array: true, describe: "Delete these runs (by id), or every run not at work ('kept')" })
      .option('checkpoint-store', { type: 'string', describe: 'With --drop: the s3://bucket/prefix the searches kept their checkpoints in, deleted there too' })
      .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object' }),
  run: async (argv) => {
    const url = natsAddress('kmc runs', argv.cluster);
    const { heldRuns, dropRun, DROP_LISTEN_MS } = await import('../../engine/cluster/keptRuns.ts');
    const onCluster = async <T>(work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (e) {
        if (e instanceof Error && e.name === 'ClusterError') throw new UserError(`kmc runs: ${e.message}`, ExitCode.Cluster);
        throw e;
      }
    };
    const store = checkpointStoreOf(argv['checkpoint-store'], argv.drop !== undefined);
    const asked = argv.drop === undefined ? [] : (argv.drop as unknown[]).map(String);
    if (argv.drop !== undefined && asked.length === 0) throw new UserError(`--drop takes the ids of the runs to delete (kmc runs ${url} lists them), or 'kept' for every run not at work.`);
    const held = await onCluster(() => heldRuns(url, argv.drop === undefined ? undefined : DROP_LISTEN_MS));
    if (argv.drop === undefined) {
      if (argv.json) process.stdout.write(`${JSON.stringify({ runs: held }, null, 2)}\n`);
      else process.stdout.write(held.length === 0 ? `The NATS server at ${url} holds no run.\n` : `${held.map((r) => describe(r, url)).join('\n')}\n`);
      return ExitCode.Holds;
    }
    const toDrop = asked.includes('kept') ? held.filter((r) => !r.live) : asked.map((id) => pick(held, id, url));
    for (const r of toDrop) await onCluster(() => dropRun(url, r, store));
    if (argv.json) process.stdout.write(`${JSON.stringify({ dropped: toDrop.map((r) => r.run) }, null, 2)}\n`);
    else process.stdout.write(toDrop.length === 0 ? 'No run to drop: every run is at work.\n' : `${toDrop.map((r) => `Dropped ${r.kind} ${r.run} (${mb(r.bytes)}).`).join('\n')}\n`);
    return ExitCode.Holds;
  },
};

/** The run named `id`, which must be held and not at work. */
function pick(held: readonly HeldRun[], id: string, url: string): HeldRun {
  const r = held.find((h) => h.run === id);
  if (r === undefined) {
    const ids = held.map((h) => h.run);
    throw new UserError(`The NATS server at ${url} holds no run ${id}. ${ids.length === 0 ? 'It holds none.' : `It holds ${ids.join(', ')}`}; --drop takes their ids, or 'kept' for every run not at work.`);
  }
  if (r.live) throw new UserError(`Run ${id} is at work: its driver is alive. Stop the driver first (Ctrl-C; a stopped search is kept for --resume-run), then drop it.`);
  return r;
}

function checkpointStoreOf(raw: unknown, dropping: boolean): string | undefined {
  if (raw === undefined) return undefined;
  const value = String(raw);
  if (!dropping) throw new UserError(`--checkpoint-store goes with --drop: the checkpoints of the searches dropped are deleted there too.`);
  return checkpointStoreValue(value);
}

function describe(r: HeldRun, url: string): string {
  const age = `made ${r.created.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  const head = `${r.run}  ${r.kind}  ${r.live ? 'at work' : 'kept'}  ${mb(r.bytes)}  ${age}`;
  if (r.kind === 'queue') return r.live ? head : `${head}\n  left by a driver that stopped before its last result: nothing uses it (kmc runs ${url} --drop ${r.run})`;
  if (r.search === undefined) return `${head}\n  no commit in NATS: stopped before its first level was saved, or its checkpoints are in S3 (--checkpoint-store)`;
  const s = r.search;
  const line = `${head}\n  ${s.spec} ${JSON.stringify(s.params)}, ${s.owners} owner${s.owners === 1 ? '' : 's'}: saved with ${s.distinct.toLocaleString('en-US')} distinct states, depth ${s.depth}`;
  return r.live ? line : `${line}\n  go on with kmc check … --cluster ${url} --owners N --resume-run ${r.run}, or drop it (kmc runs ${url} --drop ${r.run})`;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** `kmc check <spec>`: exhaustive search, with a shortest counterexample when a property fails. */
import type { KmcCommand } from '../command.ts';
import { checkOutputFolder } from '../outputPath.ts';
import { checkpointStoreValue, natsAddress, parseBytes, positiveInt, positiveNumber, specOptions, workersWithinCores } from './commonOptions.ts';
import { interruptFlag } from './interrupt.ts';
import { announceDeadline, progressWithLauncher, tellLauncher, verdictToLauncher } from '../../run/launcherChannel.ts';
import { defaultWorkers } from '../../engine/defaultWorkers.ts';
import { UserError } from '../../run/userError.ts';

export const checkCommand: KmcCommand = {
  command: 'check <spec>',
  describe: 'Explore every reachable state and check every property (exit 0 holds, 1 violation, 2 usage, 3 spec threw, 4 incomplete, 5 cluster failed)',
  builder: (y) =>
    specOptions(y)
      .option('strategy', { choices: ['bfs', 'dfs'] as const, default: 'bfs', describe: 'Breadth-first (shortest counterexamples) or depth-first' })
      .option('max-states', { type: 'string', describe: 'Stop after this many distinct states (result: incomplete)' })
      .option('max-depth', { type: 'string', describe: 'Do not explore past this depth (result: incomplete if states lie beyond)' })
      .option('time-limit', { type: 'string', describe: 'Stop after this many seconds (result: incomplete)' })
      .option('memory-budget', { type: 'string', describe: 'Memory the checker may use, e.g. 8G: a packed frontier beyond it spills to disk; past it otherwise the result is incomplete' })
      .option('spill-dir', { type: 'string', describe: 'Where a frontier spills under --memory-budget (default: the system temporary folder)' })
      .option('checkpoint', { type: 'string', describe: 'Write a checkpoint to this folder at level boundaries (specs with a layout); resume with --resume' })
      .option('checkpoint-every', { type: 'string', default: '10', describe: 'Minutes between checkpoints' })
      .option('resume', { type: 'string', describe: 'Continue the search saved in this checkpoint folder (same spec, preset and parameters); keeps checkpointing there' })
      .option('deadlock', { type: 'boolean', describe: 'Report states with no enabled action (default on; the preset may turn it off)' })
      .option('symmetry', { type: 'boolean', describe: "Reduce by the spec's symmetry sets (only with symmetric properties)" })
      .option('workers', { type: 'string', describe: 'Worker threads, at most the number of cores; results are identical for every count (default: every core, for a spec with a layout and without temporal properties; else 1); a spec without a layout, or a search under --memory-budget, runs in one thread' })
      .option('owners', { type: 'string', describe: 'Partition the seen states among this many owners by fingerprint (specs with a layout; results identical for every count): objects in this process, or with --cluster, `kmc worker` processes' })
      .option('cluster', { type: 'string', describe: 'A NATS server with JetStream (nats://host:4222) through which --owners N worker processes (kmc worker) search' })
      .option('resume-run', { type: 'string', describe: 'With --cluster: go on with this run (its id was printed when it started) from its last commit, with --owners N workers or fewer' })
      .option('checkpoint-store', {
        type: 'string',
        describe: "With --cluster: where the run keeps its checkpoints: nats (the run's object store in NATS, the default) or s3://bucket/prefix, which the driver and each worker reach with their own AWS credentials (AWS_ENDPOINT_URL_S3 for a server of S3's API)",
      })
      .option('cluster-wait', { type: 'string', default: '30', describe: 'Seconds to wait for the --owners workers to join a --cluster run' })
      .option('worker-timeout', { type: 'string', default: '15', describe: 'Seconds a --cluster worker may send no heartbeat before the run stops (exit 5)' })
      .option('coverage', { type: 'boolean', default: false, describe: 'Print per-action coverage (enabled, fired, new states)' }),
  run: async (argv) => {
    const plan: { workers?: number; workersByDefault?: true } = argv.workers === undefined ? defaultWorkers() : { workers: workersWithinCores(argv.workers) };
    const memoryBudgetBytes = parseBytes(argv['memory-budget']);
    const ownership = ownersOf(argv.owners, argv.cluster);
    if (argv['resume-run'] !== undefined && ownership.cluster === undefined) throw new UserError(`--resume-run goes with --cluster: it names a run kept by a NATS server.`);
    if (argv['resume-run'] !== undefined && !/^[0-9a-f]{12}$/.test(String(argv['resume-run']))) throw new UserError(`--resume-run takes the 12-character id a cluster run printed when it started (run 0123456789ab on nats://…); got '${String(argv['resume-run'])}'.`);
    const checkpointStore = checkpointStoreOf(argv['checkpoint-store'], ownership.cluster);
    if (ownership.owners !== undefined && argv.workers !== undefined) throw new UserError(`--workers and --owners do not go together: --owners ${ownership.owners} partitions the search among owners; leave out --workers.`);
    const out = argv.out === undefined ? undefined : String(argv.out);
    if (out !== undefined) checkOutputFolder(out);
    // Every folder the run writes to is checked before the search, not found unwritable after it.
    if (argv.checkpoint !== undefined) checkOutputFolder(String(argv.checkpoint), '--checkpoint');
    if (argv['spill-dir'] !== undefined) checkOutputFolder(String(argv['spill-dir']), '--spill-dir');
    const [{ progressDisplay }, { runCheck }, { exitCodeOf, toReport }, { formatCoverage, formatReport }, { default: chalk }] = await Promise.all([
      import('../progressDisplay.ts'),
      import('../../run/runCheck.ts'),
      import('../../run/report.ts'),
      import('../resultText.ts'),
      import('chalk'),
    ]);
    const display = progressDisplay(Boolean(argv.quiet) || Boolean(argv.json));
    let checkpointedAtStop = false;
    const progress = progressWithLauncher(display.onProgress, display.progressIntervalMs);
    const timeLimitSeconds = positiveNumber('time-limit', argv['time-limit']);
    announceDeadline(timeLimitSeconds, '--time-limit');
    const run = await runCheck({
      spec: String(argv.spec),
      ...(argv.preset !== undefined ? { preset: String(argv.preset) } : {}),
      params: (argv.param as string[]).map(String),
      options: {
        strategy: argv.strategy as 'bfs' | 'dfs',
        maxStates: positiveInt('max-states', argv['max-states']),
        maxDepth: positiveInt('max-depth', argv['max-depth']),
        timeLimitSeconds,
        memoryBudgetBytes,
        ...(argv['spill-dir'] !== undefined ? { spillDirectory: String(argv['spill-dir']) } : {}),
        ...(argv.checkpoint !== undefined ? { checkpointDirectory: String(argv.checkpoint) } : {}),
        checkpointEverySeconds: 60 * (positiveNumber('checkpoint-every', argv['checkpoint-every']) ?? 10),
        ...(argv.resume !== undefined ? { resumeDirectory: String(argv.resume) } : {}),
        deadlock: argv.deadlock as boolean | undefined,
        symmetry: argv.symmetry as boolean | undefined,
        ...(ownership.owners === undefined && plan.workers !== undefined ? { workers: plan.workers } : {}),
        ...(ownership.owners === undefined && plan.workersByDefault ? { workersByDefault: true } : {}),
        ...ownership,
        ...(ownership.cluster !== undefined
          ? {
              clusterWaitSeconds: positiveNumber('cluster-wait', argv['cluster-wait']),
              clusterSilenceSeconds: positiveNumber('worker-timeout', argv['worker-timeout']),
              ...(argv['resume-run'] !== undefined ? { clusterResumeRun: String(argv['resume-run']) } : {}),
              ...checkpointStore,
              onClusterNote: (line: string) => process.stderr.write(`${line}\n`),
            }
          : {}),
        onWarning: (line: string) => process.stderr.write(`warning: ${line}\n`),
        shouldStop: interruptFlag(),
        ...progress,
        onVerdict: verdictToLauncher,
        onFinishingLevel: () => {
          checkpointedAtStop = true;
          process.stderr.write('Finishing this level to write a last checkpoint first (send the signal again to quit at once)\n');
          tellLauncher({ kind: 'finishing' });
        },
      },
    });
    display.done();
    const report = toReport(run.result, run.label);
    // The result is printed whatever happens to the files: a failed write is reported after it.
    let written: string[] = [];
    let writeError: string | undefined;
    if (out !== undefined && report.trace) {
      try {
        const [{ makeDirectory }, { writeAllFormats }] = await Promise.all([import('../outputPath.ts'), import('../../../traces/render/writeAll.ts')]);
        makeDirectory(out, '--out');
        written = await writeAllFormats(report.trace, out);
      } catch (e) {
        writeError = `the counterexample could not be written to ${out}: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(writeError ? { ...report, writeError } : report)}\n`);
    } else {
      const descriptions = new Map(run.loaded.definition.build(run.label.params).properties.map((p) => [p.name, p.description]));
      process.stdout.write(`${formatReport(report, descriptions, argv.strategy === 'dfs')}\n`);
      if (argv.coverage) process.stdout.write(`${formatCoverage(report)}\n`);
      const itf = written.find((p) => p.endsWith('.itf.json'));
      if (written.length > 0) process.stdout.write(`Counterexample written to ${written.join(', ')}\n`);
      if (itf) process.stdout.write(chalk.dim(`Replay it with: kmc replay ${argv.spec as string} ${itf}\n`));
    }
    if (writeError) process.stderr.write(`${chalk.red('error:')} ${writeError}\n`);
    const checkpointDir = argv.checkpoint ?? argv.resume;
    if (run.result.status === 'incomplete' && checkpointDir !== undefined) process.stderr.write(`${await checkpointNote(String(checkpointDir), String(argv.spec), checkpointedAtStop, argv.owners !== undefined)}\n`);
    return exitCodeOf(run.result);
  },
};

/**
 * What a stopped run with checkpoints leaves: checkpoints are written at level boundaries, so the search
 * since the last one is not saved, and a run stopped before its first has none. A run of --owners goes on
 * with as many; one of --workers (owners too) with the workers the machine gives it.
 */
async function checkpointNote(dir: string, spec: string, atStop: boolean, withOwners: boolean): Promise<string> {
  const { checkpointExtent } = await import('../../engine/checkpoint.ts');
  const extent = checkpointExtent(dir);
  if (extent === null) return `No checkpoint was written to ${dir}: the first is written at the first level boundary after --checkpoint-every minutes.`;
  const { depth, distinct, owners } = extent;
  const since = atStop ? 'written as the run stopped, so nothing is lost' : 'the search since then is not saved';
  return `The last checkpoint in ${dir} holds the search up to depth ${depth} (${distinct.toLocaleString('en-US')} states); ${since}. Continue with: kmc check ${spec} … --resume ${dir}${owners !== undefined && withOwners ? ` --owners ${owners}` : ''}`;
}

/**
 * The most owners a search is partitioned among. Each is a part of the seen states with tables of its own,
 * and on a cluster a consumer made on the NATS server before any worker joins (about 10 ms each): with no
 * bound, `--owners 5000000000` spent minutes making consumers, past every limit.
 */
export const MAX_OWNERS = 1024;

/** `--owners N` and `--cluster nats://…`: a cluster needs a number of owners, and a NATS address. */
function ownersOf(rawOwners: unknown, rawCluster: unknown): { owners?: number; cluster?: string } {
  const owners = positiveInt('owners', rawOwners);
  if (owners !== undefined && owners > MAX_OWNERS) {
    throw new UserError(`--owners takes at most ${MAX_OWNERS} owners (each holds a part of the seen states, and on a cluster is a consumer on the NATS server); got ${owners}.`);
  }
  if (rawCluster === undefined) return owners === undefined ? {} : { owners };
  const cluster = natsAddress('--cluster', rawCluster);
  if (owners === undefined) throw new UserError(`--cluster ${cluster} needs --owners N: the number of worker processes (kmc worker ${cluster}) the search is partitioned among.`);
  return { owners, cluster };
}

/** `--checkpoint-store nats|s3://bucket/prefix`, with --cluster: an S3 location in its canonical form, or nothing for the run's object store in NATS. */
function checkpointStoreOf(raw: unknown, cluster: string | undefined): { clusterCheckpointStore?: string } {
  if (raw === undefined) return {};
  const value = String(raw);
  if (cluster === undefined) throw new UserError(`--checkpoint-store goes with --cluster: it says where the checkpoints of a run on a cluster are kept (a search on this machine writes its own with --checkpoint DIR).`);
  const store = checkpointStoreValue(value);
  return store === undefined ? {} : { clusterCheckpointStore: store };
}

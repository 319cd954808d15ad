/** `kmc simulate <spec>`: random walks from a seed, for models too big to exhaust; with `--workers`, a swarm of seeds. */
import chalk from 'chalk';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { prepareCheck } from '../../run/runCheck.ts';
import { simulate } from '../../engine/simulate.ts';
import { simulateSwarm, type SwarmWalk } from '../../engine/parallel/swarm.ts';
import type { WalkOutcome } from '../../engine/parallel/swarmProtocol.ts';
import { randomSeed } from '../../engine/rng.ts';
import { ConfigError } from '../../engine/check.ts';
import { toItf } from '../../../traces/itf/write.ts';
import { renderText } from '../../../traces/text.ts';
import { progressDisplay, fmt } from '../progressDisplay.ts';
import { UserError } from '../../run/userError.ts';
import { natsAddress, positiveInt, positiveNumber, specOptions, workersWithinCores } from './commonOptions.ts';
import { interruptFlag, stopSignalText } from './interrupt.ts';
import { announceDeadline, verdictToLauncher } from '../../run/launcherChannel.ts';
import { checkOutputFolder } from '../outputPath.ts';

export const simulateCommand: KmcCommand = {
  command: 'simulate <spec>',
  describe: 'Random walks from a seed; a violation is shrunk and printed with the seed that replays it',
  builder: (y) =>
    specOptions(y)
      .option('seed', { type: 'string', describe: 'Seed (a whole number, decimal or 0x hex); random when omitted' })
      .option('runs', { type: 'string', default: '1000', describe: 'Number of walks' })
      .option('max-depth', { type: 'string', default: '100', describe: 'Most steps per walk' })
      .option('time-limit', { type: 'string', describe: 'Stop after this many seconds' })
      .option('workers', {
        type: 'string',
        default: '1',
        describe: 'Worker threads, at most the number of cores: each runs its share of the walks from its own seed (printed), and the first violation stops the others',
      })
      .option('deadlock', { type: 'boolean', describe: 'Report states with no enabled action (default on; the preset may turn it off)' })
      .option('cluster', { type: 'string', describe: 'A NATS server with JetStream (nats://host:4222): the --workers N walks go to kmc worker processes through a work queue' })
      .option('cluster-wait', { type: 'string', default: '30', describe: 'Seconds to wait for the first worker of a --cluster swarm' }),
  run: async (argv) => {
    const cluster = argv.cluster === undefined ? undefined : natsAddress('--cluster', argv.cluster);
    // On a cluster the walks run on other machines: their number is not bounded by this one's cores.
    const workers = (cluster !== undefined ? positiveInt('workers', argv.workers) : workersWithinCores(argv.workers)) ?? 1;
    if (argv.out !== undefined) checkOutputFolder(String(argv.out));
    const prepared = await prepareCheck({
      spec: String(argv.spec),
      ...(argv.preset !== undefined ? { preset: String(argv.preset) } : {}),
      params: (argv.param as string[]).map(String),
      options: { deadlock: argv.deadlock as boolean | undefined },
    });
    const seed = argv.seed === undefined ? randomSeed() : parseSeed(argv.seed);
    const runs = positiveInt('runs', argv.runs) ?? 1000;
    const maxDepth = positiveInt('max-depth', argv['max-depth']) ?? 100;
    const timeLimitSeconds = positiveNumber('time-limit', argv['time-limit']);
    announceDeadline(timeLimitSeconds, '--time-limit');
    const common = {
      seed,
      runs,
      maxDepth,
      ...(prepared.options.deadlock !== undefined ? { deadlock: prepared.options.deadlock } : {}),
      ...(timeLimitSeconds !== undefined ? { timeLimitSeconds } : {}),
      shouldStop: interruptFlag(),
      onVerdict: verdictToLauncher,
    };
    let walks: readonly SwarmWalk[];
    let winner: number | null;
    let status: WalkOutcome['status'];
    if (cluster !== undefined) {
      const { clusterSwarm } = await import('../../engine/cluster/clusterSwarm.ts');
      const waitSeconds = positiveNumber('cluster-wait', argv['cluster-wait']) ?? 30;
      const swarm = await refusingConfigErrors(prepared.label.spec, () =>
        clusterSwarm(cluster, { modulePath: prepared.loaded.modulePath, params: prepared.label.params }, { ...common, workers, waitSeconds }, prepared.label),
      );
      ({ walks, winner, status } = swarm);
    } else if (workers > 1) {
      const swarm = await refusingConfigErrors(prepared.label.spec, () =>
        simulateSwarm(prepared.model, { modulePath: prepared.loaded.modulePath, params: prepared.label.params }, { ...common, workers }, prepared.label),
      );
      ({ walks, winner, status } = swarm);
    } else {
      const display = progressDisplay(Boolean(argv.quiet) || Boolean(argv.json));
      const result = await refusingConfigErrors(prepared.label.spec, () =>
        simulate(
          prepared.model,
          { ...common, progressIntervalMs: display.progressIntervalMs, ...(display.onProgress ? { onProgress: display.onProgress } : {}) },
          prepared.label,
        ),
      );
      display.done();
      walks = [{ seed, runs, outcome: 'trace' in result && result.trace ? ({ ...result, trace: toItf(result.trace) } as WalkOutcome) : (result as WalkOutcome) }];
      winner = result.status === 'violation' || result.status === 'error' ? 0 : null;
      status = result.status;
    }
    const shown = walks[winner ?? 0]!;
    const trace = 'trace' in shown.outcome && shown.outcome.trace ? shown.outcome.trace : null;
    const written = argv.out !== undefined && trace ? await (await import('../../../traces/render/writeAll.ts')).writeAllFormats(trace, String(argv.out)) : [];
    const total = totals(walks);
    if (argv.json) {
      const o = shown.outcome;
      process.stdout.write(
        `${JSON.stringify({
          status,
          // A walk is a sample: "holds" here is no violation on the walks made, never a proof.
          exhaustive: false,
          spec: prepared.label.spec,
          preset: prepared.label.preset ?? null,
          params: prepared.label.params,
          seed: seedText(shown.seed),
          property: o.status === 'violation' ? o.property : null,
          message: o.status === 'error' ? o.message : null,
          runs: total.runs,
          steps: total.steps,
          // Each worker counts the states its own walks saw; across workers a state may count more than once.
          distinct: total.distinct,
          seconds: total.seconds,
          traceLength: trace ? trace.states.length : null,
          shrunkFrom: o.status === 'violation' ? o.shrunkFrom + 1 : null,
          // A limit that came while the trace was being shrunk: the trace is the shortest found by then.
          shrinkStoppedBy: o.status === 'violation' ? (o.shrinkStoppedBy ?? null) : null,
          trace,
          ...(walks.length > 1
            ? {
                workers: walks.map((w) => ({
                  seed: seedText(w.seed),
                  runs: w.runs,
                  status: w.outcome.status,
                  property: w.outcome.status === 'violation' ? w.outcome.property : null,
                  runsDone: w.outcome.stats.runs,
                  steps: w.outcome.stats.steps,
                  distinct: w.outcome.stats.distinct,
                })),
              }
            : {}),
        })}\n`,
      );
    } else {
      if (trace) process.stdout.write(`${renderText(trace)}\n\n`);
      if (walks.length > 1) process.stdout.write(`${walks.map((w, i) => walkLine(w, i, winner)).join('\n')}\n`);
      process.stdout.write(`${summary(shown, total, walks.length > 1)}\n`);
      if (written.length > 0) process.stdout.write(`Counterexample written to ${written.join(', ')}\n`);
    }
    return exitCode(status);
  },
};

/** A simulation the model cannot run (liveness with a VIEW) is reported as a usage error. */
async function refusingConfigErrors<T>(spec: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof ConfigError) throw new UserError(`Cannot simulate ${spec}: ${e.message}`);
    if (e instanceof Error && e.name === 'ClusterError') throw new UserError(`Cannot simulate ${spec} on the cluster: ${e.message}`, ExitCode.Cluster);
    throw e;
  }
}

const seedText = (seed: number) => `0x${seed.toString(16)}`;

interface Totals {
  readonly runs: number;
  readonly steps: number;
  readonly distinct: number;
  readonly seconds: number;
}

function totals(walks: readonly SwarmWalk[]): Totals {
  const sum = (f: (w: SwarmWalk) => number) => walks.reduce((n, w) => n + f(w), 0);
  return {
    runs: sum((w) => w.outcome.stats.runs),
    steps: sum((w) => w.outcome.stats.steps),
    distinct: sum((w) => w.outcome.stats.distinct),
    seconds: Math.max(...walks.map((w) => w.outcome.stats.seconds)),
  };
}

/** `--seed` and `--runs` that replay this worker's walks alone, in one thread. */
const replayFlags = (w: SwarmWalk, swarm: boolean) => `--seed ${seedText(w.seed)}${swarm ? ` --runs ${w.runs}` : ''}`;

function walkLine(w: SwarmWalk, i: number, winner: number | null): string {
  const o = w.outcome;
  const what =
    o.status === 'violation'
      ? `${o.kind === 'deadlock' ? 'deadlock' : `${o.property} violated`}${i === winner ? ' (shown)' : ''}`
      : o.status === 'error'
        ? `the spec threw${i === winner ? ' (shown)' : ''}`
        : o.status === 'incomplete'
          ? o.reason === 'timeLimit'
            ? 'stopped by --time-limit'
            : 'stopped'
          : 'no violation';
  return `  worker ${i + 1}  ${replayFlags(w, true)}: ${fmt(o.stats.runs)} runs, ${fmt(o.stats.steps)} steps, ${fmt(o.stats.distinct)} distinct states: ${what}`;
}

function summary(shown: SwarmWalk, t: Totals, swarm: boolean): string {
  const r = shown.outcome;
  const counts = `${fmt(t.runs)} runs, ${fmt(t.steps)} steps, ${fmt(t.distinct)} distinct states${swarm ? ' (counted per worker)' : ''}, ${t.seconds.toFixed(1)} s`;
  const replay = chalk.dim(`Replay with ${replayFlags(shown, swarm)}`);
  switch (r.status) {
    case 'holds':
      return `${chalk.green.bold('No violation found')} (simulation is not a proof): ${counts}.${swarm ? '' : ` ${replay}`}`;
    case 'violation':
      if (r.kind === 'liveness') {
        return `${chalk.red.bold(`Temporal property ${r.property} violated`)}: a walk looped back to step ${r.trace.loop ?? '?'} on a fair cycle (a lasso of ${r.trace.states.length} states, not shrunk). ${counts}. ${replay}`;
      }
      if (r.kind === 'everyStep') {
        return `${chalk.red.bold(`Step property ${r.property} violated`)} by step ${r.trace.states.length - 1} of a walk (shrunk from ${r.shrunkFrom}${shrinkStopped(r.shrinkStoppedBy)}). ${counts}. ${replay}`;
      }
      return `${chalk.red.bold(r.kind === 'deadlock' ? 'Deadlock' : `Invariant ${r.property} violated`)} after ${r.trace.states.length - 1} steps (shrunk from ${r.shrunkFrom}${shrinkStopped(r.shrinkStoppedBy)}). ${counts}. ${replay}`;
    case 'incomplete':
      return `${chalk.yellow.bold('Incomplete:')} stopped by ${r.reason === 'timeLimit' ? '--time-limit' : stopSignalText()}. ${counts}.${swarm ? '' : ` ${replay}`}`;
    case 'error':
      return `${chalk.red.bold('The spec threw:')} ${r.message}. ${counts}. ${replay}`;
  }
}

/** Why the trace shown may not be as short as shrinking would have made it. */
function shrinkStopped(by: 'timeLimit' | 'interrupted' | undefined): string {
  if (by === undefined) return '';
  return `; ${by === 'timeLimit' ? '--time-limit' : stopSignalText()} stopped the shrinking, so a shorter trace may exist`;
}

function exitCode(status: WalkOutcome['status']) {
  return { holds: ExitCode.Holds, violation: ExitCode.Violation, incomplete: ExitCode.Incomplete, error: ExitCode.SpecError }[status];
}

export function parseSeed(raw: unknown): number {
  const text = String(raw).trim();
  const n = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) throw new UserError(`--seed takes a whole number from 0 to 0xffffffff (decimal or 0x hex); got '${text}'.`);
  return n;
}


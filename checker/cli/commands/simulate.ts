/** `kmc simulate <spec>`: random walks from a seed, for models too big to exhaust. */
import chalk from 'chalk';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../exitCodes.ts';
import { prepareCheck } from '../runCheck.ts';
import { simulate, type SimulationResult } from '../../engine/simulate.ts';
import { randomSeed } from '../../engine/rng.ts';
import { ConfigError } from '../../engine/check.ts';
import { toItf } from '../../../traces/itf/write.ts';
import { renderText } from '../../../traces/text.ts';
import { progressDisplay, fmt } from '../progressDisplay.ts';
import { UserError } from '../userError.ts';
import { positiveInt, positiveNumber, specOptions } from './commonOptions.ts';
import { interruptFlag } from './interrupt.ts';
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
      .option('deadlock', { type: 'boolean', describe: 'Report states with no enabled action (default on; the preset may turn it off)' }),
  run: async (argv) => {
    if (argv.out !== undefined) checkOutputFolder(String(argv.out));
    const prepared = await prepareCheck({
      spec: String(argv.spec),
      ...(argv.preset !== undefined ? { preset: String(argv.preset) } : {}),
      params: (argv.param as string[]).map(String),
      options: { deadlock: argv.deadlock as boolean | undefined },
    });
    const seed = argv.seed === undefined ? randomSeed() : parseSeed(argv.seed);
    const display = progressDisplay(Boolean(argv.quiet) || Boolean(argv.json));
    const result = await simulateOrRefuse(
      prepared.model,
      {
        seed,
        runs: positiveInt('runs', argv.runs) ?? 1000,
        maxDepth: positiveInt('max-depth', argv['max-depth']) ?? 100,
        ...(prepared.options.deadlock !== undefined ? { deadlock: prepared.options.deadlock } : {}),
        ...(argv['time-limit'] !== undefined ? { timeLimitSeconds: positiveNumber('time-limit', argv['time-limit'])! } : {}),
        shouldStop: interruptFlag(),
        progressIntervalMs: display.progressIntervalMs,
        ...(display.onProgress ? { onProgress: display.onProgress } : {}),
      },
      prepared.label,
    );
    display.done();
    const trace = 'trace' in result && result.trace ? toItf(result.trace) : null;
    const written = argv.out !== undefined && trace ? await (await import('../../../traces/render/writeAll.ts')).writeAllFormats(trace, String(argv.out)) : [];
    const seedText = `0x${seed.toString(16)}`;
    if (argv.json) {
      process.stdout.write(
        `${JSON.stringify({
          status: result.status,
          spec: prepared.label.spec,
          preset: prepared.label.preset ?? null,
          params: prepared.label.params,
          seed: seedText,
          property: result.status === 'violation' ? result.property : null,
          message: result.status === 'error' ? result.message : null,
          runs: result.stats.runs,
          steps: result.stats.steps,
          distinct: result.stats.distinct,
          seconds: result.stats.seconds,
          traceLength: trace ? trace.states.length : null,
          shrunkFrom: result.status === 'violation' ? result.shrunkFrom + 1 : null,
          trace,
        })}\n`,
      );
    } else {
      if (trace) process.stdout.write(`${renderText(trace)}\n\n`);
      process.stdout.write(`${summary(result, seedText)}\n`);
      if (written.length > 0) process.stdout.write(`Counterexample written to ${written.join(', ')}\n`);
    }
    return exitCode(result);
  },
};

/** `simulate`, with a model it cannot run (liveness with a VIEW or CONSTRAINT) reported as a usage error. */
async function simulateOrRefuse(...args: Parameters<typeof simulate<unknown>>): Promise<SimulationResult<unknown>> {
  try {
    return await simulate(...args);
  } catch (e) {
    if (e instanceof ConfigError) throw new UserError(`Cannot simulate ${args[2].spec}: ${e.message}`);
    throw e;
  }
}

function summary(r: SimulationResult<unknown>, seed: string): string {
  const s = r.stats;
  const counts = `${fmt(s.runs)} runs, ${fmt(s.steps)} steps, ${fmt(s.distinct)} distinct states, ${s.seconds.toFixed(1)} s`;
  const replay = chalk.dim(`Replay with --seed ${seed}`);
  switch (r.status) {
    case 'holds':
      return `${chalk.green.bold('No violation found')} (simulation is not a proof): ${counts}. ${replay}`;
    case 'violation':
      if (r.kind === 'liveness') {
        return `${chalk.red.bold(`Temporal property ${r.property} violated`)}: a walk looped back to step ${r.trace.loop?.index ?? '?'} on a fair cycle (a lasso of ${r.trace.steps.length} states, not shrunk). ${counts}. ${replay}`;
      }
      return `${chalk.red.bold(r.kind === 'deadlock' ? 'Deadlock' : `Invariant ${r.property} violated`)} after ${r.trace.steps.length - 1} steps (shrunk from ${r.shrunkFrom}). ${counts}. ${replay}`;
    case 'incomplete':
      return `${chalk.yellow.bold('Incomplete:')} stopped by ${r.reason === 'timeLimit' ? '--time-limit' : 'Ctrl-C'}. ${counts}. ${replay}`;
    case 'error':
      return `${chalk.red.bold('The spec threw:')} ${r.message}. ${counts}. ${replay}`;
  }
}

function exitCode(r: SimulationResult<unknown>) {
  return { holds: ExitCode.Holds, violation: ExitCode.Violation, incomplete: ExitCode.Incomplete, error: ExitCode.SpecError }[r.status];
}

export function parseSeed(raw: unknown): number {
  const text = String(raw).trim();
  const n = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) throw new UserError(`--seed takes a whole number from 0 to 0xffffffff (decimal or 0x hex); got '${text}'.`);
  return n;
}

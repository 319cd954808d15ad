/** `kmc check <spec>`: exhaustive search, with a shortest counterexample when a property fails. */
import chalk from 'chalk';
import type { KmcCommand } from '../command.ts';
import { exitCodeOf, toReport } from '../report.ts';
import { formatCoverage, formatReport } from '../resultText.ts';
import { progressDisplay } from '../progressDisplay.ts';
import { runCheck } from '../runCheck.ts';
import { parseBytes, positiveInt, positiveNumber, specOptions } from './commonOptions.ts';
import { interruptFlag } from './interrupt.ts';
import { defaultWorkers } from '../../engine/defaultWorkers.ts';

export const checkCommand: KmcCommand = {
  command: 'check <spec>',
  describe: 'Explore every reachable state and check every property (exit 0 holds, 1 violation, 2 usage, 3 spec threw, 4 incomplete)',
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
      .option('workers', { type: 'string', default: String(defaultWorkers()), describe: 'Worker threads; results are identical for every count (default: all cores on machines with 4 or more, else 1)' })
      .option('coverage', { type: 'boolean', default: false, describe: 'Print per-action coverage (enabled, fired, new states)' }),
  run: async (argv) => {
    const display = progressDisplay(Boolean(argv.quiet) || Boolean(argv.json));
    const run = await runCheck({
      spec: String(argv.spec),
      ...(argv.preset !== undefined ? { preset: String(argv.preset) } : {}),
      params: (argv.param as string[]).map(String),
      options: {
        strategy: argv.strategy as 'bfs' | 'dfs',
        maxStates: positiveInt('max-states', argv['max-states']),
        maxDepth: positiveInt('max-depth', argv['max-depth']),
        timeLimitSeconds: positiveNumber('time-limit', argv['time-limit']),
        memoryBudgetBytes: parseBytes(argv['memory-budget']),
        ...(argv['spill-dir'] !== undefined ? { spillDirectory: String(argv['spill-dir']) } : {}),
        ...(argv.checkpoint !== undefined ? { checkpointDirectory: String(argv.checkpoint) } : {}),
        checkpointEverySeconds: 60 * (positiveNumber('checkpoint-every', argv['checkpoint-every']) ?? 10),
        ...(argv.resume !== undefined ? { resumeDirectory: String(argv.resume) } : {}),
        deadlock: argv.deadlock as boolean | undefined,
        symmetry: argv.symmetry as boolean | undefined,
        workers: positiveInt('workers', argv.workers),
        shouldStop: interruptFlag(),
        progressIntervalMs: display.progressIntervalMs,
        ...(display.onProgress ? { onProgress: display.onProgress } : {}),
      },
    });
    display.done();
    const report = toReport(run.result, run.label);
    const written = argv.out !== undefined && report.trace ? await (await import('../../../traces/render/writeAll.ts')).writeAllFormats(report.trace, String(argv.out)) : [];
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      const descriptions = new Map(run.loaded.definition.build(run.label.params).properties.map((p) => [p.name, p.description]));
      process.stdout.write(`${formatReport(report, descriptions)}\n`);
      if (argv.coverage) process.stdout.write(`${formatCoverage(report)}\n`);
      const itf = written.find((p) => p.endsWith('.itf.json'));
      if (written.length > 0) process.stdout.write(`Counterexample written to ${written.join(', ')}\n`);
      if (itf) process.stdout.write(chalk.dim(`Replay it with: kmc replay ${argv.spec as string} ${itf}\n`));
    }
    return exitCodeOf(run.result);
  },
};

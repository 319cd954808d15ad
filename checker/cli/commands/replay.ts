/** `kmc replay <spec> <trace>`: re-executes a saved trace and says where it stops fitting the spec. */
import chalk from 'chalk';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { readItf } from '../../../traces/itf/readFile.ts';
import { replayTrace, type ReplayOutcome } from '../../engine/replay.ts';
import { prepareCheck } from '../../run/runCheck.ts';
import { loadSpec } from '../../run/loadSpec.ts';
import { UserError } from '../../run/userError.ts';

export const replayCommand: KmcCommand = {
  command: 'replay <spec> <trace>',
  describe: 'Re-execute a saved .itf.json trace against a spec (exit 1 when it reaches a violation, 0 when it does not)',
  builder: (y) =>
    y
      .positional('spec', { type: 'string', describe: 'A bundled spec name or the path of a spec module' })
      .positional('trace', { type: 'string', describe: 'An .itf.json trace written by kmc' })
      .option('preset', { type: 'string', describe: "Replay under this preset's parameters instead of the trace's" })
      .option('param', { type: 'string', array: true, default: [], describe: "Override a parameter: NAME=VALUE (applied on top of the trace's parameters)" })
      .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object' }),
  run: async (argv) => {
    const trace = readItf(String(argv.trace));
    const recordedParams = Object.entries(trace['#meta']?.params ?? {}).map(([k, v]) => `${k}=${String(v)}`);
    const loaded = await loadSpec(String(argv.spec));
    const recordedSpec = trace['#meta']?.spec;
    if (recordedSpec !== undefined && recordedSpec !== loaded.definition.name) {
      throw new UserError(
        `${String(argv.trace)} was recorded for the spec ${recordedSpec}, not ${loaded.definition.name} (${String(argv.spec)}). Replay it against the spec that wrote it: kmc replay ${recordedSpec} ${String(argv.trace)} (or the path of that spec's module).`,
      );
    }
    const prepared = await prepareCheck({
      spec: String(argv.spec),
      ...(argv.preset !== undefined ? { preset: String(argv.preset) } : {}),
      baseParams: argv.preset === undefined ? recordedParams : [],
      params: (argv.param as string[]).map(String),
    });
    const outcome = replayTrace(prepared.model, trace);
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ status: outcome.kind, spec: prepared.label.spec, params: prepared.label.params, ...outcome })}\n`);
    } else {
      process.stdout.write(`${describe(outcome, trace.states.length)}\n`);
    }
    return outcome.kind === 'reproduced' ? ExitCode.Violation : ExitCode.Holds;
  },
};

function describe(o: ReplayOutcome, length: number): string {
  switch (o.kind) {
    case 'reproduced': {
      const same = o.recorded === null || o.recorded === o.property;
      if ('loop' in o) {
        return `${chalk.red.bold('Reproduced:')} the trace fits the spec, its loop closes and is fair, and ${o.property} fails on the behaviour that repeats forever from step ${o.loop}${same ? '' : ` (the trace was recorded for ${o.recorded})`}.`;
      }
      if (o.property === 'Deadlock') return `${chalk.red.bold('Reproduced:')} the trace fits the spec and no action is enabled in its last state (step ${o.step}): the deadlock.`;
      const early = o.step < length - 1 ? `, before the trace's last step (${length - 1}), whose steps all replay too` : '';
      return `${chalk.red.bold('Reproduced:')} the trace fits the spec and step ${o.step} violates ${o.property}${early}${same ? '' : ` (the trace was recorded for ${o.recorded})`}.`;
    }
    case 'fits': {
      const missed = o.recorded === null ? '' : o.recorded === 'Deadlock' ? '; its last state is no longer a deadlock' : `; the ${o.recorded} violation it was recorded for is not reached`;
      return `${chalk.green.bold('Fits, no violation:')} all ${length} states of the trace replay and no invariant or step property fails${missed}.`;
    }
    case 'diverged':
      return `${chalk.yellow.bold(`No longer fits at step ${o.step}:`)} ${o.action}: ${o.reason}.`;
  }
}

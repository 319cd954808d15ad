/** `kmc list`: the bundled specs, their parameters and presets. */
import chalk from 'chalk';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { bundledCatalog, type SpecSummary } from '../bundledCatalog.ts';
import { rangeOf } from '../../run/params.ts';

export const listCommand: KmcCommand = {
  command: 'list',
  describe: 'List the bundled specs with their parameters and presets',
  builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'Print one JSON object' }),
  plainFlags: ['--json'],
  run: async (argv) => {
    const specs = await bundledCatalog();
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ specs: specs.map(describeSpec) }, null, 2)}\n`);
      return ExitCode.Holds;
    }
    for (const s of specs) {
      process.stdout.write(`${chalk.bold(s.name)}  ${s.description}\n`);
      for (const p of s.params) process.stdout.write(`  --param ${p.name}=<${rangeOf(p)}>  ${chalk.dim(`default ${String(p.default)}`)}  ${p.description}\n`);
      for (const p of s.presets) {
        const expect = p.expect.verdict === 'holds' ? 'holds' : `violates ${p.expect.property}`;
        process.stdout.write(`  --preset ${chalk.cyan(p.name)}  ${chalk.dim(`[${expect}]`)}  ${p.description}\n`);
      }
      process.stdout.write('\n');
    }
    return ExitCode.Holds;
  },
};

export function describeSpec(s: SpecSummary) {
  return {
    name: s.name,
    description: s.description,
    params: s.params,
    presets: s.presets.map((p) => ({
      name: p.name,
      description: p.description,
      params: p.params,
      expect: p.expect.verdict === 'holds' ? 'holds' : `violates: ${p.expect.property}`,
    })),
  };
}

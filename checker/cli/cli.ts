/**
 * `kmc`: wires the subcommands into yargs. The only place that sets the process exit code; user mistakes
 * are printed as one paragraph without a stack trace.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import chalk from 'chalk';
import type { KmcCommand } from './command.ts';
import { ExitCode } from './exitCodes.ts';
import { UserError } from './userError.ts';

// Loaded on demand: `kmc check` need not pay for the graph renderers, `kmc render` not for the checker.
const COMMANDS: Readonly<Record<string, () => Promise<KmcCommand>>> = {
  list: async () => (await import('./commands/list.ts')).listCommand,
  check: async () => (await import('./commands/check.ts')).checkCommand,
  simulate: async () => (await import('./commands/simulate.ts')).simulateCommand,
  replay: async () => (await import('./commands/replay.ts')).replayCommand,
  render: async () => (await import('./commands/render.ts')).renderCommand,
  ci: async () => (await import('./commands/ci.ts')).ciCommand,
  diff: async () => (await import('./commands/diff.ts')).diffCommand,
};

/** The command named on the command line, or every command (for --help and unknown commands). */
async function commandsFor(args: readonly string[]): Promise<KmcCommand[]> {
  const named = args.find((a) => !a.startsWith('-'));
  const load = named !== undefined && COMMANDS[named] ? [COMMANDS[named]] : Object.values(COMMANDS);
  return Promise.all(load.map((l) => l()));
}

export async function main(args: readonly string[]): Promise<ExitCode> {
  let exitCode: ExitCode = ExitCode.Holds;
  let parser = yargs(args as string[])
    .scriptName('kmc')
    .usage('$0 <command> [options]\n\nAn explicit-state model checker for Kafka protocol designs.')
    .strict()
    .demandCommand(1, 'Name a command: list, check, simulate, replay, render, ci or diff (kmc --help lists them).')
    .recommendCommands()
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      throw error instanceof UserError ? error : new UserError(`${message ?? error?.message ?? 'invalid command line'} (kmc --help lists the commands and options)`);
    });
  for (const cmd of await commandsFor(args)) {
    parser = parser.command(cmd.command, cmd.describe, cmd.builder, async (argv) => {
      exitCode = await cmd.run(argv as Record<string, unknown>);
    });
  }
  try {
    await parser.parseAsync();
  } catch (e) {
    if (e instanceof UserError) {
      process.stderr.write(`${chalk.red('error:')} ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
  return exitCode;
}

export async function run(): Promise<void> {
  try {
    process.exitCode = await main(hideBin(process.argv));
  } catch (e) {
    // Not a user mistake: a bug in kmc itself. Keep the stack for the report.
    process.stderr.write(`kmc internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = ExitCode.Usage;
  }
}

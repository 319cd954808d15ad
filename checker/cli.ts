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
import { listCommand } from './commands/list.ts';
import { checkCommand } from './commands/check.ts';
import { simulateCommand } from './commands/simulate.ts';
import { replayCommand } from './commands/replay.ts';
import { renderCommand } from './commands/render.ts';
import { ciCommand } from './commands/ci.ts';

const COMMANDS: readonly KmcCommand[] = [listCommand, checkCommand, simulateCommand, replayCommand, renderCommand, ciCommand];

export async function main(args: readonly string[]): Promise<ExitCode> {
  let exitCode: ExitCode = ExitCode.Holds;
  let parser = yargs(args as string[])
    .scriptName('kmc')
    .usage('$0 <command> [options]\n\nAn explicit-state model checker for Kafka protocol designs.')
    .strict()
    .demandCommand(1, 'Name a command: list, check, simulate, replay, render or ci (kmc --help lists them).')
    .recommendCommands()
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      throw error instanceof UserError ? error : new UserError(`${message ?? error?.message ?? 'invalid command line'} (kmc --help lists the commands and options)`);
    });
  for (const cmd of COMMANDS) {
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
